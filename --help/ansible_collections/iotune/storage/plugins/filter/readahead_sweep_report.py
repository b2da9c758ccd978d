# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: readahead_sweep_report
short_description: The readahead sweep's report - its table, CSV and recommendation with the host, device and job
version_added: 0.1.0
description:
  - P(iotune.storage.readahead_sweep_table#filter) of the registered results, with the fields of the report the
    P(iotune.storage.readahead_sweep#role) role writes to C(sweep.json) - the host, the directory, the device and its
    readahead before the sweep (from the fio module's read O(before)), the job, the repeat count and the fio version
    of the first result. Logic in C(plugins/plugin_utils/role_reports.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The C(results) of the registered loop of M(iotune.storage.fio) calls (at least one).
    type: list
    elements: dict
    required: true
  tolerance:
    description: As for P(iotune.storage.readahead_sweep_table#filter).
    type: float
    default: 0.1
  host:
    description: The host (C(inventory_hostname)).
    type: str
    required: true
  directory:
    description: The measured directory.
    type: str
    required: true
  before:
    description: The fio module's read before the sweep; its C(read_ahead) has C(device) and C(previous).
    type: dict
    required: true
  job:
    description: The sweep's job.
    type: dict
    required: true
  repeat:
    description: Runs per point.
    type: int
    required: true
"""

EXAMPLES = r"""
- name: Build the sweep table and the recommendation
  ansible.builtin.set_fact:
    readahead_sweep_result: >-
      {{ readahead_sweep_raw.results | iotune.storage.readahead_sweep_report(tolerance=readahead_sweep_tolerance,
         host=inventory_hostname, directory=readahead_sweep_directory, before=readahead_sweep_before,
         job=readahead_sweep_job, repeat=readahead_sweep_repeat) }}
"""

RETURN = r"""
_value:
  description: The dict of P(iotune.storage.readahead_sweep_table#filter) (C(rows), C(csv), C(recommendation),
    C(table)) with C(host), C(directory), C(device), C(previous_read_ahead_kb), C(job), C(repeat), C(fio_version).
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.readahead_sweep_table import readahead_sweep_table
from ansible_collections.iotune.storage.plugins.plugin_utils import role_reports


def readahead_sweep_report(results, host, directory, before, job, repeat, tolerance=0.1):
    table = readahead_sweep_table(results, tolerance)
    if not results:
        raise AnsibleFilterError('readahead_sweep_report: no results')
    return role_reports.sweep_report(table, results, host, directory, before, job, repeat)


class FilterModule(object):
    def filters(self):
        return {'readahead_sweep_report': readahead_sweep_report}
