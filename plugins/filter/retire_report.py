# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: retire_report
short_description: What the tune role's retires did, for the summary, the report file and the raid0 stage
version_added: 0.1.0
description:
  - Takes the plan's C(retire_arrays), the registered loop of M(iotune.storage.retire_array) calls and the
    preflight's read, and returns per array what was done (its steps in words, the state found, the mount points,
    members and services, or, without a call, what the preflight found), whether the initramfs rebuild is owed (a
    call changed mdadm.conf, or the rebuild marker of an earlier run is still there) and one summary line per array.
  - The tune role writes C(arrays) to C(<iotune_report_dir>/<host>/retire.json) and gives C(rebuild_owed) to the
    P(iotune.storage.raid0#role) stage, whose one rebuild then covers the ARRAY lines the retire changed.
  - Logic in C(plugins/plugin_utils/retire_steps.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The plan's C(retire_arrays).
    type: list
    elements: dict
    required: true
  registered:
    description: The registered loop of retire_array calls; null when the task did not run.
    type: dict
  read:
    description: The preflight's C(retire) result; null when it did not look.
    type: list
    elements: dict
  check_mode:
    description: C(ansible_check_mode) (the lines say "would be").
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: What the retires did
  ansible.builtin.debug:
    msg: "{{ (iotune_plan.retire_arrays | iotune.storage.retire_report(tune_retired, read=profile_preflight_result.retire)).lines }}"
"""

RETURN = r"""
_value:
  description: The report.
  type: dict
  contains:
    arrays:
      description: Per entry C(name), C(uuid), C(state), C(steps), C(done), C(status), C(source) (V(retire_array) or
        V(preflight read)), C(mountpoints), C(members), C(rebuild_pending), C(zero_superblocks).
      type: list
      elements: dict
    rebuild_owed:
      description: The initramfs rebuild is owed.
      type: bool
    changed:
      description: Something was done (would be, in check mode).
      type: bool
    lines:
      description: One summary line per entry.
      type: list
      elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import retire_steps


def retire_report(entries, registered=None, read=None, check_mode=False):
    if not isinstance(entries, list) or not all(isinstance(e, dict) and 'name' in e for e in entries):
        raise AnsibleFilterError('retire_report expects the plan\'s retire_arrays, got %r' % (entries,))
    try:
        return retire_steps.report(entries, registered, read, check_mode=check_mode)
    except retire_steps.RetireStepsError as e:
        raise AnsibleFilterError('retire_report: %s' % e)


class FilterModule(object):
    def filters(self):
        return {'retire_report': retire_report}
