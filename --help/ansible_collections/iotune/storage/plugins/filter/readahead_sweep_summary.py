# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: readahead_sweep_summary
short_description: The lines the readahead_sweep role shows - the device, the table, the recommendation
version_added: 0.1.0
description:
  - The host, directory and device with the readahead restored after the sweep, the table's lines and the
    recommendation (with a note when noisy points lie inside the tolerance band). Logic in
    C(plugins/plugin_utils/role_reports.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The report of P(iotune.storage.readahead_sweep_report#filter).
    type: dict
    required: true
  host:
    description: The host (C(inventory_hostname)).
    type: str
    required: true
  directory:
    description: The measured directory.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Show the sweep
  ansible.builtin.debug:
    msg: "{{ readahead_sweep_result | iotune.storage.readahead_sweep_summary(inventory_hostname, readahead_sweep_directory) }}"
"""

RETURN = r"""
_value:
  description: The lines, the first naming the host, directory and device, the last the recommendation.
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import role_reports


def readahead_sweep_summary(report, host, directory):
    if not isinstance(report, dict):
        raise AnsibleFilterError('readahead_sweep_summary expects the report of readahead_sweep_report')
    return role_reports.sweep_summary(report, host, directory)


class FilterModule(object):
    def filters(self):
        return {'readahead_sweep_summary': readahead_sweep_summary}
