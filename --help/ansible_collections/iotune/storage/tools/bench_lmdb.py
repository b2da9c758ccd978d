# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Guest side of tools/benchmark: an LMDB database and its cold random gets (Debian's python3-lmdb).

    bench_lmdb.py create --path DIR [--entries N] [--value-bytes B]
    bench_lmdb.py get --path DIR --device md127 [--read-ahead-kb KB] [--seconds S] [--repeat R] [--seed S]
                      [--memory-max-mib M]

`create` writes N keys (8-digit, in order) with values of B bytes into a new environment at DIR.
`get` measures, R times: the page cache dropped (sync, drop_caches 3), `read_ahead_kb` of the device under
the database set (the previous value put back at the end, also on failure), the environment opened
read-only (LMDB's default MDB_NORDAHEAD off, i.e. the kernel's mmap read-around applies), random gets
of keys drawn with a fixed seed (the same sequence every run) for S seconds, and the device's
/sys/block/DEV/stat read counters before and after. The gets run in a child process inside a memory
cgroup of M MiB (cgroup v2 `memory.max`), so that the database is several times the page cache it may
use, as a database much larger than RAM is. Prints one JSON object. Root only (drop_caches, sysfs).
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time

CGROUP = "/sys/fs/cgroup/iotune-bench-lmdb"


def stat(dev):
    """read_ios, read_merges, read_sectors of /sys/block/DEV/stat."""
    with open("/sys/block/%s/stat" % dev) as f:
        fields = [int(x) for x in f.read().split()]
    return {"read_ios": fields[0], "read_merges": fields[1], "read_sectors": fields[2]}


def set_ra(dev, kb):
    path = "/sys/block/%s/queue/read_ahead_kb" % dev
    with open(path) as f:
        old = int(f.read())
    if kb is not None:
        with open(path, "w") as f:
            f.write(str(int(kb)))
    return old


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3")


def create(args):
    import lmdb
    os.makedirs(args.path, exist_ok=True)
    env = lmdb.open(args.path, map_size=args.entries * (args.value_bytes + 64) * 2, sync=False)
    rnd = random.Random(1)
    value = bytes(rnd.getrandbits(8) for dummy in range(args.value_bytes))
    t0 = time.monotonic()
    batch = 10000
    for start in range(0, args.entries, batch):
        with env.begin(write=True) as txn:
            for i in range(start, min(start + batch, args.entries)):
                txn.put(b"%08d" % i, value, append=True)
    env.sync(True)
    info = env.info()
    env.close()
    size = os.path.getsize(os.path.join(args.path, "data.mdb"))
    print(json.dumps({"entries": args.entries, "value_bytes": args.value_bytes, "file_bytes": size,
                      "last_pgno": info["last_pgno"], "seconds": round(time.monotonic() - t0, 1)}))


def gets(args):
    """The measured part (runs in the child): random gets for args.seconds, returns counts."""
    import lmdb
    env = lmdb.open(args.path, readonly=True, lock=False)   # readahead=True: no MADV_RANDOM
    entries = env.stat()["entries"]
    rnd = random.Random(args.seed)
    n = found = nbytes = 0
    t0 = time.monotonic()
    deadline = t0 + args.seconds
    with env.begin() as txn:
        while True:
            for dummy in range(16):
                v = txn.get(b"%08d" % rnd.randrange(entries))
                n += 1
                if v is not None:
                    found += 1
                    nbytes += len(v)
            if time.monotonic() >= deadline:
                break
    elapsed = time.monotonic() - t0
    env.close()
    return {"gets": n, "found": found, "value_bytes": nbytes, "seconds": round(elapsed, 3), "entries": entries}


def in_cgroup(mib):
    """Run this script's `child` mode in a fresh memory cgroup of `mib` MiB; its JSON line."""
    if not os.path.isdir(CGROUP):
        os.mkdir(CGROUP)
    with open(os.path.join(CGROUP, "memory.max"), "w") as f:
        f.write(str(mib << 20))
    argv = [sys.executable, os.path.abspath(__file__), "child"] + sys.argv[2:]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, preexec_fn=lambda: _join(CGROUP))
    out, dummy = proc.communicate()
    if proc.returncode:
        raise SystemExit("gets failed (rc %d)" % proc.returncode)
    return json.loads(out)


def _join(cgroup):
    with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))


def get(args):
    old = set_ra(args.device, None)
    runs = []
    try:
        set_ra(args.device, args.read_ahead_kb)
        for dummy in range(args.repeat):
            drop_caches()
            before = stat(args.device)
            res = in_cgroup(args.memory_max_mib) if args.memory_max_mib else gets(args)
            after = stat(args.device)
            delta = dict((k, after[k] - before[k]) for k in before)
            res["device_read_bytes"] = delta["read_sectors"] * 512
            res["device_read_ios"] = delta["read_ios"]
            res["device_read_merges"] = delta["read_merges"]
            res["gets_per_s"] = round(res["gets"] / res["seconds"], 1)
            res["device_bw_bytes"] = int(res["device_read_bytes"] / res["seconds"])
            res["device_bytes_per_get"] = round(res["device_read_bytes"] / float(res["gets"] or 1), 1)
            runs.append(res)
    finally:
        set_ra(args.device, old)
        if os.path.isdir(CGROUP):
            try:
                os.rmdir(CGROUP)
            except OSError:
                pass
    print(json.dumps({"device": args.device, "read_ahead_kb": args.read_ahead_kb, "previous_read_ahead_kb": old,
                      "seconds": args.seconds, "seed": args.seed, "memory_max_mib": args.memory_max_mib,
                      "runs": runs}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("create")
    c.add_argument("--path", required=True)
    c.add_argument("--entries", type=int, default=400000)
    c.add_argument("--value-bytes", type=int, default=1000)
    for name in ("get", "child"):
        g = sub.add_parser(name)
        g.add_argument("--path", required=True)
        g.add_argument("--device", required=True)
        g.add_argument("--read-ahead-kb", type=int)
        g.add_argument("--seconds", type=float, default=10)
        g.add_argument("--repeat", type=int, default=3)
        g.add_argument("--seed", type=int, default=25)
        g.add_argument("--memory-max-mib", type=int, default=64)
    args = ap.parse_args()
    if args.cmd == "create":
        create(args)
    elif args.cmd == "child":
        print(json.dumps(gets(args)))
    else:
        get(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
