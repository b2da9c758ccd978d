#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

__metaclass__ = type

DOCUMENTATION = r"""
---
module: original_state
short_description: Record the host's original state before the first tuning, and put it back without a reboot
version_added: 0.1.0
description:
  - With O(state=recorded) (the tune role calls it once per host, before its first change), reads every live value
    the collection will change and writes it to O(path), a root-only JSON file (mode 0600 in a 0700 directory); the
    queue values (scheduler, nr_requests, max_sectors_kb, rotational, read_ahead_kb) of every device the tuning plan
    O(devices) matches, the sysctls of the database vendors ask for (the only ones a profile may set) and O(sysctl),
    transparent huge pages (enabled, defrag, khugepaged max_ptes_none), the CPU frequency governor of each CPU with
    cpufreq and the current clocksource (C(cpu_clock)), the content, mode and owner of each of O(files) (or that it
    was absent), whether C(fstrim.timer) was enabled and active (C(fstrim_timer)) and the collection's version.
  - Devices are recorded by stable identity (md UUID and name, WWN, cloud identity, serial, C(/dev/disk/by-id) links,
    only the keys no other device shares), never by kernel name; a planned md array that does not exist yet is
    listed as created later.
  - The file is written once and never overwritten; a later call reports it (changed=false). The text is on disk
    before the file gets its name (a temporary file, fsync, a hard link, fsync of the directory), so a crash leaves
    no file or the whole file.
  - A later call whose O(devices) or O(sysctl) name something the snapshot does not hold (a device or an array added
    to the plan since, a sysctl a later profile sets) records their live values then (before the run changes them) as
    one more record of the additions file beside it (C(original-state-additions.json) for the default O(path)),
    replaced atomically, root-only; an object already recorded is never recorded again and a record is never
    changed (RV(added); changed=true only then). An unreadable additions file is kept as it is, with a warning.
  - With O(state=restored), puts the snapshot back without a reboot. The collection's files of the snapshot are
    removed (a systemd unit is disabled first, then systemd reloaded; udev reloads its rules), or written back as they
    were when they existed; then the recorded queue values, sysctls, THP values, CPU governors (of the CPUs that still
    have cpufreq) and clocksource are set live, each device found by
    its identity (a kernel rename does not matter); a device that is gone is reported, not an error. A planned md
    array that was created later gets the readahead the kernel gives a new array. The values of the additions file
    are restored with the snapshot's. Arrays, filesystems, fstab lines
    and the services' mount holds are not touched. A second restore changes nothing.
  - The restore also removes the services' limits drop-ins (C(/etc/systemd/system/UNIT.d/iotune-storage-limits.conf))
    and reloads systemd; a running unit keeps the limits until its next restart, which is named per unit
    (RV(limits)). It is not written to the record of restarts owed (a later tune run that writes the drop-in again
    would leave an entry owing a restart nobody needs).
  - C(fstrim.timer) is disabled and stopped again only when the snapshot says it was not enabled (not active) before
    the first change; a snapshot without that record (an earlier release) leaves it, and says why.
  - A restore refuses, before any change, while tuned runs one of the collection's override profiles.
author:
  - iotune.storage contributors (@iotune)
options:
  state:
    description:
      - V(recorded) writes the snapshot unless there is one; V(restored) puts it back.
    type: str
    choices: [recorded, restored]
    default: recorded
  path:
    description: The snapshot file.
    type: path
    default: /var/lib/iotune-storage/original-state.json
  devices:
    description:
      - With O(state=recorded), the tuning plan (entries of M(iotune.storage.udev_block_tuning)'s
        O(iotune.storage.udev_block_tuning#module:devices) option, checked by the same argument spec); the queue values
        of every device it matches are recorded. Ignored with O(state=restored).
    type: list
    elements: dict
    default: []
  sysctl:
    description:
      - With O(state=recorded), sysctl names recorded besides the database vendors ask for (a profile's
        C(extra_sysctl)). Ignored with O(state=restored).
    type: list
    elements: str
    default: []
  files:
    description:
      - With O(state=recorded), the files the collection will write (the udev rules file, the sysctl file, the THP
        unit); each is recorded with its content, mode and owner, or as absent.
      - With O(state=restored), the snapshot's own list is restored; a path given here that is not in it and exists is
        named in a warning and left as it is.
    type: list
    elements: path
    default: []
notes:
  - Runs C(systemctl show fstrim.timer) when it records; C(systemctl disable) and C(systemctl daemon-reload) when a
    restore removes a unit or a drop-in, C(systemctl disable/stop fstrim.timer) as said above, and C(udevadm control
    --reload) when it removes or writes a udev rules file; writes sysfs and C(/proc/sys) only with O(state=restored).
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.platform
attributes:
  check_mode:
    support: full
    details: V(recorded) returns the snapshot it would write; V(restored) what it would remove, write and set.
  diff_mode:
    support: full
    details: With V(restored), one diff per file and one of the live values.
seealso:
  - module: iotune.storage.udev_block_tuning
  - module: iotune.storage.kernel_settings
"""

EXAMPLES = r"""
- name: Record the original state before the first change (once)
  iotune.storage.original_state:
    devices:
      - {md_name: data, read_ahead_kb: 64}
      - {device: /dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0, read_ahead_kb: 8,
         scheduler_by_class: {nvme: none}}
    sysctl: [vm.swappiness]
    files: [/etc/udev/rules.d/66-iotune-storage.rules, /etc/sysctl.d/90-iotune-storage.conf,
            /etc/systemd/system/iotune-storage-thp.service]

- name: Put it back (check it first with --check --diff)
  iotune.storage.original_state:
    state: restored
"""

RETURN = r"""
path:
  description: O(path).
  returned: always
  type: str
  sample: /var/lib/iotune-storage/original-state.json
recorded:
  description: With O(state=recorded), whether this call wrote the snapshot (would, in check mode).
  returned: state is recorded
  type: bool
added:
  description:
    - With O(state=recorded) and a snapshot found, the record this call added to the additions file (would add, in
      check mode) - C(devices) and C(created_later) as in the snapshot, C(sysctl), C(recorded_at), C(version); V(null)
      when the snapshot and the earlier records hold everything the call names.
  returned: state is recorded and a snapshot was found
  type: dict
  sample:
    devices: [{identity: 'serial:vol0123456789abcdef3', kname: nvme3n1, queue: {read_ahead_kb: '4096'}}]
    created_later: []
    sysctl: {kernel.pid_max: '99999'}
    recorded_at: '2026-03-02T10:00:00Z'
    version: 0.1.0
snapshot:
  description: With O(state=recorded), the snapshot (written now, or the one found).
  returned: state is recorded and the snapshot is readable
  type: dict
  sample:
    format: 1
    collection: iotune.storage
    version: 0.1.0
    recorded_at: '2026-03-01T10:00:00Z'
    kernel: 6.1.0-18-amd64
    tuned_before: false
    devices:
      - identity: cloud:ebs_volume_id=vol-0123456789abcdef1,provider=aws
        identities: [cloud:ebs_volume_id=vol-0123456789abcdef1,provider=aws, serial:vol0123456789abcdef1]
        kname: nvme1n1
        queue: {scheduler: none, read_ahead_kb: '128', nr_requests: '1023', max_sectors_kb: '256', rotational: '0'}
    created_later: [{identities: ['md-name:data'], selector: md_name=data}]
    sysctl: {vm.swappiness: '60'}
    thp: {enabled: always, defrag: madvise, khugepaged_max_ptes_none: '511'}
    cpu_clock: {cpu_governor: {cpu0: schedutil, cpu1: schedutil}, clocksource: tsc}
    files: {/etc/sysctl.d/90-iotune-storage.conf: null}
original_state:
  description: What the snapshot holds, in short (C(path), C(exists), C(recorded_at), C(version), C(tuned_before),
    C(devices) (identities), C(created_later), C(sysctl) (how many), C(thp) (keys), C(files) (V(absent) or
    V(present) when recorded), C(additions) (per record of the additions file its C(recorded_at), C(devices),
    C(created_later) and C(sysctl) names)).
  returned: always
  type: dict
limits:
  description: With O(state=restored), one line per unit whose limits drop-in the restore removes (would remove).
  returned: state is restored
  type: list
  elements: str
restore:
  description:
    - With O(state=restored), the restore plan; C(files) (C(path), C(kind), C(action) V(remove) or V(write)),
      C(queue) (C(kname), C(identity), C(key), C(now), C(restore)), C(sysctl) and C(thp) (C(now), C(restore)),
      C(cpu_clock) (C(key) V(cpu_governor/cpuN) or V(clocksource), C(now), C(restore)), C(gone)
      (recorded devices not on the host any more), C(created_later) (planned arrays made after the snapshot),
      C(limits) (C(unit), C(path), C(settings) of each limits drop-in removed), C(fstrim_timer) (C(recorded),
      C(now), C(commands) (V(disable), V(stop)), C(why)).
  returned: state is restored
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.iotune.storage.plugins.module_utils.host import BlockHost
from ansible_collections.iotune.storage.plugins.module_utils.original_state import (
    OriginalState,
    OriginalStateError,
    argument_spec,
)
from ansible_collections.iotune.storage.plugins.module_utils.module_call import result_or_fail

# the host root; unit tests point it at a fake tree
HOST_ROOT = '/'


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    call = OriginalState(module.params, BlockHost(root=HOST_ROOT), root=HOST_ROOT, run=module.run_command,
                         systemctl=module.get_bin_path('systemctl'), udevadm=module.get_bin_path('udevadm'),
                         check_mode=module.check_mode)
    result = result_or_fail(module, call.call, OriginalStateError, warnings=lambda: call.warnings)
    if not module._diff:
        result.pop('diff', None)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
