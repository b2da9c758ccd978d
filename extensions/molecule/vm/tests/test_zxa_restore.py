# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The host's original state and the way back (issue 29, docs/tune.md "Changing your mind").

prepare.yml set by hand, before the first run: readahead 512 KiB on the first data disk, vm.swappiness 30, THP
enabled always. The first run (the crash chain's first, before its first change) recorded them; every run since (the
crashed ones, the converge, test_tuning.py's switch of profile and back) left the snapshot as it was. Then:

1. ``iotune_restore`` in check mode predicts the restore and changes nothing;
2. the restore puts those three values back live, without a reboot, removes the collection's rules, sysctl and THP
   files and leaves the array, its filesystem (a file's checksum), its fstab line and its mount hold as they were;
   (with it, the readahead of a disk first planned after the snapshot, which the run that planned it recorded in the
   additions file before it tuned it);
3. a second restore changes nothing;
4. a tune run afterwards tunes the host again (the tests after this one start from the converged host).

One entry (Debian 13, NVMe members chosen by EBS volume id: the snapshot keys them by identity, not kernel name).
"""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.any_entry(1)

SNAPSHOT = "/var/lib/iotune-storage/original-state.json"
RULES_FILE = "/etc/udev/rules.d/66-iotune-storage.rules"
SYSCTL_FILE = "/etc/sysctl.d/90-iotune-storage.conf"
THP_UNIT = "iotune-storage-thp.service"
CPU_UNIT = "iotune-storage-cpu-clock.service"
MOUNTPOINT = "/var/lib/cassandra"
THP_ENABLED = "/sys/kernel/mm/transparent_hugepage/enabled"
# the profile's limits drop-ins of the lab's two services (group_vars/all.yml: services cassandra, iotune-standin)
LIMITS = "/etc/systemd/system/%s.d/iotune-storage-limits.conf"
LIMITS_UNITS = ("cassandra.service", "iotune-standin.service")
ENABLED = ("enabled", "enabled-runtime")
ADDITIONS = "/var/lib/iotune-storage/original-state-additions.json"
# a spare disk (prepare_refusals.yml's content on it: tuning its queue never writes to it), planned only by the run
# of test_a_disk_planned_after_the_snapshot_is_recorded_before_its_first_change, with its owner's readahead before
LATER_DISK = 4
LATER_READAHEAD_KB = "2048"


def later_disk(host):
    disk = host.ansible.get_variables()["lab_disks"][LATER_DISK]
    return disk, host.check_output("basename $(readlink -f %s)", disk["by_id"])


def later_readahead(host):
    return host.file("/sys/block/%s/queue/read_ahead_kb" % later_disk(host)[1]).content_string.strip()


def timer_state(host):
    return (host.run("systemctl is-enabled fstrim.timer").stdout.strip(),
            host.run("systemctl is-active fstrim.timer").stdout.strip())


def first_disk(host):
    by_id = host.ansible.get_variables()["lab_disks"][0]["by_id"]
    return host.check_output("basename $(readlink -f %s)", by_id)


def live(host):
    return {"read_ahead_kb": host.file("/sys/block/%s/queue/read_ahead_kb" % first_disk(host)).content_string.strip(),
            "swappiness": host.check_output("sysctl -n vm.swappiness"),
            "thp": host.file(THP_ENABLED).content_string.strip()}


def data_state(host):
    return {"mount": host.check_output("findmnt -n -o SOURCE,FSTYPE %s", MOUNTPOINT),
            "fstab": host.check_output("grep ' %s ' /etc/fstab", MOUNTPOINT),
            # the mount hold stays; the limits drop-in beside it is the collection's tuning, which a restore removes
            "holds": host.check_output("ls /etc/systemd/system/iotune-standin.service.d/ 2>/dev/null "
                                       "| grep -v '^iotune-storage-limits.conf$' || true"),
            "sum": host.check_output("sha256sum %s/iotune-restore.dat | cut -d' ' -f1", MOUNTPOINT)}


@pytest.fixture(scope="module")
def snapshot(host):
    host.check_output("head -c 1048576 /dev/urandom > %s/iotune-restore.dat && sync", MOUNTPOINT)
    yield json.loads(host.check_output("cat %s", SNAPSHOT))
    host.run("rm -f %s/iotune-restore.dat", MOUNTPOINT)


def test_the_first_run_recorded_the_hand_set_values_and_no_later_run_overwrote_them(host, snapshot):
    assert host.check_output("stat -c %%a %s", SNAPSHOT) == "600"
    assert host.check_output("stat -c %a /var/lib/iotune-storage") == "700"
    serial = host.ansible.get_variables()["lab_disks"][0]["serial"]
    recorded = [d for d in snapshot["devices"] if "serial:%s" % serial in d["identities"]]
    assert len(recorded) == 1, snapshot["devices"]
    # keyed by what the hardware says, never by the kernel name (which the boots since may have changed: NVMe
    # namespaces are named in the order their controllers answer)
    print("recorded as %s, now %s" % (recorded[0]["kname"], first_disk(host)))
    assert not any(i.startswith("kernel:") or recorded[0]["kname"] in i for i in recorded[0]["identities"]), recorded
    assert recorded[0]["queue"]["read_ahead_kb"] == "512", recorded
    assert snapshot["sysctl"]["vm.swappiness"] == "30"
    assert snapshot["thp"]["enabled"] == "always"
    assert snapshot["files"] == {RULES_FILE: None, SYSCTL_FILE: None, "/etc/systemd/system/" + THP_UNIT: None,
                                 "/etc/systemd/system/" + CPU_UNIT: None}
    # the CPU governor and clocksource (issue 27): the qemu guest has no cpufreq (no governor recorded), and the
    # clocksource it ran with before the first run
    assert snapshot["cpu_clock"]["cpu_governor"] == {}, snapshot["cpu_clock"]
    assert snapshot["cpu_clock"]["clocksource"] == host.check_output(
        "cat /sys/devices/system/clocksource/clocksource0/current_clocksource"), snapshot["cpu_clock"]
    assert [d["selector"] for d in snapshot["created_later"]] == ["md_name=data"], snapshot["created_later"]
    # fstrim.timer as it was before the discard policy enabled it (a snapshot of an earlier release lacks the key)
    if "fstrim_timer" in snapshot:
        assert snapshot["fstrim_timer"]["error"] is None, snapshot["fstrim_timer"]
        assert snapshot["fstrim_timer"]["enabled"] in ENABLED + ("disabled", "static"), snapshot["fstrim_timer"]
    # the converged host runs with the profile's values, not those
    assert live(host) != {"read_ahead_kb": "512", "swappiness": "30", "thp": "[always] madvise never"}


def test_a_disk_planned_after_the_snapshot_is_recorded_before_its_first_change(host, subrun, snapshot):
    """A device added to the plan later: the run that first plans it records its owner's value in the additions
    file beside the snapshot (which stays as it was), then tunes it; the next run records nothing more."""
    disk, kname = later_disk(host)
    host.check_output("blockdev --setra %s /dev/%s", str(int(LATER_READAHEAD_KB) * 2), kname)
    extra = {"iotune_verify": False,
             "iotune_block_tuning_extra_devices": [{"serial": disk["serial"], "read_ahead_kb": 64}]}
    rc, out, report = subrun.run(extra, tags="iotune_tuning")
    assert rc == 0, out[-4000:]
    recorded = subrun.tasks(report, "Record the host's original state before the first change (once per host)")
    assert recorded and not recorded[0].get("skipped") and recorded[0]["changed"], recorded
    added = recorded[0]["added"]
    assert [d["kname"] for d in added["devices"]] == [kname], added
    assert added["devices"][0]["queue"]["read_ahead_kb"] == LATER_READAHEAD_KB, added
    assert later_readahead(host) == "64"                               # tuned after it was recorded
    assert host.check_output("stat -c %%a %s", ADDITIONS) == "600"
    assert json.loads(host.check_output("cat %s", SNAPSHOT)) == snapshot          # the snapshot as it was
    before = host.check_output("sha256sum %s", ADDITIONS)
    rc, out, report = subrun.run(extra, tags="iotune_tuning")
    assert rc == 0 and subrun.changed(report) == 0, out[-4000:]
    assert host.check_output("sha256sum %s", ADDITIONS) == before     # nothing recorded twice


def test_restore_in_check_mode_says_what_and_changes_nothing(host, subrun, snapshot):
    before = (live(host), data_state(host), host.file(RULES_FILE).exists)
    rc, out, report = subrun.run({"iotune_restore": True}, check=True)
    assert rc == 0, out[-4000:]
    restored = subrun.tasks(report, "Put the host's original state back (iotune_restore; arrays, filesystems and "
                                    "fstab lines stay)")
    assert restored and restored[0]["changed"], restored
    assert (live(host), data_state(host), host.file(RULES_FILE).exists) == before
    # the limits drop-ins it would remove, each unit named with its next restart; the drop-ins are still there
    plan = restored[0]["restore"]
    assert sorted(i["unit"] for i in plan["limits"]) == sorted(LIMITS_UNITS), plan["limits"]
    assert all("next restart" in line for line in restored[0]["limits"]) and len(restored[0]["limits"]) == 2
    for unit in LIMITS_UNITS:
        assert host.file(LIMITS % unit).exists, unit
    timer = plan["fstrim_timer"]
    if "fstrim_timer" in snapshot and snapshot["fstrim_timer"]["enabled"] not in ENABLED:
        assert "disable" in timer["commands"], timer
    else:
        assert timer["commands"] == [] and timer["why"], timer


def test_restore_puts_the_values_back_live_and_leaves_the_data(host, subrun, snapshot):
    data = data_state(host)
    boot_id = host.file("/proc/sys/kernel/random/boot_id").content_string
    timer_before = timer_state(host)
    rc, out, report = subrun.run({"iotune_restore": True})
    assert rc == 0, out[-4000:]
    assert subrun.changed(report) > 0
    for unit in LIMITS_UNITS:
        assert not host.file(LIMITS % unit).exists, unit
        # systemd reloaded: it no longer lists the drop-in for the unit
        assert "iotune-storage-limits.conf" not in host.check_output("systemctl show -p DropInPaths %s", unit)
    if "fstrim_timer" in snapshot and snapshot["fstrim_timer"]["enabled"] not in ENABLED:
        assert timer_state(host)[0] not in ENABLED, timer_state(host)
        if snapshot["fstrim_timer"]["active"] != "active":
            assert timer_state(host)[1] != "active", timer_state(host)
    else:
        assert timer_state(host) == timer_before                      # left, as the snapshot says
    now = live(host)
    assert now["read_ahead_kb"] == "512" and now["swappiness"] == "30", now
    # and the value recorded later, in the additions file
    assert later_readahead(host) == LATER_READAHEAD_KB
    assert now["thp"].startswith("[always]"), now
    for path in (RULES_FILE, SYSCTL_FILE, "/etc/systemd/system/" + THP_UNIT, "/etc/systemd/system/" + CPU_UNIT):
        assert not host.file(path).exists, path
    assert host.run("systemctl is-enabled %s", THP_UNIT).stdout.strip() != "enabled"
    assert host.run("systemctl is-enabled %s", CPU_UNIT).stdout.strip() != "enabled"
    assert data_state(host) == data                                   # array, filesystem, fstab, holds: untouched
    assert host.file("/proc/sys/kernel/random/boot_id").content_string == boot_id     # no reboot
    # the snapshot stays (a later restore needs it)
    assert json.loads(host.check_output("cat %s", SNAPSHOT)) == snapshot


def test_a_second_restore_changes_nothing(subrun):
    rc, out, report = subrun.run({"iotune_restore": True})
    assert rc == 0 and subrun.changed(report) == 0, out[-4000:]


def test_a_tune_run_after_the_restore_tunes_again(host, subrun, snapshot):
    rc, out, report = subrun.run({"iotune_verify": False})
    assert rc == 0 and subrun.changed(report) > 0, out[-4000:]
    assert host.file(RULES_FILE).exists and host.file(SYSCTL_FILE).exists
    assert live(host)["read_ahead_kb"] != "512"
    for unit in LIMITS_UNITS:
        assert host.file(LIMITS % unit).exists, unit
    # the discard policy enabled the timer again (the tests after this one start from the converged host)
    assert timer_state(host) == ("enabled", "active")
    assert json.loads(host.check_output("cat %s", SNAPSHOT)) == snapshot
