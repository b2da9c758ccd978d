# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""iotune.storage.readahead_facts in the lab VM compared with sysfs, blockdev, lsblk and mdadm.

Runs after converge (array `data` on md, XFS at /var/lib/cassandra). The module runs in check
mode through testinfra's Ansible backend. Disks are picked from the host variable `lab_disks`,
never by /dev/vdX name.
"""
import json
import os

import pytest

MOUNTPOINT = "/var/lib/cassandra"


def _lines(host, cmd):
    return [line for line in host.check_output(cmd).splitlines() if line.strip()]


@pytest.fixture(scope="module")
def sys_block(host):
    """The block devices of /sys/block but the hidden ones (the paths nvme0c0n1 of a multipath NVMe namespace, which
    qemu 10's controllers make the kernel create on the NVMe entry: no device node, not a disk to tune)."""
    names = _lines(host, "for d in /sys/block/*; do [ \"$(cat $d/hidden 2>/dev/null)\" = 1 ] || basename $d; done")
    assert names, "/sys/block is empty in the VM: nothing to compare against"
    return names


def test_hidden_paths_are_not_reported(host, sys_block):
    """Every visible device, and no hidden one, in the module's default selection (every block device)."""
    hidden = _lines(host, "for d in /sys/block/*; do [ \"$(cat $d/hidden 2>/dev/null)\" = 1 ] && basename $d; done; true")
    result = host.ansible("iotune.storage.readahead_facts", "", check=True)
    reported = set(result["ansible_facts"]["iotune_readahead"])
    assert not set(hidden) & reported, hidden
    assert set(n for n in sys_block if not n.startswith(("loop", "ram", "zram"))) <= reported


@pytest.fixture(scope="module")
def facts(host, sys_block):
    result = host.ansible("iotune.storage.readahead_facts", "devices=%s" % ",".join(sys_block),
                          check=True)
    assert not result.get("failed"), result
    assert result.get("changed") is False
    return result["ansible_facts"]["iotune_readahead"]


def _read(host, path):
    return host.file(path).content_string.strip()


def test_every_sysfs_device_reported(facts, sys_block):
    whole = sorted(n for n, d in facts.items() if d["type"] != "partition")
    assert whole == sorted(sys_block)


def test_readahead_and_scheduler_match_sysfs(host, facts, sys_block):
    for name in sys_block:
        dev = facts[name]
        assert dev["read_ahead_kb"] == int(_read(host, "/sys/block/%s/queue/read_ahead_kb" % name)), name
        assert dev["read_ahead_sectors"] == 2 * dev["read_ahead_kb"]
        sched = host.file("/sys/block/%s/queue/scheduler" % name)
        if sched.exists:
            raw = sched.content_string.split()
            current = [s[1:-1] for s in raw if s.startswith("[")]
            assert dev["scheduler"] == (current[0] if current else None), name
        else:
            assert dev["scheduler"] is None, name
        assert dev["maj_min"] == _read(host, "/sys/block/%s/dev" % name)


def test_blockdev_getra_is_sectors(host, facts, sys_block):
    for name in sys_block:
        if facts[name]["size_bytes"] == 0:
            continue  # unattached loop / inactive md: opening it fails
        getra = int(host.check_output("blockdev --getra /dev/%s" % name))
        assert facts[name]["read_ahead_sectors"] == getra, name


def test_lsblk_agrees(host, facts):
    data = json.loads(host.check_output("lsblk -J -b -o NAME,RA,ROTA,OPT-IO,MIN-IO,SIZE,TYPE"))

    def walk(nodes):
        for node in nodes:
            yield node
            yield from walk(node.get("children", []))

    seen = 0
    for node in walk(data["blockdevices"]):
        name = node["name"]
        if name not in facts:
            continue
        dev = facts[name]
        seen += 1
        assert dev["read_ahead_kb"] == int(node["ra"]), name    # lsblk RA is KiB
        assert dev["size_bytes"] == int(node["size"]), name
        assert dev["optimal_io_size"] == int(node["opt-io"]), name
        assert dev["minimum_io_size"] == int(node["min-io"]), name
        assert dev["rotational"] == (str(node["rota"]).lower() in ("1", "true")), name
        if node["type"] == "part":
            assert dev["type"] == "partition" and dev["readahead_shared_with"]
    assert seen, "lsblk listed none of the reported devices"


def test_md_matches_mdadm(host, facts):
    arrays = [d for d in facts.values() if d["type"] == "md" and d["md"]["array_state"] not in ("inactive", "clear")]
    assert arrays, "no active md array in the VM after converge"
    for dev in arrays:
        export = dict(line.split("=", 1) for line in
                      _lines(host, "mdadm --detail --export %s" % dev["path"]) if "=" in line)
        md = dev["md"]
        assert md["level"] == export["MD_LEVEL"]
        assert md["uuid"] == export["MD_UUID"]
        assert md["raid_disks"] == int(export["MD_DEVICES"])
        assert md["metadata_version"] == export["MD_METADATA"]
        if "MD_DEVNAME" in export:
            assert md["devname"] == export["MD_DEVNAME"]
        assert md["chunk_kb"] * 1024 == int(_read(host, "/sys/block/%s/md/chunk_size" % dev["name"]))
        assert sorted(dev["slaves"]) == sorted(_lines(host, "ls -1 /sys/block/%s/slaves" % dev["name"]))
        for member in dev["slaves"]:
            assert dev["name"] in facts[member]["holders"]
        assert dev["scheduler"] is None
        # RAID0: io_opt = chunk x data disks, kernel default = max(2 x io_opt, 128 KiB)
        if md["level"] == "raid0":
            assert dev["optimal_io_size"] == md["chunk_kb"] * 1024 * md["raid_disks"]
            assert dev["kernel_default_read_ahead_kb"] == max(2 * md["chunk_kb"] * md["raid_disks"], 128)


def test_database_mount_reported(host, facts):
    source = host.check_output("findmnt -n -o MAJ:MIN %s" % MOUNTPOINT).strip()
    owners = [d for d in facts.values() if d["maj_min"] == source]
    assert len(owners) == 1, source
    assert MOUNTPOINT in [m["mountpoint"] for m in owners[0]["mounts"]]
    assert [m["fstype"] for m in owners[0]["mounts"] if m["mountpoint"] == MOUNTPOINT] == ["xfs"]


def test_lab_disks_identity(host, facts):
    lab_disks = host.ansible.get_variables().get("lab_disks") or []
    assert lab_disks, "host variable lab_disks missing"
    for disk in lab_disks:
        target = os.path.basename(host.check_output("readlink -f %s" % disk["by_id"]).strip())
        dev = facts[target]
        assert dev["serial"] == disk["serial"], target
        assert dev["size_bytes"] == disk["size_bytes"], target
        assert disk["by_id"] in dev["by_id"], target
