# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What `nomerges: 2` and `mkfs.xfs -K` change, A/B interleaved on a temporary RAID0 of a running lab VM.

    tools/bench_storage_path --vm NAME [--disks 9,10] [--reps 5] [--seconds 5] [--out docs/benchmarks.md]
                             [--results .lab/bench-storage-path.json] [--render-only]

On the running lab VM NAME (`tools/lab up`; IOTUNE_LAB_DIR as for tools/lab), with two of its data disks that
must be blank (no signature, no holder, no partition: refused otherwise; default lab_disks[9] and [10]):
1. a temporary md RAID0 over them, chunk 256 KiB (the cassandra profile's), metadata 1.2;
2. mkfs: `mkfs.xfs -f -q` (discards the whole array first, mkfs's default) and `mkfs.xfs -f -q -K` (the
   profiles' `mkfs: {discard: false}`), --reps pairs, the order alternating (AB, BA, ...): the wall time of
   each, the discard requests and sectors the members received (/sys/block/DEV/stat fields 12-15) and the
   blocks the members' raw files hold on the host (qemu `discard=unmap` punches holes in them);
3. the array's first 512 MiB written once (1 MiB O_DIRECT), then nomerges 0 vs 2 on the array and both members
   (the cassandra profile sets 2 on both), --reps pairs per job, the order alternating: fio 4 KiB O_DIRECT libaio
   at QD 32 on the raw array, --seconds each: sequential reads, sequential writes, sequential reads submitted
   16 at a time (io_submit batches: the block layer's plug merges adjacent requests there), sequential reads
   with the members' queues 4 requests deep (nr_requests 4: requests wait for a tag), and 4 KiB random reads
   (the control: nothing to merge); fio's IOPS and p99 completion latency, the members' requests, merges
   and average request size (/sys/block/DEV/stat deltas; md itself never merges), and the requests qemu's
   virtio-blk merged itself after the guest (QMP query-blockstats); with --throttle (default ebs-gp3) the
   batched and the plain sequential reads again with both members throttled live (tools/lab disk-model);
4. always (also on failure): the array stopped, the members' superblocks zeroed, their signatures wiped and
   the disks discarded whole (the host files sparse again), nomerges and nr_requests put back.
The host's 1-minute load is recorded around every pair; the figures go into --results (JSON) and the table
into its own section of docs/benchmarks.md (the other sections are kept).
"""

import argparse
import datetime
import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
import bench_render_util  # noqa: E402  pylint: disable=wrong-import-position
from bench_render_util import med, model_label, noise_list, write_section  # noqa: E402  pylint: disable=wrong-import-position
from iotune_lab import common  # noqa: E402  pylint: disable=wrong-import-position
from iotune_lab.qmp import QMP  # noqa: E402  pylint: disable=wrong-import-position

LAB = REPO / "tools" / "lab"
BEGIN = "<!-- bench_storage_path:begin -->"
END = "<!-- bench_storage_path:end -->"
MD = "/dev/md/iotune-bench-path"
CHUNK_KB = 256
REGION = "512m"
# job name -> (fio arguments, members' nr_requests or None, what it stands for)
JOBS = {
    "seqread": (["--rw=read"], None, "sequential 4 KiB reads, QD 32"),
    "seqwrite": (["--rw=write"], None, "sequential 4 KiB writes, QD 32"),
    "seqread-batch16": (["--rw=read", "--iodepth_batch_submit=16", "--iodepth_batch_complete_min=16"], None,
                        "sequential 4 KiB reads, QD 32, submitted 16 at a time"),
    "seqread-shallow": (["--rw=read"], 4, "sequential 4 KiB reads, QD 32, members' nr_requests 4"),
    "randread": (["--rw=randread", "--randseed=42"], None, "random 4 KiB reads, QD 32 (control)"),
}
# the jobs measured again with the members throttled (--throttle): where merging happened, and its control
THROTTLED_JOBS = ("seqread-batch16", "seqread")
MKFS = {"discard": "mkfs.xfs -f -q", "nodiscard": "mkfs.xfs -f -q -K"}


def log(msg):
    print("==> %s" % msg, flush=True)


def pair_order(rep, a, b):
    """A/B interleaving: AB on even repetitions, BA on odd ones, so that a drift of the host's load hits both."""
    return (a, b) if rep % 2 == 0 else (b, a)


def parse_stat(text):
    """/sys/block/DEV/stat -> the counters this benchmark reads (discard fields are 0 on kernels before 4.18)."""
    f = [int(x) for x in text.split()]
    f += [0] * (15 - len(f))
    return {"reads": f[0], "reads_merged": f[1], "read_sectors": f[2], "writes": f[4], "writes_merged": f[5],
            "write_sectors": f[6], "discards": f[11], "discards_merged": f[12], "discard_sectors": f[13]}


def stat_delta(before, after):
    """Counters of several devices summed: after - before."""
    total = {}
    for dev, stats in after.items():
        for key, value in stats.items():
            total[key] = total.get(key, 0) + value - before[dev][key]
    return total


def parse_cells(text):
    """The guest script's output: `@@cell NAME VARIANT`, `@@stat0|@@stat1 DEV FIELDS...`, `@@t START END`,
    `@@fio JSON` lines -> one dict per cell."""
    cells, cur = [], None
    for line in text.splitlines():
        tag, dummy, rest = line.partition(" ")
        if tag == "@@cell":
            name, variant = rest.split()
            cur = {"job": name, "variant": variant, "stat0": {}, "stat1": {}}
            cells.append(cur)
        elif cur is None:
            continue
        elif tag in ("@@stat0", "@@stat1"):
            dev, dummy, fields = rest.partition(" ")
            cur[tag[2:]][dev] = parse_stat(fields)
        elif tag == "@@t":
            start, end = (float(x) for x in rest.split())
            cur["seconds"] = round(end - start, 3)
        elif tag == "@@fio":
            cur.update(fio_figures(json.loads(rest)))
    for cell in cells:
        if cell["stat0"] and cell["stat1"]:
            cell["dev"] = stat_delta(cell.pop("stat0"), cell.pop("stat1"))
    return cells


def fio_figures(doc):
    """IOPS, bytes/s and p99 completion latency (us) of the direction fio did."""
    job = doc["jobs"][0]
    side = job["write"] if job["write"]["io_bytes"] > job["read"]["io_bytes"] else job["read"]
    p99 = ((side.get("clat_ns") or {}).get("percentile") or {}).get("99.000000")
    return {"iops": side["iops"], "bw": side["bw_bytes"], "p99_us": None if p99 is None else p99 / 1000.0}


def member_figures(dev):
    """Members' requests, merges and average request (KiB) of one cell from its stat delta."""
    reqs = dev["reads"] + dev["writes"]
    sectors = dev["read_sectors"] + dev["write_sectors"]
    return {"requests": reqs, "merges": dev["reads_merged"] + dev["writes_merged"],
            "avg_kib": sectors * 512 / 1024.0 / reqs if reqs else None}


def fio_cmd(job, seconds):
    args = JOBS[job][0]
    return ["fio", "--name=%s" % job, "--filename=%s" % MD, "--direct=1", "--ioengine=libaio", "--bs=4k",
            "--iodepth=32", "--size=%s" % REGION, "--time_based", "--runtime=%d" % seconds,
            "--output-format=json"] + args


def guest_pair(kind, job, order, members, seconds, nr_requests=None):
    """Shell for one A/B pair in the guest; members are kernel names (vdk), the array is resolved from MD;
    nr_requests: the members' values to put back after a job that changes them."""
    devs = " ".join(members)
    lines = ["set -e", "A=$(basename $(readlink -f %s))" % MD,
             "st(){ for d in %s; do echo \"@@$1 $d $(cat /sys/block/$d/stat)\"; done; }" % devs]
    for variant in order:
        lines.append("echo '@@cell %s %s'" % (job, variant))
        if kind == "mkfs":
            lines += ["sync", "st stat0", "t0=$(date +%s.%N)", "%s %s" % (MKFS[variant], MD), "t1=$(date +%s.%N)",
                      "st stat1", "echo \"@@t $t0 $t1\""]
            continue
        depth = JOBS[job][1]
        lines.append("for d in $A %s; do echo %s > /sys/block/$d/queue/nomerges; done" % (devs, variant))
        if depth:
            lines.append("for d in %s; do echo %d > /sys/block/$d/queue/nr_requests; done" % (devs, depth))
        lines += ["st stat0", "%s > /tmp/bench-path.json" % " ".join(shlex.quote(a) for a in fio_cmd(job, seconds)),
                  "st stat1", "echo \"@@fio $(tr -d '\\n' < /tmp/bench-path.json)\""]
        if depth:
            lines += ["echo %s > /sys/block/%s/queue/nr_requests" % ((nr_requests or {}).get(n, 256), n)
                      for n in members]
    return "\n".join(lines) + "\n"


class Guest:
    def __init__(self, vm):
        self.vm = vm

    def sh(self, script, check=True, timeout=600):
        proc = subprocess.run([str(LAB), "ssh", self.vm, "--", "bash -s"], input=script, capture_output=True,
                              text=True, timeout=timeout, check=False)
        if check and proc.returncode != 0:
            raise RuntimeError("guest script failed (%d): %s\n%s" % (proc.returncode, proc.stderr[-2000:], script))
        return proc.stdout


def lab(argv):
    return subprocess.run([str(LAB)] + argv, capture_output=True, text=True, check=True).stdout


def vm_facts(vm, indexes):
    """The VM's state and the two disks (inventory entries and host files) from the lab's folder."""
    state = json.loads((common.LAB_DIR / vm / "state.json").read_text())
    disks = [state["disks"][i] for i in indexes]
    for disk in disks:
        disk["path"] = str(common.LAB_DIR / vm / disk["file"])
    return state, disks


def host_blocks(disks):
    """512-byte blocks the raw files hold on the host (sparse files: what qemu allocated)."""
    return sum(os.stat(d["path"]).st_blocks for d in disks)


def check_blank(guest, by_ids):
    """Kernel names of the disks; refused unless each is blank: no signature, partition, holder or mount."""
    script = "set -e\nfor p in %s; do d=$(readlink -f $p); n=$(basename $d); " \
             "echo \"$n $(wipefs -n $d | wc -l) $(lsblk -n -o NAME $d | wc -l) $(ls /sys/block/$n/holders | wc -l) " \
             "$(grep -c \"^$d \" /proc/mounts || true)\"; done\n" % " ".join(by_ids)
    names = []
    for line in guest.sh(script).split("\n"):
        if not line.strip():
            continue
        name, sigs, blocks, holders, mounts = line.split()
        if (int(sigs), int(blocks), int(holders), int(mounts)) != (0, 1, 0, 0):
            raise SystemExit("bench_storage_path: %s is not blank (signature lines %s, lsblk lines %s, holders %s, "
                             "mounts %s): refused" % (name, sigs, blocks, holders, mounts))
        names.append(name)
    return names


def queue_values(guest, names, attr):
    out = guest.sh("".join("cat /sys/block/%s/queue/%s\n" % (n, attr) for n in names))
    return dict(zip(names, out.split()))


def cleanup(guest, by_ids, names, saved):
    log("cleanup: array stopped, superblocks zeroed, signatures wiped, disks discarded, queue settings restored")
    script = ["mdadm --stop %s 2>/dev/null || true" % MD]
    for p in by_ids:
        script += ["mdadm --zero-superblock %s 2>/dev/null || true" % p, "wipefs -a -q %s" % p, "blkdiscard %s" % p]
    for attr, values in saved.items():
        script += ["echo %s > /sys/block/%s/queue/%s" % (values[n], n, attr) for n in names]
    guest.sh("\n".join(script) + "\n", check=False)
    check_blank(guest, by_ids)


def measure(args):
    state, disks = vm_facts(args.vm, [int(i) for i in args.disks.split(",")])
    by_ids = [d["by_id"] for d in disks]
    guest = Guest(args.vm)
    names = check_blank(guest, by_ids)
    saved = {attr: queue_values(guest, names, attr) for attr in ("nomerges", "nr_requests")}
    info = guest.sh("cat /etc/debian_version; uname -r; fio --version; mkfs.xfs -V; mdadm --version 2>&1\n").split("\n")
    others = subprocess.run([str(LAB), "list", "--json"], capture_output=True, text=True, check=False).stdout
    try:
        others = [v.get("name") for v in json.loads(others) if v.get("name") != args.vm and v.get("state") == "running"]
    except (ValueError, AttributeError):
        others = []
    res = {"commit": git_describe(), "started": utc_now(), "vm": args.vm, "accel": state.get("accel"),
           "cpus": state.get("cpus"), "cpu": state.get("cpu"), "memory": state.get("memory"),
           "disks": [{k: d.get(k) for k in ("serial", "bus", "size_bytes", "file")} for d in disks],
           "models": sorted({d["model"]["name"] for d in disks}), "members": names,
           "guest": {"debian": info[0], "kernel": info[1], "fio": info[2], "mkfs": info[3], "mdadm": info[4]},
           "other_vms": others, "reps": args.reps, "seconds": args.seconds, "mkfs": [], "fio": []}
    started = time.monotonic()
    try:
        log("temporary RAID0 %s over %s, chunk %d KiB" % (MD, ", ".join(names), CHUNK_KB))
        guest.sh("mdadm --create %s --run --level=0 --chunk=%d --metadata=1.2 --raid-devices=%d %s\nudevadm settle\n"
                 % (MD, CHUNK_KB, len(by_ids), " ".join(by_ids)))
        res["host_blocks_start"] = host_blocks(disks)
        for rep in range(args.reps):
            res["mkfs"] += run_pair(guest, "mkfs", "mkfs", pair_order(rep, "discard", "nodiscard"), names, rep,
                                    args.seconds, disks)
        log("filling the first %s of the array" % REGION)
        guest.sh("fio --name=fill --filename=%s --direct=1 --ioengine=libaio --bs=1m --iodepth=8 --rw=write "
                 "--size=%s --output-format=terse >/dev/null\n" % (MD, REGION))
        for rep in range(args.reps):
            for job in JOBS:
                res["fio"] += run_pair(guest, "fio", job, pair_order(rep, "0", "2"), names, rep, args.seconds, disks,
                                       saved["nr_requests"])
        if args.throttle:
            serials = [a for d in disks for a in ("--serial", d["serial"])]
            log("members throttled live: %s" % args.throttle)
            res["throttle"] = lab(["disk-model", args.vm, args.throttle] + serials).strip()
            for rep in range(args.reps):
                for job in THROTTLED_JOBS:
                    cells = run_pair(guest, "fio", job, pair_order(rep, "0", "2"), names, rep, args.seconds, disks)
                    for cell in cells:
                        cell["job"] = "%s@%s" % (job, args.throttle)
                    res["fio"] += cells
    finally:
        if args.throttle:
            lab(["disk-model", args.vm, "unlimited"] + [a for d in disks for a in ("--serial", d["serial"])])
        cleanup(guest, by_ids, names, saved)
        res["host_blocks_end"] = host_blocks(disks)
        res["minutes"] = round((time.monotonic() - started) / 60.0, 1)
    return res


def qemu_merges(vm, disks):
    """Requests qemu's virtio-blk device merged before they reached the disks' files (QMP query-blockstats
    rd_merged + wr_merged of the two disks): the emulator merges adjacent requests of one batch itself."""
    serials = {d["serial"] for d in disks}
    q = QMP(common.LAB_DIR / vm / "monitor.sock", timeout=10)
    try:
        stats = q.cmd("query-blockstats")
    finally:
        q.close()
    return sum(b["stats"]["rd_merged"] + b["stats"]["wr_merged"] for b in stats
               if qdev_serial(b.get("qdev")) in serials)


def qdev_serial(qdev):
    """The lab's disk id (its serial) in a virtio-blk backend's QOM path, /machine/peripheral/SERIAL/virtio-backend."""
    parts = (qdev or "").split("/")
    return parts[-2] if len(parts) >= 2 and parts[-1] == "virtio-backend" else None


def run_pair(guest, kind, job, order, names, rep, seconds, disks, nr_requests=None):
    load0 = os.getloadavg()[0]
    cells = []
    for variant in order:      # one guest call per variant: qemu's own merge counters read around each
        merged0 = qemu_merges(guest.vm, disks)
        cells += parse_cells(guest.sh(guest_pair(kind, job, (variant,), names, seconds, nr_requests)))
        cells[-1]["qemu_merged"] = qemu_merges(guest.vm, disks) - merged0
    load1 = os.getloadavg()[0]
    for cell in cells:
        cell.update({"rep": rep, "load": [round(load0, 2), round(load1, 2)]})
        if kind == "mkfs":
            cell["host_blocks"] = host_blocks(disks)
    log("%s rep %d %s: %s" % (kind, rep, job, ", ".join(
        "%s=%s" % (c["variant"], c.get("seconds") or round(c.get("iops", 0))) for c in cells)))
    return cells


def git_describe():
    return bench_render_util.git_describe(REPO)


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")


def summary(cells, job, variant, key):
    """The values of one figure over the repetitions of one job and variant."""
    return [c[key] for c in cells if c["job"] == job and c["variant"] == variant and c.get(key) is not None]


def paired_ratios(cells, job, b, a, key):
    """Per repetition: B's figure / A's figure (the two ran back to back)."""
    out = []
    for rep in sorted({c["rep"] for c in cells if c["job"] == job}):
        va = [c[key] for c in cells if c["job"] == job and c["rep"] == rep and c["variant"] == a]
        vb = [c[key] for c in cells if c["job"] == job and c["rep"] == rep and c["variant"] == b]
        if va and vb and va[0]:
            out.append(vb[0] / float(va[0]))
    return out


def spread(values, pattern):
    """`median (min-max)` of the values."""
    if not values:
        return "-"
    return "%s (%s-%s)" % (pattern % med(values), pattern % min(values), pattern % max(values))


def pct(value):
    return "-" if value is None else "%.0f %%" % (value * 100)


def render_fio(cells):
    rows = ["| job | IOPS, nomerges 0 | IOPS, nomerges 2 | 2 / 0, paired | noise 0 / 2 | member merges per run, 0 / 2 "
            "| member requests per run, 0 / 2 | avg member request, 0 / 2 | merged by qemu per run, 0 / 2 "
            "| p99 completion, 0 / 2 |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    keys = []
    for c in cells:
        if c["job"] not in keys:
            keys.append(c["job"])
    for job in keys:
        base, dummy, model = job.partition("@")
        label = JOBS[base][2] + (", members throttled: `%s`" % model if model else "")
        for c in cells:
            if c["job"] == job and "dev" in c:
                c.update(member_figures(c["dev"]))
        iops = {v: summary(cells, job, v, "iops") for v in ("0", "2")}
        figs = {}
        for key in ("merges", "requests", "avg_kib", "qemu_merged", "p99_us"):
            figs[key] = " / ".join("-" if med(summary(cells, job, v, key)) is None else
                                   ("%.1f KiB" if key == "avg_kib" else "%.0f us" if key == "p99_us" else "%.0f")
                                   % med(summary(cells, job, v, key)) for v in ("0", "2"))
        rows.append("| %s | %s | %s | **%s** | %s / %s | %s | %s | %s | %s | %s |" % (
            label, spread(iops["0"], "%.0f"), spread(iops["2"], "%.0f"),
            spread(paired_ratios(cells, job, "2", "0", "iops"), "%.2fx"), pct(noise_list(iops["0"])),
            pct(noise_list(iops["2"])), figs["merges"], figs["requests"], figs["avg_kib"],
            figs["qemu_merged"], figs["p99_us"]))
    return rows


def render_mkfs(cells):
    secs = {v: summary(cells, "mkfs", v, "seconds") for v in MKFS}
    disc = {v: summary(cells, "mkfs", v, "dev") for v in MKFS}

    def dev_med(variant, key, scale=1.0, pattern="%.0f"):
        vals = [d[key] * scale for d in disc[variant]]
        return "-" if not vals else pattern % med(vals)
    return [
        "| | `%s` (discard, mkfs's default) | `%s` (`mkfs: {discard: false}`) | -K / default, paired |" % (
            MKFS["discard"], MKFS["nodiscard"]),
        "|---|---|---|---|",
        "| wall time, s: median (min-max) | %s | %s | **%s** |" % (
            spread(secs["discard"], "%.2f"), spread(secs["nodiscard"], "%.2f"),
            spread(paired_ratios(cells, "mkfs", "nodiscard", "discard", "seconds"), "%.2fx")),
        "| noise (max-min)/median | %s | %s | |" % (pct(noise_list(secs["discard"])),
                                                    pct(noise_list(secs["nodiscard"]))),
        "| discard requests the members received per mkfs | %s | %s | |" % (
            dev_med("discard", "discards"), dev_med("nodiscard", "discards")),
        "| GiB discarded on the members per mkfs | %s | %s | |" % (
            dev_med("discard", "discard_sectors", 512 / 2.0 ** 30, "%.2f"),
            dev_med("nodiscard", "discard_sectors", 512 / 2.0 ** 30, "%.2f")),
        "| MiB written on the members per mkfs | %s | %s | |" % (
            dev_med("discard", "write_sectors", 512 / 2.0 ** 20, "%.1f"),
            dev_med("nodiscard", "write_sectors", 512 / 2.0 ** 20, "%.1f")),
    ]


def render(res, out):
    loads = [x for c in res["mkfs"] + res["fio"] for x in c["load"]]
    disk = res["disks"][0]
    lines = [
        BEGIN,
        "## nomerges 2 and mkfs.xfs -K on the lab (tools/bench_storage_path)",
        "",
        "`tools/bench_storage_path --vm %s` at commit **%s**, started %s UTC, %s min wall time (issue 27)." % (
            res["vm"], res["commit"], res["started"], res.get("minutes", "?")),
        "Lab VM `%s`: Debian %s (kernel %s), %s vCPUs (`-cpu %s`), %s MiB, qemu **%s** on a shared 2-core host%s."
        % (res["vm"], res["guest"]["debian"], res["guest"]["kernel"], res["cpus"], res["cpu"], res["memory"],
           "software emulation (TCG)" if res["accel"] == "tcg" else res["accel"],
           "; other lab VMs running on it: %s" % ", ".join("`%s`" % v for v in res["other_vms"])
           if res["other_vms"] else ""),
        "A temporary md RAID0 over two blank %s disks of %.0f GiB (%s; disk model %s; raw files, sparse, qemu"
        % (disk["bus"], disk["size_bytes"] / 2.0 ** 30, ", ".join(res["members"]), ", ".join(res["models"])),
        "`cache=writeback,aio=threads,discard=unmap`), chunk %d KiB as the cassandra profile, scheduler of the"
        % CHUNK_KB,
        "members left as the guest has it; removed at the end and the disks discarded whole (host blocks of the two",
        "files: %s at the start, %s at the end). %s, %s, %s. %d repetitions of each A/B pair, back to back, the"
        " order" % (
            res.get("host_blocks_start"), res.get("host_blocks_end"), res["guest"]["fio"], res["guest"]["mkfs"],
            " ".join(res["guest"]["mdadm"].split(" - ")[:2]), res["reps"]),
        "alternating (AB, BA, ...); host load (1-minute average, around each pair) %s to %s, median %s." % (
            "%.1f" % min(loads) if loads else "?", "%.1f" % max(loads) if loads else "?",
            "%.1f" % med(loads) if loads else "?"),
        "",
        "### mkfs.xfs with and without discard (-K)",
        "",
    ]
    lines += render_mkfs(res["mkfs"])
    lines += [
        "",
        "### nomerges 0 vs 2 on the array and its members",
        "",
        "fio 4 KiB O_DIRECT libaio on the raw array (its first 512 MiB, written once before), %d s per run;" % res[
            "seconds"],
        "IOPS as median (min-max) of the runs, `2 / 0, paired`: nomerges 2's IOPS over nomerges 0's of the same",
        "repetition; member figures: medians of the runs' `/sys/block/DEV/stat` deltas summed over both members;",
        "merged by qemu: requests qemu's virtio-blk merged after the guest sent them (QMP `query-blockstats`",
        "`rd_merged` + `wr_merged` of the two disks, read around each run).",
        "",
    ]
    if res.get("throttle"):
        lines += ["Throttled rows: both members given the disk model `%s` live (`tools/lab disk-model`, qemu's I/O" %
                  model_label({"model": res["throttle"]}),
                  "throttling, docs/lab.md), measured after the unthrottled rows, then put back to `unlimited`.", ""]
    lines += render_fio(res["fio"])
    lines += [END]
    write_section(out, lines, BEGIN, END)
    log("wrote %s" % out)


def main():
    ap = argparse.ArgumentParser(prog="tools/bench_storage_path", description=__doc__.split("\n\n", maxsplit=1)[0])
    ap.add_argument("--vm", required=True, help="a running lab VM (tools/lab list)")
    ap.add_argument("--disks", default="9,10", help="indexes in lab_disks of two blank disks (default 9,10)")
    ap.add_argument("--reps", type=int, default=5, help="A/B pairs per measurement")
    ap.add_argument("--seconds", type=int, default=5, help="seconds per fio run")
    ap.add_argument("--throttle", default="ebs-gp3",
                    help="disk model (docs/lab.md) the two members get for the throttled jobs, then unlimited; "
                         "'' for none")
    ap.add_argument("--out", default=str(REPO / "docs" / "benchmarks.md"))
    ap.add_argument("--results", default=str(REPO / ".lab" / "bench-storage-path.json"))
    ap.add_argument("--render-only", action="store_true", help="only render --results into --out")
    args = ap.parse_args()
    results = Path(args.results)
    if args.render_only:
        res = json.loads(results.read_text())
    else:
        if not re.match(r"^\d+,\d+$", args.disks):
            ap.error("--disks takes two indexes, e.g. 9,10")
        res = measure(args)
        results.parent.mkdir(parents=True, exist_ok=True)
        results.write_text(json.dumps(res, indent=1))
    render(res, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
