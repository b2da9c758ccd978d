# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: files_found
short_description: A caller's read of a role's files, else what the role's own reads found
version_added: 0.1.0
description:
  - The input, P(iotune.storage.files_read_states#filter)'s states of a role's files, when it holds them
    (not null), as they are, or their paths with O(paths); when null, the O(key) lists of the role's own reads
    (registered results in O(finds); one that was skipped adds nothing), one after the other.
  - Logic in C(plugins/plugin_utils/role_values.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The caller's read (a list of states with C(path)), or null.
    type: list
    elements: dict
    required: true
  finds:
    description: The registered results of the role's own reads.
    type: list
    elements: dict
    required: true
  key:
    description: The list each of O(finds) holds.
    type: str
    default: files
  paths:
    description: Return the C(path) of each state of the input rather than the states.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: The caller's read, else what the two finds found
  ansible.builtin.set_fact:
    ephemeral_found: >-
      {{ ephemeral_found_files | iotune.storage.files_found([ephemeral_found_units | default({}),
                                                             ephemeral_found_lib | default({})]) }}
"""

RETURN = r"""
_value:
  description: The input (or its paths), else the found entries.
  type: list
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import role_values


def files_found(read, finds, key='files', paths=False):
    if read is not None and not isinstance(read, list):
        raise AnsibleFilterError('files_found expects a list of file states or null, got %r' % (read,))
    if not isinstance(finds, list) or not all(f is None or isinstance(f, dict) for f in finds):
        raise AnsibleFilterError('files_found: finds must be a list of registered results')
    return role_values.files_found(read, finds, key=key, paths=paths)


class FilterModule(object):
    def filters(self):
        return {'files_found': files_found}
