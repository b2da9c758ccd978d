#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

__metaclass__ = type

DOCUMENTATION = r"""
---
module: mdadm_array
short_description: Create, assemble or stop Linux md RAID0 arrays safely and idempotently
version_added: 0.1.0
description:
  - Creates an md RAID0 array C(/dev/md/NAME) with C(mdadm --create), assembles an existing but
    inactive array from its members, or stops an array.
  - Before anything is written, every member is checked. A member is refused when it (or one of its
    partitions) is mounted, used as swap, held by another device (an active md array, LVM/device
    mapper), or when it carries any signature (filesystem of any type including XFS, LVM2 physical
    volume, md superblock, partition table) found by C(blkid -p) and C(wipefs --no-act). mdadm's own
    check does not recognise XFS or LVM.
  - A member without any signature whose first MiB, the MiB at offset 1 MiB (2048 sectors, the usual
    start of a first partition) or last MiB is not all zeros is refused as well - for example a disk
    whose partition table was lost but that still holds a filesystem at 1 MiB, which C(blkid) and
    C(wipefs) do not see. Fresh cloud volumes read as zeros and pass.
  - A member that is a partition is refused when its disk or another partition of that disk is in use
    (mounted, swap, held, the root filesystem), unless it is listed in O(allow_shared_disk).
  - A member carrying a signature (or non-zero data) is only used when it is listed in O(wipe_devices);
    signatures are then wiped with C(wipefs --all --backup) right before the array is created, and
    restored from the backup when C(mdadm --create) fails. Devices in use are never touched.
  - An existing array with the same members, level and chunk is left alone. An array with the same
    name but different members, level or chunk is a failure; it is never re-created silently.
  - Check mode predicts the result without changing anything, also on a host where mdadm is not
    installed yet (the prediction then relies on C(blkid), part of util-linux). C(blkid) shows the
    name and UUID of an md superblock but not its level, chunk size or number of members; a predicted
    assembly then comes with a warning that the prediction is uncertain.
author:
  - iotune.storage contributors (@iotune)
options:
  name:
    description:
      - Array name, at most 32 characters (letters, digits, C(.), C(_), C(-)). The array device is
        C(/dev/md/NAME).
    type: str
    required: true
  state:
    description:
      - V(present) creates the array when it does not exist, assembles it when its members carry
        its superblock but it is not running, and leaves a matching running array alone.
      - V(assembled) is like V(present) but never creates an array; it fails when no array named
        O(name) is found on O(devices).
      - V(absent) stops the array (C(mdadm --stop)). It refuses when the array is mounted or held by
        another device. The superblocks on the members are B(not) erased, so the array can be
        assembled again; remove its ARRAY line from mdadm.conf to keep it from being assembled at
        boot, and wipe the members yourself if you want the data gone.
    type: str
    choices: [present, absent, assembled]
    default: present
  devices:
    description:
      - Member devices. Any path to a block device works (C(/dev/disk/by-id/...), C(/dev/vdb));
        paths are resolved with realpath. Two paths that resolve to the same device are an error.
      - Required for O(state=present) and O(state=assembled).
    type: list
    elements: path
  level:
    description:
      - RAID level. Only V(0) is implemented; anything else fails with a clear message.
    type: int
    default: 0
  chunk_kb:
    description:
      - Chunk size in KiB, a power of two and at least 4. The default is mdadm's own default (512).
      - Use the same value as stripe unit of the filesystem (the P(iotune.storage.xfs_filesystem#module)
        module reads it from sysfs).
    type: int
    default: 512
  metadata:
    description:
      - Superblock format. V(1.2) (mdadm's default) stores it 4 KiB from the start of each member.
    type: str
    choices: ['1.0', '1.1', '1.2']
    default: '1.2'
  homehost:
    description:
      - Value for C(mdadm --homehost) at create time; the superblock name becomes C(HOMEHOST:NAME).
      - The default V(any) is mdadm's wildcard host. Measured with mdadm 4.2 (Debian 12), an array
        created with C(--homehost=any) is stored as C(any:NAME) and udev incremental assembly
        (C(mdadm --incremental)) starts it as C(/dev/md/NAME) with C(MD_FOREIGN=no) - on this host,
        after a hostname change and on any other host the disks are moved to.
      - With a host name (mdadm's own default is this host's name), the array is local only where
        the hostname matches and comes up as C(NAME_0)/C(md127) elsewhere. V(<none>) stores the plain
        name, which mdadm 4.2 treats as foreign (C(NAME_0)) everywhere unless mdadm.conf lists it.
      - In addition the P(iotune.storage.raid0#role) role writes an ARRAY line (UUID and name) into
        mdadm.conf and the initramfs.
      - Only used when the array is created.
    type: str
    default: any
  wipe_devices:
    description:
      - Devices that may be wiped with C(wipefs --all) before the array is created. Every entry must
        also be listed in O(devices) (any path to the same device counts). Devices that are mounted,
        used as swap or held are refused even when listed here.
      - A listed device with non-zero data but no signature is used as it is (C(mdadm --create)
        overwrites it; there is nothing for C(wipefs) to erase).
      - The erased signature bytes are saved by C(wipefs --backup) into a new directory
        C(/var/backups/iotune-storage/NAME-TIMESTAMP-XXXX/) (mode 0700), one file
        C(wipefs-DEVICE-0xOFFSET.bak) per signature (RV(wipe_backups)). When C(wipefs) or
        C(mdadm --create) fails they are written back and the failure message says so.
    type: list
    elements: path
    default: []
  allow_shared_disk:
    description:
      - Partitions in O(devices) that may be used although their disk, or another partition of the
        same disk, is in use (mounted, swap, held by md/LVM/device mapper, the root filesystem).
        Without it such a partition is refused, naming the disk and what uses it.
      - Every entry must also be listed in O(devices) (any path to the same device counts). It does
        not allow a member that is itself in use, nor one that carries a signature or data (see
        O(wipe_devices)).
    type: list
    elements: path
    default: []
  allow_single_device:
    description:
      - Allow an array with a single member. A RAID0 of one device stripes nothing and mdadm only
        creates it with C(--force); without this option O(devices) with one entry is refused.
    type: bool
    default: false
  settle_timeout:
    description:
      - Seconds to wait for udev and for C(/dev/md/NAME) to appear after create/assemble.
    type: int
    default: 60
  conf_path:
    description:
      - mdadm.conf to keep in step with the array (C(/etc/mdadm/mdadm.conf) on Debian/Ubuntu,
        C(/etc/mdadm.conf) elsewhere). When set, the lines that describe this array (by C(/dev/md/NAME),
        C(name=) in either form or its UUID) but differ from RV(array_line) are removed and RV(array_line)
        is written once; with O(state=absent) every line of the array is removed. A new file is created
        with mode 0644. RV(conf_changed) tells whether the initramfs (which carries a copy) needs a rebuild.
      - Unset (the default) leaves mdadm.conf alone.
    type: path
  rebuild_marker:
    description:
      - A file that records an initramfs rebuild owed since O(conf_path) changed. When mdadm.conf is about to
        change it is written first (mode 0600, flushed to disk before mdadm.conf is written), and RV(rebuild_pending)
        stays V(true) while it exists. A run that crashed or was stopped between the change and the end of the
        rebuild leaves it, and the next run rebuilds although mdadm.conf is in step by then. The caller removes it
        once the rebuild finished (the P(iotune.storage.raid0#role) role does, with its C(raid0_rebuild_marker)).
      - Unset (the default) writes no marker; RV(rebuild_pending) is then always V(false).
    type: path
notes:
  - Runs C(mdadm), C(blkid), C(wipefs), C(blockdev) and C(udevadm) with argument lists, never through a shell.
  - C(mdadm --create) is run with C(--run) because mdadm's confirmation prompt answers "no" without a
    terminal; the safety checks above replace that prompt.
  - Writing mdadm.conf and rebuilding the initramfs are done by the P(iotune.storage.raid0#role)
    role, using RV(array_line).
seealso:
  - name: mdadm(8)
    description: The mdadm manual page.
    link: https://man7.org/linux/man-pages/man8/mdadm.8.html
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.platform
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
requirements:
  - mdadm (not needed in check mode)
  - util-linux (blkid, wipefs)
"""

EXAMPLES = r"""
- name: Create a RAID0 over four EBS volumes, 256 KiB chunk
  iotune.storage.mdadm_array:
    name: data
    devices:
      - /dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0aaa
      - /dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0bbb
      - /dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0ccc
      - /dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0ddd
    chunk_kb: 256
  register: data_array

- name: Re-use two disks that held an old XFS filesystem (explicit opt-in to wiping them)
  iotune.storage.mdadm_array:
    name: scratch
    devices: [/dev/vdb, /dev/vdc]
    wipe_devices: [/dev/vdc]

- name: Use the empty second partition of a disk whose first partition is mounted (explicit opt-in)
  iotune.storage.mdadm_array:
    name: scratch
    devices: [/dev/sdb2, /dev/sdc2]
    allow_shared_disk: [/dev/sdb2, /dev/sdc2]

- name: A single-device "array" (only when an md device is wanted anyway)
  iotune.storage.mdadm_array:
    name: single
    devices: [/dev/vdd]
    allow_single_device: true

- name: Only assemble an existing array (never create)
  iotune.storage.mdadm_array:
    name: data
    state: assembled
    devices: "{{ data_disks }}"

- name: Stop an array (superblocks stay)
  iotune.storage.mdadm_array:
    name: scratch
    state: absent
"""

RETURN = r"""
device:
  description: The array device.
  returned: always
  type: str
  sample: /dev/md/data
kernel_name:
  description: Kernel name of the array device; V(null) when it does not exist (check mode, absent).
  returned: always
  type: str
  sample: md127
uuid:
  description: Array UUID in mdadm's colon form; V(null) when not known yet (check mode create).
  returned: always
  type: str
  sample: 3d0e6a1c:5b2f9d44:8a1e7c02:91f0b3aa
level:
  description: RAID level as mdadm names it.
  returned: always
  type: str
  sample: raid0
chunk_kb:
  description: Chunk size in KiB.
  returned: always
  type: int
  sample: 256
members:
  description: Member devices (kernel paths), sorted.
  returned: always
  type: list
  elements: str
  sample: [/dev/vdb, /dev/vdc, /dev/vdd, /dev/vde]
raid_disks:
  description: Number of members.
  returned: always
  type: int
  sample: 4
md_name:
  description: Name stored in the superblock (C(HOMEHOST:NAME), e.g. C(any:data) by default).
  returned: always
  type: str
  sample: any:data
array_line:
  description:
    - Line for mdadm.conf that pins the array to C(/dev/md/NAME) by UUID and name.
    - V(null) when the UUID is not known yet (check mode create) or for O(state=absent).
  returned: always
  type: str
  sample: ARRAY /dev/md/data metadata=1.2 UUID=3d0e6a1c:5b2f9d44:8a1e7c02:91f0b3aa name=any:data
created:
  description: Whether the array was (or in check mode would be) created.
  returned: always
  type: bool
assembled:
  description: Whether the array was (or in check mode would be) assembled.
  returned: always
  type: bool
stopped:
  description: Whether the array was (or in check mode would be) stopped.
  returned: always
  type: bool
wiped:
  description: Devices wiped (or that would be wiped) with C(wipefs --all) before create.
  returned: always
  type: list
  elements: str
conf_changed:
  description: Whether O(conf_path) was (or in check mode would be) changed; V(false) without O(conf_path).
  returned: always
  type: bool
rebuild_pending:
  description:
    - Whether a rebuild of the initramfs is owed (or in check mode would be) with O(rebuild_marker) set, because
      mdadm.conf changes in this call or the marker of an earlier change is still there. V(false) without
      O(rebuild_marker).
  returned: always
  type: bool
initramfs_generator:
  description:
    - The initramfs generator installed on the host, V(initramfs-tools) (C(update-initramfs)) before V(dracut),
      or V(null) when neither is; the one that must rebuild the initramfs after RV(conf_changed), since the
      initramfs carries its own copy of mdadm.conf. The same rule as M(iotune.storage.initramfs_facts).
  returned: always
  type: str
  sample: initramfs-tools
initramfs_dpkg_pending:
  description:
    - Whether dpkg owes an initramfs rebuild (Debian family; V(false) without dpkg) because its C(update-initramfs)
      trigger is pending or a package of an initramfs generator was left half-configured by a dpkg run that stopped
      (a crash while it ran the trigger); read only when this call changes mdadm.conf or a rebuild is owed, else
      V(false). The next dpkg run would build the initramfs; the
      P(iotune.storage.raid0#role) role makes finishing that dpkg work its one rebuild, so the host does not build
      twice.
  returned: always
  type: bool
wipe_backups:
  description:
    - Files written by C(wipefs --backup) with the erased signature bytes, one per signature; the
      offset is in the file name. Empty when nothing was wiped (and always in check mode).
    - To undo a wipe by hand C(dd if=FILE of=DEVICE seek=$((OFFSET)) bs=1 conv=notrunc).
  returned: always
  type: list
  elements: str
  sample: [/var/backups/iotune-storage/data-20261123T190501Z-k2j4/wipefs-vdc-0x00000000.bak]
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.iotune.storage.plugins.module_utils import device_safety as ds
from ansible_collections.iotune.storage.plugins.module_utils.host import BlockHost
from ansible_collections.iotune.storage.plugins.module_utils.initramfs import installed_generator, dpkg_rebuild_pending_for
from ansible_collections.iotune.storage.plugins.module_utils import mdadm as md
# the executor lives in module_utils so that the boot-time program of ephemeral arrays and storage_preflight's
# stage check run the same code
from ansible_collections.iotune.storage.plugins.module_utils.md_array import REQUIRED_IF, ArrayError, MdadmArray, argument_spec
from ansible_collections.iotune.storage.plugins.module_utils.module_call import result_or_fail


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(),
        required_if=REQUIRED_IF,
        supports_check_mode=True,
    )
    view = BlockHost(run_command=module.run_command,
                     blkid=module.get_bin_path('blkid') or 'blkid',
                     wipefs=module.get_bin_path('wipefs') or 'wipefs')
    array = MdadmArray(module.params, view, module.run_command, module.get_bin_path('mdadm'),
                       udevadm=module.get_bin_path('udevadm'), check_mode=module.check_mode,
                       warn=module.warn, blockdev=module.get_bin_path('blockdev'),
                       replace=module.atomic_move)
    result, diff = result_or_fail(module, array.converge, (ArrayError, ds.DeviceError),
                                  device=md.md_device(module.params['name']))
    changed = MdadmArray.changed(result)
    result['initramfs_generator'] = installed_generator()
    result['initramfs_dpkg_pending'] = dpkg_rebuild_pending_for(result)
    if diff and module._diff:
        result['diff'] = diff if len(diff) > 1 else diff[0]
    module.exit_json(changed=changed, **result)


if __name__ == '__main__':
    main()
