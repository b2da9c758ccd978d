# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Converge timing, before and after: first converge and idempotent re-run on one lab VM each.

    tools/bench_converge [--base COMMIT] [--variants before,after,peer] [--peer-role DIR] [--peer-ref TEXT]
                         [--concurrent] [--keep] [--out docs/benchmarks.md] [--results .lab/bench-converge.json]
                         [--render-only]

For each variant, in turn (one VM at a time: the default of `make benchmark-converge`, the comparison on a
quiet machine), or with --concurrent both at once, each phase (first converge, re-run) starting together in
both, so that both share whatever else loads the host (for a busy machine; the two guests also slow each
other, the one with less work more, since it runs all its phase beside the other):
  before  the collection at --base (default b4e1a8e), checked out as a git worktree under build/,
  after   the working tree,
  peer    the popular mdadm role (mrlesmithjr.mdadm: RAID0, XFS and the mount, no tuning) from the directory
          --peer-role names (where Galaxy is reachable: `ansible-galaxy role install -p DIR mrlesmithjr.mdadm`;
          its code is never part of this repository), with the xfsprogs install a user of it adds; the same
          array on the same disks, chunk and mount point. Which version it measured: --peer-ref, else the
          directory's git commit, else its Galaxy install info,
1. `tools/lab up --name bench-conv-VARIANT --disks 4 --disk-size 1G`,
2. `ansible-playbook -vvv iotune.storage.tune` with the cassandra profile, array `data` on the 4 disks,
   `iotune_verify: false`, pipelining on (the connection settings of the vm molecule scenario); the peer's
   playbook with the same connection settings:
   wall time, ssh command executions (lines "SSH: EXEC ssh" of -vvv) and the recap,
3. the same playbook again (the idempotent re-run): the same figures, changed must be 0,
4. `tools/lab down`, also on failure (unless --keep).
The figures go into --results (JSON; a later run with --variants after keeps the stored `before`) and
the table into its own section of docs/benchmarks.md (the other sections are kept).
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
import bench_render_util  # noqa: E402  pylint: disable=wrong-import-position
from bench_render_util import write_section  # noqa: E402  pylint: disable=wrong-import-position
LAB = REPO / "tools" / "lab"
VENV_BIN = REPO / ".venv" / "bin"
BEGIN = "<!-- bench_converge:begin -->"
END = "<!-- bench_converge:end -->"
VARS = """\
iotune_profile: cassandra
iotune_verify: false
iotune_arrays:
  - name: data
    devices: "{{ lab_disks[0:4] | map(attribute='by_id') | list }}"
    chunk_kb: 256
    mountpoint: /var/lib/cassandra
"""
# The peer's playbook: its role (a path) and the xfsprogs install its README leaves to the user (the role formats with
# the filesystem module but installs only mdadm); the array as VARS plans it.
PEER_PLAYBOOK = """\
- name: The peer role, RAID0 + XFS + mount on the four disks (no tuning)
  hosts: all
  pre_tasks:
    - name: Install xfsprogs (the role formats XFS but installs only mdadm)
      ansible.builtin.apt:
        name: xfsprogs
  roles:
    - role: {role}
      vars:
        mdadm_arrays:
          - name: md0
            devices: "{{{{ lab_disks[0:4] | map(attribute='by_id') | list }}}}"
            level: "0"
            chunk_size: 256K
            filesystem: xfs
            mountpoint: /var/lib/cassandra
            opts: noatime
            state: present
"""
RECAP = re.compile(r"^(\S+)\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


def log(msg):
    print("==> %s" % msg, flush=True)


def collection_root(variant, base):
    """ANSIBLE_COLLECTIONS_PATH entry for a variant; `before` gets a detached worktree of base."""
    if variant == "after":
        return REPO / "build" / "collections"
    tree = REPO / "build" / "bench-before" / "tree"
    if not (tree / ".git").exists():
        tree.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), base], check=True)
    else:
        subprocess.run(["git", "-C", str(tree), "checkout", "-q", "--detach", base], check=True)
    root = REPO / "build" / "bench-before" / "collections"
    link = root / "ansible_collections" / "iotune" / "storage"
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(tree)
    return root


def play(env, inventory, vars_file, logfile, playbook="iotune.storage.tune"):
    argv = [str(VENV_BIN / "ansible-playbook"), "-vvv", "-i", str(inventory), "-e", "@%s" % vars_file, str(playbook)]
    load_start = os.getloadavg()[0]
    started = time.monotonic()
    with open(logfile, "w", encoding="utf-8") as out:
        rc = subprocess.run(argv, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=str(logfile.parent),
                            check=False).returncode
    seconds = time.monotonic() - started
    figures = parse_log(logfile.read_text(encoding="utf-8", errors="replace"))
    # the host's 1-minute load average at start and end: the VM is emulated on a shared host
    figures.update({"rc": rc, "seconds": round(seconds, 1), "load": "%.1f / %.1f" % (load_start, os.getloadavg()[0]),
                    "log": str(logfile)})
    return figures


def parse_log(text):
    """The figures of one `ansible-playbook -vvv` log: ssh executions, initramfs builds and the last recap's counts."""
    recap = RECAP.findall(text)
    return {
        "ssh_execs": sum(1 for line in text.splitlines() if "SSH: EXEC ssh" in line),
        "initramfs_builds": count_initramfs(text),
        "ok": int(recap[-1][1]) if recap else None,
        "changed": int(recap[-1][2]) if recap else None,
        "failed": int(recap[-1][4]) if recap else None,
    }


def count_initramfs(text):
    """Initramfs generations in a -vvv log: one stdout_lines entry each (the stdout string repeats it)."""
    return sum(1 for line in text.splitlines() if line.strip().startswith('"update-initramfs: Generating'))


def peer_ref(role_dir, given=None):
    """Which version of the peer role is measured: given, else the directory's git commit, else its Galaxy install
    info (ansible-galaxy writes meta/.galaxy_install_info), else 'unknown'."""
    if given:
        return given
    git = subprocess.run(["git", "-C", str(role_dir), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                         check=False)
    if git.returncode == 0 and git.stdout.strip():
        return "git %s" % git.stdout.strip()
    info = Path(role_dir) / "meta" / ".galaxy_install_info"
    if info.is_file():
        fields = dict(line.split(":", 1) for line in info.read_text(encoding="utf-8").splitlines() if ":" in line)
        return "galaxy %s" % fields.get("version", "?").strip()
    return "unknown"


def check_peer_role(role_dir):
    """The directory must hold a role (tasks/main.yml); refused before any VM starts."""
    if not role_dir:
        raise SystemExit("bench_converge: the peer variant needs --peer-role DIR (BENCH_PEER_ROLE): the mdadm role's "
                         "directory, e.g. from `ansible-galaxy role install -p DIR mrlesmithjr.mdadm`")
    path = Path(role_dir).resolve()
    if not (path / "tasks" / "main.yml").is_file():
        raise SystemExit("bench_converge: %s holds no role (no tasks/main.yml)" % path)
    return path


def measure(variant, base, keep, logdir, barrier=None, peer=None):
    name = "bench-conv-%s" % variant
    env = dict(os.environ)
    env.update({
        "ANSIBLE_COLLECTIONS_PATH": str(collection_root("after" if variant == "peer" else variant, base)),
        "ANSIBLE_HOST_KEY_CHECKING": "false",
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_PIPELINING": "true",
        "ANSIBLE_TIMEOUT": "60",
    })
    result = {"variant": variant, "commit": {"before": base, "peer": (peer or {}).get("ref")}.get(variant) or git_describe(),
              "measured": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")}
    try:
        log("%s: lab VM %s with 4 empty 1G disks" % (variant, name))
        subprocess.run([str(LAB), "up", "--name", name, "--disks", "4", "--disk-size", "1G"], check=True)
        inventory = REPO / ".lab" / name / "inventory.yml"
        vars_file = logdir / "vars.yml"
        vars_file.write_text(VARS)
        playbook = "iotune.storage.tune"
        if variant == "peer":
            playbook = logdir / "peer.yml"
            playbook.write_text(PEER_PLAYBOOK.format(role=peer["path"]))
        for run in ("first", "rerun"):
            if barrier is not None:
                # --concurrent: each phase starts together in both variants, so both share the same load
                barrier.wait()
            log("%s: %s converge" % (variant, run))
            result[run] = play(env, inventory, vars_file, logdir / ("%s-%s.log" % (variant, run)), playbook)
            log("%s %s: %s" % (variant, run, result[run]))
            if result[run]["rc"] != 0:
                if barrier is not None:
                    barrier.abort()
                break
    except Exception:
        if barrier is not None:
            barrier.abort()      # the other variant must not wait for this one forever
        raise
    finally:
        if not keep:
            subprocess.run([str(LAB), "down", name], check=False)
    return result


def git_describe():
    return bench_render_util.git_describe(REPO)


def cell(res, run, key):
    value = (res or {}).get(run, {}).get(key)
    return "n/a" if value is None else str(value)


def ratio(after, before, run, key):
    try:
        return "%.2f" % (float(after[run][key]) / float(before[run][key]))
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return "n/a"


def render(results, out):
    before, after, peer = results.get("before"), results.get("after"), results.get("peer")
    shown = [v for v in ("before", "after", "peer") if results.get(v)]
    pairs = [(a, b) for a, b in (("after", "before"), ("after", "peer")) if results.get(a) and results.get(b)]
    lines = [
        BEGIN,
        "## Converge time: first run and idempotent re-run (tools/bench_converge)",
        "",
        "`make benchmark-converge`: one lab VM per variant (4 empty 1 GiB disks, qemu software emulation on a",
        "shared 2-core host), `iotune.storage.tune` with the cassandra profile, array `data` on the 4 disks,",
        "`iotune_verify: false`, pipelining on. ssh executions are the `SSH: EXEC ssh` lines of `-vvv`;",
        "initramfs builds are the `update-initramfs: Generating` lines in the task results.",
    ]
    if peer:
        lines += [
            "The peer is the mdadm role mrlesmithjr.mdadm (%s): the same RAID0 (chunk 256 KiB) on the same disks," % (
                peer.get("commit") or "unknown"),
            "XFS mounted noatime at the same mount point, and the xfsprogs install a user of it adds; no tuning.",
        ]
    lines += [
        "",
        "| | %s | %s |" % (" | ".join("%s (%s)" % (v, results[v].get("commit", "n/a")) for v in shown),
                           " | ".join("%s / %s" % pair for pair in pairs)),
        "|---|%s" % ("---|" * (len(shown) + len(pairs))),
    ]
    for run, label in (("first", "first converge"), ("rerun", "re-run")):
        for key, unit in (("seconds", "wall time, s"), ("ssh_execs", "ssh executions"), ("changed", "changed"),
                          ("initramfs_builds", "initramfs builds"), ("load", "host load start / end")):
            ratios = [ratio(results[a], results[b], run, key) if key in ("seconds", "ssh_execs") else ""
                      for a, b in pairs]
            lines.append("| %s: %s | %s | %s |" % (
                label, unit, " | ".join(cell(results[v], run, key) for v in shown), " | ".join(ratios)))
    lines += [""]
    for res in (before, after, peer):
        if res:
            lines.append("- %s measured %s UTC%s" % (res["variant"], res.get("measured", "?"),
                                                     ", at the same time as the other" if res.get("concurrent")
                                                     else ", one VM at a time"))
    lines += [
        "",
        "Absolute times depend on the emulation and the host load; the ratios are the result. Targets of",
        "issue 16: first converge <= 0.5x, re-run <= 0.4x with changed=0 and at most 20 ssh executions. Targets of",
        "issue 31 (against the peer): re-run <= 2 ssh executions and <= 0.3x the peer's time with changed=0, first",
        "converge <= 0.5x the peer's.",
        END,
    ]
    write_section(out, lines, BEGIN, END)
    log("wrote %s" % out)


def main():
    ap = argparse.ArgumentParser(prog="tools/bench_converge", description=__doc__.split("\n\n", maxsplit=1)[0])
    ap.add_argument("--base", default=os.environ.get("BENCH_BASE", "b4e1a8e"), help="commit of `before`")
    ap.add_argument("--variants", default="before,after", help="comma list of before, after, peer")
    ap.add_argument("--peer-role", default=os.environ.get("BENCH_PEER_ROLE"),
                    help="directory of the peer role mrlesmithjr.mdadm (variant peer); never vendored here")
    ap.add_argument("--peer-ref", default=os.environ.get("BENCH_PEER_REF"),
                    help="the peer's version to report (default: the directory's git commit or Galaxy install info)")
    ap.add_argument("--out", default=str(REPO / "docs" / "benchmarks.md"))
    ap.add_argument("--results", default=str(REPO / ".lab" / "bench-converge.json"))
    ap.add_argument("--keep", action="store_true", help="do not tear the VMs down")
    ap.add_argument("--concurrent", action="store_true",
                    help="measure the variants at the same time (one VM each), so that they share the host's load")
    ap.add_argument("--render-only", action="store_true", help="only render --results into --out")
    args = ap.parse_args()
    results_path = Path(args.results)
    results = json.loads(results_path.read_text()) if results_path.exists() else {}
    for res in results.values():   # figures added to the script after a stored measurement: count from its log
        for run in ("first", "rerun"):
            log_path = Path(res.get(run, {}).get("log", "/nonexistent"))
            if run in res and "initramfs_builds" not in res[run] and log_path.exists():
                res[run]["initramfs_builds"] = count_initramfs(log_path.read_text(encoding="utf-8", errors="replace"))
    if not args.render_only:
        logdir = REPO / ".lab" / "bench-converge-logs"
        logdir.mkdir(parents=True, exist_ok=True)
        variants = [v.strip() for v in args.variants.split(",") if v.strip()]
        for variant in variants:
            if variant not in ("before", "after", "peer"):
                ap.error("unknown variant %s" % variant)
        peer = None
        if "peer" in variants:
            path = check_peer_role(args.peer_role)
            peer = {"path": str(path), "ref": peer_ref(path, args.peer_ref)}
        if args.concurrent:
            collection_root("before", args.base)   # the worktree, before the threads start
            barrier = threading.Barrier(len(variants))
            with concurrent.futures.ThreadPoolExecutor(max_workers=len(variants)) as pool:
                done = list(pool.map(lambda v: measure(v, args.base, args.keep, logdir, barrier, peer), variants))
        else:
            done = [measure(v, args.base, args.keep, logdir, peer=peer) for v in variants]
        for res in done:
            res["concurrent"] = args.concurrent
            results[res["variant"]] = res
        results_path.parent.mkdir(parents=True, exist_ok=True)
        results_path.write_text(json.dumps(results, indent=1))
    render(results, args.out)
    failed = [v for v, r in results.items() for run in ("first", "rerun") if r.get(run, {}).get("rc")]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
