# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: restart_decision
short_description: Which database services a tune run must restart, from what it changed on the host
version_added: 0.1.0
description:
  - Takes the restart policy (C(iotune_restart_policy), docs/rolling.md) and the stages' registered results of a tune
    run, works out what changed on the host by change class (readahead, scheduler, queue, sysctl, thp, data_mount,
    mount_hold, array) and returns per service of the policy whether it must restart, why, and what to do (drain or
    step down first, restart, the health gate), with the summary lines the run prints.
  - Decided from what changed, never from a flag alone. Live changes (readahead, scheduler, queue settings,
    sysctls) restart nothing; a THP change restarts MongoDB; a filesystem newly mounted on a service's data directory
    restarts that service. Each class's reasoning and source is in C(plugins/plugin_utils/restart_decision.py).
  - Logic in C(plugins/plugin_utils/restart_decision.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The restart policy, C(restart) (V(auto) or V(never)) and C(services) (each C(unit), C(kind), C(drain),
      C(also_on)); V(null) is a policy without services.
    type: raw
    required: true
  block_tuning:
    description: The block_tuning stage's result (C(block_tuning_results)).
    type: raw
  kernel_before:
    description: The kernel stage's read before any change (C(kernel_before)).
    type: raw
  mounted:
    description: The xfs stage's registered mount loop (C(xfs_mounted)).
    type: raw
  dropins:
    description: The xfs stage's registered drop-in write (C(xfs_dropins)).
    type: raw
  arrays:
    description: The raid0 stage's results (C(raid0_module)).
    type: raw
  check_mode:
    description: C(ansible_check_mode); the summary then says what would restart.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Decide the restarts of this host
  ansible.builtin.set_fact:
    tune_restarts: >-
      {{ iotune_restart_policy | iotune.storage.restart_decision(block_tuning=block_tuning_results | default(none),
         kernel_before=kernel_before | default(none), mounted=xfs_mounted | default(none),
         dropins=xfs_dropins | default(none), arrays=raid0_module | default(none), check_mode=ansible_check_mode) }}
"""

RETURN = r"""
_value:
  description: The decision.
  type: dict
  contains:
    changes:
      description: What changed, each C(class), C(what), C(units).
      type: list
      elements: dict
    services:
      description: Per service of the policy C(unit), C(kind), C(restart), C(pending), C(reasons), C(actions).
      type: list
      elements: dict
    restarts:
      description: The services to restart now (policy C(restart) auto), each C(unit) and C(drain) (a command or null).
      type: list
      elements: dict
    active_argv:
      description: C(systemctl is-active) of the units of C(restarts) (the tune role runs it; only a running service
        is restarted).
      type: list
      elements: str
    pending:
      description: The units whose restart is pending (policy C(restart) never).
      type: list
      elements: str
    pending_entries:
      description: The same, each C(unit) and C(reasons) (a line per change), as M(iotune.storage.pending_restarts)
        records them.
      type: list
      elements: dict
    restart_needed:
      description: Whether a service of the policy needs a restart.
      type: bool
    lines:
      description: The summary lines.
      type: list
      elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import restart_decision as rd


def restart_decision(policy, block_tuning=None, kernel_before=None, mounted=None, dropins=None, arrays=None,
                     check_mode=False):
    try:
        changes = rd.tune_changes(block_tuning=block_tuning, kernel_before=kernel_before, mounted=mounted,
                                  dropins=dropins, arrays=arrays)
        found = rd.decide(changes, policy)
    except (rd.RestartDecisionError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError('restart_decision: %s' % exc)
    restarts = [{'unit': s['unit'], 'drain': s['actions'][0]['argv'] if s['actions'][0]['action'] == 'drain' else None}
                for s in found['services'] if s['actions']]
    return dict(found, changes=changes, restarts=restarts,
                active_argv=['systemctl', 'is-active'] + [r['unit'] for r in restarts],
                pending=[s['unit'] for s in found['services'] if s['pending']],
                pending_entries=[{'unit': s['unit'], 'reasons': [rd.reason_text(r) for r in s['reasons']]}
                                 for s in found['services'] if s['pending']],
                lines=rd.summary_lines(found, check_mode=check_mode))


class FilterModule(object):
    def filters(self):
        return {'restart_decision': restart_decision}
