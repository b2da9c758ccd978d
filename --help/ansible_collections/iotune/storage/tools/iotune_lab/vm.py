# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""VMs: state folder, qemu command line, start/stop, waiting for SSH, the inventory."""

import datetime
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from . import common, disk_models, emulator
from .common import EXIT_USAGE, FileLock, LabError, say, run, write_atomic
from .disks import INSTANCE_STORE_PRODUCT, INSTANCE_STORE_VENDOR, fresh_disks
from .image import KERNEL_CMDLINE, VM_CMDLINE_EXTRA
from .qmp import QMP
from .ssh import lab_key, ssh_argv

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,30}$")
# The CPU model of TCG guests (KVM guests get the host's) and the TCG threading. A Debian 13 guest oopsed
# once under `max` + MTTCG in CI (issue #32); 200 soak runs did not reproduce it, and the alternatives
# measured cost throughput (Westmere about half, one TCG thread about a tenth): docs/lab.md, "CPU model".
# `up --cpu` / IOTUNE_LAB_CPU and `up --tcg-thread` / IOTUNE_LAB_TCG_THREAD choose others.
TCG_CPU_DEFAULT = "max"
# MTTCG (one host thread per vCPU) or one thread for all vCPUs; `up --tcg-thread`, IOTUNE_LAB_TCG_THREAD
TCG_THREAD_DEFAULT = "multi"
TCG_THREADS = ("multi", "single")
CPU_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+,=-]{0,200}$")


def vm_dir(name):
    return common.LAB_DIR / name


def load_state(name):
    f = vm_dir(name) / "state.json"
    try:
        return json.loads(f.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise LabError(f"cannot read {f}: {e}")


def save_state(name, state):
    write_atomic(vm_dir(name) / "state.json", json.dumps(state, indent=2) + "\n")


def qemu_pid(name):
    """PID of the VM's qemu if it is running, else None (checks the pid really is our qemu)."""
    pidfile = vm_dir(name) / "qemu.pid"
    try:
        pid = int(pidfile.read_text().strip())
    except (OSError, ValueError):
        return None
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    marker = str(vm_dir(name) / "monitor.sock").encode()
    if any(marker in arg for arg in cmdline):
        return pid
    return None


def validate_name(name):
    if not NAME_RE.match(name or ""):
        raise LabError(f"invalid VM name {name!r}: use 1-31 characters a-z, 0-9 and '-', "
                       "starting with a letter or digit", EXIT_USAGE)


def console_tail(name, lines=40):
    f = vm_dir(name) / "console.log"
    try:
        data = f.read_bytes().decode("utf-8", "replace")
    except OSError:
        return "(no console.log)"
    data = data.replace("\r", "")
    return "\n".join(data.splitlines()[-lines:])


# ------------------------------------------------------------------------------------------------
# up

def free_port(taken):
    for _attempt in range(50):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        if port not in taken:
            return port
    raise LabError("could not find a free TCP port on 127.0.0.1")


def kvm_usable():
    try:
        fd = os.open("/dev/kvm", os.O_RDWR)
        os.close(fd)
        return True
    except OSError:
        return False


def qemu_version():
    argv = emulator.choose()
    out = run(argv + ["--version"], capture=True, quiet=True, env=emulator.module_env(argv)).stdout
    return out.splitlines()[0].strip() if out else "unknown"


def probe_cache_key():
    return f"{os.uname().release}|{qemu_version()}"


def read_probe():
    f = common.CACHE / "accel-probe.json"
    try:
        data = json.loads(f.read_text())
    except (OSError, ValueError):
        return None
    if data.get("key") == probe_cache_key():
        return data
    return None


def write_probe(verdict, detail):
    common.CACHE.mkdir(parents=True, exist_ok=True)
    write_atomic(common.CACHE / "accel-probe.json", json.dumps(
        {"key": probe_cache_key(), "verdict": verdict, "detail": detail,
         "when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")},
        indent=2) + "\n")


def qemu_argv(name, d, img, st, accel):
    argv = [*emulator.choose(), "-name", f"{name},process=iotune-lab-{name}",
            "-machine", "pc", "-nodefaults", "-display", "none",
            "-m", str(st["memory"]), "-smp", str(st["cpus"])]
    if accel == "kvm":
        argv += ["-accel", "kvm", "-cpu", "host"]
    else:
        argv += ["-accel", f"tcg,thread={st.get('tcg_thread') or TCG_THREAD_DEFAULT}",
                 "-cpu", st.get("cpu") or TCG_CPU_DEFAULT]
    root_dev = "virtio-blk-pci,drive=root,serial=lab-root"
    if st.get("boot", "disk") == "kernel":
        # the image's build-time kernel and initrd, whatever the guest has in /boot since
        argv += ["-kernel", img / "vmlinuz", "-initrd", img / "initrd.img",
                 "-append", f"{kernel_boot_cmdline(img)} systemd.hostname={name}"]
    else:
        # SeaBIOS boots the root disk: GRUB, then the guest's own /vmlinuz and /initrd.img
        root_dev += ",bootindex=0"
    argv += [
        "-chardev", f"file,id=con0,path={d / 'console.log'}", "-serial", "chardev:con0",
        "-qmp", f"unix:{d / 'monitor.sock'},server=on,wait=off",
        "-pidfile", d / "qemu.pid",
        "-netdev", f"user,id=n0,hostfwd=tcp:127.0.0.1:{st['port']}-:22",
        "-device", "virtio-net-pci,netdev=n0",
        "-device", "virtio-rng-pci",
        "-fw_cfg", f"name=opt/iotune/authorized_keys,file={d / 'authorized_keys'}",
        "-fw_cfg", f"name=opt/iotune/hostname,string={name}",
        "-drive", f"if=none,id=root,file={d / 'root.qcow2'},format=qcow2,cache=unsafe,discard=unmap",
        "-device", root_dev,
    ]
    buses = {disk["bus"] for disk in st["disks"]}
    if "scsi" in buses:
        argv += ["-device", "virtio-scsi-pci,id=scsi0"]
    cap = st.get("instance_bandwidth") or 0
    if cap:
        # the instance's bandwidth, shared by its network volumes (not its instance store): a throttle
        # filter node of one group over each volume, below the per-disk limits (docs/lab.md, Disk models)
        argv += ["-object", f"throttle-group,id=instance,x-bps-total={int(cap)}"]
    for i, disk in enumerate(st["disks"]):
        if not disk.get("attached", True):
            continue
        drv = f"d{i}"
        if cap and not disk.get("instance_store"):
            argv += ["-blockdev", json.dumps({"driver": "file", "node-name": f"f{i}", "filename": str(d / disk["file"]),
                                              "aio": "threads", "discard": "unmap", "cache": {"direct": False}}),
                     "-blockdev", json.dumps({"driver": "raw", "node-name": f"r{i}", "file": f"f{i}",
                                              "discard": "unmap"}),
                     "-blockdev", json.dumps({"driver": "throttle", "node-name": drv, "throttle-group": "instance",
                                              "file": f"r{i}"})]
        else:
            argv += ["-drive", f"if=none,id={drv},file={d / disk['file']},format=raw,"
                               f"cache=writeback,aio=threads,discard=unmap"]
        ser = disk["serial"]
        if disk["bus"] == "virtio":
            argv += ["-device", f"virtio-blk-pci,id={ser},drive={drv},serial={ser}"]
        elif disk["bus"] == "nvme":
            argv += ["-device", f"nvme,id={ser},drive={drv},serial={ser}"]
        else:
            dev = f"scsi-hd,id={ser},bus=scsi0.0,drive={drv},serial={ser}"
            if "lun" in disk:
                dev += f",scsi-id=0,lun={disk['lun']}"
            if disk.get("instance_store"):
                dev += f",vendor={INSTANCE_STORE_VENDOR},product={INSTANCE_STORE_PRODUCT}"
            argv += ["-device", dev]
    return [str(a) for a in argv]


def kernel_boot_cmdline(img):
    """The image's kernel command line for direct kernel boot (`--boot kernel`)."""
    try:
        manifest = json.loads((Path(img) / "manifest.json").read_text())
    except (OSError, ValueError):
        manifest = {}
    if manifest.get("root_cmdline"):
        return manifest["root_cmdline"]
    # an image of RECIPE_VERSION <= 3: whole-disk ext4 found by its label
    return f"root=LABEL=rootfs {KERNEL_CMDLINE} {VM_CMDLINE_EXTRA}"


def kill_qemu(name, grace=10):
    pid = qemu_pid(name)
    if pid is None:
        return False
    sock = vm_dir(name) / "monitor.sock"
    try:
        q = QMP(sock, timeout=3)
        try:
            q.cmd("quit")
        except LabError:
            pass
        q.close()
    except (LabError, OSError):
        pass
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and qemu_pid(name) is not None:
        time.sleep(0.2)
    if qemu_pid(name) is not None:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        time.sleep(0.5)
    return True


def log_tail(path, lines=15):
    try:
        text = Path(path).read_bytes().decode("utf-8", "replace").replace("\r", "")
    except OSError:
        return ""
    return "\n".join(text.strip().splitlines()[-lines:])


def start_and_wait(name, d, img, st, accel, timeout):
    """Start qemu with accel; wait for SSH. Returns seconds to SSH or raises LabError.

    qemu runs detached in its own session (like -daemonize) but with stdout/stderr in
    .lab/NAME/qemu.log, so errors after start-up (e.g. a KVM assertion) are not lost.
    """
    argv = qemu_argv(name, d, img, st, accel)
    (d / "qemu.argv.json").write_text(json.dumps(argv, indent=1) + "\n")
    for f in ("console.log", "qemu.pid", "monitor.sock"):
        (d / f).unlink(missing_ok=True)
    st["accel"] = accel
    save_state(name, st)
    qlog = d / "qemu.log"
    t0 = time.monotonic()
    with open(qlog, "ab") as log:
        log.write(f"--- {datetime.datetime.now().isoformat(timespec='seconds')} "
                  f"starting qemu (accel {accel})\n".encode())
        log.flush()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, env=emulator.module_env(argv),
                                stderr=subprocess.STDOUT, start_new_session=True, close_fds=True)

    def exited():
        rc = proc.poll()
        if rc is None:
            return None
        return (f"qemu exited with code {rc} (accel {accel}); qemu.log:\n{log_tail(qlog)}\n"
                f"console.log tail:\n{console_tail(name, 15)}")

    while not ((d / "qemu.pid").exists() and (d / "monitor.sock").exists()):
        msg = exited()
        if msg:
            raise LabError(msg)
        if time.monotonic() - t0 > 30:
            raise LabError(f"qemu did not create its pidfile/QMP socket in 30 s; qemu.log:\n"
                           f"{log_tail(qlog)}")
        time.sleep(0.1)
    apply_disk_models(d, st)
    key = lab_key()
    deadline = t0 + timeout
    while time.monotonic() < deadline:
        msg = exited()
        if msg:
            raise LabError(msg)
        r = subprocess.run(ssh_argv(st["port"], key) + ["true"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        if r.returncode == 0:
            return time.monotonic() - t0
        time.sleep(2)
    raise LabError(f"no SSH on port {st['port']} within {timeout} s (accel {accel})")


def _has_limits(model):
    return bool(model and (model["iops"] or model["bps"]))


def apply_disk_models(d, st, disks=None):
    """Give attached data disks their model's limits (QMP block_set_io_throttle; all zero removes them).
    At boot (`disks` None) only disks with limits are called: qemu starts every disk unthrottled."""
    if disks is None:
        todo = [x for x in st["disks"] if x.get("attached", True) and _has_limits(x.get("model"))]
    else:
        todo = [x for x in disks if x.get("attached", True)]
    if not todo:
        return
    q = QMP(d / "monitor.sock")
    try:
        for disk in todo:
            q.cmd("block_set_io_throttle", **disk_models.throttle_args(disk_models.qdev_block_id(disk), disk["model"]))
    finally:
        q.close()


def live_disk_limits(d, st):
    """{serial: {iops, bps, iops_size}} as qemu reports them now (QMP query-block), for attached data disks."""
    q = QMP(d / "monitor.sock")
    try:
        blocks = q.cmd("query-block")
    finally:
        q.close()
    by_qdev = {b.get("qdev", "").replace("/machine/peripheral/", ""): b.get("inserted") or {} for b in blocks}
    out = {}
    for disk in st["disks"]:
        ins = by_qdev.get(disk_models.qdev_block_id(disk))
        if disk.get("attached", True) and ins is not None:
            out[disk["serial"]] = {"iops": ins.get("iops", 0), "bps": ins.get("bps", 0),
                                   "iops_size": ins.get("iops_size", 0) if ins.get("iops") else 0}
    return out


def write_inventory(name, st):
    key = common.LAB_DIR / "id_ed25519"
    lines = [
        "# written by tools/lab up; do not edit (tools/lab down removes it)",
        "all:",
        "  hosts:",
        f"    {name}:",
        "      ansible_host: 127.0.0.1",
        f"      ansible_port: {st['port']}",
        "      ansible_user: root",
        f"      ansible_ssh_private_key_file: {json.dumps(str(key.resolve()))}",
        # qemu's user networking keeps the host side of a connection open when the guest dies (reboot):
        # without keepalives an ssh started during a reboot waits forever.
        "      ansible_ssh_common_args: -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
        " -o ServerAliveInterval=10 -o ServerAliveCountMax=3",
        "      ansible_python_interpreter: /usr/bin/python3",
        f"      lab_instance_bandwidth: {int(st.get('instance_bandwidth') or 0)}",
        "      lab_disks:",
    ]
    if not st["disks"]:
        lines[-1] += " []"
    for disk in st["disks"]:
        lines += [
            f"        - serial: {disk['serial']}",
            f"          by_id: {disk['by_id']}",
            f"          size_bytes: {disk['size_bytes']}",
            f"          bus: {disk['bus']}",
            f"          attached: {'true' if disk.get('attached', True) else 'false'}",
        ]
        if "lun" in disk:
            lines.append(f"          lun: {disk['lun']}")
        if disk.get("instance_store"):
            lines.append("          instance_store: true")
        model = disk.get("model")
        if model:
            lines += [f"          disk_model: {json.dumps(model['name'])}",
                      f"          iops_limit: {model['iops']}",
                      f"          bps_limit: {model['bps']}",
                      f"          iops_size: {model['iops_size']}"]
    write_atomic(vm_dir(name) / "inventory.yml", "\n".join(lines) + "\n")


def boot_auto(args, d, img, st):
    """accel auto: TCG if /dev/kvm is unusable; else the cached probe verdict; else probe KVM
    with a bounded boot and fall back to TCG. Returns (accel, seconds to SSH)."""
    name = args.name
    desc = f"ssh port {st['port']}; {len(st['disks'])} data disk(s); image {st['image']}; boot {st.get('boot', 'disk')}"
    if not kvm_usable():
        say(f"VM {name}: accel tcg (/dev/kvm is not usable); {desc}")
        return "tcg", start_and_wait(name, d, img, st, "tcg", args.timeout)
    with FileLock(common.CACHE / ".accel-probe.lock"):    # one probe at a time; later ones reuse it
        probe = read_probe()
        if probe is None:
            probe_timeout = min(int(os.environ.get("IOTUNE_LAB_KVM_PROBE_TIMEOUT", "90")),
                                args.timeout)
            say(f"VM {name}: probing KVM (SSH within {probe_timeout} s, else TCG); {desc}")
            try:
                secs = start_and_wait(name, d, img, st, "kvm", probe_timeout)
            except LabError as e:
                reason = " ".join(str(e).split())[:400]
                say(f"KVM probe failed: {reason}")
                kill_qemu(name)
                if (d / "console.log").exists():
                    shutil.copyfile(d / "console.log", d / "console-kvm-probe.log")
                write_probe("tcg", f"KVM probe failed: {reason}")
                say("falling back to TCG (software emulation); verdict cached in "
                    f"{common.CACHE / 'accel-probe.json'}")
                fresh_disks(d, st, img)
            else:
                write_probe("kvm", f"SSH after {secs:.0f} s with KVM")
                say(f"KVM works (SSH after {secs:.1f} s); verdict cached")
                return "kvm", secs
            return "tcg", start_and_wait(name, d, img, st, "tcg", args.timeout)
    accel = probe["verdict"]
    say(f"VM {name}: accel {accel} (cached probe verdict of {probe['when']}: "
        f"{probe['detail'][:120]}); {desc}")
    return accel, start_and_wait(name, d, img, st, accel, args.timeout)
