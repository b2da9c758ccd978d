# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a program that forks workers (fio) in a process group of its own, with a time limit, and end
whatever of the group is left when it returns: a crashed fio's workers must not keep the test file busy.

AnsibleModule.run_command has no time limit and waits for every holder of its pipes, which is how one
dead fio worker held a whole test run (issue #32). Here the output goes to temporary files, so the wait is
on the program itself: its own exit status is what is reported, whatever its workers do.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time


class GroupResult(object):
    """What one run gave: rc (negative: killed by that signal; None: it could not even be reaped), output,
    whether the time limit ended it, and the pids of its group still alive when it returned, which were ended."""

    def __init__(self, rc, out, err, timed_out=False, ended=None):
        self.rc = rc
        self.out = out
        self.err = err
        self.timed_out = timed_out
        self.ended = ended or []

    @property
    def signal(self):
        return -self.rc if self.rc is not None and self.rc < 0 else None

    def signal_name(self):
        if self.signal is None:
            return None
        try:
            return signal.Signals(self.signal).name
        except ValueError:
            return 'signal %d' % self.signal


def group_members(pgid, proc_root='/proc'):
    """Live pids whose process group is ``pgid`` (field 5 of /proc/<pid>/stat); zombies are not counted."""
    pids = []
    try:
        names = os.listdir(proc_root)
    except OSError:
        return pids
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(os.path.join(proc_root, name, 'stat')) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(')') + 2:].split()     # after "pid (comm) ": state ppid pgrp ...
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ('Z', 'X'):
            pids.append(int(name))
    return sorted(pids)


def _kill_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except OSError:
        pass


def end_group(pgid, proc_root='/proc', grace=10.0):
    """SIGTERM to the group, SIGKILL to what is left after ``grace`` s; returns the pids found alive.

    A process in uninterruptible sleep dies when it leaves it; this does not wait for that longer than
    ``grace``."""
    alive = group_members(pgid, proc_root)
    if not alive:
        return []
    _kill_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and group_members(pgid, proc_root):
        time.sleep(0.2)
    if group_members(pgid, proc_root):
        _kill_group(pgid, signal.SIGKILL)
    return alive


def _wait(proc, timeout):
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def run(argv, timeout, proc_root='/proc', grace=10.0, env=None):
    """Run ``argv`` (a list) in a new session; at most ``timeout`` seconds. Returns a GroupResult.

    Never blocks longer than ``timeout`` plus twice ``grace``: a program stuck in the kernel (after an oops)
    is reported with rc None."""
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        proc = subprocess.Popen(argv, stdout=out_f, stderr=err_f, stdin=subprocess.DEVNULL,
                                start_new_session=True, close_fds=True, env=env)
        pgid = proc.pid
        rc = _wait(proc, timeout)
        timed_out = rc is None
        if timed_out:
            # the group leader (fio itself) first, then whatever else of the group is alive
            _kill_group(pgid, signal.SIGTERM)
            rc = _wait(proc, grace)
            if rc is None:
                _kill_group(pgid, signal.SIGKILL)
                rc = _wait(proc, grace)
        # workers of a fio that returned (in any way) must not go on using the test file
        ended = end_group(pgid, proc_root, grace)
        return GroupResult(rc, _read(out_f), _read(err_f), timed_out, ended)


def _read(f):
    f.seek(0)
    return f.read().decode('utf-8', 'replace')
