# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: kernel_steps
short_description: The kernel role's steps after its read of the live settings
version_added: 0.1.0
description:
  - From the P(iotune.storage.kernel#role) role's read before any change (C(kernel_before), a
    M(iotune.storage.kernel_settings) result) and its later registered tasks, what the role does next. The read
    validates the values (C(plugins/module_utils/kernel_call.py), their one check); this filter only decides.
  - C(sysctl -p) when there are sysctls and the file was written or a live sysctl differs; the THP unit enabled,
    and restarted when it was written or a live THP value differs (not a unit check mode only predicted); an
    earlier unit removed when there is no THP; the same for the unit of the CPU governor and clocksource
    (O(options.cpu_clock), O(options.cpu_unit_path)); the check after when something was written or the read found drift
    or a conflict, in mode C(report) in check mode, else C(override) or C(fail); the results (the check's, else the
    read's) and their conflicts that nothing resolves (a tuned conflict with O(options.tuned_override)).
  - Logic in C(plugins/plugin_utils/role_tasks.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The read before any change (C(drift), C(conflicts), C(thp_unit_enabled)).
    type: dict
    required: true
  options:
    description: The role's options.
    type: dict
    required: true
    suboptions:
      sysctl:
        description: C(kernel_sysctl).
        type: dict
        required: true
      thp:
        description: C(kernel_thp).
        type: dict
        required: true
      sysctl_file:
        description: C(kernel_sysctl_file).
        type: str
        required: true
      thp_unit_path:
        description: C(kernel_thp_unit_path).
        type: str
        required: true
      tuned_override:
        description: C(kernel_tuned_override) (its truth).
        type: raw
        required: true
      cpu_clock:
        description: C(kernel_cpu_clock) (the CPU governor and clocksource); empty or absent, no unit.
        type: dict
      cpu_unit_path:
        description: C(kernel_cpu_unit_path).
        type: str
  written:
    description: The registered config_files call (C(changed_paths)); V({}) before it ran.
    type: dict
    default: {}
  checked:
    description: The registered check after the changes; V(null) before it ran.
    type: dict
  found_files:
    description: The states of the role's files from the caller's read (C(kernel_found_files)); V(null) when there
      is none (the role then looks with a stat, O(thp_old)).
    type: list
    elements: dict
  thp_old:
    description: The registered stat of the THP unit's path.
    type: dict
    default: {}
  cpu_old:
    description: The registered stat of the CPU governor and clocksource unit's path.
    type: dict
    default: {}
  check_mode:
    description: C(ansible_check_mode).
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Load the sysctl file (it changed or a live value differs)
  ansible.builtin.command:
    argv: [sysctl, -p, "{{ kernel_sysctl_file }}"]
  when: kernel_steps.load_sysctl
  vars:
    kernel_steps: >-
      {{ kernel_before | iotune.storage.kernel_steps({'sysctl': kernel_sysctl, 'thp': kernel_thp,
         'sysctl_file': kernel_sysctl_file, 'thp_unit_path': kernel_thp_unit_path,
         'tuned_override': kernel_tuned_override}, written=kernel_written | default({}), check_mode=ansible_check_mode) }}
"""

RETURN = r"""
_value:
  description: The steps.
  type: dict
  contains:
    load_sysctl:
      description: Load the sysctl file.
      type: bool
    thp_written:
      description: The THP unit was written (or would be, in check mode).
      type: bool
    thp_unit:
      description: Enable the THP unit (and reload systemd when it was written).
      type: bool
    thp_state:
      description: V(restarted) when the unit runs now; absent otherwise.
      type: str
    thp_reload:
      description: >-
        The THP unit's task reloads systemd first: its unit or the CPU governor and clocksource unit was written (one
        reload for both).
      type: bool
    look_old_unit:
      description: No THP and no caller's read, so look for an earlier unit.
      type: bool
    remove_old_unit:
      description: No THP and an earlier unit is there.
      type: bool
    cpu_written:
      description: The unit of the CPU governor and clocksource was written (or would be, in check mode).
      type: bool
    cpu_unit:
      description: Enable that unit (and reload systemd when it was written).
      type: bool
    cpu_reload:
      description: The CPU unit's task reloads systemd first (its unit was written and the THP unit's task did not reload).
      type: bool
    cpu_state:
      description: V(restarted) when that unit runs now; absent otherwise.
      type: str
    look_old_cpu_unit:
      description: No CPU governor or clocksource and no caller's read, so look for an earlier unit.
      type: bool
    remove_old_cpu_unit:
      description: No CPU governor or clocksource and an earlier unit is there.
      type: bool
    check:
      description: Check the live settings after the changes.
      type: bool
    act:
      description: Any of the steps above that runs a task (the role includes its task file of them only then, or
        when a file is written).
      type: bool
    mode:
      description: The check's mode.
      type: str
    results:
      description: The check's result, or the read's when the check did not run.
      type: dict
    unresolved:
      description: The conflicts of RV(_value.results) that nothing resolves.
      type: list
      elements: str
"""

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.collections import is_sequence

from ansible_collections.iotune.storage.plugins.plugin_utils import role_tasks

OPTIONS = ('sysctl', 'thp', 'sysctl_file', 'thp_unit_path', 'tuned_override')


def kernel_steps(before, options, written=None, checked=None, found_files=None, thp_old=None, check_mode=False,
                 cpu_old=None):
    if not isinstance(before, dict):
        raise AnsibleFilterError('kernel_steps expects the kernel_settings read, got %r' % (before,))
    if not isinstance(options, dict) or [k for k in OPTIONS if k not in options]:
        raise AnsibleFilterError('kernel_steps: options must be a dict with %s, got %r' % (', '.join(OPTIONS), options))
    if found_files is not None and not is_sequence(found_files):
        raise AnsibleFilterError('kernel_steps: found_files must be a list of file states or null, got %r' % (found_files,))
    for name, value in (('written', written), ('checked', checked), ('thp_old', thp_old), ('cpu_old', cpu_old)):
        if value is not None and not isinstance(value, dict):
            raise AnsibleFilterError('kernel_steps: %s must be a registered result, got %r' % (name, value))
    return role_tasks.kernel_steps(before, options, written=written, checked=checked, found_files=found_files,
                                   thp_old=thp_old, check_mode=check_mode, cpu_old=cpu_old)


class FilterModule(object):
    def filters(self):
        return {'kernel_steps': kernel_steps}
