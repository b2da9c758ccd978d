# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/restart_record.py and the pending_restarts module: the restarts a tune run owes, kept on the host
until the unit runs another process (issue 28), and the audit's item for each one still owed."""

from __future__ import annotations

import json
import os
import stat

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import drift
from ansible_collections.iotune.storage.plugins.module_utils import restart_record as rr
from ansible_collections.iotune.storage.plugins.modules import pending_restarts
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.module_run import run_module

# `systemctl show -p Id -p ActiveState -p InvocationID -- mongod.service cassandra.service no-such.service`
SHOW = """Id=mongod.service
ActiveState=active
InvocationID=0f5c2d2a1b6e4d7e9a3b1c2d3e4f5a6b

Id=cassandra.service
ActiveState=inactive
InvocationID=

Id=no-such.service
ActiveState=inactive
InvocationID=
"""


class Systemd(object):
    """systemctl show answered from {unit: (ActiveState, InvocationID)}; records the calls."""

    def __init__(self, units):
        self.units = dict(units)
        self.calls = []

    def __call__(self, argv, **kwargs):
        self.calls.append(list(argv))
        assert argv[:2] == ['systemctl', 'show'] and '--' in argv, argv
        blocks = []
        for unit in argv[argv.index('--') + 1:]:
            state, inv = self.units.get(unit, ('inactive', ''))
            blocks.append('Id=%s\nActiveState=%s\nInvocationID=%s\n' % (unit, state, inv))
        return 0, '\n'.join(blocks), ''


def test_parse_show_keeps_the_order_and_reads_an_unknown_unit_as_inactive():
    states = rr.parse_show(SHOW, ['mongod.service', 'cassandra.service', 'no-such.service'])
    assert states == {'mongod.service': {'active': True, 'invocation_id': '0f5c2d2a1b6e4d7e9a3b1c2d3e4f5a6b'},
                      'cassandra.service': {'active': False, 'invocation_id': None},
                      'no-such.service': {'active': False, 'invocation_id': None}}
    assert rr.show_argv(['a.service']) == ['systemctl', 'show', '-p', 'Id', '-p', 'ActiveState', '-p',
                                           'InvocationID', '--', 'a.service']


def test_merged_keeps_the_owed_drops_the_done_and_skips_what_does_not_run():
    old = {'schema_version': 1, 'pending': [
        {'unit': 'mongod.service', 'invocation_id': 'A', 'since': 't0', 'reasons': ['thp (THP enabled always)']},
        {'unit': 'kafka.service', 'invocation_id': 'K', 'since': 't0', 'reasons': ['limits']}]}
    states = {'mongod.service': {'active': True, 'invocation_id': 'A'},        # still the same process: owed
              'kafka.service': {'active': True, 'invocation_id': 'K2'},        # restarted by someone: done
              'scylla.service': {'active': False, 'invocation_id': None}}      # not running: owes nothing
    new = rr.merged(old, [{'unit': 'mongod.service', 'reasons': ['limits', 'thp (THP enabled always)']},
                          {'unit': 'scylla.service', 'reasons': ['data_mount']}], states, 't1')
    assert new == {'schema_version': 1, 'pending': [
        {'unit': 'mongod.service', 'invocation_id': 'A', 'since': 't0',
         'reasons': ['thp (THP enabled always)', 'limits']}]}


def test_a_unit_restarted_since_and_owing_again_gets_a_new_entry():
    old = {'schema_version': 1, 'pending': [{'unit': 'm.service', 'invocation_id': 'A', 'since': 't0',
                                             'reasons': ['thp']}]}
    new = rr.merged(old, [{'unit': 'm.service', 'reasons': ['limits']}],
                    {'m.service': {'active': True, 'invocation_id': 'B'}}, 't1')
    assert new['pending'] == [{'unit': 'm.service', 'invocation_id': 'B', 'since': 't1', 'reasons': ['limits']}]


@pytest.mark.parametrize('text', ['{', '[]', '{"schema_version": 2, "pending": []}',
                                  '{"schema_version": 1, "pending": [{"unit": 1, "reasons": []}]}'])
def test_a_record_of_another_shape_is_an_error_not_an_empty_record(tmp_path, text):
    path = tmp_path / 'r.json'
    path.write_text(text)
    record, error = rr.read(str(path))
    assert record is None and error and str(path) in error
    facts = rr.audit_facts(Systemd({}), str(path))
    assert facts['error'] == error and facts['pending'] == []


def test_write_atomic_leaves_a_root_only_file_and_no_temporary(tmp_path):
    path = tmp_path / 'var' / 'lib' / 'iotune-storage' / 'pending-restarts.json'
    rr.write_atomic(str(path), '{}\n')
    assert path.read_text() == '{}\n'
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert os.listdir(str(path.parent)) == ['pending-restarts.json']


def test_write_atomic_keeps_the_old_record_when_the_write_fails(tmp_path, monkeypatch):
    path = tmp_path / 'r.json'
    path.write_text('old\n')

    def broken(fd):
        raise OSError('disk gone')
    monkeypatch.setattr(os, 'fsync', broken)
    with pytest.raises(OSError):
        rr.write_atomic(str(path), 'new\n')
    assert path.read_text() == 'old\n'
    assert os.listdir(str(tmp_path)) == ['r.json']


def module_args(path, pending):
    return {'path': str(path), 'pending': pending}


@pytest.fixture
def systemd(monkeypatch):
    fake = Systemd({'mongod.service': ('active', 'A')})
    monkeypatch.setattr(pending_restarts.AnsibleModule, 'run_command', lambda self, argv, **kw: fake(argv))
    return fake


def test_module_records_a_running_unit_once_and_a_rerun_changes_nothing(tmp_path, capsys, systemd):
    path = tmp_path / 'pending-restarts.json'
    args = module_args(path, [{'unit': 'mongod.service', 'reasons': ['thp (THP enabled always, profile never)']}])
    rc, result = run_module(pending_restarts, args, capsys, check_mode=True, diff=True)
    assert rc == 0 and result['changed'] and not path.exists()
    assert 'mongod.service' in result['diff']['after']
    rc, result = run_module(pending_restarts, args, capsys)
    assert rc == 0 and result['changed']
    record = json.loads(path.read_text())
    assert [(e['unit'], e['invocation_id']) for e in record['pending']] == [('mongod.service', 'A')]
    rc, result = run_module(pending_restarts, args, capsys)
    assert rc == 0 and not result['changed'], result
    # negative control: the unit restarted (another invocation) and nothing owed now: the entry goes
    systemd.units['mongod.service'] = ('active', 'B')
    rc, result = run_module(pending_restarts, module_args(path, []), capsys)
    assert rc == 0 and result['changed'] and result['pending'] == []
    assert json.loads(path.read_text())['pending'] == []


def test_module_writes_no_file_for_a_unit_that_does_not_run(tmp_path, capsys, systemd):
    path = tmp_path / 'pending-restarts.json'
    rc, result = run_module(pending_restarts, module_args(path, [{'unit': 'scylla.service', 'reasons': ['x']}]),
                            capsys)
    assert rc == 0 and not result['changed'] and not path.exists()


@pytest.mark.parametrize('pending, message', [
    ([{'unit': 'two words', 'reasons': []}], 'pending[0].unit must be a unit name'),
    ([{'unit': 'a.service', 'reasons': 'thp'}], 'pending[0].reasons must be a list of strings'),
    ([{'unit': 'a.service', 'reason': ['thp']}], 'unknown keys reason'),
])
def test_module_refuses_bad_entries_before_writing(tmp_path, capsys, systemd, pending, message):
    path = tmp_path / 'pending-restarts.json'
    rc, result = run_module(pending_restarts, module_args(path, pending), capsys)
    assert rc == 1 and message in result['msg'], result
    assert not path.exists() and systemd.calls == []


def test_module_refuses_to_overwrite_a_record_it_cannot_read(tmp_path, capsys, systemd):
    path = tmp_path / 'pending-restarts.json'
    path.write_text('not json')
    rc, result = run_module(pending_restarts, module_args(path, []), capsys)
    assert rc == 1 and 'remove it' in result['msg']
    assert path.read_text() == 'not json'


def test_audit_items_name_each_restart_still_owed(tmp_path):
    path = tmp_path / 'r.json'
    rr.write_atomic(str(path), rr.text_of({'schema_version': 1, 'pending': [
        {'unit': 'mongod.service', 'invocation_id': 'A', 'since': '2026-11-27T07:00:00+00:00',
         'reasons': ['thp (THP enabled always, profile never)']},
        {'unit': 'kafka.service', 'invocation_id': 'K', 'since': 't0', 'reasons': ['limits']}]}))
    facts = rr.audit_facts(Systemd({'mongod.service': ('active', 'A'), 'kafka.service': ('active', 'K2')}), str(path))
    items = drift._restarts({'restarts': facts})
    assert items == [{'area': 'restart', 'subject': 'mongod.service',
                      'message': 'restart pending since 2026-11-27T07:00:00+00:00: thp (THP enabled always, '
                                 'profile never)'}]
    # negative control: no record, no item
    assert drift._restarts({'restarts': rr.audit_facts(Systemd({}), str(tmp_path / 'none.json'))}) == []
    assert drift._restarts({}) == []


def test_the_kind_of_a_restart_item_leaves_out_the_moment():
    """The fleet report and the metrics group items by kind: two hosts owing the same restart since different
    moments are one kind."""
    one = drift.drift_kind({'area': 'restart', 'subject': 'mongod.service',
                            'message': 'restart pending since 2026-11-27T07:00:00+00:00: thp'})
    two = drift.drift_kind({'area': 'restart', 'subject': 'mongod.service',
                            'message': 'restart pending since 2026-11-28T09:12:44+00:00: thp'})
    assert one == two == 'restart: restart pending since \u2026: thp'
