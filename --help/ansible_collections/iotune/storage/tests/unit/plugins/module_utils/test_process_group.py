# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""process_group.run with real processes: a program that dies leaves no worker behind, a hang is ended.

The programs are real (sh, sleep) and so are the signals; the process tree that run() reads (``proc_root``) is a
fake one below tmp_path that the tests build, never the machine's /proc: each program enters the workers it starts,
and the fake's ``kill`` (in place of process_group._kill_group) signals the real group and marks each entered
process that ended, which it sees through a pidfd.
"""

from __future__ import annotations

import os
import select
import shlex
import signal
import time

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import process_group


class FakeProc(object):
    """A proc tree of ``/proc/<pid>/stat`` files (pid, comm, state, ppid, pgrp, session) below ``root``."""

    def __init__(self, root, real_kill):
        self.root = root
        self.real_kill = real_kill
        self.ended = []                 # entered pids whose end the pidfd showed after a signal of run()
        root.mkdir()

    def enter_worker(self):
        """Shell line, after ``CMD &``: enter the job just started (``$!``) in the tree, state S, in the process
        group of the shell (``$$``: run() makes the program the leader of a new group)."""
        entry = '%s/$!' % shlex.quote(str(self.root))
        return 'mkdir %s && echo "$! (sleep) S $$ $$ $$ 0 -1" > %s/stat' % (entry, entry)

    def write(self, pid, state, pgrp, comm='sleep'):
        (self.root / str(pid)).mkdir(exist_ok=True)
        (self.root / str(pid) / 'stat').write_text('%d (%s) %s 1 %d %d 0 -1\n' % (pid, comm, state, pgrp, pgrp))

    def entries(self):
        """{pid: (state, pgrp)} of the tree."""
        out = {}
        for name in os.listdir(str(self.root)):
            fields = (self.root / name / 'stat').read_text().split()
            out[int(name)] = (fields[2], int(fields[4]))
        return out

    def state(self, pid):
        return self.entries()[pid][0]

    def kill(self, pgid, sig):
        """process_group._kill_group on the real group; an entered member that ends is written as a zombie (Z)."""
        members = dict((pid, os.pidfd_open(pid)) for pid, (state, pgrp) in self.entries().items()
                       if pgrp == pgid and state not in 'ZX')
        try:
            self.real_kill(pgid, sig)
            for pid, fd in members.items():
                if select.select([fd], [], [], 2)[0]:
                    self.write(pid, 'Z', pgid)
                    self.ended.append(pid)
        finally:
            for fd in members.values():
                os.close(fd)

    def end_leftovers(self):
        """Test teardown: entered workers still running (run() did not end them) are killed."""
        for pid, (state, dummy) in self.entries().items():
            if state not in 'ZX':
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass


@pytest.fixture
def fake_proc(tmp_path, monkeypatch):
    proc = FakeProc(tmp_path / 'proc', process_group._kill_group)
    monkeypatch.setattr(process_group, '_kill_group', proc.kill)
    yield proc
    proc.end_leftovers()


def test_success_returns_the_output(fake_proc):
    res = process_group.run(['sh', '-c', 'echo out; echo err >&2'], timeout=30, proc_root=str(fake_proc.root))
    assert (res.rc, res.out, res.err, res.timed_out, res.ended, res.signal) == (0, 'out\n', 'err\n', False, [], None)


def test_a_program_killed_by_a_signal_has_its_worker_ended(tmp_path, fake_proc):
    # like fio's main process aborting (double free) while its worker still runs: the worker holds no pipe
    pidfile = tmp_path / 'worker.pid'
    script = ('sleep 300 >/dev/null 2>&1 </dev/null & echo $! > %s; %s; echo boom >&2; kill -ABRT $$'
              % (pidfile, fake_proc.enter_worker()))
    started = time.monotonic()
    res = process_group.run(['sh', '-c', script], timeout=60, grace=2, proc_root=str(fake_proc.root))
    assert res.rc == -6 and res.signal_name() == 'SIGABRT' and res.err == 'boom\n'
    worker = int(pidfile.read_text())
    assert res.ended == [worker] and not res.timed_out
    assert fake_proc.ended == [worker] and fake_proc.state(worker) == 'Z'
    assert time.monotonic() - started < 30


def test_a_worker_holding_the_pipes_does_not_hide_how_the_program_ended(tmp_path, fake_proc):
    # fio's workers inherit its stdout: the parent's own exit status is reported at once, the worker ended
    pidfile = tmp_path / 'worker.pid'
    started = time.monotonic()
    res = process_group.run(['sh', '-c', 'sleep 300 & echo $! > %s; %s; echo out; exit 3'
                             % (pidfile, fake_proc.enter_worker())],
                            timeout=60, grace=2, proc_root=str(fake_proc.root))
    worker = int(pidfile.read_text())
    assert (res.rc, res.out, res.timed_out) == (3, 'out\n', False) and res.ended == [worker]
    assert time.monotonic() - started < 20
    assert fake_proc.ended == [worker] and fake_proc.state(worker) == 'Z'


def test_a_worker_left_behind_by_a_successful_run_is_ended(tmp_path, fake_proc):
    pidfile = tmp_path / 'worker.pid'
    res = process_group.run(['sh', '-c', 'sleep 300 >/dev/null 2>&1 & echo $! > %s; %s'
                             % (pidfile, fake_proc.enter_worker())],
                            timeout=60, grace=2, proc_root=str(fake_proc.root))
    worker = int(pidfile.read_text())
    assert res.rc == 0 and res.ended == [worker]
    assert fake_proc.ended == [worker] and fake_proc.state(worker) == 'Z'


def test_a_hung_program_is_ended_at_the_time_limit(fake_proc):
    started = time.monotonic()
    res = process_group.run(['sh', '-c', 'trap "" TERM; sleep 300'], timeout=1, grace=1, proc_root=str(fake_proc.root))
    assert res.timed_out is True and res.rc == -9          # TERM ignored: KILL after the grace
    assert time.monotonic() - started < 10


def test_a_program_that_cannot_be_reaped_is_reported_without_blocking(tmp_path, monkeypatch):
    # a process stuck in the kernel (after an oops) does not die from SIGKILL: no wait may block for ever
    proc = FakeProc(tmp_path / 'proc', None)
    groups = set()

    def stuck(pgid, sig):
        # the signal is lost: the leader stays in the tree, in uninterruptible sleep (D)
        groups.add(pgid)
        proc.write(pgid, 'D', pgid)

    monkeypatch.setattr(process_group, '_kill_group', stuck)
    started = time.monotonic()
    try:
        res = process_group.run(['sleep', '30'], timeout=1, grace=1, proc_root=str(proc.root))
        assert res.timed_out is True and res.rc is None and res.signal is None
        assert res.ended == sorted(groups) and len(groups) == 1
        assert time.monotonic() - started < 10
    finally:
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
