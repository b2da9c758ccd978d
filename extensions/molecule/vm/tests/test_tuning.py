# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""block_tuning in the lab VM: udev rules, live values, md re-assembly, reboot, profile switch, bad input.

Runs after converge of iotune.storage.tune with the cassandra profile (array `data` on lab_disks[0:4],
chunk 256 KiB, XFS at /var/lib/cassandra) and after the scenario's side_effect reboot. Disks are
picked from the host variable `lab_disks`, never by /dev/vdX name. Playbook runs are driven as
subprocesses with the scenario's inventories and are limited to the `tuning` tag.
"""
import os

import pytest

MOUNTPOINT = "/var/lib/cassandra"
RULES = "/etc/udev/rules.d/66-iotune-storage.rules"
CASSANDRA_KB = 8          # roles/profile/vars/profiles/cassandra.yml: array and members
STREAMING_MD_KB = 4096    # streaming.yml: array
STREAMING_MEMBER_KB = 1024
CHUNK_KB = 256
TUNING_TASK = "Render, apply and verify the udev rules"
# the profile files the collection ships (the plan names them in its refusal of an unknown profile)
PROFILE_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "roles", "profile", "vars", "profiles")
SHIPPED_PROFILES = sorted(f[:-4] for f in os.listdir(PROFILE_DIR) if f.endswith(".yml"))
# the device class of the lab's data disks: create.yml boots them on IOTUNE_LAB_DISK_BUS (virtio or nvme)
DISK_CLASS = "nvme" if os.environ.get("IOTUNE_LAB_DISK_BUS") == "nvme" else "virtual"
# streaming.yml's scheduler_by_class: none for nvme, mq-deadline for virtual disks
STREAMING_SCHEDULER = "none" if DISK_CLASS == "nvme" else "mq-deadline"

# ----------------------------------------------------------------------------------------------
# helpers


def _read(host, path):
    return host.file(path).content_string.strip()


def _scheduler(host, name):
    raw = _read(host, "/sys/block/%s/queue/scheduler" % name).split()
    current = [s[1:-1] for s in raw if s.startswith("[")]
    return current[0] if current else None


def _kname(host, path):
    return os.path.basename(host.check_output("readlink -f %s" % path))


@pytest.fixture(scope="module")
def lab_disks(host):
    disks = host.ansible.get_variables()["lab_disks"]
    assert len(disks) >= 4, "the scenario needs at least 4 lab disks"
    return disks[0:4]


@pytest.fixture(scope="module")
def md(host):
    assert host.file("/dev/md/data").exists, "/dev/md/data missing: converge did not build the array"
    return _kname(host, "/dev/md/data")


@pytest.fixture(scope="module")
def members(host, lab_disks):
    return dict((d["serial"], _kname(host, d["by_id"])) for d in lab_disks)


def _assert_profile_values(host, md, members, md_kb, member_kb, member_sched):
    assert _read(host, "/sys/block/%s/queue/read_ahead_kb" % md) == str(md_kb), md
    for serial, name in members.items():
        assert _read(host, "/sys/block/%s/queue/read_ahead_kb" % name) == str(member_kb), (serial, name)
        assert _scheduler(host, name) == member_sched, (serial, name)


class Playbook(object):
    """iotune.storage.tune limited to the `tuning` tag, without verification (conftest.SubRun underneath)."""

    def __init__(self, subrun):
        self.subrun = subrun

    def run(self, extra_vars, json_output=True):
        return self.subrun.run(dict({"iotune_verify": False}, **extra_vars), tags="tuning", json_output=json_output)

    def task_result(self, report, task_name):
        results = self.subrun.tasks(report, task_name)
        assert results, "task %r not in the report" % task_name
        return results[0]

    def changed(self, report):
        return self.subrun.changed(report)


@pytest.fixture(scope="module")
def playbook(subrun):
    return Playbook(subrun)


# ----------------------------------------------------------------------------------------------
# after converge (and the side_effect reboot)


def test_rules_file(host, lab_disks):
    rules = host.file(RULES)
    assert rules.exists and rules.user == "root" and rules.mode == 0o644
    text = rules.content_string
    lines = text.splitlines()
    assert "Managed by Ansible" in text
    assert 'KERNEL=="md*", TEST!="md/array_state", GOTO="iotune_storage_end"' in lines
    assert 'KERNEL=="md*", ATTR{md/array_state}=="clear*|inactive", GOTO="iotune_storage_end"' in lines
    # the array's readahead, and its nomerges since issue 27 (the cassandra profile's array.queue)
    md_rules = ['ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", KERNEL=="md*", '
                'ENV{MD_NAME}=="data|*:data", TEST=="queue/%s", ATTR{queue/%s}="%s"' % (attr, attr, value)
                for attr, value in (("read_ahead_kb", CASSANDRA_KB), ("nomerges", 2))]
    assert [line for line in lines if 'ENV{MD_NAME}=="data|*:data"' in line] == md_rules
    for disk in lab_disks:
        mine = [line for line in lines if '"%s"' % disk["serial"] in line]
        assert any(line.endswith('ATTR{queue/scheduler}="none"') for line in mine), disk
        assert any(line.endswith('ATTR{queue/read_ahead_kb}="%d"' % CASSANDRA_KB) for line in mine), disk
        assert all('ENV{DEVTYPE}=="disk"' in line and 'ENV{ID_SERIAL}==' not in line for line in mine)
    # no kernel names of data disks: they change between boots
    assert "KERNEL==\"vd" not in text and "KERNEL==\"md1" not in text


def test_live_values_match_profile(host, md, members):
    _assert_profile_values(host, md, members, CASSANDRA_KB, CASSANDRA_KB, "none")


def test_md_readahead_is_not_the_kernel_default(host, md):
    # md would compute max(2 x chunk x disks, 128 KiB) = 2048 KiB for 4 x 256 KiB
    io_opt = int(_read(host, "/sys/block/%s/queue/optimal_io_size" % md))
    assert io_opt == CHUNK_KB * 1024 * 4
    assert int(_read(host, "/sys/block/%s/queue/read_ahead_kb" % md)) == CASSANDRA_KB != 2 * io_opt // 1024


def test_values_came_back_after_reboot(host, md, members):
    """side_effect reboots the VM: values must have been re-applied by udev at boot."""
    probe = host.file("/var/tmp/iotune-probe/reboot.sha256")
    if not probe.exists:
        pytest.skip("side_effect (reboot) did not run")
    boot = float(host.check_output("awk '/^btime/ {print $2}' /proc/stat"))
    assert host.file(RULES).mtime.timestamp() < boot, "rules file written after the last boot"
    _assert_profile_values(host, md, members, CASSANDRA_KB, CASSANDRA_KB, "none")


def test_md_reassembly_reapplies_readahead(host, members):
    assert host.mount_point(MOUNTPOINT).exists
    host.check_output("umount %s" % MOUNTPOINT)
    try:
        host.check_output("mdadm --stop /dev/md/data")
        host.check_output("udevadm settle")
        assert not host.file("/dev/md/data").exists
        host.check_output("mdadm --assemble /dev/md/data %s" % " ".join("/dev/" + n for n in members.values()))
        host.check_output("udevadm settle")
        md = _kname(host, "/dev/md/data")
        assert _read(host, "/sys/block/%s/md/array_state" % md) in ("clean", "active", "readonly", "read-auto")
        _assert_profile_values(host, md, members, CASSANDRA_KB, CASSANDRA_KB, "none")
    finally:
        host.run("udevadm settle; mountpoint -q %s || mount %s" % (MOUNTPOINT, MOUNTPOINT))
    assert host.mount_point(MOUNTPOINT).exists


def test_switch_profile_streaming_to_cassandra(host, playbook, members):
    # streaming: new rules, one reload, all five devices triggered, new live values
    rc, out, report = playbook.run({"iotune_profile": "streaming"})
    assert rc == 0, out
    res = playbook.task_result(report, TUNING_TASK)
    assert res["changed"] and res["rules_changed"] and res["reloaded"]
    md = _kname(host, "/dev/md/data")
    assert sorted(res["triggered"]) == sorted([md] + list(members.values()))
    assert 'ATTR{queue/read_ahead_kb}="%d"' % STREAMING_MD_KB in host.file(RULES).content_string
    _assert_profile_values(host, md, members, STREAMING_MD_KB, STREAMING_MEMBER_KB, STREAMING_SCHEDULER)

    # back to cassandra: again exactly one rewrite/reload/trigger
    rc, out, report = playbook.run({"iotune_profile": "cassandra"})
    assert rc == 0, out
    res = playbook.task_result(report, TUNING_TASK)
    assert res["rules_changed"] and res["reloaded"]
    assert sorted(res["readahead_changed"]) == sorted([md] + list(members.values()))
    _assert_profile_values(host, md, members, CASSANDRA_KB, CASSANDRA_KB, "none")

    # and a second run changes nothing: no reload, no trigger; the stage found in sync by the preflight's read makes
    # no call at all (issue 31; on the nvme entry, members by EBS volume id, the second preflight call after the
    # re-plan reads it)
    rc, out, report = playbook.run({"iotune_profile": "cassandra"})
    assert rc == 0, out
    res = playbook.task_result(report, TUNING_TASK)
    decision = playbook.subrun.stage_decisions(report)["block_tuning"]
    assert res.get("skipped") and decision.startswith("udev_block_tuning skipped: in sync"), (res, decision)
    assert playbook.changed(report) == 0


# refused by the plan and the preflight before any change: the same on every entry (the entries' times balanced)
@pytest.mark.any_entry(0)
@pytest.mark.parametrize("extra_vars, message", [
    ({"iotune_profile_overrides": {"members": {"scheduler_by_class": {DISK_CLASS: "nosuch"}}}},
     "scheduler 'nosuch' is not offered by device"),
    ({"iotune_profile_overrides": {"members": {"scheduler_by_class": {DISK_CLASS: "noop"}}}},
     "scheduler 'noop' is a legacy single-queue scheduler"),
    ({"iotune_block_tuning_extra_devices": [{"md_name": "data", "read_ahead_kb": 8, "read_ahead_sectors": 16}]},
     "mutually exclusive"),
    ({"iotune_block_tuning_extra_devices": [{"serial": "no-such-serial", "read_ahead_kb": 8}]},
     "serial=no-such-serial: selector matches no block device"),
    ({"iotune_profile_overrides": {"array": {"read_ahead_kb": 2097152}}},
     "readahead 2097152 KiB is out of range"),
    ({"iotune_profile": "nosuch"},
     "iotune_profile 'nosuch' is unknown; known profiles: " + ", ".join(SHIPPED_PROFILES)),
])
def test_bad_input_fails_before_any_change(host, playbook, md, members, extra_vars, message):
    before = host.file(RULES).sha256sum
    rc, out, dummy = playbook.run(extra_vars, json_output=False)
    assert rc != 0, out
    assert message in out, out
    assert "changed=0" in out
    assert host.file(RULES).sha256sum == before
    _assert_profile_values(host, md, members, CASSANDRA_KB, CASSANDRA_KB, "none")
