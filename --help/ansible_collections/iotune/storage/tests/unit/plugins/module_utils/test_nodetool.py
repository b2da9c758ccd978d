# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""nodetool status parsing and its verdict (issue 28). Fixtures: fixtures/health/nodetool_status_*.txt, written in the
formats of Cassandra's (https://docs.datastax.com/en/cassandra-oss/3.x/cassandra/tools/toolsStatus.html) and
ScyllaDB's (https://docs.scylladb.com/manual/branch-2026.1/operating-scylla/nodetool-commands/status.html) docs;
fixtures/health/README.md says what each holds."""

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import nodetool
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import fixture


def codes(nodes):
    return [(n['address'], n['code']) for n in nodes]


def test_multi_dc_cassandra_every_column():
    nodes = nodetool.parse_nodetool_status(fixture('health', 'nodetool_status_cassandra_multidc.txt'))
    assert codes(nodes) == [('10.0.1.11', 'UN'), ('10.0.1.12', 'UN'), ('10.0.1.13', 'DN'), ('10.0.1.14', 'UL'),
                            ('10.0.2.21', 'UN'), ('10.0.2.22', 'UJ'), ('10.0.2.23', 'UN')]
    assert [n['datacenter'] for n in nodes] == ['dc1'] * 4 + ['dc2'] * 3
    first = nodes[0]
    assert first == {'status': 'U', 'state': 'N', 'code': 'UN', 'datacenter': 'dc1', 'address': '10.0.1.11',
                     'load': '212.48 GiB', 'tokens': '16', 'owns': '33.6%',
                     'host_id': '5f0e8a4c-2d7b-4c1e-9a51-0c7d3e2b6a11', 'rack': 'rack1'}
    joining = nodes[5]
    assert joining['owns'] == '?' and joining['load'] == '1.37 GiB' and joining['rack'] == 'rack2'
    assert joining['host_id'] == 'd4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f22'


def test_multi_dc_verdict_names_every_node_not_up_normal():
    verdict = nodetool.nodetool_verdict(
        nodetool.parse_nodetool_status(fixture('health', 'nodetool_status_cassandra_multidc.txt')))
    assert verdict['healthy'] is False
    assert verdict['not_up_normal'] == ['10.0.1.13 (dc1, DN: down, normal)', '10.0.1.14 (dc1, UL: up, leaving)',
                                        '10.0.2.22 (dc2, UJ: up, joining)']
    assert verdict['reason'].startswith('3 of 7 nodes not UN: 10.0.1.13 (dc1, DN')


@pytest.mark.parametrize('name, count, datacenters', [
    ('nodetool_status_cassandra_healthy.txt', 5, 'dc1, dc2'),
    ('nodetool_status_scylla_healthy.txt', 3, 'us-east-1'),
])
def test_healthy_outputs(name, count, datacenters):
    verdict = nodetool.nodetool_verdict(nodetool.parse_nodetool_status(fixture('health', name)))
    assert verdict == {'healthy': True, 'not_up_normal': [],
                       'reason': 'all %d nodes UN (datacenters: %s)' % (count, datacenters)}


def test_scylla_without_keyspace_reads_owns_and_loads_in_tb():
    nodes = nodetool.parse_nodetool_status(fixture('health', 'nodetool_status_scylla_healthy.txt'))
    assert [(n['load'], n['tokens'], n['owns'], n['rack']) for n in nodes] == [
        ('1.02 TB', '256', '?', '1a'), ('998.4 GB', '256', '?', '1b'), ('1.01 TB', '256', '?', '1c')]


def test_scylla_excluded_and_joining():
    nodes = nodetool.parse_nodetool_status(fixture('health', 'nodetool_status_scylla_excluded_joining.txt'))
    assert codes(nodes) == [('10.1.0.11', 'UN'), ('10.1.0.12', 'UJ'), ('10.1.0.13', 'DN'), ('10.1.0.14', 'XN')]
    verdict = nodetool.nodetool_verdict(nodes)
    assert not verdict['healthy']
    assert verdict['not_up_normal'][-1] == '10.1.0.14 (datacenter1, XN: excluded, normal)'


def test_header_columns_in_their_printed_order():
    assert nodetool.header_columns('--  Address  Load  Tokens  Owns (effective)  Host ID  Rack') == (
        'address', 'load', 'tokens', 'owns', 'host_id', 'rack')
    assert nodetool.header_columns('--  Address  Load  Owns  Host ID  Token  Rack') == (
        'address', 'load', 'owns', 'host_id', 'token', 'rack')


def test_unknown_load_and_a_rack_with_a_space():
    text = ('Datacenter: dc1\n--  Address  Load  Tokens  Owns  Host ID  Rack\n'
            'DN  10.0.0.9  ?  16  ?  0b9e7d6c-5a4f-4e3d-8c2b-1a0f9e8d7c13  rack 9\n')
    node = nodetool.parse_nodetool_status(text)[0]
    assert (node['load'], node['tokens'], node['owns'], node['rack']) == ('?', '16', '?', 'rack 9')


def test_output_without_a_node_is_unhealthy():
    text = "nodetool: Failed to connect to '127.0.0.1:7199' - ConnectException: 'Connection refused'.\n"
    assert nodetool.parse_nodetool_status(text) == []
    assert nodetool.nodetool_verdict([]) == {'healthy': False, 'reason': 'nodetool status lists no node',
                                             'not_up_normal': []}


@pytest.mark.parametrize('line', [
    'UN  10.0.0.1',                                                         # nothing after the address
    'UN  10.0.0.1  1 GiB  16  10%  host-id  rack1  extra  words  here',     # more than the header has (no rack last)
])
def test_a_node_line_that_does_not_fit_its_header_is_refused(line):
    header = '--  Address  Load  Tokens  Owns  Host ID  Rack  Token' if 'extra' in line else ''
    with pytest.raises(nodetool.NodetoolError, match='node line'):
        nodetool.parse_nodetool_status('%s\n%s\n' % (header, line))


def test_not_text_is_refused():
    with pytest.raises(nodetool.NodetoolError, match='must be text'):
        nodetool.parse_nodetool_status(None)
