# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""roles/readahead_sweep/files/sweep_plot.py: draws the PNG, or says clearly that matplotlib is missing."""

from __future__ import annotations

import importlib.util
import json
import os
import sys

import pytest

SCRIPT = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'roles', 'readahead_sweep', 'files',
                      'sweep_plot.py')

SWEEP = {
    'host': 'db1', 'directory': '/data', 'device': 'md0', 'fio_version': 'fio-3.33', 'repeat': 3,
    'job': {'ioengine': 'mmap', 'rw': 'randread', 'bs': '4k'},
    'rows': [
        {'read_ahead_kb': ra, 'runtime_ms': 100.0 + ra, 'iops': 1000.0 - ra, 'read_amplification': 1.0 + ra / 4.0,
         'device_mb_s': 10.0 + ra, 'noisy': ra == 64}
        for ra in (0, 16, 64, 256)
    ],
    'recommendation': {'read_ahead_kb': 16, 'tolerance': 0.1},
}


def load_script():
    spec = importlib.util.spec_from_file_location('sweep_plot', SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_sweep(tmp_path):
    path = tmp_path / 'sweep.json'
    path.write_text(json.dumps(SWEEP))
    return path


def test_missing_matplotlib_is_exit_3_with_a_message(tmp_path, monkeypatch, capsys):
    # a None entry in sys.modules makes "import matplotlib" raise ImportError
    for name in [m for m in sys.modules if m == 'matplotlib' or m.startswith('matplotlib.')]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, 'matplotlib', None)
    out = tmp_path / 'sweep.png'
    rc = load_script().main(['sweep_plot.py', str(write_sweep(tmp_path)), str(out)])
    assert rc == 3
    assert 'matplotlib is not installed' in capsys.readouterr().err
    assert not out.exists()


def test_plot_is_drawn_with_matplotlib(tmp_path):
    pytest.importorskip('matplotlib')
    out = tmp_path / 'sweep.png'
    rc = load_script().main(['sweep_plot.py', str(write_sweep(tmp_path)), str(out)])
    assert rc == 0
    assert out.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'


def test_usage_error_is_exit_2(capsys):
    assert load_script().main(['sweep_plot.py']) == 2
    assert 'usage' in capsys.readouterr().err
