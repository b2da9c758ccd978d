# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""plugin_utils/sweep.py: readahead sweep rows, recommendation and CSV (moved from test_fio_report.py)."""

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.fio_report import FioReportError
from ansible_collections.iotune.storage.plugins.plugin_utils import sweep


def point(ra, iops, amp, noisy=False):
    return {'read_ahead': {'used': ra}, 'iops': iops, 'bw_bytes': int(iops * 4096), 'device_bw_bytes': int(iops * 4096 * amp),
            'read_amplification': amp, 'p99_us': 100.0, 'avg_request_kb': 4.0 * amp, 'runtime_ms': 1000,
            'noise': {'iops': 0.3 if noisy else 0.05}, 'noisy': noisy}


def test_sweep_rows_sorted_and_converted():
    rows = sweep.sweep_rows([point(128, 500, 24.0), point(4, 5000, 1.0)])
    assert [r['read_ahead_kb'] for r in rows] == [4, 128]
    assert rows[0]['device_mb_s'] == round(5000 * 4096 / 1e6, 3)
    assert rows[1]['noise'] == 0.05
    with pytest.raises(FioReportError):
        sweep.sweep_rows([{'iops': 1}])


def test_recommendation_smallest_within_tolerance():
    rows = sweep.sweep_rows([point(4, 950, 1.0), point(8, 1000, 1.1), point(16, 990, 3.0), point(128, 300, 24.0)])
    rec = sweep.recommend(rows, 0.1)
    assert rec['best_read_ahead_kb'] == 8 and rec['best_iops'] == 1000
    assert rec['read_ahead_kb'] == 4            # 950 >= 900: within 10 %, and smaller
    assert sweep.recommend(rows, 0.04)['read_ahead_kb'] == 8   # 950 < 960: 4 KiB is out
    assert rec['noisy'] is False


def test_recommendation_for_sequential_prefers_large_and_flags_noise():
    rows = sweep.sweep_rows([point(4, 100, 1.0), point(128, 700, 1.0), point(1024, 1000, 1.0, noisy=True),
                             point(4096, 1010, 1.0)])
    rec = sweep.recommend(rows, 0.1)
    assert rec['read_ahead_kb'] == 1024 and rec['noisy'] is True
    with pytest.raises(FioReportError):
        sweep.recommend([], 0.1)


def test_sweep_csv():
    text = sweep.sweep_csv(sweep.sweep_rows([point(8, 1000, 1.5)]))
    header, line = text.strip().split('\n')
    assert header.split(',') == list(sweep.SWEEP_COLUMNS)
    assert line.split(',')[0] == '8' and line.split(',')[-1] == 'false'
