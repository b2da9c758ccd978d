# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a program that forks workers (fio) in a process group of its own, with a time limit, and end
whatever of the group is left when it returns: a crashed fio's workers must not keep the test file busy.

AnsibleModule.run_command has no time limit and waits for every holder of its pipes, which is how one
dead fio worker held a whole test run (issue #32).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time


class GroupResult(object):
    """What one run gave: rc (negative: killed by that signal), output, whether the time limit ended it,
    and the pids of the group that were still alive after the program returned and were ended."""

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
    """pids whose process group is ``pgid`` (field 5 of /proc/<pid>/stat)."""
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
        if len(fields) > 2 and fields[2] == str(pgid):
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


def run(argv, timeout, proc_root='/proc', grace=10.0, env=None):
    """Run ``argv`` (a list) in a new session; at most ``timeout`` seconds. Returns a GroupResult."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            start_new_session=True, close_fds=True, env=env)
    pgid = proc.pid
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # fio itself, or a worker of it holding the pipes, did not finish
        timed_out = True
        ended = end_group(pgid, proc_root, grace)
        try:
            out, err = proc.communicate(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = b'', b''
        if proc.returncode is None:
            proc.wait(timeout=grace)
        return GroupResult(proc.returncode, _text(out), _text(err), True, ended)
    ended = end_group(pgid, proc_root, grace) if proc.returncode != 0 else []
    return GroupResult(proc.returncode, _text(out), _text(err), timed_out, ended)


def _text(data):
    return data.decode('utf-8', 'replace') if isinstance(data, bytes) else (data or '')
