# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The audit's observe window (issue 26): plugin_utils/observe.waste, its items and notes in audit.compare, and the
observed figures in the JSON, Markdown and HTML reports.

The windows are those of the lab host of test_io_observe_utils: ``before`` is 10 s of random 4 KiB mmap faults under
md's 2 MiB readahead (md127: 3000 reads of 512 KiB, 512 KiB per major fault), ``after`` the same under 8 KiB."""

from __future__ import annotations

import copy
import json

import pytest

from ansible_collections.iotune.storage.plugins.filter.storage_audit import (
    storage_audit_compare,
    storage_audit_fleet,
)
from ansible_collections.iotune.storage.plugins.module_utils import io_observe as io
from ansible_collections.iotune.storage.plugins.plugin_utils import audit, observe
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.audit import SYNTHETIC_PLAN, synthetic_facts
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.test_io_observe_utils import (
    VMSTATS,
    DISKSTATS_0,
    DISKSTATS_1,
    _pair,
    lab_host,
    windows,
)


def registered(window):
    """A window as the audit role registers it: the module's keys and Ansible's own."""
    result = copy.deepcopy(window)
    result.update(spread={'major_faults_per_s': None, 'read_bytes_per_s': None, 'intervals': 10}, samples=11,
                  interval=1, cost={'cpu_seconds': 0.01, 'share_of_one_core': 0.001}, unit=None, changed=False,
                  failed=False, invocation={'module_args': {'seconds': 10}})
    return result


@pytest.fixture
def host(fake_host):
    return lab_host(fake_host)


@pytest.fixture
def lab(host):
    before, after = windows(host)
    return registered(before), registered(after)


@pytest.fixture
def idle(host):
    """10 major faults in the window: too little I/O to judge (md127 still read 3000 x 512 KiB)."""
    quiet = (VMSTATS[0], VMSTATS[0].replace('pgmajfault 412006', 'pgmajfault 412016'))
    first, last = _pair(host, (DISKSTATS_0, DISKSTATS_1), quiet, bits=64)
    return registered(io.window(first, last, io.topology(host.view(), sorted(first['diskstats']))))


def test_a_large_readahead_is_wasting_reads_on_the_host_and_the_array(lab):
    seen = observe.waste(lab[0], {'md127': {'live': '4096', 'profile': '8', 'rules': '8'}})
    assert seen['status'] == observe.WASTING and seen['verdict'] == 'measured' and seen['threshold_kib'] == 64
    assert seen['host']['status'] == observe.WASTING and seen['host']['basis'] == 'device read bytes per major fault'
    assert seen['host']['device_read_bytes_per_major_fault'] == 524343.0
    assert seen['host']['device_read_kib_per_major_fault'] == 512.05
    assert seen['devices'] == [
        {'device': 'md127', 'read_ahead_kb': {'live': '4096', 'profile': '8', 'rules': '8'}, 'reads': 3000,
         'read_bytes': 1572864000, 'avg_read_kib': 512.0, 'status': observe.WASTING},
        {'device': 'vda', 'read_ahead_kb': None, 'reads': 40, 'read_bytes': 163840, 'avg_read_kib': 4.0,
         'status': observe.TOO_LITTLE}]       # 40 reads: below min_device_reads on its own
    assert seen['findings'] == [
        {'subject': 'host (md127, vda)', 'message': 'readahead wasting reads: 512 KiB read from the devices per major '
                                                    'fault (3000 major faults in 10 s; threshold 64 KiB)'},
        {'subject': 'md127', 'message': 'readahead wasting reads: average read request 512 KiB over 3000 reads in '
                                        '10 s (threshold 64 KiB); read_ahead_kb live 4096, profile 8'}]


def test_the_read_around_floor_is_no_waste(lab):
    seen = observe.waste(lab[1])
    assert seen['status'] == observe.NO_WASTE and seen['findings'] == []
    assert seen['host']['status'] == observe.NO_WASTE and seen['host']['device_read_bytes_per_major_fault'] == 8380.0
    assert [(d['device'], d['avg_read_kib'], d['status']) for d in seen['devices']] == [
        ('md127', 8.0, observe.NO_WASTE), ('vda', 4.0, observe.TOO_LITTLE)]


@pytest.mark.parametrize('threshold, status', [(511, observe.WASTING), (513, observe.NO_WASTE)])
def test_the_threshold_is_strict(lab, threshold, status):
    seen = observe.waste(lab[0], threshold_kib=threshold)
    assert seen['devices'][0]['status'] == status and seen['host']['status'] == status     # 512 and 512.05 KiB


def test_too_little_io_judges_nothing(idle):
    seen = observe.waste(idle)
    assert seen['verdict'] == io.TOO_LITTLE and seen['status'] == observe.TOO_LITTLE and seen['findings'] == []
    assert seen['host']['status'] == observe.TOO_LITTLE
    assert [d['status'] for d in seen['devices']] == [observe.TOO_LITTLE, observe.TOO_LITTLE]


def test_without_major_faults_the_average_request_decides(lab):
    """min_major_faults 0 (a pread engine): the faults say nothing, the host goes by its average read request."""
    pread = copy.deepcopy(lab[0])
    pread['thresholds']['min_major_faults'] = 0
    seen = observe.waste(pread)
    assert seen['host']['basis'] == 'average read request' and seen['host']['status'] == observe.WASTING
    assert seen['findings'][0]['message'] == ('readahead wasting reads: average read request 505 KiB over 3040 reads '
                                              'in 10 s (threshold 64 KiB)')


def test_the_audit_flags_wasting_reads_whatever_the_profile_says(lab):
    """A host whose readahead is as planned (md127 live 8 = profile 8) is still flagged by its observed reads."""
    result = storage_audit_compare(synthetic_facts(1), SYNTHETIC_PLAN, 'db001', observed=lab[0])
    assert [i['area'] for i in result['items']] == ['observed', 'observed'] and result['verdict'] == 'drift'
    assert [i['subject'] for i in result['items']] == ['host (md127, vda)', 'md127']
    assert all(i['message'].startswith(observe.WASTING + ': ') for i in result['items'])
    seen = result['observed']
    assert seen['status'] == observe.WASTING and 'findings' not in seen
    assert seen['devices'][0]['read_ahead_kb'] == {'live': '8', 'profile': '8', 'rules': '8'}
    json.dumps(result)


def test_the_audit_after_the_tuning_and_with_too_little_io(lab, idle):
    fine = audit.compare(synthetic_facts(1), SYNTHETIC_PLAN, 'db001', observed=lab[1])
    assert fine['verdict'] == 'ok' and fine['observed']['status'] == observe.NO_WASTE
    little = audit.compare(synthetic_facts(1), SYNTHETIC_PLAN, 'db001', observed=idle)
    assert little['verdict'] == 'ok' and little['items'] == []          # never drift
    assert little['observed']['status'] == observe.TOO_LITTLE            # never "no waste seen"
    assert 'observed: too little I/O to judge: 10 major faults (threshold 200)' in little['notes']


@pytest.mark.parametrize('result', [None, {'skipped': True, 'changed': False,
                                           'skip_reason': 'Conditional result was False'}])
def test_no_window_adds_nothing(result):
    plain = audit.compare(synthetic_facts(1), SYNTHETIC_PLAN, 'db001')
    assert audit.compare(synthetic_facts(1), SYNTHETIC_PLAN, 'db001', observed=result) == plain
    assert plain['observed'] is None and plain['verdict'] == 'ok'


@pytest.mark.parametrize('result, message', [
    ({'failed': False, 'msg': 'seconds must be between 1 and 3600, got 5000', 'changed': False},   # failed_when false
     'could not be read: the io_observe window did not run: seconds must be between 1 and 3600, got 5000'),
    ({'unreachable': True, 'msg': 'Failed to connect', 'changed': False},
     'could not be read: the io_observe window did not run: Failed to connect'),
])
def test_a_window_that_failed_is_an_audit_item(result, message):
    entry = audit.compare(synthetic_facts(1), SYNTHETIC_PLAN, 'db001', observed=result)
    assert entry['items'] == [{'area': 'audit', 'subject': 'host', 'message': message}]
    assert entry['observed'] is None


def test_reports_show_the_observed_figures_beside_the_configured_readahead(lab, idle):
    results = {'db001': audit.compare(synthetic_facts(7), SYNTHETIC_PLAN, 'db001', observed=lab[0]),   # live 4096
               'db002': audit.compare(synthetic_facts(2), SYNTHETIC_PLAN, 'db002', observed=lab[1]),
               'db003': audit.compare(synthetic_facts(3), SYNTHETIC_PLAN, 'db003', observed=idle),
               'db004': audit.compare(synthetic_facts(4), SYNTHETIC_PLAN, 'db004'),
               'db005': None}
    doc = storage_audit_fleet(results, generated_at='2026-11-26T02:00:00Z')
    assert json.loads(audit.render(doc, 'json')) == doc
    by_host = dict((h['host'], h) for h in doc['hosts'])
    assert by_host['db001']['observed']['devices'][0]['read_ahead_kb']['live'] == '4096'
    assert by_host['db004']['observed'] is None and by_host['db005']['observed'] is None
    words = [audit.observed_words(by_host[h]) for h in sorted(by_host)]
    assert words == ['readahead wasting reads, device read 512.05 KiB per major fault',
                     'no waste seen, device read 8.18 KiB per major fault', 'too little I/O to judge', 'not observed',
                     'not observed']
    md = audit.render(doc, 'markdown')
    assert '| db003 | ok | 0 | data active | 8 | too little I/O to judge |' in md
    assert '  - md127: readahead live 4096 / profile 8 KiB, 3000 reads, average read 512.0 KiB: readahead wasting ' \
           'reads' in md
    assert '- **observed** md127: readahead wasting reads: average read request 512 KiB' in md
    page = audit.render(doc, 'html')
    assert '<th data-key="observed">Observed reads</th>' in page
    assert ('<td data-sort="0" class="o-readahead-wasting-reads">readahead wasting reads, device read 512.05 KiB per '
            'major fault</td>') in page
    assert '<td data-sort="1" class="o-too-little-IO-to-judge">too little I/O to judge</td>' in page
    assert '<td data-sort="9" class="o-none">not observed</td>' in page
    assert ('<tr><td>md127</td><td>live 4096 / profile 8 KiB</td><td>3000</td><td>512.0</td>'
            '<td class="o-readahead-wasting-reads">readahead wasting reads</td></tr>') in page
    assert 'device read bytes per major fault 512.05 KiB (3000 major faults)' in page
    assert page.count('<table class="observed-devices">') == 3
    assert 'http://' not in page.replace('http://www.w3.org/2000/svg', '') and 'https://' not in page
    summary = audit.render(doc, 'summary')
    assert 'db001: drift: ' in summary and 'host (md127, vda) readahead wasting reads' in summary
    assert 'db003' not in summary


def test_an_old_result_without_observed_still_renders():
    entry = audit.compare(synthetic_facts(1), SYNTHETIC_PLAN, 'db001')
    del entry['observed']
    doc = storage_audit_fleet({'db001': entry})
    assert 'not observed' in audit.render(doc, 'html') and 'not observed' in audit.render(doc, 'markdown')
