# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: running_restarts
short_description: The restarts of a restart decision whose service is running
version_added: 0.1.0
description:
  - Takes the C(restarts) of P(iotune.storage.restart_decision#filter) and the registered result of
    C(systemctl is-active UNIT...) for them, and returns the restarts whose service is active; a tune run restarts
    only a running service (it never starts one that was stopped).
  - With O(stopped), returns instead a summary line for each service that was not running.
  - Logic in C(plugins/plugin_utils/restart_decision.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The C(restarts) of a restart decision, each C(unit) and C(drain).
    type: list
    elements: dict
    required: true
  active:
    description: The registered C(systemctl is-active) call (its C(stdout_lines), one per unit); null or skipped
      means no service is running.
    type: raw
  stopped:
    description: Return the summary lines of the services that were not running.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Restart the running services
  ansible.builtin.systemd_service:
    name: "{{ item.unit }}"
    state: restarted
  loop: "{{ tune_restarts.restarts | iotune.storage.running_restarts(tune_restart_active) }}"
"""

RETURN = r"""
_value:
  description: The restarts of running services, or (O(stopped)) the lines for the others.
  type: list
  elements: raw
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import restart_decision as rd


def running_restarts(restarts, active=None, stopped=False):
    """The restarts whose unit ``systemctl is-active`` (``active``: its registered result, one line per unit in the
    order of ``restarts``) found active; with ``stopped``, a summary line for each of the others instead."""
    try:
        return rd.running(restarts, active, stopped=stopped)
    except (rd.RestartDecisionError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError('running_restarts: %s' % exc)


class FilterModule(object):
    def filters(self):
        return {'running_restarts': running_restarts}
