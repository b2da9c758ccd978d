# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: any_true
short_description: Whether a field of any item of a list is true
version_added: 0.1.0
description:
  - True when the field at the dotted O(path) of an item of the input is true; an item without it counts as
    false. The tune role asks whether an array is verified (C(verify)), fio_verify whether the kernel died under
    fio (C(crash.kernel_died)).
  - Logic in C(plugins/plugin_utils/role_values.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The items (dicts).
    type: list
    elements: dict
    required: true
  path:
    description: The field, its keys joined by dots.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Remove the test file (not after the kernel died)
  ansible.builtin.file:
    path: /data/iotune-fio.verify.dat
    state: absent
  when: not fio_verify_raw.results | default([]) | iotune.storage.any_true('crash.kernel_died')
"""

RETURN = r"""
_value:
  description: Whether the field of an item is true.
  type: bool
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import role_values


def any_true(items, path):
    if not isinstance(items, list):
        raise AnsibleFilterError('any_true expects a list, got %r' % (items,))
    return role_values.any_true(items, str(path))


class FilterModule(object):
    def filters(self):
        return {'any_true': any_true}
