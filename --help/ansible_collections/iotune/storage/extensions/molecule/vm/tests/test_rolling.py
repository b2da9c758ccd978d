# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Rolling a cluster (issue 28, docs/rolling.md): the tune playbook with serial 1 over two lab VMs, each running a
database stand-in, with a health gate and a restart policy.

The scenario's VM is the first host (`a`, converged: array `data`); a second VM, booted here with two blank disks,
is the second (`b`: no array, a readahead on one of its disks, the cassandra profile's kernel settings). On each,
the stand-in `iotune-gate-standin` listens on a TCP port and answers a health command from a state file
(/var/lib/iotune-gate-standin/state: `healthy`, else not); each start is logged (`starts`), and with `fail-on-restart`
it comes back degraded. The gate: the port and the command. The policy: the stand-in as a MongoDB (a THP change
needs its restart, a readahead change does not).

1. a healthy rollout with a readahead changed by hand on both hosts: both repaired, both gates passed before and
   after each batch, no stand-in restarted;
2. a THP value changed by hand on both: each stand-in restarted exactly once, after its own host's change;
3. the same with the second host's stand-in coming back degraded: the run stops at the gate after `b`'s change and
   names `b` and the failed check;
4. a degraded cluster (`b` unhealthy) before the first batch: the run stops at the first gate and nothing is changed
   on either host (readahead set by hand stays, no restart);
5. `--check` of a THP change: "would restart", nothing changed;
6. `restart: never` and a THP change: no stand-in restarted, the restart owed on record on both hosts, the audit of
   `a` reports it (area restart) until the stand-in is restarted by hand, then reports nothing.
"""
from __future__ import annotations

import json
import os
import subprocess

import pytest
import yaml

from conftest import LAB, REPO, VM, failure_messages, run_audit

# Opt-in (make molecule-vm-rolling) until make test has room for its second VM (about 7 minutes on the development
# machine; docs/testing.md): IOTUNE_VM_ROLLING=1.
pytestmark = [pytest.mark.any_entry(1),
              pytest.mark.skipif(not os.environ.get("IOTUNE_VM_ROLLING"),
                                 reason="opt-in: IOTUNE_VM_ROLLING=1 (make molecule-vm-rolling)")]

B = (VM[:27] + "-b")
STATE = "/var/lib/iotune-gate-standin"
UNIT = "iotune-gate-standin"
PORT = 7199
STANDIN = r"""#!/usr/bin/python3
# a database stand-in for test_rolling.py: accepts TCP connections on 127.0.0.1:%d
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", %d))
s.listen(16)
while True:
    s.accept()[0].close()
""" % (PORT, PORT)
HEALTH = """#!/bin/sh
# the stand-in's health command: healthy when its state file says so
state=$(cat %s/state 2>/dev/null)
echo "$state"
[ "$state" = healthy ]
""" % STATE
SERVICE = """[Unit]
Description=iotune gate stand-in (test_rolling.py)
[Service]
ExecStartPre=/bin/sh -c 'mkdir -p %s; date +%%%%s.%%%%N >> %s/starts; [ -e %s/fail-on-restart ] && echo degraded > %s/state || true'
ExecStart=/usr/local/bin/iotune-gate-standin
[Install]
WantedBy=multi-user.target
""" % (STATE, STATE, STATE, STATE)
GATE = {"tcp_ports": [PORT], "command": {"argv": ["/usr/local/bin/iotune-gate-standin-health"],
                                         "stdout_regex": "^healthy$"},
        "retries": 2, "delay": 2, "timeout": 10}
POLICY = {"services": [{"unit": UNIT, "kind": "mongodb"}]}
THP_DEFRAG = "/sys/kernel/mm/transparent_hugepage/defrag"


def ssh(vm, *cmd, check=True, timeout=300):
    proc = subprocess.run([LAB, "ssh", vm, "--", *cmd], capture_output=True, text=True, timeout=timeout, check=False)
    if check and proc.returncode != 0:
        raise AssertionError("%s on %s failed (%d): %s %s" % (cmd, vm, proc.returncode, proc.stdout, proc.stderr))
    return proc.stdout.strip()


def install_standin(vm):
    files = {"/usr/local/bin/iotune-gate-standin": STANDIN, "/usr/local/bin/iotune-gate-standin-health": HEALTH,
             "/etc/systemd/system/%s.service" % UNIT: SERVICE}
    script = ["set -e", "mkdir -p %s" % STATE, "echo healthy > %s/state" % STATE, ": > %s/starts" % STATE]
    for path, text in files.items():
        script.append("cat > %s <<'IOTUNE_EOF'\n%sIOTUNE_EOF" % (path, text))
    script += ["chmod 0755 /usr/local/bin/iotune-gate-standin /usr/local/bin/iotune-gate-standin-health",
               "systemctl daemon-reload", "systemctl enable --now %s" % UNIT]
    subprocess.run([LAB, "ssh", vm, "--", "bash", "-s"], input="\n".join(script), text=True, check=True,
                   capture_output=True, timeout=300)


def starts(vm):
    return len(ssh(vm, "cat", "%s/starts" % STATE).splitlines())


def lab_host(vm):
    with open(os.path.join(REPO, ".lab", vm, "inventory.yml"), encoding="utf-8") as f:
        return yaml.safe_load(f)["all"]["hosts"][vm]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, subrun):
    """The two hosts, their stand-ins, and an inventory of the two (group `db`); the second VM goes at the end."""
    # Debian 12 whatever the entry: its initramfs rebuild (the raid0 stage installs mdadm and xfsprogs on a host
    # without arrays too) takes a minute, dracut's five under emulation
    env = dict(os.environ, IOTUNE_LAB_RELEASE="bookworm", IOTUNE_LAB_INITRAMFS="initramfs-tools",
               IOTUNE_LAB_DISK_BUS="virtio")
    subprocess.run([LAB, "up", "--name", B, "--disks", "2", "--cpus", "1"], env=env, check=True, capture_output=True,
                   timeout=1200)
    try:
        for vm in (VM, B):
            install_standin(vm)
        b_disk = lab_host(B)["lab_disks"][0]
        hosts = {
            "a": dict(lab_host(VM)),
            "b": dict(lab_host(B), iotune_arrays=[],
                      iotune_block_tuning_extra_devices=[{"serial": b_disk["serial"], "read_ahead_kb": 64}]),
        }
        for host in hosts.values():
            host.update(iotune_health_gate=GATE, iotune_restart_policy=POLICY)
        inventory = tmp_path_factory.mktemp("rolling") / "rolling.yml"
        inventory.write_text(json.dumps({"all": {"children": {"db": {"hosts": hosts}}}}))
        found = {"inventory": str(inventory), "b_disk": os.path.basename(
            ssh(B, "readlink", "-f", b_disk["by_id"])), "a_md": ssh(VM, "basename $(readlink -f /dev/md/data)")}
        rc, out, dummy = rollout(subrun, found)                      # b's first converge (a is converged)
        assert rc == 0, out[-4000:]
        yield found
    finally:
        ssh(VM, "systemctl disable --now %s; rm -rf %s /etc/systemd/system/%s.service; systemctl daemon-reload"
            % (UNIT, STATE, UNIT), check=False)
        subprocess.run([LAB, "down", B], check=False, capture_output=True, timeout=300)


def rollout(subrun, cluster, check=False, extra=None):
    argv = ["ansible-playbook", "iotune.storage.tune", "-i", os.path.join(os.path.dirname(__file__), "..", "inventory"),
            "-i", cluster["inventory"], "--limit", "db",
            "-e", json.dumps(dict(extra or {}, iotune_serial=1, iotune_hosts="db"))]
    if check:
        argv += ["--check", "--diff"]
    env = dict(subrun.env, ANSIBLE_STDOUT_CALLBACK="ansible.posix.json")
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800, check=False)
    start = proc.stdout.find("{")
    assert start >= 0, proc.stdout + proc.stderr
    return proc.returncode, proc.stdout + proc.stderr, json.loads(proc.stdout[start:])


def task_results(report, name):
    """[(host, result)] of every task whose name ends with ``name``, in the order they ran (batches in order)."""
    return [(host, result) for play in report["plays"] for t in play["tasks"] if t["task"]["name"].endswith(name)
            for host, result in t["hosts"].items()]


def readahead(vm, dev):
    return int(ssh(vm, "cat", "/sys/block/%s/queue/read_ahead_kb" % dev))


def gates(report):
    """(moment, gated host, healthy) of every gate item that ran, in order."""
    found = []
    for when in ("before", "after"):
        for dummy, result in task_results(report, "Health gate of the cluster %s this batch %s (iotune_health_gate)"
                                          % (when, "is changed" if when == "before" else "was changed")):
            for item in result.get("results", []):
                if not item.get("skipped"):
                    found.append((when, item["tune_gate_host"], item.get("healthy", False)))
    return found


def test_a_healthy_rollout_repairs_readahead_on_both_and_restarts_nothing(subrun, cluster):
    a_ra, b_ra = readahead(VM, cluster["a_md"]), readahead(B, cluster["b_disk"])
    ssh(VM, "echo 4096 > /sys/block/%s/queue/read_ahead_kb" % cluster["a_md"])
    ssh(B, "echo 4096 > /sys/block/%s/queue/read_ahead_kb" % cluster["b_disk"])
    before = (starts(VM), starts(B))
    rc, out, report = rollout(subrun, cluster)
    assert rc == 0, out[-4000:]
    assert (readahead(VM, cluster["a_md"]), readahead(B, cluster["b_disk"])) == (a_ra, b_ra)
    assert (starts(VM), starts(B)) == before                          # readahead is live: no restart
    # serial 1: two batches, each with the gate of both hosts before its change and after it
    assert gates(report) == [(w, h, True) for w in ("before", "after") for h in "ab"] * 2 or \
        gates(report) == [("before", h, True) for h in "ab"] * 2 + [("after", h, True) for h in "ab"] * 2, \
        gates(report)
    lines = [line for dummy, r in task_results(report, "Restarts (what changed and what it needed)")
             for line in r.get("msg", [])]
    assert any(line.startswith("no restart for: readahead") for line in lines), lines


def test_a_thp_change_restarts_each_standin_exactly_once(subrun, cluster):
    wanted = {vm: ssh(vm, "cat", THP_DEFRAG) for vm in (VM, B)}
    for vm in (VM, B):
        ssh(vm, "echo always > %s" % THP_DEFRAG)
    before = (starts(VM), starts(B))
    rc, out, report = rollout(subrun, cluster)
    assert rc == 0, out[-4000:]
    assert (starts(VM), starts(B)) == (before[0] + 1, before[1] + 1), out[-4000:]
    assert {vm: ssh(vm, "cat", THP_DEFRAG) for vm in (VM, B)} == wanted
    restarted = [host for host, r in task_results(report, "Restart the services whose change needs it")
                 for item in r.get("results", []) if item.get("changed")]
    assert restarted == ["a", "b"], restarted                          # in the order of the batches


def test_a_degraded_second_host_after_its_change_stops_the_rollout_there(subrun, cluster):
    for vm in (VM, B):
        ssh(vm, "echo always > %s" % THP_DEFRAG)
    ssh(B, "touch %s/fail-on-restart" % STATE)
    before_b = starts(B)
    try:
        rc, out, report = rollout(subrun, cluster)
        assert rc != 0, out[-4000:]
        failed = failure_messages(report, "a") + failure_messages(report, "b")
        assert failed and all("(iotune_health_gate)" in line for line in failed), failed
        assert "health gate failed on b after the change" in "\n".join(failed), failed
        assert "command /usr/local/bin/iotune-gate-standin-health: exit status 1 (expected 0): degraded" in \
            "\n".join(failed), failed
        assert starts(B) == before_b + 1                                 # b was changed and restarted, then stopped
    finally:
        ssh(B, "rm -f %s/fail-on-restart; echo healthy > %s/state" % (STATE, STATE))


def test_a_degraded_cluster_changes_nothing_anywhere(subrun, cluster):
    ssh(VM, "echo 4096 > /sys/block/%s/queue/read_ahead_kb" % cluster["a_md"])
    ssh(B, "echo 4096 > /sys/block/%s/queue/read_ahead_kb" % cluster["b_disk"])
    ssh(B, "echo degraded > %s/state" % STATE)
    before = (starts(VM), starts(B))
    try:
        rc, out, report = rollout(subrun, cluster)
        assert rc != 0, out[-4000:]
        failed = "\n".join(failure_messages(report, "a"))
        assert "health gate failed on b before the change" in failed, out[-4000:]
        assert (readahead(VM, cluster["a_md"]), readahead(B, cluster["b_disk"])) == (4096, 4096)
        assert (starts(VM), starts(B)) == before
        assert not [t for dummy, t in task_results(report, "Persist and apply scheduler and readahead")]
        assert sum(s.get("changed", 0) for s in report["stats"].values()) == 0, report["stats"]
    finally:
        ssh(B, "echo healthy > %s/state" % STATE)


def test_check_mode_says_what_would_restart_and_changes_nothing(subrun, cluster):
    for vm in (VM, B):
        ssh(vm, "echo always > %s" % THP_DEFRAG)
    before = (starts(VM), starts(B))
    rc, out, report = rollout(subrun, cluster, check=True)
    assert rc == 0, out[-4000:]
    lines = [line for dummy, r in task_results(report, "Restarts (what changed and what it needed)")
             for line in r.get("msg", [])]
    assert [line for line in lines if line.startswith("%s.service: would restart" % UNIT)], lines
    assert (starts(VM), starts(B)) == before
    assert {ssh(vm, "cat", THP_DEFRAG) for vm in (VM, B)} == {"[always] defer defer+madvise madvise never"}  # as set
    rc, out, report = rollout(subrun, cluster)                        # and back to the profile's, for what follows
    assert rc == 0, out[-4000:]


RECORD = "/var/lib/iotune-storage/pending-restarts.json"


def restart_items(subrun, report_dir):
    rc, out, doc, dummy = run_audit(subrun, report_dir)
    assert rc == 0, out[-3000:]
    return [i for i in doc["hosts"][0]["items"] if i["area"] == "restart"]


def test_restart_never_keeps_the_restart_owed_on_record_until_it_is_done(subrun, cluster, tmp_path):
    for vm in (VM, B):
        ssh(vm, "echo always > %s" % THP_DEFRAG)
    before = (starts(VM), starts(B))
    rc, out, report = rollout(subrun, cluster, extra={"iotune_restart_policy": dict(POLICY, restart="never")})
    assert rc == 0, out[-4000:]
    assert (starts(VM), starts(B)) == before                          # never: nothing restarted
    for vm in (VM, B):
        record = json.loads(ssh(vm, "cat", RECORD))
        assert [e["unit"] for e in record["pending"]] == ["%s.service" % UNIT], record
        assert record["pending"][0]["invocation_id"] == ssh(vm, "systemctl show -p InvocationID --value", UNIT)
        assert ssh(vm, "stat -c %a", RECORD) == "600"
    items = restart_items(subrun, tmp_path / "owed")
    assert [i["subject"] for i in items] == ["%s.service" % UNIT], items
    assert "restart pending since" in items[0]["message"] and "thp" in items[0]["message"], items
    # negative control: restarted by hand (another invocation), the audit reports nothing, the file still holds it
    ssh(VM, "systemctl restart", UNIT)
    assert restart_items(subrun, tmp_path / "done") == []
    assert json.loads(ssh(VM, "cat", RECORD))["pending"], "the record is judged by its readers, not rewritten"
