# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: kernel_files
short_description: The config_files entries of the kernel role (the sysctl file and the THP unit)
version_added: 0.1.0
description:
  - The sysctl file O(sysctl_file) with O(sysctl_text), V(absent) when the input has no sysctl; and, when O(thp) has
    values, the THP unit O(thp_unit_path) with O(thp_text). The P(iotune.storage.kernel#role) role renders its two
    templates and passes their text. When O(cpu_clock) has values (the CPU governor, the clocksource), also their unit
    O(cpu_unit_path) with O(cpu_text). Logic in C(plugins/plugin_utils/role_tasks.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The sysctls (C(kernel_sysctl)).
    type: dict
    required: true
  thp:
    description: The THP values (C(kernel_thp)); empty, no unit.
    type: dict
    required: true
  sysctl_file:
    description: The sysctl file's path.
    type: str
    required: true
  thp_unit_path:
    description: The THP unit's path.
    type: str
    required: true
  sysctl_text:
    description: The sysctl file's content.
    type: str
    required: true
  thp_text:
    description: The THP unit's content.
    type: str
    required: true
  cpu_clock:
    description: The CPU governor and clocksource (C(kernel_cpu_clock)); empty, no unit.
    type: dict
    default: {}
  cpu_unit_path:
    description: The path of their unit (required with O(cpu_clock)).
    type: str
  cpu_text:
    description: Their unit's content (required with O(cpu_clock)).
    type: str
"""

EXAMPLES = r"""
- name: Write the sysctl file and the THP unit (only what differs)
  iotune.storage.config_files:
    files: >-
      {{ kernel_sysctl | iotune.storage.kernel_files(thp=kernel_thp, sysctl_file=kernel_sysctl_file,
         thp_unit_path=kernel_thp_unit_path, sysctl_text=lookup('ansible.builtin.template', 'sysctl.conf.j2'),
         thp_text=lookup('ansible.builtin.template', 'thp.service.j2')) }}
"""

RETURN = r"""
_value:
  description: The entries (C(path), C(content), C(state) for the sysctl file), the sysctl file first.
  type: list
  elements: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import role_tasks


def kernel_files(sysctl, thp, sysctl_file, thp_unit_path, sysctl_text, thp_text, cpu_clock=None, cpu_unit_path=None,
                 cpu_text=None):
    if not isinstance(sysctl, dict) or not isinstance(thp, dict):
        raise AnsibleFilterError('kernel_files: the sysctls and thp must be dicts, got %r and %r' % (sysctl, thp))
    if cpu_clock is not None and not isinstance(cpu_clock, dict):
        raise AnsibleFilterError('kernel_files: cpu_clock must be a dict, got %r' % (cpu_clock,))
    if cpu_clock and not (cpu_unit_path and cpu_text is not None):
        raise AnsibleFilterError('kernel_files: cpu_clock needs cpu_unit_path and cpu_text')
    return role_tasks.kernel_files(sysctl, thp, sysctl_file, thp_unit_path, sysctl_text, thp_text,
                                   cpu_clock=cpu_clock, cpu_unit_path=cpu_unit_path, cpu_text=cpu_text)


class FilterModule(object):
    def filters(self):
        return {'kernel_files': kernel_files}
