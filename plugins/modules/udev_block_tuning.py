#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r'''
---
module: udev_block_tuning
short_description: Persist I/O scheduler, readahead and queue settings of block devices in one udev rules file
version_added: 0.1.0
description:
  - Resolves device selectors (device path or C(/dev/disk/by-id) link, md array name or UUID, EBS volume id,
    serial number, kernel-name glob) against sysfs and the udev database, validates the requested values
    against what every matched device offers, renders B(one) udev rules file and applies it without a reboot.
  - Rules match stable properties only (C(ENV{MD_UUID}), C(ENV{MD_NAME}), C(ENV{ID_SERIAL_SHORT}),
    C(ATTRS{serial}), C(ENV{ID_WWN})); a device path or by-id link is turned into such a property of the
    device it points to when the rules are rendered. Kernel names are used only for an explicit O(devices[].kernel) glob.
  - Every rule runs on C(add) and C(change) events of whole disks. md events of arrays that are not running
    yet are skipped, so the readahead is re-applied when md recomputes it on assembly.
  - Applies with C(udevadm control --reload) (only when the file changed), C(udevadm trigger --action=change)
    for the affected devices only and C(udevadm settle), then reads the live sysfs values back and fails,
    naming device, attribute, expected and live value, where they differ (udev ignores failed writes).
  - Detects an active tuned profile whose C([disk]) readahead would overwrite the values, and fails
    (O(tuned=fail)) or installs an override profile without the disk unit (O(tuned=override)).
  - Refuses to run in a container, where systemd-udevd does not run.
author:
  - iotune.storage contributors (@iotune)
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.platform
  - iotune.storage.attributes.facts
attributes:
  facts:
    support: full
    details: With O(facts=true) only, C(iotune_readahead) as M(iotune.storage.readahead_facts) returns it.
  check_mode:
    support: full
    details:
      - Reports the rules diff and the devices that would be triggered. Selectors that match no device yet
        (for example an md array that the same play would create) produce a warning instead of an error.
  diff_mode:
    support: full
options:
  devices:
    description:
      - The devices to tune and their settings. Each entry has exactly one selector key and at least one setting.
      - A device selected by several entries must not get conflicting values.
    type: list
    elements: dict
    default: []
    suboptions:
      device:
        description:
          - Path of a whole-disk device or a symlink to it, for example C(/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123_1)
            or C(/dev/md/data). Resolved to C(MD_UUID), C(ID_SERIAL_SHORT), the sysfs C(serial) or C(ID_WWN) at render time.
          - A partition is rejected, readahead and scheduler belong to the whole disk.
        type: str
      md_name:
        description:
          - Name of an md array (C(data) or C(host:data)); the rule matches C(ENV{MD_NAME}) in both forms.
        type: str
      md_uuid:
        description:
          - UUID of an md array in any of mdadm's or the kernel's forms; the rule matches C(ENV{MD_UUID}) in mdadm's colon form.
        type: str
      ebs_volume_id:
        description:
          - EBS volume id (C(vol-0123456789abcdef0)); matched on the NVMe serial, which is the id without the dash.
        type: str
      serial:
        description:
          - Device serial number; matched on C(ENV{ID_SERIAL_SHORT}) (NVMe, SCSI, SATA) or, when the device has none,
            on C(ATTRS{serial}) (virtio-blk).
        type: str
      kernel:
        description:
          - Kernel-name glob such as C(rbd*) or C(nvme*n1), matched with C(KERNEL==). Use it for devices without a stable
            identifier (krbd devices inside a guest).
        type: str
      scheduler:
        description:
          - I/O scheduler name (C(none), C(mq-deadline), C(kyber), C(bfq)); must be offered by every matched device,
            or be available as a kernel module (C(<name>-iosched) alias), which the kernel loads when the name is written.
          - C(deadline) is accepted as the kernel alias of C(mq-deadline); legacy C(noop) and C(cfq) are rejected.
          - md arrays have no scheduler; set it on their members.
        type: str
      scheduler_by_class:
        description:
          - Scheduler per device class, resolved per matched device. Classes are C(nvme), C(virtual)
            (virtio, Xen, krbd, hypervisor-presented SCSI), C(hdd) (rotational) and C(ssd) (everything else).
          - Devices without a scheduler (md) are skipped silently. Mutually exclusive with O(devices[].scheduler).
        type: dict
      read_ahead_kb:
        description:
          - Readahead in KiB (C(queue/read_ahead_kb)), 0 to 1048576. The kernel rounds down to whole pages.
        type: int
      read_ahead_sectors:
        description:
          - Readahead in 512-byte sectors as used by C(blockdev --setra); converted exactly to KiB (must be even).
          - Mutually exclusive with O(devices[].read_ahead_kb).
        type: int
      nr_requests:
        description:
          - Queue depth of the scheduler (C(queue/nr_requests)), 4 to 2048; blk-mq devices only. Without a scheduler the
            device's tag depth is the limit (the read-back after the trigger names a refusal).
        type: int
      max_sectors_kb:
        description:
          - Largest request in KiB (C(queue/max_sectors_kb)), a multiple of 4; must not exceed C(max_hw_sectors_kb).
        type: int
      rotational:
        description: Value of C(queue/rotational).
        type: bool
      nomerges:
        description:
          - Value of C(queue/nomerges) - V(0) all merges, V(1) simple one-hit merges only, V(2) no merging. md arrays
            have it too.
        type: int
        choices: [0, 1, 2]
      rq_affinity:
        description:
          - Value of C(queue/rq_affinity) - V(1) completes a request in the submitting CPU's group, V(2) on the
            submitting CPU itself. blk-mq devices only (md has none on current kernels).
        type: int
        choices: [0, 1, 2]
      io_timeout:
        description:
          - Value of C(queue/io_timeout) in milliseconds, whole seconds from 1000 to 2147483000. The kernel keeps the
            timeout in jiffies; a value of 2^31 ms or more (such as 4294967295) reads back as another number that
            depends on C(CONFIG_HZ), so it could never be verified and is refused.
          - In O(devices[].queue_by_class) only for the C(ebs) class (AWS asks for a long timeout on EBS volumes, not on
            instance store).
        type: int
      write_cache:
        description:
          - Value of C(queue/write_cache). Writing it changes what the kernel believes about the disk's cache (whether
            it sends flushes), not the cache. V(write through) on a disk whose cache is volatile loses acknowledged
            writes at a power loss; Scylla and Redpanda use it for GCP local SSDs only.
        type: str
        choices: [write back, write through]
      queue_by_class:
        description:
          - Queue settings per member class, resolved per matched device like O(devices[].scheduler_by_class). Keys
            C(nvme), C(virtual), C(ssd), C(hdd), and the cloud classes C(ebs) (an NVMe disk whose model is EBS's or
            whose serial is an EBS volume id) and C(instance_store); values are dicts of C(nomerges), C(rq_affinity),
            C(nr_requests), C(max_sectors_kb) and C(io_timeout) (C(ebs) only).
          - A member takes its device class's values, then its cloud class's over them. md arrays are skipped. A setting
            given for the entry itself must not be in here too.
        type: dict
  rules_file:
    description:
      - The rules file. Its number must sort after C(63-md-raid-arrays.rules) so that C(MD_UUID) and C(MD_NAME) are known.
    type: path
    default: /etc/udev/rules.d/66-iotune-storage.rules
  state:
    description:
      - V(present) writes the rules and applies them. V(absent) removes the rules file and reloads udev
        (live values stay until the next change event or reboot).
    type: str
    choices: [present, absent]
    default: present
  apply:
    description:
      - Reload, trigger and settle udev and verify the live values. With V(false) only the file is written.
    type: bool
    default: true
  validate_only:
    description:
      - Only resolve and validate the entries (and check for a conflicting tuned profile), change nothing and
        report C(changed=false). md selectors (O(devices[].md_name), O(devices[].md_uuid)) may match nothing,
        because the play may create the array later; every other selector must match a device.
      - Used by the profile role to reject bad input before any role changes the host.
    type: bool
    default: false
  settle_timeout:
    description: Seconds for C(udevadm settle).
    type: int
    default: 60
  tuned:
    description:
      - What to do when tuned is active with a profile whose C([disk]) readahead differs from the requested values.
      - V(fail) stops with an explanation; V(override) writes the profile O(tuned_profile) that includes the active
        profile but disables its disk unit, and activates it; V(ignore) only warns.
    type: str
    choices: [fail, override, ignore]
    default: fail
  tuned_profile:
    description: Name of the override profile written below C(/etc/tuned) with O(tuned=override).
    type: str
    default: iotune-storage
  container:
    description:
      - What to do inside a container, where systemd-udevd does not run and rules never fire.
    type: str
    choices: [fail, skip]
    default: fail
  facts:
    description:
      - Also return the facts of M(iotune.storage.readahead_facts) (C(ansible_facts.iotune_readahead), every block
        device) as they are after this call, from the same scan of the host (scanned again only when udev
        re-applied rules); the tune role's summary then needs no call of its own.
    type: bool
    default: false
notes:
  - Readahead is copied into a file's state when the file is opened; processes that already hold their data files
    open keep the old value until they reopen them. Restart the database after a change (RV(readahead_changed)).
seealso:
  - module: iotune.storage.readahead_facts
  - name: udev(7)
    description: Rules syntax.
    link: https://www.freedesktop.org/software/systemd/man/latest/udev.html
'''

EXAMPLES = r'''
- name: Cassandra data array and its members
  iotune.storage.udev_block_tuning:
    devices:
      - md_name: data
        read_ahead_kb: 8
      - device: /dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0a1b2c3d4e5f60718_1
        scheduler_by_class: {nvme: none, virtual: none, ssd: mq-deadline, hdd: mq-deadline}
        read_ahead_kb: 8

- name: MongoDB on one EBS volume, readahead given as blockdev sectors (32 sectors = 16 KiB)
  iotune.storage.udev_block_tuning:
    devices:
      - ebs_volume_id: vol-0a1b2c3d4e5f60718
        scheduler: none
        read_ahead_sectors: 32

- name: No merging on the array and its members; EBS members never time out I/O for 24 days
  iotune.storage.udev_block_tuning:
    devices:
      - md_name: data
        nomerges: 2
      - device: /dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0a1b2c3d4e5f60718
        queue_by_class: {nvme: {nomerges: 2}, ebs: {io_timeout: 2147483000}}

- name: krbd images inside a guest
  iotune.storage.udev_block_tuning:
    devices:
      - kernel: "rbd*"
        read_ahead_kb: 4096

- name: Remove the rules
  iotune.storage.udev_block_tuning:
    state: absent
'''

RETURN = r'''
ansible_facts:
  description: With O(facts=true), C(iotune_readahead) as M(iotune.storage.readahead_facts) returns it.
  returned: success and O(facts=true)
  type: dict
rules_file:
  description: Path of the rules file.
  returned: always
  type: str
  sample: /etc/udev/rules.d/66-iotune-storage.rules
rules:
  description: Rendered content of the rules file (empty with O(state=absent)).
  returned: always
  type: str
rules_changed:
  description: Whether the rules file was (or in check mode would be) written or removed.
  returned: always
  type: bool
reloaded:
  description: Whether C(udevadm control --reload) ran.
  returned: always
  type: bool
triggered:
  description: Kernel names of the devices a change event was (or in check mode would be) triggered for.
  returned: always
  type: list
  elements: str
  sample: [md127, vdb, vdc]
devices:
  description: Per matched device, keyed by kernel name.
  returned: always
  type: dict
  sample:
    md127:
      selected_by: [md_name=data]
      expected: {read_ahead_kb: 8}
      before: {scheduler: null, read_ahead_kb: "2048", nr_requests: null, max_sectors_kb: "1280", rotational: "1",
               nomerges: "0", rq_affinity: null, write_cache: "write through", io_timeout: null}
      after: {scheduler: null, read_ahead_kb: "8", nr_requests: null, max_sectors_kb: "1280", rotational: "1",
              nomerges: "2", rq_affinity: null, write_cache: "write through", io_timeout: null}
readahead_changed:
  description: Devices whose live readahead changed; running services keep the old value for files they hold open.
  returned: always
  type: list
  elements: str
unmatched:
  description: Selectors that matched no device (check mode only; outside check mode this is an error).
  returned: always
  type: list
  elements: str
tuned:
  description: What was found about tuned.
  returned: always
  type: dict
  sample: {active: true, profile: throughput-performance, readahead: ">4096", conflicts: [md127], override: false}
'''

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.iotune.storage.plugins.module_utils.host import BlockHost
# the call lives in module_utils so that storage_preflight's stage check runs the same code
from ansible_collections.iotune.storage.plugins.module_utils.udev_tuning import Failure, UdevTuning, argument_spec
from ansible_collections.iotune.storage.plugins.module_utils.module_call import result_or_fail

# the host root; unit tests point it at a fake tree
HOST_ROOT = '/'


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    call = UdevTuning(module, BlockHost(root=HOST_ROOT))
    result = result_or_fail(module, call.call, Failure)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
