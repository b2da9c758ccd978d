# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/io_observe.py: the parsers, the stack tops, the window and the comparison, on /proc snapshots.

The host is a lab VM's shape: vda partitioned (vda1 the root filesystem, vda14/vda15 the boot partitions of a
Debian cloud image), md127 a RAID0 over vdb..vde, an unattached loop0. The /proc texts below are written in the
kernel's format (17 diskstats fields, 5.5 and later), with counters chosen so the figures are easy to check by
hand: window 1 is 10 s of random 4 KiB mmap faults under md's 2 MiB readahead (3000 faults, 3000 md reads of
512 KiB), window 2 the same after the readahead went to 8 KiB (3050 faults, 3100 reads of 8 KiB).
"""

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import io_observe as io

DISKSTATS_0 = """\
   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 254       0 vda 10321 3112 812046 4129 2811 3920 190816 3050 0 9720 7920 0 0 0 0 1203 741
 254       1 vda1 10063 3112 796302 4071 2806 3920 190816 3046 0 9636 7117 0 0 0 0 0 0
 254      14 vda14 80 0 640 3 0 0 0 0 0 20 3 0 0 0 0 0 0
 254      15 vda15 110 0 6498 19 1 0 1 0 0 40 19 0 0 0 0 0 0
 254      16 vdb 402113 2210 102942848 180221 1822 0 116608 1021 0 322110 181242 0 0 0 0 97 12
 254      32 vdc 401987 2198 102911304 179874 1820 0 116480 1017 0 321870 180891 0 0 0 0 97 11
 254      48 vdd 402240 2231 102975120 180530 1823 0 116672 1025 0 322301 181555 0 0 0 0 97 12
 254      64 vde 401902 2187 102889012 180107 1819 0 116416 1019 0 321755 181126 0 0 0 0 97 12
   9     127 md127 1608102 0 411718284 721004 7284 0 466176 4082 0 1289210 725086 0 0 0 0 0 0
"""
DISKSTATS_1 = """\
   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 254       0 vda 10361 3112 812366 4153 2811 3920 190816 3050 0 9780 7920 0 0 0 0 1203 741
 254       1 vda1 10103 3112 796622 4095 2806 3920 190816 3046 0 9696 7117 0 0 0 0 0 0
 254      14 vda14 80 0 640 3 0 0 0 0 0 20 3 0 0 0 0 0 0
 254      15 vda15 110 0 6498 19 1 0 1 0 0 40 19 0 0 0 0 0 0
 254      16 vdb 403613 2240 103710848 182471 1822 0 116608 1021 0 331460 181242 0 0 0 0 97 12
 254      32 vdc 403487 2228 103679304 182124 1820 0 116480 1017 0 331220 180891 0 0 0 0 97 11
 254      48 vdd 403740 2261 103743120 182780 1823 0 116672 1025 0 331651 181555 0 0 0 0 97 12
 254      64 vde 403402 2217 103657012 182357 1819 0 116416 1019 0 331105 181126 0 0 0 0 97 12
   9     127 md127 1611102 0 414790284 725624 7284 0 466176 4082 0 1298610 725086 0 0 0 0 0 0
"""
# minutes later, after the tuning stage (window 2 starts here)
DISKSTATS_2 = """\
   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 254       0 vda 11261 3122 821366 4653 2811 3920 190816 3050 0 10680 7920 0 0 0 0 1203 741
 254       1 vda1 11003 3122 805622 4595 2806 3920 190816 3046 0 10596 7117 0 0 0 0 0 0
 254      14 vda14 80 0 640 3 0 0 0 0 0 20 3 0 0 0 0 0 0
 254      15 vda15 110 0 6498 19 1 0 1 0 0 40 19 0 0 0 0 0 0
 254      16 vdb 448613 3140 105960848 242471 1822 0 116608 1021 0 530460 181242 0 0 0 0 97 12
 254      32 vdc 448487 3128 105929304 242124 1820 0 116480 1017 0 530220 180891 0 0 0 0 97 11
 254      48 vdd 448740 3161 105993120 242780 1823 0 116672 1025 0 530651 181555 0 0 0 0 97 12
 254      64 vde 448402 3117 105907012 242357 1819 0 116416 1019 0 530105 181126 0 0 0 0 97 12
   9     127 md127 1701102 0 423790284 845624 7284 0 466176 4082 0 1498610 725086 0 0 0 0 0 0
"""
DISKSTATS_3 = """\
   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 254       0 vda 11301 3122 821686 4677 2811 3920 190816 3050 0 10740 7920 0 0 0 0 1203 741
 254       1 vda1 11043 3122 805942 4619 2806 3920 190816 3046 0 10656 7117 0 0 0 0 0 0
 254      14 vda14 80 0 640 3 0 0 0 0 0 20 3 0 0 0 0 0 0
 254      15 vda15 110 0 6498 19 1 0 1 0 0 40 19 0 0 0 0 0 0
 254      16 vdb 449388 3140 105973248 242781 1822 0 116608 1021 0 533060 181242 0 0 0 0 97 12
 254      32 vdc 449262 3128 105941704 242434 1820 0 116480 1017 0 532820 180891 0 0 0 0 97 11
 254      48 vdd 449515 3161 106005520 243090 1823 0 116672 1025 0 533251 181555 0 0 0 0 97 12
 254      64 vde 449177 3117 105919412 242667 1819 0 116416 1019 0 532705 181126 0 0 0 0 97 12
   9     127 md127 1704202 0 423839884 846926 7284 0 466176 4082 0 1501310 725086 0 0 0 0 0 0
"""

VMSTAT = """\
nr_free_pages 181203
nr_zone_inactive_file 112840
nr_zone_active_file 40211
pgpgin {pgpgin}
pgpgout 412880
pswpin 0
pswpout 0
pgfault 9120447
pgmajfault {pgmajfault}
workingset_nodes 1204
workingset_refault_anon 0
workingset_refault_file {refault}
workingset_activate_anon 0
workingset_activate_file 30112
"""
# kernels before 5.9: one refault counter
VMSTAT_OLD = """\
pgpgin 205000812
pgmajfault 88123
workingset_refault 4123
workingset_activate 2011
"""
VMSTATS = [
    VMSTAT.format(pgpgin=206357302, pgmajfault=412006, refault=301222),
    VMSTAT.format(pgpgin=206357302 + 1536160, pgmajfault=412006 + 3000, refault=301222 + 2900),
    VMSTAT.format(pgpgin=212000000, pgmajfault=508000, refault=400000),
    VMSTAT.format(pgpgin=212000000 + 24960, pgmajfault=508000 + 3050, refault=400000 + 3000),
]

PROC_IO = """\
rchar: 2318220412
wchar: 912833
syscr: 1203344
syscw: 2210
read_bytes: {}
write_bytes: 1191936
cancelled_write_bytes: 0
"""


@pytest.fixture
def host(fake_host):
    return lab_host(fake_host)


def lab_host(fake_host):
    """vda with three partitions, md127 over vdb..vde, loop0 (also the module test's host)."""
    fake_host.add_disk('loop0', '7:0')
    fake_host.add_disk('vda', '254:0')
    for number, part in ((1, 'vda1'), (14, 'vda14'), (15, 'vda15')):
        fake_host.add_partition('vda', part, '254:%d' % number, number)
    members = ['vdb', 'vdc', 'vdd', 'vde']
    for index, name in enumerate(members, 1):
        fake_host.add_disk(name, '254:%d' % (16 * index), holders=['md127'])
    fake_host.add_disk('md127', '9:127', slaves=members, drop_queue=('scheduler', 'nr_requests'))
    return fake_host


def take(host, index, clock, pids=(), bits=64):
    host.write('proc/diskstats', [DISKSTATS_0, DISKSTATS_1, DISKSTATS_2, DISKSTATS_3][index])
    host.write('proc/vmstat', VMSTATS[index])
    return io.snapshot(host.view(), pids=pids, clock=lambda: clock, bits=bits)


def windows(host, **kwargs):
    view = host.view()
    first = take(host, 0, 100.0)
    topo = io.topology(view, sorted(first['diskstats']))
    before = io.window(first, take(host, 1, 110.0), topo, **kwargs)
    after = io.window(take(host, 2, 400.0), take(host, 3, 410.0), topo, **kwargs)
    return before, after


# --- parsers ----------------------------------------------------------------------------------------------------
def test_diskstats_fields_of_every_kernel_generation():
    text = (DISKSTATS_0
            + '   8       0 sda 2210 43 88122 1203 901 12 30211 804 0 1922 2007\n'          # 4.x: 11 fields
            + '   8      16 sdb 2210 43 88122 1203 901 12 30211 804 0 1922 2007 4 0 64 1\n'  # 4.18..5.4: 15
            + '   8       1 sda1 2210 88122 901 30211\n'                                    # < 2.6.25: skipped
            + 'garbage line\n')
    stats = io.parse_diskstats(text)
    assert stats['md127']['read_ios'] == 1608102 and stats['md127']['read_sectors'] == 411718284
    assert stats['vdb']['read_merges'] == 2210 and stats['vdb']['read_ticks'] == 180221
    assert stats['vdb']['io_ticks'] == 322110 and stats['vdb']['flush_ticks'] == 12
    assert stats['sda']['io_ticks'] == 1922 and 'discard_ios' not in stats['sda']
    assert stats['sdb']['discard_sectors'] == 64 and 'flush_ios' not in stats['sdb']
    assert 'sda1' not in stats and len(stats) == 12


def test_vmstat_new_and_old_refault_counters():
    assert io.parse_vmstat(VMSTATS[0]) == {'pgmajfault': 412006, 'pgpgin': 206357302, 'workingset_refault': 301222}
    assert io.parse_vmstat(VMSTAT_OLD) == {'pgmajfault': 88123, 'pgpgin': 205000812, 'workingset_refault': 4123}
    assert io.parse_vmstat('') == {'pgmajfault': None, 'pgpgin': None, 'workingset_refault': None}


def test_proc_io_read_bytes():
    assert io.parse_proc_io(PROC_IO.format(8829411328)) == 8829411328
    assert io.parse_proc_io(None) is None and io.parse_proc_io('rchar: 1\n') is None


@pytest.mark.parametrize('machine, bits', [('x86_64', 64), ('aarch64', 64), ('ppc64le', 64), ('s390x', 64),
                                           ('riscv64', 64), ('i686', 32), ('armv7l', 32)])
def test_kernel_word_width(machine, bits):
    assert io.kernel_bits(machine) == bits


def test_snapshot_reads_through_the_host(host):
    host.write('proc/4711/io', PROC_IO.format(1000))
    snap = take(host, 0, 12.5, pids=[4711, 4712])
    assert snap['time'] == 12.5 and snap['bits'] == 64
    assert snap['io'] == {4711: 1000, 4712: None}
    assert snap['vmstat']['pgmajfault'] == 412006 and snap['diskstats']['vda']['read_ios'] == 10321


def test_snapshot_without_diskstats_fails(fake_host):
    with pytest.raises(io.ObserveError, match='cannot read /proc/diskstats'):
        io.snapshot(fake_host.view())


# --- which devices count ----------------------------------------------------------------------------------------
def test_the_tops_of_the_stacks(host):
    topo = io.topology(host.view(), sorted(io.parse_diskstats(DISKSTATS_0)))
    assert topo['vda1'] == {'parent': 'vda', 'slaves': [], 'partitions': []}
    assert topo['vda']['partitions'] == ['vda1', 'vda14', 'vda15']
    assert topo['md127']['slaves'] == ['vdb', 'vdc', 'vdd', 'vde']
    # an md array and not its members, a disk and not its partitions; loop devices only when named
    assert io.default_devices(topo) == ['md127', 'vda']
    assert io.stack_tops(['vdb', 'vda1', 'md127', 'vda', 'loop0'], topo) == ['loop0', 'md127', 'vda']
    assert io.stack_tops(['vdb', 'vdc', 'vda1', 'vda15'], topo) == ['vda1', 'vda15', 'vdb', 'vdc']


def test_partition_members_and_dm_over_md(fake_host):
    """vdf1 is a member of md0 and vdf2 holds a filesystem: md0 and vdf2 count, not vdf; dm-0 over md1."""
    fake_host.add_disk('vdf', '254:80')
    fake_host.add_partition('vdf', 'vdf1', '254:81', 1, holders=['md0'])
    fake_host.add_partition('vdf', 'vdf2', '254:82', 2)
    fake_host.add_disk('vdg', '254:96', holders=['md0'])
    fake_host.add_disk('md0', '9:0', slaves=['vdf1', 'vdg'])
    fake_host.add_disk('vdh', '254:112', holders=['md1'])
    fake_host.add_disk('md1', '9:1', slaves=['vdh'], holders=['dm-0'])
    fake_host.add_disk('dm-0', '253:0', slaves=['md1'])
    names = ['vdf', 'vdf1', 'vdf2', 'vdg', 'md0', 'vdh', 'md1', 'dm-0']
    topo = io.topology(fake_host.view(), names)
    assert io.default_devices(topo) == ['dm-0', 'md0', 'vdf2']


def test_devices_by_name_or_path(host):
    host.dev_link('md/data', '../md127')
    names = io.parse_diskstats(DISKSTATS_0)
    assert io.resolve_devices(host.view(), ['/dev/md/data', 'vdb', '/dev/vdb'], names) == ['md127', 'vdb']
    with pytest.raises(io.ObserveError, match="'nvme0n1' is no block device"):
        io.resolve_devices(host.view(), ['nvme0n1'], names)


# --- the window -------------------------------------------------------------------------------------------------
def test_window_figures_under_a_large_readahead(host):
    before, dummy = windows(host)
    md = before['devices']['md127']
    assert md == {'reads': 3000, 'read_bytes': 3072000 * 512, 'merged_reads': 0, 'read_iops': 300.0,
                  'read_bytes_per_s': 157286400.0, 'avg_read_kib': 512.0, 'merge_ratio': 0.0,
                  'avg_read_wait_ms': 1.54, 'busy': 0.94, 'notes': []}
    assert sorted(before['devices']) == ['md127', 'vda']
    assert before['host']['devices'] == ['md127', 'vda']
    assert before['host']['reads'] == 3040 and before['host']['read_bytes'] == (3072000 + 320) * 512
    assert before['host']['major_faults'] == 3000 and before['host']['major_faults_per_s'] == 300.0
    assert before['host']['device_read_bytes_per_major_fault'] == 524343.0      # 512 KiB per 4 KiB fault
    assert before['host']['pgpgin_kib'] == 1536160 and before['host']['refaults_per_s'] == 290.0
    assert before['verdict'] == 'measured' and before['processes'] is None
    assert before['appeared'] == [] and before['disappeared'] == [] and before['notes'] == []


def test_members_named_have_their_own_figures_and_count_once(host):
    before, dummy = windows(host, devices=['md127', 'vdb', 'vdc', 'vdd', 'vde'])
    vdb = before['devices']['vdb']
    assert vdb['reads'] == 1500 and vdb['avg_read_kib'] == 256.0 and vdb['merge_ratio'] == 0.02
    assert vdb['avg_read_wait_ms'] == 1.5
    assert before['host']['devices'] == ['md127'] and before['host']['reads'] == 3000


def test_partition_and_its_disk_count_once(host):
    before, dummy = windows(host, devices=['vda', 'vda1'])
    assert before['host']['devices'] == ['vda'] and before['host']['reads'] == 40
    assert before['devices']['vda1']['avg_read_kib'] == 4.0


def _pair(host, diskstats, vmstat, bits):
    host.write('proc/diskstats', diskstats[0])
    host.write('proc/vmstat', vmstat[0])
    first = io.snapshot(host.view(), clock=lambda: 0.0, bits=bits)
    host.write('proc/diskstats', diskstats[1])
    host.write('proc/vmstat', vmstat[1])
    return first, io.snapshot(host.view(), clock=lambda: 10.0, bits=bits)


WRAP = ('   9     127 md127 4294967000 0 4294966000 4294967290 7284 0 466176 4082 0 4294967200 725086\n',
        '   9     127 md127 200 0 1000 10 7284 0 466176 4082 0 104 725086\n')


def test_counter_wrap_on_a_32_bit_kernel(host):
    before, after = _pair(host, WRAP, (VMSTAT.format(pgpgin=4294967000, pgmajfault=4294967100, refault=5),
                                       VMSTAT.format(pgpgin=100, pgmajfault=204, refault=6)), bits=32)
    result = io.window(before, after, io.topology(host.view(), ['md127']))
    md = result['devices']['md127']
    assert md['reads'] == 496 and md['read_bytes'] == 2296 * 512 and md['avg_read_wait_ms'] == round(16 / 496.0, 2)
    assert result['host']['major_faults'] == 400
    assert md['notes'] == ['read_ios wrapped at 2**32 inside the window (counted across the wrap)',
                           'read_sectors wrapped at 2**32 inside the window (counted across the wrap)',
                           'read_ticks wrapped at 2**32 inside the window (counted across the wrap)',
                           'io_ticks wrapped at 2**32 inside the window (counted across the wrap)']
    assert 'vmstat pgmajfault wrapped' in ' '.join(result['notes'])


def test_counter_reset_on_a_64_bit_kernel(host):
    """The same text on a 64-bit kernel: the request and sector counts went down (md127 stopped and assembled
    again), the millisecond fields are 32 bits there too and wrapped."""
    before, after = _pair(host, WRAP, (VMSTATS[0], VMSTATS[1]), bits=64)
    md = io.window(before, after, io.topology(host.view(), ['md127']))['devices']['md127']
    assert md['reads'] == 200 and md['read_bytes'] == 1000 * 512
    assert md['notes'][0].startswith('read_ios went down inside the window: the counter was reset')
    assert md['notes'][2] == 'read_ticks wrapped at 2**32 inside the window (counted across the wrap)'


def test_devices_appearing_and_disappearing(host):
    """md127 stopped inside the window and md126 was assembled: named as such, not as zero reads."""
    gone = DISKSTATS_1.replace('   9     127 md127', '   9     126 md126')
    before, after = _pair(host, (DISKSTATS_0, gone), (VMSTATS[0], VMSTATS[1]), bits=64)
    result = io.window(before, after, io.topology(host.view(), sorted(before['diskstats'])))
    assert result['appeared'] == ['md126'] and result['disappeared'] == ['md127']
    assert 'md127' not in result['devices'] and result['host']['devices'] == ['vda']
    assert result['notes'] == ['md127 disappeared inside the window: not measured']


def test_too_little_io_to_judge(host):
    idle = (VMSTATS[0], VMSTATS[0].replace('pgmajfault 412006', 'pgmajfault 412016'))
    before, after = _pair(host, (DISKSTATS_0, DISKSTATS_1), idle, bits=64)
    result = io.window(before, after, io.topology(host.view(), sorted(before['diskstats'])))
    assert result['verdict'] == io.TOO_LITTLE
    assert result['verdict_reason'] == 'too little I/O to judge: 10 major faults (threshold 200)'
    lowered = io.window(before, after, io.topology(host.view(), sorted(before['diskstats'])), min_major_faults=5,
                        min_device_reads=5000)
    assert lowered['verdict_reason'] == 'too little I/O to judge: 3040 device reads (threshold 5000)'


def test_processes_read_bytes_and_share(host):
    for pid, value in ((100, 1000), (101, 5000), (102, 7)):
        host.write('proc/%d/io' % pid, PROC_IO.format(value))
    first = take(host, 0, 0.0, pids=[100, 101, 102])
    host.write('proc/100/io', PROC_IO.format(1000 + 786432000))
    host.write('proc/101/io', PROC_IO.format(10))           # a new process with the same PID
    host.write('proc/103/io', PROC_IO.format(4096))         # started inside the window
    host.write('proc/102/io', '')                           # exited
    last = take(host, 1, 10.0, pids=[100, 101, 102, 103])
    result = io.window(first, last, io.topology(host.view(), sorted(first['diskstats'])))
    procs = result['processes']
    assert procs['pids']['100'] == {'read_bytes': 786432000, 'share_of_device_reads': 0.5, 'note': None}
    assert procs['pids']['101']['read_bytes'] == 10 and 'same PID' in procs['pids']['101']['note']
    assert procs['pids']['102']['read_bytes'] is None and 'exited' in procs['pids']['102']['note']
    assert procs['pids']['103']['read_bytes'] == 4096 and 'started' in procs['pids']['103']['note']
    assert procs['read_bytes'] == 786432000 + 10 + 4096 and procs['share_of_device_reads'] == 0.5


def test_a_window_needs_a_length(host):
    snap = take(host, 0, 5.0)
    with pytest.raises(io.ObserveError, match='no length'):
        io.window(snap, snap, {})


# --- before and after -------------------------------------------------------------------------------------------
def test_compare_improved(host):
    before, after = windows(host)
    assert after['host']['device_read_bytes_per_major_fault'] == 8380.0
    result = io.compare(before, after)
    assert result['verdict'] == 'improved' and result['basis'] == 'device read bytes per major fault'
    assert result['bytes_per_major_fault'] == {'before': 524343.0, 'after': 8380.0, 'ratio': 62.5708}
    assert result['avg_read_kib'] == {'before': 505.32, 'after': 7.95, 'ratio': 63.5623}
    assert result['summary'] == ('device read bytes per major fault 512 KiB -> 8.2 KiB, 63x less; '
                                 'average read request 505 -> 8 KiB')


def test_compare_no_change_and_worse(host):
    before, dummy = windows(host)
    same = io.compare(before, before)
    assert same['verdict'] == 'no change' and same['summary'].startswith(
        'device read bytes per major fault 512 KiB -> 512 KiB, about the same;')
    first, second = windows(host)
    worse = io.compare(second, first)      # the readahead raised again: the after window is the large one
    assert worse['verdict'] == 'worse' and '8.2 KiB -> 512 KiB, 63x more' in worse['summary']


def test_compare_never_passes_on_too_little_io(host):
    before, after = windows(host, min_device_reads=3100)
    assert before['verdict'] == io.TOO_LITTLE and after['verdict'] == 'measured'
    result = io.compare(before, after)
    assert result['verdict'] == 'too little I/O' and result['basis'] is None
    assert result['summary'] == 'too little I/O to judge: before window 3040 device reads (threshold 3100)'


def test_compare_on_the_average_request_without_faults(host):
    """min_major_faults 0 on a pread engine: no faults, the verdict follows the average read request."""
    before, after = windows(host, min_major_faults=0)
    for w in (before, after):
        w['host']['major_faults'], w['host']['device_read_bytes_per_major_fault'] = 0, None
    result = io.compare(before, after)
    assert result['verdict'] == 'improved' and result['basis'] == 'average read request'
    assert result['summary'] == 'average read request 505 -> 8 KiB, 64x less'


@pytest.mark.parametrize('value, text', [(524343, '512 KiB'), (8380, '8.2 KiB'), (900, '900 B'),
                                         (2 << 20, '2 MiB'), (1536, '1.5 KiB')])
def test_human_bytes(value, text):
    assert io.human_bytes(value) == text


# --- a unit's processes -----------------------------------------------------------------------------------------
def test_unit_cgroup_v2_with_sub_cgroups(fake_host):
    fake_host.write('sys/fs/cgroup/system.slice/mongod.service/cgroup.procs', '812\n813\n')
    fake_host.write('sys/fs/cgroup/system.slice/mongod.service/worker/cgroup.procs', '900\n')
    cgroup = io.unit_cgroup(fake_host.view(), 'mongod')
    assert cgroup == '/sys/fs/cgroup/system.slice/mongod.service'
    assert io.cgroup_pids(fake_host.view(), cgroup) == [812, 813, 900]


def test_unit_cgroup_from_systemctl_on_cgroup_v1(fake_host):
    fake_host.write('sys/fs/cgroup/systemd/db.slice/cassandra.service/cgroup.procs', '4711\n')
    calls = []

    def run(argv):
        calls.append(argv)
        return 0, '/db.slice/cassandra.service\n', ''
    assert io.unit_cgroup(fake_host.view(), 'cassandra.service', run) == \
        '/sys/fs/cgroup/systemd/db.slice/cassandra.service'
    assert calls == [['systemctl', 'show', '-p', 'ControlGroup', '--value', 'cassandra.service']]
    with pytest.raises(io.ObserveError, match='unit redis.service: no cgroup'):
        io.unit_cgroup(fake_host.view(), 'redis', lambda argv: (0, '\n', ''))


# --- the sampling loop ------------------------------------------------------------------------------------------
class Clock(object):
    """time.monotonic and time.sleep of a loop that writes the next /proc texts when it sleeps."""

    def __init__(self, host, steps):
        self.now, self.host, self.steps, self.slept = 1000.0, host, list(steps), []

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds
        diskstats, vmstat = self.steps.pop(0)
        self.host.write('proc/diskstats', diskstats)
        self.host.write('proc/vmstat', vmstat)


def test_observe_samples_every_interval(host):
    """10 s every 4 s: samples at 0, 4, 8 and 10 s; the unit's PIDs read at the start and at the end."""
    host.write('proc/diskstats', DISKSTATS_0)
    host.write('proc/vmstat', VMSTATS[0])
    half = VMSTAT.format(pgpgin=206357302, pgmajfault=412006 + 500, refault=301222)
    clock = Clock(host, [(DISKSTATS_0, half), (DISKSTATS_0, half), (DISKSTATS_1, VMSTATS[1])])
    host.write('proc/7/io', PROC_IO.format(0))
    host.write('proc/8/io', PROC_IO.format(4096))
    lookups = []

    def pids():
        lookups.append(clock.now)
        return [7] if len(lookups) == 1 else [8]
    result = io.observe(host.view(), 10, 4, pids=pids, sleep=clock.sleep, clock=clock.monotonic, bits=64)
    assert clock.slept == [4.0, 4.0, 2.0] and lookups == [1000.0, 1010.0]
    assert result['samples'] == 4 and result['interval'] == 4
    assert result['seconds'] == 10.0 and result['host']['major_faults'] == 3000
    assert result['spread'] == {'major_faults_per_s': {'min': 0.0, 'max': 1250.0},
                                'read_bytes_per_s': {'min': 0.0, 'max': 786513920.0}, 'intervals': 3}
    assert sorted(result['processes']['pids']) == ['7', '8']
    assert result['processes']['pids']['8']['read_bytes'] == 4096
    assert result['cost']['cpu_seconds'] >= 0 and result['cost']['share_of_one_core'] is not None


def test_observe_refuses_a_bad_interval(host):
    with pytest.raises(io.ObserveError, match='interval must be between 1 and seconds'):
        io.observe(host.view(), 5, 6)
