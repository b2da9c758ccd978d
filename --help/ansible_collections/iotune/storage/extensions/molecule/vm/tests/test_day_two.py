# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Day two: a mistyped or changed mountpoint on the converged host never moves the live filesystem (issue 23).

The converged array `data` holds a file whose checksum is taken first; a stand-in database (a transient unit
with a file open and its working directory under the mount point) runs during some of the runs. Runs 1, 3 and 4
go side by side in one ansible-playbook run (an alias of the VM per plan). Each run below must fail before any
change (changed=0) and leave the filesystem where it is, its fstab line, the drop-ins and the file's checksum as
they were, no directory at the typo, and the stand-in alive:

1. `mountpoint: /var/lib/casandra` with the stand-in running: the preflight refuses, naming both paths and
   the `move_from` opt-in;
2. the same with the stand-in stopped and `profile_preflight: false` (which skips only the tuning check): the
   preflight refuses it; the xfs role run alone (no profile role, no preflight) refuses it on its own
   (xfs_filesystem's move check);
3. `move_from: /var/lib/cassandra` (the opt-in) to /srv/cassandra-moved with the stand-in running: refused
   while it uses files there, naming its pid;
4. a plan of a new array alone (on two blank spare disks), `data` left out: refused because it would drop the mount
   holds of data's services while data is mounted (the opt-in `iotune_release_holds` is unit-tested); the new
   array is not built.

The negative control, the converged variables passing the same checks, is test_bad_input.py's last test.
Runs on the virtio entry of the vm matrix only (the preflight and xfs_filesystem decide, not the release).
"""
from __future__ import annotations

import pytest

from conftest import failure_messages

# the preflight and xfs_filesystem decide, the same on every entry of the vm matrix
pytestmark = pytest.mark.any_entry(0)

MOUNTPOINT = "/var/lib/cassandra"
TYPO = "/var/lib/casandra"
MOVED = "/srv/cassandra-moved"
PROBE = MOUNTPOINT + "/day-two-probe.bin"
STUB = "iotune-db-stub"
STATE = ("sha256sum %s /etc/fstab /etc/systemd/system/*.d/iotune-storage-mounts.conf; "
         "findmnt -n -o SOURCE,TARGET --target %s; cat /proc/mdstat" % (PROBE, MOUNTPOINT))


@pytest.fixture(scope="module")
def probe(host):
    host.check_output("head -c 4194304 /dev/urandom > %s && sync", PROBE)
    before = host.check_output(STATE)
    yield before
    host.run("systemctl stop %s; rm -f %s; rmdir %s %s 2>/dev/null; true", STUB, PROBE, TYPO, MOVED)


def stub(host, running):
    host.run("systemctl stop %s", STUB)
    if running:
        host.check_output("systemd-run --unit=%s --collect --working-directory=%s sh -c 'exec 3<%s; exec sleep 3600'",
                          STUB, MOUNTPOINT, PROBE)
        return int(host.check_output("systemctl show -P MainPID %s", STUB))
    return None


def refused(subrun, host, probe, array, expected, **extra):
    rc, out, report = subrun.run(dict({"iotune_arrays": [array], "iotune_verify": False}, **extra))
    messages = failure_messages(report, subrun.hostname)
    assert rc != 0 and subrun.changed(report) == 0, out
    return checked(host, probe, messages, expected)


def checked(host, probe, messages, expected):
    assert len(messages) == 1 and all(text in messages[0] for text in expected), messages
    assert host.check_output(STATE) == probe          # the file, fstab, drop-ins, the mount: as they were
    assert not host.file(TYPO).exists and not host.file(MOVED).exists
    return messages[0]


@pytest.fixture(scope="module")
def with_the_database_running(subrun, host, probe, data_array, tmp_path_factory):
    """Runs 1, 3 and 4 side by side in one ansible-playbook run (SubRun.run_cases), the stand-in running: each is
    refused on its own, and none of them changes anything the others read."""
    pid = stub(host, running=True)
    disks = host.ansible.get_variables()["lab_disks"]
    other = {"name": "other", "devices": [d["by_id"] for d in disks[9:11]], "mountpoint": "/srv/iotune-other"}
    plans = {"typo": dict(data_array, mountpoint=TYPO),
             "move": dict(data_array, mountpoint=MOVED, move_from=MOUNTPOINT),
             "left-out": other}
    found = subrun.run_cases(dict((case, {"iotune_arrays": [array], "iotune_verify": False})
                                  for case, array in plans.items()), tmp_path_factory.mktemp("day-two"))
    for case in plans:
        messages, changed, stats = found[case]
        assert stats.get("failures") and changed == 0, (case, messages, found[None][-3000:])
    return dict(found, pid=pid)


def test_a_typo_in_mountpoint_is_refused_with_the_database_running(host, probe, with_the_database_running):
    msg = checked(host, probe, with_the_database_running["typo"][0], [
        "its filesystem is on %s (mounted there, /etc/fstab line" % MOUNTPOINT,
        "not on the planned mountpoint %s" % TYPO, "move_from: %s" % MOUNTPOINT])
    assert "Check the arrays" in msg                   # the preflight: the first host check
    assert int(host.check_output("systemctl show -P MainPID %s", STUB)) == with_the_database_running["pid"]


def test_the_move_opt_in_is_refused_while_the_database_uses_the_files(host, probe, with_the_database_running):
    checked(host, probe, with_the_database_running["move"][0], [
        "move_from %s: 1 process(es) use files there: pid %d (sleep" % (MOUNTPOINT, with_the_database_running["pid"]),
        "stop them before the filesystem is moved"])


def test_a_plan_that_leaves_data_out_is_refused_while_data_is_mounted(host, probe, with_the_database_running):
    msg = checked(host, probe, with_the_database_running["left-out"][0], [
        "drops the mount hold of cassandra.service on %s" % MOUNTPOINT,
        "drops the mount hold of iotune-standin.service on %s" % MOUNTPOINT, "iotune_release_holds"])
    assert "Check the arrays" in msg
    assert not host.file("/srv/iotune-other").exists
    assert "md/other" not in host.check_output("cat /proc/mdstat; ls /dev/md")


def test_a_typo_is_refused_with_profile_preflight_false_and_by_the_xfs_role_alone(
        subrun, host, probe, data_array, tmp_path, with_the_database_running):
    stub(host, running=False)
    # profile_preflight: false skips only the tuning check: the host checks still refuse the typo
    msg = refused(subrun, host, probe, dict(data_array, mountpoint=TYPO),
                  ["its filesystem is on %s" % MOUNTPOINT, "move_from: %s" % MOUNTPOINT], profile_preflight=False)
    assert "Check the arrays" in msg
    # the xfs role on its own (no profile, no preflight): xfs_filesystem refuses it before any change
    play = tmp_path / "xfs-alone.yml"
    play.write_text("- name: The xfs role alone\n  hosts: all\n  gather_facts: false\n  roles:\n"
                    "    - role: iotune.storage.xfs\n")
    rc, out, report = subrun.run({"xfs_filesystems": [{"device": "/dev/md/data", "mountpoint": TYPO}]},
                                 playbook=str(play))
    messages = failure_messages(report, subrun.hostname)
    assert rc != 0 and subrun.changed(report) == 0, out
    assert len(messages) == 1 and "Create the XFS filesystems" in messages[0], messages
    assert "its filesystem is on %s" % MOUNTPOINT in messages[0] and "set move_from: %s" % MOUNTPOINT in messages[0]
    assert host.check_output(STATE) == probe
    assert not host.file(TYPO).exists
