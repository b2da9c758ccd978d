# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: fio_verify_report
short_description: Build the fio_verify report from the registered results of the fio module loop
version_added: 0.1.0
description:
  - Takes the C(results) list of a loop over M(iotune.storage.fio) (one item per job) and returns the
    report of the C(iotune.storage.fio_verify) role - per job verdict, summary line and module result,
    the host verdict, the missed thresholds as readable sentences and a summary table.
  - Items without a measurement (check mode, skipped) get the verdict C(not measured).
  - The host verdict is C(fail) if a job failed, else C(noisy) if a job was noisy, else C(pass)
    (C(not measured) when nothing was measured).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The C(results) list of the registered loop.
    type: list
    elements: dict
    required: true
  directory:
    description: Measured directory (copied into the report).
    type: str
  drop_runs:
    description: Leave out the per-run details (C(runs)) of every job.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Build the report
  ansible.builtin.set_fact:
    fio_verify_results: "{{ fio_verify_raw.results | iotune.storage.fio_verify_report(directory='/srv') }}"
"""

RETURN = r"""
_value:
  description: The report.
  type: dict
  contains:
    directory: {description: Measured directory., type: str}
    device: {description: Device under the filesystem., type: str}
    fio_version: {description: fio version., type: str}
    verdict: {description: "pass, fail, noisy or not measured.", type: str}
    jobs: {description: "One dict per job - name, verdict, summary, result (module return).", type: list, elements: dict}
    missed: {description: One sentence per missed threshold with the measured value., type: list, elements: str}
    table: {description: Header and one summary line per job., type: list, elements: str}
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.module_utils import fio_report

_KEEP_OUT = ('invocation', 'failed', 'changed', 'item', 'fio_verify_job', 'ansible_loop_var', '_ansible_no_log',
             '_ansible_item_label', '_ansible_ignore_errors')


def _job_name(item):
    for key in ('fio_verify_job', 'item'):
        value = item.get(key)
        if isinstance(value, dict) and value.get('name'):
            return value['name']
    return (item.get('invocation') or {}).get('module_args', {}).get('name') or '?'


def _fmt(value):
    if isinstance(value, float):
        return '%g' % value
    return str(value)


def fio_verify_report(results, directory=None, drop_runs=False):
    if not isinstance(results, list):
        raise AnsibleFilterError('fio_verify_report expects the results list of a registered loop')
    jobs = []
    missed = []
    table = [fio_report.SUMMARY_HEADER]
    device = None
    version = None
    for item in results:
        if not isinstance(item, dict):
            raise AnsibleFilterError('fio_verify_report: result items must be dicts')
        name = _job_name(item)
        measured = 'verdict' in item and not item.get('skipped')
        result = dict((k, v) for k, v in item.items() if k not in _KEEP_OUT and not k.startswith('_ansible'))
        if drop_runs:
            result.pop('runs', None)
        verdict = item['verdict'] if measured else 'not measured'
        device = device or item.get('device')
        version = version or item.get('fio_version')
        for check in item.get('thresholds') or []:
            if not check.get('passed'):
                missed.append('%s: %s = %s, limit %s %s%s' % (
                    name, check['metric'], _fmt(check['value']), 'max' if check['kind'] == 'max' else 'min',
                    _fmt(check['limit']),
                    ' (noise %s: not trusted)' % _fmt(check.get('noise'))
                    if not check.get('trusted', True) else ''))
        summary = item.get('summary') if measured else '%-16s (not measured: %s)' % (
            name[:16], item.get('msg') or item.get('skipped_reason') or 'check mode')
        table.append(summary)
        jobs.append({'name': name, 'verdict': verdict, 'summary': summary, 'result': result})
    verdicts = [j['verdict'] for j in jobs]
    if 'fail' in verdicts:
        host_verdict = 'fail'
    elif 'noisy' in verdicts:
        host_verdict = 'noisy'
    elif 'pass' in verdicts:
        host_verdict = 'pass'
    else:
        host_verdict = 'not measured'
    return {
        'directory': directory,
        'device': device,
        'fio_version': version,
        'verdict': host_verdict,
        'jobs': jobs,
        'missed': missed,
        'table': table,
    }


class FilterModule(object):
    def filters(self):
        return {'fio_verify_report': fio_verify_report}
