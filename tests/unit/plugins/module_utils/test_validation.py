# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/validation.py: the chunk and readahead rules shared by the modules and the plan."""

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import mdadm
from ansible_collections.iotune.storage.plugins.module_utils import validation as v
from ansible_collections.iotune.storage.plugins.plugin_utils import plan


@pytest.mark.parametrize('value', [4, 8, 64, 256, 512, 1 << 20])
def test_valid_chunks(value):
    assert v.valid_chunk_kb(value)


@pytest.mark.parametrize('value', [None, 0, 1, 2, 3, 6, 96, 100, 384, -4, True, '64', 64.0])
def test_invalid_chunks(value):
    assert not v.valid_chunk_kb(value)


@pytest.mark.parametrize('value, ok', [(0, True), (16, True), (v.READ_AHEAD_MAX_KB, True),
                                       (v.READ_AHEAD_MAX_KB + 1, False), (-1, False), (True, False),
                                       ('16', False), (None, False)])
def test_read_ahead_range(value, ok):
    assert v.valid_read_ahead_kb(value) is ok


@pytest.mark.parametrize('chunk', [96, 2, 384])
def test_plan_and_mdadm_refuse_the_same_chunks(chunk):
    with pytest.raises(ValueError):
        plan.chunk_kb(chunk, 'chunk_kb')
    assert any('chunk_kb' in e for e in mdadm.validate_params('data', 0, chunk, '1.2', 2))


def test_plan_refuses_a_readahead_the_module_would_refuse():
    with pytest.raises(plan.PlanError) as e:
        plan.validate_profile('x', {'raid_chunk_kb': 64, 'array': {'read_ahead_kb': 2097152},
                                    'members': {'read_ahead_kb': 8, 'scheduler_by_class': {}},
                                    'mount_options': [], 'fio_verify_jobs': [], 'fio_verify_thresholds': {}},
                              {})
    assert 'array.read_ahead_kb must be at most 1048576 KiB' in str(e.value)
