# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: overlaps
short_description: Whether two lists share a value
version_added: 0.1.0
description:
  - True when a value of the input is one of O(others), as the metrics role asks whether a call changed one of
    its units.
  - Logic in C(plugins/plugin_utils/role_values.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The values (e.g. the paths a call changed).
    type: list
    required: true
  others:
    description: The values looked for.
    type: list
    required: true
"""

EXAMPLES = r"""
- name: Whether the units changed
  ansible.builtin.set_fact:
    metrics_units_written: "{{ metrics_written.changed_paths | default([]) | iotune.storage.overlaps(metrics_unit_paths) }}"
"""

RETURN = r"""
_value:
  description: Whether the lists share a value.
  type: bool
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import role_values


def overlaps(values, others):
    if not isinstance(values, list) or not isinstance(others, list):
        raise AnsibleFilterError('overlaps expects two lists, got %r and %r' % (values, others))
    return role_values.overlaps(values, others)


class FilterModule(object):
    def filters(self):
        return {'overlaps': overlaps}
