# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: results_by
short_description: A loop's results by a field of their item
version_added: 0.1.0
description:
  - The results of a loop in a dict, each under the O(attribute) of its C(item), as the xfs role exposes its
    results per mount point; a later item wins a repeated value.
  - Logic in C(plugins/plugin_utils/role_values.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The loop's C(results).
    type: list
    elements: dict
    required: true
  attribute:
    description: The field of each result's C(item) that keys it.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Expose the results per mount point
  ansible.builtin.set_fact:
    xfs_results: "{{ xfs_created.results | iotune.storage.results_by('mountpoint') }}"
"""

RETURN = r"""
_value:
  description: The results by the O(attribute) of their item.
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import role_values


def results_by(results, attribute):
    if not isinstance(results, list):
        raise AnsibleFilterError('results_by expects the results of a loop, got %r' % (results,))
    try:
        return role_values.results_by(results, attribute)
    except (KeyError, TypeError) as e:
        raise AnsibleFilterError('results_by: a result has no item.%s (%s)' % (attribute, e))


class FilterModule(object):
    def filters(self):
        return {'results_by': results_by}
