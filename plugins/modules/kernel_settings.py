#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

__metaclass__ = type

DOCUMENTATION = r"""
---
module: kernel_settings
short_description: Check live sysctls and transparent huge pages against a profile, and name who else sets them
version_added: 0.1.0
description:
  - Reads the live values from C(/proc/sys) and C(/sys/kernel/mm/transparent_hugepage) and compares them with
    O(sysctl) and O(thp).
  - Finds every other source of a different value and says which one wins.
  - A sysctl file of C(/etc/sysctl.d), C(/run/sysctl.d), C(/usr/local/lib/sysctl.d), C(/usr/lib/sysctl.d),
    C(/lib/sysctl.d) or C(/etc/sysctl.conf) that is applied after O(sysctl_file) wins (same order as
    systemd-sysctl and C(sysctl --system), by file name; a name in C(/etc) hides the same name in the
    other directories, a link to C(/dev/null) masks it, C(/etc/sysctl.conf) comes last).
  - tuned's active profile (C(/etc/tuned/active_profile)) with its C(include=) chain below C(/etc/tuned) and
    C(/usr/lib/tuned) is read for its C([sysctl]) unit and its C([vm]) unit (C(transparent_hugepages),
    C(transparent_hugepage.defrag), C(dirty_*)). tuned applies the system sysctl files again after its own
    C([sysctl]) values unless C(reapply_sysctl=0) in C(/etc/tuned/tuned-main.conf); such a tuned value is
    reported as a note, not a conflict, when O(sysctl_file) sets the key. The C([vm]) values always win.
  - C(transparent_hugepage=) on the kernel command line is reported as a note (the THP unit of the
    P(iotune.storage.kernel#role) role sets the value after boot).
  - A configured tuned profile counts even while tuned is not running (it applies it when it starts).
  - O(mode=fail) fails with every conflict and every live value that differs;
    O(mode=override) first writes and activates a tuned profile O(tuned_profile) that includes the active
    profile and sets the wanted values for the keys tuned would change (like the readahead override of
    M(iotune.storage.udev_block_tuning)), then checks again; a later sysctl file is never overridden, it
    fails; O(mode=report) never fails (audits and facts).
  - With O(cpu_clock), also the CPU frequency governor of every CPU with a cpufreq directory
    (C(/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor)) and the clocksource
    (C(/sys/devices/system/clocksource/clocksource0/current_clocksource)). A value the host does not offer (no
    cpufreq directory, as in most VMs; the governor not in C(scaling_available_governors); the clocksource not in
    C(available_clocksource)) is listed in RV(not_offered) and the notes, never as drift or a conflict.
  - Changes nothing except the tuned override profile with O(mode=override).
author:
  - iotune.storage contributors (@iotune)
options:
  sysctl:
    description:
      - "Wanted sysctls, for example C({vm.swappiness: 1}). Values are integers."
      - Names are written with dots or slashes (C(vm/swappiness) is C(vm.swappiness); the same name twice is
        refused); globs (C(*)) are refused, since each name is read back live.
      - A name whose write is an action instead of a setting (C(vm.drop_caches), C(vm.compact_memory),
        C(vm.stat_refresh), C(net.ipv4.route.flush), C(net.ipv6.route.flush)) is refused.
    type: dict
    default: {}
  thp:
    description:
      - Wanted transparent huge page settings; keys C(enabled) (C(always), C(madvise), C(never)), C(defrag)
        (C(always), C(defer), C(defer+madvise), C(madvise), C(never)) and C(khugepaged_max_ptes_none) (0..511).
    type: dict
    default: {}
  sysctl_file:
    description:
      - The sysctl.d file that carries O(sysctl) (written by the P(iotune.storage.kernel#role) role); files applied
        after it that set a key to another value are conflicts.
    type: path
    default: /etc/sysctl.d/90-iotune-storage.conf
  mode:
    description:
      - V(fail) stops on a conflict or a live value that differs, naming the source; V(override) resolves tuned
        conflicts with an override profile first; V(report) only reports.
    type: str
    choices: [fail, override, report]
    default: fail
  tuned_profile:
    description: Name of the tuned override profile written below C(/etc/tuned) with O(mode=override).
    type: str
    default: iotune-storage-kernel
  thp_unit:
    description:
      - A systemd unit that sets O(thp) at boot (the P(iotune.storage.kernel#role) role's oneshot unit). Its
        C(systemctl is-enabled) state is returned as RV(thp_unit_enabled), so that a re-run that finds it
        enabled needs no further call to confirm it.
    type: str
  cpu_clock:
    description:
      - Wanted host settings beside the storage ones; keys C(cpu_governor) (C(performance), C(schedutil),
        C(ondemand), C(conservative), C(powersave)) and C(clocksource) (C(tsc), C(kvm-clock), C(xen),
        C(hyperv_clocksource_tsc_page), C(hyperv_clocksource_msr), C(hpet), C(acpi_pm), C(arch_sys_counter)).
    type: dict
    default: {}
  cpu_unit:
    description:
      - The systemd unit that sets O(cpu_clock) at boot (the P(iotune.storage.kernel#role) role's oneshot unit); its
        C(systemctl is-enabled) state is returned as RV(cpu_unit_enabled).
    type: str
notes:
  - Runs C(tuned-adm profile) (argument list, no shell) only with O(mode=override) and a tuned conflict.
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.platform
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
"""

EXAMPLES = r"""
- name: Check the cassandra profile's kernel settings
  iotune.storage.kernel_settings:
    sysctl: {vm.swappiness: 1, vm.zone_reclaim_mode: 0, vm.max_map_count: 1048575}
    thp: {enabled: never, defrag: never}

- name: Audit only (never fails), for a report
  iotune.storage.kernel_settings:
    sysctl: {vm.swappiness: 1}
    mode: report
  register: kernel_audit

- name: The performance governor and the tsc clocksource, where the host offers them
  iotune.storage.kernel_settings:
    cpu_clock: {cpu_governor: performance, clocksource: tsc}
    mode: report

- name: Let tuned keep its profile but not our values
  iotune.storage.kernel_settings:
    sysctl: {vm.swappiness: 1}
    thp: {enabled: never}
    mode: override
"""

RETURN = r"""
sysctl:
  description: Per sysctl the wanted and live value and every line of the sysctl files that sets it.
  returned: always
  type: dict
  sample: {vm.swappiness: {wanted: "1", live: "60", sources: [{file: /etc/sysctl.d/99-zz.conf, line: 1, value: "60"}]}}
thp:
  description: Per THP setting the wanted and live value.
  returned: always
  type: dict
  sample: {enabled: {wanted: never, live: never}}
conflicts:
  description: Sources that set a different value and win, each naming the file or tuned profile.
  returned: always
  type: list
  elements: str
  sample: ["vm.swappiness: /etc/sysctl.d/99-zz.conf line 1 sets 60, and it is applied after /etc/sysctl.d/90-iotune-storage.conf (wanted 1)"]
drift:
  description: Live values that differ without a configured source (for example C(sysctl -w) by hand).
  returned: always
  type: list
  elements: str
notes:
  description: Sources of a different value that lose (tuned C([sysctl]) re-overridden, the kernel command line).
  returned: always
  type: list
  elements: str
tuned:
  description: Active tuned profiles, C(reapply_sysctl), whether tuned runs, its conflicts, whether the override was written.
  returned: always
  type: dict
  sample: {profiles: [virtual-guest], reapply_sysctl: true, running: true, conflicts: {}, override: false}
sysctl_files:
  description: The sysctl files in the order they are applied.
  returned: always
  type: list
  elements: str
cmdline_thp:
  description: The C(transparent_hugepage=) value of the kernel command line, or V(null).
  returned: always
  type: str
cpu_clock:
  description: Per setting of O(cpu_clock) the wanted and live value (per CPU for the governor) and whether the host
    offers it.
  returned: when O(cpu_clock) is given
  type: dict
  sample: {cpu_governor: {wanted: performance, live: {cpu0: schedutil}, offered: true}}
not_offered:
  description: The keys of O(cpu_clock) this host does not offer (skipped; not drift).
  returned: when O(cpu_clock) is given
  type: list
  elements: str
  sample: [cpu_governor]
cpu_unit_enabled:
  description: Like RV(thp_unit_enabled), for O(cpu_unit).
  returned: when O(cpu_unit) is given
  type: bool
thp_unit_enabled:
  description:
    - V(true) when C(systemctl is-enabled) says C(enabled) for O(thp_unit), V(false) otherwise (not found,
      disabled, static, no systemctl); V(null) without O(thp_unit).
  returned: always
  type: bool
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.iotune.storage.plugins.module_utils import kernel_settings as ks
# the call lives in module_utils so that storage_preflight's stage check runs the same code
from ansible_collections.iotune.storage.plugins.module_utils.kernel_call import KernelSettings, argument_spec
from ansible_collections.iotune.storage.plugins.module_utils.module_call import result_or_fail


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(),
        supports_check_mode=True,
    )
    checker = KernelSettings(module.params, run=module.run_command, tuned_adm=module.get_bin_path('tuned-adm'),
                             check_mode=module.check_mode, replace=module.atomic_move,
                             systemctl=module.get_bin_path('systemctl'))
    result = result_or_fail(module, checker.apply, ks.KernelSettingsError)
    if module._diff and checker.diff is not None:
        result['diff'] = checker.diff
    module.exit_json(**result)


if __name__ == '__main__':
    main()
