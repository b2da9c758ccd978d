# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The snapshot of the host's original state as the audit's read (module_utils/audit.py, same call, no command), the
comparison (shown, never drift) and the metrics collector show it."""

from __future__ import annotations

import json
import os

from ansible_collections.iotune.storage.plugins.module_utils import audit as host_audit
from ansible_collections.iotune.storage.plugins.module_utils import drift
from ansible_collections.iotune.storage.plugins.module_utils import original_state as orig
from ansible_collections.iotune.storage.plugins.module_utils import textfile_metrics as metrics
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.audit import ARRAYS, RULES, tuned_host, tuning
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.test_textfile_metrics import (
    NOW,
    PLAN,
    names,
    parse,
    value,
)

SNAPSHOT = {'format': 1, 'collection': 'iotune.storage', 'version': '0.1.0', 'recorded_at': '2026-03-01T10:00:00Z',
            'kernel': '6.1.0', 'tuned_before': False,
            'devices': [{'identity': 'serial:a', 'queue': {'scheduler': 'none', 'read_ahead_kb': '128'}},
                        {'identity': 'serial:b', 'queue': {'read_ahead_kb': '128'}}],
            'created_later': [{'identities': ['md-name:data'], 'selector': 'md_name=data'}],
            'sysctl': {'vm.swappiness': '60', 'vm.dirty_ratio': '20'}, 'thp': {'enabled': 'always'},
            'files': {'/etc/sysctl.d/90-iotune-storage.conf': None},
            'fstrim_timer': {'enabled': 'disabled', 'active': 'inactive', 'error': None}}


def put(h, snapshot=None, text=None):
    path = os.path.join(h.root, orig.PATH.lstrip('/'))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text if text is not None else json.dumps(snapshot or SNAPSHOT))
    return path


def gather(h, runs=None):
    def run_command(argv):
        runs.append(argv)
        return 1, '', 'no command expected'
    return host_audit.gather(h.view(), ARRAYS, tuning(h), RULES, run_command=run_command if runs is not None else None)


def test_the_path_is_the_modules():
    assert host_audit.ORIGINAL_STATE == orig.PATH
    assert host_audit.ORIGINAL_STATE_ADDITIONS == orig.additions_path(orig.PATH)


def test_the_records_of_values_planned_later_are_counted(fake_host):
    h = tuned_host(fake_host)
    put(h)
    assert 'additions' not in gather(h)['original_state']['counts']           # none yet
    h.write(orig.additions_path(orig.PATH).lstrip('/'), json.dumps({'format': 1, 'additions': [{}, {}]}))
    assert gather(h)['original_state']['counts']['additions'] == 2
    h.write(orig.additions_path(orig.PATH).lstrip('/'), '{torn')
    assert 'additions' not in gather(h)['original_state']['counts']           # unreadable: not counted


def test_the_audit_reads_the_snapshot_in_its_call_without_a_command(fake_host):
    h = tuned_host(fake_host)
    put(h)
    runs = []
    held = gather(h, runs)['original_state']
    assert runs == []
    assert held == {'path': orig.PATH, 'recorded': True, 'error': None, 'recorded_at': '2026-03-01T10:00:00Z',
                    'timestamp': 1772359200, 'version': '0.1.0',
                    'counts': {'devices': 2, 'queue': 3, 'created_later': 1, 'sysctl': 2, 'thp': 1, 'files': 1,
                               'fstrim_timer': 1}}


def test_a_key_a_later_release_adds_is_counted(fake_host):
    h = tuned_host(fake_host)
    put(h, dict(SNAPSHOT, cpu={'governor': 'powersave', 'clocksource': 'xen'}))
    assert gather(h)['original_state']['counts']['cpu'] == 2


def test_no_snapshot_and_an_unreadable_one(fake_host):
    h = tuned_host(fake_host)
    assert gather(h)['original_state'] == {'path': orig.PATH, 'recorded': False, 'error': None, 'recorded_at': None,
                                           'timestamp': None, 'version': None, 'counts': {}}
    put(h, text='{"format": 1, ')
    held = gather(h)['original_state']
    assert held['recorded'] is False and 'is not JSON' in held['error']


def test_shown_never_drift(fake_host):
    h = tuned_host(fake_host)
    before = drift.compare(gather(h), PLAN)
    put(h)
    after = drift.compare(gather(h), PLAN)
    assert after['items'] == before['items'] and after['verdict'] == before['verdict']
    assert after['original_state']['recorded'] is True and before['original_state']['recorded'] is False
    put(h, text='garbage')
    broken = drift.compare(gather(h), PLAN)
    # negative control of the note: an unreadable file is named, still not an item
    assert broken['items'] == before['items'] and any(n.startswith('original state: ') for n in broken['notes'])


def test_the_metrics(fake_host):
    h = tuned_host(fake_host)
    facts = gather(h)
    samples = parse(metrics.render(drift.compare(facts, PLAN), facts, NOW, 0.5))
    assert value(samples, 'original_state_recorded') == 0
    assert 'iotune_storage_original_state_timestamp_seconds' not in names(samples)
    put(h)
    facts = gather(h)
    samples = parse(metrics.render(drift.compare(facts, PLAN), facts, NOW, 0.5))
    assert value(samples, 'original_state_recorded') == 1
    assert value(samples, 'original_state_timestamp_seconds') == 1772359200
    # facts of an earlier module (no original_state): no series at all
    facts.pop('original_state')
    assert 'iotune_storage_original_state_recorded' not in names(
        parse(metrics.render(drift.compare(facts, PLAN), facts, NOW, 0.5)))
