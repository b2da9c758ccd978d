# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The observation report of the tune role (plugin_utils/observe.py, filter observe_report) and its summary line, on
the two windows of the lab host of test_io_observe_utils as io_observe returns them (registered by the role)."""

from __future__ import annotations

import json

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.observe_report import observe_report
from ansible_collections.iotune.storage.plugins.filter.tune_summary import tune_summary
from ansible_collections.iotune.storage.plugins.plugin_utils import observe
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.test_io_observe_utils import (
    lab_host,
    windows,
)


@pytest.fixture
def registered(fake_host):
    """The two windows as the role registers them: the module's keys and Ansible's own."""
    before, after = windows(lab_host(fake_host))
    for window in (before, after):
        window.update(spread={'major_faults_per_s': None, 'read_bytes_per_s': None, 'intervals': 10},
                      samples=11, interval=1, cost={'cpu_seconds': 0.01, 'share_of_one_core': 0.001}, unit=None,
                      changed=False, invocation={'module_args': {'seconds': 10}}, failed=False)
    return before, after


def test_the_report_holds_before_after_and_the_comparison(registered):
    before, after = registered
    report = observe_report(before, after, host='lab1')
    assert sorted(report) == ['after', 'before', 'check_mode', 'comparison', 'host', 'note']
    assert report['host'] == 'lab1' and report['check_mode'] is False and report['note'] is None
    assert sorted(report['before']) == sorted(observe.WINDOW_KEYS)      # Ansible's keys left out
    assert report['before']['host']['device_read_bytes_per_major_fault'] == 524343.0
    assert report['after']['devices']['md127']['avg_read_kib'] == 8.0
    assert report['comparison']['verdict'] == 'improved'
    json.dumps(report)      # written with to_nice_json


def test_a_check_run_says_so(registered):
    report = observe_report(registered[0], registered[0], check_mode=True, host='lab1')
    assert report['check_mode'] is True and report['note'] == observe.CHECK_NOTE
    assert report['comparison']['verdict'] == 'no change'
    assert observe.summary_line(report) == (
        'observed reads (10 s before and after the tuning): no change; device read bytes per major fault 512 KiB -> '
        '512 KiB, about the same; average read request 505 -> 505 KiB (check mode: nothing was tuned between the two '
        'windows, so they measure the same settings)')


@pytest.mark.parametrize('bad', [{'skipped': True, 'skip_reason': 'Conditional result was False'},
                                 {'failed': True, 'msg': 'unit mongod.service: no cgroup'}, None, 'text'])
def test_a_window_that_did_not_run(registered, bad):
    with pytest.raises(AnsibleFilterError, match='the after window is not an io_observe result'):
        observe_report(registered[0], bad)


def test_the_summary_gains_the_observe_line(registered):
    report = observe_report(*registered, host='lab1')
    lines = tune_summary({}, profile='cassandra', plan_profile={'description': 'Cassandra'}, observe=report)
    assert lines[-1] == ('observed reads (10 s before and after the tuning): improved; device read bytes per major '
                         'fault 512 KiB -> 8.2 KiB, 63x less; average read request 505 -> 8 KiB')
    assert tune_summary({}, profile='cassandra', plan_profile={'description': 'Cassandra'}) == [
        'profile cassandra (Cassandra)']
    assert observe.summary_line(None) is None and observe.summary_line({'skipped': True}) is None


def test_the_summary_of_too_little_io(registered):
    idle = dict(registered[1], verdict='too little I/O to judge',
                verdict_reason='too little I/O to judge: 12 major faults (threshold 200), 40 device reads (threshold 200)')
    report = observe_report(registered[0], idle)
    assert report['comparison']['verdict'] == 'too little I/O'
    assert observe.summary_line(report) == (
        'observed reads (10 s before and after the tuning): too little I/O to judge: after window 12 major faults '
        '(threshold 200), 40 device reads (threshold 200)')
