# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: files_read_states
short_description: The states of a role's files from a read made earlier in the run, or null when it lacks one
version_added: 0.1.0
description:
  - Takes the file states a caller read for some glob patterns (the C(files) result of
    M(iotune.storage.storage_preflight), the states by pattern, which the tune role passes to the xfs, ephemeral,
    kernel and metrics roles as C(ROLE_files_read)) and returns the states of the role's patterns, pattern by pattern.
  - Returns V(null) when the read is not a dict or lacks one of the patterns; the role then reads its files itself.
  - Logic in C(plugins/plugin_utils/file_sync.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The read, a dict of state lists by pattern; anything else (V({}) when no caller read) gives V(null).
    type: raw
    required: true
  globs:
    description: The role's patterns, in the order of the result.
    type: list
    elements: str
    required: true
  file_types:
    description:
      - A dict of pattern lists by type keeps only the states of that type for those patterns, as the find task that
        reads them when the read lacks them. V(file) is a regular file (C(isreg)), V(not_directory) anything but a
        directory (C(isdir)), V(any) every state. A pattern not listed keeps every state.
    type: dict
    default: {}
  unique:
    description: Drop a state equal to one listed before (two patterns that match the same file).
    type: bool
    default: false
seealso:
  - module: iotune.storage.storage_preflight
"""

EXAMPLES = r"""
- name: The states of the kernel role's files, if the preflight read them
  ansible.builtin.debug:
    msg: "{{ kernel_files_read | iotune.storage.files_read_states(['/etc/sysctl.d/90-iotune.conf']) }}"
  # [{"path": "/etc/sysctl.d/90-iotune.conf", "checksum": "...", "mode": "0644", ...}], or null

- name: Units and drop-ins of any type but directories, the boot program and specs regular files only
  ansible.builtin.debug:
    msg: >-
      {{ ephemeral_files_read | iotune.storage.files_read_states(unit_globs + lib_globs, unique=true,
         file_types={'not_directory': unit_globs, 'file': lib_globs}) }}
"""

RETURN = r"""
_value:
  description: The states (C(path), C(checksum), C(mode), C(pw_name), C(gr_name), C(isreg), C(isdir), ...), or
    V(null) when the read lacks a pattern.
  type: list
  elements: dict
"""

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.collections import is_sequence

from ansible_collections.iotune.storage.plugins.plugin_utils import file_sync


def files_read_states(read, globs, file_types=None, unique=False):
    if not is_sequence(globs) or not all(isinstance(g, str) for g in globs):
        raise AnsibleFilterError('files_read_states: globs must be a list of patterns, got %r' % (globs,))
    if file_types is not None and not (isinstance(file_types, dict) and all(is_sequence(p) for p in file_types.values())):
        raise AnsibleFilterError('files_read_states: file_types must be a dict of pattern lists, got %r' % (file_types,))
    try:
        return file_sync.read_states(read, globs, file_types=file_types, unique=unique)
    except ValueError as e:
        raise AnsibleFilterError('files_read_states: %s' % e)
    except (KeyError, TypeError, AttributeError) as e:
        raise AnsibleFilterError('files_read_states: a state of the read is not a file state with isreg and isdir (%s)'
                                 % e)


class FilterModule(object):
    def filters(self):
        return {'files_read_states': files_read_states}
