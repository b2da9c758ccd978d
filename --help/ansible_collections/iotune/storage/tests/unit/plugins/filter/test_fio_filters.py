# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The controller-side filters of the verification role and the readahead sweep."""

from __future__ import annotations

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.fio_verify_report import fio_verify_report
from ansible_collections.iotune.storage.plugins.filter.readahead_sweep_table import readahead_sweep_table


def job(name, verdict, checks=(), **extra):
    item = {'fio_verify_job': {'name': name}, 'verdict': verdict, 'summary': '%s line' % name,
            'device': 'md127', 'fio_version': 'fio-3.33', 'thresholds': list(checks),
            'invocation': {'module_args': {}}, 'changed': False, 'runs': [1, 2, 3]}
    item.update(extra)
    return item


def check(metric, value, limit, passed, kind='max', trusted=True, noise=0.05):
    return {'metric': metric, 'value': value, 'limit': limit, 'passed': passed, 'kind': kind,
            'trusted': trusted, 'noise': noise}


def test_report_passes_when_every_job_passes():
    report = fio_verify_report([job('mmap_rand4k', 'pass', [check('read_amplification', 1.99, 2.5, True)]),
                                job('qd1_lat', 'pass')], directory='/var/lib/cassandra')
    assert report['verdict'] == 'pass'
    assert report['device'] == 'md127' and report['fio_version'] == 'fio-3.33'
    assert report['directory'] == '/var/lib/cassandra'
    assert report['missed'] == []
    assert [j['name'] for j in report['jobs']] == ['mmap_rand4k', 'qd1_lat']
    assert report['table'][1:] == ['mmap_rand4k line', 'qd1_lat line']
    # Ansible's bookkeeping is not part of the stored result; the runs are unless dropped.
    assert 'invocation' not in report['jobs'][0]['result'] and 'changed' not in report['jobs'][0]['result']
    assert report['jobs'][0]['result']['runs'] == [1, 2, 3]
    assert 'runs' not in fio_verify_report([job('a', 'pass')], drop_runs=True)['jobs'][0]['result']


def test_a_failed_job_fails_the_host_and_names_the_measured_value():
    report = fio_verify_report([
        job('mmap_rand4k', 'fail', [check('read_amplification', 27.85, 2.5, False)]),
        job('rand8k', 'noisy', [check('iops', 900, 1000, False, kind='min', trusted=False, noise=0.6)]),
    ])
    assert report['verdict'] == 'fail'
    assert report['missed'][0] == 'mmap_rand4k: read_amplification = 27.85, limit max 2.5'
    assert report['missed'][1] == 'rand8k: iops = 900, limit min 1000 (noise 0.6: not trusted)'


def test_noisy_beats_pass_and_unmeasured_jobs_are_listed():
    report = fio_verify_report([job('a', 'pass'), job('b', 'noisy'),
                                {'fio_verify_job': {'name': 'c'}, 'skipped': True,
                                 'skipped_reason': 'Conditional result was False'}])
    assert report['verdict'] == 'noisy'
    assert report['jobs'][2]['verdict'] == 'not measured'
    assert 'not measured: Conditional result was False' in report['table'][3]
    check_mode = fio_verify_report([{'item': {'name': 'a'}, 'skipped': True}])
    assert check_mode['verdict'] == 'not measured'


@pytest.mark.parametrize('bad', ['nope', ['nope']])
def test_report_rejects_what_is_not_a_loop_result(bad):
    with pytest.raises(AnsibleFilterError):
        fio_verify_report(bad)


def point(ra, iops, amp, noise=0.05):
    return {'read_ahead': {'used': ra}, 'iops': iops, 'device_bw_bytes': iops * 4096 * amp,
            'bw_bytes': iops * 4096, 'read_amplification': amp, 'p99_us': 700, 'avg_request_kb': 4.0 * amp,
            'noise': {'iops': noise}}


def test_sweep_table_recommends_the_smallest_within_tolerance_and_skips_failed_points():
    results = [point(128, 4582, 27.85), point(4, 6585, 1.0), point(16, 7062, 3.95), point(8, 5069, 1.99),
               {'failed': True, 'msg': 'fio failed'}, {'skipped': True}]
    out = readahead_sweep_table(results, tolerance=0.1)
    assert [r['read_ahead_kb'] for r in out['rows']] == [4, 8, 16, 128]
    assert out['recommendation']['read_ahead_kb'] == 4          # 6585 >= 0.9 * 7062
    marked = [line for line in out['table'] if line.endswith('<- recommended')]
    assert len(marked) == 1 and marked[0].split()[0] == '4'
    assert out['csv'].splitlines()[0].startswith('read_ahead_kb')
    assert len(out['csv'].splitlines()) == 5
    tight = readahead_sweep_table(results, tolerance=0.01)
    assert tight['recommendation']['read_ahead_kb'] == 16


def test_sweep_table_errors_are_filter_errors():
    with pytest.raises(AnsibleFilterError):
        readahead_sweep_table('nope')
    with pytest.raises(AnsibleFilterError):
        readahead_sweep_table([{'iops': 5, 'noise': {}}])   # no read_ahead.used


# ---- page cache in the report ------------------------------------------------------------------

from ansible_collections.iotune.storage.plugins.filter.fio_verify_report import fio_verify_decisions  # noqa: E402


def pc(dropped, buffered=True, data_found=None, mode='auto', evicted=True):
    return {'page_cache': {'mode': mode, 'buffered': buffered, 'host_cache_dropped': dropped,
                           'test_file_evicted': evicted, 'data_found': data_found}}


def test_report_says_when_the_host_cache_was_not_dropped():
    report = fio_verify_report([job('mmap_rand4k', 'pass', **pc(False, data_found='/var/lib/cassandra/x.db')),
                                job('rand8k', 'pass', **pc(False, buffered=False))])
    assert report['host_cache_dropped'] is False
    note = report['page_cache_note']
    assert note.startswith('host page cache not dropped: the filesystem holds files (e.g. /var/lib/cassandra/x.db)')
    assert 'the test file was evicted' in note and 'fio_verify_drop_caches=always' in note


def test_report_cache_dropped_partial_and_direct_only():
    assert fio_verify_report([job('a', 'pass', **pc(True)), job('b', 'pass', **pc(True, buffered=False))]
                             )['host_cache_dropped'] is True
    mixed = fio_verify_report([job('a', 'pass', **pc(True)), job('b', 'pass', **pc(False, mode='never'))])
    assert mixed['host_cache_dropped'] == 'partial' and 'fio_verify_drop_caches=never' in mixed['page_cache_note']
    direct = fio_verify_report([job('b', 'pass', **pc(False, buffered=False))])
    assert direct['host_cache_dropped'] is None
    warm = fio_verify_report([job('a', 'pass', **pc(False, mode='never', evicted=False))])
    assert 'results may be warm' in warm['page_cache_note']


# ---- when the main playbook verifies --------------------------------------------------------------

PLAN = [{'directory': '/var/lib/cassandra', 'expected_mount': '/var/lib/cassandra', 'jobs': [], 'thresholds': {}},
        {'directory': '/srv/kafka', 'expected_mount': '/srv/kafka', 'jobs': [], 'thresholds': {}}]
CREATED = {'/var/lib/cassandra': {'changed': True}, '/srv/kafka': {'changed': False}}


def decisions(**kw):
    return [(d['directory'], d['verify']) for d in fio_verify_decisions(PLAN, **kw)]


@pytest.mark.parametrize('mode', ['auto', True, 'true', 'yes', None])
def test_auto_verifies_only_new_filesystems(mode):
    assert decisions(mode=mode, filesystems=CREATED, run_tags=['all']) == [
        ('/var/lib/cassandra', True), ('/srv/kafka', False)]
    out = fio_verify_decisions(PLAN, mode=mode, filesystems=CREATED, run_tags=['all'])
    assert out[0]['reason'] == 'the filesystem was created in this run'
    assert '--tags verify' in out[1]['reason'] and 'iotune_verify=always' in out[1]['reason']
    assert out[0]['jobs'] == [] and out[0]['expected_mount'] == '/var/lib/cassandra'


def test_auto_rerun_verifies_nothing():
    assert decisions(mode='auto', filesystems={'/var/lib/cassandra': {'changed': False}}, run_tags=['all']) == [
        ('/var/lib/cassandra', False), ('/srv/kafka', False)]
    # the xfs role did not run at all (--tags tuning) or has no results yet
    assert decisions(mode='auto', filesystems=None, run_tags=['tuning']) == [
        ('/var/lib/cassandra', False), ('/srv/kafka', False)]


def test_tag_verify_and_always_verify_everything():
    assert decisions(mode='auto', filesystems={}, run_tags=['verify']) == [
        ('/var/lib/cassandra', True), ('/srv/kafka', True)]
    assert decisions(mode='always', filesystems={}, run_tags=['all']) == [
        ('/var/lib/cassandra', True), ('/srv/kafka', True)]


@pytest.mark.parametrize('mode', ['never', False, 'false', 'no'])
def test_never_wins_even_over_the_tag(mode):
    out = fio_verify_decisions(PLAN, mode=mode, filesystems=CREATED, run_tags=['verify'])
    assert [d['verify'] for d in out] == [False, False]
    assert out[0]['reason'] == 'skipped (iotune_verify=never)'


def test_bad_mode_and_input():
    with pytest.raises(AnsibleFilterError, match='iotune_verify must be auto, always or never'):
        fio_verify_decisions(PLAN, mode='sometimes')
    with pytest.raises(AnsibleFilterError, match='needs a directory'):
        fio_verify_decisions([{}], mode='auto')
