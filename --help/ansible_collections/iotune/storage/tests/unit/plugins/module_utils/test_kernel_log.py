# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kernel_log: the oops lines of a log, the D taint flag, /dev/kmsg records."""

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import kernel_log

# lines of the CI console log of issue #32 (trixie guest under qemu TCG, -cpu max)
CONSOLE = """[  812.004211] md/raid0:md127: md_size is 8372224 sectors.
[ 1630.188710] BUG: unable to handle page fault for address: fffffffffffffec8
[ 1630.189015] #PF: supervisor read access in kernel mode
[ 1630.190441] Oops: Oops: 0000 [#1] PREEMPT SMP NOPTI
[ 1630.192210] RIP: 0010:xfs_read_iomap_begin+0x2b/0x1e0 [xfs]
[ 1630.301001] general protection fault, probably for non-canonical address 0x6b6b6b6b6b6b6b6b: 0000 [#2] PREEMPT SMP NOPTI
[ 1700.000000] INFO: task kworker/1:1:77 blocked for more than 120 seconds.
"""


def test_oops_lines_of_a_console_log():
    assert kernel_log.oops_lines(CONSOLE) == [
        'BUG: unable to handle page fault for address: fffffffffffffec8',
        'Oops: Oops: 0000 [#1] PREEMPT SMP NOPTI',
        'general protection fault, probably for non-canonical address 0x6b6b6b6b6b6b6b6b: 0000 [#2] PREEMPT SMP NOPTI',
    ]


@pytest.mark.parametrize('line', [
    'Kernel panic - not syncing: Fatal exception',
    'kernel BUG at fs/xfs/xfs_iomap.c:123!',
    'BUG: kernel NULL pointer dereference, address: 0000000000000008',
    'invalid opcode: 0000 [#1] PREEMPT SMP NOPTI',
])
def test_other_oops_kinds(line):
    assert kernel_log.oops_lines('[  1.0] ' + line) == [line]


@pytest.mark.parametrize('line', [
    'INFO: task fio:7220 blocked for more than 120 seconds.',      # slow emulated guest, not broken
    'watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [fio:7220]',
    'XFS (md127): Mounting V5 Filesystem',
    'nvme nvme0: I/O tag 12 timeout, aborting',
    'traps: fio[7220] general protection fault ip:7f0 sp:7ff error:0 in libc.so.6',   # a process's fault
])
def test_no_oops(line):
    assert kernel_log.oops_lines(line) == []


def test_died_since():
    assert kernel_log.died_since(0, kernel_log.TAINT_DIE) is True
    assert kernel_log.died_since(1, 1 | kernel_log.TAINT_DIE) is True
    assert kernel_log.died_since(kernel_log.TAINT_DIE, kernel_log.TAINT_DIE) is False   # older oops
    assert kernel_log.died_since(0, 512) is False                                       # a WARN only
    assert kernel_log.died_since(None, kernel_log.TAINT_DIE) is False


def test_tainted(tmp_path):
    (tmp_path / 'sys' / 'kernel').mkdir(parents=True)
    (tmp_path / 'sys' / 'kernel' / 'tainted').write_text('4224\n')
    assert kernel_log.tainted(str(tmp_path)) == 4224
    assert kernel_log.tainted(str(tmp_path / 'none')) is None


def test_kmsg_text(tmp_path):
    kmsg = tmp_path / 'kmsg'
    kmsg.write_text('6,1,1000000,-;first\n SUBSYSTEM=block\n DEVICE=b9:127\n1,2,2500000,-;BUG: kernel NULL pointer; x\n')
    assert kernel_log.kmsg_text(str(kmsg)) == 'first\nBUG: kernel NULL pointer; x'
    assert kernel_log.kmsg_text(str(kmsg), since=2.0) == 'BUG: kernel NULL pointer; x'      # logged from 2 s on
    assert kernel_log.kmsg_text(str(kmsg), since=3.0) == ''
    assert kernel_log.kmsg_text(str(tmp_path / 'missing')) == ''


def test_uptime(tmp_path):
    (tmp_path / 'uptime').write_text('812.45 1500.10\n')
    assert kernel_log.uptime(str(tmp_path)) == 812.45
    assert kernel_log.uptime(str(tmp_path / 'none')) is None
