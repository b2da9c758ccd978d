# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: running_restarts
short_description: The restarts of a restart decision whose service is running, and the summary lines
version_added: 0.1.0
description:
  - Takes a restart decision (P(iotune.storage.restart_decision#filter)) and the registered result of its
    C(active_argv) (C(systemctl is-active UNIT...)), and returns the restarts whose service is active (O(want)
    V(restarts)), those of them with a drain command (V(drains)), or the summary lines with one for each service that
    was not running (V(lines)). A tune run restarts only a running service; it never starts one that was stopped.
  - Logic in C(plugins/plugin_utils/restart_decision.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The restart decision (C(restarts), C(lines)).
    type: dict
    required: true
  active:
    description: The registered C(systemctl is-active) call (its C(stdout_lines), one per unit); null or skipped
      means no service is running.
    type: raw
  want:
    description: What to return.
    type: str
    choices: [restarts, drains, lines]
    default: restarts
"""

EXAMPLES = r"""
- name: Restart the running services
  ansible.builtin.systemd_service:
    name: "{{ item.unit }}"
    state: restarted
  loop: "{{ tune_restarts | iotune.storage.running_restarts(tune_restart_active) }}"
"""

RETURN = r"""
_value:
  description: The restarts (each C(unit), C(drain)) or the lines.
  type: list
  elements: raw
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import restart_decision as rd


def running_restarts(decision, active=None, want='restarts'):
    try:
        return rd.running(decision, active, want=want)
    except (rd.RestartDecisionError, TypeError, AttributeError, KeyError) as exc:
        raise AnsibleFilterError('running_restarts: %s' % exc)


class FilterModule(object):
    def filters(self):
        return {'running_restarts': running_restarts}
