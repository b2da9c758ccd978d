# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: mdadm_conf_path
short_description: The path of mdadm.conf on a host of a distribution family
version_added: 0.1.0
description:
  - Returns C(/etc/mdadm/mdadm.conf) for the Debian family (Debian and Ubuntu patch mdadm to read it there) and
    C(/etc/mdadm.conf) for every other family (mdadm's own default), or O(override) when it is given.
  - One home for this fact (C(plugins/module_utils/mdadm.py)), shared by the raid0 and ephemeral roles, the audit
    and the initramfs reader.
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The host's C(ansible_facts['os_family']).
    type: str
    required: true
  override:
    description: A path to use instead (the roles' C(raid0_mdadm_conf) / C(ephemeral_mdadm_conf)); null for the default.
    type: path
"""

EXAMPLES = r"""
- name: Where this host keeps mdadm.conf
  ansible.builtin.set_fact:
    conf_path: "{{ ansible_facts['os_family'] | iotune.storage.mdadm_conf_path(override=raid0_mdadm_conf) }}"
"""

RETURN = r"""
_value:
  description: The absolute path of mdadm.conf.
  type: path
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.module_utils import mdadm


def mdadm_conf_path(os_family, override=None):
    if override is not None and not isinstance(override, str):
        raise AnsibleFilterError('mdadm_conf_path: override must be a path or null, got %r' % (override,))
    return mdadm.conf_path(os_family, override)


class FilterModule(object):
    def filters(self):
        return {'mdadm_conf_path': mdadm_conf_path}
