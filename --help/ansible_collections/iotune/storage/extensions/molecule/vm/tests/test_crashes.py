# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A first converge crashed in the middle, at one point after another, and what the next runs made of it (issue 23).

prepare_crashes.yml (crash_chain.py) ran the main playbook on the fresh host and reset the guest (sysrq b, no
sync) at each of this entry's points: right after `mdadm --create`, in the middle of the initramfs rebuild, of
mkfs.xfs, as soon as fstab had the line, when udev was asked to apply the rules. Each later run got past the last
crash's half-made state (crash_chain.py fails prepare otherwise), the converge completed, the idempotence run
changed nothing and the side_effect reboot went through the guest's own boot path. Here: each crash hit where it
was meant to, the array made before a crash was assembled again and never re-created, a filesystem that was
complete before a crash was kept, and the crashes left one ARRAY line and one fstab line (the initramfs holding
the line and booting the array is test_initramfs_boot.py and test_initramfs_facts.py).
"""
from __future__ import annotations

import json
import os

import pytest

import crash_chain

MOUNTPOINT = "/var/lib/cassandra"
RECORD = "/var/tmp/iotune-probe/crashes.json"


@pytest.fixture(scope="module")
def record(host):
    points = crash_chain.points_for(os.environ.get("IOTUNE_VM_ENTRY", ""), os.environ.get("IOTUNE_VM_CRASH_POINTS", ""))
    if not points:
        pytest.skip("no crash point in this run (IOTUNE_VM_CRASH_POINTS=none)")
    found = host.file(RECORD)
    assert found.exists, "prepare_crashes.yml left no record at %s" % RECORD
    got = json.loads(found.content_string)
    assert [entry["point"] for entry in got] == points, got
    return got


@pytest.fixture(scope="module")
def now(host):
    return {"md_uuid": host.check_output("mdadm --detail --export /dev/md/data | sed -n 's/^MD_UUID=//p'"),
            "fs_uuid": host.check_output("blkid -p -s UUID -o value /dev/md/data"),
            "array_lines": host.check_output("grep -hs '^ARRAY' /etc/mdadm/mdadm.conf /etc/mdadm.conf; true")
            .splitlines(),
            "fstab_lines": host.check_output("grep -s ' %s ' /etc/fstab; true", MOUNTPOINT).splitlines()}


def test_each_crash_hit_its_point_and_the_guest_booted_again(record):
    assert record, "no crash point ran"
    for entry in record:
        assert entry["marks"] and entry["marks"][0].startswith(entry["point"]), entry
        assert entry["boot_id_after"] and entry["boot_id_after"] != entry["boot_id_before"], entry
        assert entry["rc"] != 0, entry              # the run did not finish: the guest went away under it


def test_the_array_made_before_a_crash_was_never_made_again(record, now):
    # from the first crash on (create is right after mdadm --create), every later state names the same array
    made = [entry["state"]["md_uuid"] for entry in record if entry["state"]["md_uuid"]]
    assert made, "no crash left a running array to compare: %s" % record
    assert set(made) == {now["md_uuid"]}, (made, now)


def test_a_complete_filesystem_was_kept(record, now):
    # after the mkfs crash the next run makes the filesystem (it never was complete); after the fstab and udev
    # crashes the filesystem on the array is the one the converge mounts
    kept = [entry["state"]["fs_uuid"] for entry in record if entry["point"] in ("fstab", "udev")]
    assert all(uuid == now["fs_uuid"] for uuid in kept), (kept, now)


def test_one_array_line_and_one_fstab_line(now):
    mine = [line for line in now["array_lines"] if now["md_uuid"] in line]
    assert len(mine) == 1 and len(now["array_lines"]) == 1, now["array_lines"]
    assert len(now["fstab_lines"]) == 1 and now["fstab_lines"][0].startswith("UUID=%s " % now["fs_uuid"]), now
