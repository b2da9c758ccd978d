# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which processes hold files of a filesystem: /proc/<pid>/cwd, fd/* and maps (mmap'd files such as
Cassandra's SSTables). The fio module refuses to benchmark under a database's feet with it; the preflight
refuses to move a filesystem (move_from) that a process still uses."""

from __future__ import annotations

import os
import stat


def file_holders(proc_root, dev, scope, limit=20):
    """Processes holding files on the filesystem with device number ``dev`` under path ``scope``.

    Reads /proc/<pid>/cwd, /proc/<pid>/fd/* and /proc/<pid>/maps (mmap'd files, e.g. Cassandra's
    SSTables) only. Returns (holders, unreadable): one dict {pid, comm, how, path} per process (at
    most ``limit``), and the number of processes that could not be inspected (permissions).
    """
    holders = []
    unreadable = 0
    me = os.getpid()
    try:
        pids = sorted((int(p) for p in os.listdir(proc_root) if p.isdigit()))
    except OSError:
        return holders, 0
    for pid in pids:
        if pid == me:
            continue
        base = os.path.join(proc_root, str(pid))
        try:
            hit = _process_hit(base, dev, scope)
        except PermissionError:
            unreadable += 1
            continue
        except OSError:
            continue  # the process went away
        if hit:
            try:
                with open(os.path.join(base, 'comm')) as f:
                    comm = f.read().strip()
            except OSError:
                comm = '?'
            holders.append(dict(pid=pid, comm=comm, how=hit[0], path=hit[1]))
            if len(holders) >= limit:
                break
    return holders, unreadable


def _in_scope(path, scope):
    return path == scope or path.startswith(scope.rstrip('/') + '/')


def _strip_deleted(path):
    return path[:-len(' (deleted)')] if path.endswith(' (deleted)') else path


def _process_hit(base, dev, scope):
    """('cwd'|'fd'|'mmap', path) when the process at /proc/<pid> ``base`` uses a file on ``dev`` in ``scope``."""
    cwd = os.path.join(base, 'cwd')
    target = os.readlink(cwd)
    if _in_scope(target, scope) and os.stat(cwd).st_dev == dev:
        return 'cwd', target
    fd_dir = os.path.join(base, 'fd')
    for fd in os.listdir(fd_dir):
        link = os.path.join(fd_dir, fd)
        try:
            target = _strip_deleted(os.readlink(link))
            if target.startswith('/') and _in_scope(target, scope) and os.stat(link).st_dev == dev:
                return 'fd', target
        except FileNotFoundError:
            continue  # closed meanwhile
    with open(os.path.join(base, 'maps')) as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) < 6 or not parts[5].startswith('/'):
                continue
            path = _strip_deleted(parts[5].rstrip('\n'))
            try:
                major, minor = (int(x, 16) for x in parts[3].split(':'))
            except ValueError:
                continue
            if os.makedev(major, minor) == dev and _in_scope(path, scope):
                return 'mmap', path
    return None


def device_openers(proc_root, dev, nodes=(), limit=20):
    """Processes that have the block device ``dev`` (a device number) open itself, not a file on it: a descriptor that
    is a block special file with that number, or whose link names one of ``nodes`` (its paths, ``/dev/md127``).
    A retire refuses to stop an array such a process reads (a backup tool, ``dd``). [{pid, comm, how, path}]."""
    openers = []
    nodes = set(nodes)
    try:
        pids = sorted((int(p) for p in os.listdir(proc_root) if p.isdigit()))
    except OSError:
        return openers
    for pid in pids:
        if pid == os.getpid():
            continue
        fd_dir = os.path.join(proc_root, str(pid), 'fd')
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue   # gone, or not ours to read
        for fd in fds:
            link = os.path.join(fd_dir, fd)
            try:
                target = os.readlink(link)
                # stat only what names a device node: a descriptor of a file on a hung network mount would block
                # the stat (and a host has many more files open than devices)
                hit = target in nodes or (target.startswith('/dev/') and _is_block(link, dev))
            except OSError:
                continue
            if hit:
                try:
                    with open(os.path.join(proc_root, str(pid), 'comm')) as f:
                        comm = f.read().strip()
                except OSError:
                    comm = '?'
                openers.append(dict(pid=pid, comm=comm, how='open', path=target))
                break
        if len(openers) >= limit:
            break
    return openers


def _is_block(link, dev):
    st = os.stat(link)
    return stat.S_ISBLK(st.st_mode) and st.st_rdev == dev
