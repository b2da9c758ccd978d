# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The tune role around retire_array (issue 29): which entries it calls the module for (none once the preflight
found them done), what the report and the summary say, the rebuild the raid0 stage owes them, and where the tasks
sit (after the checks and the original state, before the raid0 stage)."""

from __future__ import annotations

import os

import yaml

from ansible_collections.iotune.storage.plugins.filter.retire_calls import retire_calls
from ansible_collections.iotune.storage.plugins.filter.retire_report import retire_report
from ansible_collections.iotune.storage.plugins.filter.tune_summary import tune_summary
from ansible_collections.iotune.storage.plugins.plugin_utils import role_tasks

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..')
UUID = 'a0021927:0e4f10bf:2c47dc72:ca0b352e'
ENTRY = {'name': 'data2', 'confirm_name': 'data2', 'confirm_uuid': UUID, 'zero_superblocks': False, 'services': []}
TODO = {'name': 'data2', 'uuid': UUID, 'state': 'running', 'steps': ['unmount', 'stop'], 'rebuild_pending': True,
        'done': ['unmounted /srv/data2', 'stopped /dev/md127'], 'status': 'would take 2 step(s)'}
DONE = {'name': 'data2', 'uuid': UUID, 'state': 'retired', 'steps': [], 'rebuild_pending': False, 'done': [],
        'status': 'retired already: ...'}


def test_calls_only_for_what_the_preflight_found_left_to_do():
    assert retire_calls([ENTRY], None) == [ENTRY]                 # no read: call
    assert retire_calls([ENTRY], [TODO]) == [ENTRY]
    assert retire_calls([ENTRY], [DONE]) == []                    # a second run makes no call


def test_report_of_a_call_and_the_rebuild_it_owes():
    registered = {'changed': True, 'results': [dict(TODO, changed=True, tune_retire=ENTRY, state='running')]}
    report = retire_report([ENTRY], registered, read=[TODO])
    assert report['rebuild_owed'] and report['changed']
    assert report['lines'] == ['retire data2 (UUID %s): unmounted /srv/data2; stopped /dev/md127' % UUID]
    assert report['arrays'][0]['source'] == 'retire_array'
    assert retire_report([ENTRY], registered, read=[TODO], check_mode=True)['lines'][0].startswith(
        'retire data2 (UUID %s): would be: ' % UUID)


def test_report_without_a_call_says_what_the_preflight_found():
    skipped = {'changed': False, 'skipped': True, 'results': []}
    report = retire_report([ENTRY], skipped, read=[DONE])
    assert not report['rebuild_owed'] and not report['changed']
    assert report['lines'] == ['retire data2 (UUID %s): retired already: ...' % UUID]
    # a marker left by an earlier run: owed although nothing is called
    assert retire_report([ENTRY], skipped, read=[dict(DONE, rebuild_pending=True)])['rebuild_owed']


def test_the_summary_ends_with_the_retire_lines():
    report = retire_report([ENTRY], None, read=[DONE])
    lines = tune_summary({}, profile='cassandra', plan_profile={'description': 'x'}, retired=report)
    assert lines[-1] == report['lines'][0]


def test_the_raid0_stage_rebuilds_once_for_what_a_retire_owes():
    none = {'results': []}
    assert role_tasks.raid0_outcome(none, found=[{'path': '/usr/sbin/update-initramfs'}], owed=True)['rebuild']
    # negative controls: nothing owed, check mode, or update_initramfs off
    assert not role_tasks.raid0_outcome(none, owed=False)['rebuild']
    assert not role_tasks.raid0_outcome(none, owed=True, check_mode=True)['rebuild']
    assert not role_tasks.raid0_outcome(none, owed=True, update_initramfs=False)['rebuild']


def test_the_retire_runs_after_the_checks_and_before_the_raid0_stage():
    with open(os.path.join(ROOT, 'roles', 'tune', 'tasks', 'main.yml')) as f:
        tasks = yaml.safe_load(f)
    names = [t['name'] for t in tasks]
    retire = next(i for i, n in enumerate(names) if n.startswith('Retire the arrays'))
    assert names.index('Record the host\'s original state before the first change (once per host)') < retire
    assert retire + 1 == names.index('Build the RAID0 arrays')
    assert tasks[retire]['when'] == 'not iotune_plan.restore'
    assert tasks[retire + 1]['vars']['raid0_rebuild_owed'] == '{{ tune_retire_report.rebuild_owed }}'
