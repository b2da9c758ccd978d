# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Instance-store arrays come back after a stop/start (issue 12, docs/ephemeral.md); NVMe runs only.

The lab gives the NVMe runs two SCSI disks with a GCP local SSD's identity (instance store). This file runs after
test_zy_audit.py (whose plan has `data` alone) and before test_zz_degraded_boot.py, whose one reboot also proves this
file's refusal. In order, on one VM:

1. tune with `scratch` ({instance_store: all, count: 2}, ephemeral: true, group_vars/all.yml) beside `data`, and a
   stand-in service for it: the RAID0, its XFS and the boot unit are installed, and the initramfs is not rebuilt;
2. power off, both instance-store disks come back blank (``tools/lab stop-start --blank``), boot: the unit
   re-created the RAID0 and its XFS (new md and filesystem UUIDs), fstab and mdadm.conf agree with them,
   the mount and the profile's readahead are back and the stand-in started on the new filesystem; the audit of
   `scratch` finds nothing to say (the initramfs has no line of the new UUID, and wants none);
3. (test_zz_degraded_boot.py, with break_scratch and check_scratch_refused below) the array stopped and both disks
   zeroed in the guest, an XFS with a file put on one of them, a reboot: the unit refuses and names that disk; the
   file's checksum is unchanged, the other disk is still all zeros, fstab and mdadm.conf are unchanged, multi-user
   is reached and the stand-in is held back. One boot proves that and the degraded boot of `data` (a boot under
   emulation is minutes).
"""
import base64
import json
import subprocess

import pytest

from conftest import LAB, VM, close_lab_ssh, lab_inventory_disks, lab_ssh, run_audit, wait_for_multi_user

MOUNTPOINT = "/srv/scratch"
UNIT = "iotune-ephemeral-scratch.service"
STANDIN = "iotune-scratch-standin.service"
CONF = "/etc/mdadm/mdadm.conf"
CASSANDRA_KB = 8          # roles/profile/vars/profiles/cassandra.yml: array and members
PROBE = "/mnt/iotune-ephemeral-probe"
BUILDS = "/var/lib/iotune-probe/initramfs-builds"     # one line per initramfs build (prepare_boot_probe.yml)


def initramfs_builds():
    return len(lab_ssh("cat %s 2>/dev/null || true" % BUILDS).stdout.splitlines())


@pytest.fixture(scope="module")
def instance_store():
    disks = instance_store_disks()
    if not disks:
        pytest.skip("no instance-store disks: the lab adds them on the NVMe runs only")
    assert len(disks) == 2, disks
    return disks


def sh(script, check=True, timeout=300):
    """One shell command line in the guest (ssh joins its arguments with spaces)."""
    return lab_ssh("sh -c %s" % _quote(script), check=check, timeout=timeout)


def _quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def kname(path):
    return lab_ssh("readlink", "-f", path).stdout.strip().rsplit("/", 1)[1]


def md_uuid():
    out = lab_ssh("mdadm", "--detail", "--export", "/dev/md/scratch").stdout
    return dict(ln.split("=", 1) for ln in out.splitlines() if "=" in ln)["MD_UUID"]


def fs_uuid(device="/dev/md/scratch"):
    return lab_ssh("blkid", "-p", "-s", "UUID", "-o", "value", device).stdout.strip()


def fstab_line():
    lines = [ln for ln in lab_ssh("cat", "/etc/fstab").stdout.splitlines()
             if len(ln.split()) > 1 and ln.split()[1] == MOUNTPOINT]
    assert len(lines) == 1, lines
    return lines[0]


def array_lines():
    return [ln for ln in lab_ssh("cat", CONF).stdout.splitlines()
            if ln.startswith("ARRAY") and ("/dev/md/scratch" in ln or "name=scratch" in ln)]


@pytest.fixture(scope="module")
def tuned(instance_store, subrun):
    """Step 1: the stand-in, then tune with `scratch` beside `data`."""
    unit = ("[Unit]\nDescription=Stand-in service of the scratch array\n\n[Service]\nType=oneshot\n"
            "RemainAfterExit=yes\nExecStart=/bin/sh -c 'cat /proc/sys/kernel/random/boot_id >> %s/standin.log'\n\n"
            "[Install]\nWantedBy=multi-user.target\n" % MOUNTPOINT)
    sh("echo %s | base64 -d > /etc/systemd/system/%s && systemctl daemon-reload && systemctl enable -q %s"
       % (base64.b64encode(unit.encode()).decode(), STANDIN, STANDIN))
    builds = initramfs_builds()
    # with `data` too, as an operator runs it: a plan without an array drops the mount holds of its services (the
    # degraded boot after this file checks that data's stand-in is held back)
    rc, out, report = subrun.run({"iotune_arrays": "{{ [vm_array_data, vm_array_scratch] }}", "iotune_verify": False})
    assert rc == 0, out[-5000:]
    assert lab_ssh("systemctl", "is-enabled", UNIT).stdout.strip() == "enabled"
    sh("systemctl start %s && head -c 1048576 /dev/urandom > %s/before-the-stop" % (STANDIN, MOUNTPOINT))
    return {"md_uuid": md_uuid(), "fs_uuid": fs_uuid(), "builds_before": builds, "builds_after": initramfs_builds()}


def test_tune_built_scratch_on_every_instance_store_disk(tuned, instance_store):
    md = kname("/dev/md/scratch")
    slaves = sorted(lab_ssh("ls", "/sys/block/%s/slaves" % md).stdout.split())
    assert slaves == sorted(kname(d["by_id"]) for d in instance_store)
    assert lab_ssh("cat", "/sys/block/%s/md/level" % md).stdout.strip() == "raid0"
    assert lab_ssh("cat", "/sys/block/%s/md/chunk_size" % md).stdout.strip() == str(64 * 1024)
    assert lab_ssh("findmnt", "-n", "-o", "FSTYPE", MOUNTPOINT).stdout.strip() == "xfs"
    assert fstab_line().startswith("UUID=%s " % tuned["fs_uuid"])
    # its new ARRAY line alone made no initramfs rebuild (the boot unit brings it back in the real root); the converge's
    # line of `data` made one (test_initramfs_boot.py)
    assert array_lines() and tuned["builds_after"] == tuned["builds_before"] > 0, tuned


def test_blank_disks_after_a_stop_start_are_brought_back(tuned, instance_store):
    # as long a wait for SSH as a reboot's (conftest.wait_for_ssh): under the CI's load (two emulated guests and the
    # other suites) the boot after the stop took more than the lab's default 300 s (the matrix at 5aa6bce, 2026-11-26)
    argv = [LAB, "stop-start", VM, "--timeout", "900"]
    for disk in instance_store:
        argv += ["--blank", disk["serial"]]
    close_lab_ssh()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=1800, check=False)
    if proc.returncode != 0:
        console = subprocess.run([LAB, "console", VM, "--lines", "80"], capture_output=True, text=True, timeout=60,
                                 check=False).stdout
        pytest.fail("stop-start failed (%d): %s\nconsole:\n%s" % (proc.returncode, proc.stderr[-2000:], console))
    wait_for_multi_user()
    status = lab_ssh("systemctl", "status", "--no-pager", "-l", UNIT, check=False).stdout
    assert lab_ssh("systemctl", "is-active", UNIT, check=False).stdout.strip() == "active", status
    journal = lab_ssh("journalctl", "-b", "-u", UNIT, "--no-pager").stdout
    print(journal)
    assert "every member is blank" in journal and "created" in journal, journal
    # a new array and a new filesystem, on the same disks, under the same name
    new_md, new_fs = md_uuid(), fs_uuid()
    assert new_md != tuned["md_uuid"] and new_fs != tuned["fs_uuid"]
    md = kname("/dev/md/scratch")
    assert sorted(lab_ssh("ls", "/sys/block/%s/slaves" % md).stdout.split()) == sorted(
        kname(d["by_id"]) for d in instance_store)
    assert lab_ssh("cat", "/sys/block/%s/md/chunk_size" % md).stdout.strip() == str(64 * 1024)
    # fstab and mdadm.conf agree with them
    assert fstab_line().startswith("UUID=%s " % new_fs), fstab_line()
    lines = array_lines()
    assert len(lines) == 1 and "UUID=%s" % new_md in lines[0], lines
    # mounted, fresh (the file written before the stop is gone), the stand-in ran on it in this boot
    assert kname(lab_ssh("findmnt", "-n", "-o", "SOURCE", MOUNTPOINT).stdout.strip()) == md
    assert lab_ssh("test", "-e", MOUNTPOINT + "/before-the-stop", check=False).returncode != 0
    boot_id = lab_ssh("cat", "/proc/sys/kernel/random/boot_id").stdout.strip()
    assert lab_ssh("cat", MOUNTPOINT + "/standin.log").stdout.split() == [boot_id]
    # readahead from the udev rules, which match the array by name and the members by path
    assert lab_ssh("cat", "/sys/block/%s/queue/read_ahead_kb" % md).stdout.strip() == str(CASSANDRA_KB)
    for disk in instance_store:
        value = lab_ssh("cat", "/sys/block/%s/queue/read_ahead_kb" % kname(disk["by_id"])).stdout.strip()
        assert value == str(CASSANDRA_KB), disk


def test_the_audit_of_a_re_created_array_does_not_ask_for_an_initramfs_rebuild(instance_store, subrun, tmp_path):
    """After the re-creation the initramfs has no line of the new UUID, and none is wanted: the audit compares
    mdadm.conf and fstab with the new array and leaves the initramfs out for it (its negative control is the unit test
    test_an_ephemeral_array_is_not_compared_with_the_initramfs)."""
    rc, out, doc, dummy = run_audit(subrun, tmp_path, extra_vars={"iotune_arrays": "{{ [vm_array_scratch] }}"})
    assert rc == 0, out[-3000:]
    host = doc["hosts"][0]
    print(json.dumps(host["items"], indent=1))
    mine = [i for i in host["items"] if "scratch" in i.get("subject", "") or MOUNTPOINT in i.get("subject", "")]
    assert mine == [], mine
    assert [a["state"] for a in host["arrays"] if a["name"] == "scratch"] == ["active"], host["arrays"]


def instance_store_disks():
    """The two instance-store disks of an NVMe run, or [] (the lab adds them on the NVMe runs only)."""
    return [d for d in lab_inventory_disks() if d.get("instance_store")]


def break_scratch(instance_store):
    """Step 3, before the reboot (test_zz_degraded_boot.py): new disks at the next boot, zero except an XFS with a
    file on the first one. Returns what check_scratch_refused compares after the reboot."""
    first, second = instance_store[0]["by_id"], instance_store[1]["by_id"]
    sh("systemctl stop %s && umount %s && mdadm --stop /dev/md/scratch && for d in %s %s; do"
       " dd if=/dev/zero of=$d bs=1M count=$(( $(blockdev --getsize64 $d) / 1048576 )) oflag=direct status=none;"
       " done" % (STANDIN, MOUNTPOINT, first, second))
    assert sh("cmp -s -n $(blockdev --getsize64 %s) %s /dev/zero" % (second, second), check=False).returncode == 0
    sh("mkfs.xfs -q -f -L precious %s && mkdir -p %s && mount %s %s"
       " && head -c 4194304 /dev/urandom > %s/precious.bin && umount %s"
       % (first, PROBE, first, PROBE, PROBE, PROBE))
    sh("mount -o ro %s %s" % (first, PROBE))
    checksum = lab_ssh("sha256sum", PROBE + "/precious.bin").stdout.split()[0]
    lab_ssh("umount", PROBE)
    return {"first": first, "second": second, "checksum": checksum,
            "config": lab_ssh("sha256sum", "/etc/fstab", CONF).stdout}


def check_scratch_refused(broken):
    """Step 3, after the reboot: the unit refused and named the disk; nothing was written anywhere."""
    first, second = broken["first"], broken["second"]
    assert lab_ssh("systemctl", "is-failed", UNIT, check=False).stdout.strip() == "failed"
    journal = lab_ssh("journalctl", "-b", "-u", UNIT, "--no-pager").stdout
    print(journal)
    assert "refusing to bring back array scratch" in journal, journal
    assert first in journal or kname(first) in journal, journal
    # nothing was written: no array, the file's checksum, the other disk all zeros, fstab and mdadm.conf
    assert lab_ssh("test", "-e", "/dev/md/scratch", check=False).returncode != 0
    sh("mount -o ro,norecovery %s %s" % (first, PROBE))
    try:
        assert lab_ssh("sha256sum", PROBE + "/precious.bin").stdout.split()[0] == broken["checksum"]
    finally:
        lab_ssh("umount", PROBE, check=False)
    assert sh("cmp -s -n $(blockdev --getsize64 %s) %s /dev/zero" % (second, second), check=False).returncode == 0
    assert lab_ssh("sha256sum", "/etc/fstab", CONF).stdout == broken["config"]
    # the host is up, the array's service held back, nothing written under the empty mount point
    assert lab_ssh("systemctl", "is-active", STANDIN, check=False).stdout.strip() != "active"
    assert lab_ssh("findmnt", "-n", MOUNTPOINT, check=False).returncode != 0
    assert lab_ssh("ls", "-A", MOUNTPOINT).stdout.strip() == ""
