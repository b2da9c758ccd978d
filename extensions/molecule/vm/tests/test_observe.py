# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Proof on a serving host (issue 26, docs/observe.md): `tune` with `iotune_observe_seconds` watches the kernel's own
read counters for a window before the block tuning and the same window after it, while the database keeps serving.

The database is a stand-in: a transient unit that runs short fio jobs back to back, 4 KiB random reads through mmap
at a fixed rate over one file of the array's filesystem (each job opens the file anew and drops its cached pages
first, as a database opens new files: a file keeps the readahead it was opened with; the file is written with zeros
first, since an unwritten extent reads without any device I/O). Then:

1. the array's readahead put back by hand to md's default (what the kernel sets when the array starts), a tune of
   the tuning stage (`--tags iotune_tuning,iotune_facts`) with a 30 s window (issue 26): `observe.json` has `before` and
   `after`, device read bytes per major fault at least 10x lower after, verdict `improved`, and the stand-in ran
   all along (same invocation, never restarted);
2. negative control: `--tags iotune_observe` alone, nothing tuned between the windows: a ratio near 1, verdict
   `no change`;
3. the audit with a window: md's default readahead put back by hand is `readahead wasting reads` (docs/audit.md), and
   the profile's readahead under the same reads is `no waste seen` (its negative control);
4. the stand-in stopped, an idle host: `too little I/O`, never a pass;
5. a unit that does not run (`iotune_observe_unit`) is refused by the preflight with the rest of the input, before
   any change: a case of test_bad_input.py (its refusals run side by side in one ansible-playbook run).
"""
import json
import os
import tempfile

import pytest

from conftest import lab_ssh, run_audit

pytestmark = pytest.mark.any_entry(0)

MOUNTPOINT = "/var/lib/cassandra"        # the scenario's array `data` (inventory/group_vars/all.yml)
LOAD = "iotune-observe-load"
DATA = MOUNTPOINT + "/iotune-observe.dat"
# One fio process runs the jobs one after the other (stonewall), 150 reads a second each: a new fio process every 3 s,
# at 300 a second, kept the guest's single vCPU about as busy as the runs it served (2.5 s of CPU per 3 s job; one
# process at 150 a second: 1.5 s with md's readahead, 0.7 s with the profile's, still 250-450 major faults a job).
JOBS = 100
JOB_FILE = "/run/iotune-observe-load.fio"
JOB = ("[global]\\nfilename=%s\\nsize=384m\\nrw=randread\\nbs=4k\\nioengine=mmap\\nfadvise_hint=0\\ninvalidate=1\\n"
       "time_based=1\\nruntime=3\\nrate_iops=150\\nstonewall\\n" % DATA) + "".join("[load%d]\\n" % i for i in range(JOBS))


def array_device():
    return lab_ssh("basename $(readlink -f /dev/md/data)").stdout.strip()


def md_default_kb(md):
    """What md sets when the array starts: max(2 x optimal_io_size, 128 KiB)."""
    io_opt = int(lab_ssh("cat", "/sys/block/%s/queue/optimal_io_size" % md).stdout)
    return max(2 * io_opt // 1024, 128)


def load_state():
    out = lab_ssh("systemctl", "show", "-p", "ActiveState,InvocationID,NRestarts,ExecMainStartTimestampMonotonic",
                  LOAD + ".service", check=False).stdout
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def observe(subrun, extra, tags=None):
    with tempfile.TemporaryDirectory(prefix="iotune-observe-") as reports:
        extra = dict(extra, iotune_report_dir=reports)
        rc, out, report = subrun.run(extra, tags=tags)
        assert rc == 0, out[-5000:]
        with open(os.path.join(reports, subrun.hostname, "observe.json"), encoding="utf-8") as f:
            return json.load(f), report


@pytest.fixture(scope="module")
def serving():
    """The stand-in reading its file, for the whole module; removed with its file afterwards."""
    # one command line each: ssh hands the remote shell its arguments joined by spaces
    # written data (a preallocated, unwritten extent reads as zeros without any device I/O)
    lab_ssh("dd if=/dev/zero of=%s bs=1M count=384 conv=fsync status=none" % DATA, timeout=600)
    # each job starts cold: the file's pages dropped first (no process maps it between two jobs)
    lab_ssh("printf '%s' > %s" % (JOB, JOB_FILE))
    lab_ssh("systemd-run --unit %s --collect sh -c 'while :; do dd if=%s iflag=nocache count=0 status=none; "
            "fio --output=/dev/null %s; done'" % (LOAD, DATA, JOB_FILE))
    try:
        yield load_state()
    finally:
        lab_ssh("systemctl", "stop", LOAD + ".service", check=False)
        lab_ssh("rm", "-f", DATA, JOB_FILE, check=False)


def test_tune_reports_the_readahead_change_while_the_database_serves(serving, subrun):
    md = array_device()
    tuned_kb = lab_ssh("cat", "/sys/block/%s/queue/read_ahead_kb" % md).stdout.strip()
    default_kb = md_default_kb(md)
    assert int(tuned_kb) < default_kb, (tuned_kb, default_kb)
    lab_ssh("echo %d > /sys/block/%s/queue/read_ahead_kb" % (default_kb, md))
    # the tuning stage (which repairs the readahead) with its two windows, and the summary
    observed, report = observe(subrun, {"iotune_observe_seconds": 30}, tags="iotune_tuning,iotune_facts")
    print(json.dumps(observed["comparison"], indent=1))
    assert lab_ssh("cat", "/sys/block/%s/queue/read_ahead_kb" % md).stdout.strip() == tuned_kb
    assert observed["before"]["verdict"] == "measured" and observed["after"]["verdict"] == "measured", observed
    per_fault = observed["comparison"]["bytes_per_major_fault"]
    assert per_fault["ratio"] >= 10, observed["comparison"]
    assert observed["comparison"]["verdict"] == "improved"
    assert md in observed["before"]["host"]["devices"], observed["before"]["host"]
    summary = "\n".join(line for t in subrun.tasks(report, "Summary") for line in t["msg"])
    assert "observed reads" in summary and "less" in summary, summary
    # the database served all along: the same invocation, never restarted, still running
    assert load_state() == dict(serving), (load_state(), serving)


def test_nothing_tuned_between_the_windows_says_no_change(serving, subrun):
    observed, dummy = observe(subrun, {"iotune_observe_seconds": 10}, tags="iotune_observe")
    print(json.dumps(observed["comparison"], indent=1))
    assert observed["comparison"]["verdict"] == "no change", observed["comparison"]
    assert 0.5 < observed["comparison"]["bytes_per_major_fault"]["ratio"] < 2
    assert load_state() == dict(serving)


def test_the_audit_flags_readahead_wasting_reads(serving, subrun, tmp_path):
    """The audit's window (docs/audit.md): md's default readahead under the random reads is flagged whatever the
    profile says. Negative control: the profile's own readahead under the same reads, the same window, is "no waste
    seen" with no observed item (the rule's other cases are unit tests of plugin_utils/observe.waste)."""
    md = array_device()
    tuned_kb = lab_ssh("cat", "/sys/block/%s/queue/read_ahead_kb" % md).stdout.strip()
    lab_ssh("echo %d > /sys/block/%s/queue/read_ahead_kb" % (md_default_kb(md), md))
    try:
        rc, out, doc, dummy = run_audit(subrun, tmp_path / "default", extra_vars={"iotune_observe_seconds": 10})
    finally:
        lab_ssh("echo %s > /sys/block/%s/queue/read_ahead_kb" % (tuned_kb, md))
    assert rc == 0, out[-3000:]
    wasting = doc["hosts"][0]
    print(json.dumps(wasting["observed"]["host"], indent=1))
    assert wasting["observed"]["status"] == "readahead wasting reads", wasting["observed"]
    assert any(i["area"] == "observed" and i["message"].startswith("readahead wasting reads: ")
               for i in wasting["items"]), wasting["items"]
    rc, out, doc, dummy = run_audit(subrun, tmp_path / "tuned", extra_vars={"iotune_observe_seconds": 10})
    assert rc == 0, out[-3000:]
    tuned = doc["hosts"][0]
    print(json.dumps(tuned["observed"]["host"], indent=1))
    assert tuned["observed"]["status"] == "no waste seen", tuned["observed"]
    assert not [i for i in tuned["items"] if i["area"] == "observed"], tuned["items"]
    assert load_state() == dict(serving)


def test_an_idle_host_is_too_little_io_not_a_pass(serving, subrun):
    lab_ssh("systemctl", "stop", LOAD + ".service")
    observed, dummy = observe(subrun, {"iotune_observe_seconds": 8}, tags="iotune_observe")
    print(json.dumps(observed["comparison"], indent=1))
    assert observed["comparison"]["verdict"] == "too little I/O", observed["comparison"]
    assert observed["before"]["verdict"] == "too little I/O to judge"
