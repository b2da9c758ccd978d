# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Disk models: presets, parameters, custom limits, the QMP arguments and the ceiling warning."""

import pytest

from iotune_lab import disk_models
from iotune_lab.common import EXIT_USAGE, LabError

KIB, MIB = 1024, 1 << 20


@pytest.mark.parametrize("spec,iops,bps,iops_size", [
    ("unlimited", 0, 0, 0),
    ("instance-store", 0, 0, 0),
    ("ebs-gp3", 3000, 125 * MIB, 256 * KIB),
    ("ebs-piops-2013", 1000, 0, 16 * KIB),
    ("azure-p10", 500, 100 * 10**6, 0),
    ("ebs-io2:4000", 4000, 4000 * 256 * KIB, 256 * KIB),
    ("ebs-io2:64000", 64000, 4000 * MIB, 256 * KIB),
    ("gcp-pd-ssd:100", 3000, int(0.48 * MIB * 100), 0),
    ("iops=1000,bps=16M,iops-size=16K", 1000, 16 * MIB, 16 * KIB),
    ("bps=64M", 0, 64 * MIB, 0),
])
def test_parse(spec, iops, bps, iops_size):
    m = disk_models.parse(spec)
    assert (m["name"], m["iops"], m["bps"], m["iops_size"]) == (spec, iops, bps, iops_size)
    assert m["source"]


@pytest.mark.parametrize("spec,says", [
    ("gp3", "unknown disk model 'gp3'"),
    ("ebs-io2", "unknown disk model"),
    ("ebs-io2:0", "provisioned IOPS"),
    ("ebs-io2:x", "provisioned IOPS"),
    ("gcp-pd-ssd:-5", "size in GiB"),
    ("iops=1k5", "iops must be a number"),
    ("iopz=100", "unknown limit 'iopz'"),
    ("iops-size=16K", "iops-size needs iops"),
    ("", "unknown disk model ''"),
])
def test_parse_refuses(spec, says):
    with pytest.raises(LabError) as e:
        disk_models.parse(spec)
    assert e.value.code == EXIT_USAGE
    assert says in str(e.value)


def test_every_preset_parses_and_is_listed():
    for name in disk_models.PRESETS:
        assert disk_models.parse(name)["name"] == name
    assert "ebs-io2:N" in disk_models.names()


def test_assign_all_then_one():
    models = disk_models.assign(["ebs-gp3", "2=unlimited"], 3)
    assert [m["name"] for m in models] == ["ebs-gp3", "ebs-gp3", "unlimited"]
    assert [m["name"] for m in disk_models.assign(None, 2)] == ["unlimited", "unlimited"]
    # a later "all" value replaces earlier per-disk ones
    assert [m["name"] for m in disk_models.assign(["0=azure-p10", "ebs-gp3"], 2)] == ["ebs-gp3", "ebs-gp3"]


def test_assign_refuses_a_disk_that_is_not_there():
    with pytest.raises(LabError) as e:
        disk_models.assign(["3=ebs-gp3"], 3)
    assert "0 to 2" in str(e.value)


def test_throttle_args_and_qdev_ids():
    m = disk_models.parse("ebs-piops-2013")
    virtio = {"serial": "vol1", "bus": "virtio"}
    nvme = {"serial": "vol2", "bus": "nvme"}
    assert disk_models.qdev_block_id(virtio) == "vol1/virtio-backend"
    assert disk_models.qdev_block_id(nvme) == "vol2"
    args = disk_models.throttle_args("vol2", m)
    assert args == {"id": "vol2", "bps": 0, "bps_rd": 0, "bps_wr": 0, "iops": 1000, "iops_rd": 0, "iops_wr": 0,
                    "iops_size": 16 * KIB}
    # unlimited: every limit zero, which is how QMP removes limits
    assert "iops_size" not in disk_models.throttle_args("x", disk_models.parse("unlimited"))


def test_ceiling_problems():
    ceiling = {"iops": 4500.0, "bps": 300.0 * MIB, "measured": "2026-11-26"}
    assert disk_models.ceiling_problems(disk_models.parse("ebs-piops-2013"), ceiling) == []
    gp3 = disk_models.ceiling_problems(disk_models.parse("ebs-gp3"), ceiling)
    assert len(gp3) == 2 and "above a third" in gp3[0]
    assert disk_models.ceiling_problems(disk_models.parse("ebs-gp3"), None) == []


def test_describe():
    assert disk_models.describe(disk_models.parse("ebs-piops-2013")) == "ebs-piops-2013: 1000 IOPS (units of 16 KiB)"
    assert disk_models.describe(disk_models.parse("unlimited")) == "unlimited: no limit"
