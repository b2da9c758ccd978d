#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
module: readahead_facts
short_description: Readahead, scheduler and topology facts for every block device
version_added: 0.1.0
description:
  - Reads C(/sys/block), C(/sys/class/block), C(/proc/self/mountinfo), the udev database
    (C(/run/udev/data)) and the C(/dev/disk/by-id), C(/dev/disk/azure) and C(/dev/md) links, and
    returns one entry per block device in the fact C(iotune_readahead).
  - Runs no command and changes nothing; it is always safe in check mode.
  - Units. C(read_ahead_kb) is KiB as in C(/sys/block/DEV/queue/read_ahead_kb) and C(lsblk -o RA).
    C(read_ahead_sectors) is the same value in 512-byte sectors, as printed by C(blockdev --getra)
    and used by C(blockdev --setra).
  - Partitions have no readahead of their own. The kernel keeps one value per disk and all its
    partitions use it. A partition entry therefore reports its parent's readahead and queue settings
    and names the parent in C(readahead_shared_with).
  - "The expected kernel default is C(max(2 x optimal_io_size, 128 KiB)), the rule of Linux 5.10 and
    later. Older kernels used 128 KiB, except that md RAID0 used C(2 x chunk x raid_disks). Newer kernels
    never lower a value on re-probe (6.15, 6.12.y), and since 2025 a rotational device with no optimal
    I/O size uses C(2 x max_sectors_kb). On those kernels C(read_ahead_drift_kb) can be non-zero
    even though nobody changed the value."
author:
  - iotune.storage contributors (@iotune)
options:
  devices:
    description:
      - Kernel names (V(sda), V(nvme1n1), V(md0)) or shell globs (V(nvme*n1), V(md*), V(sd[b-e]))
        of the devices to report. A leading V(/dev/) is ignored.
      - A plain name that matches no device makes the module fail. So does a malformed glob, such as
        V(sd[a) or a path like V(/dev/md/data). A glob that matches nothing only gives a warning.
      - Default is every block device, subject to O(include_loop) and O(include_ram).
    type: list
    elements: str
  include_loop:
    description:
      - Report loop devices that have a backing file.
      - The default is V(false). Loop devices are mostly snap images or test files on database hosts,
        and those are noise in a storage report.
      - Loop devices without a backing file are never reported unless they are named in O(devices).
      - This filter applies to the default selection and to globs. A device named exactly in
        O(devices) is always reported.
    type: bool
    default: false
  include_ram:
    description:
      - Report RAM-backed devices (V(ram*) from brd and V(zram*)). A device named exactly in
        O(devices) is always reported.
    type: bool
    default: false
  data_directories:
    description:
      - Paths of database data directories to look for in the same call (the C(iotune.storage.facts) playbook
        flags a device that holds one). Those that exist as directories are returned in
        RV(data_directories) with the number of the device they are on; the others are left out.
      - The module only calls C(stat) on them; a path that cannot be read is left out as well.
    type: list
    elements: path
    default: []
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.platform
  - iotune.storage.attributes.facts
  - iotune.storage.attributes.read_only
attributes:
  facts:
    support: full
notes:
  - Supports check mode. The module only reads files.
  - The C(md.uuid) value is in mdadm's colon form, as shown by C(mdadm --detail) and in the udev
    property C(MD_UUID), even when it was read from the kernel's dashed C(md/uuid) attribute.
  - "Identity fields (C(serial), C(wwn), C(model), C(cloud)) come from sysfs first and then from the
    udev database. Hosts without udev, such as containers, may report them as null."
seealso:
  - name: Documentation/ABI/stable/sysfs-block
    description: Kernel documentation of the queue attributes reported here.
    link: https://www.kernel.org/doc/Documentation/ABI/stable/sysfs-block
"""

EXAMPLES = r"""
- name: Gather readahead facts for all block devices
  iotune.storage.readahead_facts:

- name: Only NVMe namespaces and md arrays
  iotune.storage.readahead_facts:
    devices:
      - nvme*n1
      - md*

- name: Fail if the md array serving the data directory has a readahead above 16 KiB
  ansible.builtin.assert:
    that:
      - ansible_facts.iotune_readahead['md0'].read_ahead_kb <= 16
    fail_msg: "md0 readahead is {{ ansible_facts.iotune_readahead['md0'].read_ahead_kb }} KiB"

- name: Include loop devices (lab hosts)
  iotune.storage.readahead_facts:
    include_loop: true
"""

RETURN = r"""
data_directories:
  description:
    - The paths of O(data_directories) that exist as directories, in the order given, each with C(dev), the
      number of the device its filesystem is on (C(st_dev)). Symlinks are followed (a symlinked data directory
      counts on its target's device).
  returned: always
  type: list
  elements: dict
  sample: [{path: /var/lib/cassandra, dev: 2431}]
ansible_facts:
  description: Facts to add to the host's facts.
  returned: always
  type: dict
  contains:
    iotune_readahead:
      description: One entry per reported block device, keyed by kernel name (V(sda), V(md0), V(dm-0), ...).
      returned: always
      type: dict
      sample:
        md0:
          name: md0
          path: /dev/md0
          type: md
          maj_min: "9:0"
          removable: false
          size_bytes: 214748364800
          read_ahead_kb: 4096
          read_ahead_sectors: 8192
          readahead_shared_with: null
          scheduler: null
          schedulers_available: null
          rotational: false
          logical_block_size: 512
          physical_block_size: 512
          minimum_io_size: 524288
          optimal_io_size: 2097152
          max_sectors_kb: 512
          nr_requests: null
          kernel_default_read_ahead_kb: 4096
          read_ahead_drift_kb: 0
          holders: [dm-0]
          slaves: [nvme1n1, nvme2n1, nvme3n1, nvme4n1]
          parent: null
          md:
            level: raid0
            chunk_kb: 512
            raid_disks: 4
            array_state: clean
            metadata_version: "1.2"
            uuid: "a0021927:0e4f10bf:2c47dc72:ca0b352e"
            name: "db1:data"
            devname: data
          dm: null
          model: null
          vendor: null
          serial: null
          wwn: null
          by_id: [/dev/disk/by-id/md-name-db1:data, /dev/disk/by-id/md-uuid-a0021927:0e4f10bf:2c47dc72:ca0b352e]
          cloud: null
          mounts:
            - mountpoint: /var/lib/cassandra
              fstype: xfs
              source: /dev/md0
              partition: null
      contains:
        name:
          description: Kernel name.
          type: str
          returned: always
        path:
          description: C(/dev/NAME).
          type: str
          returned: always
        type:
          description: Device class.
          type: str
          returned: always
          choices: [disk, partition, md, dm, loop, nvme, ram, rbd, other]
        maj_min:
          description: C(MAJOR:MINOR) device number.
          type: str
          returned: always
        removable:
          description: Value of the C(removable) attribute, null if it cannot be read.
          type: bool
          returned: always
        size_bytes:
          description: Size in bytes. The C(size) attribute counts 512-byte sectors.
          type: int
          returned: always
        read_ahead_kb:
          description: Current readahead in KiB. For a partition this is its parent's value.
          type: int
          returned: always
        read_ahead_sectors:
          description: The same readahead in 512-byte sectors (KiB x 2), as printed by C(blockdev --getra).
          type: int
          returned: always
        readahead_shared_with:
          description: For a partition, the disk whose readahead it uses. Null for whole devices.
          type: str
          returned: always
        scheduler:
          description:
            - The current I/O scheduler (the name shown in brackets).
            - Null if the device cannot have one. That covers md and bio-based dm, where the file is
              absent or shows the old bracket-less V(none).
          type: str
          returned: always
        schedulers_available:
          description: Schedulers offered by the kernel for this device, null where none can be set.
          type: list
          elements: str
          returned: always
        rotational:
          description: C(queue/rotational) as a boolean.
          type: bool
          returned: always
        logical_block_size:
          description: Bytes.
          type: int
          returned: always
        physical_block_size:
          description: Bytes.
          type: int
          returned: always
        minimum_io_size:
          description: Bytes (md RAID0 reports its chunk size).
          type: int
          returned: always
        optimal_io_size:
          description: Bytes (md RAID0 reports chunk x data disks), 0 when the device reports none.
          type: int
          returned: always
        max_sectors_kb:
          description: Largest request in KiB.
          type: int
          returned: always
        nr_requests:
          description: Queue depth of the scheduler, null on bio-based devices.
          type: int
          returned: always
        kernel_default_read_ahead_kb:
          description: What Linux 5.10 and later sets, C(max(2 x optimal_io_size, 128 KiB)), in KiB rounded down to whole pages.
          type: int
          returned: always
        read_ahead_drift_kb:
          description: C(read_ahead_kb - kernel_default_read_ahead_kb). Negative means the value was lowered.
          type: int
          returned: always
        holders:
          description: Kernel names of devices stacked on this one (for a member disk, the md array that uses it).
          type: list
          elements: str
          returned: always
        slaves:
          description: Kernel names of the devices this one is built from (md members, dm targets).
          type: list
          elements: str
          returned: always
        parent:
          description: For a partition, the kernel name of its disk. Null otherwise.
          type: str
          returned: always
        md:
          description: md array details, null for other devices.
          type: dict
          returned: always
          contains:
            level:
              description: RAID level, for example V(raid0).
              type: str
            chunk_kb:
              description: Chunk size in KiB.
              type: int
            raid_disks:
              description: Number of member slots.
              type: int
            array_state:
              description: For example V(clean), V(active), V(inactive), V(clear).
              type: str
            metadata_version:
              description: For example V(1.2).
              type: str
            uuid:
              description: Array UUID in mdadm's colon form. Taken from sysfs, the udev database or the C(md-uuid-*) link.
              type: str
            name:
              description: Array name from metadata (udev C(MD_NAME) or the C(md-name-*) link), else the C(/dev/md/) link name.
              type: str
            devname:
              description: Name of the C(/dev/md/NAME) link (udev C(MD_DEVNAME)).
              type: str
        dm:
          description: Device-mapper name and UUID, null for other devices.
          type: dict
          returned: always
          contains:
            name:
              description: dm name, for example V(vg0-data).
              type: str
            uuid:
              description: dm UUID, for example V(LVM-...), null if empty.
              type: str
        model:
          description: C(device/model), stripped. Partitions inherit their disk's value.
          type: str
          returned: always
        vendor:
          description: C(device/vendor), stripped.
          type: str
          returned: always
        serial:
          description: C(device/serial), or the disk's C(serial) (virtio), or udev C(ID_SERIAL_SHORT), or the C(wwid) attribute.
          type: str
          returned: always
        wwn:
          description: udev C(ID_WWN), else the C(wwid) attribute.
          type: str
          returned: always
        by_id:
          description: Sorted C(/dev/disk/by-id/*) links that point at this device.
          type: list
          elements: str
          returned: always
        cloud:
          description:
            - Cloud identity or null.
            - C(provider=aws) has C(ebs_volume_id) (V(vol-...), taken from the NVMe serial) and
              C(instance_store).
            - C(provider=azure) has C(lun), C(scsi_address), C(azure_links) (the links below
              C(/dev/disk/azure)), C(disk_type) (V(os), V(data), V(resource), V(local) or null) and
              C(instance_store) (true for the local NVMe disks). C(lun) is the data disk's LUN for SCSI
              disks (the SCSI address) and for NVMe data disks (namespace id - 2, with C(nvme_nsid)).
            - C(provider=gcp) has C(local_ssd) (the local SSD index, null for persistent disks),
              C(instance_store) and C(interface) (V(nvme) or V(scsi)).
            - The same identity is what the member selectors of C(iotune_arrays[].devices) match
              (module_utils/cloud.py, docs/cloud.md).
            - C(provider=ceph_rbd) has C(pool), C(pool_ns), C(image) and C(snap).
          type: dict
          returned: always
        mounts:
          description:
            - Mounts from C(/proc/self/mountinfo) on this device. For a whole disk the list also has
              the mounts on its partitions.
            - Each mount has C(mountpoint), C(fstype), C(source) and C(partition). C(partition) is the
              kernel name of the partition it is on, or null when it is on the device itself.
          type: list
          elements: dict
          returned: always
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.iotune.storage.plugins.module_utils.files import existing_directories
from ansible_collections.iotune.storage.plugins.module_utils.host import BlockHost
from ansible_collections.iotune.storage.plugins.module_utils.sysfs_block import SysfsBlockError
from ansible_collections.iotune.storage.plugins.module_utils.module_call import result_or_fail


def main():
    module = AnsibleModule(
        argument_spec=dict(
            devices=dict(type='list', elements='str'),
            include_loop=dict(type='bool', default=False),
            include_ram=dict(type='bool', default=False),
            data_directories=dict(type='list', elements='path', default=[]),
        ),
        supports_check_mode=True,
    )
    facts, warnings = result_or_fail(module, lambda: BlockHost().block_facts(
        devices=module.params['devices'],
        include_loop=module.params['include_loop'],
        include_ram=module.params['include_ram'],
    ), SysfsBlockError)
    for warning in warnings:
        module.warn(warning)
    module.exit_json(changed=False, ansible_facts=dict(iotune_readahead=facts),
                     data_directories=existing_directories(module.params['data_directories']))


if __name__ == '__main__':
    main()
