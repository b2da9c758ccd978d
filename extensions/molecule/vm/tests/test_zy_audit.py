# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet audit (issue 14) on the tuned lab VM: it audits ``ok``, with one SSH command per host.

- The tuned host audits ``ok`` (no item), changed=0 on the host, and the files the audit reads have the
  same checksums afterwards.
- With pipelining, the whole audit of a host is one SSH command (counted in the ``-vvv`` output: the one
  module call; planning, comparing and the reports happen on the controller), two when the plan names
  members by cloud identity (the NVMe runs: storage_preflight resolves the selectors first).

The drift half of the issue's test (``blockdev --setra 4096`` on the array, the rules file removed, a stale
ARRAY line and a detached member, all named in one audit that exits non-zero) runs in
test_zz_degraded_boot.py, between its hot-unplug of a member and its reboot: a RAID0 that lost a member
is failed by the kernel and unmounted by systemd, which no later test could start from.
"""
import re

import pytest

from conftest import AUDIT_CHECKSUMS, AUDIT_RULES, audit_host_changes, run_audit


# runs on every entry of the vm matrix: the virtio entry audits a plan of paths, the nvme entry one of member
# selectors (test_one_ssh_command_per_host counts the calls of each). One audit run for both tests: with -vvv on
# stderr and the JSON report on stdout (conftest.run_audit); an audit reads the initramfs that boots next, minutes
# under emulation with dracut's lsinitrd.
@pytest.fixture(scope="module")
def audited(host, subrun, tmp_path_factory):
    before = host.run(AUDIT_CHECKSUMS).stdout
    assert "/etc/fstab" in before and AUDIT_RULES in before, before
    rc, out, doc, tasks = run_audit(subrun, tmp_path_factory.mktemp("audit"), verbose=True)
    return {"before": before, "after": host.run(AUDIT_CHECKSUMS).stdout, "rc": rc, "out": out, "doc": doc,
            "tasks": tasks}


def test_tuned_host_audits_ok(audited):
    assert audited["rc"] == 0, audited["out"][-3000:]
    doc = audited["doc"]
    entry = doc["hosts"][0]
    assert doc["schema_version"] == 1 and doc["counts"]["ok"] == 1, entry
    assert entry["verdict"] == "ok" and entry["items"] == [], entry
    # the cassandra profile's performance governor (issue 27): the qemu guest has no cpufreq, so the audit names it as
    # not offered, a note beside an ok verdict, not drift
    assert any(n.startswith("cpu_governor performance: not offered by this host") for n in entry["notes"]), entry
    assert entry["arrays"][0]["state"] == "active"
    assert audited["tasks"] and audit_host_changes(audited["tasks"]) == []
    assert audited["after"] == audited["before"]


def test_the_audit_shows_the_original_state_not_as_drift(audited):
    """Recorded by the first run (test_zxa_restore.py checks its content); read in the same one call."""
    doc = audited["doc"]
    entry = doc["hosts"][0]
    held = entry["original_state"]
    assert held["recorded"] is True and held["error"] is None, held
    assert held["path"] == "/var/lib/iotune-storage/original-state.json"
    assert held["version"] and re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", held["recorded_at"]), held
    assert held["counts"]["devices"] >= 1 and held["counts"]["sysctl"] >= 1 and held["counts"]["thp"] == 3, held
    # the rules file, the sysctl file, the THP unit and the CPU governor and clocksource unit (issue 27)
    assert held["counts"]["files"] == 4, held
    assert doc["original_state"] == {"recorded": [entry["host"]], "none": [], "unreadable": []}
    assert entry["verdict"] == "ok" and not [n for n in entry["notes"] if n.startswith("original state")]


def test_one_ssh_command_per_host(host, subrun, audited):
    selectors = host.ansible.get_variables()["lab_disks"][0]["bus"] == "nvme"   # group_vars/all.yml
    out = audited["out"]
    assert audited["rc"] == 0, out[-3000:]
    execs = len(re.findall(r"SSH: EXEC ssh ", out))
    print("audit: %d ssh command(s) for host %s (selectors: %s)" % (execs, subrun.hostname, selectors))
    assert execs == (2 if selectors else 1), out[-5000:]
    modules = re.findall(r"Using module file \S+/(storage_\w+)\.py", out)
    assert modules == (["storage_preflight", "storage_audit"] if selectors else ["storage_audit"]), modules
