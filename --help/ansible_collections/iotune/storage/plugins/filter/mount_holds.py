# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: mount_holds
short_description: The systemd drop-ins that hold the services of the arrays until their filesystems are mounted
version_added: 0.1.0
description:
  - Returns the drop-in files the xfs role writes (C(/etc/systemd/system/UNIT.d/iotune-storage-mounts.conf), one per
    service, C(RequiresMountsFor=) all the mount points of the filesystems that name it) and the pattern of every
    drop-in of this collection, which that role removes when no filesystem names the service any more.
  - One home for the drop-in's place, name and text (C(plugins/module_utils/mount_holds.py)), which
    C(iotune.storage.storage_preflight) reads back to refuse a plan that drops the hold of a mounted filesystem.
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The filesystems (C(xfs_filesystems) entries); each C(mountpoint) and its optional C(services).
    type: list
    elements: dict
    required: true
"""

EXAMPLES = r"""
- name: The drop-ins of the array data
  ansible.builtin.debug:
    msg: "{{ [{'mountpoint': '/var/lib/cassandra', 'services': ['cassandra.service']}] | iotune.storage.mount_holds }}"
  # {"files": [{"path": "/etc/systemd/system/cassandra.service.d/iotune-storage-mounts.conf",
  #             "content": "# Managed by Ansible ...\n[Unit]\nRequiresMountsFor=/var/lib/cassandra\n"}],
  #  "glob": "/etc/systemd/system/*.d/iotune-storage-mounts.conf"}
"""

RETURN = r"""
_value:
  description: The drop-ins and the pattern of all of them.
  type: dict
  contains:
    files:
      description: One entry per service, in the order the services first appear (C(path), C(content)), the input of
        C(iotune.storage.config_files).
      type: list
      elements: dict
    glob:
      description: The pattern of every drop-in of this collection, of any unit.
      type: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.module_utils import mount_holds as holds


def mount_holds(filesystems):
    if not isinstance(filesystems, (list, tuple)) or not all(
            isinstance(fs, dict) and isinstance(fs.get('mountpoint'), str) for fs in filesystems):
        raise AnsibleFilterError('mount_holds expects a list of filesystems, each with a mountpoint, got %r'
                                 % (filesystems,))
    for fs in filesystems:
        services = fs.get('services') or []
        if not isinstance(services, (list, tuple)) or not all(isinstance(u, str) and u for u in services):
            raise AnsibleFilterError('mount_holds: services of %s must be a list of unit names, got %r'
                                     % (fs['mountpoint'], services))
    return {'files': holds.files(filesystems), 'glob': holds.GLOB}


class FilterModule(object):
    def filters(self):
        return {'mount_holds': mount_holds}
