#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

__metaclass__ = type

DOCUMENTATION = r"""
---
module: storage_audit
short_description: Read, in one call, everything the fleet audit compares with a host's profile
version_added: 0.1.0
description:
  - Read-only. Gathers what the P(iotune.storage.audit#role) role compares with the plan of the host's
    profile (the comparison runs on the controller, filter P(iotune.storage.storage_audit_compare#filter)).
  - Per planned array, its md state (running, C(md/array_state), members md knows), each member (present,
    its kernel name, an md array other than this one holding it), the filesystem UUID, what is mounted at
    the mount point with its options, and the C(/etc/fstab) lines of the mount point or the filesystem.
  - Per device the plan tunes, the live readahead and scheduler, the values of the profile (resolved by
    the same code that renders the rules, per device class and page size) and the values the rules file
    on disk would set on it; and whether the rules file is the one the tune playbook would write.
  - The ARRAY lines of C(mdadm.conf) (C(/etc/mdadm/mdadm.conf) or C(/etc/mdadm.conf)), tuned's active
    profile and the devices whose readahead its C([disk]) unit would overwrite, and, when given, the
    kernel settings (the profile's sysctls and transparent huge pages) with the sources that set them.
  - The ARRAY lines of the C(mdadm.conf) inside the initramfs that boots next (the newest kernel in C(/boot)),
    read by the module from the image (nothing unpacked, the main archive streamed through its decompressor; a dracut
    image with a squashfs root with C(lsinitrd)); see docs/raid0.md, "Which initramfs boots next".
  - Never installs, writes or triggers anything on the host.
author:
  - iotune.storage contributors (@iotune)
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.platform
  - iotune.storage.attributes.read_only
options:
  arrays:
    description:
      - The planned arrays, for example C(raid0_arrays) of the P(iotune.storage.tune_plan#filter) filter
        combined with the mount points of its C(xfs_filesystems).
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: Array name (C(/dev/md/NAME)).
        type: str
        required: true
      devices:
        description: Member devices as planned.
        type: list
        elements: path
        default: []
      mountpoint:
        description: Mount point of the array's filesystem.
        type: path
  tuning:
    description:
      - The planned tuning entries (C(block_tuning_devices) of the plan), in the form
        M(iotune.storage.udev_block_tuning) takes as O(iotune.storage.udev_block_tuning#module:devices).
    type: list
    elements: dict
    default: []
  rules_file:
    description: The udev rules file the tune playbook writes.
    type: path
    default: /etc/udev/rules.d/66-iotune-storage.rules
  mdadm_conf:
    description: Path of mdadm.conf; V(null) takes the first of C(/etc/mdadm/mdadm.conf), C(/etc/mdadm.conf) that exists.
    type: path
  fstab:
    description: Path of the fstab file.
    type: path
    default: /etc/fstab
  sysctl:
    description: The profile's sysctls (C(kernel.sysctl) of the plan); empty skips the kernel check.
    type: dict
    default: {}
  thp:
    description: The profile's transparent huge pages settings (C(kernel.thp) of the plan).
    type: dict
    default: {}
  cpu_clock:
    description:
      - The profile's CPU frequency governor and clocksource (C(kernel.cpu_clock) of the plan, keys C(cpu_governor),
        C(clocksource)). A value the host does not offer (no cpufreq, a clocksource not available) is a note ("not
        offered by this host"), not drift.
    type: dict
    default: {}
  limits:
    description:
      - "The planned resource limits per systemd unit (C(limits) of the plan, for example
        C({UNIT: {LimitNOFILE: '100000'}})).
        Each unit's limits drop-in (C(/etc/systemd/system/UNIT.d/iotune-storage-limits.conf)) is read, and what
        systemd reports for the unit (one C(systemctl show) for all of them; a unit systemd does not know is not
        compared). Empty skips it."
    type: dict
    default: {}
  fstrim_timer:
    description:
      - Read the state of C(fstrim.timer) (C(systemctl show), one call), for a plan whose filesystems have a discard
        policy (the profile's C(discard_by_class)); V(false) leaves RV(audit.fstrim_timer) V(null).
    type: bool
    default: false
  sysctl_file:
    description: The sysctl file the kernel role writes (its position decides which later files win).
    type: path
    default: /etc/sysctl.d/90-iotune-storage.conf
  initramfs:
    description: Read the ARRAY lines of the initramfs that boots next (seconds on a slow host); V(false) skips it.
    type: bool
    default: true
  restart_record:
    description:
      - The record of the restarts a tune run decided and did not make (restart policy C(never), docs/rolling.md),
        which M(iotune.storage.pending_restarts) writes. Each restart still owed (the unit runs the process that ran
        at the change) is reported; a missing file is no restart owed.
    type: path
    default: /var/lib/iotune-storage/pending-restarts.json
  original_state:
    description:
      - The snapshot of the host's original state (M(iotune.storage.original_state)), read with the other files of
        this call and shown (whether one is recorded, when, by which version, how many values per kind), never
        compared (it is not drift). A missing file is no snapshot; an unreadable one is a note.
    type: path
    default: /var/lib/iotune-storage/original-state.json
notes:
  - One module call per host. The P(iotune.storage.audit#role) role runs no other task on the host, except one
    read-only C(storage_preflight) call that resolves member selectors by cloud identity when the arrays use them.
  - With O(initramfs=true) on an initramfs-tools host the image is unpacked into a temporary directory below
    the system's temporary directory, which is removed before the module returns.
seealso:
  - module: iotune.storage.udev_block_tuning
  - module: iotune.storage.kernel_settings
"""

EXAMPLES = r"""
- name: Read the host for the audit
  iotune.storage.storage_audit:
    arrays:
      - name: data
        devices: [/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0a1b2c3d4e5f60718]
        mountpoint: /var/lib/cassandra
    tuning: "{{ iotune_plan_block_tuning_devices }}"
    sysctl: "{{ iotune_plan_kernel.sysctl }}"
    thp: "{{ iotune_plan_kernel.thp }}"
  register: audit_read
"""

RETURN = r"""
audit:
  description:
    - The observations, schema version RV(audit.schema_version); see docs/audit.md for every key.
  returned: always
  type: dict
  contains:
    schema_version:
      description: Version of this structure.
      type: int
      sample: 1
    arrays:
      description: One entry per planned array (md state, members, mount, fstab lines).
      type: list
      elements: dict
    tuning:
      description: C(devices) (per kernel name C(live), C(profile), C(rules) values), C(rules) (the file), C(unmatched).
      type: dict
    mdadm_conf:
      description: C(path), C(present) and the parsed ARRAY C(lines).
      type: dict
    initramfs:
      description: C(checked), C(image) and the ARRAY C(lines) of the initramfs that boots next.
      type: dict
    tuned:
      description: C(running), C(profiles), C(readahead) and the readahead C(conflicts).
      type: dict
    kernel:
      description: The report of the kernel settings check (as M(iotune.storage.kernel_settings) returns it), or null.
      type: dict
    limits:
      description: With O(limits), C(dropins) (the text of each unit's limits drop-in, null when missing), C(live) (per
        unit the properties C(systemctl show) reported) and C(error); null without.
      type: dict
    fstrim_timer:
      description: With O(fstrim_timer), C(enabled) (C(UnitFileState), V(not-found) for a unit systemd lacks),
        C(active) (C(ActiveState)) and C(error) of C(fstrim.timer); null without.
      type: dict
    restarts:
      description: C(path), C(error) and the C(pending) restarts still owed (each C(unit), C(invocation_id), C(since),
        C(reasons)).
      type: dict
    errors:
      description: Problems that kept a part from being read (the controller reports them as drift).
      type: list
      elements: str
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.iotune.storage.plugins.module_utils import restart_record
from ansible_collections.iotune.storage.plugins.module_utils.audit import ORIGINAL_STATE, gather, next_initramfs
from ansible_collections.iotune.storage.plugins.module_utils.block_tuning import loadable_schedulers
from ansible_collections.iotune.storage.plugins.module_utils.host import BlockHost
from ansible_collections.iotune.storage.plugins.module_utils.module_call import result_or_fail

# host roots; unit tests point them at fake trees
HOST_ROOT = '/'
MODULES_ROOT = '/lib/modules'


def argument_spec():
    return dict(
        arrays=dict(type='list', elements='dict', default=[], options=dict(
            name=dict(type='str', required=True),
            devices=dict(type='list', elements='path', default=[]),
            mountpoint=dict(type='path'),
        )),
        tuning=dict(type='list', elements='dict', default=[]),
        rules_file=dict(type='path', default='/etc/udev/rules.d/66-iotune-storage.rules'),
        mdadm_conf=dict(type='path'),
        fstab=dict(type='path', default='/etc/fstab'),
        sysctl=dict(type='dict', default={}),
        thp=dict(type='dict', default={}),
        cpu_clock=dict(type='dict', default={}),
        limits=dict(type='dict', default={}),
        fstrim_timer=dict(type='bool', default=False),
        sysctl_file=dict(type='path', default='/etc/sysctl.d/90-iotune-storage.conf'),
        initramfs=dict(type='bool', default=True),
        restart_record=dict(type='path', default=restart_record.PATH),
        original_state=dict(type='path', default=ORIGINAL_STATE),
    )


def page_kb():
    try:
        return max(os.sysconf('SC_PAGE_SIZE') // 1024, 1)
    except (ValueError, OSError, AttributeError):
        return 4


class Audit(object):
    """One module call: read the host (nothing else)."""

    def __init__(self, module, host):
        self.module = module
        self.host = host
        self.p = module.params

    def loadable(self):
        return loadable_schedulers(os.path.join(MODULES_ROOT, os.uname()[2]))

    def initramfs(self):
        """The reader of the initramfs that boots next, or None when not asked for."""
        if not self.p['initramfs']:
            return None
        return lambda: next_initramfs(self.module.run_command, boot_dir=os.path.join(HOST_ROOT, 'boot'))

    def restarts(self):
        """The reader of the restarts a tune run left owed (module_utils/restart_record.py)."""
        path = os.path.join(HOST_ROOT, self.p['restart_record'].lstrip('/'))
        return lambda: restart_record.audit_facts(self.module.run_command, path)

    def run(self):
        p = self.p
        return gather(self.host, p['arrays'], p['tuning'], p['rules_file'], conf_path=p['mdadm_conf'],
                      fstab=p['fstab'], sysctl=p['sysctl'], thp=p['thp'], sysctl_file=p['sysctl_file'],
                      page_kb=page_kb(), loadable=self.loadable(), read_initramfs=self.initramfs(),
                      read_restarts=self.restarts(), limits=p['limits'], run_command=self.module.run_command,
                      fstrim_timer=p['fstrim_timer'], cpu_clock=p['cpu_clock'],
                      original_state=p['original_state'])


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    audit = result_or_fail(module, lambda: Audit(module, BlockHost(root=HOST_ROOT)).run(), (OSError, ValueError),
                           prefix='reading the host failed: ')
    module.exit_json(changed=False, audit=audit)


if __name__ == '__main__':
    main()
