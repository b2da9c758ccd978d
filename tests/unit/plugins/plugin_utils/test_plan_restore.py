# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""iotune_restore (issue 29) in the plan: a boolean or its -e words, anything else refused with the other problems;
the tune role's wiring of the original_state module (recorded before the first change, no call when the preflight
found the snapshot, the stages left out of a restore); the summary lines of the snapshot."""

from __future__ import annotations

import os

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.tune_plan import tune_plan
from ansible_collections.iotune.storage.plugins.filter.tune_summary import tune_summary

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..')


def load(*parts):
    with open(os.path.join(ROOT, *parts)) as f:
        return yaml.safe_load(f)


def plan(**kwargs):
    data = load('roles', 'profile', 'vars', 'profiles', 'cassandra.yml')['profile_data']
    return tune_plan(data, 'cassandra', arrays=[], **kwargs)


@pytest.mark.parametrize('given, wanted', [(None, False), (False, False), (True, True), ('true', True), ('yes', True),
                                           (' On ', True), ('1', True), ('false', False), ('no', False), ('0', False)])
def test_restore_words(given, wanted):
    assert plan(restore=given)['restore'] is wanted


@pytest.mark.parametrize('given', ['please', 2, [], {'yes': 1}, 1.0])
def test_restore_refused_with_the_other_problems(given):
    with pytest.raises(AnsibleFilterError) as e:
        plan(restore=given, release_holds='not a list', variables=['iotune_restor'])
    text = str(e.value)
    assert 'iotune_restore must be true' in text and 'iotune_release_holds' in text
    assert 'iotune_restor (did you mean iotune_restore' in text


def test_without_restore_the_plan_tunes():
    assert plan()['restore'] is False


# --- the tune role ------------------------------------------------------------------------------------------------


def tasks():
    return load('roles', 'tune', 'tasks', 'main.yml')


def test_recorded_after_the_checks_and_before_the_first_stage():
    names = [t['name'] for t in tasks()]
    record = names.index('Record the host\'s original state before the first change (once per host)')
    assert record > names.index('Health gate of the cluster before this batch is changed (iotune_health_gate)')
    assert record < names.index('Build the RAID0 arrays')
    task = tasks()[record]
    # a converged re-run makes no call for it: the preflight's read of the file decides
    assert 'tune_files_read[tune_original_state_file]' in task['when']
    assert set(task['tags']) >= {'iotune_raid', 'iotune_filesystem', 'iotune_tuning', 'iotune_kernel'}
    variables = load('roles', 'tune', 'vars', 'main.yml')
    assert variables['tune_original_state_globs'] == ['{{ tune_original_state_file }}']
    validate = dict((t['name'], t) for t in tasks())['Validate the variables and plan from the workload profile']
    assert 'tune_original_state_globs' in validate['vars']['profile_files']


def test_a_restore_runs_no_stage():
    by_name = dict((t['name'], t) for t in tasks())
    assert by_name['Put the host\'s original state back (iotune_restore; arrays, filesystems and fstab lines stay)'][
        'when'] == 'iotune_plan.restore'
    for name in ('Build the RAID0 arrays', 'Create and mount the XFS filesystems',
                 'Bring the ephemeral (instance-store) arrays back at boot', 'Persist and apply scheduler and readahead',
                 'Persist, apply and check the kernel settings of the profile (THP, vm.* sysctls)',
                 'Install (or remove) the storage metrics collector for node_exporter'):
        assert by_name[name]['when'] == 'not iotune_plan.restore', name
    assert 'not iotune_plan.restore' in by_name['Verify the tuning with fio']['when']


# --- the summary ----------------------------------------------------------------------------------------------------

PATH = '/var/lib/iotune-storage/original-state.json'
HELD = {'path': PATH, 'exists': True, 'recorded_at': '2026-03-01T10:00:00Z', 'version': '0.1.0',
        'devices': ['serial:a', 'serial:b'], 'sysctl': 26, 'thp': ['defrag', 'enabled'],
        'files': {'/etc/sysctl.d/90-iotune-storage.conf': 'absent'}}


def lines(check_mode=False, **report):
    return tune_summary({}, profile='cassandra', original_state=dict({'path': PATH}, **report),
                        check_mode=check_mode)[1:]


def test_summary_recorded_now_and_in_check_mode():
    recorded = {'changed': True, 'recorded': True, 'original_state': HELD}
    assert lines(recorded=recorded) == [
        'original state recorded in %s: 2 device(s), 26 sysctl(s), THP defrag, enabled, files '
        '/etc/sysctl.d/90-iotune-storage.conf (absent)' % PATH]
    assert lines(check_mode=True, recorded=recorded)[0].startswith('original state would be recorded in')


def test_summary_found_by_the_preflight_and_none():
    assert lines(recorded={'skipped': True}, found=[{'path': PATH}]) == [
        'original state: %s (recorded by an earlier run; iotune_restore: true puts it back)' % PATH]
    assert lines(recorded={'skipped': True}, found=[]) == []
    assert tune_summary({}, profile='cassandra')[1:] == []


def test_summary_restored():
    restore = {'changed': True, 'files': [{}], 'queue': [{}, {}], 'sysctl': [{}], 'thp': [], 'gone': [{'identity': 'serial:b'}]}
    assert lines(restored={'restore': restore, 'original_state': HELD}) == [
        'original state %s (recorded 2026-03-01T10:00:00Z): restored 1 file(s), 2 queue value(s), 1 sysctl(s), '
        '0 THP value(s); not on the host any more: serial:b' % PATH]
    same = dict(restore, changed=False, files=[], queue=[], sysctl=[], gone=[])
    assert 'nothing to restore' in lines(restored={'restore': same, 'original_state': HELD})[0]


def test_summary_restored_names_the_limits_and_the_timer():
    restore = {'changed': True, 'files': [{}], 'queue': [], 'sysctl': [], 'thp': [], 'gone': [],
               'fstrim_timer': {'commands': ['disable', 'stop'], 'why': 'it was disabled and inactive before'}}
    limits = ['cassandra.service: its limits drop-in ... is removed; ... at its next restart']
    out = lines(restored={'restore': restore, 'original_state': HELD, 'limits': limits})
    assert out[1:] == limits + ['fstrim.timer: disable and stop (it was disabled and inactive before)']
    # negative control: a restore result of the release before (no limits, no timer) gives the one line it gave
    del restore['fstrim_timer']
    assert len(lines(restored={'restore': restore, 'original_state': HELD})) == 1
