# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Benchmark of the collection on one lab VM, on throttled and unthrottled disks; writes docs/benchmarks.md.

    tools/benchmark [--keep] [--reuse] [--phases unthrottled,throttled,field,azure] [--out docs/benchmarks.md]
                    [--raw-json .lab/bench-results.json] [--render-only]

1. `tools/lab up --name bench --disks 4 --disk-size 2G` (a throw-away VM with 4 empty disks, no limits),
2. `ansible-playbook iotune.storage.tune` with the cassandra profile: RAID0 `data` on the 4 disks, XFS at
   /srv/bench, udev tuning (read_ahead_kb 8 on the array), verification role skipped,
3. `ansible-playbook tools/benchmark.yml`: fio and python3-lmdb installed, a 1 GiB fio test file and a
   ~400 MiB LMDB database laid out while the disks have no limits, then phase by phase, the members' disk
   model changed live between phases (`tools/lab disk-model bench MODEL`, QMP throttling):
   - unthrottled (`unlimited`) and throttled (`ebs-piops-2013`), each: 4 KiB random mmap reads at md's
     default readahead, 8 KiB (cassandra) and 4 KiB; LMDB cold random gets at md's default and 8 KiB
     (tools/bench_lmdb.py); the array's buffered sequential read at 4096 KiB and O_DIRECT; each member
     read raw alone and all at once (tools/bench_rawread.py: fio --readonly, never writes),
   - field (throttled members): a readahead sweep on one member, two members vs one,
   - azure (`azure-p10` members): Cassandra-like 4 KiB random mmap reads at 8 KiB and 4 MiB readahead,
4. renders everything into docs/benchmarks.md (tools/bench_render.py; the section of tools/bench_converge
   and what follows it are kept) and tears the VM down (`tools/lab down bench`), also on failure (unless
   --keep).

Everything runs under qemu software emulation on a shared host: absolute numbers are only indicative,
the ratios measured in the same run are the result; the throttled column is where the disks, not the
emulator, are the limit.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
import bench_render  # noqa: E402  pylint: disable=wrong-import-position

NAME = "bench"
LAB = REPO / "tools" / "lab"
VENV_BIN = REPO / ".venv" / "bin"
MOUNT = "/srv/bench"
PLAYBOOK = REPO / "tools" / "benchmark.yml"
PHASES = ("unthrottled", "throttled", "field", "azure")
TUNE_VARS = """\
iotune_profile: cassandra
iotune_verify: false
iotune_arrays:
  - name: data
    devices: "{{ lab_disks[0:4] | map(attribute='by_id') | list }}"
    mountpoint: %s
""" % MOUNT


def run(argv, **kw):
    print("+ " + " ".join(str(a) for a in argv), flush=True)
    return subprocess.run([str(a) for a in argv], check=True, **kw)


def commit():
    """The commit the run measures, `+dirty` with the changed paths when the tree has changes."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, stdout=subprocess.PIPE,
                          universal_newlines=True, check=False).stdout.strip() or "unknown"
    status = subprocess.run(["git", "status", "--porcelain"], cwd=REPO, stdout=subprocess.PIPE,
                            universal_newlines=True, check=False).stdout.splitlines()
    changed = sorted(line[3:] for line in status if line.strip())
    return {"commit": head + ("+dirty" if changed else ""), "dirty": changed}


def main():
    ap = argparse.ArgumentParser(prog="tools/benchmark", description=__doc__.split("\n\n", maxsplit=1)[0])
    ap.add_argument("--out", default=str(REPO / "docs" / "benchmarks.md"))
    ap.add_argument("--raw-json", default=str(REPO / ".lab" / "bench-results.json"))
    ap.add_argument("--keep", action="store_true", help="do not tear the VM down")
    ap.add_argument("--reuse", action="store_true", help="reuse a running bench VM (and its tuning)")
    ap.add_argument("--phases", default=",".join(PHASES),
                    help="comma list of %s; phases not measured keep their stored results" % ", ".join(PHASES))
    ap.add_argument("--render-only", action="store_true", help="only render --raw-json into --out")
    args = ap.parse_args()
    raw_path = Path(args.raw_json)
    if args.render_only:
        raw = json.loads(raw_path.read_text())
        raw["_raw_path"] = os.path.relpath(raw_path.resolve(), REPO)
        bench_render.render(raw, args.out)
        return 0
    phases = [p.strip() for p in args.phases.split(",") if p.strip()]
    unknown = [p for p in phases if p not in PHASES]
    if unknown:
        ap.error("unknown phase %s (known: %s)" % (", ".join(unknown), ", ".join(PHASES)))
    started = datetime.datetime.now(datetime.timezone.utc)
    env = dict(os.environ)
    env["ANSIBLE_COLLECTIONS_PATH"] = str(REPO / "build" / "collections")
    env["ANSIBLE_HOST_KEY_CHECKING"] = "false"
    env["ANSIBLE_NOCOLOR"] = "1"
    env["ANSIBLE_PIPELINING"] = "true"
    env["ANSIBLE_TIMEOUT"] = "60"
    inventory = REPO / ".lab" / NAME / "inventory.yml"
    out_dir = REPO / ".lab" / "bench-results"
    out_dir.mkdir(parents=True, exist_ok=True)
    play_vars = ["-e", json.dumps({"bench_dir": MOUNT, "bench_out_dir": str(out_dir), "bench_lab": str(LAB),
                                   "bench_vm": NAME})]
    # fail fast (before a VM boots) when the working tree does not parse
    with tempfile.TemporaryDirectory(prefix="iotune-bench-syntax-") as tmp:
        inv = Path(tmp) / "inventory.yml"
        inv.write_text("all:\n  hosts:\n    %s:\n      lab_disks: []\n" % NAME)
        run([VENV_BIN / "ansible-playbook", "--syntax-check", "-i", inv, *play_vars, PLAYBOOK], env=env, cwd=tmp)
    raw = json.loads(raw_path.read_text()) if raw_path.exists() and set(phases) != set(PHASES) else {}
    raw.update(commit())
    try:
        reused = args.reuse and inventory.exists()
        if not reused:
            run([LAB, "up", "--name", NAME, "--disks", "4", "--disk-size", "2G"])
        with tempfile.TemporaryDirectory(prefix="iotune-bench-") as tmp:
            vars_file = Path(tmp) / "vars.yml"
            vars_file.write_text(TUNE_VARS)
            if not reused:
                run([VENV_BIN / "ansible-playbook", "-i", inventory, "-e", "@%s" % vars_file,
                     "iotune.storage.tune"], env=env, cwd=tmp)
            for phase in ("prepare",) + PHASES:
                (out_dir / ("%s.json" % phase)).unlink(missing_ok=True)
            run([VENV_BIN / "ansible-playbook", "-i", inventory, *play_vars, "--tags", ",".join(phases), PLAYBOOK],
                env=env, cwd=tmp)
        for phase in ("prepare",) + PHASES:
            path = out_dir / ("%s.json" % phase)
            if path.exists():
                raw[phase] = json.loads(path.read_text())
                raw.setdefault("_measured", {})[phase] = raw["commit"]
        elapsed = (datetime.datetime.now(datetime.timezone.utc) - started).total_seconds()
        raw["_started"] = started.strftime("%Y-%m-%d %H:%M")
        raw["_elapsed_s"] = elapsed
        raw["_phases_run"] = phases
        raw["_vm_reused"] = reused
        raw_path.write_text(json.dumps(raw, indent=1))
        raw["_raw_path"] = os.path.relpath(raw_path.resolve(), REPO)
        bench_render.render(raw, args.out)
    finally:
        if not args.keep:
            subprocess.run([str(LAB), "down", NAME], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
