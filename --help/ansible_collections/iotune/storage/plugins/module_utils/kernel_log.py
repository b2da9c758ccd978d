# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kernel's own word that it broke: the "died" taint flag and the oops/BUG/panic lines of its log.

The one home of these rules: the fio module reads them on the managed host (/proc/sys/kernel/tainted,
/dev/kmsg) when a measured run fails; the lab (tools/iotune_lab/kernel_log.py) loads this file to scan
a VM's serial console log. Standard library only.
"""

from __future__ import annotations

import errno
import os
import re

# include/linux/panic.h: TAINT_DIE ("D"), set by every oops/BUG (die()) and never cleared until reboot.
TAINT_DIE = 1 << 7

# The first line the kernel prints when it oopses, hits a BUG or panics (arch/x86/mm/fault.c,
# arch/x86/kernel/traps.c, lib/bug.c, kernel/panic.c). Left out on purpose: hung-task and soft-lockup
# warnings (a slow emulated guest prints them without being broken) and a user process's fault
# ("traps: fio[7220] general protection fault ...": the kernel reports it, it did not break).
OOPS_RE = re.compile(
    r'BUG: unable to handle|BUG: kernel NULL pointer|kernel BUG at|'
    r'general protection fault|Oops: |Kernel panic - not syncing|'
    r'invalid opcode: |stack segment: |double fault: |'
    r'BUG: (?:scheduling while atomic|Bad page|Bad rss-counter|KASAN)'
)
# a user process's fault, reported by the kernel ("traps: fio[7220] general protection fault ip:...")
USER_FAULT_RE = re.compile(r'traps: \S+\[\d+\] ')
# "[   12.345678] " (console, dmesg) before a message
_STAMP_RE = re.compile(r'^\s*\[\s*\d+\.\d+\]\s*')


def oops_lines(text, limit=20):
    """The oops/BUG/panic lines of a kernel log text, in order, without their timestamps."""
    found = []
    for line in text.splitlines():
        if OOPS_RE.search(line) and not USER_FAULT_RE.search(line):
            found.append(_STAMP_RE.sub('', line).strip())
            if len(found) >= limit:
                break
    return found


def tainted(proc_root='/proc'):
    """The kernel's taint mask (/proc/sys/kernel/tainted), or None when it cannot be read."""
    try:
        with open(os.path.join(proc_root, 'sys', 'kernel', 'tainted')) as f:
            return int(f.read().strip() or '0')
    except (OSError, ValueError):
        return None


def died_since(before, after):
    """True when the kernel oopsed between two taint masks (the D flag set in ``after`` only)."""
    if before is None or after is None:
        return False
    return bool(after & TAINT_DIE) and not before & TAINT_DIE


def uptime(proc_root='/proc'):
    """Seconds since boot (/proc/uptime), the clock of the kernel log's timestamps; None if unreadable."""
    try:
        with open(os.path.join(proc_root, 'uptime')) as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def kmsg_text(path='/dev/kmsg', since=None, limit=1 << 20):
    """The kernel log ring buffer as text, one message a line, from /dev/kmsg ("pri,seq,usec,flags;message"
    records, read without blocking; continuation lines dropped); with ``since`` (seconds since boot, see
    uptime()) only the messages logged from then on. "" when it cannot be read."""
    lines = []
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return ''
    total = 0
    try:
        while total < limit:
            try:
                chunk = os.read(fd, 8192)
            except OSError as exc:
                if exc.errno == errno.EPIPE:     # a record was overwritten while reading: go on
                    continue
                break                            # EAGAIN: the end of the buffer
            if not chunk:
                break
            total += len(chunk)
            for record in chunk.decode('utf-8', 'replace').splitlines():
                if record[:1] == ' ' or ';' not in record:
                    continue                     # a "KEY=value" continuation line
                head, message = record.split(';', 1)
                if since is not None:
                    try:
                        if int(head.split(',')[2]) < since * 1000000:
                            continue
                    except (IndexError, ValueError):
                        pass
                lines.append(message)
    finally:
        os.close(fd)
    return '\n'.join(lines)
