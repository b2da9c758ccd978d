# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: package_argv
short_description: The argv of the package calls of the packages and raid0 roles (dpkg-query, apt-get, dpkg)
version_added: 0.1.0
description:
  - V(query) is the C(dpkg-query) call that reads whether packages are installed, the same as
    M(iotune.storage.storage_preflight)'s (C(plugins/module_utils/preflight.py)); read its output with
    P(iotune.storage.packages_missing#filter).
  - V(install) is C(apt-get install) without recommended packages, waiting up to 60 s for dpkg's lock and keeping
    changed configuration files (the P(iotune.storage.packages#role) role's); V(unpack) the same with the triggers
    deferred and nothing pending configured (the P(iotune.storage.raid0#role) role's, whose one initramfs rebuild
    comes after mdadm.conf is written); V(configure) C(dpkg --configure --no-triggers) of the packages that
    C(apt-get)'s output names as unpacked.
  - Logic in C(plugins/plugin_utils/role_tasks.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The package names; for V(configure), the output (stdout) of the V(unpack) call.
    type: raw
    required: true
  kind:
    description: Which call.
    type: str
    choices: [query, install, unpack, configure]
    required: true
"""

EXAMPLES = r"""
- name: Unpack without triggers
  ansible.builtin.command:
    argv: "{{ ['mdadm'] | iotune.storage.package_argv('unpack') }}"
  register: unpacked

- name: Configure what apt unpacked, the triggers left pending
  ansible.builtin.command:
    argv: "{{ unpacked.stdout | iotune.storage.package_argv('configure') }}"
"""

RETURN = r"""
_value:
  description: The argv (program first).
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.collections import is_sequence

from ansible_collections.iotune.storage.plugins.plugin_utils import role_tasks


def package_argv(value, kind):
    if kind not in role_tasks.ARGV_KINDS:
        raise AnsibleFilterError('package_argv: kind must be one of %s, got %r' % (', '.join(role_tasks.ARGV_KINDS), kind))
    if kind == 'configure':
        if value is not None and not isinstance(value, str):
            raise AnsibleFilterError('package_argv: configure takes the text apt-get printed, got %r' % (value,))
    elif not is_sequence(value) or not all(isinstance(v, str) for v in value):
        raise AnsibleFilterError('package_argv: %s takes a list of package names, got %r' % (kind, value))
    return role_tasks.package_argv(value, kind)


class FilterModule(object):
    def filters(self):
        return {'package_argv': package_argv}
