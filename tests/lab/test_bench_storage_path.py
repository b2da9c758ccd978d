# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tools/bench_storage_path without a VM: the A/B order, the stat and guest output parsers, the guest script, the
paired ratios and the section it writes into docs/benchmarks.md."""

import importlib.machinery
import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "bench_storage_path.py"


@pytest.fixture(scope="module")
def bench():
    loader = importlib.machinery.SourceFileLoader("bench_storage_path", str(SCRIPT))
    spec = importlib.util.spec_from_loader("bench_storage_path", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


# /sys/block/DEV/stat of kernel 6.1: 17 fields (reads, merged, sectors, ms, writes, ..., discards at 11-14, flushes)
STAT0 = "100 1 800 5 10 2 80 3 0 9 9 1 0 4194304 2 0 0"
STAT1 = "150 4 1200 9 30 5 400 6 0 19 19 3 0 8388608 4 0 0"


def test_pairs_alternate_so_a_drift_hits_both(bench):
    assert [bench.pair_order(rep, "0", "2") for rep in range(4)] == [("0", "2"), ("2", "0"), ("0", "2"), ("2", "0")]


def test_the_stat_parser_reads_merges_and_discards(bench):
    stat = bench.parse_stat(STAT0)
    assert stat["reads_merged"] == 1 and stat["writes_merged"] == 2
    assert stat["discards"] == 1 and stat["discard_sectors"] == 4194304
    # a kernel before 4.18 has 11 fields: no discard counters, read as 0
    assert bench.parse_stat("1 2 3 4 5 6 7 8 9 10 11")["discards"] == 0


def test_the_deltas_are_summed_over_the_members(bench):
    before = {"vdk": bench.parse_stat(STAT0), "vdl": bench.parse_stat(STAT0)}
    after = {"vdk": bench.parse_stat(STAT1), "vdl": bench.parse_stat(STAT0)}
    delta = bench.stat_delta(before, after)
    assert delta["reads"] == 50 and delta["reads_merged"] == 3 and delta["discard_sectors"] == 4194304
    figures = bench.member_figures(delta)
    assert figures["requests"] == 70 and figures["merges"] == 6
    assert figures["avg_kib"] == pytest.approx((400 + 320) * 512 / 1024.0 / 70)


def _fio(direction, iops, p99_ns):
    side = {"io_bytes": 4096 * iops, "iops": iops, "bw_bytes": 4096 * iops,
            "clat_ns": {"percentile": {"99.000000": p99_ns}}}
    idle = {"io_bytes": 0, "iops": 0, "bw_bytes": 0, "clat_ns": {}}
    return {"jobs": [{"read": side if direction == "read" else idle, "write": side if direction == "write" else idle}]}


def test_the_guest_output_becomes_cells(bench):
    text = "\n".join([
        "noise before the first cell",
        "@@cell seqwrite 2",
        "@@stat0 vdk " + STAT0, "@@stat0 vdl " + STAT0,
        "@@stat1 vdk " + STAT1, "@@stat1 vdl " + STAT0,
        "@@fio " + json.dumps(_fio("write", 1000, 2500000)),
        "@@cell mkfs nodiscard",
        "@@stat0 vdk " + STAT0, "@@stat1 vdk " + STAT0,
        "@@t 100.25 101.5",
    ])
    cells = bench.parse_cells(text)
    assert [(c["job"], c["variant"]) for c in cells] == [("seqwrite", "2"), ("mkfs", "nodiscard")]
    assert cells[0]["iops"] == 1000 and cells[0]["p99_us"] == 2500.0 and cells[0]["dev"]["writes"] == 20
    assert cells[1]["seconds"] == 1.25 and cells[1]["dev"]["discards"] == 0


def test_the_guest_script_sets_both_layers_and_puts_the_queue_depth_back(bench):
    script = bench.guest_pair("fio", "seqread-shallow", ("2", "0"), ["vdk", "vdl"], 5, {"vdk": "256", "vdl": "128"})
    assert script.index("@@cell seqread-shallow 2") < script.index("@@cell seqread-shallow 0")
    assert "for d in $A vdk vdl; do echo 2 > /sys/block/$d/queue/nomerges; done" in script
    assert "echo 4 > /sys/block/$d/queue/nr_requests" in script
    assert script.rstrip().endswith("echo 128 > /sys/block/vdl/queue/nr_requests")
    assert "--direct=1" in script and "--bs=4k" in script and "--iodepth=32" in script and "--runtime=5" in script
    mkfs = bench.guest_pair("mkfs", "mkfs", ("nodiscard", "discard"), ["vdk"], 5)
    assert "mkfs.xfs -f -q -K %s" % bench.MD in mkfs and "mkfs.xfs -f -q %s" % bench.MD in mkfs
    assert "nomerges" not in mkfs


def test_ratios_are_paired_per_repetition(bench):
    cells = [{"job": "j", "rep": 0, "variant": "0", "iops": 100}, {"job": "j", "rep": 0, "variant": "2", "iops": 50},
             {"job": "j", "rep": 1, "variant": "2", "iops": 90}, {"job": "j", "rep": 1, "variant": "0", "iops": 100},
             {"job": "j", "rep": 2, "variant": "0", "iops": 100}]
    assert bench.paired_ratios(cells, "j", "2", "0", "iops") == [0.5, 0.9]
    assert bench.spread([0.5, 0.9], "%.2fx") == "0.70x (0.50x-0.90x)"
    assert bench.spread([], "%.2f") == "-"


def _cell(job, variant, rep, **figures):
    dev = {"reads": 1000, "reads_merged": figures.pop("merges", 0), "read_sectors": 8000, "writes": 0,
           "writes_merged": 0, "write_sectors": 0, "discards": figures.pop("discards", 0), "discards_merged": 0,
           "discard_sectors": figures.pop("discard_sectors", 0)}
    cell = {"job": job, "variant": variant, "rep": rep, "load": [1.0, 2.0], "dev": dev}
    cell.update(figures)
    return cell


def _results():
    fio = [_cell("seqread-batch16", v, r, iops=iops, p99_us=100.0, merges=merges, qemu_merged=qemu)
           for r in range(2) for v, iops, merges, qemu in (("0", 2000, 900, 700), ("2", 1000, 0, 1400))]
    fio += [_cell("seqread-batch16@ebs-gp3", v, 0, iops=iops, p99_us=100.0) for v, iops in (("0", 900), ("2", 300))]
    mkfs = [_cell("mkfs", v, r, seconds=secs, discards=disc, discard_sectors=disc * 2097152)
            for r in range(2) for v, secs, disc in (("discard", 2.0, 2), ("nodiscard", 1.0, 0))]
    return {"commit": "abc1234", "started": "2026-11-27 10:00", "minutes": 7.5, "vm": "dev-r", "accel": "tcg",
            "cpus": 2, "cpu": "max", "memory": 1024, "models": ["unlimited"], "members": ["vdk", "vdl"],
            "disks": [{"serial": "s", "bus": "virtio", "size_bytes": 2 ** 30, "file": "disk9.raw"}],
            "guest": {"debian": "12.15", "kernel": "6.1.0", "fio": "fio-3.33", "mkfs": "mkfs.xfs version 6.1.0",
                      "mdadm": "mdadm - v4.2 - 2021-12-30"},
            "other_vms": ["dev-t"], "reps": 2, "seconds": 5, "host_blocks_start": 0, "host_blocks_end": 0,
            "throttle": "lab: VM dev-r: ebs-gp3: 3000 IOPS on s1, s2", "mkfs": mkfs, "fio": fio}


def test_the_section_has_the_ratios_the_commit_the_vm_and_the_load(bench, tmp_path):
    out = tmp_path / "benchmarks.md"
    out.write_text("# Benchmarks\n\nabove\n")
    bench.render(_results(), str(out))
    text = out.read_text()
    assert text.startswith("# Benchmarks\n\nabove\n\n" + bench.BEGIN)
    assert "at commit **abc1234**" in text and "`dev-t`" in text and "software emulation (TCG)" in text
    assert "host load (1-minute average, around each pair) 1.0 to 2.0, median 1.5" in text
    assert "| wall time, s: median (min-max) | 2.00 (2.00-2.00) | 1.00 (1.00-1.00) | **0.50x (0.50x-0.50x)** |" in text
    assert "| GiB discarded on the members per mkfs | 2.00 | 0.00 | |" in text
    assert "| sequential 4 KiB reads, QD 32, submitted 16 at a time | 2000 (2000-2000) | 1000 (1000-1000) | " \
           "**0.50x (0.50x-0.50x)** | 0 % / 0 % | 900 / 0 |" in text
    assert "| 4.0 KiB / 4.0 KiB | 700 / 1400 | 100 us / 100 us |" in text
    assert "the disk model `ebs-gp3: 3000 IOPS` live" in text
    assert "fio-3.33, mkfs.xfs version 6.1.0, mdadm v4.2." in text
    assert "members throttled: `ebs-gp3` | 900 (900-900) | 300 (300-300) | **0.33x (0.33x-0.33x)**" in text
    # rendered again: the section is replaced, not added twice, and what is around it stays
    out.write_text(text + "\nbelow\n")
    bench.render(_results(), str(out))
    again = out.read_text()
    assert again.count(bench.BEGIN) == 1 and again.endswith("\nbelow\n") and "above" in again


def test_qemu_merge_counters_are_found_by_the_disks_serial(bench):
    assert bench.qdev_serial("/machine/peripheral/volb84889a34608a68cc/virtio-backend") == "volb84889a34608a68cc"
    assert bench.qdev_serial("/machine/peripheral-anon/device[2]/virtio-backend") == "device[2]"
    assert bench.qdev_serial("") is None and bench.qdev_serial(None) is None
