# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: ephemeral_directories
short_description: The directories the ephemeral role creates before it writes its files
version_added: 0.1.0
description:
  - The directories of the files to write (the C(dest) of each entry of P(iotune.storage.copy_changes#filter)'s
    list), and C(/etc/systemd/system/local-fs.target.wants) when units are to be enabled; each once, in the order
    first met.
  - Logic in C(plugins/plugin_utils/role_values.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The files to write (dicts with C(dest)).
    type: list
    elements: dict
    required: true
  to_enable:
    description: The boot units to enable (a link in local-fs.target.wants each); empty or null for none.
    type: list
    elements: str
    required: true
"""

EXAMPLES = r"""
- name: Create the directories of the boot program and its specs
  ansible.builtin.file:
    path: "{{ item }}"
    state: directory
    mode: "0755"
  loop: "{{ ephemeral_to_write | iotune.storage.ephemeral_directories(ephemeral_to_enable) }}"
"""

RETURN = r"""
_value:
  description: The directories, each once.
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import role_values


def ephemeral_directories(to_write, to_enable):
    if not isinstance(to_write, list) or not all(isinstance(e, dict) and 'dest' in e for e in to_write):
        raise AnsibleFilterError('ephemeral_directories expects a list of files with dest, got %r' % (to_write,))
    return role_values.ephemeral_directories(to_write, to_enable)


class FilterModule(object):
    def filters(self):
        return {'ephemeral_directories': ephemeral_directories}
