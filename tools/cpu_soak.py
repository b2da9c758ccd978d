# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Does the lab guest survive the verification's direct I/O under a given TCG CPU model? (issue #32)

    tools/cpu_soak [--release trixie] [--initramfs dracut] [--bus nvme] [--cpu MODEL] [--tcg-thread multi|single]
                   [--cpus 2] [--churn] [--runs 50] [--runtime 5] [--keep] [--json PATH]

Boots a throw-away lab VM (`tools/lab up --name soak-...`, 4 x 1 GiB disks), installs mdadm, xfsprogs
and fio, builds a RAID0 (chunk 256 KiB) with XFS on the four disks, lays out a 512 MiB test file and
runs the fio_verify role's `rand8k` job (8 KiB random O_DIRECT reads, libaio, iodepth 16, time-based)
--runs times for --runtime seconds each (with --churn, while short-lived processes start in a loop beside it,
as in an Ansible run). After every run it reads the guest kernel's console log
(tools/iotune_lab/kernel_log.py): the first oops/BUG/panic, a fio that dies (rc != 0) or a run that
does not return within its timeout ends the soak. Prints one line per run and a summary (also as JSON
with --json); the VM is removed at the end unless --keep.

docs/lab.md ("CPU model") has the counts this measured for the lab's choice.
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))

from iotune_lab import kernel_log  # noqa: E402  pylint: disable=wrong-import-position
from iotune_lab.vm import TCG_CPU_DEFAULT  # noqa: E402  pylint: disable=wrong-import-position

LAB = REPO / "tools" / "lab"
SETUP = r"""
set -eu
export DEBIAN_FRONTEND=noninteractive
# a soak VM is thrown away: no initramfs rebuild for mdadm's trigger (minutes under emulation)
dpkg-divert --local --rename --add /usr/sbin/update-initramfs >/dev/null
ln -sf /bin/true /usr/sbin/update-initramfs
apt-get update -qq
apt-get install -y -qq --no-install-recommends mdadm xfsprogs fio >/dev/null
set -- $(lsblk -dnpo NAME,SERIAL,TYPE | awk '$3 == "disk" && $2 != "lab-root" {print $1}' | head -n 4)
[ $# -eq 4 ] || { echo "expected 4 data disks, found: $*" >&2; exit 1; }
mdadm --create /dev/md/soak --run --level=0 --chunk=256 --raid-devices=4 --metadata=1.2 "$@"
mkfs.xfs -q -f /dev/md/soak
mkdir -p /mnt/soak
mount -o noatime /dev/md/soak /mnt/soak
fio --name=layout --filename=/mnt/soak/fio.test --size=512m --rw=read --bs=1m --create_only=1 >/dev/null
uname -r; grep -m1 'model name' /proc/cpuinfo; grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -cx 'avx2\|avx' || true
"""
CHURN = ("nohup sh -c 'while :; do python3 -c \"import json, subprocess\"; sh -c true; done' "
         ">/dev/null 2>&1 </dev/null &")
JOB = ("fio --name=rand8k --filename=/mnt/soak/fio.test --size=512m --rw=randread --bs=8k --ioengine=libaio "
       "--iodepth=16 --numjobs=1 --direct=1 --fadvise_hint=0 --group_reporting=1 --lat_percentiles=1 "
       "--percentile_list=50:99:99.9 --time_based=1 --runtime={runtime} --readonly --output-format=json "
       ">/tmp/rand8k.json 2>/tmp/rand8k.err; rc=$?; "
       "python3 -c 'import json; print(round(json.load(open(\"/tmp/rand8k.json\"))[\"jobs\"][0][\"read\"][\"iops\"]))' "
       "2>/dev/null || tail -c 600 /tmp/rand8k.err; exit $rc")


def lab(*args, **kw):
    argv = [str(LAB)] + [str(a) for a in args]
    check = kw.pop("check", False)
    return subprocess.run(argv, text=True, check=check, **kw)


def ssh(name, cmd, timeout):
    return lab("ssh", name, "--", cmd, capture_output=True, timeout=timeout)


def main():
    p = argparse.ArgumentParser(prog="tools/cpu_soak", description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--release", default="trixie", choices=("bookworm", "trixie"))
    p.add_argument("--initramfs", default=None, help="default: dracut on trixie, initramfs-tools on bookworm")
    p.add_argument("--bus", default="nvme", choices=("nvme", "virtio"))
    p.add_argument("--cpu", default=TCG_CPU_DEFAULT, help=f"TCG CPU model (default: the lab's, {TCG_CPU_DEFAULT})")
    p.add_argument("--tcg-thread", default="multi", choices=("multi", "single"))
    p.add_argument("--cpus", type=int, default=2, help="vCPUs (default 2, as the vm scenario)")
    p.add_argument("--churn", action="store_true",
                   help="start short-lived processes in a loop in the guest during the runs (python3 -c, as an "
                        "Ansible run does around fio): new code to translate while the other vCPU does I/O")
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--runtime", type=int, default=5, help="seconds per fio run (default 5)")
    p.add_argument("--keep", action="store_true", help="leave the VM running at the end")
    p.add_argument("--json", help="write the summary here too")
    a = p.parse_args()
    initramfs = a.initramfs or ("dracut" if a.release == "trixie" else "initramfs-tools")
    slug = "".join(c if c.isalnum() else "-" for c in a.cpu.lower())[:12].strip("-")
    name = f"soak-{a.release[:4]}-{slug}-{a.cpus}{a.tcg_thread[0]}{'c' if a.churn else ''}"
    console = REPO / ".lab" / name / "console.log"
    summary = {"release": a.release, "initramfs": initramfs, "bus": a.bus, "cpu": a.cpu, "tcg_thread": a.tcg_thread,
               "cpus": a.cpus, "churn": a.churn, "runtime_s": a.runtime,
               "runs_planned": a.runs, "runs_ok": 0, "failed_run": None, "failure": None, "oops": [],
               "iops": [], "commit": subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                                    capture_output=True, text=True, check=False).stdout.strip()}
    t0 = time.time()
    lab("down", name, check=False, capture_output=True)
    try:
        lab("--release", a.release, "--initramfs", initramfs, "up", "--name", name, "--disks", "4",
            "--disk-size", "1G", "--disk-bus", a.bus, "--cpu", a.cpu, "--tcg-thread", a.tcg_thread, "--cpus", a.cpus,
            "--accel", "tcg", check=True)
        summary["boot_to_ssh_s"] = json.loads((REPO / ".lab" / name / "state.json").read_text()).get("boot_to_ssh_s")
        t = time.time()
        r = ssh(name, SETUP, timeout=1800)
        summary["setup_s"] = round(time.time() - t)
        print(r.stdout, r.stderr, sep="", end="", flush=True)
        if r.returncode != 0:
            raise SystemExit(f"cpu_soak: setup failed (rc {r.returncode})")
        summary["guest"] = r.stdout.strip().splitlines()[-3:]
        if a.churn:
            ssh(name, CHURN, timeout=120)
        _text, offset = kernel_log.read_from(console)
        for i in range(1, a.runs + 1):
            t = time.time()
            failure = None
            try:
                r = ssh(name, JOB.format(runtime=a.runtime), timeout=a.runtime + 120)
                out = (r.stdout + r.stderr).strip()
                if r.returncode != 0:
                    failure = f"fio rc {r.returncode}: {out[-300:]}"
                else:
                    summary["iops"].append(int(out.splitlines()[-1]))
            except subprocess.TimeoutExpired:
                out, failure = "", f"no answer within {a.runtime + 120} s"
            text, offset = kernel_log.read_from(console, offset)
            found = kernel_log.oops_lines(text)
            if found:
                summary["oops"] = found
                failure = (failure + "; " if failure else "") + "guest kernel: " + found[0]
            print(f"run {i}/{a.runs}: {time.time() - t:.1f} s, "
                  f"{'FAILED: ' + failure if failure else 'ok, ' + out.splitlines()[-1] + ' IOPS'}", flush=True)
            if failure:
                summary.update(failed_run=i, failure=failure)
                break
            summary["runs_ok"] = i
    finally:
        summary["elapsed_s"] = round(time.time() - t0)
        if not a.keep:
            if summary["failure"]:
                keep = REPO / "build" / f"{name}-console.log"
                keep.parent.mkdir(parents=True, exist_ok=True)
                try:
                    keep.write_bytes(console.read_bytes())
                    summary["console_copy"] = str(keep)
                except OSError:
                    pass
            lab("down", name, check=False, capture_output=True)
    iops = sorted(summary.pop("iops"))
    summary["iops_median"] = iops[len(iops) // 2] if iops else None
    print(json.dumps(summary, indent=2))
    if a.json:
        Path(a.json).write_text(json.dumps(summary, indent=2) + "\n")
    return 1 if summary["failure"] else 0


if __name__ == "__main__":
    sys.exit(main())
