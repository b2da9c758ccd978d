#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

__metaclass__ = type

DOCUMENTATION = r"""
---
module: retire_array
short_description: Retire an md array on an explicit opt-in that names it twice and gives its UUID
version_added: 0.1.0
description:
  - Takes one md array out of service. Nothing happens unless O(name) and O(confirm_name) are the same and the array
    of that name runs with the md UUID O(confirm_uuid) (or, stopped, its members carry superblocks of that UUID and
    name); a mismatch is refused, naming what the host has.
  - Refused, before any change, while the array is mounted anywhere else than the mount points its C(/etc/fstab)
    lines give (by the filesystem's UUID or C(/dev/md/NAME)), is swap, is held (LVM, dm-crypt), a process uses a file
    under its mount points or the device itself, or, while the array runs, a unit of O(services), or one the
    collection's mount-hold drop-ins hold for its mount points, is running (C(systemctl show) of its C(ActiveState)).
    A retire never stops a service.
  - Otherwise, in this order and each only when there is something left to do, the collection's limits drop-ins
    (C(/etc/systemd/system/UNIT.d/iotune-storage-limits.conf)) of those units are removed, except for a unit of
    O(keep_services) or one whose mount hold also holds it for another array's mount point; the collection's
    C(RequiresMountsFor) drop-ins for its mount points are removed (rewritten without that mount point when they hold
    the unit for another array too); the filesystem is unmounted; its fstab lines are removed and systemd reloaded;
    O(rebuild_marker) is written and the array's ARRAY lines in O(conf_path) are replaced by one
    C(ARRAY <ignore> UUID=...) line, which keeps mdadm from assembling it again from its superblocks at boot; the
    array is stopped (C(mdadm --stop)); with O(zero_superblocks) only, C(mdadm --zero-superblock) runs on each member
    and the C(<ignore>) line goes too.
  - The initramfs carries a copy of mdadm.conf; this module does not rebuild it. It reports RV(rebuild_pending), and
    the P(iotune.storage.raid0#role) role's rebuild removes O(rebuild_marker) once done.
  - A crash at any point leaves a state the next call with the same options finishes. Before its first change, a call
    whose mount-hold drop-ins name units records the units in C(/var/lib/iotune-storage/retire-UUID.units) (root
    only), so that the next call still checks them once the drop-ins are gone; the record goes with the stop (a call
    that finds it after the stop removes it, the step V(record)). A call that finds nothing of the
    UUID on the host (retired already with its superblocks zeroed, or never here) changes nothing and says so; a call
    for an array retired already changes nothing either, also while a unit of O(services) runs again.
author:
  - iotune.storage contributors (@iotune)
options:
  name:
    description: The array's name (C(/dev/md/NAME)).
    type: str
    required: true
  confirm_name:
    description: The name again; anything else than O(name) is refused.
    type: str
    required: true
  confirm_uuid:
    description:
      - The md UUID of the array as C(mdadm --detail) shows it (C(a0021927:0e4f10bf:2c47dc72:ca0b352e); the dashed
        form of blkid is accepted). The array named O(name) must run with it.
    type: str
    required: true
  zero_superblocks:
    description:
      - Zero the md superblock of each member after the array stopped, so that it can never be assembled again. The
        data blocks on the members are not erased. Without it the superblocks stay and the C(<ignore>) line in
        O(conf_path) keeps the array from being assembled (remove the line and run C(mdadm --assemble --scan) to get
        it back).
    type: bool
    default: false
  services:
    description:
      - systemd units that use the array (a name without a suffix is a C(.service)); refused while one runs and the
        array runs. The units of the collection's mount-hold drop-ins for its mount points are checked as well. Their
        limits drop-ins are removed (see O(keep_services)).
    type: list
    elements: str
    default: []
  keep_services:
    description:
      - Units that stay services of other arrays (the tune role passes its plan's services); their limits drop-ins are
        never removed.
    type: list
    elements: str
    default: []
  conf_path:
    description: mdadm.conf (C(/etc/mdadm/mdadm.conf) on Debian and Ubuntu, C(/etc/mdadm.conf) elsewhere).
    type: path
    required: true
  rebuild_marker:
    description:
      - The marker of an initramfs rebuild owed (the P(iotune.storage.raid0#role) role's C(raid0_rebuild_marker)),
        written and on disk before O(conf_path) changes.
    type: path
  fstab:
    description: The fstab file.
    type: path
    default: /etc/fstab
notes:
  - Runs C(umount), C(systemctl show), C(systemctl daemon-reload), C(mdadm --stop) and, with O(zero_superblocks),
    C(mdadm --zero-superblock); reads blkid, C(/proc) and C(/sys).
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.platform
attributes:
  check_mode:
    support: full
    details: Every check runs; RV(done) says what would be done.
  diff_mode:
    support: full
    details: One diff per file the retire changes (limits and mount-hold drop-ins, fstab, mdadm.conf).
seealso:
  - module: iotune.storage.mdadm_array
  - module: iotune.storage.storage_preflight
"""

EXAMPLES = r"""
- name: Retire the array data2 (its UUID from mdadm --detail /dev/md/data2), keeping its superblocks
  iotune.storage.retire_array:
    name: data2
    confirm_name: data2
    confirm_uuid: a0021927:0e4f10bf:2c47dc72:ca0b352e
    services: [cassandra]
    keep_services: []
    conf_path: /etc/mdadm/mdadm.conf
    rebuild_marker: /var/lib/iotune-storage/initramfs-rebuild-pending
"""

RETURN = r"""
name:
  description: O(name).
  returned: always
  type: str
uuid:
  description: O(confirm_uuid) in mdadm's colon form.
  returned: always
  type: str
state:
  description:
    - What the call found. V(running) (the array runs), V(stopped) (not running, its members carry its superblocks),
      V(retired) (not running, the C(<ignore>) line in O(conf_path)), V(gone) (nothing on the host carries the UUID).
  returned: always
  type: str
device:
  description: The running array's device (C(/dev/md127)), null when it does not run.
  returned: always
  type: str
filesystem_uuid:
  description: The UUID of the filesystem on the array (read while it runs).
  returned: always
  type: str
mountpoints:
  description: The mount points of its fstab lines.
  returned: always
  type: list
  elements: str
members:
  description: The members (of the running array, or the devices that carry its superblocks).
  returned: always
  type: list
  elements: str
services:
  description: The array's units (O(services), those the mount-hold drop-ins held for its mount points, and those an
    interrupted call recorded), checked while the array runs.
  returned: always
  type: list
  elements: str
steps:
  description: The steps taken (in check mode, that would be), in order (V(limits), V(holds), V(unmount), V(fstab),
    V(conf), V(stop), V(zero), V(unignore), V(record)).
  returned: always
  type: list
  elements: str
done:
  description: What was done (would be, in check mode), one sentence per step.
  returned: always
  type: list
  elements: str
status:
  description: One sentence about the call.
  returned: always
  type: str
conf_changed:
  description: O(conf_path) changed (would, in check mode).
  returned: always
  type: bool
conf_path:
  description: O(conf_path).
  returned: always
  type: str
rebuild_pending:
  description: An initramfs rebuild is owed (O(conf_path) changed now, or O(rebuild_marker) is there from an earlier run).
  returned: always
  type: bool
superblocks_zeroed:
  description: The members' superblocks were zeroed (would be, in check mode).
  returned: always
  type: bool
problems:
  description: On a refusal, every problem found.
  returned: failure
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.iotune.storage.plugins.module_utils.host import BlockHost
from ansible_collections.iotune.storage.plugins.module_utils.retire import BINS, ArrayRetire, RetireError, argument_spec
from ansible_collections.iotune.storage.plugins.module_utils.module_call import result_or_fail


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    view = BlockHost(run_command=module.run_command,
                     blkid=module.get_bin_path('blkid', required=True),
                     wipefs=module.get_bin_path('wipefs') or 'wipefs')
    bins = dict((name, module.get_bin_path(name)) for name in BINS)
    call = ArrayRetire(module.params, view, module.run_command, bins, check_mode=module.check_mode,
                       replace=module.atomic_move)
    result = result_or_fail(module, call.call, RetireError, warnings=lambda: call.warnings)
    if not module._diff:
        result.pop('diff', None)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
