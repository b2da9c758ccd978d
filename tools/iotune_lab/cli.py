# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""iotune lab: throw-away Debian 12 qemu VMs with several data disks, on one machine.

The collection needs a real kernel (md, udev, XFS) and several disks to prove anything; the lab
gives that with qemu, a debootstrap-built image and per-VM copy-on-write overlays. No cloud, no
image registry. See docs/lab.md.

Subcommands: build, podman-image, up, ssh, down, list, detach-disk, disk-model, disk-ceiling, stop-start,
console, prune.
Exit codes: 0 ok, 1 operation failed, 2 usage error, 3 VM not found / not running.

Standard library only; every external tool is run with an argv list (never through a shell).
"""

import argparse
import datetime
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
import zlib

from . import common, disk_models, emulator, kernel_log, pacct
from .common import EXIT_NOTFOUND, EXIT_USAGE, FileLock, LabError, Phase, need_tools, run, safe_rmtree, say, warn
from .disks import BUSES, blank_disk_file, fresh_disks, new_disks, parse_size
from .image import INITRAMFS, RELEASES, ensure_image, host_mirrors, recipe_hash
from .qmp import QMP
from .ssh import lab_key, ssh_argv
from .vm import (CPU_RE, TCG_CPU_DEFAULT, TCG_THREAD_DEFAULT, TCG_THREADS, apply_disk_models, boot_auto, console_tail, free_port,
                 kill_qemu, live_disk_limits, load_state, qemu_pid, save_state, start_and_wait, validate_name, vm_dir, write_inventory)


def cmd_build(args):
    d, h, built = ensure_image(force=args.force)
    if not built:
        say(f"image {h} is up to date: {d} (use --force to rebuild)")
    print(d)
    return 0


# ------------------------------------------------------------------------------------------------
# podman-image

def containers_env():
    env = dict(os.environ)
    conf = common.LAB_DIR / "containers.conf"
    if "CONTAINERS_CONF" not in env and conf.is_file():
        env["CONTAINERS_CONF"] = str(conf)
    return env


def cmd_podman_image(args):
    need_tools("podman")
    d, h, _built = ensure_image()
    env = containers_env()
    ref = f"localhost/iotune-debian12:{h}"
    have = run(["podman", "image", "exists", ref], check=False, env=env, quiet=True)
    if have.returncode == 0 and not args.force:
        say(f"{ref} exists already")
    else:
        with Phase("podman import"):
            with open(d / "rootfs.tar", "rb") as tar:
                run(["podman", "import", "--change", 'CMD ["/sbin/init"]', "-", ref],
                    env=env, stdin=tar, capture=True)
    run(["podman", "tag", ref, "localhost/iotune-debian12:latest"], env=env, capture=True)
    say(f"tagged {ref} as localhost/iotune-debian12:latest")
    if args.check:
        check_container(ref, env)
    print(ref)
    return 0


def check_container(ref, env):
    name = f"iotune-lab-check-{secrets.token_hex(3)}"
    with Phase("container check (systemd as PID 1)"):
        run(["podman", "run", "-d", "--name", name, "--privileged", "--systemd=always", ref],
            env=env, capture=True)
        try:
            deadline = time.monotonic() + 60
            comm = state = ""
            while time.monotonic() < deadline:
                comm = run(["podman", "exec", name, "cat", "/proc/1/comm"], check=False,
                           env=env, capture=True, quiet=True).stdout.strip()
                state = run(["podman", "exec", name, "systemctl", "is-system-running"],
                            check=False, env=env, capture=True, quiet=True).stdout.strip()
                if comm == "systemd" and state in ("running", "degraded"):
                    break
                time.sleep(2)
            failed = run(["podman", "exec", name, "systemctl", "--failed", "--no-legend",
                          "--plain"], check=False, env=env, capture=True, quiet=True).stdout
            say(f"container: PID 1 is {comm!r}, system state {state!r}")
            if failed.strip():
                say("container: failed units:\n" + failed.rstrip())
            if comm != "systemd":
                raise LabError("systemd is not PID 1 in the container")
        finally:
            run(["podman", "rm", "-f", "-t", "0", name], check=False, env=env, capture=True,
                quiet=True)


def cmd_up(args):
    validate_name(args.name)
    if args.disks < 0 or args.disks > 20:
        raise LabError("--disks must be between 0 and 20", EXIT_USAGE)
    instance_store = getattr(args, "instance_store", 0)
    if instance_store < 0 or args.disks + instance_store > 20:
        raise LabError("--instance-store must be >= 0, and --disks plus --instance-store at most 20", EXIT_USAGE)
    size = parse_size(args.disk_size)
    if args.memory < 256:
        raise LabError("--memory must be at least 256 (MiB)", EXIT_USAGE)
    if args.cpus < 1:
        raise LabError("--cpus must be at least 1", EXIT_USAGE)
    cpu = getattr(args, "cpu", None) or os.environ.get("IOTUNE_LAB_CPU") or TCG_CPU_DEFAULT
    if not CPU_RE.match(cpu):
        raise LabError(f"--cpu must be a qemu CPU model with optional +feature/-feature (got {cpu!r})", EXIT_USAGE)
    tcg_thread = getattr(args, "tcg_thread", None) or os.environ.get("IOTUNE_LAB_TCG_THREAD") or TCG_THREAD_DEFAULT
    if tcg_thread not in TCG_THREADS:
        raise LabError(f"--tcg-thread must be one of {', '.join(TCG_THREADS)} (got {tcg_thread!r})", EXIT_USAGE)
    accel_req = args.accel or os.environ.get("IOTUNE_LAB_ACCEL") or "auto"
    if accel_req not in ("auto", "kvm", "tcg"):
        raise LabError(f"accel must be auto, kvm or tcg (got {accel_req!r})", EXIT_USAGE)
    boot = args.boot or os.environ.get("IOTUNE_LAB_BOOT") or "disk"
    if boot not in ("disk", "kernel"):
        raise LabError(f"boot must be disk or kernel (got {boot!r})", EXIT_USAGE)
    models = disk_models.assign(getattr(args, "disk_model", None), args.disks)
    instance_bandwidth = parse_rate(getattr(args, "instance_bandwidth", None) or "0")
    need_tools("qemu-img", "ssh", "ssh-keygen")
    emulator.choose()               # the lab's qemu is there (7.2 stalls NVMe disks), before anything is built
    img, h, _built = ensure_image()
    key = lab_key()
    d = vm_dir(args.name)
    sock_path = d / "monitor.sock"
    if len(str(sock_path)) > 100:
        raise LabError(f"path too long for a unix socket: {sock_path} (set IOTUNE_LAB_DIR)")

    common.LAB_DIR.mkdir(parents=True, exist_ok=True)
    with FileLock(common.LAB_DIR / ".up.lock"):      # held while a name and a port are reserved
        if d.exists():
            state = "running" if qemu_pid(args.name) else "stopped"
            raise LabError(f"VM {args.name} exists already ({state}); "
                           f"`tools/lab down {args.name}` first")
        taken = set()
        for other in common.LAB_DIR.iterdir():
            s = load_state(other.name) if (other / "state.json").is_file() else None
            if s:
                taken.add(s.get("port"))
        d.mkdir(parents=True)
        st = {
            "name": args.name, "image": h, "port": free_port(taken), "memory": args.memory,
            "cpus": args.cpus, "cpu": cpu, "tcg_thread": tcg_thread, "boot": boot, "accel": None, "pid": None, "started": None,
            "disks": [],
        }
        st["disks"] = new_disks(args.disks, args.disk_bus, size, instance_store=instance_store)
        for disk, model in zip(st["disks"], models):
            disk["model"] = model
        for disk in st["disks"][args.disks:]:
            disk["model"] = disk_models.parse("instance-store")
        st["instance_bandwidth"] = instance_bandwidth
        warn_above_ceiling(st)
        shutil.copyfile(f"{key}.pub", d / "authorized_keys")
        fresh_disks(d, st, img)
        save_state(args.name, st)

    accel = accel_req
    try:
        if accel_req == "auto":
            accel, secs = boot_auto(args, d, img, st)
        else:
            say(f"VM {args.name}: accel {accel} (requested); ssh port {st['port']}; "
                f"{args.disks} x {size} byte {args.disk_bus} disks; image {h}")
            secs = start_and_wait(args.name, d, img, st, accel, args.timeout)
    except BaseException as e:
        kill_qemu(args.name)
        st["accel"] = st.get("accel") or accel
        save_state(args.name, st)
        if not isinstance(e, LabError):
            raise
        raise LabError(f"{e}\n--- console.log tail ({d / 'console.log'}) ---\n"
                       f"{console_tail(args.name)}\n---\nVM left stopped for inspection; "
                       f"remove it with `tools/lab down {args.name}`")
    st.update(accel=accel, pid=qemu_pid(args.name), boot_to_ssh_s=round(secs, 1),
              started=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))
    save_state(args.name, st)
    write_inventory(args.name, st)
    say(f"VM {args.name} up: SSH after {secs:.1f} s ({accel}{f', cpu {cpu}, thread={tcg_thread}' if accel == 'tcg' else ''}); "
        f"inventory {d / 'inventory.yml'}; `tools/lab ssh {args.name}`")
    return 0


# ------------------------------------------------------------------------------------------------
# ssh, down, list, console, detach-disk

def require_vm(name, running=True):
    validate_name(name)
    st = load_state(name)
    if st is None:
        raise LabError(f"no VM named {name} (see `tools/lab list`)", EXIT_NOTFOUND)
    if running and qemu_pid(name) is None:
        raise LabError(f"VM {name} is not running (`tools/lab console {name}` shows why; "
                       f"`tools/lab down {name}` removes it)", EXIT_NOTFOUND)
    return st


def cmd_ssh(args):
    st = require_vm(args.name)
    cmd = list(args.command)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    argv = ssh_argv(st["port"], common.LAB_DIR / "id_ed25519") + cmd
    sys.stdout.flush()
    os.execvp("ssh", argv)


def cmd_down(args):
    validate_name(args.name)
    d = vm_dir(args.name)
    if not d.exists():
        say(f"VM {args.name} does not exist: nothing to do")
        return 0
    with FileLock(common.LAB_DIR / ".up.lock"):
        if kill_qemu(args.name):
            say(f"VM {args.name}: qemu stopped")
        if qemu_pid(args.name) is not None:
            raise LabError(f"could not stop qemu of VM {args.name}")
        shutil.rmtree(d)
    say(f"VM {args.name}: removed {d}")
    return 0


def cmd_list(args):
    rows = []
    if common.LAB_DIR.is_dir():
        for d in sorted(p for p in common.LAB_DIR.iterdir() if (p / "state.json").is_file()):
            st = load_state(d.name) or {}
            running = qemu_pid(d.name) is not None
            disks = st.get("disks", [])
            att = [x for x in disks if x.get("attached", True)]
            desc = f"{len(att)}"
            if disks:
                desc += f" x {disks[0]['size_bytes'] // (1 << 20)}M {disks[0]['bus']}"
            if len(att) != len(disks):
                desc += f" ({len(disks) - len(att)} detached)"
            rows.append((d.name, "running" if running else "stopped", str(st.get("port", "-")),
                         str(st.get("accel") or "-"), desc))
    if args.json:
        out = [dict(zip(("name", "state", "port", "accel", "disks"), r)) for r in rows]
        for o in out:
            o["port"] = int(o["port"]) if o["port"].isdigit() else None
        print(json.dumps(out, indent=2))
        return 0
    if not rows:
        say("no VMs")
        return 0
    header = ("NAME", "STATE", "PORT", "ACCEL", "DISKS")
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(5)]
    for r in [header] + rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return 0


def cmd_console(args):
    require_vm(args.name, running=False)
    print(console_tail(args.name, args.lines))
    return 0


def cmd_pacct(args):
    try:
        with open(args.file, "rb") as f:
            recs = pacct.records(f.read())
    except OSError as e:
        raise LabError(f"cannot read {args.file}: {e}", EXIT_NOTFOUND)
    print(pacct.render(pacct.by_command(recs) if args.by == "comm" else pacct.by_origin(recs), args.top))
    return 0


def cmd_oops_check(args):
    """Exit 1 with the lab message when the guest kernel's console log shows an oops/BUG/panic."""
    require_vm(args.name, running=False)
    path = vm_dir(args.name) / "console.log"
    text, _end = kernel_log.read_from(path)
    found = kernel_log.oops_lines(text)
    if found:
        raise LabError(kernel_log.LAB_MESSAGE.format(first=found[0], path=path)
                       + "\n--- oops lines ---\n" + "\n".join(found)
                       + f"\n--- console.log tail ---\n{console_tail(args.name, args.lines)}")
    say(f"VM {args.name}: no oops, BUG or panic in the guest kernel's console log")
    return 0


def parse_rate(text):
    """Bytes per second from SIZE (K, M, G suffixes; 0: none)."""
    return disk_models._size(text, "--instance-bandwidth")


CEILING_FILE = "disk-ceiling.json"


def ceiling_key(st, bus):
    return f"{st.get('accel') or 'tcg'}:{st.get('cpu')}:{st.get('cpus')}vcpu:{bus}"


def warn_above_ceiling(st):
    for disk in st["disks"]:
        ceiling = disk_models.load_ceiling(common.CACHE / CEILING_FILE, ceiling_key(st, disk["bus"]))
        for problem in disk_models.ceiling_problems(disk["model"], ceiling):
            warn(problem)
            return


def cmd_disk_model(args):
    """Change the model of data disks of a running VM, live (QMP); state and inventory follow."""
    st = require_vm(args.name)
    if args.model is None:
        print(json.dumps(live_disk_limits(vm_dir(args.name), st), indent=1, sort_keys=True))
        return 0
    model = disk_models.parse(args.model)
    known = {x["serial"]: x for x in st["disks"]}
    unknown = [s for s in args.serial or [] if s not in known]
    if unknown:
        raise LabError(f"VM {args.name} has no data disk with serial {', '.join(unknown)}; disks: "
                       + ", ".join(known), EXIT_USAGE)
    disks = [known[s] for s in args.serial] if args.serial else [x for x in st["disks"] if not x.get("instance_store")]
    for disk in disks:
        disk["model"] = dict(model)
    apply_disk_models(vm_dir(args.name), st, disks)
    save_state(args.name, st)
    write_inventory(args.name, st)
    warn_above_ceiling(st)
    say(f"VM {args.name}: {disk_models.describe(model)} on {', '.join(x['serial'] for x in disks)}")
    return 0


CEILING_JOBS = {
    "iops": ["--rw=randread", "--bs=4k", "--iodepth=16"],
    "bps": ["--rw=read", "--bs=1m", "--iodepth=16"],
}


def cmd_disk_ceiling(args):
    """Measure the guest's unthrottled read ceiling on one data disk (fio --readonly, O_DIRECT, 10 s each)
    and keep it in the cache; `up` and `disk-model` warn about limits above a third of it."""
    st = require_vm(args.name)
    disk = next((x for x in st["disks"] if x["serial"] == (args.serial or x["serial"]) and x.get("attached", True)), None)
    if disk is None:
        raise LabError(f"VM {args.name} has no attached data disk {args.serial or ''}".rstrip(), EXIT_USAGE)
    if (disk.get("model") or {}).get("iops") or (disk.get("model") or {}).get("bps"):
        raise LabError(f"disk {disk['serial']} has limits ({disk_models.describe(disk['model'])}): measure an "
                       "unlimited disk (`tools/lab disk-model NAME unlimited --serial S`)", EXIT_USAGE)
    if st.get("instance_bandwidth") and not disk.get("instance_store"):
        raise LabError(f"VM {args.name} has an instance bandwidth cap that disk {disk['serial']} shares: measure "
                       "on a VM without --instance-bandwidth, or on an instance-store disk", EXIT_USAGE)
    ssh = ssh_argv(st["port"], common.LAB_DIR / "id_ed25519")
    run(ssh + ["command -v fio >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q fio >/dev/null "
               "|| (apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q fio >/dev/null)"],
        capture=True, timeout=900)
    found = {}
    for key, job in CEILING_JOBS.items():
        out = run(ssh + ["fio", "--readonly", "--output-format=json", "--name=ceiling", f"--filename={disk['by_id']}",
                         "--ioengine=libaio", "--direct=1", "--time_based=1", f"--runtime={args.seconds}", *job],
                  capture=True, timeout=args.seconds + 300).stdout
        read = json.loads(out[out.index("{"):])["jobs"][0]["read"]
        found[key] = float(read["iops"] if key == "iops" else read["bw_bytes"])
    found["measured"] = datetime.date.today().isoformat()
    path = common.CACHE / CEILING_FILE
    table = {}
    if path.is_file():
        try:
            table = json.loads(path.read_text())
        except ValueError:
            table = {}
    table[ceiling_key(st, disk["bus"])] = found
    common.CACHE.mkdir(parents=True, exist_ok=True)
    common.write_atomic(path, json.dumps(table, indent=1) + "\n")
    say(f"VM {args.name}: unthrottled ceiling on {disk['bus']} disk {disk['serial']}: {found['iops']:.0f} IOPS "
        f"(4 KiB random, QD16), {found['bps'] / disk_models.MIB:.1f} MiB/s (1 MiB sequential, QD16); kept in {path}")
    print(json.dumps(found))
    return 0


def cmd_detach_disk(args):
    st = require_vm(args.name)
    disk = next((x for x in st["disks"] if x["serial"] == args.serial), None)
    if disk is None:
        raise LabError(f"VM {args.name} has no data disk with serial {args.serial}; disks: "
                       + ", ".join(x["serial"] for x in st["disks"]), EXIT_USAGE)
    if not disk.get("attached", True):
        say(f"disk {args.serial} is detached already")
        return 0
    q = QMP(vm_dir(args.name) / "monitor.sock", timeout=10)
    try:
        t0 = time.monotonic()
        q.cmd("device_del", id=args.serial)
        ev = q.wait_event("DEVICE_DELETED", args.timeout,
                          match=lambda e: e.get("data", {}).get("device") == args.serial)
    finally:
        q.close()
    if ev is None:
        raise LabError(f"the guest did not release disk {args.serial} within {args.timeout} s "
                       "(unplug needs the guest's cooperation: is it still booting?)")
    disk["attached"] = False
    save_state(args.name, st)
    write_inventory(args.name, st)
    say(f"VM {args.name}: disk {args.serial} unplugged in {time.monotonic() - t0:.1f} s; "
        "it stays gone across guest reboots")
    return 0


TWIN_CONTROLLER = "twinscsi"
TWIN_SERIAL_RE = re.compile(r"^[A-Za-z0-9]{1,20}$")


def twin_ids(serial, paths=2):
    """(device id, block node name) of each path of a twin disk (two paths; one for a plain hot-plugged disk)."""
    return [(f"twin-{serial}-{k}", f"twinnode-{serial}-{k}") for k in range(paths)]


def twin_wwn(serial):
    """One NAA-5 world-wide name for both paths (what a SAN LUN reports through each of its paths)."""
    return 0x5000C50000000000 | zlib.crc32(serial.encode())      # NAA 5, an OUI, 36 bits of vendor id


def cmd_twin_disk(args):
    """One blank disk image on two SCSI paths with one serial and one WWN (a LUN seen through two HBAs without
    dm-multipath), hot-plugged on its own virtio-scsi controller; --remove unplugs both and deletes the image.
    ``--paths 1``: one path, a plain blank disk hot-plugged beside the data disks (the refusal tests' spare disks).
    Not in the VM's state: a stop-start or `down` ends it."""
    st = require_vm(args.name)
    if not TWIN_SERIAL_RE.match(args.serial):
        raise LabError(f"--serial must be 1-20 letters and digits (got {args.serial!r})", EXIT_USAGE)
    if any(x["serial"] == args.serial for x in st["disks"]):
        raise LabError(f"{args.serial} is the serial of a data disk of {args.name}", EXIT_USAGE)
    d = vm_dir(args.name)
    image = d / f"twin-{args.serial}.raw"
    q = QMP(d / "monitor.sock", timeout=10)
    try:
        if args.remove:
            return twin_remove(args, q, image)
        if image.exists():
            raise LabError(f"VM {args.name} has a twin disk {args.serial} already (--remove first)", EXIT_USAGE)
        image.touch()
        blank_disk_file(image, parse_size(args.size))
        try:
            q.cmd("device_add", driver="virtio-scsi-pci", id=TWIN_CONTROLLER)
        except LabError as e:
            if "Duplicate" not in str(e):
                raise
        for dev, node in twin_ids(args.serial, args.paths):
            q.cmd("blockdev-add", **{"driver": "raw", "node-name": node,
                                     "file": {"driver": "file", "filename": str(image), "locking": "off"}})
            # no scsi-id: qemu gives each device the first free target of the bus (twin and plain disks side by side)
            q.cmd("device_add", driver="scsi-hd", id=dev, drive=node, bus=f"{TWIN_CONTROLLER}.0", **{
                "lun": 0, "serial": args.serial, "wwn": twin_wwn(args.serial), "share-rw": True})
    finally:
        q.close()
    say(f"VM {args.name}: twin disk {args.serial} ({args.size}) on {args.paths} SCSI path(s), "
        f"wwn 0x{twin_wwn(args.serial):016x}")
    return 0


def twin_remove(args, q, image):
    for dev, node in twin_ids(args.serial):
        try:
            q.cmd("device_del", id=dev)
        except LabError as e:
            if "not found" not in str(e):
                raise
            continue
        if q.wait_event("DEVICE_DELETED", args.timeout, match=lambda e, dev=dev: e.get("data", {}).get("device") == dev) \
                is None:
            raise LabError(f"the guest did not release {dev} within {args.timeout} s")
        q.cmd("blockdev-del", **{"node-name": node})
    image.unlink(missing_ok=True)
    say(f"VM {args.name}: twin disk {args.serial} removed")
    return 0


def disks_to_blank(st, serials, blank_all):
    """The state entries of the disks `stop-start` blanks; LabError for an unknown serial."""
    if blank_all:
        return list(st["disks"])
    known = {x["serial"]: x for x in st["disks"]}
    unknown = [s for s in serials if s not in known]
    if unknown:
        raise LabError(f"VM {st['name']} has no data disk with serial {', '.join(unknown)}; disks: "
                       + ", ".join(known), EXIT_USAGE)
    return [known[s] for s in serials]


def cmd_stop_start(args):
    """Power the guest off cleanly, optionally blank data disks (instance store), boot it again."""
    st = require_vm(args.name)
    blank = disks_to_blank(st, args.blank or [], args.blank_all)
    d = vm_dir(args.name)
    t0 = time.monotonic()
    # a clean poweroff (md stops, filesystems unmount); ssh itself may end with 255 when the guest goes
    subprocess.run(ssh_argv(st["port"], common.LAB_DIR / "id_ed25519") + ["systemctl", "poweroff", "--no-block"],
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    deadline = time.monotonic() + args.grace
    while qemu_pid(args.name) is not None and time.monotonic() < deadline:
        time.sleep(0.5)
    if qemu_pid(args.name) is not None:
        raise LabError(f"VM {args.name} did not power off within {args.grace} s; it is still running "
                       f"(`tools/lab console {args.name}`)")
    stopped = time.monotonic() - t0
    for disk in blank:
        blank_disk_file(d / disk["file"], disk["size_bytes"])
    img, _h, _built = ensure_image()
    secs = start_and_wait(args.name, d, img, st, st["accel"], args.timeout)
    st.update(pid=qemu_pid(args.name),
              started=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))
    save_state(args.name, st)
    write_inventory(args.name, st)
    say(f"VM {args.name}: powered off in {stopped:.1f} s; "
        + (f"blank disks {', '.join(x['serial'] for x in blank)}; " if blank else "")
        + f"SSH after {secs:.1f} s")
    return 0


def cmd_qemu(args):
    """Fetch (or reuse) the lab's qemu when the host's is older than emulator.MIN_VERSION; print its command."""
    argv = emulator.fetch()
    print(" ".join(argv))
    return 0


def cmd_prune(args):
    """Remove cached images other than the current recipe's and those running VMs still use."""
    keep = set()
    for release in RELEASES:           # the current image of every release and generator stays
        mirror, security = host_mirrors(suite=release)
        keep.update(recipe_hash(mirror, security, release, initramfs) for initramfs in INITRAMFS)
    if common.LAB_DIR.is_dir():
        for d in common.LAB_DIR.iterdir():
            if (d / "state.json").is_file():
                keep.add((load_state(d.name) or {}).get("image"))
    images = common.CACHE / "images"
    freed = 0
    with FileLock(images / ".build.lock"):
        for d in sorted(images.iterdir()) if images.is_dir() else []:
            if not d.is_dir() or d.name in keep:
                continue
            size = sum(f.stat().st_size for f in d.rglob("*") if f.is_file())
            if args.dry_run:
                say(f"would remove {d} ({size >> 20} MiB)")
                continue
            try:
                safe_rmtree(d)
            except LabError as e:
                warn(str(e))
                continue
            freed += size
            say(f"removed {d} ({size >> 20} MiB)")
    say(f"kept {', '.join(sorted(k for k in keep if k))}; freed {freed >> 20} MiB")
    return 0


# ------------------------------------------------------------------------------------------------

def build_parser():
    p = argparse.ArgumentParser(
        prog="tools/lab", description=__doc__.split("\n\n", maxsplit=1)[0],
        epilog=f"VM folders: {common.LAB_DIR} (IOTUNE_LAB_DIR); image cache: {common.CACHE}/images "
               "(IOTUNE_LAB_CACHE). Details: docs/lab.md")
    p.add_argument("--mirror", metavar="URL",
                   help="Debian mirror for the image (default $IOTUNE_LAB_MIRROR, else the host's apt sources)")
    p.add_argument("--security-mirror", metavar="URL",
                   help="Debian security mirror (default $IOTUNE_LAB_SECURITY_MIRROR, else the host's apt "
                        "sources, else MIRROR-security)")
    p.add_argument("--release", choices=tuple(RELEASES), default=None,
                   help="Debian release of the image (build, up, podman-image; default "
                        "$IOTUNE_LAB_RELEASE, else bookworm)")
    p.add_argument("--initramfs", choices=INITRAMFS, default=None,
                   help="initramfs generator in the image (default $IOTUNE_LAB_INITRAMFS, else "
                        "initramfs-tools; dracut replaces it)")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND", required=True)

    b = sub.add_parser("build", help="build (or reuse) the Debian 12 base image")
    b.add_argument("--force", action="store_true", help="rebuild even if the cached image is current")
    b.set_defaults(func=cmd_build)

    pi = sub.add_parser("podman-image", help="import the image's rootfs into podman "
                                             "(localhost/iotune-debian12:HASH and :latest)")
    pi.add_argument("--force", action="store_true", help="re-import even if the tag exists")
    pi.add_argument("--check", action="store_true",
                    help="start a privileged container and check systemd is PID 1, then remove it")
    pi.set_defaults(func=cmd_podman_image)

    u = sub.add_parser("up", help="boot a VM with N empty data disks and write its inventory")
    u.add_argument("--name", required=True, help="VM name (also its hostname and inventory host)")
    u.add_argument("--disks", type=int, default=4, help="number of data disks (default 4)")
    u.add_argument("--disk-size", default="2G", help="size of each data disk (default 2G)")
    u.add_argument("--disk-bus", choices=BUSES, default="virtio", help="default virtio")
    u.add_argument("--instance-store", type=int, default=0, metavar="K",
                   help="K more disks marked as instance store: SCSI, vendor Google, product EphemeralDisk, "
                        "serial local-ssd-0... like a GCP local SSD (default 0; docs/lab.md)")
    u.add_argument("--memory", type=int, default=1024, help="MiB (default 1024)")
    u.add_argument("--cpus", type=int, default=2, help="vCPUs (default 2)")
    u.add_argument("--cpu", default=None, metavar="MODEL",
                   help=f"CPU model of a TCG guest (default $IOTUNE_LAB_CPU, else {TCG_CPU_DEFAULT}; "
                        "docs/lab.md, CPU model); a KVM guest gets the host's")
    u.add_argument("--tcg-thread", choices=TCG_THREADS, default=None,
                   help=f"TCG: one host thread per vCPU (multi) or one for all (single); default "
                        f"$IOTUNE_LAB_TCG_THREAD, else {TCG_THREAD_DEFAULT} (docs/lab.md, CPU model)")
    u.add_argument("--accel", choices=("auto", "kvm", "tcg"), default=None,
                   help="default $IOTUNE_LAB_ACCEL or auto (probe KVM once, else TCG)")
    u.add_argument("--boot", choices=("disk", "kernel"), default=None,
                   help="disk: SeaBIOS and GRUB boot the guest's own /boot (default); kernel: qemu "
                        "-kernel/-initrd with the image's build-time files (default $IOTUNE_LAB_BOOT)")
    u.add_argument("--disk-model", action="append", metavar="[I=]MODEL",
                   help="I/O limits of the data disks, like a cloud disk: a preset ("
                        + ", ".join(disk_models.names()) + ") or iops=N,bps=SIZE,iops-size=SIZE; I= for disk I only "
                        "(0-based); repeatable; default unlimited; instance-store disks stay unlimited (docs/lab.md)")
    u.add_argument("--instance-bandwidth", metavar="SIZE",
                   help="bytes/s shared by all --disks volumes (K, M, G), like an instance's EBS bandwidth; default none")
    u.add_argument("--timeout", type=int, default=300, help="seconds to wait for SSH (default 300)")
    u.set_defaults(func=cmd_up)

    dm = sub.add_parser("disk-model", help="change the I/O limits of data disks of a running VM, live")
    dm.add_argument("name")
    dm.add_argument("model", nargs="?", help="a preset (" + ", ".join(disk_models.names()) + ") or "
                    "iops=N,bps=SIZE,iops-size=SIZE; without it: print the live limits per disk (JSON, from qemu)")
    dm.add_argument("--serial", action="append", metavar="SERIAL",
                    help="this disk only; repeatable (default: every disk but the instance store)")
    dm.set_defaults(func=cmd_disk_model)

    dc = sub.add_parser("disk-ceiling", help="measure the guest's unthrottled disk read ceiling (fio in the guest) "
                                             "and keep it; limits above a third of it are warned about")
    dc.add_argument("name")
    dc.add_argument("--serial", help="the disk to read (default the first attached one)")
    dc.add_argument("--seconds", type=int, default=10, help="seconds per job (default 10)")
    dc.set_defaults(func=cmd_disk_ceiling)

    s = sub.add_parser("ssh", help="ssh into a VM as root; `tools/lab ssh NAME -- CMD...`")
    s.add_argument("name")
    s.add_argument("command", nargs=argparse.REMAINDER)
    s.set_defaults(func=cmd_ssh)

    dn = sub.add_parser("down", help="stop a VM and remove its folder and disks")
    dn.add_argument("name")
    dn.set_defaults(func=cmd_down)

    ls = sub.add_parser("list", help="list VMs")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=cmd_list)

    oc = sub.add_parser("oops-check", help="fail (exit 1) when the guest kernel oopsed, hit a BUG or "
                                           "panicked, as its console log shows")
    oc.add_argument("name")
    oc.add_argument("-n", "--lines", type=int, default=80, help="console lines to show on a hit (default 80)")
    oc.set_defaults(func=cmd_oops_check)

    dd = sub.add_parser("detach-disk", help="hot-unplug one data disk (QMP device_del)")
    dd.add_argument("name")
    dd.add_argument("serial")
    dd.add_argument("--timeout", type=int, default=60)
    dd.set_defaults(func=cmd_detach_disk)

    tw = sub.add_parser("twin-disk", help="hot-plug one blank disk image on two SCSI paths with one serial and WWN "
                                          "(a LUN through two HBAs without dm-multipath); --remove unplugs it")
    tw.add_argument("name")
    tw.add_argument("--serial", required=True)
    tw.add_argument("--size", default="64M")
    tw.add_argument("--paths", type=int, choices=(1, 2), default=2,
                    help="SCSI paths to the image (default 2; 1: a plain hot-plugged blank disk)")
    tw.add_argument("--remove", action="store_true")
    tw.add_argument("--timeout", type=int, default=60)
    tw.set_defaults(func=cmd_twin_disk)

    ss = sub.add_parser("stop-start", help="power a VM off and on again, optionally with blank data disks "
                                           "(an instance store after a stop/start)")
    ss.add_argument("name")
    ss.add_argument("--blank", action="append", metavar="SERIAL",
                    help="data disk to come back blank (same serial and size); repeat for more")
    ss.add_argument("--blank-all", action="store_true", help="every data disk comes back blank")
    ss.add_argument("--grace", type=int, default=180, help="seconds to wait for the poweroff (default 180)")
    ss.add_argument("--timeout", type=int, default=300, help="seconds to wait for SSH (default 300)")
    ss.set_defaults(func=cmd_stop_start)

    c = sub.add_parser("console", help="print the tail of a VM's serial console log")
    c.add_argument("name")
    c.add_argument("-n", "--lines", type=int, default=60)
    c.set_defaults(func=cmd_console)

    q = sub.add_parser("qemu", help="fetch (or reuse) the lab's qemu when the host's is older than 10.0 "
                                    "(Debian's backport, unpacked in the lab's cache) and print its command")
    q.set_defaults(func=cmd_qemu)

    pa = sub.add_parser("pacct", help="sum a process accounting file (acct(2), of the host or copied out of a guest) "
                                      "by command or by where each process came from (docs/testing.md)")
    pa.add_argument("file")
    pa.add_argument("--by", choices=("comm", "origin"), default="comm")
    pa.add_argument("--top", type=int, default=40)
    pa.set_defaults(func=cmd_pacct)

    pr = sub.add_parser("prune", help="remove cached images that are neither current nor used "
                                      "by a VM in the lab folder")
    pr.add_argument("--dry-run", action="store_true")
    pr.set_defaults(func=cmd_prune)

    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.mirror:
        os.environ["IOTUNE_LAB_MIRROR"] = args.mirror
    if args.security_mirror:
        os.environ["IOTUNE_LAB_SECURITY_MIRROR"] = args.security_mirror
    if args.release:
        os.environ["IOTUNE_LAB_RELEASE"] = args.release
    if args.initramfs:
        os.environ["IOTUNE_LAB_INITRAMFS"] = args.initramfs
    try:
        return args.func(args)
    except LabError as e:
        print(f"lab: error: {e}", file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        print("lab: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
