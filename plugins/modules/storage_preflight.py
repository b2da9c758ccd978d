#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

__metaclass__ = type

DOCUMENTATION = r"""
---
module: storage_preflight
short_description: Check every planned array against the host before anything changes
version_added: 0.1.0
description:
  - Read-only. Resolves every member device of every planned array once, then checks what only the
    host can tell, for all arrays together, and fails listing every problem before the first change.
  - "Member selectors (C({ebs_volume_id: vol-...}), C({azure_lun: N}), C({gcp_local_ssd: N}),
    C({instance_store: all, count: K})) are resolved first, each to the one stable C(/dev/disk/...) path of
    every disk it names (module_utils/cloud.py, docs/cloud.md). A selector that matches no disk, a single-disk
    selector that matches more than one, an C(instance_store) count that differs, or a matched disk that is
    in use (mounted, swap, held by anything but this array's own md device) is a problem naming the selector.
    RV(resolved) and RV(selections) give the result, also in check mode."
  - Devices. Two paths (in one array or in two) that are the same device (same major:minor); a missing
    path or one that is not a block device; members whose sizes differ by more than 1 %.
  - Arrays. An array C(/dev/md/NAME) that already runs is accepted only when its members are exactly
    the listed devices. Members that all carry this array's md superblock (an array that is not
    running) are left to M(iotune.storage.mdadm_array) to assemble. Every other member must be safe
    to write, by the same rules (the same code) as M(iotune.storage.mdadm_array), that is
    not in use, no signature, no non-zero data, not a partition of a disk in use, unless opted in with
    O(arrays[].wipe_devices) or O(arrays[].allow_shared_disk).
  - Mount points. A mount point already mounted from another device, or given to another device by
    C(/etc/fstab), is refused. An existing directory that is not empty is refused (the mount would hide
    its files, for example an old C(/var/lib/cassandra)) unless O(arrays[].allow_nonempty_mountpoint).
    An existing path that is not a directory is refused.
  - Day two. When the array exists and its filesystem is mounted, or given by C(/etc/fstab), somewhere
    other than O(arrays[].mountpoint) (a changed or mistyped mount point on a converged host), the plan
    is refused, naming both paths. A run never moves a filesystem that holds data unless
    O(arrays[].move_from) names the exact path it is on now; even then it is refused while a process
    holds files under that path (open files, working directory, memory maps).
author:
  - iotune.storage contributors (@iotune)
options:
  arrays:
    description:
      - The planned arrays (C(preflight_arrays) of the P(iotune.storage.tune_plan#filter) filter).
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: Array name (C(/dev/md/NAME)).
        type: str
        required: true
      devices:
        description: Member devices, any path to a block device, or member selectors (dicts, see above).
        type: list
        elements: raw
        required: true
      wipe_devices:
        description: Members the user opted in to wipe (signatures and data); paths or selectors of O(arrays[].devices).
        type: list
        elements: raw
        default: []
      allow_shared_disk:
        description: Partitions accepted as members although their disk has other partitions in use.
        type: list
        elements: raw
        default: []
      allow_single_device:
        description: Accepted for the plan's sake; the single-device rule is checked by the plan.
        type: bool
        default: false
      mountpoint:
        description: Normalised absolute mount point of the array's filesystem.
        type: path
        required: true
      allow_nonempty_mountpoint:
        description: Accept an existing mount point directory that holds files.
        type: bool
        default: false
      move_from:
        description:
          - The opt-in to move the array's existing filesystem to O(arrays[].mountpoint) from this path, where it
            is mounted (or given by C(/etc/fstab)) now. Without it, such a filesystem is never moved.
        type: str
      chunk_kb:
        description: Planned chunk size (reported, not checked here).
        type: int
      label:
        description: Planned filesystem label (reported, not checked here).
        type: str
  fstab:
    description: Path of the fstab file.
    type: path
    default: /etc/fstab
  resolve_only:
    description:
      - Only resolve the member selectors (and refuse the ones that match wrongly or name a disk in use); skip
        the other checks. The profile role uses it when C(profile_preflight) is off.
    type: bool
    default: false
  unresolved:
    description:
      - What to do with a member selector that cannot be resolved (matches no disk, more than one, or a disk
        in use) when O(resolve_only=true).
      - V(fail) refuses, naming the selector.
      - V(report) leaves that selector out of RV(resolved) and names it in RV(unresolved); the fleet audit
        uses it to report a detached cloud disk as drift.
      - Without O(resolve_only), every problem refuses.
    type: str
    choices: [fail, report]
    default: fail
  tuning:
    description:
      - The tuning plan to check against this host's devices in the same call, as
        M(iotune.storage.udev_block_tuning) does with O(iotune.storage.udev_block_tuning#module:validate_only=true)
        (the same code). Keys C(devices), entries of that module's O(iotune.storage.udev_block_tuning#module:devices)
        option, checked by the same argument spec, and C(tuned) (V(fail), the default, V(override) or V(ignore)).
      - md arrays that the same play creates may be missing; every other selector must match a device. With
        C(tuned=fail), an active tuned profile whose C([disk]) readahead would overwrite the values is a problem.
      - The profile role passes the plan's C(block_tuning_devices) here when no member selector needs resolving
        first (one round trip less).
    type: dict
  os_facts:
    description:
      - Also return the host's C(os_family) as C(ansible_facts), so that the roles after the profile role need no
        C(setup) call of their own (one round trip less per run). It is read from C(/etc/os-release) (C(ID), then
        C(ID_LIKE)) for the Debian, RedHat, Suse, Archlinux and Alpine families, with the value
        M(ansible.builtin.setup) gives; any other host gets the distribution facts of M(ansible.builtin.setup)'s
        own code (C(os_family), C(distribution), C(distribution_version), ...).
    type: bool
    default: false
  packages:
    description:
      - Packages whose installation state is read with C(dpkg-query) on hosts that have it (Debian family), in
        the same call; RV(packages_missing) lists those not installed. The tune role passes the packages of the
        raid0 stage, which then needs no C(dpkg-query) call of its own.
    type: list
    elements: str
    default: []
  files:
    description:
      - Shell patterns (C(glob)) of absolute paths; RV(files) returns, for each, the state of every existing path
        that matches (sha1, mode, owner), read in the same call.
      - The tune role passes the files its kernel, xfs and ephemeral stages keep (sysctl file, THP unit,
        drop-ins, boot units); a stage whose files all match what it would write needs no call of its own.
    type: list
    elements: str
  services:
    description:
      - systemd units that the arrays' mounts hold back (the tune plan's C(services)); RV(services_missing) lists
        those systemd does not know on this host, each also as a warning - a typo, or a database not installed
        yet (its drop-in is written anyway and takes effect once it is). Read with one C(systemctl show) call.
    type: list
    elements: str
    default: []
  holds:
    description:
      - The mount holds of earlier runs to keep. The xfs role holds each service of an array until its mount points
        are mounted (a drop-in C(/etc/systemd/system/UNIT.d/iotune-storage-mounts.conf) with C(RequiresMountsFor=))
        and removes the drop-in of a unit the plan no longer lists; after a boot without that filesystem the unit
        would then start on the empty directory.
      - The call fails, before any change, when such a drop-in holds a mount point that is mounted now and the plan
        drops that hold (the unit is in neither O(holds.keep) nor O(holds.mounts), or O(holds.mounts) holds it on
        other mount points only) and O(holds.release) does not name the unit, naming the unit, the mount point and
        the drop-in.
    type: dict
    suboptions:
      keep:
        description: The units the plan holds (the tune plan's C(services)).
        type: list
        elements: str
        default: []
      mounts:
        description:
          - "What the plan holds each unit for, C({unit: [mount points]}) (the tune plan's C(mount_holds)). With it, a
            unit the plan still holds, but no longer on a mounted mount point it is held on now, is refused too (an
            array left out while another array names the same service would otherwise rewrite the drop-in)."
        type: dict
      release:
        description: Units whose hold may go anyway (C(iotune_release_holds)).
        type: list
        elements: str
        default: []
  retire:
    description:
      - The arrays to retire (C(iotune_retire_md_arrays)), each checked by M(iotune.storage.retire_array)'s own code in
        check mode. A name or UUID that does not match what the host has, an array mounted elsewhere than its fstab
        lines' mount points, swap, held, used by a process, or a listed unit (or one its mount holds hold) that runs
        fails the call, before any change, naming each problem. RV(retire) says what each retire would do.
      - The mount holds of a retired array's mount points do not count as dropped by O(holds) (the retire removes
        them itself after it unmounted the filesystem).
    type: dict
    suboptions:
      arrays:
        description: One entry per array, M(iotune.storage.retire_array)'s options C(name), C(confirm_name),
          C(confirm_uuid), C(zero_superblocks) and C(services).
        type: list
        elements: dict
        default: []
        suboptions:
          name:
            description: The array's name (C(/dev/md/NAME)).
            type: str
            required: true
          confirm_name:
            description: The name again.
            type: str
            required: true
          confirm_uuid:
            description: The md UUID of the array.
            type: str
            required: true
          zero_superblocks:
            description: Zero the members' superblocks after the stop.
            type: bool
            default: false
          services:
            description: Units that use the array.
            type: list
            elements: str
            default: []
      mdadm_conf:
        description: mdadm.conf; null for the path of the distribution family os-release names.
        type: path
      rebuild_marker:
        description: The marker of an initramfs rebuild owed (the raid0 role's C(raid0_rebuild_marker)).
        type: path
      keep_services:
        description: The units of the arrays the plan keeps (the plan's C(services)); a retire leaves their limits
          drop-ins alone.
        type: list
        elements: str
        default: []
  observe_unit:
    description:
      - The systemd unit whose processes the observation windows of the tune and audit roles read
        (C(iotune_observe_unit), the observe guide of the collection); the call fails
        unless it runs (a cgroup with processes, found as M(iotune.storage.io_observe) finds it), so that a unit that
        is not running is refused with the rest of the input, before any change.
    type: str
  # stages (the stage-sync read, module_utils/stage_sync.py): doc_fragments/preflight_stages.py
notes:
  - Runs C(blkid) and C(wipefs --no-act) with argument lists (C(dpkg-query) with O(packages), C(systemctl show)
    with O(services), and with O(observe_unit) when its cgroup is not at the usual place); reads sysfs,
    the drop-ins of O(holds),
    C(/proc/self/mountinfo), C(/proc/swaps), the fstab file and the files of O(files); writes nothing.
  - With O(stages), also what those modules read in check mode (C(mdadm --detail), C(xfs_info), sysfs, the udev
    rules file, C(tuned-adm active), sysctls, C(systemctl is-enabled)); still writes nothing.
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.platform
  - iotune.storage.attributes.read_only
  - iotune.storage.attributes.facts
  - iotune.storage.preflight_stages
attributes:
  facts:
    support: full
    details: With O(os_facts=true) only, C(os_family) (and on a family os-release does not name, the distribution facts
      of M(ansible.builtin.setup)).
seealso:
  - module: iotune.storage.mdadm_array
  - module: iotune.storage.xfs_filesystem
"""

EXAMPLES = r"""
- name: Check the plan against the host (changes nothing)
  iotune.storage.storage_preflight:
    arrays:
      - name: data
        devices: [/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0,
                  /dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0fedcba9876543210]
        mountpoint: /var/lib/cassandra
"""

RETURN = r"""
arrays:
  description: What the host holds for each planned array.
  returned: success
  type: list
  elements: dict
  contains:
    name:
      description: Array name.
      type: str
    state:
      description: V(running) (the array runs on the listed members), V(assemble) (the members carry
        its superblock) or V(create) (blank members, checked).
      type: str
    members:
      description: Each member as given, resolved, with its kernel name and size.
      type: list
      elements: dict
    mountpoint:
      description:
        - The mount point and what is there now; C(elsewhere) lists the other paths the array's filesystem is
          mounted on or given by C(/etc/fstab) (where O(arrays[].move_from) would move it from).
      type: dict
  sample:
    - name: data
      state: create
      members: [{given: /dev/disk/by-id/virtio-a, resolved: /dev/vdb, kname: vdb, size_bytes: 1073741824}]
      mountpoint: {path: /var/lib/cassandra, exists: false, mounted_from: null, fstab_spec: null, elsewhere: []}
resolved:
  description:
    - By array name, C(devices), C(wipe_devices) and C(allow_shared_disk) with every selector replaced by
      the stable paths it resolved to (paths given as paths are kept). The input of the
      P(iotune.storage.tune_plan#filter) filter's C(resolved) option.
  returned: success
  type: dict
  sample: {data: {devices: [/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0],
                  wipe_devices: [], allow_shared_disk: []}}
selections:
  description: One entry per selector, C(array), C(selector) (as C(key=value)) and C(devices) (C(path), C(kname)).
  returned: always
  type: list
  elements: dict
  sample:
    - array: data
      selector: instance_store=all
      devices: [{path: /dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWS1, kname: nvme1n1}]
unresolved:
  description: With O(unresolved=report), each selector that could not be resolved, as C(array) and C(problem).
  returned: success
  type: list
  elements: dict
  sample:
    - array: data
      problem: 'ebs_volume_id=vol-0123456789abcdef0 matches no disk on this host (cloud disks seen: ...)'
tuning_checked:
  description: Whether O(tuning) was given and checked in this call (the profile role then needs no separate check).
  returned: success
  type: bool
packages_missing:
  description:
    - The names of O(packages) that C(dpkg-query) does not show as installed; V(null) on a host without
      C(dpkg-query) (the roles then install with the distribution's package module).
  returned: success
  type: list
  elements: str
  sample: [mdadm]
retire:
  description:
    - With O(retire), per array what M(iotune.storage.retire_array) would do (its result in check mode without the
      diff, C(state), C(steps), C(done), C(mountpoints), C(rebuild_pending), ...); [] without.
  returned: success
  type: list
  elements: dict
services_missing:
  description:
    - The units of O(services) that systemd does not know (C(LoadState=not-found)); V(null) on a host without
      C(systemctl) or where it cannot answer (a container without systemd).
  returned: success
  type: list
  elements: str
  sample: [cassandara.service]
files:
  description:
    - With O(files), by pattern, one entry per existing path that matches, sorted by path, with the keys of
      M(ansible.builtin.find)'s results C(path), C(checksum) (sha1, regular files only), C(mode), C(pw_name),
      C(gr_name), C(uid), C(gid), C(islnk), C(isreg) and C(isdir). V(null) without O(files).
  returned: success
  type: dict
  sample:
    /etc/sysctl.d/90-iotune-storage.conf:
      - {path: /etc/sysctl.d/90-iotune-storage.conf, checksum: 3f786850e387550fdab836ed7e6dc881de23001b,
         mode: '0644', pw_name: root, gr_name: root, uid: 0, gid: 0, islnk: false, isreg: true, isdir: false}
stages_in_sync:
  description:
    - With O(stages), the names of the stages (V(raid0), V(xfs), V(block_tuning), V(kernel), in that order) whose
      module calls would change nothing, warn about nothing and fail nothing.
  returned: success and O(stages) given
  type: list
  elements: str
  sample: [raid0, xfs, block_tuning, kernel]
stages_read:
  description:
    - With O(stages), by stage given, what this call read for it.
  returned: success and O(stages) given
  type: dict
  contains:
    in_sync:
      description: Whether the stage is in sync (it is then in RV(stages_in_sync)).
      type: bool
    calls:
      description: The options of each call as checked (for V(raid0) with C(conf_path) set); a role compares its
        own options with these before it skips.
      type: list
      elements: dict
    results:
      description: The result of each call, as its module returns it in check mode; empty when a call failed.
      type: list
      elements: dict
    why:
      description: Why the stage is not in sync; V(null) when it is.
      type: str
  sample:
    kernel: {in_sync: true, why: null,
             calls: [{sysctl: {vm.swappiness: 1}, thp: {enabled: never}, mode: report,
                      sysctl_file: /etc/sysctl.d/90-iotune-storage.conf, thp_unit: iotune-storage-thp.service}],
             results: [{changed: false, drift: [], conflicts: [], notes: [], thp_unit_enabled: true}]}
stages_why:
  description: With O(stages), by stage not in sync, a short reason (what differs, or why the read failed).
  returned: success and O(stages) given
  type: dict
  sample: {block_tuning: 'vdb read_ahead_kb is 128, planned 8', kernel: 'iotune-storage-thp.service is not enabled'}
ansible_facts:
  description:
    - With O(os_facts=true), C(os_family) as M(ansible.builtin.setup) names it (see O(os_facts)).
    - With O(stages) whose V(block_tuning) call asks for C(facts) and is in sync, C(iotune_readahead) (the facts of
      M(iotune.storage.readahead_facts), from the same read).
  returned: success and O(os_facts=true), or the block_tuning stage in sync with its facts
  type: dict
  sample: {os_family: Debian}
problems:
  description: Every problem found (the module fails when there is one).
  returned: failure
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.iotune.storage.plugins.module_utils.host import BlockHost
from ansible_collections.iotune.storage.plugins.module_utils.preflight import PreflightFailure, argument_spec, preflight_call
from ansible_collections.iotune.storage.plugins.module_utils.module_call import result_or_fail


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    view = BlockHost(run_command=module.run_command,
                     blkid=module.get_bin_path('blkid', required=True),
                     wipefs=module.get_bin_path('wipefs') or 'wipefs')
    result = result_or_fail(module, lambda: preflight_call(module, view), PreflightFailure)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
