# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: stage_calls
short_description: The exact options of a tune stage's module calls
version_added: 0.1.0
description:
  - Returns one dict of module options per call the stage makes; the roles raid0, xfs, block_tuning and kernel call
    their modules with these, and the tune role gives the same dicts, made from the plan, to
    M(iotune.storage.storage_preflight)'s O(iotune.storage.storage_preflight#module:stages) option, so that a role
    skips its call only when the preflight checked exactly these options (C(plugins/plugin_utils/stages.py)).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description:
      - The stage's input. V(raid0) C(arrays), C(chunk_kb), C(homehost), optional C(conf_path)
        (M(iotune.storage.mdadm_array) calls); V(xfs) C(filesystems), C(mount_options), C(device_timeout), and
        C(stripes) (C(raid0_results)) or C(planned_raid0) (the raid0 input, before that stage ran)
        (M(iotune.storage.xfs_filesystem) calls); V(block_tuning) C(devices), C(rules_file), C(state),
        C(tuned_override), C(container), C(settle_timeout), C(facts) (M(iotune.storage.udev_block_tuning));
        V(kernel) C(sysctl), C(thp), C(sysctl_file), C(thp_unit) (the M(iotune.storage.kernel_settings) read).
    type: dict
    required: true
  stage:
    description: The stage.
    type: str
    choices: [raid0, xfs, block_tuning, kernel]
    required: true
"""

EXAMPLES = r"""
- name: The kernel stage's read
  ansible.builtin.debug:
    msg: >-
      {{ {'sysctl': {'vm.swappiness': 1}, 'thp': {}, 'sysctl_file': '/etc/sysctl.d/90-iotune-storage.conf',
          'thp_unit': 'iotune-storage-thp.service'} | iotune.storage.stage_calls('kernel') }}
  # [{sysctl: {vm.swappiness: 1}, thp: {}, sysctl_file: /etc/sysctl.d/90-iotune-storage.conf, mode: report}]
"""

RETURN = r"""
_value:
  description: One dict of module options per call.
  type: list
  elements: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import stages


def stage_calls(inputs, stage):
    try:
        return stages.calls(inputs, stage)
    # ValueError: StageInputError, and fstab.OptionsError of the xfs stage's options field
    except (ValueError, KeyError, TypeError) as e:
        raise AnsibleFilterError('stage_calls(%s): %s' % (stage, e))


class FilterModule(object):
    def filters(self):
        return {'stage_calls': stage_calls}
