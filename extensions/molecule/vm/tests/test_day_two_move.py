# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Day two: the array moved to a new mount point with its opt-in, and back (issue 23).

test_day_two.py proves the refusals (a typo, `move_from` while the database uses the files). Here nobody uses
the files and the plan says `move_from: /var/lib/cassandra`: the run unmounts the filesystem there, removes its
fstab line, mounts it on the new path by UUID and moves the services' mount holds with it. A file written before
reads the same bytes afterwards, the old path is an empty directory of the root disk, and a second run with the
same variables (move_from still given, as an inventory keeps it) changes nothing. The move back, with
`move_from` naming the new path, leaves fstab's lines, the drop-ins and the file as they were.

Runs on the dracut/NVMe entry of the vm matrix only (xfs_filesystem and the preflight decide, not the release).
"""
from __future__ import annotations

import pytest

from conftest import failure_messages

pytestmark = pytest.mark.any_entry(1)

MOUNTPOINT = "/var/lib/cassandra"
MOVED = "/srv/cassandra-moved"
PROBE = "move-probe.bin"
DROP_INS = "/etc/systemd/system/*.d/iotune-storage-mounts.conf"
# the state a move must carry along or put back: fstab's lines (sorted: the moved line is written at its place or
# at the end), the drop-ins, the array's UUID
STATE = "sort /etc/fstab | sha256sum; cat %s; blkid -s UUID -o value /dev/md/data" % DROP_INS
# the boot's journal lines that match a pattern, without the modules' argument lines (they name every path and filled
# the excerpt), for a failure's message
JOURNAL = ("journalctl -b --no-pager -o short-monotonic | grep -v 'Invoked with' | grep -iE '%s' | cut -c1-300 "
           "| tail -40")


@pytest.fixture(scope="module")
def before(host):
    """The file's checksum and the state before the move; the file and the new path removed afterwards."""
    # the probe must be written on the array: in two official runs (stops 43 and 45's profile run) the moved file was
    # missing, and whether the array was still mounted here when it was written was not known. If it is not, the
    # failure says so, with what systemd and udev say of the mount and the array, instead of blaming the move
    source = host.run("findmnt -n -o SOURCE --mountpoint %s", MOUNTPOINT)
    assert source.rc == 0 and source.stdout.startswith("/dev/md"), host.run(
        "findmnt -rn -o TARGET,SOURCE -t xfs; systemctl status --no-pager -n 0 var-lib-cassandra.mount; "
        "md=$(readlink -f /dev/md/data); systemctl show -p ActiveState,SubState \"$(systemd-escape -p --suffix=device "
        "$md)\"; udevadm info -q property \"$md\" | grep -E 'SYSTEMD_READY|MD_LEVEL|ID_FS_UUID='; "
        + JOURNAL % "cassandra|md127|bound to|inactive").stdout
    host.check_output("head -c 4194304 /dev/urandom > %s/%s && sync", MOUNTPOINT, PROBE)
    found = {"sum": host.check_output("sha256sum < %s/%s", MOUNTPOINT, PROBE), "state": host.check_output(STATE)}
    yield found
    host.run("rm -f %s/%s; mountpoint -q %s || rmdir %s 2>/dev/null; true", MOUNTPOINT, PROBE, MOVED, MOVED)


def run(subrun, array):
    rc, out, report = subrun.run({"iotune_arrays": [array], "iotune_verify": False})
    assert rc == 0, failure_messages(report, subrun.hostname) or out[-3000:]
    return subrun.changed(report)


@pytest.fixture(scope="module")
def moved(subrun, host, before, data_array):
    """The move (changed), then the same variables again (changed=0); the array is moved back afterwards."""
    first = run(subrun, dict(data_array, mountpoint=MOVED, move_from=MOUNTPOINT))
    again = run(subrun, dict(data_array, mountpoint=MOVED, move_from=MOUNTPOINT))
    # both runs passed: the file must be at the new path; if not, what the host says about its mounts (a stop's
    # official run once found it missing there, and nothing mounted on either path afterwards)
    probe = host.run("sha256sum < %s/%s", MOVED, PROBE)
    assert probe.rc == 0, (first, again, host.run(
        "findmnt -rn -o TARGET,SOURCE,UUID -t xfs; grep -v '^#' /etc/fstab; systemctl list-units --all --no-pager "
        "'*.mount' | grep -E 'cassandra|srv'; echo 'old path:'; ls -A %s; " % MOUNTPOINT + JOURNAL % "mount|xfs|md127").stdout)
    found = {"changed": first, "again": again,
             "source": host.check_output("findmnt -n -o SOURCE --mountpoint %s || true", MOVED),
             "old_mounted": host.run("mountpoint -q %s", MOUNTPOINT).rc == 0,
             "old_entries": host.check_output("ls -A %s", MOUNTPOINT),
             "sum": probe.stdout.rstrip("\r\n"),
             "fstab": host.check_output("grep -v '^#' /etc/fstab"),
             "drop_ins": host.check_output("cat " + DROP_INS),
             "uuid": host.check_output("blkid -s UUID -o value /dev/md/data")}
    yield found
    if host.run("mountpoint -q %s", MOVED).rc == 0:        # the last test failed before its move back
        run(subrun, dict(data_array, move_from=MOVED))


def test_the_move_with_its_opt_in_carries_the_data(moved, before):
    assert moved["changed"] > 0
    assert moved["source"].startswith("/dev/md"), moved
    assert moved["sum"] == before["sum"]
    # the old path: not a mount point any more, an empty directory of the root disk
    assert not moved["old_mounted"] and moved["old_entries"] == ""


def test_fstab_and_the_holds_follow_the_move(moved):
    lines = [line.split() for line in moved["fstab"].splitlines() if line.strip()]
    mine = [fields for fields in lines if fields[0] == "UUID=%s" % moved["uuid"]]
    assert [fields[1] for fields in mine] == [MOVED], moved["fstab"]
    assert not [fields for fields in lines if fields[1] == MOUNTPOINT], moved["fstab"]
    assert "RequiresMountsFor=%s" % MOVED in moved["drop_ins"] and MOUNTPOINT not in moved["drop_ins"], \
        moved["drop_ins"]


def test_a_rerun_with_move_from_still_given_changes_nothing(moved):
    assert moved["again"] == 0


def test_the_move_back_restores_fstab_the_holds_and_the_file(subrun, host, moved, before, data_array):
    # last in this file: the later tests of the entry find the array where the scenario put it
    back = run(subrun, dict(data_array, move_from=MOVED))
    assert back > 0
    assert host.check_output(STATE) == before["state"]
    assert host.check_output("sha256sum < %s/%s", MOUNTPOINT, PROBE) == before["sum"]
    assert host.run("mountpoint -q %s", MOVED).rc != 0
