# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: copy_changes
short_description: The entries of a copy loop that would change a file, judged from the states found
version_added: 0.1.0
description:
  - Takes the files a role writes with M(ansible.builtin.copy) (C(dest), C(content), C(mode); owner and group
    root) and returns those the states found do not show as a regular file of that content (sha1), mode, owner
    and group. The ephemeral role writes only these.
  - The same rule as M(iotune.storage.config_files) and the filter P(iotune.storage.config_changes#filter)
    (C(pending_changes) of C(plugins/module_utils/files.py)), for entries keyed by C(dest).
  - The states must include every C(dest) that exists; a C(dest) they do not list counts as missing.
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The copy entries, C(dest), C(content) and C(mode) (V(0644) when absent).
    type: list
    elements: dict
    required: true
  found:
    description: The file states (M(ansible.builtin.find) results with C(get_checksum), or the C(files) of
      M(iotune.storage.storage_preflight)).
    type: list
    elements: dict
    required: true
seealso:
  - plugin: iotune.storage.config_changes
    plugin_type: filter
"""

EXAMPLES = r"""
- name: Write only the files that differ
  ansible.builtin.copy:
    dest: "{{ item.dest }}"
    content: "{{ item.content }}"
    owner: root
    group: root
    mode: "{{ item.mode | default('0644') }}"
  loop: "{{ wanted_files | iotune.storage.copy_changes(found.files) }}"
"""

RETURN = r"""
_value:
  description: The entries that differ, in their order (the entries themselves).
  type: list
  elements: dict
"""

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.collections import is_sequence

from ansible_collections.iotune.storage.plugins.plugin_utils import file_sync


def copy_changes(files, found):
    if not is_sequence(files) or not all(isinstance(f, dict) and 'dest' in f and 'content' in f for f in files):
        raise AnsibleFilterError('copy_changes: the input must be a list of dicts with dest and content, got %r'
                                 % (files,))
    if not is_sequence(found) or not all(isinstance(f, dict) and 'path' in f for f in found):
        raise AnsibleFilterError('copy_changes: found must be a list of file states with a path, got %r' % (found,))
    try:
        return file_sync.copy_changes(files, found)
    except (KeyError, ValueError, TypeError) as e:
        raise AnsibleFilterError('copy_changes: a file state lacks %s or has a bad one' % e)


class FilterModule(object):
    def filters(self):
        return {'copy_changes': copy_changes}
