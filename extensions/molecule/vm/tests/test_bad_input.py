# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Bad input fails before the host changes: the whole `tune` playbook, on the converged lab VM.

Each case adds a second array `extra` on the blank lab_disks[9:11] (or breaks the profile) and runs
iotune.storage.tune as a subprocess. Every run must fail naming the key, report changed=0, and leave the
host as it was: no /dev/md/extra, the blank disks still blank, fstab, mdadm.conf and the udev rules
unchanged. The host-side cases (aliases of one disk, two paths to one disk, a disk that only looks blank, a
partition of a disk in use, a PV of an active LVM volume group and the second device of a mounted btrfs, both opted in
to wiping, a non-empty directory, a foreign fstab line) are caught by the storage_preflight module. Where a case holds
data (the logical volume, the btrfs), its checksum is compared afterwards.
"""

from __future__ import annotations

import subprocess

import pytest

from conftest import LAB, VM, failure_messages, mount_busy_disk

# the plan filter and the preflight decide (the signature refusals that depend on the release's tools,
# test_raid_xfs.py, run on every entry)
pytestmark = pytest.mark.any_entry(0)

MOUNTPOINT = "/var/lib/cassandra"
FINGERPRINT = ("sha256sum /etc/fstab /etc/mdadm/mdadm.conf /etc/udev/rules.d/66-iotune-storage.rules; "
               "cat /proc/mdstat; ls /dev/md; ls /etc/systemd/system/*.d/iotune-storage-mounts.conf")


@pytest.fixture(scope="module")
def disks(host):
    lab = host.ansible.get_variables()["lab_disks"]
    assert len(lab) >= 11, "the scenario needs 11 lab disks"
    return lab


@pytest.fixture(scope="module")
def kname(host):
    return lambda path: host.check_output("readlink -f %s", path)


@pytest.fixture(scope="module")
def converged(disks):
    return {"name": "data", "devices": [d["by_id"] for d in disks[0:4]], "chunk_kb": 256,
            "mountpoint": MOUNTPOINT, "services": ["cassandra", "iotune-standin"]}


@pytest.fixture(scope="module")
def traps(host):
    """A non-empty directory and a foreign fstab line, removed afterwards."""
    host.run_expect([0], "mkdir -p /srv/olddata && echo keep > /srv/olddata/keep.txt")
    line = "LABEL=iotune-elsewhere /srv/foreign xfs noauto,nofail 0 0"
    host.run_expect([0], "grep -qxF '%s' /etc/fstab || echo '%s' >> /etc/fstab" % (line, line))
    before = host.check_output(FINGERPRINT)
    yield before
    host.run_expect([0], "sed -i '\\#^LABEL=iotune-elsewhere #d' /etc/fstab; rm -rf /srv/olddata")


def extra(disks, **changes):
    entry = {"name": "extra", "devices": [disks[9]["by_id"], disks[10]["by_id"]], "mountpoint": "/srv/extra"}
    entry.update(changes)
    return entry


# one blank disk image on two SCSI paths with one serial and WWN (`tools/lab twin-disk`: a SAN LUN through two
# HBAs without dm-multipath); its kernel names, filled in by the twin fixture
TWIN = {"serial": "twinlun1", "paths": []}
# two blank disks hot-plugged for a two-device btrfs mounted from the first (`tools/lab twin-disk --paths 1`); the
# plan lists the second, which is neither mounted nor held: only the kernel's /sys/fs/btrfs/<fsid> says it is in use
BTRFS = {"serials": ["btrfsdev1", "btrfsdev2"], "paths": [], "mount": "/mnt/iotune-btrfs"}
# a logical volume, not mounted, in the volume group on lab_disks[5] (prepare_refusals.yml): the PV is held by dm
LV = "/dev/iotune_probe/held"


CASES = [
    # (id, function(disks, kname) -> extra vars beyond iotune_arrays[0], expected text)
    ("two-paths-to-one-disk", lambda d, k: {"arrays": [extra(d, devices=list(TWIN["paths"]))]},
     "are two paths to one disk (both report wwid naa.5000c500"),
    ("aliases-across-arrays",
     lambda d, k: {"arrays": [extra(d), extra(d, name="extra2", mountpoint="/srv/extra2",
                                              devices=[k(d[9]["by_id"]), k(d[10]["by_id"])])]},
     "are the same device"),
    ("label-13-chars", lambda d, k: {"arrays": [extra(d, label="thirteen_char")]}, "label 'thirteen_char' must be 1-12"),
    ("nobarrier", lambda d, k: {"arrays": [extra(d, mount_options=["noatime", "nobarrier"])]}, "nobarrier is refused"),
    ("stripe-too-wide", lambda d, k: {"arrays": [extra(d, chunk_kb=1048576)]},
     "mkfs.xfs refuses a stripe width of 2 GiB"),
    ("chunk-0", lambda d, k: {"arrays": [extra(d, chunk_kb=0)]}, "chunk_kb must be >= 4, got 0"),
    ("readahead-16k", lambda d, k: {"overrides": {"array": {"read_ahead_kb": "16k"}}},
     "array.read_ahead_kb must be a whole number of KiB, got '16k'"),
    ("readahead-abc", lambda d, k: {"overrides": {"members": {"read_ahead_kb": "abc"}}},
     "members.read_ahead_kb must be a whole number of KiB, got 'abc'"),
    ("override-typo-readahead_kb", lambda d, k: {"overrides": {"readahead_kb": 16}}, "unknown key readahead_kb"),
    ("override-typo-raid_chunk", lambda d, k: {"overrides": {"raid_chunk": 64}}, "unknown key raid_chunk"),
    ("name-dot", lambda d, k: {"arrays": [extra(d, name=".")]}, "name '.' must be"),
    ("name-dotdot", lambda d, k: {"arrays": [extra(d, name="..")]}, "name '..' must be"),
    ("name-newline", lambda d, k: {"arrays": [extra(d, name="extra\n")]}, "name 'extra\\n' must be"),
    ("system-directory", lambda d, k: {"arrays": [extra(d, mountpoint="/var/./")]}, "/var is a system directory"),
    ("single-device", lambda d, k: {"arrays": [extra(d, devices=[d[9]["by_id"]])]}, "allow_single_device: true"),
    ("looks-blank-ext4-at-1mib", lambda d, k: {"arrays": [extra(d, devices=[d[7]["by_id"], d[9]["by_id"]])]},
     "non-zero data"),
    ("partition-of-a-disk-in-use", lambda d, k: {"arrays": [extra(d, devices=[d[8]["by_id"] + "-part2",
                                                                              d[9]["by_id"]])]},
     "which is in use"),
    ("pv-of-an-active-volume-group", lambda d, k: {"arrays": [extra(d, devices=[d[5]["by_id"], d[9]["by_id"]],
                                                                    wipe_devices=[d[5]["by_id"]])]},
     "held by LVM logical volume iotune_probe-held (/dev/dm-"),
    ("second-device-of-a-mounted-btrfs", lambda d, k: {"arrays": [extra(d, devices=[BTRFS["paths"][1], d[9]["by_id"]],
                                                                        wipe_devices=[BTRFS["paths"][1]])]},
     "a device of the mounted btrfs filesystem"),
    ("non-empty-directory", lambda d, k: {"arrays": [extra(d, mountpoint="/srv/olddata")]},
     "/srv/olddata is not empty (1 entries: keep.txt)"),
    # profile_preflight: false skips the tuning check only; the mount point checks still run
    ("non-empty-directory-preflight-off", lambda d, k: {"arrays": [extra(d, mountpoint="/srv/olddata")],
                                                        "vars": {"profile_preflight": False}},
     "/srv/olddata is not empty (1 entries: keep.txt)"),
    ("variable-typo", lambda d, k: {"vars": {"iotune_profle": "mongodb"}},
     "unknown variable iotune_profle (did you mean iotune_profile?)"),
    ("sysctl-not-a-vendors", lambda d, k: {"overrides": {"kernel": {"sysctl": {"net.ipv4.ip_forward": 1}}}},
     "net.ipv4.ip_forward is not one of the sysctls database vendors ask for"),
    ("sysctl-action-as-extra", lambda d, k: {"overrides": {"kernel": {"extra_sysctl": {"vm.drop_caches": 3}}}},
     "vm.drop_caches is an action, not a setting"),
    ("foreign-fstab-line", lambda d, k: {"arrays": [extra(d, mountpoint="/srv/foreign")]},
     "gives /srv/foreign to LABEL=iotune-elsewhere"),
    # the unit the observation windows read must run (docs/observe.md; test_observe.py proves the windows)
    ("observe-unit-not-running", lambda d, k: {"vars": {"iotune_observe_seconds": 5,
                                                        "iotune_observe_unit": "iotune-no-such-db"}},
     "iotune_observe_unit: unit iotune-no-such-db.service: no cgroup with processes"),
]


def lab(*args):
    proc = subprocess.run([LAB, *args], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def twin(host):
    """The twin disk's two paths (/dev/sdX), blank; the sha256 of each before the cases; removed afterwards."""
    lab("twin-disk", VM, "--serial", TWIN["serial"], "--size", "64M")
    try:
        listing = "lsblk -dnpo NAME,SERIAL | awk '$2 == \"%s\" {print $1}'" % TWIN["serial"]
        host.run_expect([0], "for i in $(seq 30); do [ $(%s | wc -l) -eq 2 ] && exit 0; sleep 1; done; exit 1"
                        % listing)
        TWIN["paths"] = sorted(host.check_output(listing).split())
        assert len(TWIN["paths"]) == 2, TWIN["paths"]
        sums = host.check_output("sha256sum %s %s | cut -d' ' -f1", *TWIN["paths"]).split()
        assert len(set(sums)) == 1, "the two paths read different bytes: %s" % sums
        yield sums[0]
    finally:
        lab("twin-disk", VM, "--serial", TWIN["serial"], "--remove")


@pytest.fixture(scope="module")
def held(host, disks):
    """A logical volume with 4 MiB of random data in the volume group on lab_disks[5], active and not mounted; the
    sha256 of the volume and of the btrfs file (mounted from the first of two hot-plugged disks); removed after."""
    host.run_expect([0], "lvcreate -q -y -n held -L 8M iotune_probe >/dev/null && "
                         "head -c 4194304 /dev/urandom | dd of=%s bs=1M oflag=direct status=none" % LV)
    for serial in BTRFS["serials"]:
        lab("twin-disk", VM, "--serial", serial, "--paths", "1", "--size", "256M")
    try:
        listing = "lsblk -dnpo NAME,SERIAL | awk '$2 == \"%s\" {print $1}'"
        host.run_expect([0], "for i in $(seq 30); do [ -n \"$(%s)\" ] && [ -n \"$(%s)\" ] && exit 0; sleep 1; done; "
                        "exit 1" % tuple(listing % s for s in BTRFS["serials"]))
        BTRFS["paths"] = [host.check_output(listing % s) for s in BTRFS["serials"]]
        host.run_expect([0], "mkfs.btrfs -q -f %s %s && udevadm settle && mkdir -p %s && mount %s %s && "
                             "head -c 4194304 /dev/urandom > %s/data.bin && sync"
                        % (BTRFS["paths"][0], BTRFS["paths"][1], BTRFS["mount"], BTRFS["paths"][0], BTRFS["mount"],
                           BTRFS["mount"]))
        yield held_sums(host)
    finally:
        host.run("umount %s; rmdir %s; lvremove -q -y iotune_probe/held", BTRFS["mount"], BTRFS["mount"])
        for serial in BTRFS["serials"]:
            lab("twin-disk", VM, "--serial", serial, "--remove")


def held_sums(host):
    return host.check_output("sha256sum %s %s/data.bin | cut -d' ' -f1", LV, BTRFS["mount"]).split()


@pytest.fixture(scope="module")
def refusals(subrun, host, disks, kname, converged, traps, twin, held, tmp_path_factory):
    """Every case in one ansible-playbook run, each as an alias of the VM with its variables (SubRun.run_cases):
    one controller start instead of one per case; each alias fails or passes on its own."""
    mount_busy_disk(host)
    cases = {}
    for case, make, dummy in CASES:
        given = make(disks, kname)
        variables = {"iotune_arrays": [converged] + given.get("arrays", []), "iotune_verify": False}
        if "overrides" in given:
            variables["iotune_profile_overrides"] = given["overrides"]
        variables.update(given.get("vars", {}))
        cases[case] = variables
    found = subrun.run_cases(cases, tmp_path_factory.mktemp("bad-input"))
    # the host after all the cases (each test checks it: one read instead of one per case, the same proof)
    found["host"] = {"fingerprint": host.check_output(FINGERPRINT), "md_extra": host.file("/dev/md/extra").exists,
                     "blkid": [host.run("blkid -p %s", d["by_id"]).rc for d in disks[9:11]],
                     "twin": host.check_output("sha256sum %s %s | cut -d' ' -f1", *TWIN["paths"]).split(),
                     "held": held_sums(host)}
    return found


@pytest.mark.parametrize("case, expected", [(c[0], c[2]) for c in CASES], ids=[c[0] for c in CASES])
def test_refused_before_any_change(refusals, traps, twin, held, case, expected):
    messages, changed, stats = refusals[case]
    # stats first in the message: a case whose host went unreachable was not refused, it was not tried
    assert not stats.get("unreachable"), (stats, refusals[None][-3000:])
    assert stats.get("failures"), (stats, messages, refusals[None][-3000:])
    assert changed == 0
    assert len(messages) == 1 and expected in messages[0], messages
    # the first failure is in the profile role: nothing after it ran
    assert any(step in messages[0] for step in ("Validate the variables", "Check the arrays")), messages
    # the host as it was: fstab, mdadm.conf, rules, arrays, drop-ins; no array extra; the blank disks still blank
    assert refusals["host"]["fingerprint"] == traps
    assert not refusals["host"]["md_extra"]
    assert refusals["host"]["blkid"] == [2, 2]
    # the twin disk read the same bytes on both paths before and after (blank: refused for its identity alone)
    assert refusals["host"]["twin"] == [twin, twin]
    # the logical volume and the btrfs file as they were (refused for who holds them, even opted in to wiping)
    assert refusals["host"]["held"] == held


def test_the_valid_plan_still_passes_the_preflight(subrun, converged, traps):
    """Negative control: the converged variables pass the same checks (tag facts: plan, preflight, facts)."""
    rc, out, report = subrun.run({"iotune_arrays": [converged]}, tags="facts")
    assert rc == 0, failure_messages(report, subrun.hostname)
    assert subrun.changed(report) == 0
    # of the units the mount holds back, the one systemd does not know (the lab has no Cassandra) is named, as a
    # warning; the stand-in that prepare installed is not
    preflight = subrun.tasks(report, "Check the arrays, members and mount points on the host (changes nothing)")[0]
    assert preflight["services_missing"] == ["cassandra.service"], preflight["services_missing"]
    warning = "service cassandra.service is not known to systemd"
    assert warning in out or any(warning in str(w) for w in preflight.get("warnings", [])), out
    assert "iotune-standin.service is not known" not in out
