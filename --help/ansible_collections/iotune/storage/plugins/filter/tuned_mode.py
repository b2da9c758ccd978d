# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: tuned_mode
short_description: What a tune stage's module does when tuned's active profile would win
version_added: 0.1.0
description:
  - Maps a role's C(*_tuned_override) to the option of its module, the one mapping of the collection
    (C(plugins/plugin_utils/stages.py), C(TUNED_MODES)); the block_tuning role's call (filter
    P(iotune.storage.stage_calls#filter)) and the profile role's tuning check take the same value from it.
  - V(block_tuning) gives M(iotune.storage.udev_block_tuning)'s O(iotune.storage.udev_block_tuning#module:tuned),
    V(override) or V(fail). V(kernel) gives M(iotune.storage.kernel_settings)'s
    O(iotune.storage.kernel_settings#module:mode), V(override) or V(fail), and V(report) in check mode (nothing
    was applied, the old values are still live).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The role's C(block_tuning_tuned_override) or C(kernel_tuned_override), a boolean as the C(bool)
      filter reads it.
    type: raw
    required: true
  stage:
    description: The stage whose module is called.
    type: str
    choices: [block_tuning, kernel]
    required: true
  check_mode:
    description: C(ansible_check_mode).
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: The kernel role's check
  iotune.storage.kernel_settings:
    sysctl: "{{ kernel_sysctl }}"
    mode: "{{ kernel_tuned_override | iotune.storage.tuned_mode('kernel', check_mode=ansible_check_mode) }}"
"""

RETURN = r"""
_value:
  description: V(override), V(fail) or (kernel, check mode) V(report).
  type: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import stages


def tuned_mode(override, stage, check_mode=False):
    try:
        return stages.tuned_mode(override, stage, check_mode=check_mode)
    except (ValueError, TypeError) as e:
        raise AnsibleFilterError('tuned_mode: %s' % e)


class FilterModule(object):
    def filters(self):
        return {'tuned_mode': tuned_mode}
