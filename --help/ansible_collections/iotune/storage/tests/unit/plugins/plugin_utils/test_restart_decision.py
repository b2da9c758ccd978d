# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The restart decision of a rolling run (issue 28, docs/rolling.md): which change class restarts which service, the
actions, restart: never, and the changes read from a udev_block_tuning result. The reasoning per class, with its
sources, is the docstring of plugins/plugin_utils/restart_decision.py."""

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.plugin_utils import restart_decision as rd

MONGOD = {'unit': 'mongod.service', 'kind': 'mongodb'}
CASSANDRA = {'unit': 'cassandra', 'kind': 'cassandra'}
GENERIC = 'standin.service'


def decision_of(changes, services, restart='auto'):
    return rd.decide(changes, {'restart': restart, 'services': services})


def restarts(decision):
    return dict((s['unit'], s['restart']) for s in decision['services'])


# (changes, the restart of mongod.service, cassandra.service, standin.service)
TABLE = [
    (['readahead'], False, False, False),
    (['scheduler'], False, False, False),
    (['queue'], False, False, False),
    (['sysctl'], False, False, False),
    (['readahead', 'scheduler', 'queue', 'sysctl'], False, False, False),
    (['thp'], True, False, False),
    (['limits'], True, True, True),
    ([{'class': 'limits', 'what': 'LimitNOFILE', 'units': ['mongod']}], True, False, False),
    (['mount_hold'], False, False, False),
    ([{'class': 'data_mount', 'what': '/var/lib/cassandra', 'units': ['cassandra.service']}], False, True, False),
    (['data_mount'], True, True, True),
    (['array'], False, False, False),
    (['initramfs'], False, False, False),
    (['array', 'mount_hold', 'initramfs', 'readahead'], False, False, False),
    (['readahead', 'thp'], True, False, False),
    ([], False, False, False),
]


@pytest.mark.parametrize('changes, mongod, cassandra, standin', TABLE)
def test_decision_table(changes, mongod, cassandra, standin):
    decision = decision_of(changes, [MONGOD, CASSANDRA, GENERIC])
    assert restarts(decision) == {'mongod.service': mongod, 'cassandra.service': cassandra,
                                  'standin.service': standin}
    assert decision['restart_needed'] is (mongod or cassandra or standin)


def test_every_class_is_in_the_table():
    classes = set()
    for changes, dummy, dummy2, dummy3 in TABLE:
        classes.update(c if isinstance(c, str) else c['class'] for c in changes)
    assert classes == set(rd.CLASSES)


def test_readahead_only_change_restarts_nothing():
    result = {'devices': {'md127': {'before': {'scheduler': None, 'read_ahead_kb': '2048', 'rotational': '0'},
                                    'after': {'scheduler': None, 'read_ahead_kb': '8', 'rotational': '0'}},
                          'vdb': {'before': {'read_ahead_kb': '128'}, 'after': {'read_ahead_kb': '8'}}}}
    changes = rd.block_tuning_changes(result)
    assert changes == [{'class': 'readahead', 'what': 'md127 read_ahead_kb 2048 -> 8', 'units': None},
                       {'class': 'readahead', 'what': 'vdb read_ahead_kb 128 -> 8', 'units': None}]
    decision = decision_of(changes, [MONGOD, dict(CASSANDRA, drain=True), GENERIC])
    assert decision['restart_needed'] is False
    assert all(not s['restart'] and not s['actions'] and not s['reasons'] for s in decision['services'])
    assert [r['what'] for r in decision['live']] == ['md127 read_ahead_kb 2048 -> 8', 'vdb read_ahead_kb 128 -> 8']
    assert rd.summary_lines(decision, check_mode=True) == [
        'no restart for: readahead (md127 read_ahead_kb 2048 -> 8), readahead (vdb read_ahead_kb 128 -> 8)']


def test_actions_drain_restart_gate_in_order():
    decision = decision_of([{'class': 'thp', 'what': 'enabled never -> always'}], [dict(MONGOD, drain=True)])
    (mongod,) = decision['services']
    assert mongod['restart'] and not mongod['pending']
    assert mongod['reasons'] == [{'class': 'thp', 'what': 'enabled never -> always',
                                  'why': 'MongoDB reads THP when mongod starts'}]
    assert mongod['actions'] == [{'action': 'drain', 'argv': rd.DRAIN_COMMANDS['mongodb']},
                                 {'action': 'restart', 'unit': 'mongod.service'}, {'action': 'gate'}]
    assert rd.summary_lines(decision) == [
        'mongod.service: restarts (drain, restart, gate): thp (enabled never -> always)']
    assert rd.summary_lines(decision, check_mode=True)[0].startswith('mongod.service: would restart (drain, restart')


def test_drain_command_given_and_no_drain():
    decision = decision_of(['limits'], [dict(CASSANDRA, drain=['nodetool', '-h', 'db1', 'drain']), GENERIC])
    cassandra, standin = decision['services']
    assert cassandra['actions'][0] == {'action': 'drain', 'argv': ['nodetool', '-h', 'db1', 'drain']}
    assert [a['action'] for a in standin['actions']] == ['restart', 'gate']


def test_restart_never_lists_the_pending_restart_and_acts_not():
    decision = decision_of(['thp', 'readahead'], [dict(MONGOD, drain=True)], restart='never')
    (mongod,) = decision['services']
    assert mongod['restart'] and mongod['pending'] and mongod['actions'] == []
    assert rd.summary_lines(decision) == ['mongod.service: restart pending (restart: never): thp',
                                          'no restart for: readahead']


def test_also_on_asks_a_restart_for_a_live_class():
    decision = decision_of(['readahead'], [dict(CASSANDRA, also_on=['readahead'])])
    (cassandra,) = decision['services']
    assert cassandra['restart'] and cassandra['reasons'][0]['why'].startswith('asked by also_on (live: files opened')
    assert decision['live'] == []


def test_a_restart_for_a_service_not_listed_is_reported_not_done():
    decision = decision_of([{'class': 'limits', 'what': 'LimitNOFILE', 'units': ['kafka.service']}, 'sysctl'],
                           [MONGOD])
    assert decision['restart_needed'] is False
    assert decision['unmanaged'] == [{'class': 'limits', 'what': 'LimitNOFILE',
                                      'why': 'needs a restart of kafka.service, which the restart policy does not '
                                             'list'}]
    assert rd.summary_lines(decision)[0] == ('not restarted here: limits (LimitNOFILE) needs a restart of '
                                             'kafka.service, which the restart policy does not list')
    no_services = rd.decide(['data_mount'], None)
    assert no_services['unmanaged'][0]['why'].endswith('(it lists no service)')


def test_thp_without_a_mongodb_service_is_live():
    decision = decision_of(['thp'], [CASSANDRA])
    assert decision['live'] == [{'class': 'thp', 'what': None,
                                 'why': 'live for memory mapped from now on (only MongoDB reads it at start)'}]


def test_nothing_changed():
    assert rd.summary_lines(decision_of([], [MONGOD])) == ['nothing changed that a service would notice']


def test_unit_names():
    policy = rd.validate_policy({'services': ['mongod', 'scylla-server.service', 'backup@db1', {'unit': 'x.target'}]})
    assert [s['unit'] for s in policy['services']] == [
        'mongod.service', 'scylla-server.service', 'backup@db1.service', 'x.target']
    assert policy['restart'] == 'auto' and policy['services'][0] == {'unit': 'mongod.service', 'kind': 'generic',
                                                                     'drain': None, 'also_on': []}


@pytest.mark.parametrize('policy, message', [
    ({'restart': 'sometimes'}, r"restart_policy.restart must be one of auto, never, got 'sometimes'"),
    ({'restarts': 'auto'}, r"restart_policy: unknown key 'restarts' \(did you mean restart\?\)"),
    ({'services': 'mongod'}, r'restart_policy.services must be a list'),
    ({'services': [{'unit': 'mongod', 'knd': 'mongodb'}]},
     r"restart_policy.services\[0\]: unknown key 'knd' \(did you mean kind\?\)"),
    ({'services': [{'kind': 'mongodb'}]}, r'restart_policy.services\[0\].unit is required'),
    ({'services': [{'unit': 'mongod', 'kind': 'mongo'}]},
     r"restart_policy.services\[0\].kind: unknown kind 'mongo' \(did you mean mongodb\?\)"),
    ({'services': [{'unit': 'standin', 'drain': True}]},
     r'restart_policy.services\[0\].drain: true needs a kind with a drain command'),
    ({'services': [{'unit': 'mongod', 'drain': 'rs.stepDown()'}]},
     r'restart_policy.services\[0\].drain must be true, false or a command'),
    ({'services': [{'unit': 'mongod', 'also_on': ['readahed']}]},
     r"restart_policy.services\[0\].also_on: unknown change class 'readahed' \(did you mean readahead\?\)"),
    ({'services': [{'unit': 'mongod', 'also_on': 'readahead'}]},
     r'restart_policy.services\[0\].also_on must be a list'),
    ({'services': ['mongod', 'mongod.service']}, r'restart_policy.services names mongod.service more than once'),
    ({'services': ['two words']}, r"restart_policy.services\[0\].unit must be a unit name"),
    ('auto', r'restart_policy must be a mapping'),
])
def test_bad_policies_are_refused_naming_the_key(policy, message):
    with pytest.raises(rd.RestartDecisionError, match=message):
        rd.validate_policy(policy)


@pytest.mark.parametrize('changes, message', [
    (['readahed'], r"changes\[0\].class: unknown change class 'readahed' \(did you mean readahead\?\)"),
    ([{'what': 'x'}], r'changes\[0\].class is required'),
    ([{'class': 'limits', 'unit': ['mongod']}], r"changes\[0\]: unknown key 'unit' \(did you mean units\?\)"),
    ([{'class': 'limits', 'units': []}], r'changes\[0\].units must be a non-empty list'),
    ([3], r'changes\[0\] must be a change class or a mapping'),
    ('readahead', r'changes must be a list'),
])
def test_bad_changes_are_refused(changes, message):
    with pytest.raises(rd.RestartDecisionError, match=message):
        rd.validate_changes(changes)


def test_block_tuning_changes_classes():
    result = {'devices': {'vdc': {'before': {'scheduler': 'mq-deadline', 'read_ahead_kb': '128', 'nr_requests': '64',
                                             'nomerges': '0', 'max_sectors_kb': '1280', 'rotational': '1'},
                                  'after': {'scheduler': 'none', 'read_ahead_kb': 128, 'nr_requests': '256',
                                            'nomerges': '2', 'max_sectors_kb': '1280', 'rotational': '0'}}}}
    assert [(c['class'], c['what']) for c in rd.block_tuning_changes(result)] == [
        ('queue', 'vdc nomerges 0 -> 2'), ('queue', 'vdc nr_requests 64 -> 256'),
        ('scheduler', 'vdc scheduler mq-deadline -> none')]
    assert decision_of(rd.block_tuning_changes(result), [MONGOD, CASSANDRA])['restart_needed'] is False
    assert rd.block_tuning_changes(None) == [] and rd.block_tuning_changes({'devices': {}}) == []
    with pytest.raises(rd.RestartDecisionError, match='devices must be a mapping'):
        rd.block_tuning_changes({'devices': ['vdc']})


# --- from the stages' results of a tune run (tune_changes) and the running services (running) --------------------
def test_tune_changes_of_a_run_that_tuned_readahead_only():
    block = {'changed': True, 'devices': {'md127': {'before': {'read_ahead_kb': 1024, 'rotational': 0},
                                                    'after': {'read_ahead_kb': 8, 'rotational': 0}}}}
    changes = rd.tune_changes(block_tuning=block, kernel_before={'drift': []}, mounted={'results': []},
                              dropins={'changed': False}, arrays={'results': [{'created': False, 'item': {'name': 'd'}}]})
    assert changes == [{'class': 'readahead', 'what': 'md127 read_ahead_kb 1024 -> 8', 'units': None}]
    found = rd.decide(changes, {'services': [{'unit': 'mongod', 'kind': 'mongodb'}]})
    assert not found['restart_needed'] and [r['class'] for r in found['live']] == ['readahead']


def test_tune_changes_from_every_stage():
    changes = rd.tune_changes(
        block_tuning={'changed': False, 'devices': {'vdb': {'before': {'read_ahead_kb': 1}, 'after': {'read_ahead_kb': 2}}}},
        kernel_before={'drift': ['THP enabled: always, wanted never', 'vm.swappiness: 60, wanted 1']},
        mounted={'results': [{'changed': True, 'item': {'item': {'mountpoint': '/var/lib/mongodb',
                                                                 'services': ['mongod']}}},
                             {'skipped': True, 'item': {'item': {'mountpoint': '/x'}}}]},
        dropins={'changed': True}, arrays={'results': [{'created': True, 'item': {'name': 'data'}}]})
    # a skipped block tuning (its preflight's read) changed nothing
    assert [(c['class'], c['units']) for c in changes] == [
        ('thp', None), ('sysctl', None), ('data_mount', ['mongod.service']), ('mount_hold', None), ('array', None)]
    found = rd.decide(changes, {'services': [{'unit': 'mongod', 'kind': 'mongodb', 'drain': True}]})
    mongod = found['services'][0]
    assert mongod['restart'] and [r['class'] for r in mongod['reasons']] == ['thp', 'data_mount']
    assert [a['action'] for a in mongod['actions']] == ['drain', 'restart', 'gate']


def test_no_stage_ran():
    assert rd.tune_changes() == []


def test_running_keeps_the_active_units_and_names_the_others():
    decision = {'restarts': [{'unit': 'a.service', 'drain': None}, {'unit': 'b.service', 'drain': ['x']}],
                'lines': ['a.service: restarts']}
    active = {'stdout_lines': ['active', 'inactive']}
    assert rd.running(decision, active) == [decision['restarts'][0]]
    assert rd.running(decision, {'stdout_lines': ['active', 'active']}, want='drains') == [decision['restarts'][1]]
    assert rd.running(decision, active, want='lines') == [
        'a.service: restarts', 'b.service: not running (inactive), not restarted; its next start uses the new settings']
    assert rd.running(decision, {'skipped': True}) == []
    with pytest.raises(rd.RestartDecisionError):
        rd.running('a.service', active)
