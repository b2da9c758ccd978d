# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""process_group.run with real processes: a program that dies leaves no worker behind, a hang is ended."""

from __future__ import annotations

import os
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


def test_a_worker_holding_the_pipes_is_ended_at_the_time_limit(tmp_path):
    # the parent exits, a child keeps stdout open: run_command would wait for it for ever
    pidfile = tmp_path / 'worker.pid'
    res = process_group.run(['sh', '-c', 'sleep 300 & echo $! > %s; exit 3' % pidfile], timeout=2, grace=2)
    worker = int(pidfile.read_text())
    assert res.timed_out is True and res.rc == 3 and worker in res.ended
    deadline = time.monotonic() + 5
    while alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(worker)


def test_a_hung_program_is_ended_at_the_time_limit():
    started = time.monotonic()
    res = process_group.run(['sh', '-c', 'trap "" TERM; sleep 300'], timeout=1, grace=1)
    assert res.timed_out is True and res.rc in (-9, -15)
    assert time.monotonic() - started < 20


def test_group_members_reads_the_process_group(tmp_path):
    proc = tmp_path / 'proc'
    for pid, pgrp in ((10, 10), (11, 10), (12, 99)):
        (proc / str(pid)).mkdir(parents=True)
        (proc / str(pid) / 'stat').write_text('%d (fio worker) S 1 %d %d 0 -1\n' % (pid, pgrp, pgrp))
    (proc / 'self').mkdir()
    assert process_group.group_members(10, str(proc)) == [10, 11]
    assert process_group.group_members(5, str(proc / 'missing')) == []
    assert os.getpid() > 0
