# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""process_group.run with real processes: a program that dies leaves no worker behind, a hang is ended."""

from __future__ import annotations

import os
import signal
import time

from ansible_collections.iotune.storage.plugins.module_utils import process_group


def alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().split(') ', 1)[1][0] not in 'ZX'
    except OSError:
        return False


def test_success_returns_the_output():
    res = process_group.run(['sh', '-c', 'echo out; echo err >&2'], timeout=30)
    assert (res.rc, res.out, res.err, res.timed_out, res.ended, res.signal) == (0, 'out\n', 'err\n', False, [], None)


def test_a_program_killed_by_a_signal_has_its_worker_ended(tmp_path):
    # like fio's main process aborting (double free) while its worker still runs: the worker holds no pipe
    pidfile = tmp_path / 'worker.pid'
    script = 'sleep 300 >/dev/null 2>&1 </dev/null & echo $! > %s; echo boom >&2; kill -ABRT $$' % pidfile
    started = time.monotonic()
    res = process_group.run(['sh', '-c', script], timeout=60, grace=2)
    assert res.rc == -6 and res.signal_name() == 'SIGABRT' and res.err == 'boom\n'
    worker = int(pidfile.read_text())
    assert res.ended == [worker] and not res.timed_out
    deadline = time.monotonic() + 5
    while alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(worker)
    assert time.monotonic() - started < 30


def test_a_worker_holding_the_pipes_does_not_hide_how_the_program_ended(tmp_path):
    # fio's workers inherit its stdout: the parent's own exit status is reported at once, the worker ended
    pidfile = tmp_path / 'worker.pid'
    started = time.monotonic()
    res = process_group.run(['sh', '-c', 'sleep 300 & echo $! > %s; echo out; exit 3' % pidfile], timeout=60, grace=2)
    worker = int(pidfile.read_text())
    assert (res.rc, res.out, res.timed_out) == (3, 'out\n', False) and res.ended == [worker]
    assert time.monotonic() - started < 20
    deadline = time.monotonic() + 5
    while alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(worker)


def test_a_worker_left_behind_by_a_successful_run_is_ended(tmp_path):
    pidfile = tmp_path / 'worker.pid'
    res = process_group.run(['sh', '-c', 'sleep 300 >/dev/null 2>&1 & echo $! > %s' % pidfile], timeout=60, grace=2)
    worker = int(pidfile.read_text())
    assert res.rc == 0 and res.ended == [worker]
    deadline = time.monotonic() + 5
    while alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(worker)


def test_a_hung_program_is_ended_at_the_time_limit():
    started = time.monotonic()
    res = process_group.run(['sh', '-c', 'trap "" TERM; sleep 300'], timeout=1, grace=1)
    assert res.timed_out is True and res.rc == -9          # TERM ignored: KILL after the grace
    assert time.monotonic() - started < 10


def test_a_program_that_cannot_be_reaped_is_reported_without_blocking(monkeypatch):
    # a process stuck in the kernel (after an oops) does not die from SIGKILL: no wait may block for ever
    groups = set()
    monkeypatch.setattr(process_group, '_kill_group', lambda pgid, sig: groups.add(pgid))
    started = time.monotonic()
    res = process_group.run(['sleep', '30'], timeout=1, grace=1)
    assert res.timed_out is True and res.rc is None and res.signal is None
    assert time.monotonic() - started < 10
    for pgid in groups:
        os.killpg(pgid, signal.SIGKILL)


def test_group_members_reads_the_process_group(tmp_path):
    proc = tmp_path / 'proc'
    for pid, pgrp, state in ((10, 10, 'S'), (11, 10, 'D'), (12, 99, 'R'), (13, 10, 'Z')):
        (proc / str(pid)).mkdir(parents=True)
        (proc / str(pid) / 'stat').write_text('%d (fio (w) 1) %s 1 %d %d 0 -1\n' % (pid, state, pgrp, pgrp))
    (proc / 'self').mkdir()
    assert process_group.group_members(10, str(proc)) == [10, 11]        # not the zombie
    assert process_group.group_members(5, str(proc / 'missing')) == []
