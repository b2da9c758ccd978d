# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: argv_with
short_description: A command's argv - fixed words, then a field of each item of a list
version_added: 0.1.0
description:
  - The words of O(words), then the O(attribute) of each item of the input, as the ephemeral role runs
    C(systemd-escape) and its boot program's C(--check) over its arrays.
  - Logic in C(plugins/plugin_utils/role_values.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The items (dicts), e.g. the ephemeral arrays.
    type: list
    elements: dict
    required: true
  words:
    description: The argv's first words.
    type: list
    elements: str
    required: true
  attribute:
    description: The field of each item appended to the argv.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Name the mount units of the ephemeral arrays
  ansible.builtin.command:
    argv: "{{ ephemeral_arrays | iotune.storage.argv_with(['systemd-escape', '--path', '--suffix=mount'], 'mountpoint') }}"
  changed_when: false
"""

RETURN = r"""
_value:
  description: O(words), then the O(attribute) of each item.
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import role_values


def argv_with(items, words, attribute):
    if not isinstance(items, list) or not isinstance(words, list):
        raise AnsibleFilterError('argv_with expects a list of items and a list of words')
    try:
        return role_values.argv_with(items, words, attribute)
    except (KeyError, TypeError) as e:
        raise AnsibleFilterError('argv_with: an item has no %s (%s)' % (attribute, e))


class FilterModule(object):
    def filters(self):
        return {'argv_with': argv_with}
