# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The observation report of the tune role (filter observe_report; issue 26, docs/observe.md).

The two io_observe windows (before the block-tuning stage, after the block-tuning and kernel stages) as the role
registered them, reduced to the module's own keys, and their comparison (module_utils/io_observe.compare, the one
home of the arithmetic and the verdict), for ``iotune-reports/<host>/observe.json`` and the summary line.
"""

from __future__ import annotations

from ansible_collections.iotune.storage.plugins.module_utils import io_observe

# what io_observe returns (its RETURN); the rest of a registered result (changed, invocation...) is Ansible's
WINDOW_KEYS = ('seconds', 'interval', 'samples', 'devices', 'host', 'processes', 'appeared', 'disappeared', 'notes',
               'verdict', 'verdict_reason', 'thresholds', 'spread', 'cost', 'unit')
CHECK_NOTE = 'check mode: nothing was tuned between the two windows, so they measure the same settings'


class ObserveReportError(Exception):
    """A window is not an io_observe result."""


def window_of(result, name):
    """The io_observe keys of a registered result; ObserveReportError for a skipped or failed task."""
    if not isinstance(result, dict) or result.get('skipped') or result.get('failed') or 'host' not in result:
        raise ObserveReportError('observe_report: the %s window is not an io_observe result (skipped or failed?): %s'
                                 % (name, _short(result)))
    return _window_keys(result)


def _window_keys(result):
    return dict((key, result.get(key)) for key in WINDOW_KEYS)


def _short(value):
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + '...'


def report(before, after, check_mode=False, host=None):
    """{host, check_mode, note, before, after, comparison} of two registered io_observe results."""
    windows = {'before': window_of(before, 'before'), 'after': window_of(after, 'after')}
    return {
        'host': host,
        'check_mode': bool(check_mode),
        'note': CHECK_NOTE if check_mode else None,
        'before': windows['before'],
        'after': windows['after'],
        'comparison': io_observe.compare(windows['before'], windows['after']),
    }


def summary_line(observe_report):
    """The tune summary's sentence of an observation report; None without one."""
    if not isinstance(observe_report, dict) or 'comparison' not in observe_report:
        return None
    comparison = observe_report['comparison']
    verdict = '' if comparison['verdict'] == io_observe.TOO_LITTLE_TO_COMPARE else comparison['verdict'] + '; '
    return 'observed reads (%s s before and after the tuning): %s%s%s' % (
        whole(observe_report['before'].get('seconds')), verdict, comparison['summary'],
        ' (%s)' % CHECK_NOTE if observe_report.get('check_mode') else '')


def whole(value):
    """A window's seconds as a whole number, ``?`` when unknown (the summary line and the audit's reports)."""
    return '%d' % round(value) if isinstance(value, (int, float)) else '?'


# --- the audit's reading of one window (issue 26, docs/observe.md "The audit") ------------------------------------
WASTING = 'readahead wasting reads'
NO_WASTE = 'no waste seen'
TOO_LITTLE = io_observe.TOO_LITTLE
# A random read needs one page (4 KiB); under read-around an mmap fault reads about the readahead (storage-facts
# section 1.8), so a random workload tuned as the profiles say (8 to 16 KiB) reads 8 to 16 KiB per fault and per
# request. 64 KiB is 4x the largest of those and half the kernel's default readahead of 128 KiB: above it the reads
# are far larger than random reads need, whatever the profile says.
WASTE_THRESHOLD_KIB = 64


def audit_window(result):
    """(window, problem) of the audit's registered io_observe result: (None, None) when no window ran (off or
    skipped), (None, message) when it failed or the host was unreachable, else (the io_observe keys, None)."""
    if result is None or (isinstance(result, dict) and result.get('skipped')):
        return None, None
    if not isinstance(result, dict) or result.get('failed') or result.get('unreachable') or 'host' not in result:
        message = result.get('msg') if isinstance(result, dict) else None
        return None, 'the io_observe window did not run: %s' % (message or _short(result))
    return _window_keys(result), None


def _kib(value):
    return None if value is None else round(float(value) / 1024, 2)


def waste(window, configured=None, threshold_kib=WASTE_THRESHOLD_KIB):
    """The audit's reading of one io_observe window, whatever the profile says.

    Returns {seconds, verdict, verdict_reason, threshold_kib, status, host, devices, findings, notes}. ``status`` (of
    the host, and of each device) is WASTING, NO_WASTE or TOO_LITTLE: a window that was not ``measured`` judges
    nothing, and a device with fewer reads than the window's ``min_device_reads`` is TOO_LITTLE on its own.
    WASTING when the window was measured and
    - (host) the device read bytes per major fault exceed ``threshold_kib`` KiB; with ``min_major_faults`` 0 (a pread
      engine: faults say nothing) the host's average read request is taken instead;
    - (device) its average read request exceeds ``threshold_kib`` KiB.
    ``configured``: {kernel name: {live, profile, rules}} of read_ahead_kb (the audit's rows), shown beside each
    device. ``findings``: [{subject, message}], one per WASTING host or device."""
    configured = configured or {}
    thresholds = window.get('thresholds') or {}
    min_faults = thresholds.get('min_major_faults', io_observe.DEFAULT_MIN_MAJOR_FAULTS)
    min_reads = thresholds.get('min_device_reads', io_observe.DEFAULT_MIN_DEVICE_READS)
    measured = window.get('verdict') == 'measured'
    seconds = whole(window.get('seconds'))
    limit = threshold_kib * 1024
    findings = []
    host = _host_waste(window.get('host') or {}, min_faults, measured, seconds, threshold_kib, limit, findings)
    devices = [_device_waste(name, window['devices'][name], configured.get(name), min_reads, measured, seconds,
                             threshold_kib, findings)
               for name in sorted(window.get('devices') or {})]
    status = WASTING if findings else (TOO_LITTLE if not measured else NO_WASTE)
    return {'seconds': window.get('seconds'), 'verdict': window.get('verdict'),
            'verdict_reason': window.get('verdict_reason'), 'threshold_kib': threshold_kib, 'status': status,
            'host': host, 'devices': devices, 'findings': findings, 'notes': list(window.get('notes') or [])}


def _host_waste(figures, min_faults, measured, seconds, threshold_kib, limit, findings):
    """waste's host row of the window's host figures (``limit``: the threshold in bytes); appends its finding when
    WASTING."""
    per_fault = figures.get('device_read_bytes_per_major_fault')
    by_fault = bool(min_faults) and per_fault is not None
    host = {'devices': list(figures.get('devices') or []), 'major_faults': figures.get('major_faults'),
            'device_read_bytes_per_major_fault': per_fault, 'device_read_kib_per_major_fault': _kib(per_fault),
            'reads': figures.get('reads'), 'avg_read_kib': figures.get('avg_read_kib'),
            'basis': 'device read bytes per major fault' if by_fault else 'average read request'}
    if not measured:
        host['status'] = TOO_LITTLE
    elif by_fault and per_fault > limit:
        host['status'] = WASTING
        findings.append({'subject': 'host (%s)' % ', '.join(host['devices']),
                         'message': '%s: %s read from the devices per major fault (%s major faults in %s s; '
                                    'threshold %d KiB)'
                                    % (WASTING, io_observe.human_bytes(per_fault), figures.get('major_faults'),
                                       seconds, threshold_kib)})
    elif not by_fault and (figures.get('avg_read_kib') or 0) > threshold_kib:
        host['status'] = WASTING
        findings.append({'subject': 'host (%s)' % ', '.join(host['devices']),
                         'message': '%s: average read request %s KiB over %s reads in %s s (threshold %d KiB)'
                                    % (WASTING, io_observe.short_number(figures['avg_read_kib']), figures.get('reads'),
                                       seconds, threshold_kib)})
    else:
        host['status'] = NO_WASTE
    return host


def _device_waste(name, fig, ra, min_reads, measured, seconds, threshold_kib, findings):
    """waste's row of one device (``ra``: its configured read_ahead_kb); appends its finding when WASTING."""
    row = {'device': name, 'read_ahead_kb': ra, 'reads': fig.get('reads'), 'read_bytes': fig.get('read_bytes'),
           'avg_read_kib': fig.get('avg_read_kib')}
    if not measured or (fig.get('reads') or 0) < min_reads or row['avg_read_kib'] is None:
        row['status'] = TOO_LITTLE
    elif row['avg_read_kib'] > threshold_kib:
        row['status'] = WASTING
        findings.append({'subject': name, 'message': '%s: average read request %s KiB over %s reads in %s s '
                                                     '(threshold %d KiB)%s'
                         % (WASTING, io_observe.short_number(row['avg_read_kib']), row['reads'], seconds,
                            threshold_kib, _configured_words(ra))})
    else:
        row['status'] = NO_WASTE
    return row


def _configured_words(ra):
    if not ra:
        return ''
    return '; read_ahead_kb live %s, profile %s' % (ra.get('live'), '-' if ra.get('profile') is None
                                                    else ra.get('profile'))
