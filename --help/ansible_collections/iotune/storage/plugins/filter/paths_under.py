# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: paths_under
short_description: The paths of the found files under some directories
version_added: 0.1.0
description:
  - The C(path) of each file of the input (entries of C(ansible.builtin.find) or
    P(iotune.storage.files_read_states#filter)) that lies under one of O(directories) (begins with it and a slash).
  - Logic in C(plugins/plugin_utils/role_values.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The files (dicts with C(path)).
    type: list
    elements: dict
    required: true
  directories:
    description: The directories (without a trailing slash).
    type: list
    elements: str
    required: true
"""

EXAMPLES = r"""
- name: Remove the boot program when no array is ephemeral
  ansible.builtin.file:
    path: "{{ item }}"
    state: absent
  loop: "{{ [ephemeral_lib_dir, ephemeral_spec_dir] }}"
  when: ephemeral_found | iotune.storage.paths_under([ephemeral_lib_dir, ephemeral_spec_dir]) | length > 0
"""

RETURN = r"""
_value:
  description: The paths under O(directories), in the order of the input.
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import role_values


def paths_under(files, directories):
    if not isinstance(files, list) or not all(isinstance(e, dict) and 'path' in e for e in files):
        raise AnsibleFilterError('paths_under expects a list of files with path, got %r' % (files,))
    if not isinstance(directories, list):
        raise AnsibleFilterError('paths_under: directories must be a list')
    return role_values.paths_under(files, [str(d) for d in directories])


class FilterModule(object):
    def filters(self):
        return {'paths_under': paths_under}
