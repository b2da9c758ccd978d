# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The restart_decision and running_restarts filters: what the tune role's restart tasks read."""

from __future__ import annotations

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.restart_decision import restart_decision
from ansible_collections.iotune.storage.plugins.filter.running_restarts import running_restarts

POLICY = {'services': [{'unit': 'standin', 'kind': 'mongodb', 'drain': ['standin-drain']}]}
THP = {'drift': ['THP enabled: madvise, wanted always']}


def test_a_thp_change_restarts_mongodb_after_its_drain():
    found = restart_decision(POLICY, kernel_before=THP)
    assert found['restarts'] == [{'unit': 'standin.service', 'drain': ['standin-drain']}]
    assert found['pending'] == [] and found['restart_needed']
    assert found['lines'][0].startswith('standin.service: restarts (drain, restart, gate): thp'), found['lines']
    assert restart_decision(POLICY, kernel_before=THP, check_mode=True)['lines'][0].startswith(
        'standin.service: would restart')


def test_restart_never_lists_it_as_pending():
    found = restart_decision(dict(POLICY, restart='never'), kernel_before=THP)
    assert found['restarts'] == [] and found['pending'] == ['standin.service']
    # what the pending_restarts module records: the unit and a line per change with why it needs the restart
    assert found['pending_entries'] == [{'unit': 'standin.service', 'reasons': [
        'thp (THP enabled: madvise, wanted always): MongoDB reads THP when mongod starts']}]
    assert restart_decision(POLICY, kernel_before=THP)['pending_entries'] == []


def test_a_readahead_change_restarts_nothing():
    block = {'changed': True, 'devices': {'md127': {'before': {'read_ahead_kb': 128}, 'after': {'read_ahead_kb': 8}}}}
    found = restart_decision(POLICY, block_tuning=block, kernel_before={'drift': []})
    assert found['restarts'] == [] and not found['restart_needed']
    assert found['lines'] == ['no restart for: readahead (md127 read_ahead_kb 128 -> 8)']


def test_the_policy_alone_is_validated_before_any_change():
    assert restart_decision(POLICY)['restarts'] == []       # the role's check before the stages
    with pytest.raises(AnsibleFilterError, match=r"restart_decision: restart_policy.services\[0\]: unknown key 'unti'"):
        restart_decision({'services': [{'unti': 'cassandra'}]})


def test_running_restarts():
    decision = restart_decision(POLICY, kernel_before=THP)
    assert decision['active_argv'] == ['systemctl', 'is-active', 'standin.service']
    restarts = decision['restarts']
    assert running_restarts(decision, {'stdout_lines': ['active']}) == restarts
    assert running_restarts(decision, {'stdout_lines': ['active']}, want='drains') == restarts
    assert running_restarts(decision, {'stdout_lines': ['failed']}) == []
    lines = running_restarts(decision, {'stdout_lines': ['failed']}, want='lines')
    assert lines[:-1] == decision['lines'] and lines[-1].startswith('standin.service: not running (failed)'), lines
    assert running_restarts(decision, {'skipped': True}) == []
    with pytest.raises(AnsibleFilterError):
        running_restarts('x')
    with pytest.raises(AnsibleFilterError, match='want must be'):
        running_restarts(decision, None, want='all')
