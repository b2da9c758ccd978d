# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: retire_calls
short_description: The entries of iotune_retire_md_arrays the tune role calls retire_array for
version_added: 0.1.0
description:
  - Takes the plan's C(retire_arrays) and returns those to call M(iotune.storage.retire_array) for, in order.
  - Without O(read), every entry. With it (the C(retire) result of M(iotune.storage.storage_preflight), which ran the
    module's own code in check mode earlier in the run), only those it found something left to do for; a run after
    the retire is done makes no call.
  - Logic in C(plugins/plugin_utils/retire_steps.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The plan's C(retire_arrays).
    type: list
    elements: dict
    required: true
  read:
    description: The preflight's C(retire) result; null when it did not look.
    type: list
    elements: dict
"""

EXAMPLES = r"""
- name: Retire
  iotune.storage.retire_array:
    name: "{{ item.name }}"
    confirm_name: "{{ item.confirm_name }}"
    confirm_uuid: "{{ item.confirm_uuid }}"
    conf_path: /etc/mdadm/mdadm.conf
  loop: "{{ iotune_plan.retire_arrays | iotune.storage.retire_calls(profile_preflight_result.retire | default(none)) }}"
"""

RETURN = r"""
_value:
  description: The entries to call the module for.
  type: list
  elements: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import retire_steps


def retire_calls(entries, read=None):
    if not isinstance(entries, list) or not all(isinstance(e, dict) and 'name' in e for e in entries):
        raise AnsibleFilterError('retire_calls expects the plan\'s retire_arrays, got %r' % (entries,))
    try:
        return retire_steps.calls(entries, read)
    except retire_steps.RetireStepsError as e:
        raise AnsibleFilterError('retire_calls: %s' % e)


class FilterModule(object):
    def filters(self):
        return {'retire_calls': retire_calls}
