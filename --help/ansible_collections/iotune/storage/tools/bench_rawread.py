# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Guest side of tools/benchmark: raw reads of whole disks, read-only (`fio --readonly`, read jobs only).

    bench_rawread.py JOB --devices vdb[,vdc...] [--read-ahead-kb KB[,KB...]] [--runtime S] [--repeat R]

JOB is one of JOBS below. One fio process reads every listed device at once (one job each), R times
per readahead value; buffered jobs first evict the device's pages (posix_fadvise DONTNEED on a read-only
descriptor) and run with `read_ahead_kb` of the devices set to the value (the previous values are put
back at the end, also on failure). Per run: the fio bandwidth and IOPS summed over the jobs, and per
device the /sys/block/DEV/stat read counters (requests, merges, sectors) before and after. Prints JSON.
Never writes to a device: fio gets --readonly and only read jobs; the devices are opened O_RDONLY.
"""

import argparse
import json
import os
import subprocess
import sys

# name -> fio options (read jobs only)
JOBS = {
    "seq1m-direct": ["--rw=read", "--bs=1m", "--ioengine=libaio", "--iodepth=16", "--direct=1"],
    "rand4k-direct": ["--rw=randread", "--bs=4k", "--ioengine=libaio", "--iodepth=16", "--direct=1",
                      "--randseed=25"],
    "seq4k-buffered": ["--rw=read", "--bs=4k", "--ioengine=psync", "--direct=0", "--fadvise_hint=0"],
}
SIZE = "256m"   # the region read (from the start of each device); time_based wraps around it


def stat(dev):
    with open("/sys/block/%s/stat" % dev) as f:
        fields = [int(x) for x in f.read().split()]
    return {"read_ios": fields[0], "read_merges": fields[1], "read_sectors": fields[2]}


def ra_path(dev):
    return "/sys/block/%s/queue/read_ahead_kb" % dev


def read_ra(dev):
    with open(ra_path(dev)) as f:
        return int(f.read())


def write_ra(dev, kb):
    with open(ra_path(dev), "w") as f:
        f.write(str(int(kb)))


def evict(dev):
    fd = os.open("/dev/" + dev, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def fio(job, devices, runtime):
    argv = ["fio", "--readonly", "--output-format=json"]
    for dev in devices:
        argv += ["--name=raw_" + dev, "--filename=/dev/" + dev, "--size=" + SIZE, "--time_based=1",
                 "--runtime=%d" % runtime] + JOBS[job]
    out = subprocess.run(argv, check=True, stdout=subprocess.PIPE, universal_newlines=True).stdout
    data = json.loads(out[out.index("{"):])
    jobs = data["jobs"]
    return {
        "bw_bytes": sum(int(j["read"]["bw_bytes"]) for j in jobs),
        "iops": round(sum(float(j["read"]["iops"]) for j in jobs), 1),
        "io_bytes": sum(int(j["read"]["io_bytes"]) for j in jobs),
        "runtime_ms": max(int(j["read"]["runtime"]) for j in jobs),
        "per_job_bw_bytes": dict((j["jobname"][4:], int(j["read"]["bw_bytes"])) for j in jobs),
        "fio_version": data.get("fio version"),
    }


def measure(job, devices, ra_kb, runtime):
    buffered = "--direct=0" in JOBS[job]
    if buffered:
        for dev in devices:
            evict(dev)
    before = dict((d, stat(d)) for d in devices)
    res = fio(job, devices, runtime)
    after = dict((d, stat(d)) for d in devices)
    res["devices"] = {}
    for dev in devices:
        delta = dict((k, after[dev][k] - before[dev][k]) for k in before[dev])
        ios = delta["read_ios"]
        res["devices"][dev] = {
            "read_ios": ios, "read_merges": delta["read_merges"], "read_bytes": delta["read_sectors"] * 512,
            "avg_request_kb": round(delta["read_sectors"] / 2.0 / ios, 2) if ios else None,
            "ops_per_s": round(ios * 1000.0 / res["runtime_ms"], 1) if res["runtime_ms"] else None,
        }
    res["device_read_ios"] = sum(d["read_ios"] for d in res["devices"].values())
    res["device_ops_per_s"] = round(res["device_read_ios"] * 1000.0 / res["runtime_ms"], 1) if res["runtime_ms"] else None
    res["read_ahead_kb"] = ra_kb
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    ap.add_argument("job", choices=sorted(JOBS))
    ap.add_argument("--devices", required=True, help="comma list of kernel names (vdb,vdc)")
    ap.add_argument("--read-ahead-kb", default="", help="comma list; buffered jobs only")
    ap.add_argument("--runtime", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    devices = [d for d in args.devices.split(",") if d]
    for dev in devices:
        if "/" in dev or not os.path.exists("/sys/block/%s/stat" % dev):
            ap.error("not a whole-disk kernel name: %s" % dev)
    values = [int(v) for v in args.read_ahead_kb.split(",") if v] or [None]
    saved = dict((d, read_ra(d)) for d in devices)
    out = {"job": args.job, "devices": devices, "runtime": args.runtime, "previous_read_ahead_kb": saved,
           "points": []}
    try:
        for kb in values:
            if kb is not None:
                for dev in devices:
                    write_ra(dev, kb)
            runs = [measure(args.job, devices, kb, args.runtime) for dummy in range(args.repeat)]
            out["points"].append({"read_ahead_kb": kb, "runs": runs})
    finally:
        for dev, kb in saved.items():
            write_ra(dev, kb)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
