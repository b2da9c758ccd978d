# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The io_observe module through the shared harness, on the fake host of test_io_observe_utils, with
time.sleep and time.monotonic patched: each sleep moves the clock and writes the next /proc texts."""

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.modules import io_observe
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.module_run import on_fake_host, run_module
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.test_io_observe_utils import (
    DISKSTATS_0,
    DISKSTATS_1,
    PROC_IO,
    VMSTATS,
    Clock,
    lab_host,
)


@pytest.fixture
def host(fake_host):
    return lab_host(fake_host)


@pytest.fixture
def observed(host, monkeypatch):
    """The module on the fake host: the window's first sample reads DISKSTATS_0, every later one DISKSTATS_1."""
    host.write('proc/diskstats', DISKSTATS_0)
    host.write('proc/vmstat', VMSTATS[0])
    clock = Clock(host, [(DISKSTATS_1, VMSTATS[1])] * 100)
    monkeypatch.setattr(io_observe.time, 'sleep', clock.sleep)
    monkeypatch.setattr(io_observe.time, 'monotonic', clock.monotonic)
    on_fake_host(monkeypatch, io_observe, host, {})
    return clock


def test_a_window_of_ten_seconds(observed, capsys):
    code, out = run_module(io_observe, {'seconds': 10, 'interval': 2}, capsys)
    assert code == 0 and out['changed'] is False
    assert observed.slept == [2.0] * 5 and out['samples'] == 6 and out['seconds'] == 10.0
    assert sorted(out['devices']) == ['md127', 'vda'] and out['devices']['md127']['avg_read_kib'] == 512.0
    assert out['host']['device_read_bytes_per_major_fault'] == 524343.0 and out['verdict'] == 'measured'
    # all the reads in the first interval, none after: the spread shows it
    assert out['spread']['major_faults_per_s'] == {'min': 0.0, 'max': 1500.0}
    assert out['processes'] is None and out['unit'] is None
    assert set(out['cost']) == {'cpu_seconds', 'share_of_one_core'}


def test_check_mode_runs_the_same_window(observed, host, capsys):
    host.write('sys/fs/cgroup/system.slice/cassandra.service/cgroup.procs', '4711\n')
    host.write('proc/4711/io', PROC_IO.format(0))
    code, out = run_module(io_observe, {'seconds': 10, 'interval': 10, 'unit': 'cassandra',
                                        'devices': ['/dev/md127', 'vdb']}, capsys, check_mode=True)
    assert code == 0 and out['changed'] is False and out['samples'] == 2
    assert sorted(out['devices']) == ['md127', 'vdb'] and out['host']['devices'] == ['md127']
    assert out['unit'] == {'name': 'cassandra.service', 'cgroup': '/sys/fs/cgroup/system.slice/cassandra.service'}
    assert out['processes']['pids']['4711']['read_bytes'] == 0
    assert host.calls == []      # the unit's cgroup was at the usual place: no systemctl


@pytest.mark.parametrize('args, message', [
    ({'seconds': 10, 'interval': 11}, 'interval must be between 1 and seconds (10), got 11'),
    ({'interval': 0}, 'interval must be between 1 and seconds (60), got 0'),
    ({'seconds': 3601}, 'seconds must be between 1 and 3600, got 3601'),
    ({'seconds': 5, 'devices': ['nvme0n1']}, "devices: 'nvme0n1' is no block device of /proc/diskstats"),
])
def test_refusals(observed, capsys, args, message):
    code, out = run_module(io_observe, args, capsys)
    assert code == 1 and out['failed'] is True and out['msg'] == message
    assert observed.slept == []


def test_a_unit_that_is_not_running(observed, host, capsys):
    host.on(['systemctl', 'show', '-p', 'ControlGroup', '--value', 'mongod.service'], out='\n')
    code, out = run_module(io_observe, {'seconds': 5, 'unit': 'mongod'}, capsys)
    assert code == 1 and 'unit mongod.service: no cgroup' in out['msg']
