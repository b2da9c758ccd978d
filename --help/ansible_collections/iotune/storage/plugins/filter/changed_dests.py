# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: changed_dests
short_description: The destinations a copy loop changed, those under a prefix
version_added: 0.1.0
description:
  - The C(item.dest) of the changed results of a loop (a C(ansible.builtin.copy) registered over a list of files),
    those that begin with O(prefix), as the ephemeral role decides whether systemd reloads.
  - Logic in C(plugins/plugin_utils/role_values.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The loop's C(results).
    type: list
    elements: dict
    required: true
  prefix:
    description: The beginning of the destinations kept.
    type: str
    default: ''
"""

EXAMPLES = r"""
- name: Reload systemd (units and drop-ins changed)
  ansible.builtin.systemd_service:
    daemon_reload: true
  when: ephemeral_written.results | default([]) | iotune.storage.changed_dests('/etc/systemd/') | length > 0
"""

RETURN = r"""
_value:
  description: The changed destinations that begin with O(prefix), in the order of the loop.
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import role_values


def changed_dests(results, prefix=''):
    if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
        raise AnsibleFilterError('changed_dests expects the results of a loop, got %r' % (results,))
    return role_values.changed_dests(results, str(prefix))


class FilterModule(object):
    def filters(self):
        return {'changed_dests': changed_dests}
