# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Passive observation of a serving host: the kernel's own I/O counters over a window (module io_observe).

Nothing here writes or runs anything but ``systemctl show`` (read-only, only to find a unit's cgroup). The host is
read through a BlockHost (module_utils/host.py: ``read``, ``realpath``, ``slaves``, ``partitions``, ``parent_disk``),
so the unit tests hand it a fake host with captured /proc text.

- ``snapshot``: /proc/diskstats, /proc/vmstat and the ``read_bytes`` of /proc/PID/io, with a monotonic time.
- ``window(before, after, topology)``: per device and per host figures, and the verdict of the window.
- ``compare(before_window, after_window)``: the ratios, a one-line summary and the verdict of a change.
- ``observe``: the sampling loop of the module (every ``interval`` seconds), its spread and its own cost.

Counters (Documentation/admin-guide/iostats.rst): sectors are 512-byte units whatever the device's block size. The
request, merge and sector counts are ``unsigned long`` (32 bits on a 32-bit kernel), the millisecond and in-flight
fields ``unsigned int`` (32 bits everywhere); vmstat's counters are ``unsigned long``. A counter smaller after than
before has wrapped when it is 32 bits wide; a 64-bit one cannot wrap in practice, so it was reset (the device was
re-created, the process is a new one with the same PID) and is counted from zero, which the result says.
"""

from __future__ import annotations

import os
import re
import resource
import time

from ansible_collections.iotune.storage.plugins.module_utils.sysfs_block import BLOCK_STAT_FIELDS

SECTOR = 512
# diskstats fields printed as unsigned int: 32 bits on every kernel
U32_FIELDS = frozenset(('read_ticks', 'write_ticks', 'in_flight', 'io_ticks', 'time_in_queue', 'discard_ticks',
                        'flush_ticks'))
READ_FIELDS = ('read_ios', 'read_merges', 'read_sectors', 'read_ticks', 'io_ticks')
VMSTAT_FIELDS = ('pgmajfault', 'pgpgin')
# the file refaults (5.9 split them into _anon and _file); older kernels have the one counter
REFAULT_KEYS = ('workingset_refault_file', 'workingset_refault')
# devices whose reads land on another device or on memory: not counted unless named
NOT_STORAGE = ('loop', 'ram', 'zram')
DEFAULT_MIN_MAJOR_FAULTS = 200
DEFAULT_MIN_DEVICE_READS = 200
MAX_SECONDS = 3600
TOO_LITTLE = 'too little I/O to judge'
CGROUP_BASES = ('/sys/fs/cgroup', '/sys/fs/cgroup/unified', '/sys/fs/cgroup/systemd')


class ObserveError(Exception):
    """An input the observation cannot use (unknown device, unit without processes, unreadable /proc)."""


def kernel_bits(machine=None):
    """Width of the kernel's ``unsigned long``: 64 on x86_64, aarch64, ppc64le, s390x, riscv64..., else 32."""
    machine = machine if machine is not None else os.uname()[4]
    return 64 if '64' in machine or machine == 's390x' else 32


def parse_diskstats(text):
    """{name: {field: int}} of /proc/diskstats (fields of sysfs_block.BLOCK_STAT_FIELDS; 11, 15 or 17 of them)."""
    result = {}
    for line in (text or '').splitlines():
        parts = line.split()
        if len(parts) < 14:
            continue            # kernels before 2.6.25 printed 4 fields for partitions: not supported
        try:
            values = [int(v) for v in parts[3:]]
        except ValueError:
            continue
        result[parts[2]] = dict(zip(BLOCK_STAT_FIELDS, values))
    return result


def parse_vmstat(text):
    """``pgmajfault``, ``pgpgin`` (KiB) and ``workingset_refault`` (the file refaults) of /proc/vmstat; None
    where the kernel has no such counter."""
    raw = {}
    for line in (text or '').splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            raw[parts[0]] = int(parts[1])
    result = dict((key, raw.get(key)) for key in VMSTAT_FIELDS)
    result['workingset_refault'] = next((raw[key] for key in REFAULT_KEYS if key in raw), None)
    return result


def parse_proc_io(text):
    """``read_bytes`` of /proc/PID/io (bytes the process caused to be read from storage), or None."""
    for line in (text or '').splitlines():
        key, dummy, value = line.partition(':')
        if key.strip() == 'read_bytes' and value.strip().isdigit():
            return int(value.strip())
    return None


def snapshot(host, pids=(), clock=None, bits=None):
    """The counters of the host now: ``time`` (monotonic), ``diskstats``, ``vmstat``, ``io`` ({pid: read_bytes or
    None when the process is gone or unreadable}) and ``bits`` (the kernel's word width)."""
    diskstats = parse_diskstats(host.read('/proc/diskstats', ''))
    if not diskstats:
        raise ObserveError('cannot read /proc/diskstats (not a Linux host, or /proc not mounted?)')
    return {
        'time': (clock or time.monotonic)(),
        'diskstats': diskstats,
        'vmstat': parse_vmstat(host.read('/proc/vmstat', '')),
        'io': dict((int(pid), parse_proc_io(host.read('/proc/%d/io' % int(pid)))) for pid in pids or ()),
        'bits': bits or kernel_bits(),
    }


def counter_delta(before, after, bits):
    """(after - before, note): a smaller ``after`` wrapped at 2**bits when ``bits`` is 32, else was reset and
    counts from zero (note ``wrapped`` or ``reset``)."""
    if after >= before:
        return after - before, None
    if bits == 32:
        return after + (1 << 32) - before, 'wrapped'
    return after, 'reset'


# --- topology: which devices count for the host ----------------------------------------------------------------
def topology(host, names):
    """{name: {parent, slaves, partitions}} from sysfs, for the names of /proc/diskstats."""
    result = {}
    for name in names:
        parent = host.parent_disk(name)
        result[name] = {'parent': parent, 'slaves': host.slaves(name),
                        'partitions': [] if parent else host.partitions(name)}
    return result


def _leaves(name, topo, seen=()):
    """The partitions and plain disks a device's reads end on (an md array: its members'; a disk: its
    partitions')."""
    entry = topo.get(name) or {}
    if entry.get('slaves') and name not in seen:
        found = set()
        for slave in entry['slaves']:
            found |= _leaves(slave, topo, seen + (name,))
        return found
    return set(entry.get('partitions') or ()) or {name}


def _height(name, topo, seen=()):
    entry = topo.get(name) or {}
    if entry.get('slaves') and name not in seen:
        return 1 + max(_height(s, topo, seen + (name,)) for s in entry['slaves'])
    return 1 if entry.get('partitions') else 0


def stack_tops(names, topo):
    """The devices of ``names`` whose reads are counted once: highest in the stack first (dm over md over disks,
    a disk over its partitions); a device is left out when a device taken before covers one of its leaves (an md
    member under its array, a partition under its disk, a disk whose partition is an md member)."""
    taken, covered = [], set()
    order = sorted(names, key=lambda n: (-_height(n, topo), 0 if (topo.get(n) or {}).get('slaves') else 1, n))
    for name in order:
        leaves = _leaves(name, topo)
        if not leaves & covered:
            taken.append(name)
            covered |= leaves
    return sorted(taken)


def default_devices(topo):
    """Every top of stack of the host, without loop, ram and zram devices (their reads end elsewhere)."""
    return stack_tops([n for n in topo if not n.startswith(NOT_STORAGE)], topo)


def resolve_devices(host, given, names):
    """Kernel names of ``given`` (kernel names or /dev paths, links followed) that /proc/diskstats lists."""
    result = []
    for item in given:
        name = os.path.basename(host.realpath(item)) if item.startswith('/') else item
        if name not in names:
            raise ObserveError('devices: %r is no block device of /proc/diskstats' % item)
        if name not in result:
            result.append(name)
    return result


# --- one window -------------------------------------------------------------------------------------------------
COUNTER_NOTES = {
    'wrapped': '%s wrapped at 2**32 inside the window (counted across the wrap)',
    'reset': '%s went down inside the window: the counter was reset (device re-created or statistics cleared) and '
             'counts from zero, so the window undercounts',
}


def _div(numerator, denominator, digits=2):
    return round(float(numerator) / denominator, digits) if denominator else None


def _device_deltas(before, after, bits):
    """({field: delta} of READ_FIELDS, notes of the counters that wrapped or were reset)."""
    deltas, notes = {}, []
    for field in READ_FIELDS:
        if before.get(field) is None or after.get(field) is None:
            deltas[field] = 0
            continue
        deltas[field], note = counter_delta(before[field], after[field], 32 if field in U32_FIELDS else bits)
        if note:
            notes.append(COUNTER_NOTES[note] % field)
    return deltas, notes


def device_figures(deltas, seconds):
    """The read figures of one device over ``seconds`` from its counter deltas."""
    reads, merged = deltas['read_ios'], deltas['read_merges']
    read_bytes = deltas['read_sectors'] * SECTOR
    return {
        'reads': reads,
        'read_bytes': read_bytes,
        'merged_reads': merged,
        'read_iops': _div(reads, seconds),
        'read_bytes_per_s': _div(read_bytes, seconds, 0),
        'avg_read_kib': _div(read_bytes, reads * 1024.0),
        'merge_ratio': _div(merged, merged + reads, 3),
        'avg_read_wait_ms': _div(deltas['read_ticks'], reads),
        'busy': min(1.0, _div(deltas['io_ticks'], seconds * 1000.0, 3)),
    }


def _vmstat_deltas(before, after, bits):
    deltas, notes = {}, []
    for key in VMSTAT_FIELDS + ('workingset_refault',):
        old, new = before.get(key), after.get(key)
        if old is None or new is None:
            deltas[key] = None
            continue
        deltas[key], note = counter_delta(old, new, bits)
        if note:
            notes.append(COUNTER_NOTES[note] % ('vmstat ' + key))
    return deltas, notes


def host_figures(vm, counted, figures, seconds):
    """The host's figures: system-wide faults and refaults, device reads summed over the ``counted`` devices."""
    faults = vm['pgmajfault']
    reads = sum(figures[name]['reads'] for name in counted)
    read_bytes = sum(figures[name]['read_bytes'] for name in counted)
    return {
        'devices': list(counted),
        'reads': reads,
        'read_bytes': read_bytes,
        'read_iops': _div(reads, seconds),
        'read_bytes_per_s': _div(read_bytes, seconds, 0),
        'avg_read_kib': _div(read_bytes, reads * 1024.0),
        'major_faults': faults,
        'major_faults_per_s': None if faults is None else _div(faults, seconds),
        'device_read_bytes_per_major_fault': _div(read_bytes, faults, 0) if faults else None,
        'pgpgin_kib': vm['pgpgin'],
        'refaults': vm['workingset_refault'],
        'refaults_per_s': None if vm['workingset_refault'] is None else _div(vm['workingset_refault'], seconds),
    }


def judge(host, min_major_faults=DEFAULT_MIN_MAJOR_FAULTS, min_device_reads=DEFAULT_MIN_DEVICE_READS):
    """(verdict, reason) of a window: ``measured``, or TOO_LITTLE with the counts below their thresholds."""
    short = []
    if (host['major_faults'] or 0) < min_major_faults:
        short.append('%d major faults (threshold %d)' % (host['major_faults'] or 0, min_major_faults))
    if host['reads'] < min_device_reads:
        short.append('%d device reads (threshold %d)' % (host['reads'], min_device_reads))
    if short:
        return TOO_LITTLE, '%s: %s' % (TOO_LITTLE, ', '.join(short))
    return 'measured', '%d major faults, %d device reads' % (host['major_faults'] or 0, host['reads'])


def process_figures(before, after, device_read_bytes):
    """``read_bytes`` of each PID over the window and their share of the counted devices' reads; None without
    PIDs. A PID only in ``after`` started inside the window (all its reads count); one gone after exited."""
    pids = sorted(set(before['io']) | set(after['io']))
    if not pids:
        return None
    per, total = {}, 0
    for pid in pids:
        old, new = before['io'].get(pid), after['io'].get(pid)
        note = None
        if new is None:
            delta, note = None, 'exited inside the window (or unreadable): its reads are not counted'
        elif old is None:
            delta, note = new, 'started inside the window: all its reads count'
        else:
            delta, reset = counter_delta(old, new, 64)
            if reset:
                note = 'read_bytes went down: a new process with the same PID, counted from zero'
        total += delta or 0
        per[str(pid)] = {'read_bytes': delta,
                         'share_of_device_reads': None if delta is None else _div(delta, device_read_bytes, 3),
                         'note': note}
    return {'pids': per, 'read_bytes': total, 'share_of_device_reads': _div(total, device_read_bytes, 3)}


def window(before, after, topo, devices=None, min_major_faults=DEFAULT_MIN_MAJOR_FAULTS,
           min_device_reads=DEFAULT_MIN_DEVICE_READS):
    """The figures of the window between two snapshots: per device of ``devices`` (kernel names; default: every
    top of stack), per host over the tops of those, the PIDs' reads, the devices that appeared or disappeared, and
    the verdict."""
    seconds = after['time'] - before['time']
    if seconds <= 0:
        raise ObserveError('the window has no length (%r s)' % seconds)
    old, new = before['diskstats'], after['diskstats']
    chosen = list(devices) if devices is not None else default_devices(topo)
    present = [name for name in chosen if name in old and name in new]
    notes = ['%s %s inside the window: not measured' % (name, 'appeared' if name in new else 'disappeared')
             for name in chosen if name not in present]
    figures = {}
    for name in present:
        deltas, device_notes = _device_deltas(old[name], new[name], after['bits'])
        figures[name] = dict(device_figures(deltas, seconds), notes=device_notes)
        notes.extend('%s: %s' % (name, note) for note in device_notes)
    vm, vm_notes = _vmstat_deltas(before['vmstat'], after['vmstat'], after['bits'])
    host = host_figures(vm, stack_tops(present, topo), figures, seconds)
    verdict, reason = judge(host, min_major_faults, min_device_reads)
    return {
        'seconds': round(seconds, 3), 'devices': figures, 'host': host,
        'processes': process_figures(before, after, host['read_bytes']),
        'appeared': sorted(set(new) - set(old)), 'disappeared': sorted(set(old) - set(new)),
        'notes': notes + vm_notes, 'verdict': verdict, 'verdict_reason': reason,
        'thresholds': {'min_major_faults': min_major_faults, 'min_device_reads': min_device_reads},
    }


# --- before and after -------------------------------------------------------------------------------------------
IMPROVED, NO_CHANGE, WORSE, TOO_LITTLE_TO_COMPARE = 'improved', 'no change', 'worse', 'too little I/O'


def short_number(value):
    """8.1, 63, 256: one decimal below 10, whole numbers above (the reports' figures)."""
    text = '%.1f' % value if value < 10 else '%d' % round(value)
    return text[:-2] if text.endswith('.0') else text


def human_bytes(value):
    """512 KiB, 8.1 KiB, 2 MiB, 900 B."""
    for unit, size in (('GiB', 1 << 30), ('MiB', 1 << 20), ('KiB', 1 << 10)):
        if value >= size:
            return '%s %s' % (short_number(float(value) / size), unit)
    return '%s B' % short_number(float(value))


def ratio_words(ratio):
    """``63x less``, ``2.5x more`` or ``about the same`` (within 0.5..2x) for before / after."""
    if ratio >= 2:
        return '%sx less' % short_number(ratio)
    if ratio <= 0.5:
        return '%sx more' % short_number(1.0 / ratio) if ratio > 0 else 'more'
    return 'about the same'


def _pair(before, after):
    ratio = round(float(before) / after, 4) if before is not None and after else None
    return {'before': before, 'after': after, 'ratio': ratio}


def _words(pair):
    return ratio_words(float(pair['before']) / pair['after'])


def compare(before, after):
    """The change between two windows (``window`` results or io_observe module results): ``bytes_per_major_fault``
    and ``avg_read_kib`` ({before, after, ratio = before / after}), ``basis`` (the figure the verdict is taken
    from), ``verdict`` (improved: 2x or more less; no change: within 0.5..2x; worse; too little I/O: either window
    saw too little to judge, never a pass) and ``summary``, one line."""
    per_fault = _pair(before['host']['device_read_bytes_per_major_fault'],
                      after['host']['device_read_bytes_per_major_fault'])
    request = _pair(before['host']['avg_read_kib'], after['host']['avg_read_kib'])
    result = {'bytes_per_major_fault': per_fault, 'avg_read_kib': request, 'basis': None}
    short = ['%s window %s' % (name, w['verdict_reason'].replace(TOO_LITTLE + ': ', '', 1))
             for name, w in (('before', before), ('after', after)) if w['verdict'] != 'measured']
    basis = 'device read bytes per major fault' if per_fault['ratio'] else 'average read request'
    ratio = per_fault['ratio'] or request['ratio']
    if short or not ratio:
        result.update(verdict=TOO_LITTLE_TO_COMPARE,
                      summary='%s: %s' % (TOO_LITTLE, '; '.join(short) or 'no reads in a window'))
        return result
    result['basis'] = basis
    result['verdict'] = IMPROVED if ratio >= 2 else WORSE if ratio <= 0.5 else NO_CHANGE
    parts = []
    if per_fault['ratio']:
        parts.append('device read bytes per major fault %s -> %s, %s' % (
            human_bytes(per_fault['before']), human_bytes(per_fault['after']), _words(per_fault)))
    if request['ratio']:
        parts.append('average read request %s -> %s KiB%s' % (
            short_number(request['before']), short_number(request['after']),
            '' if per_fault['ratio'] else ', ' + _words(request)))
    result['summary'] = '; '.join(parts)
    return result


# --- a unit's processes -----------------------------------------------------------------------------------------
def _cgroup_at(host, path):
    return next((base + path for base in CGROUP_BASES if host.exists(base + path + '/cgroup.procs')), None)


# a systemd unit name as the plan accepts it (plugin_utils/plan.py service_units) and the retire reads it back
UNIT_RE = re.compile(r'[A-Za-z0-9:_.@\\-]{1,240}')


def is_unit_name(name):
    """Whether ``name`` is a unit name (letters, digits, ``:_.@\\-``, at most 240, not starting with ``-``)."""
    return bool(UNIT_RE.fullmatch(name)) and not name.startswith('-')


def unit_name(unit):
    """A unit as systemd names it: cassandra is cassandra.service (also the name of its drop-in directory)."""
    return unit if '.' in unit else unit + '.service'


def unit_cgroup(host, unit, run_command=None):
    """The cgroup directory of a systemd unit (``cassandra`` means ``cassandra.service``): below /sys/fs/cgroup
    (v2), its ``unified`` or ``systemd`` hierarchy (v1), at system.slice/UNIT, else at the path ``systemctl show -p
    ControlGroup`` gives (a unit in another slice)."""
    name = unit_name(unit)
    found = _cgroup_at(host, '/system.slice/' + name)
    if found is None and run_command is not None:
        rc, out, dummy = run_command(['systemctl', 'show', '-p', 'ControlGroup', '--value', name])
        if rc == 0 and out.strip().startswith('/'):
            found = _cgroup_at(host, out.strip())
    if found is None:
        raise ObserveError('unit %s: no cgroup with processes found (is it running?)' % name)
    return found


def cgroup_pids(host, cgroup):
    """The PIDs of a cgroup directory and of the cgroups below it (a unit's sub-cgroups)."""
    pids = set()
    top = host.path(cgroup)
    for directory, dummy, files in os.walk(top):
        if 'cgroup.procs' in files:
            relative = os.path.relpath(directory, top)
            text = host.read(cgroup + ('' if relative == '.' else '/' + relative) + '/cgroup.procs', '')
            pids.update(int(line) for line in text.split() if line.isdigit())
    return sorted(pids)


# --- the sampling loop ------------------------------------------------------------------------------------------
def _cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def interval_rates(previous, current, counted):
    """(major faults/s, read bytes/s of the counted devices) between two consecutive snapshots."""
    seconds = current['time'] - previous['time']
    if seconds <= 0:
        return None, None
    bits = current['bits']
    old, new = previous['vmstat'].get('pgmajfault'), current['vmstat'].get('pgmajfault')
    faults = None if old is None or new is None else _div(counter_delta(old, new, bits)[0], seconds)
    sectors = sum(counter_delta(previous['diskstats'][n]['read_sectors'], current['diskstats'][n]['read_sectors'],
                                bits)[0]
                  for n in counted if n in previous['diskstats'] and n in current['diskstats'])
    return faults, _div(sectors * SECTOR, seconds, 0)


def spread(rates):
    """min and max of the per-interval rates (major faults/s, device read bytes/s)."""
    result = {}
    for index, key in enumerate(('major_faults_per_s', 'read_bytes_per_s')):
        values = [r[index] for r in rates if r[index] is not None]
        result[key] = {'min': min(values), 'max': max(values)} if values else None
    result['intervals'] = len(rates)
    return result


def check_window(seconds, interval):
    """Raise ObserveError unless 1 <= seconds <= MAX_SECONDS and 1 <= interval <= seconds."""
    if not 1 <= seconds <= MAX_SECONDS:
        raise ObserveError('seconds must be between 1 and %d, got %s' % (MAX_SECONDS, seconds))
    if not 1 <= interval <= seconds:
        raise ObserveError('interval must be between 1 and seconds (%s), got %s' % (seconds, interval))


def _pids_or_none(pids):
    """The PIDs now; none when the unit stopped inside the window (its PIDs of the start then read as exited)."""
    try:
        return pids()
    except ObserveError:
        return []


def observe(host, seconds, interval, devices=None, pids=None, min_major_faults=DEFAULT_MIN_MAJOR_FAULTS,
            min_device_reads=DEFAULT_MIN_DEVICE_READS, sleep=None, clock=None, bits=None):
    """One window of ``seconds``, sampled every ``interval`` seconds: ``window``'s result with ``spread``,
    ``samples``, ``interval`` and ``cost`` (CPU seconds of this process over the window, share of one core).
    ``pids`` is a callable returning the PIDs to follow (read at the start and at the end)."""
    check_window(seconds, interval)
    sleep, clock = sleep or time.sleep, clock or time.monotonic
    cpu = _cpu_seconds()
    start_pids = list(pids()) if pids else []
    first = snapshot(host, start_pids, clock, bits)
    topo = topology(host, sorted(first['diskstats']))
    chosen = resolve_devices(host, devices, first['diskstats']) if devices else None
    counted = stack_tops(chosen, topo) if chosen else default_devices(topo)
    previous, rates, step = first, [], 0
    while True:
        step += 1
        last = step * interval >= seconds
        delay = first['time'] + min(step * interval, seconds) - clock()
        if delay > 0:
            sleep(delay)
        follow = sorted(set(start_pids) | set(_pids_or_none(pids))) if last and pids else ()
        current = snapshot(host, follow, clock, bits)
        rates.append(interval_rates(previous, current, counted))
        previous = current
        if last:
            break
    result = window(first, current, topo, chosen, min_major_faults, min_device_reads)
    cpu = _cpu_seconds() - cpu
    result.update(spread=spread(rates), samples=step + 1, interval=interval,
                  cost={'cpu_seconds': round(cpu, 4), 'share_of_one_core': _div(cpu, result['seconds'], 5)})
    return result
