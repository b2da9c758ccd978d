# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Data disks: size parsing, serials, by-id paths, the disk files of a VM."""

import re
import secrets

from .common import EXIT_USAGE, LabError, run

BUSES = ("virtio", "nvme", "scsi")


def parse_size(text):
    m = re.fullmatch(r"(\d+)([KMGT]?)(i?B?)?", text.strip(), re.IGNORECASE)
    if not m:
        raise LabError(f"invalid size {text!r} (examples: 2G, 512M, 1073741824)", EXIT_USAGE)
    mult = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2).upper()]
    size = int(m.group(1)) * mult
    if size < (1 << 20) or size % 512:
        raise LabError(f"disk size {text!r} must be at least 1M and a multiple of 512 bytes",
                       EXIT_USAGE)
    return size


def by_id_path(bus, serial):
    # Checked in a guest (Debian 12, udev 252): see docs/lab.md.
    if bus == "virtio":
        return f"/dev/disk/by-id/virtio-{serial}"
    if bus == "nvme":
        return f"/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_{serial}"
    return f"/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_{serial}"


# The identity qemu's scsi-hd can give that a cloud gives its instance-store disks: a GCP local SSD on
# SCSI reports vendor "Google", product "EphemeralDisk" and serial "local-ssd-N" (by-id
# scsi-0Google_EphemeralDisk_local-ssd-N). The NVMe models of AWS and Azure instance store are longer
# than qemu 7.2 lets an NVMe controller's model be set (it cannot be set at all), see docs/lab.md.
INSTANCE_STORE_VENDOR = "Google"
INSTANCE_STORE_PRODUCT = "EphemeralDisk"


def instance_store_by_id(serial):
    return f"/dev/disk/by-id/scsi-0{INSTANCE_STORE_VENDOR}_{INSTANCE_STORE_PRODUCT}_{serial}"


def new_serial():
    """A serial like an EBS volume id: `vol` + 17 hex digits (20 characters)."""
    return "vol" + secrets.token_hex(9)[:17]


def new_disks(count, bus, size, instance_store=0):
    """The state entries of `count` new data disks (files disk0.raw ...), then `instance_store` disks
    marked as instance store (SCSI, GCP local SSD identity, serials local-ssd-0 ...).

    Every SCSI disk gets its own LUN (`lun`, 0, 1, ... in attachment order, target 0), as a cloud's
    SCSI data disks do."""
    disks = []
    for i in range(count):
        serial = new_serial()
        disks.append({"serial": serial, "by_id": by_id_path(bus, serial), "size_bytes": size,
                      "bus": bus, "file": f"disk{i}.raw", "attached": True})
    for j in range(instance_store):
        serial = f"local-ssd-{j}"
        disks.append({"serial": serial, "by_id": instance_store_by_id(serial), "size_bytes": size,
                      "bus": "scsi", "file": f"disk{count + j}.raw", "attached": True,
                      "instance_store": True})
    lun = 0
    for disk in disks:
        if disk["bus"] == "scsi":
            disk["lun"] = lun
            lun += 1
    return disks


def fresh_disks(d, st, img):
    """(Re)create the root overlay and the empty data disks."""
    overlay = d / "root.qcow2"
    overlay.unlink(missing_ok=True)
    run(["qemu-img", "create", "-q", "-f", "qcow2", "-b", img / "base.qcow2", "-F", "qcow2",
         overlay], capture=True, quiet=True)
    for disk in st["disks"]:
        f = d / disk["file"]
        f.unlink(missing_ok=True)
        with open(f, "wb") as fh:
            fh.truncate(disk["size_bytes"])       # sparse: costs no space until written


def blank_disk_file(path, size):
    """Make a data disk file blank, as an instance-store disk comes back after a stop/start: every byte
    reads as zero (truncated to 0 and back to ``size``: sparse, nothing of the old content is left)."""
    with open(path, "r+b") as fh:
        fh.truncate(0)
        fh.truncate(size)
