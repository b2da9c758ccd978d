# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/drift.py: the one comparison. The controller's audit (plugin_utils/audit.py) and the host's metrics
collector run it on the same fake host and must agree."""

from __future__ import annotations

import ast
import copy
import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import audit as host_audit
from ansible_collections.iotune.storage.plugins.module_utils import drift
from ansible_collections.iotune.storage.plugins.plugin_utils import audit as controller
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.audit import (
    ARRAYS,
    DRIFT_PLAN,
    RULES,
    SYNTHETIC_PLAN,
    synthetic_facts,
    synthetic_window,
    tuned_host,
    tuning,
)

PLAN = DRIFT_PLAN


def drifted(h):
    """readahead raised by hand on the array, a member out of the array (degraded), the mount gone."""
    h.write('sys/block/md127/queue/read_ahead_kb', '4096\n')
    h.write('sys/block/md127/md/raid_disks', '3\n')
    h.mountinfo = [line for line in h.mountinfo if '/var/lib/cassandra' not in line]
    h._write_mountinfo()
    return h


@pytest.mark.parametrize('change', [lambda h: h, drifted,
                                    lambda h: os.unlink(os.path.join(h.root, RULES.lstrip('/'))) or h])
def test_the_audit_and_the_collector_agree_on_the_same_fake_host(fake_host, change):
    h = change(tuned_host(fake_host))
    facts = host_audit.gather(h.view(), ARRAYS, tuning(h), RULES)
    on_host = drift.compare(copy.deepcopy(facts), PLAN, 'db1')
    on_controller = controller.compare(copy.deepcopy(facts), PLAN, 'db1')
    assert on_host == on_controller
    assert [drift.drift_kind(i) for i in on_host['items']] == [controller.drift_kind(i) for i in on_controller['items']]


def test_the_drifted_host_names_the_three_deviations(fake_host):
    h = drifted(tuned_host(fake_host))
    result = drift.compare(host_audit.gather(h.view(), ARRAYS, tuning(h), RULES), PLAN, 'db1')
    found = [(i['area'], i['message']) for i in result['items']]
    assert ('readahead', 'read_ahead_kb live 4096, profile 8') in found
    assert ('array', '/dev/md/data is degraded (2 of 3 members)') in found
    assert ('mount', 'nothing is mounted at /var/lib/cassandra') in found
    assert result['verdict'] == 'drift' and result['observed'] is None


@pytest.mark.parametrize('index', [1, 7, 11, 13, 17, 19])
def test_the_audit_adds_only_its_observe_window(index):
    """The controller's result is drift's plus the window's items and notes, after them."""
    facts = synthetic_facts(index)
    on_host = drift.compare(copy.deepcopy(facts), SYNTHETIC_PLAN, 'db')
    on_controller = controller.compare(copy.deepcopy(facts), SYNTHETIC_PLAN, 'db', observed=synthetic_window(index))
    assert on_controller['items'][:len(on_host['items'])] == on_host['items']
    assert on_controller['notes'][:len(on_host['notes'])] == on_host['notes']
    assert on_controller['arrays'] == on_host['arrays'] and on_controller['devices'] == on_host['devices']
    assert on_controller['observed'] is not None


def test_the_controller_keeps_the_names_it_had():
    for name in ('array_state', 'configured_readahead', 'normalise', 'drift_kind', 'PLACEHOLDER', 'ATTR_AREA',
                 'FACTS_SCHEMA_VERSIONS', '_item', '_arrays', '_tuning', '_kernel', '_unresolved', '_HOST_SPECIFIC'):
        assert getattr(controller, name) is getattr(drift, name), name


def test_a_facts_schema_the_comparison_does_not_read_is_refused():
    with pytest.raises(ValueError, match='schema version 2'):
        drift.compare({'schema_version': 2}, PLAN)


def test_drift_imports_neither_ansible_nor_plugin_utils():
    """It runs on the managed host inside the collector program (no ansible there)."""
    path = drift.__file__
    with open(path) as f:
        tree = ast.parse(f.read())
    for node in ast.walk(tree):
        names = [node.module] if isinstance(node, ast.ImportFrom) else [
            a.name for a in node.names] if isinstance(node, ast.Import) else []
        for name in names:
            assert not name.startswith('ansible.'), name
            assert 'plugin_utils' not in name, name


def test_a_degraded_array_counts_its_working_members_only():
    """md keeps a faulty member listed: the message counts the members the array runs with (it said 2 of 2)."""
    facts = {'kname': 'md127', 'md': {'array_state': 'clean', 'raid_disks': 2},
             'md_devices': [{'name': 'vdb', 'state': 'in_sync'}, {'name': 'vdc', 'state': 'faulty'}]}
    assert drift.array_state(facts) == 'degraded'
    result = drift.compare({'schema_version': 1, 'arrays': [dict(facts, name='data')]},
                           {'raid0_arrays': [{'name': 'data', 'chunk_kb': 256}]})
    assert ('array', '/dev/md/data is degraded (1 of 2 members)') in [(i['area'], i['message']) for i in result['items']]
