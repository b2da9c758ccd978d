# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: xfs_moved_mounts
short_description: The old mount points of filesystems the xfs role mounts somewhere else now
version_added: 0.1.0
description:
  - Takes the results of the M(iotune.storage.xfs_filesystem) calls of the P(iotune.storage.xfs#role) role and
    returns, for each filesystem with a UUID, every other path where fstab gives it (C(fstab_elsewhere)) or where
    it is mounted (C(mounted_elsewhere)); the role unmounts it there and removes that fstab line.
  - Each path once per filesystem, fstab's first; as Ansible's C(unique) filter, which the role used, two paths that
    differ only in case count as one. Logic in C(plugins/plugin_utils/stages.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The results of the loop of xfs_filesystem calls (C(xfs_created.results)).
    type: list
    elements: dict
    required: true
"""

EXAMPLES = r"""
- name: Unmount a filesystem from its old mount point (the array moved)
  ansible.posix.mount:
    path: "{{ item.1 }}"
    state: unmounted
  loop: "{{ xfs_created.results | iotune.storage.xfs_moved_mounts }}"
"""

RETURN = r"""
_value:
  description: C([uuid, old mount point]) pairs, in the order of the results.
  type: list
  elements: list
"""

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.collections import is_sequence

from ansible_collections.iotune.storage.plugins.plugin_utils import stages


def xfs_moved_mounts(results):
    if not is_sequence(results) or not all(isinstance(r, dict) for r in results):
        raise AnsibleFilterError('xfs_moved_mounts expects the results of the xfs_filesystem calls, got %r' % (results,))
    try:
        return stages.moved_mounts(results)
    except TypeError as e:
        raise AnsibleFilterError('xfs_moved_mounts: fstab_elsewhere and mounted_elsewhere must be lists (%s)' % e)


class FilterModule(object):
    def filters(self):
        return {'xfs_moved_mounts': xfs_moved_mounts}
