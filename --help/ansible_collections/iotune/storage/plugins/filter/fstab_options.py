# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: fstab_options
short_description: The options field of the fstab line the collection writes for an array
version_added: 0.1.0
description:
  - Returns the mount options, then C(nofail) and C(x-systemd.device-timeout=TIMEOUT), each option once, joined by
    commas - the options field the xfs and ephemeral roles write, and that C(iotune.storage.xfs_filesystem)
    compares with the host's fstab.
  - One home for this rule (C(plugins/module_utils/fstab.py)); null options give the default, C(noatime).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The array's mount options; null for the default.
    type: list
    elements: str
    required: true
  device_timeout:
    description: How long the mount unit waits for the device at boot (a systemd time span such as C(90s)).
    type: str
    required: true
"""

EXAMPLES = r"""
- name: The fstab options of the array data
  ansible.builtin.debug:
    msg: "{{ ['noatime', 'logbsize=256k'] | iotune.storage.fstab_options('90s') }}"
  # noatime,logbsize=256k,nofail,x-systemd.device-timeout=90s
"""

RETURN = r"""
_value:
  description: The options field, comma-separated.
  type: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.module_utils import fstab


def fstab_options(mount_options, device_timeout):
    try:
        return fstab.line_options(mount_options, device_timeout)
    except fstab.OptionsError as e:
        raise AnsibleFilterError('fstab_options: %s' % e)


class FilterModule(object):
    def filters(self):
        return {'fstab_options': fstab_options}
