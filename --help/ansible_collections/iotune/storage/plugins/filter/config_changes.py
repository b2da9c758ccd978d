# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: config_changes
short_description: The paths a config_files call would change, judged from a snapshot read earlier
version_added: 0.1.0
description:
  - Compares the wanted entries of a M(iotune.storage.config_files) call with the states of the files read
    earlier in the run (the C(files) result of M(iotune.storage.storage_preflight)) and returns the paths that
    call would write, fix or remove, by the same rules (content, mode, owner and group; a file of the
    C(remove_unlisted) patterns that is not wanted).
  - An empty list means the call would only confirm, and the roles of the tune playbook skip it (one round trip less).
    A non-empty list only says that the call must run; the module compares the files again itself.
  - The snapshot must have read every wanted path and every C(remove_unlisted) pattern; a path it does not
    list counts as missing.
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The entries of O(iotune.storage.config_files#module:files) (C(path), C(content), C(state),
      C(mode), C(owner), C(group); the module's defaults apply).
    type: list
    elements: dict
    required: true
  found:
    description: The file states, as returned in the C(files) result of M(iotune.storage.storage_preflight).
    type: list
    elements: dict
    required: true
  remove_unlisted:
    description: The O(iotune.storage.config_files#module:remove_unlisted) patterns of the call.
    type: list
    elements: str
    default: []
seealso:
  - module: iotune.storage.config_files
  - module: iotune.storage.storage_preflight
"""

EXAMPLES = r"""
- name: Write the drop-ins, unless the preflight's snapshot shows them as wanted already
  iotune.storage.config_files:
    files: "{{ dropins }}"
    remove_unlisted: [/etc/systemd/system/*.d/mounts.conf]
  when: >-
    dropins | iotune.storage.config_changes(preflight.files, remove_unlisted=['/etc/systemd/system/*.d/mounts.conf'])
    | length > 0
"""

RETURN = r"""
_value:
  description: The paths that differ from the wanted state, wanted entries first, in their order.
  type: list
  elements: path
"""

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.collections import is_sequence

from ansible_collections.iotune.storage.plugins.module_utils import files as fileutil


def config_changes(wanted, found, remove_unlisted=()):
    for name, value in (('input', wanted), ('found', found)):
        if not is_sequence(value) or not all(isinstance(item, dict) and 'path' in item for item in value):
            raise AnsibleFilterError('config_changes: %s must be a list of dicts with a path, got %r' % (name, value))
    if not is_sequence(remove_unlisted):
        raise AnsibleFilterError('config_changes: remove_unlisted must be a list of patterns')
    return fileutil.pending_changes(wanted, found, remove_unlisted)


class FilterModule(object):
    def filters(self):
        return {'config_changes': config_changes}
