# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The health gate's description, presets and verdicts (issue 28, docs/rolling.md). The presets' parsers run on the
captured outputs of fixtures/health (README.md there names the vendor pages their formats come from)."""

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import health_gate as hg
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import fixture


def check_of(gate, kind):
    return [c for c in gate['checks'] if c['kind'] == kind]


# --- the description ------------------------------------------------------------------------------------------
def test_no_gate():
    assert hg.validate_gate(None) is None


def test_defaults_and_one_tcp_port():
    gate = hg.validate_gate({'tcp_ports': 8080})
    assert gate == {'preset': None, 'retries': hg.DEFAULT_RETRIES, 'delay': hg.DEFAULT_DELAY,
                    'timeout': hg.DEFAULT_TIMEOUT,
                    'checks': [{'kind': 'tcp', 'name': 'tcp port 8080', 'host': None, 'port': 8080}]}


def test_every_check_kind_normalized_in_order():
    gate = hg.validate_gate({'tcp_ports': ['9042', 7000], 'host': '10.0.1.11', 'retries': '5', 'delay': 2.5,
                             'timeout': '3', 'http': 'http://127.0.0.1:8080/health',
                             'command': {'argv': ['/usr/local/bin/healthy', '--quick'], 'rc': [0, 3],
                                         'stdout_regex': '^ok$'}})
    assert [c['name'] for c in gate['checks']] == ['tcp port 9042', 'tcp port 7000', 'http http://127.0.0.1:8080/health',
                                                   'command /usr/local/bin/healthy --quick']
    assert [c['host'] for c in check_of(gate, 'tcp')] == ['10.0.1.11', '10.0.1.11']
    assert check_of(gate, 'http')[0] == {'kind': 'http', 'name': 'http http://127.0.0.1:8080/health',
                                         'url': 'http://127.0.0.1:8080/health', 'status': [200],
                                         'body_contains': None, 'validate_certs': True}
    command = check_of(gate, 'command')[0]
    assert command['rc'] == [0, 3] and command['stdout_regex'] == '^ok$' and command['parser'] is None
    assert (gate['retries'], gate['delay'], gate['timeout']) == (5, 2.5, 3.0)
    assert hg.longest_wait(gate) == 6 * 4 * 3.0 + 5 * 2.5


@pytest.mark.parametrize('preset', ['cassandra', 'scylla'])
def test_nodetool_presets_pair_every_node_un_with_the_cql_port(preset):
    gate = hg.validate_gate({'preset': preset})
    assert gate['preset'] == preset
    nodetool_check, port = gate['checks']
    assert nodetool_check['argv'] == ['nodetool', 'status'] and nodetool_check['parser'] == 'nodetool_status'
    assert port == {'kind': 'tcp', 'name': 'CQL port 9042', 'host': None, 'port': 9042}


def test_preset_options_and_a_port_not_repeated():
    gate = hg.validate_gate({'preset': 'scylla', 'nodetool_argv': ['/opt/scylladb/bin/nodetool', '-p', '10000'],
                             'cql_port': 19042, 'tcp_ports': [19042, 10000], 'host': 'db1'})
    assert gate['checks'][0]['argv'] == ['/opt/scylladb/bin/nodetool', '-p', '10000', 'status']
    assert [(c['name'], c['port'], c['host']) for c in check_of(gate, 'tcp')] == [
        ('CQL port 19042', 19042, 'db1'), ('tcp port 10000', 10000, 'db1')]


def test_mongodb_preset():
    gate = hg.validate_gate({'preset': 'mongodb_replica_set', 'max_lag_seconds': 30,
                             'mongosh_argv': ['mongosh', '--port', '27018'], 'lag_exempt': ['db9:27017']})
    (check,) = gate['checks']
    assert check['argv'] == ['mongosh', '--port', '27018', '--quiet', '--eval', 'EJSON.stringify(rs.status())']
    assert check['parser'] == 'rs_status'
    assert check['parser_options'] == {'max_lag_seconds': 30, 'lag_exempt': ['db9:27017']}
    assert hg.validate_gate({'preset': 'mongodb_replica_set'})['checks'][0]['parser_options'] == {
        'max_lag_seconds': 10, 'lag_exempt': []}


@pytest.mark.parametrize('spec, message', [
    ({}, r'health_gate has no check: set preset \(cassandra, mongodb_replica_set, scylla\), tcp_ports, http or command'),
    ({'tcp_port': 9042}, r"health_gate: unknown key 'tcp_port' \(did you mean tcp_ports or cql_port\?\)"),
    ({'preset': 'casandra'}, r"health_gate.preset: unknown preset 'casandra' \(did you mean cassandra\?\)"),
    ({'preset': 'cassandra', 'max_lag_seconds': 5},
     r"health_gate.max_lag_seconds is an option of preset mongodb_replica_set, and this gate's preset is cassandra"),
    ({'tcp_ports': [22], 'cql_port': 9042},
     r"health_gate.cql_port is an option of preset cassandra and scylla, and this gate's preset is not set"),
    ({'tcp_ports': [0]}, r'health_gate.tcp_ports\[0\] must be 1..65535, got 0'),
    ({'tcp_ports': [True]}, r'health_gate.tcp_ports\[0\] must be an integer, got True'),
    ({'tcp_ports': []}, r'health_gate.tcp_ports must not be empty'),
    ({'http': {'url': 'ftp://x'}}, r"health_gate.http.url must be an http:// or https:// URL"),
    ({'http': {'status': 200}}, r'health_gate.http.url is required'),
    ({'http': {'url': 'http://x', 'statuses': [200]}},
     r"health_gate.http: unknown key 'statuses' \(did you mean status\?\)"),
    ({'http': {'url': 'http://x', 'status': 99}}, r'health_gate.http.status must be 100..599, got 99'),
    ({'http': {'url': 'http://x', 'validate_certs': 'maybe'}}, r'health_gate.http.validate_certs must be true or false'),
    ({'command': 'nodetool status'}, r'health_gate.command must be a mapping'),
    ({'command': {'argv': 'nodetool status'}}, r'health_gate.command.argv must be a list of strings .*no shell'),
    ({'command': {'argv': []}}, r'health_gate.command.argv must be a non-empty list'),
    ({'command': {'rc': 0}}, r'health_gate.command.argv is required'),
    ({'command': {'argv': ['x'], 'stdout_regexp': 'UN'}},
     r"health_gate.command: unknown key 'stdout_regexp' \(did you mean stdout_regex\?\)"),
    ({'command': {'argv': ['x'], 'stdout_regex': '(UN'}}, r'health_gate.command.stdout_regex is not a regular'),
    ({'command': {'argv': ['x'], 'rc': 256}}, r'health_gate.command.rc must be 0..255, got 256'),
    ({'tcp_ports': 1, 'retries': -1}, r'health_gate.retries must be 0.., got -1'),
    ({'tcp_ports': 1, 'delay': 'soon'}, r"health_gate.delay must be a number of seconds, got 'soon'"),
    ({'tcp_ports': 1, 'delay': 'nan'}, r"health_gate.delay must be a number of seconds, got nan"),
    ({'tcp_ports': 1, 'timeout': 0}, r'health_gate.timeout must be more than 0 seconds, got 0'),
    ({'tcp_ports': 1, 'host': ''}, r"health_gate.host must be a non-empty string"),
    ({'preset': 'mongodb_replica_set', 'max_lag_seconds': -1},
     r'health_gate.max_lag_seconds must be at least 0 seconds, got -1'),
    ({'preset': 'mongodb_replica_set', 'lag_exempt': 'db9'}, r'health_gate.lag_exempt must be a list of member'),
    ({'preset': 'cassandra', 'nodetool_argv': 'nodetool -h db1'}, r'health_gate.nodetool_argv must be a list'),
    ([9042], r'health_gate must be a mapping'),
])
def test_bad_descriptions_are_refused_naming_the_key(spec, message):
    with pytest.raises(hg.GateError, match=message):
        hg.validate_gate(spec)


def test_the_variable_name_prefixes_every_message():
    with pytest.raises(hg.GateError, match=r"^iotune_health_gate.http: unknown key 'urll' \(did you mean url\?\)"):
        hg.validate_gate({'http': {'urll': 'http://x'}}, where='iotune_health_gate')


# --- the verdicts ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize('preset, name, healthy, reason', [
    ('cassandra', 'nodetool_status_cassandra_healthy.txt', True, 'all 5 nodes UN (datacenters: dc1, dc2)'),
    ('cassandra', 'nodetool_status_cassandra_multidc.txt', False, '3 of 7 nodes not UN: 10.0.1.13 (dc1, DN'),
    ('scylla', 'nodetool_status_scylla_healthy.txt', True, 'all 3 nodes UN (datacenters: us-east-1)'),
    ('scylla', 'nodetool_status_scylla_excluded_joining.txt', False, '3 of 4 nodes not UN: 10.1.0.12'),
    ('mongodb_replica_set', 'rs_status_healthy.json', True, 'replica set rs0: PRIMARY db1.example.net:27017'),
    ('mongodb_replica_set', 'rs_status_lagging_secondary.json', False,
     'replica set rs0: secondary db3.example.net:27017 lags the primary by 45 s (at most 10 s)'),
    ('mongodb_replica_set', 'rs_status_no_primary.json', False, 'replica set rs0: no PRIMARY'),
    ('mongodb_replica_set', 'rs_status_recovering.json', False,
     'replica set rs0: member db3.example.net:27017 (RECOVERING, health 1)'),
    ('mongodb_replica_set', 'rs_status_psa_arbiter.json', True, 'replica set rs0: PRIMARY db1.example.net:27017'),
])
def test_every_preset_on_each_fixture(preset, name, healthy, reason):
    check = hg.validate_gate({'preset': preset})['checks'][0]
    verdict = hg.command_verdict(check, 0, fixture('health', name))
    assert verdict['healthy'] is healthy
    assert verdict['reason'].startswith(reason)
    assert verdict['check'] == check['name']


def test_preset_command_that_failed_is_unhealthy_with_its_error():
    check = hg.validate_gate({'preset': 'cassandra'})['checks'][0]
    verdict = hg.command_verdict(check, 1, '', "nodetool: Failed to connect to '127.0.0.1:7199'\n")
    assert verdict == {'check': 'nodetool status (every node UN)', 'healthy': False,
                       'reason': "exit status 1 (expected 0): nodetool: Failed to connect to '127.0.0.1:7199'"}


def test_unreadable_preset_output_is_a_failed_check_not_an_exception():
    check = hg.validate_gate({'preset': 'mongodb_replica_set'})['checks'][0]
    verdict = hg.command_verdict(check, 0, 'MongoServerError: no replset config has been received')
    assert not verdict['healthy'] and 'holds no document' in verdict['reason']
    check = hg.validate_gate({'preset': 'cassandra'})['checks'][0]
    verdict = hg.command_verdict(check, 0, 'UN  10.0.0.1\n')
    assert not verdict['healthy'] and 'node line' in verdict['reason']


def test_preset_lag_option_reaches_the_verdict():
    check = hg.validate_gate({'preset': 'mongodb_replica_set', 'max_lag_seconds': 60})['checks'][0]
    assert hg.command_verdict(check, 0, fixture('health', 'rs_status_lagging_secondary.json'))['healthy']


@pytest.mark.parametrize('rc, stdout, healthy, reason', [
    (0, 'state: ok\n', True, 'exit status 0'),
    (3, 'state: ok\n', True, 'exit status 3'),
    (1, 'state: ok\n', False, 'exit status 1 (expected 0 or 3): state: ok'),
    (0, 'state: degraded\n', False, "output does not contain 'ok'"),
    (0, 'ok but state: degraded\n', False, "output does not match '^state: ok$'"),
])
def test_command_verdict(rc, stdout, healthy, reason):
    check = hg.validate_gate({'command': {'argv': ['probe'], 'rc': [0, 3], 'stdout_contains': 'ok',
                                          'stdout_regex': '^state: ok$'}})['checks'][0]
    assert hg.command_verdict(check, rc, stdout) == {'check': 'command probe', 'healthy': healthy, 'reason': reason}


@pytest.mark.parametrize('status, body, healthy, reason', [
    (200, '{"status": "UP"}', True, 'status 200'),
    (204, '', True, 'status 204'),
    (503, '', False, 'status 503 (expected 200 or 204)'),
    (200, '{"status": "DOWN"}', False, "status 200, but the body does not contain 'UP'"),
    (None, 'Connection refused', False, 'no response: Connection refused'),
])
def test_http_verdict(status, body, healthy, reason):
    spec = {'http': {'url': 'https://db1:8443/health', 'status': [200, 204], 'body_contains': 'UP'}}
    check = hg.validate_gate(spec)['checks'][0]
    if status == 204:
        check = dict(check, body_contains=None)
    assert hg.http_verdict(check, status, body) == {'check': 'http https://db1:8443/health', 'healthy': healthy,
                                                    'reason': reason}


def test_tcp_verdict():
    check = hg.validate_gate({'tcp_ports': [9042], 'host': 'db1'})['checks'][0]
    assert hg.tcp_verdict(check, True)['reason'] == 'db1:9042 accepts connections'
    assert hg.tcp_verdict(check, False, 'Connection refused') == {
        'check': 'tcp port 9042', 'healthy': False, 'reason': 'db1:9042 refused or timed out: Connection refused'}


def test_gate_verdict_names_the_host_the_moment_and_each_failed_check():
    gate = hg.validate_gate({'preset': 'cassandra', 'host': 'db2'})
    nodetool_check, port = gate['checks']
    verdicts = [hg.command_verdict(nodetool_check, 0, fixture('health', 'nodetool_status_cassandra_healthy.txt')),
                hg.tcp_verdict(port, False, 'Connection refused')]
    found = hg.gate_verdict(verdicts, host='db2', when='after')
    assert found == {'healthy': False, 'failed': ['CQL port 9042'],
                     'reason': 'health gate failed on db2 after the change: CQL port 9042: db2:9042 refused or timed '
                               'out: Connection refused'}
    verdicts[1] = hg.tcp_verdict(port, True)
    passed = hg.gate_verdict(verdicts, host='db2', when='before')
    assert passed['healthy'] and passed['reason'].startswith('health gate passed on db2 before the change: nodetool')
    assert hg.gate_verdict([])['healthy'] is False
