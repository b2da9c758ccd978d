# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: service_dropins
short_description: Every systemd drop-in the xfs role keeps for the database services (mount holds and limits)
version_added: 0.1.0
description:
  - Returns the drop-ins the xfs role writes in its one C(iotune.storage.config_files) call, and the patterns of all
    of them (its C(remove_unlisted), and what the tune role's preflight reads).
  - The mount holds (C(iotune-storage-mounts.conf), C(RequiresMountsFor=), as the P(iotune.storage.mount_holds#filter)
    filter returns them) and the limits drop-ins (C(/etc/systemd/system/UNIT.d/iotune-storage-limits.conf), the
    C(Limit*=) settings of the profile per service, C(plugins/module_utils/service_limits.py)).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The filesystems (C(xfs_filesystems) entries); each C(mountpoint) and its optional C(services).
    type: list
    elements: dict
    required: true
  limits:
    description:
      - "The limits per unit (the tune plan's C(limits), C({unit: {LimitNOFILE: '100000', ...}})), validated by the
        plan; a unit without settings gets no drop-in."
    type: dict
    default: {}
"""

EXAMPLES = r"""
- name: The drop-ins of the cassandra service
  ansible.builtin.debug:
    msg: >-
      {{ [{'mountpoint': '/var/lib/cassandra', 'services': ['cassandra.service']}]
         | iotune.storage.service_dropins(limits={'cassandra.service': {'LimitNOFILE': '100000'}}) }}
  # {"files": [{"path": "/etc/systemd/system/cassandra.service.d/iotune-storage-mounts.conf", ...},
  #            {"path": "/etc/systemd/system/cassandra.service.d/iotune-storage-limits.conf",
  #             "content": "# Managed by Ansible ...\n[Service]\nLimitNOFILE=100000\n"}],
  #  "globs": ["/etc/systemd/system/*.d/iotune-storage-mounts.conf",
  #            "/etc/systemd/system/*.d/iotune-storage-limits.conf"]}
"""

RETURN = r"""
_value:
  description: The drop-ins and the patterns of all of them.
  type: dict
  contains:
    files:
      description: The mount holds, then the limits drop-ins (C(path), C(content)), the input of
        C(iotune.storage.config_files).
      type: list
      elements: dict
    globs:
      description: The patterns of every drop-in of this collection, of any unit (mount holds, limits).
      type: list
      elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.mount_holds import mount_holds
from ansible_collections.iotune.storage.plugins.module_utils import service_limits


def service_dropins(filesystems, limits=None):
    holds = mount_holds(filesystems)
    limits = {} if limits is None else limits
    if not isinstance(limits, dict):
        raise AnsibleFilterError('service_dropins: limits must be a dict {unit: {Limit*: value}}, got %r' % (limits,))
    checked = {}
    for unit, settings in limits.items():
        found, problems = service_limits.validate(settings, 'limits of %s' % unit)
        if problems or not isinstance(unit, str) or not unit:
            raise AnsibleFilterError('service_dropins: %s' % ('; '.join(problems) or 'bad unit %r' % (unit,)))
        checked[unit] = found
    return {'files': holds['files'] + service_limits.files(checked),
            'globs': [holds['glob'], service_limits.GLOB]}


class FilterModule(object):
    def filters(self):
        return {'service_dropins': service_dropins}
