# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: stage_result
short_description: A stage role's result - its call's, or the preflight's read when stage_skip skipped the call
version_added: 0.1.0
description:
  - The raid0, xfs, block_tuning and kernel roles call their module only when P(iotune.storage.stage_skip#filter)
    does not skip it; what they keep is the call's registered result, or, on a skip, what the skipped task would have
    registered (the C(registered) of the skip decision, its first result with O(first) for a call without a loop).
    Logic in C(plugins/plugin_utils/role_reports.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The decision of P(iotune.storage.stage_skip#filter) (C(skip), C(registered)).
    type: dict
    required: true
  called:
    description: What the call's task registered (skipped itself when the call was skipped).
    type: raw
    required: true
  first:
    description: On a skip, the first of the registered C(results) (a call without a loop).
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Keep the result (the preflight's read when the call was skipped)
  ansible.builtin.set_fact:
    block_tuning_results: "{{ block_tuning_sync | iotune.storage.stage_result(block_tuning_module, first=true) }}"
"""

RETURN = r"""
_value:
  description: O(called), or on a skip the C(registered) of the decision (its first result with O(first)).
  type: raw
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import role_reports


def stage_result(sync, called, first=False):
    if not isinstance(sync, dict) or 'skip' not in sync:
        raise AnsibleFilterError('stage_result expects the decision of stage_skip, got %r' % (sync,))
    return role_reports.stage_result(sync, called, first=first)


class FilterModule(object):
    def filters(self):
        return {'stage_result': stage_result}
