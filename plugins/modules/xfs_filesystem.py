#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

__metaclass__ = type

DOCUMENTATION = r"""
---
module: xfs_filesystem
short_description: Make a stripe-aligned XFS filesystem safely and verify its geometry
version_added: 0.1.0
description:
  - Creates an XFS filesystem with C(mkfs.xfs -L LABEL -d su=SUk,sw=N DEVICE) when the device is blank.
  - The stripe unit and width come from O(su_kb)/O(sw), or, when they are not given and the device is
    an md array, from sysfs (C(md/chunk_size) and C(md/raid_disks)).
  - Refuses a device that carries any signature other than XFS (another filesystem, LVM2 physical
    volume, md superblock, partition table), or that is mounted, used as swap or held, with a message
    naming the device and the reason. It never passes C(-f) to mkfs.xfs and never wipes anything.
  - Also refuses a device without any signature whose first MiB, the MiB at offset 1 MiB or last MiB
    is not all zeros (for example an array whose members held a filesystem, or a disk whose partition
    table was lost), unless O(allow_data=true); and a partition whose disk or sibling partitions are
    in use, unless O(allow_shared_disk=true).
  - An existing XFS filesystem is left alone when its label and stripe geometry match; otherwise the
    module fails (it never re-formats).
  - After creating (or finding) the filesystem it reads the geometry with C(xfs_info) and fails when
    C(sunit)/C(swidth) do not match the expected stripe.
  - Check mode predicts the result; on a fresh host (no xfsprogs, device not created yet) it reports
    V(changed=true) and a warning instead of failing.
author:
  - iotune.storage contributors (@iotune)
options:
  device:
    description:
      - Block device to put the filesystem on, for example C(/dev/md/data) or a C(/dev/disk/by-id/) path.
    type: path
    required: true
  label:
    description:
      - Filesystem label, 1-12 letters, digits or C(_ . + -) (XFS labels hold at most 12 characters). When the device already has XFS with a different
        label the module fails.
    type: str
  su_kb:
    description:
      - Stripe unit in KiB (the md chunk size). Requires O(sw).
      - When neither O(su_kb) nor O(sw) are given, they are read from the md array in sysfs; for a
        device that is not an md array no alignment is requested or checked.
    type: int
  sw:
    description:
      - Stripe width as a number of stripe units (the number of data disks). Requires O(su_kb).
    type: int
  allow_data:
    description:
      - Make the filesystem even though the device holds non-zero data that no tool recognises (no
        signature), for example a new array whose members were wiped with C(wipefs) (which erases
        signatures, not data).
      - It never overrides a signature (another filesystem, LVM2, md, partition table) nor a device
        in use.
      - The P(iotune.storage.xfs#role) role sets it only for an array one of whose members the user
        listed in C(wipe_devices).
    type: bool
    default: false
  allow_shared_disk:
    description:
      - Allow a partition whose disk, or another partition of that disk, is in use (mounted, swap,
        held, the root filesystem). Without it such a partition is refused.
    type: bool
    default: false
  mountpoint:
    description:
      - Where the filesystem is to be mounted. Only read, never created here; the module reports whether it
        exists (RV(mountpoint_exists)) and which other mount points the fstab gives this filesystem
        (RV(fstab_elsewhere)), so that the P(iotune.storage.xfs#role) role needs no further round trip.
    type: path
  mount_options:
    description:
      - With O(mountpoint), the options field of the fstab line that the caller means to write (for example
        C(noatime,nofail,x-systemd.device-timeout=90s)). RV(mounted_as_planned) then says whether that line is
        already there and the filesystem is mounted on O(mountpoint), so that a re-run needs no mount call.
    type: str
  move_from:
    description:
      - The opt-in to move an existing filesystem. When the filesystem is mounted on, or given by the fstab to, a
        path other than O(mountpoint) (RV(fstab_elsewhere), RV(mounted_elsewhere)), the module fails (a mistyped
        or changed mount point on a converged host must never move live data) unless that one path is
        O(move_from). Requires O(mountpoint).
    type: str
  fstab:
    description: Path of the fstab file read for RV(fstab_elsewhere).
    type: path
    default: /etc/fstab
  mkfs_marker:
    description:
      - A file that records a C(mkfs.xfs) in progress on an md array (the array's UUID as the kernel shows it in
        C(md/uuid), and the UUID given to the new filesystem with C(-m uuid=)). It is written (and flushed to
        disk) before mkfs runs and removed once mkfs finished.
      - After a crash in between, the next call finds an XFS whose superblock says mkfs did not finish
        (C(sb_inprogress), which the kernel refuses to mount), or blocks written before its superblock, on the same
        array. It makes the filesystem again (C(-f)), and only then. A half-made XFS that the marker does not name
        (another array, another filesystem UUID, no marker) is refused before any change.
      - Unset (the default) writes no marker; a half-made XFS is then always refused.
    type: path
  mkfs_discard:
    description:
      - V(false) runs C(mkfs.xfs -K), which does not discard the whole device before writing the filesystem (the
        profile's C(mkfs.discard); docs/xfs.md). It only matters when the filesystem is made; an existing one is never
        made again.
    type: bool
    default: true
  discard_by_class:
    description:
      - The discard policy per member class (V(nvme), V(virtual), V(ssd), V(hdd), V(ebs), V(instance_store)), each
        V(none), V(fstrim_timer) or V(online) (the profile's C(discard_by_class)). The policy of the filesystem is
        that of its device's members (an md array's members, or the device itself), the most conservative one when
        they differ (RV(discard)); with V(online) the option C(discard) is added to O(mount_options) (RV(mount_options)).
      - Empty (the default) - no policy, O(mount_options) as given.
    type: dict
    default: {}
  members:
    description:
      - The devices O(device) is planned to be made of (an md array's members, any path to each). Read only while
        O(device) does not exist yet, that is in check mode before the array is made; the discard policy
        (RV(discard)) and the mount options (RV(mount_options)) are then predicted from these devices' classes.
        Once O(device) exists, its members are read from sysfs and this is ignored.
      - The P(iotune.storage.tune#role) role passes the members of the planned array.
    type: list
    elements: path
    default: []
notes:
  - Runs C(blkid), C(wipefs), C(mkfs.xfs) and C(xfs_info) with argument lists, never through a shell.
  - Mounting is left to M(ansible.posix.mount) (the P(iotune.storage.xfs#role) role mounts by UUID).
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.platform
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
requirements:
  - xfsprogs (not needed in check mode)
  - util-linux (blkid, wipefs)
"""

EXAMPLES = r"""
- name: XFS on the RAID0 array, geometry from the array
  iotune.storage.xfs_filesystem:
    device: /dev/md/data
    label: data
  register: data_fs

- name: XFS with an explicit stripe (for example on a hardware RAID volume)
  iotune.storage.xfs_filesystem:
    device: /dev/disk/by-id/scsi-3600508b1001c0000
    label: logs
    su_kb: 64
    sw: 8

- name: XFS made without discarding the device first, and the members' discard policy
  iotune.storage.xfs_filesystem:
    device: /dev/md/data
    label: data
    mkfs_discard: false
    mountpoint: /var/lib/cassandra
    mount_options: noatime,nofail,x-systemd.device-timeout=90s
    discard_by_class: {nvme: fstrim_timer, instance_store: fstrim_timer, hdd: none}

- name: XFS on a new array whose members held old data (their signatures were wiped by mdadm_array)
  iotune.storage.xfs_filesystem:
    device: /dev/md/scratch
    label: scratch
    allow_data: true
"""

RETURN = r"""
device:
  description: The device as given.
  returned: always
  type: str
  sample: /dev/md/data
resolved:
  description: The kernel device node the path resolves to; V(null) when it does not exist yet.
  returned: always
  type: str
  sample: /dev/md127
uuid:
  description: Filesystem UUID (use it in fstab as C(UUID=...)); V(null) when not known yet (check mode).
  returned: always
  type: str
  sample: 0b7e9c55-1f5b-4a0e-9d5e-6a4a3c1d2e10
label:
  description: Filesystem label.
  returned: always
  type: str
  sample: data
created:
  description: Whether the filesystem was (or in check mode would be) created.
  returned: always
  type: bool
expected:
  description: Expected stripe geometry; V(null) values when no alignment is requested.
  returned: always
  type: dict
  sample: {su_kb: 256, sw: 4, source: md}
geometry:
  description:
    - Geometry read back with C(xfs_info). C(sunit_blocks)/C(swidth_blocks) are in filesystem blocks of
      C(bsize) bytes; C(su_kb)/C(sw) are the same values as given to mkfs.xfs.
    - Empty when it could not be read (check mode before the filesystem exists).
  returned: always
  type: dict
  sample: {bsize: 4096, sunit_blocks: 64, swidth_blocks: 256, su_kb: 256, sw: 4, agcount: 8}
mountpoint_exists:
  description: Whether O(mountpoint) exists (as anything); V(null) without O(mountpoint).
  returned: always
  type: bool
  sample: true
fstab_elsewhere:
  description:
    - The mount points of the active fstab lines that mount this filesystem (C(UUID=) its UUID) somewhere other
      than O(mountpoint), for example the old place of an array that moved. Empty without O(mountpoint) or
      without a UUID (check mode before the filesystem exists).
  returned: always
  type: list
  elements: str
  sample: [/srv/old-data]
mounted_elsewhere:
  description:
    - The mount points the filesystem is mounted on now other than O(mountpoint). Empty without O(mountpoint) or
      without a UUID.
  returned: always
  type: list
  elements: str
  sample: [/srv/old-data]
cmd:
  description: The mkfs.xfs command that was (or would be) run; empty when nothing had to be done.
  returned: always
  type: list
  elements: str
discard:
  description:
    - The discard policy of the filesystem (C(policy) V(none), V(fstrim_timer), V(online), or V(null) when
      O(discard_by_class) says nothing about its members), the reason (C(why)) and the class each member was taken as
      (C(classes)); C(fstrim_timer) is V(true) for the policy V(fstrim_timer) while C(fstrim.timer) is not enabled
      and active (one C(systemctl show); the P(iotune.storage.xfs#role) role then enables it, and a converged re-run
      makes no call for it).
  returned: always
  type: dict
  sample: {policy: fstrim_timer, why: "fstrim_timer (nvme1n1: nvme -> fstrim_timer)", classes: {nvme1n1: nvme},
           fstrim_timer: true}
mount_options:
  description:
    - The options field of the fstab line for this filesystem - O(mount_options), with C(discard) when the policy is
      V(online); V(null) without O(mount_options).
  returned: always
  type: str
  sample: noatime,nofail,x-systemd.device-timeout=90s
mounted_here:
  description:
    - V(true) when this filesystem is mounted on O(mountpoint) now (C(/proc/self/mountinfo)), whatever its fstab line
      says. V(false) without O(mountpoint) or without a UUID.
  returned: always
  type: bool
mounted_as_planned:
  description:
    - V(true) when the fstab has exactly one active line for O(mountpoint), and it is
      C(UUID=<uuid> <mountpoint> xfs <mount_options> 0 0), and this filesystem is mounted there now
      (C(/proc/self/mountinfo)). V(false) otherwise, and without O(mountpoint) or O(mount_options).
  returned: always
  type: bool
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.iotune.storage.plugins.module_utils import device_safety as ds
from ansible_collections.iotune.storage.plugins.module_utils.host import BlockHost
# the call lives in module_utils so that the preflight's stage check runs the same code (and the executor of
# xfs_format.py, below it, so that the boot-time program of ephemeral arrays does)
from ansible_collections.iotune.storage.plugins.module_utils.xfs_call import (
    BINS,
    REQUIRED_TOGETHER,
    FsError,
    argument_spec,
    filesystem_call,
)
from ansible_collections.iotune.storage.plugins.module_utils.module_call import result_or_fail


def main():
    module = AnsibleModule(argument_spec=argument_spec(), required_together=REQUIRED_TOGETHER, supports_check_mode=True)
    bins = dict((name, module.get_bin_path(name)) for name in BINS)
    view = BlockHost(run_command=module.run_command, blkid=bins['blkid'] or 'blkid',
                     wipefs=bins['wipefs'] or 'wipefs')
    result = result_or_fail(module, lambda: filesystem_call(module.params, view, module.run_command, bins,
                                                            check_mode=module.check_mode, warn=module.warn,
                                                            diff=module._diff),
                            (FsError, ds.DeviceError), device=module.params['device'])
    module.exit_json(**result)


if __name__ == '__main__':
    main()
