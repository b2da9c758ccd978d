# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Data disks: sizes, serials, by-id paths."""

import re

import pytest

from iotune_lab import disks
from iotune_lab.common import EXIT_USAGE, LabError


@pytest.mark.parametrize("text,size", [
    ("1G", 1 << 30), ("2g", 2 << 30), ("512M", 512 << 20), ("1024K", 1 << 20), ("1T", 1 << 40),
    ("1073741824", 1 << 30), ("1GiB", 1 << 30), ("1GB", 1 << 30), (" 4G ", 4 << 30),
])
def test_parse_size(text, size):
    assert disks.parse_size(text) == size


@pytest.mark.parametrize("text", ["", "G", "1X", "1.5G", "-1G", "512K", "1000000", "1048577"])
def test_parse_size_rejects(text):
    with pytest.raises(LabError) as e:
        disks.parse_size(text)
    assert e.value.code == EXIT_USAGE


@pytest.mark.parametrize("bus,path", [
    ("virtio", "/dev/disk/by-id/virtio-vol0123456789abcdef0"),
    ("nvme", "/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_vol0123456789abcdef0"),
    ("scsi", "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_vol0123456789abcdef0"),
])
def test_by_id_path(bus, path):
    assert disks.by_id_path(bus, "vol0123456789abcdef0") == path


def test_new_disks_look_like_ebs_volumes():
    new = disks.new_disks(3, "virtio", 1 << 30)
    assert [d["file"] for d in new] == ["disk0.raw", "disk1.raw", "disk2.raw"]
    serials = [d["serial"] for d in new]
    assert len(set(serials)) == 3
    for d in new:
        assert re.fullmatch(r"vol[0-9a-f]{17}", d["serial"])
        assert d["by_id"] == "/dev/disk/by-id/virtio-" + d["serial"]
        assert (d["size_bytes"], d["bus"], d["attached"]) == (1 << 30, "virtio", True)


def test_instance_store_disks_follow_with_a_gcp_local_ssd_identity():
    new = disks.new_disks(2, "nvme", 1 << 30, instance_store=2)
    assert [d["file"] for d in new] == ["disk0.raw", "disk1.raw", "disk2.raw", "disk3.raw"]
    assert [d["bus"] for d in new] == ["nvme", "nvme", "scsi", "scsi"]
    assert [d.get("instance_store", False) for d in new] == [False, False, True, True]
    assert [d["serial"] for d in new[2:]] == ["local-ssd-0", "local-ssd-1"]
    assert new[3]["by_id"] == "/dev/disk/by-id/scsi-0Google_EphemeralDisk_local-ssd-1"
    # LUNs count the SCSI disks only
    assert [d.get("lun") for d in new] == [None, None, 0, 1]


def test_scsi_disks_get_one_lun_each():
    assert [d["lun"] for d in disks.new_disks(3, "scsi", 1 << 30, instance_store=1)] == [0, 1, 2, 3]
    assert all("lun" not in d for d in disks.new_disks(2, "virtio", 1 << 30))


def test_blank_disk_file_reads_as_zeros_with_the_same_size(tmp_path):
    f = tmp_path / "disk0.raw"
    f.write_bytes(b"\x00" * 4096 + b"XFSB" + b"\x01" * 4092)
    disks.blank_disk_file(f, 1 << 20)
    data = f.read_bytes()
    assert len(data) == 1 << 20 and data.count(0) == len(data)
