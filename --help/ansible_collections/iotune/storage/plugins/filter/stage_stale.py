# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: stage_stale
short_description: What changed the host in this run up to a tune stage (the preflight's later reads are then stale)
version_added: 0.1.0
description:
  - Takes the registered results of the changing tasks of the tune role's stages and returns one reason per stage,
    up to O(after), that changed the host (the C(changed) test; in check mode a predicted change counts), and one
    when the raid0 stage installs packages the preflight did not find installed.
  - A later stage gives these reasons to P(iotune.storage.stage_skip#filter) (O(iotune.storage.stage_skip#filter:stale)),
    and then calls its module as before, never a skip on a stale read. Logic in C(plugins/plugin_utils/stages.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The registered results of the stages V(raid0), V(xfs) and V(block_tuning), a list by stage; V({})
      for a task that did not run.
    type: dict
    required: true
  after:
    description: The last stage that counts.
    type: str
    choices: [raid0, xfs, block_tuning]
    required: true
  install_packages:
    description: The raid0 stage installs its packages (C(raid0_install_packages), a boolean as the C(bool) filter
      reads it).
    type: raw
    default: false
  packages_missing:
    description: The packages the preflight found missing; V(null) when it did not look (the install then counts).
    type: list
    elements: str
"""

EXAMPLES = r"""
- name: What changed before the block_tuning stage
  ansible.builtin.debug:
    msg: >-
      {{ {'raid0': [raid0_module_call | default({})], 'xfs': [xfs_mounted | default({})]}
         | iotune.storage.stage_stale('xfs', install_packages=true, packages_missing=[]) }}
  # ["the xfs stage changed the host in this run"] when a mount changed the host
"""

RETURN = r"""
_value:
  description: The reasons, in the order of the stages (empty when nothing changed the host).
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.collections import is_sequence

from ansible_collections.iotune.storage.plugins.plugin_utils import stages


def stage_stale(results, after, install_packages=False, packages_missing=None):
    if not isinstance(results, dict) or not all(is_sequence(r) for r in results.values()):
        raise AnsibleFilterError('stage_stale expects {stage: [registered results]}, got %r' % (results,))
    if packages_missing is not None and not is_sequence(packages_missing):
        raise AnsibleFilterError('stage_stale: packages_missing must be a list or null, got %r' % (packages_missing,))
    try:
        return stages.stale_reasons(results, after, install_packages=install_packages, packages_missing=packages_missing)
    except stages.StageInputError as e:
        raise AnsibleFilterError('stage_stale: %s' % e)


class FilterModule(object):
    def filters(self):
        return {'stage_stale': stage_stale}
