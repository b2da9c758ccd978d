# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: packages_missing
short_description: Which of some packages are not installed (the preflight's rule, for the packages and raid0 roles)
version_added: 0.1.0
description:
  - Returns the names of the input that dpkg-query does not show as C(install ok installed), each once and in their
    order, by the rule of M(iotune.storage.storage_preflight) (C(missing) in C(plugins/module_utils/dpkg.py)),
    its one home; the P(iotune.storage.packages#role) and P(iotune.storage.raid0#role) roles read dpkg-query's output
    with it, and take a caller's read through it.
  - With O(read), a caller's answer is used instead (the tune role passes the preflight's C(packages_missing)); with
    O(read_of) as well, only for names that read covered. Logic in C(plugins/plugin_utils/role_tasks.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The package names.
    type: list
    elements: str
    required: true
  dpkg_lines:
    description: The C(stdout_lines) of the C(dpkg-query --show --showformat='${Package} ${Status}\n' NAMES) call
      (P(iotune.storage.package_argv#filter) V(query)); used when O(read) is V(null).
    type: list
    elements: str
    default: []
  read:
    description: The names a caller already found missing; V(null) when it did not look.
    type: list
    elements: str
  read_of:
    description: The names O(read) covered. When given, the answer is V(null) if O(read) is V(null) or a name of the
      input is not among these, else the names of O(read) that are in the input.
    type: list
    elements: str
"""

EXAMPLES = r"""
- name: Look for the packages
  ansible.builtin.command:
    argv: "{{ packages_names | iotune.storage.package_argv('query') }}"
  register: packages_dpkg
  changed_when: false
  failed_when: false

- name: The missing ones
  ansible.builtin.debug:
    msg: "{{ packages_names | iotune.storage.packages_missing(dpkg_lines=packages_dpkg.stdout_lines | default([])) }}"

- name: What the preflight read, for a subset of what it read (null when it did not read them all)
  ansible.builtin.debug:
    msg: "{{ ['mdadm'] | iotune.storage.packages_missing(read=['xfsprogs'], read_of=['mdadm', 'xfsprogs']) }}"
  # []
"""

RETURN = r"""
_value:
  description: The missing names, or V(null) when O(read_of) is given and the read does not answer.
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.collections import is_sequence

from ansible_collections.iotune.storage.plugins.plugin_utils import role_tasks


def _names(value, what):
    if value is None:
        return None
    if not is_sequence(value) or not all(isinstance(v, str) for v in value):
        raise AnsibleFilterError('packages_missing: %s must be a list of package names, got %r' % (what, value))
    return list(value)


def packages_missing(names, dpkg_lines=None, read=None, read_of=None):
    return role_tasks.packages_missing(_names(names, 'the input'), dpkg_lines=_names(dpkg_lines, 'dpkg_lines'),
                                       read=_names(read, 'read'), read_of=_names(read_of, 'read_of'))


class FilterModule(object):
    def filters(self):
        return {'packages_missing': packages_missing}
