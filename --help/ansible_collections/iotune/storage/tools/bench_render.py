# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""docs/benchmarks.md from the raw results of tools/benchmark (`render(raw, out_path)`).

The part above tools/bench_converge's section is rewritten; that section and what follows it are kept.
The field reports' section is in tools/bench_render_field.py. Figures are read from the raw results only.
"""

from pathlib import Path

import bench_render_field as field
from bench_render_util import fmt, mbs, med, model_label, noise_list, noise_of, ok, pct, ratio

BEGIN = "<!-- bench_converge:begin -->"
COLS = (("throttled", "throttled"), ("unthrottled", "unthrottled"))


def bold_ratio(r):
    return "-" if r is None else "**%.1fx**" % r


def phases_note(raw):
    """'' when the raw data holds every phase of one run, else which phases this run measured."""
    ran = raw.get("_phases_run") or []
    if set(ran) >= {"unthrottled", "throttled", "field", "azure"}:
        return ""
    return " (phases %s of this run; the others are older)" % ", ".join(ran)


def mmap_rows(raw):
    kb = raw.get("prepare", {}).get("md_default_kb", "?")
    head = ["", "| | %s |" % " | ".join(
        "%s: md default (%s KiB) | %s: 8 KiB | %s: 8 KiB / default" % (c, kb, c, c) for c, dummy in COLS),
        "|---|" + "---|" * 6]
    metrics = (("IOPS (4 KiB page faults/s)", "iops", "%.0f", True),
               ("device MB/s", "device_bw_bytes", None, False),
               ("read amplification (device bytes / app bytes)", "read_amplification", "%.2fx", False),
               ("avg device request", "avg_request_kb", "%.1f KiB", False),
               ("p99 latency", "p99_us", "%.0f us", False))
    rows = []
    for label, key, pattern, is_ratio in metrics:
        cells = []
        for phase, dummy in COLS:
            p = raw.get(phase) or {}
            d, c = p.get("mmap_default") or {}, p.get("mmap_cassandra") or {}
            show = mbs if pattern is None else (lambda v, pat=pattern: fmt(v, pat))
            r = ratio(c.get(key), d.get(key))
            cells += [show(d.get(key)), show(c.get(key)),
                      bold_ratio(r) if is_ratio else (fmt(r, "%.3fx") if key != "p99_us" else "")]
        rows.append("| %s | %s |" % (label, " | ".join(cells)))
    rows.append("| noise of IOPS (max-min)/median | %s |" % " | ".join(
        "%s | %s | " % (pct(noise_of((raw.get(p) or {}).get("mmap_default"), "iops")),
                        pct(noise_of((raw.get(p) or {}).get("mmap_cassandra"), "iops"))) for p, dummy in COLS))
    ref = ["", "Reference, 4 KiB readahead (one page per fault): " + "; ".join(
        "%s %s IOPS, %s amplification, %s" % (
            p, fmt(((raw.get(p) or {}).get("mmap_4k") or {}).get("iops"), "%.0f"),
            fmt(((raw.get(p) or {}).get("mmap_4k") or {}).get("read_amplification"), "%.2fx"),
            mbs(((raw.get(p) or {}).get("mmap_4k") or {}).get("device_bw_bytes"))) for p, dummy in COLS) + "."]
    return head + rows + ref


def lmdb_runs(res, key):
    return [r.get(key) for r in (res or {}).get("runs") or []]


def lmdb_rows(raw):
    kb = raw.get("prepare", {}).get("md_default_kb", "?")
    rows = ["", "| | %s |" % " | ".join(
        "%s: md default (%s KiB) | %s: 8 KiB | %s: 8 KiB / default" % (c, kb, c, c) for c, dummy in COLS),
        "|---|" + "---|" * 6]
    for label, key, show, is_ratio in (("gets/s", "gets_per_s", lambda v: fmt(v, "%.0f"), True),
                                       ("device MB/s", "device_bw_bytes", mbs, False),
                                       ("device bytes per get", "device_bytes_per_get", lambda v: fmt(v, "%.0f B"), False),
                                       ("device MB read per run", "device_read_bytes",
                                        lambda v: fmt(None if v is None else v / 1e6, "%.1f"), False)):
        cells = []
        for phase, dummy in COLS:
            p = raw.get(phase) or {}
            d, c = med(lmdb_runs(p.get("lmdb_default"), key)), med(lmdb_runs(p.get("lmdb_cassandra"), key))
            r = ratio(c, d)
            cells += [show(d), show(c), bold_ratio(r) if is_ratio else fmt(r, "%.3fx")]
        rows.append("| %s | %s |" % (label, " | ".join(cells)))
    rows.append("| noise of gets/s (max-min)/median | %s |" % " | ".join(
        "%s | %s | " % (pct(noise_list(lmdb_runs((raw.get(p) or {}).get("lmdb_default"), "gets_per_s"))),
                        pct(noise_list(lmdb_runs((raw.get(p) or {}).get("lmdb_cassandra"), "gets_per_s"))))
        for p, dummy in COLS))
    return rows


def seq_numbers(p):
    """Medians of the sequential measurements of one phase."""
    each = {}
    for res in p.get("raw_each") or []:
        dev = res["devices"][0]
        each[dev] = med([r["bw_bytes"] for r in res["points"][0]["runs"]])
    all_runs = [r["bw_bytes"] for r in ((p.get("raw_all") or {}).get("points") or [{}])[0].get("runs", [])]
    return {"each": each, "sum": sum(each.values()) if each else None, "all": med(all_runs),
            "all_noise": noise_list(all_runs),
            "buffered": (p.get("seq_buffered") or {}).get("bw_bytes"),
            "direct": (p.get("seq_direct") or {}).get("bw_bytes")}


def seq_rows(raw):
    nums = dict((phase, seq_numbers(raw.get(phase) or {})) for phase, dummy in COLS)
    rows = ["", "| measurement | %s |" % " | ".join("%s | %s: ratio to sum of members" % (c, c) for c, dummy in COLS),
            "|---|---|---|---|---|"]
    members = sorted(set(m for n in nums.values() for m in n["each"]))
    for m in members:
        rows.append("| member %s alone (median of 3) | %s |" % (m, " | ".join(
            "%s | " % mbs(nums[p]["each"].get(m)) for p, dummy in COLS)))
    rows.append("| **sum of members, one at a time** | %s |" % " | ".join(
        "**%s** | 1.00" % mbs(nums[p]["sum"]) for p, dummy in COLS))
    rows.append("| all members at once (raw, median of 3) | %s |" % " | ".join(
        "%s | %s" % (mbs(nums[p]["all"]), fmt(ratio(nums[p]["all"], nums[p]["sum"]), "%.2f")) for p, dummy in COLS))
    rows.append("| **array, buffered 128 KiB reads, readahead 4096 KiB** | %s |" % " | ".join(
        "%s | **%s**" % (mbs(nums[p]["buffered"]), fmt(ratio(nums[p]["buffered"], nums[p]["sum"]), "%.3f"))
        for p, dummy in COLS))
    rows.append("| array, O_DIRECT 1 MiB QD16 | %s |" % " | ".join(
        "%s | %s" % (mbs(nums[p]["direct"]), fmt(ratio(nums[p]["direct"], nums[p]["sum"]), "%.3f")) for p, dummy in COLS))
    rows.append("| noise of the array's buffered read | %s |" % " | ".join(
        "%s | " % pct(noise_of((raw.get(p) or {}).get("seq_buffered"), "bw_bytes")) for p, dummy in COLS))
    return rows, nums


def target_values(raw):
    out = {}
    for phase, dummy in COLS:
        p = raw.get(phase) or {}
        mm = ratio((p.get("mmap_cassandra") or {}).get("iops"), (p.get("mmap_default") or {}).get("iops"))
        lm = ratio(med(lmdb_runs(p.get("lmdb_cassandra"), "gets_per_s")),
                   med(lmdb_runs(p.get("lmdb_default"), "gets_per_s")))
        s = seq_numbers(p)
        out[phase] = {"mmap": mm, "lmdb": lm, "seq": ratio(s["buffered"], s["sum"])}
    return out


def render(raw, out_path):
    prep = raw.get("prepare") or {}
    probe = (prep.get("probe") or {}).get("read_ahead") or {}
    thr, unt = raw.get("throttled") or {}, raw.get("unthrottled") or {}
    tv = target_values(raw)
    elapsed = float(raw.get("_elapsed_s") or 0)
    lines = [
        "# Benchmarks",
        "",
        "Produced by `tools/benchmark` (`make benchmark`; do not edit by hand) at commit **%s**, started %s UTC, "
        "%.0f min wall time%s." % (raw.get("commit", "?"), raw.get("_started", "?"), elapsed / 60.0, phases_note(raw)),
    ]
    if raw.get("dirty"):
        lines.append("Uncommitted paths at the start of the run: %s." % ", ".join("`%s`" % d for d in raw["dirty"]))
    lines += [
        "",
        "One lab VM (`tools/lab up --name bench --disks 4 --disk-size 2G`, Debian 12 guest, qemu **software",
        "emulation** on a shared 2-core host), RAID0 `data` over the 4 virtio disks built by `playbooks/tune.yml`",
        "with the `cassandra` profile (chunk 256 KiB, XFS at `/srv/bench`, noatime), array device `%s`, members %s." % (
            probe.get("device", "?"), ", ".join(prep.get("members") or [])),
        "The members' disk model (qemu I/O throttling per disk, docs/lab.md) is changed **live** between the",
        "phases of the one run with `tools/lab disk-model bench MODEL`:",
        "",
        "- **throttled**: `%s` per member%s;" % (model_label(thr), (
            ", the field report's 1000-PIOPS EBS volume (I/O counted in 16 KiB units, so 16 MiB/s for large\n"
            "  requests); 4 members: 4000 units/s, 64 MiB/s for the array")
            if model_label(thr).startswith("ebs-piops-2013") else ""),
        "- **unthrottled**: `%s`: what the emulated guest and the host's page cache give (the lab's" % model_label(unt),
        "  `instance-store` preset is the same: no limit).",
        "",
        "The limits count every request the guest sends to a virtual disk (reads and writes), after the guest's",
        "page cache. Every fio figure is the median of 3 runs (page cache dropped before each buffered or mmap",
        "run) with its noise (max-min)/median; every run is time-based (10 s; raw member reads 5 s). Under",
        "emulation absolute numbers are only indicative; the ratios measured in the same run are the result,",
        "and the throttled column is where the disks, not the emulator, are the limit.",
        "",
        "## Targets (issue 25, on throttled disks)",
        "",
        "| target | throttled | unthrottled (for comparison) |",
        "|---|---|---|",
        "| 4 KiB random mmap reads, IOPS cassandra (8 KiB) / md default >= 10x | %s: %s | %s |" % (
            fmt(tv["throttled"]["mmap"], "%.1fx"), ok(tv["throttled"]["mmap"], 10), fmt(tv["unthrottled"]["mmap"], "%.1fx")),
        "| LMDB cold random gets/s, 8 KiB / md default >= 2x | %s: %s | %s |" % (
            fmt(tv["throttled"]["lmdb"], "%.1fx"), ok(tv["throttled"]["lmdb"], 2), fmt(tv["unthrottled"]["lmdb"], "%.1fx")),
        "| array sequential buffered read (readahead 4096 KiB) / sum of its members read one at a time >= 0.9 "
        "| %s: %s | %s |" % (fmt(tv["throttled"]["seq"], "%.3f"), ok(tv["throttled"]["seq"], 0.9),
                             fmt(tv["unthrottled"]["seq"], "%.3f")),
        "",
        "## Readahead amplification: md default vs the cassandra profile",
        "",
        "4 KiB random reads through mmap (fio `ioengine=mmap`, `fadvise_hint=0`, a 1 GiB file, 10 s per run) with the",
        "array's readahead at md's default (what the kernel sets when the array starts: max(2 x optimal_io_size,",
        "128 KiB) = **%s KiB** here) and at the cassandra profile's **8 KiB**; device figures from" % prep.get("md_default_kb", "?"),
        "`/sys/block/%s/stat` deltas (iotune.storage.fio)." % probe.get("device", "md"),
    ]
    lines += mmap_rows(raw)
    lines += [
        "",
        "A page fault reads a window of read_ahead_kb around the faulting page (mm/filemap.c read-around,",
        "storage-facts section 1.8): 2 pages at 8 KiB for 1 page used, hence about 2x amplification at 8 KiB",
        "and 1.0x only at 4 KiB.",
        "",
        "## A real mmap database: LMDB cold random gets",
        "",
        "tools/bench_lmdb.py in the guest (Debian's python3-lmdb %s): a database of %s entries of 1000 bytes" % (
            field.package_version(prep, "python3-lmdb"), field.lmdb_entries(prep)),
        "(%s) on the array's XFS; per run the page cache is dropped, the environment opened read-only (LMDB's" % (
            field.lmdb_size(prep)),
        "default: no MADV_RANDOM, so the kernel's read-around applies), and random gets (keys from a fixed seed,",
        "the same sequence every run) run for 10 s in a memory cgroup of 64 MiB (`memory.max`), so that the",
        "database is about 6x the page cache it may use, like a database much larger than RAM. 3 runs each.",
    ]
    lines += lmdb_rows(raw)
    rows, nums = seq_rows(raw)
    lines += [
        "",
        "## Sequential throughput: array with the streaming readahead vs its members",
        "",
        "The array read buffered (128 KiB psync reads, readahead 4096 KiB, the `streaming` profile's array value,",
        "set by the fio module for the measurement and restored) and O_DIRECT (1 MiB, QD16); members read raw with",
        "tools/bench_rawread.py (`fio --readonly`, O_DIRECT 1 MiB QD16, first 256 MiB, 5 s), one member at a time",
        "(summed, as the target asks) and all at once. The array keeps the cassandra chunk (256 KiB): one run does",
        "not rebuild it.",
    ]
    lines += rows
    lines += field.section(raw)
    lines += field.findings(raw, tv, nums)
    lines += [
        "",
        "## How to read this",
        "",
        "- Amplification and request sizes are `/sys/block/<dev>/stat` deltas (fio 3.33 has no `read_sectors` in",
        "  its JSON); see `docs/verification.md`.",
        "- Unthrottled, every request costs CPU time of the 2 host cores that also run the emulated guest, so",
        "  \"sum of members measured one at a time\" is an optimistic reference there.",
        "- Raw data of this run: `%s` (not committed); rerun the rendering with" % raw.get("_raw_path", "?"),
        "  `tools/benchmark --render-only`.",
        "",
    ]
    write(out_path, lines)


def write(out_path, lines):
    path = Path(out_path)
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    tail = old[old.index(BEGIN):] if BEGIN in old else ""
    text = "\n".join(lines) + ("\n" + tail if tail else "")
    path.write_text(text, encoding="utf-8")
    print(text.split(BEGIN, maxsplit=1)[0])
