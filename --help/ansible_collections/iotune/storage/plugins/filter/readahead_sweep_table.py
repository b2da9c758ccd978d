# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: readahead_sweep_table
short_description: Table, CSV and recommendation of a readahead sweep
version_added: 0.1.0
description:
  - Takes the C(results) of a loop of M(iotune.storage.fio) calls made with different O(iotune.storage.fio#module:read_ahead_kb)
    values and returns the sweep table (one row per readahead, sorted), its CSV text and the recommendation -
    the smallest readahead whose IOPS is within O(tolerance) of the best IOPS.
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The C(results) list of the registered loop (failed or skipped items are ignored).
    type: list
    elements: dict
    required: true
  tolerance:
    description: Fraction of the best IOPS a readahead may lose and still be recommended.
    type: float
    default: 0.1
"""

EXAMPLES = r"""
- name: Build the sweep table
  ansible.builtin.set_fact:
    sweep: "{{ sweep_raw.results | iotune.storage.readahead_sweep_table(tolerance=0.1) }}"
"""

RETURN = r"""
_value:
  description: The sweep.
  type: dict
  contains:
    rows:
      description: >-
        One dict per readahead - read_ahead_kb, iops, device_mb_s, app_mb_s, read_amplification, p99_us,
        avg_request_kb, runtime_ms, noise (IOPS), noisy.
      type: list
      elements: dict
    csv: {description: CSV text of the rows., type: str}
    table: {description: Fixed-width text table (header + one line per readahead)., type: list, elements: str}
    recommendation:
      description: read_ahead_kb, iops, read_amplification, best_iops, best_read_ahead_kb, tolerance, noisy, reason.
      type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.module_utils.fio_report import FioReportError
from ansible_collections.iotune.storage.plugins.plugin_utils import sweep


def readahead_sweep_table(results, tolerance=0.1):
    if not isinstance(results, list):
        raise AnsibleFilterError('readahead_sweep_table expects the results list of a registered loop')
    points = [r for r in results if isinstance(r, dict) and not r.get('failed') and not r.get('skipped')
              and r.get('iops') is not None]
    try:
        rows = sweep.sweep_rows(points)
        rec = sweep.recommend(rows, float(tolerance))
    except FioReportError as exc:
        raise AnsibleFilterError('readahead_sweep_table: %s' % exc)
    table = ['%8s %10s %10s %8s %10s %8s %6s' % ('ra_kb', 'IOPS', 'dev_MB/s', 'amplif', 'p99_us', 'req_kb', 'noise')]
    for row in rows:
        table.append('%8d %10s %10s %8s %10s %8s %6s%s' % (
            row['read_ahead_kb'], _num(row['iops'], '%.0f'), _num(row['device_mb_s'], '%.1f'),
            _num(row['read_amplification'], '%.2fx'), _num(row['p99_us'], '%.0f'),
            _num(row['avg_request_kb'], '%.1f'), _num(None if row['noise'] is None else row['noise'] * 100, '%.0f%%'),
            ' <- recommended' if row['read_ahead_kb'] == rec['read_ahead_kb'] else ''))
    return {'rows': rows, 'csv': sweep.sweep_csv(rows), 'recommendation': rec, 'table': table}


def _num(value, pattern):
    return '-' if value is None else pattern % value


class FilterModule(object):
    def filters(self):
        return {'readahead_sweep_table': readahead_sweep_table}
