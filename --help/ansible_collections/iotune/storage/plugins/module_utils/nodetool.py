# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""``nodetool status`` of Apache Cassandra and ScyllaDB: its nodes and the health gate's verdict (issue 28).

The output, as documented for Cassandra (https://docs.datastax.com/en/cassandra-oss/3.x/cassandra/tools/
toolsStatus.html) and ScyllaDB (https://docs.scylladb.com/manual/branch-2026.1/operating-scylla/nodetool-commands/
status.html): one block per datacenter ("Datacenter: NAME", a rule, the legend, the column header), then one line
per node whose first two letters are its status (U up, D down; ScyllaDB also X excluded; "?" is read as unknown,
for a node the local one cannot tell about) and its state
(N normal, L leaving, J joining, M moving; DataStax also documents S stopped). Load is a number and a unit
("256.12 GiB") or "?" for a node whose load is not known.

A node that shows UN is not serving CQL yet (scylla-ansible-roles #26, #100, PR #192): the presets of
module_utils/health_gate.py pair this verdict with the CQL port. Pure functions over text; standard library only.
"""

from __future__ import annotations

import re

STATUS_LETTERS = {'U': 'up', 'D': 'down', 'X': 'excluded', '?': 'unknown'}
STATE_LETTERS = {'N': 'normal', 'L': 'leaving', 'J': 'joining', 'M': 'moving', 'S': 'stopped', '?': 'unknown'}
HEALTHY_CODE = 'UN'
# the columns after the status code, by their header names (the header of a node line's block says which are there)
HEADER_COLUMNS = (('Owns (effective)', 'owns'), ('Host ID', 'host_id'), ('Address', 'address'), ('Load', 'load'),
                  ('Tokens', 'tokens'), ('Token', 'token'), ('Owns', 'owns'), ('Rack', 'rack'))
DEFAULT_COLUMNS = ('address', 'load', 'tokens', 'owns', 'host_id', 'rack')
LOAD_UNITS = frozenset(('bytes', 'B', 'KB', 'KiB', 'MB', 'MiB', 'GB', 'GiB', 'TB', 'TiB', 'PB', 'PiB'))
NODE_RE = re.compile(r'^([UDX?])([NLJMS?])\s+(\S.*)$')
DATACENTER_RE = re.compile(r'^Datacenter:\s*(.*?)\s*$')
HEADER_RE = re.compile(r'^--\s+Address\b')


class NodetoolError(ValueError):
    pass


def header_columns(line):
    """The column keys of a ``--  Address  Load ...`` header line, in order (names of HEADER_COLUMNS)."""
    rest = line[2:]
    found = []
    for name, key in HEADER_COLUMNS:
        for match in re.finditer(r'(?<!\S)%s(?!\S)' % re.escape(name), rest):
            if not any(start <= match.start() < end for start, end, dummy in found):
                found.append((match.start(), match.end(), key))
    return tuple(key for dummy, dummy2, key in sorted(found))


def _node(line, columns, datacenter):
    """One node line read against the block's ``columns``; NodetoolError when its fields do not fit them."""
    match = NODE_RE.match(line)
    words = match.group(3).split()
    node = {'status': match.group(1), 'state': match.group(2), 'code': match.group(1) + match.group(2),
            'datacenter': datacenter}
    for index, key in enumerate(columns):
        if not words:
            raise NodetoolError('nodetool status: node line %r has no %s' % (line.strip(), key))
        if key == 'rack' and index == len(columns) - 1:
            node['rack'] = ' '.join(words)
            words = []
            continue
        value = words.pop(0)
        if key == 'load' and words and words[0] in LOAD_UNITS:
            value = '%s %s' % (value, words.pop(0))
        node[key] = value
    if words:
        raise NodetoolError('nodetool status: node line %r has more fields than its header' % line.strip())
    return node


def parse_nodetool_status(text):
    """The nodes of a ``nodetool status`` output, in order: {code, status, state, datacenter, address, load,
    tokens, owns, host_id, rack} (the columns its header names; "?" kept as it is printed). Lines that are not
    a node, a datacenter or a header (the legend, notes, warnings) are left out. NodetoolError for a node line
    that does not fit its header."""
    if not isinstance(text, str):
        raise NodetoolError('nodetool status output must be text, got %s' % type(text).__name__)
    nodes = []
    datacenter = None
    columns = DEFAULT_COLUMNS
    for raw in text.splitlines():
        line = raw.strip()
        dc_match = DATACENTER_RE.match(line)
        if dc_match:
            datacenter = dc_match.group(1)
            columns = DEFAULT_COLUMNS
        elif HEADER_RE.match(line):
            columns = header_columns(line) or DEFAULT_COLUMNS
        elif NODE_RE.match(line) and not line.startswith('|/'):
            nodes.append(_node(line, columns, datacenter))
    return nodes


def describe(node):
    """'10.0.1.12 (dc2, DN: down, normal)': a node as the verdict names it."""
    return '%s (%s, %s: %s, %s)' % (node.get('address'), node.get('datacenter') or 'no datacenter', node['code'],
                                    STATUS_LETTERS.get(node['status'], node['status']),
                                    STATE_LETTERS.get(node['state'], node['state']))


def nodetool_verdict(nodes):
    """{'healthy', 'reason', 'not_up_normal'}: healthy only when there is a node and every node is UN;
    ``not_up_normal`` names the others (describe())."""
    if not nodes:
        return {'healthy': False, 'reason': 'nodetool status lists no node', 'not_up_normal': []}
    others = [describe(node) for node in nodes if node['code'] != HEALTHY_CODE]
    if others:
        return {'healthy': False, 'not_up_normal': others,
                'reason': '%d of %d nodes not UN: %s' % (len(others), len(nodes), '; '.join(others))}
    datacenters = sorted(set(str(node.get('datacenter')) for node in nodes))
    return {'healthy': True, 'not_up_normal': [],
            'reason': 'all %d nodes UN (datacenters: %s)' % (len(nodes), ', '.join(datacenters))}
