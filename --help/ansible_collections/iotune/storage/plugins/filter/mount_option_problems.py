# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: mount_option_problems
short_description: Why XFS mount options would be refused
version_added: 0.1.0
description:
  - Returns one message per mount option that the collection refuses, the same rule as the tune plan's
    (C(plugins/module_utils/rules.py)) - C(barrier) and C(nobarrier) (removed from XFS in Linux 4.19, the mount
    fails), C(noauto) (not mounted at boot), C(defaults) (not needed), C(norecovery) (read-only mounts only), and
    anything that is not one option (a comma or a space).
  - When every option is valid alone, the list as a whole - C(sunit) and C(swidth) only together.
  - The xfs role checks its entries with it when it is used without the tune plan.
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The mount options, one per item.
    type: list
    elements: str
    required: true
"""

EXAMPLES = r"""
- name: Refuse removed or unsafe mount options
  ansible.builtin.assert:
    that: options | iotune.storage.mount_option_problems | length == 0
    fail_msg: "{{ options | iotune.storage.mount_option_problems | join('; ') }}"
"""

RETURN = r"""
_value:
  description: One message per refused option, in the input's order; empty when every option is accepted.
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.module_utils.rules import mount_option_problem, mount_option_set_problems


def mount_option_problems(options):
    if isinstance(options, str) or not isinstance(options, (list, tuple)):
        raise AnsibleFilterError('mount_option_problems expects a list of mount options, got %r' % (options,))
    problems = [problem for problem in (mount_option_problem(option) for option in options) if problem]
    return problems or mount_option_set_problems(options)


class FilterModule(object):
    def filters(self):
        return {'mount_option_problems': mount_option_problems}
