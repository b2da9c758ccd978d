# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Jinja of the readahead_sweep, fio_verify, metrics, ephemeral, tune and stage roles that moved into filters
(issue 24, test_jinja_budget.py), old against new: the expressions as the roles had them (OLD_*) and the expressions
or role variables that replace them, rendered by Ansible's own templar over the same scenarios (render_role_vars.py,
one other interpreter for all)."""

from __future__ import annotations


import pytest

from ansible_collections.iotune.storage.plugins.plugin_utils import role_reports
from ansible_collections.iotune.storage.tests.unit.roles import templar


render_all = templar.render_all


def fio_point(ra, iops, amp, noisy=False):
    return {'read_ahead': {'used': ra}, 'iops': iops, 'bw_bytes': int(iops * 4096), 'device_bw_bytes': int(iops * 4096 * amp),
            'read_amplification': amp, 'p99_us': 100.0, 'avg_request_kb': 4.0 * amp, 'runtime_ms': 1000,
            'noise': {'iops': 0.3 if noisy else 0.05}, 'noisy': noisy, 'fio_version': 'fio-3.36'}


# --- readahead_sweep ------------------------------------------------------------------------------------------------
OLD_SWEEP_REPORT = (
    "readahead_sweep_raw.results | iotune.storage.readahead_sweep_table(tolerance=readahead_sweep_tolerance)"
    " | combine({'host': inventory_hostname, 'directory': readahead_sweep_directory,"
    " 'device': readahead_sweep_before.read_ahead.device,"
    " 'previous_read_ahead_kb': readahead_sweep_before.read_ahead.previous,"
    " 'job': readahead_sweep_job, 'repeat': readahead_sweep_repeat,"
    " 'fio_version': readahead_sweep_raw.results[0].fio_version})")
NEW_SWEEP_REPORT = (
    "readahead_sweep_raw.results | iotune.storage.readahead_sweep_report(tolerance=readahead_sweep_tolerance,"
    " host=inventory_hostname, directory=readahead_sweep_directory, before=readahead_sweep_before,"
    " job=readahead_sweep_job, repeat=readahead_sweep_repeat)")
OLD_SWEEP_SUMMARY = (
    "[inventory_hostname ~ ': ' ~ readahead_sweep_directory ~ ' on ' ~ readahead_sweep_result.device"
    " ~ ' (read_ahead_kb was ' ~ readahead_sweep_result.previous_read_ahead_kb ~ ', restored)']"
    " + readahead_sweep_result.table"
    " + ['recommendation: ' ~ readahead_sweep_result.recommendation.reason"
    " ~ (' (noisy points inside the tolerance band: repeat the sweep)'"
    " if readahead_sweep_result.recommendation.noisy else '')]")
NEW_SWEEP_SUMMARY = "readahead_sweep_result | iotune.storage.readahead_sweep_summary(inventory_hostname, readahead_sweep_directory)"
SWEEPS = {
    'clear': [fio_point(128, 500, 24.0), fio_point(4, 5000, 1.0), fio_point(16, 4900, 1.1)],
    'noisy': [fio_point(4, 5000, 1.0, noisy=True), fio_point(16, 4990, 1.1, noisy=True), fio_point(64, 3000, 4.0)],
    'one point': [fio_point(8, 1000, 2.0)],
}
BEFORES = {'nvme': {'read_ahead': {'device': '/dev/md0', 'previous': 128}},
           'none': {'read_ahead': {'device': None, 'previous': None}}}


def sweep_case(sweep, before):
    variables = {'inventory_hostname': 'db1', 'readahead_sweep_raw': {'results': SWEEPS[sweep]},
                 'readahead_sweep_before': BEFORES[before], 'readahead_sweep_directory': '/var/lib/mongo',
                 'readahead_sweep_job': {'name': 'sweep', 'rw': 'randread'}, 'readahead_sweep_repeat': 3,
                 'readahead_sweep_tolerance': 0.05}
    return ('readahead_sweep', {'old': OLD_SWEEP_REPORT, 'new': NEW_SWEEP_REPORT}, variables, {})


@pytest.mark.parametrize('sweep', sorted(SWEEPS))
@pytest.mark.parametrize('before', sorted(BEFORES))
def test_sweep_report_and_summary_as_the_old_jinja(sweep, before):
    (report,) = render_all([sweep_case(sweep, before)])
    assert 'error' not in report[NEW_SWEEP_REPORT], report[NEW_SWEEP_REPORT]
    assert report[OLD_SWEEP_REPORT] == report[NEW_SWEEP_REPORT]
    variables = dict(sweep_case(sweep, before)[2], readahead_sweep_result=report[NEW_SWEEP_REPORT])
    (summary,) = render_all([('readahead_sweep', {'old': OLD_SWEEP_SUMMARY, 'new': NEW_SWEEP_SUMMARY}, variables, {})])
    assert isinstance(summary[NEW_SWEEP_SUMMARY], list), summary[NEW_SWEEP_SUMMARY]
    assert summary[OLD_SWEEP_SUMMARY] == summary[NEW_SWEEP_SUMMARY]


# --- fio_verify -----------------------------------------------------------------------------------------------------
OLD_FIO = {
    'by_directory': ("fio_verify_results_by_directory | default({})"
                     " | combine({fio_verify_directory: fio_verify_results | combine({'jobs': [], 'table': []})})"),
    'document': ("fio_verify_results | combine({'host': inventory_hostname, 'repeat': fio_verify_repeat,"
                 " 'noise_max': fio_verify_noise_max, 'threshold_action': fio_verify_threshold_action})"
                 " | to_nice_json(indent=2)"),
    'summary': ("[inventory_hostname ~ ': ' ~ fio_verify_directory ~ ' on ' ~ fio_verify_results.device | string"
                " ~ ', median of ' ~ fio_verify_repeat ~ ' runs, verdict ' ~ fio_verify_results.verdict]"
                " + fio_verify_results.table + [fio_verify_results.page_cache_note]"),
}
NEW_FIO = {'by_directory': 'fio_verify_outputs.by_directory',
           'document': 'fio_verify_outputs.document | to_nice_json(indent=2)',
           'summary': 'fio_verify_outputs.summary'}
FIO_RESULTS = {
    'pass': {'directory': '/srv', 'device': '/dev/md0', 'verdict': 'pass', 'jobs': [{'name': 'randread'}],
             'table': ['job  IOPS', 'randread 5000'], 'missed': [], 'page_cache_note': 'page cache dropped'},
    'no device': {'directory': '/srv', 'device': None, 'verdict': 'not measured', 'jobs': [], 'table': [],
                  'missed': [], 'page_cache_note': ''},
}
KEPT = {'none': None, 'other': {'/data': {'verdict': 'fail', 'jobs': [], 'table': []}},
        'same': {'/srv': {'verdict': 'noisy', 'jobs': [], 'table': []}}}


@pytest.mark.parametrize('results', sorted(FIO_RESULTS))
@pytest.mark.parametrize('kept', sorted(KEPT))
def test_fio_verify_outputs_as_the_old_jinja(results, kept):
    variables = {'inventory_hostname': 'db1', 'fio_verify_results': FIO_RESULTS[results], 'fio_verify_directory': '/srv',
                 'fio_verify_repeat': 3, 'fio_verify_noise_max': 0.1, 'fio_verify_threshold_action': 'warn'}
    if KEPT[kept] is not None:
        variables['fio_verify_results_by_directory'] = KEPT[kept]
    names = dict(('old ' + k, v) for k, v in OLD_FIO.items())
    names.update(('new ' + k, v) for k, v in NEW_FIO.items())
    (out,) = render_all([('fio_verify', names, variables, {})])
    for key in OLD_FIO:
        assert not (isinstance(out[NEW_FIO[key]], dict) and 'error' in out[NEW_FIO[key]]), out[NEW_FIO[key]]
        assert out[OLD_FIO[key]] == out[NEW_FIO[key]], key


# --- the stage roles: the call's result or the preflight's read ---------------------------------------------------
STAGES = {
    'block_tuning': ("block_tuning_sync.registered.results[0] if block_tuning_sync.skip else block_tuning_module",
                     "block_tuning_sync | iotune.storage.stage_result(block_tuning_module, first=true)"),
    'kernel': ("kernel_sync.registered.results[0] if kernel_sync.skip else kernel_before_call",
               "kernel_sync | iotune.storage.stage_result(kernel_before_call, first=true)"),
    'raid0': ("raid0_sync.registered if raid0_sync.skip else raid0_module_call",
              "raid0_sync | iotune.storage.stage_result(raid0_module_call)"),
    'xfs': ("xfs_sync.registered if xfs_sync.skip else xfs_created_call",
            "xfs_sync | iotune.storage.stage_result(xfs_created_call)"),
}
CALLED = {'block_tuning': 'block_tuning_module', 'kernel': 'kernel_before_call', 'raid0': 'raid0_module_call',
          'xfs': 'xfs_created_call'}


@pytest.mark.parametrize('role', sorted(STAGES))
@pytest.mark.parametrize('skip', [True, False])
def test_stage_result_as_the_old_jinja(role, skip):
    old, new = STAGES[role]
    registered = {'changed': False, 'results': [{'changed': False, 'read': role}, {'changed': False, 'read': 2}]}
    sync = {'skip': skip, 'reason': 'r', 'registered': registered if skip else None}
    called = {'skipped': True, 'changed': False} if skip else {'changed': True, 'results': [{'changed': True}]}
    variables = {role + '_sync': sync, CALLED[role]: called}
    (out,) = render_all([('tune', {'old': old, 'new': new}, variables, {})])
    assert 'error' not in out[new], out[new]
    assert out[old] == out[new]


# --- metrics: the entries that remove its files; tune: the kernel report ------------------------------------------
OLD_METRICS_ABSENT = ("{%- set out = [] -%}{%- for path in metrics_file_globs -%}"
                      "{%- set _ = out.append({'path': path, 'state': 'absent'}) -%}{%- endfor -%}{{ out }}")


def test_metrics_absent_as_the_old_jinja():
    variables = {'metrics_textfile_dir': '/var/lib/node_exporter/textfile_collector'}
    (out,) = render_all([('metrics', {'new': 'metrics_absent'}, variables, {'old_absent': OLD_METRICS_ABSENT})])
    (old,) = render_all([('metrics', {'old': 'old_absent'}, variables, {'old_absent': OLD_METRICS_ABSENT})])
    assert isinstance(out['metrics_absent'], list) and len(out['metrics_absent']) == 6, out
    assert old['old_absent'] == out['metrics_absent']


OLD_KERNEL_REPORT = "(kernel_results if kernel_results is defined else tune_kernel_read) | default(None)"
NEW_KERNEL_REPORT = "kernel_results | default(tune_kernel_read) | default(None)"


@pytest.mark.parametrize('present', [(), ('kernel_results',), ('tune_kernel_read',), ('kernel_results', 'tune_kernel_read')])
def test_tune_kernel_report_as_the_old_jinja(present):
    variables = dict((name, {'from': name}) for name in present)
    (out,) = render_all([('tune', {'old': OLD_KERNEL_REPORT, 'new': NEW_KERNEL_REPORT}, variables, {})])
    assert out[OLD_KERNEL_REPORT] == out[NEW_KERNEL_REPORT] == (variables[present[0]] if present else None)


# --- plugin_utils directly ----------------------------------------------------------------------------------------
def test_role_reports_units():
    assert role_reports.absent_entries(['/a', '/b']) == [{'path': '/a', 'state': 'absent'}, {'path': '/b', 'state': 'absent'}]
    assert role_reports.absent_entries([]) == []
    sync = {'skip': True, 'registered': {'results': [{'r': 1}]}}
    assert role_reports.stage_result(sync, 'called', first=True) == {'r': 1}
    assert role_reports.stage_result(sync, 'called') == {'results': [{'r': 1}]}
    assert role_reports.stage_result({'skip': False, 'registered': None}, 'called', first=True) == 'called'
    report = {'device': None, 'previous_read_ahead_kb': 128, 'table': ['t'], 'recommendation': {'reason': 'r', 'noisy': True}}
    assert role_reports.sweep_summary(report, 'h', '/d') == [
        'h: /d on None (read_ahead_kb was 128, restored)', 't', 'recommendation: r' + role_reports.NOISY_NOTE]
    out = role_reports.fio_outputs({'device': '/dev/x', 'verdict': 'pass', 'table': [], 'page_cache_note': 'n', 'jobs': [1]},
                                   'h', '/d', 3, 0.1, 'fail', None)
    assert out['summary'] == ['h: /d on /dev/x, median of 3 runs, verdict pass', 'n']
    assert out['by_directory'] == {'/d': {'device': '/dev/x', 'verdict': 'pass', 'table': [], 'page_cache_note': 'n', 'jobs': []}}
    assert out['document']['threshold_action'] == 'fail' and out['document']['jobs'] == [1]
