# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Retire an array on its explicit opt-in (issue 29, docs/tune.md "Retire an array"); the dracut/NVMe entry.

After test_zya_ephemeral.py (so the plan holds `data` and the ephemeral `scratch`) and before test_zz_degraded_boot.py,
whose one reboot also proves the last step here. On the blank lab_disks[9:11]:

1. a tune run (raid and filesystem stages) builds a second array `old` beside the others, with a stand-in service for
   it; its rebuild of the initramfs is left owed (``raid0_update_initramfs: false``) so that the retire's one rebuild
   is the only one this file costs; a file is written on `old` and one on `data`;
2. with the stand-in running, the retire (``iotune_retire_md_arrays``: the name twice and the md UUID) is refused by
   the preflight, naming the unit, and nothing changed: the array runs, is mounted, its fstab and mdadm.conf lines and
   its drop-ins are there;
3. with the stand-in stopped, the retire: the array is stopped, its fstab line and drop-ins are gone, mdadm.conf has
   one ``ARRAY <ignore> UUID=`` line for it and no other, the rebuilt initramfs holds the same and no ARRAY line of
   it; the members still carry their superblocks (``zero_superblocks`` was not asked for); `data` is untouched (its
   file's checksum, its mount, its lines);
4. (test_zz_degraded_boot.py, check_old_stays_retired below) after the reboot, the array was not assembled again,
   neither by the initramfs nor by the real root's udev: the ``<ignore>`` line is what keeps it off.
"""
import base64
import json
import os

import pytest

from conftest import failure_messages, lab_inventory_disks, lab_ssh
from test_zya_ephemeral import sh

pytestmark = pytest.mark.any_entry(1)

NAME = "old"
MOUNTPOINT = "/srv/iotune-old"
STANDIN = "iotune-old-standin.service"
DATA_FILE = "/var/lib/cassandra/iotune-retire-probe.bin"
ARRAYS = "{{ [vm_array_data] + ([vm_array_scratch] if vm_instance_store else []) }}"


def conf_path():
    return "/etc/mdadm/mdadm.conf" if lab_ssh("test", "-e", "/etc/mdadm/mdadm.conf", check=False).returncode == 0 \
        else "/etc/mdadm.conf"


def lines_of(uuid, text):
    """The lines of an mdadm.conf that name the array (by its UUID or its name)."""
    return [ln for ln in text.splitlines() if ln.startswith("ARRAY") and (uuid in ln or "name=" in ln and
                                                                          ln.split("name=", 1)[1].split()[0]
                                                                          .split(":")[-1] == NAME)]


def state(uuid):
    """What a refusal must leave as it was."""
    return {"mdstat": NAME in lab_ssh("ls", "/dev/md").stdout,
            "mount": lab_ssh("findmnt", "-n", "-o", "SOURCE", MOUNTPOINT, check=False).stdout.strip(),
            "fstab": [ln for ln in lab_ssh("cat", "/etc/fstab").stdout.splitlines() if MOUNTPOINT in ln],
            "conf": lines_of(uuid, lab_ssh("cat", conf_path()).stdout),
            "dropins": sorted(lab_ssh("ls", "/etc/systemd/system/%s.d" % STANDIN, check=False).stdout.split())}


def image_conf():
    """mdadm.conf as the next boot's initramfs holds it: dracut's lsinitrd -f (one pass), else unmkinitramfs."""
    script = ("i=/boot/initrd.img-$(uname -r); if command -v lsinitrd >/dev/null; then lsinitrd -f etc/mdadm.conf $i;"
              " else d=$(mktemp -d) && unmkinitramfs $i $d && cat $(find $d -path \"*etc/mdadm/mdadm.conf\");"
              " rm -rf $d; fi")
    return sh(script, timeout=600).stdout


def old_entry(disks):
    return {"name": NAME, "devices": [d["by_id"] for d in disks[9:11]], "chunk_kb": 64, "mountpoint": MOUNTPOINT,
            "services": [STANDIN.rsplit(".", 1)[0]]}


@pytest.fixture(scope="module")
def built(subrun):
    """Step 1: `old` on lab_disks[9:11], beside the arrays the plan already has, a file on each array."""
    disks = lab_inventory_disks()
    unit = ("[Unit]\nDescription=Stand-in service of the array old\n\n[Service]\n"
            "ExecStart=/bin/sleep infinity\n")     # holds no file there: the running unit alone is refused
    sh("echo %s | base64 -d > /etc/systemd/system/%s && systemctl daemon-reload"
       % (base64.b64encode(unit.encode()).decode(), STANDIN))
    arrays = ARRAYS[:-3] + " + [%s] }}" % json.dumps(old_entry(disks))
    rc, out, report = subrun.run({"iotune_arrays": arrays, "iotune_verify": False, "raid0_update_initramfs": False},
                                 tags="iotune_raid,iotune_filesystem")
    assert rc == 0, out[-5000:]
    # the cassandra profile's mkfs options (issue 27): made without a discard pass (-K), which leaves no trace in
    # xfs_info; the command the module ran says it
    made = [r for t in subrun.tasks(report, "Create the XFS filesystems (aligned, never over another signature or data)")
            for r in t.get("results", []) if r.get("created")]
    assert len(made) == 1 and "-K" in made[0]["cmd"], made
    uuid = dict(ln.split("=", 1) for ln in lab_ssh("mdadm", "--detail", "--export", "/dev/md/" + NAME)
                .stdout.splitlines() if "=" in ln)["MD_UUID"]
    sh("head -c 4194304 /dev/urandom > %s/precious.bin && head -c 4194304 /dev/urandom > %s && sync"
       % (MOUNTPOINT, DATA_FILE))
    sums = lab_ssh("sha256sum", MOUNTPOINT + "/precious.bin", DATA_FILE).stdout
    found = state(uuid)
    assert found["mdstat"] and found["mount"] and len(found["fstab"]) == 1 and len(found["conf"]) == 1, found
    assert "iotune-storage-limits.conf" in found["dropins"], found          # the profile's limits for its service
    members = [lab_ssh("readlink", "-f", d["by_id"]).stdout.strip() for d in disks[9:11]]
    return {"uuid": uuid, "sums": sums, "state": found, "members": members, "disks": disks,
            "data": {"mount": lab_ssh("findmnt", "-n", "-o", "SOURCE,OPTIONS", "/var/lib/cassandra").stdout,
                     "fstab": [ln for ln in lab_ssh("cat", "/etc/fstab").stdout.splitlines()
                               if "/var/lib/cassandra" in ln]}}


def retire(subrun, built, report_dir, **extra):
    entry = {"name": NAME, "confirm_name": NAME, "confirm_uuid": built["uuid"]}
    return subrun.run(dict({"iotune_arrays": ARRAYS, "iotune_verify": False, "iotune_report_dir": str(report_dir),
                            "iotune_retire_md_arrays": [entry]}, **extra),
                      tags="iotune_raid,iotune_facts")          # the run's summary is a task of the facts tag


def test_the_retire_is_refused_while_its_service_runs(subrun, built, tmp_path):
    lab_ssh("systemctl", "start", STANDIN)
    try:
        rc, out, report = retire(subrun, built, tmp_path)
    finally:
        lab_ssh("systemctl", "stop", STANDIN)
    messages = failure_messages(report, subrun.hostname)
    print("\n".join(messages))
    assert rc != 0 and subrun.changed(report) == 0, out[-3000:]
    assert len(messages) == 1 and STANDIN.rsplit(".", 1)[0] in messages[0], messages
    assert "Check the arrays" in messages[0], messages                     # the preflight, before any change
    assert state(built["uuid"]) == built["state"]
    assert lab_ssh("sha256sum", MOUNTPOINT + "/precious.bin", DATA_FILE).stdout == built["sums"]


def test_the_retire_stops_it_and_leaves_one_ignore_line_and_the_other_arrays(subrun, built, tmp_path):
    uuid = built["uuid"]
    rc, out, report = retire(subrun, built, tmp_path)
    assert rc == 0, out[-5000:]
    summary = "\n".join(line for t in subrun.tasks(report, "Summary") for line in t.get("msg", []))
    print(summary)
    assert "retire %s" % NAME in summary, summary
    with open(os.path.join(str(tmp_path), subrun.hostname, "retire.json"), encoding="utf-8") as f:
        done = json.load(f)
    print(json.dumps(done, indent=1))
    # the array is stopped, its mount, fstab line and drop-ins gone
    assert not lab_ssh("test", "-e", "/dev/md/" + NAME, check=False).returncode == 0
    assert uuid not in lab_ssh("mdadm", "--detail", "--scan", check=False).stdout.replace("-", ":")
    assert lab_ssh("findmnt", "-n", MOUNTPOINT, check=False).returncode != 0
    assert not [ln for ln in lab_ssh("cat", "/etc/fstab").stdout.splitlines() if MOUNTPOINT in ln]
    assert lab_ssh("ls", "/etc/systemd/system/%s.d" % STANDIN, check=False).stdout.split() == []
    # mdadm.conf: one <ignore> line of its UUID, nothing else of it
    conf = lab_ssh("cat", conf_path()).stdout
    assert lines_of(uuid, conf) == ["ARRAY <ignore> UUID=%s" % uuid], conf
    # the rebuilt initramfs holds the same copy (dracut: lsinitrd -f, one pass)
    inside = image_conf()
    assert lines_of(uuid, inside) == ["ARRAY <ignore> UUID=%s" % uuid], inside
    assert lab_ssh("test", "-e", "/var/lib/iotune-storage/initramfs-rebuild-pending", check=False).returncode != 0
    # the members keep their superblocks (no zero_superblocks): only the <ignore> line keeps mdadm from assembling it
    for member in built["members"]:
        assert uuid in lab_ssh("mdadm", "--examine", "--export", member).stdout.replace("-", ":"), member
    # data: as it was
    assert lab_ssh("sha256sum", DATA_FILE).stdout == built["sums"].splitlines()[1] + "\n"
    assert lab_ssh("findmnt", "-n", "-o", "SOURCE,OPTIONS", "/var/lib/cassandra").stdout == built["data"]["mount"]
    assert [ln for ln in lab_ssh("cat", "/etc/fstab").stdout.splitlines()
            if "/var/lib/cassandra" in ln] == built["data"]["fstab"]


def check_old_stays_retired():
    """Step 4, after test_zz_degraded_boot.py's reboot: no array of old's UUID was assembled."""
    found = lab_ssh("sh -c 'cat /proc/mdstat; ls /dev/md 2>/dev/null; mdadm --detail --scan'", check=False).stdout
    print(found)
    assert NAME not in found.split(), found
    disks = lab_inventory_disks()
    members = [lab_ssh("readlink", "-f", d["by_id"]).stdout.strip().rsplit("/", 1)[1] for d in disks[9:11]]
    mdstat = lab_ssh("cat", "/proc/mdstat").stdout
    assert not [m for m in members if m in mdstat], mdstat
    # and the superblocks are still there: the negative control of "not assembled"
    examine = lab_ssh("mdadm", "--examine", "--export", disks[9]["by_id"]).stdout
    assert "MD_UUID=" in examine, examine
