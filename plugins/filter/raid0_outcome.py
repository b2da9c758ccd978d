# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: raid0_outcome
short_description: What the raid0 role does after its mdadm_array calls (initramfs rebuild, udev settle, results by name)
version_added: 0.1.0
description:
  - Takes the results of the P(iotune.storage.raid0#role) role's M(iotune.storage.mdadm_array) calls (C(raid0_module),
    the preflight's read on a skip) and returns whether the initramfs is rebuilt and how, whether udev must settle,
    and the results by array name (C(raid0_results)).
  - The initramfs is rebuilt, outside check mode, after a deferred package install (the pending trigger, C(dpkg
    --triggers-only --pending)), or when O(update_initramfs) and a call changed mdadm.conf for an array that is not
    ephemeral (its boot unit assembles it in the real root), with the generator the first result names
    (C(update-initramfs -u) for initramfs-tools, else C(dracut -f)), or, without results, what O(found) found.
  - Logic in C(plugins/plugin_utils/role_tasks.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The registered loop of mdadm_array calls, or the preflight's read of them (C(results), each with
      its C(item)).
    type: dict
    required: true
  found:
    description: The C(files) of the role's find of C(update-initramfs) and C(dracut) (run only without results).
    type: list
    elements: dict
    default: []
  deferred:
    description: The registered C(dpkg --configure --no-triggers) task; it is changed after a deferred install.
    type: dict
    default: {}
  update_initramfs:
    description: C(raid0_update_initramfs), a boolean as the C(bool) filter reads it.
    type: raw
    default: true
  owed:
    description:
      - A rebuild owed by a change of mdadm.conf outside these calls (C(raid0_rebuild_owed), what the tune role's
        M(iotune.storage.retire_array) calls owe), a boolean as the C(bool) filter reads it; with O(update_initramfs)
        the initramfs is rebuilt once for both.
    type: raw
    default: false
  check_mode:
    description: C(ansible_check_mode); nothing is rebuilt or settled in check mode.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Rebuild the initramfs once
  ansible.builtin.command:
    argv: "{{ raid0_outcome.argv }}"
  when: raid0_outcome.rebuild
  vars:
    raid0_outcome: >-
      {{ raid0_module | iotune.storage.raid0_outcome(found=raid0_initramfs_tools.files | default([]),
         deferred=raid0_install_deferred | default({}), update_initramfs=true, check_mode=ansible_check_mode) }}
"""

RETURN = r"""
_value:
  description: What to do.
  type: dict
  contains:
    deferred:
      description: The package install was deferred (the rebuild is the pending trigger).
      type: bool
    rebuild:
      description: Rebuild the initramfs.
      type: bool
    find_generator:
      description: Rebuild, and no result names the generator (the role's find looks for it).
      type: bool
    generators:
      description: The generators known (empty when none was found).
      type: list
      elements: str
    argv:
      description: The rebuild's command.
      type: list
      elements: str
    settle:
      description: A call stopped an array (and not check mode), so wait for udev.
      type: bool
    by_name:
      description: The results by array name.
      type: dict
"""

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.collections import is_sequence

from ansible_collections.iotune.storage.plugins.plugin_utils import role_tasks


def raid0_outcome(module, found=None, deferred=None, update_initramfs=True, check_mode=False, owed=False):
    if not isinstance(module, dict):
        raise AnsibleFilterError('raid0_outcome expects the registered mdadm_array calls, got %r' % (module,))
    if found is not None and (not is_sequence(found) or not all(isinstance(f, dict) and 'path' in f for f in found)):
        raise AnsibleFilterError('raid0_outcome: found must be the files of a find, got %r' % (found,))
    if deferred is not None and not isinstance(deferred, dict):
        raise AnsibleFilterError('raid0_outcome: deferred must be a registered result, got %r' % (deferred,))
    try:
        return role_tasks.raid0_outcome(module, found=found, deferred=deferred, update_initramfs=update_initramfs,
                                        check_mode=check_mode, owed=owed)
    except (role_tasks.RoleTaskError, TypeError) as e:
        raise AnsibleFilterError('raid0_outcome: %s' % e)


class FilterModule(object):
    def filters(self):
        return {'raid0_outcome': raid0_outcome}
