# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Pure helpers for the fio module: parse fio JSON, compute block stat deltas,
read amplification, median/noise over repeats and threshold verdicts.

Nothing here runs a process or touches the system, so every function can be
unit-tested against captured fio output and fake ``/sys/block/<dev>/stat`` data.
"""

from __future__ import annotations

import json
import re

SECTOR_BYTES = 512

# Latency percentiles reported by the module: fio key -> result key (microseconds).
PERCENTILES = (
    ('50.000000', 'p50_us'),
    ('95.000000', 'p95_us'),
    ('99.000000', 'p99_us'),
    ('99.900000', 'p99_9_us'),
)
DEFAULT_PERCENTILE_LIST = '50:95:99:99.9'

# Metrics that are aggregated over repeats (median) and can carry thresholds.
METRICS = (
    'iops', 'bw_bytes', 'p50_us', 'p95_us', 'p99_us', 'p99_9_us', 'runtime_ms', 'io_bytes',
    'device_read_bytes', 'device_read_ios', 'device_read_merges', 'device_bw_bytes',
    'avg_request_kb', 'read_amplification',
)
# Metrics whose spread decides whether a result is "noisy".
NOISE_METRICS = ('iops', 'read_amplification')

_SIZE_RE = re.compile(r'^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?b?)\s*$', re.IGNORECASE)
_SIZE_MULT = {'': 1, 'k': 1024, 'm': 1024 ** 2, 'g': 1024 ** 3, 't': 1024 ** 4, 'p': 1024 ** 5}


class FioReportError(Exception):
    """Raised for output or input that cannot be interpreted."""


def parse_size(value):
    """Return a fio-style size (``4k``, ``512m``, ``1g``, ``1GiB``, int bytes) in bytes.

    Suffixes are binary (fio's default ``kb_base=1024``). Percentages and ranges
    are refused because the module must know the exact size to check free space.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        raise FioReportError('invalid size %r' % (value,))
    if isinstance(value, int):
        if value < 0:
            raise FioReportError('invalid size %r' % (value,))
        return value
    match = _SIZE_RE.match(str(value))
    if not match:
        raise FioReportError(
            'cannot interpret size %r: use bytes or a number with a k/m/g/t suffix '
            '(percentages and ranges are not supported here)' % (value,))
    number, unit = match.group(1), match.group(2).lower()
    return int(float(number) * _SIZE_MULT[unit])


def load_fio_json(text):
    """Parse fio ``--output-format=json`` output.

    fio may print warnings (``fio: ...``) before the JSON document, so anything
    before the first ``{`` at the start of a line is skipped.
    """
    if not text or not text.strip():
        raise FioReportError('fio printed no output')
    start = 0 if text.lstrip().startswith('{') else None
    if start is None:
        match = re.search(r'^\{', text, re.MULTILINE)
        if not match:
            raise FioReportError('no JSON document in fio output: %r' % text[:200])
        start = match.start()
    try:
        data = json.loads(text[start:])
    except ValueError as exc:
        raise FioReportError('cannot parse fio JSON output: %s' % exc)
    if not isinstance(data, dict) or not isinstance(data.get('jobs'), list) or not data['jobs']:
        raise FioReportError('fio JSON output has no jobs')
    return data


def _percentiles_us(read):
    """Return ({p50_us: ..}, source) from lat_ns (total) if present, else clat_ns."""
    for source in ('lat_ns', 'clat_ns'):
        pct = (read.get(source) or {}).get('percentile')
        if pct:
            out = {}
            for key, name in PERCENTILES:
                value = pct.get(key)
                out[name] = None if value is None else round(value / 1000.0, 3)
            return out, source
    return dict((name, None) for _key, name in PERCENTILES), None


def summarize_job(job):
    """Return the read-side numbers of one fio ``jobs[]`` entry."""
    read = job.get('read') or {}
    pct, source = _percentiles_us(read)
    out = {
        'jobname': job.get('jobname'),
        'error': job.get('error', 0),
        'iops': float(read.get('iops', 0.0)),
        'bw_bytes': int(read.get('bw_bytes', 0)),
        'runtime_ms': int(read.get('runtime', 0)),
        'io_bytes': int(read.get('io_bytes', 0)),
        'total_ios': int(read.get('total_ios', 0)),
        'latency_source': source,
    }
    out.update(pct)
    return out


def summarize_fio(data):
    """Aggregate all jobs of one fio run.

    IOPS, bandwidth and bytes are summed over jobs, runtime is the longest job,
    percentiles are the worst (largest) over jobs. With ``group_reporting`` (the
    module sets it for jobs it describes) there is a single job entry and the
    numbers are fio's own.
    """
    jobs = [summarize_job(job) for job in data['jobs']]
    errors = [j for j in jobs if j['error']]
    if errors:
        raise FioReportError('fio job(s) reported errors: %s' % ', '.join(
            '%s: error %s' % (j['jobname'], j['error']) for j in errors))
    total = {
        'iops': round(sum(j['iops'] for j in jobs), 3),
        'bw_bytes': sum(j['bw_bytes'] for j in jobs),
        'runtime_ms': max(j['runtime_ms'] for j in jobs),
        'io_bytes': sum(j['io_bytes'] for j in jobs),
        'latency_source': jobs[0]['latency_source'],
    }
    for _key, name in PERCENTILES:
        values = [j[name] for j in jobs if j[name] is not None]
        total[name] = max(values) if values else None
    total['fio_version'] = data.get('fio version')
    total['jobs'] = jobs
    return total


def disk_util_read_bytes(data, name):
    """Return read bytes of device ``name`` from fio's ``disk_util`` (fio >= 3.36), else None.

    fio 3.33 (Debian 12) has no ``read_sectors`` in ``disk_util``; the module then
    relies on its own /sys/block/<dev>/stat snapshots only.
    """
    for entry in data.get('disk_util') or []:
        if entry.get('name') == name and 'read_sectors' in entry:
            return int(entry['read_sectors']) * SECTOR_BYTES
    return None


def stat_delta(before, after):
    """Return the read-side delta between two read_block_stat() dicts."""
    delta = {}
    for field in ('read_ios', 'read_merges', 'read_sectors'):
        b, a = before.get(field), after.get(field)
        if b is None or a is None:
            raise FioReportError('block stat field %s missing' % field)
        if a < b:
            raise FioReportError(
                'block stat %s went backwards (%d -> %d): device reset during the run?' % (field, b, a))
        delta[field] = a - b
    return delta


def device_numbers(delta, runtime_ms=None):
    """Turn a stat delta into device_read_bytes/ios/merges, avg_request_kb, device_bw_bytes."""
    read_bytes = delta['read_sectors'] * SECTOR_BYTES
    out = {
        'device_read_bytes': read_bytes,
        'device_read_ios': delta['read_ios'],
        'device_read_merges': delta['read_merges'],
        'avg_request_kb': round(read_bytes / 1024.0 / delta['read_ios'], 2) if delta['read_ios'] else None,
    }
    if runtime_ms:
        out['device_bw_bytes'] = int(read_bytes * 1000 / runtime_ms)
    else:
        out['device_bw_bytes'] = None
    return out


def read_amplification(device_read_bytes, io_bytes):
    """Device bytes read / application bytes read (None if the job read nothing)."""
    if not io_bytes:
        return None
    return round(float(device_read_bytes) / io_bytes, 3)


def build_run_result(fio_data, device, before, after, members_before=None, members_after=None):
    """Combine one fio run and its stat snapshots into the per-run result dict.

    ``before``/``after`` are read_block_stat() dicts of the device under the
    filesystem; ``members_*`` map member (slave) names to theirs.
    """
    summary = summarize_fio(fio_data)
    result = dict(summary)
    result['device'] = device
    result.update(device_numbers(stat_delta(before, after), summary['runtime_ms']))
    result['read_amplification'] = read_amplification(result['device_read_bytes'], summary['io_bytes'])
    result['fio_disk_util_read_bytes'] = disk_util_read_bytes(fio_data, device)
    members = {}
    for name in sorted(members_before or {}):
        if name not in (members_after or {}):
            continue
        members[name] = device_numbers(
            stat_delta(members_before[name], members_after[name]), summary['runtime_ms'])
    result['members'] = members
    return result


def median(values):
    """Median of the non-None values (None if there are none)."""
    vals = sorted(v for v in values if v is not None)
    if not vals:
        return None
    mid = len(vals) // 2
    if len(vals) % 2:
        return vals[mid]
    return (vals[mid - 1] + vals[mid]) / 2.0


def noise(values):
    """(max - min) / median of the non-None values; None if undefined, 0.0 for one value."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    med = median(vals)
    if not med:
        return 0.0 if max(vals) == min(vals) else None
    return round((max(vals) - min(vals)) / float(med), 4)


def aggregate_runs(runs, noise_max=0.2):
    """Median of every metric over the repeats, plus the noise of each metric.

    Returns a dict with the metric medians at top level, ``noise`` (metric ->
    (max-min)/median), ``noisy`` (True if a NOISE_METRICS spread exceeds
    ``noise_max``) and ``repeat`` (number of runs).
    """
    if not runs:
        raise FioReportError('no runs to aggregate')
    out = {}
    spread = {}
    for metric in METRICS:
        values = [r.get(metric) for r in runs]
        med = median(values)
        if isinstance(med, float):
            med = round(med, 3)
        out[metric] = med
        spread[metric] = noise(values)
    out['noise'] = spread
    out['noisy'] = any(
        spread.get(m) is not None and spread[m] > noise_max for m in NOISE_METRICS)
    out['repeat'] = len(runs)
    out['device'] = runs[0].get('device')
    out['latency_source'] = runs[0].get('latency_source')
    members = {}
    for name in runs[0].get('members') or {}:
        members[name] = {}
        for metric in ('device_read_bytes', 'device_read_ios', 'device_read_merges',
                       'avg_request_kb', 'device_bw_bytes'):
            members[name][metric] = median([(r.get('members') or {}).get(name, {}).get(metric) for r in runs])
    out['members'] = members
    return out


def auto_size(free_bytes, existing_bytes=0, fraction=0.25, low=64 * 1024 ** 2, high=1024 ** 3):
    """Test file size for ``size=auto``: ``fraction`` of the free space (counting an existing
    test file as free), clamped to [low, high], rounded down to whole MiB."""
    if existing_bytes:
        return existing_bytes
    size = int(free_bytes * fraction)
    size = max(low, min(high, size))
    return size - size % (1024 ** 2)


def verdict(checks, noise_max):
    """'pass', 'fail' (a missed threshold whose metric noise <= noise_max) or 'noisy'
    (only missed thresholds whose metric is noisier than noise_max: not trusted)."""
    failed = [c for c in checks if not c['passed']]
    if not failed:
        return 'pass'
    trusted = [c for c in failed if _trusted(c.get('noise'), noise_max)]
    return 'fail' if trusted else 'noisy'


def _trusted(noise_value, noise_max):
    return noise_value is None or noise_max is None or noise_value <= noise_max


def check_thresholds(result, thresholds, noise_max=None):
    """Compare the aggregated ``result`` with ``thresholds``.

    ``thresholds`` maps ``<metric>_max`` / ``<metric>_min`` to a number, e.g.
    ``{'read_amplification_max': 2.0, 'iops_min': 500}``; metric is one of
    METRICS. Returns (passed, checks) where checks is a list of dicts
    ``{name, metric, kind, limit, value, passed, noise, trusted}``; ``trusted``
    is False when the metric's noise exceeds ``noise_max``. A metric that could
    not be measured (None) fails its check.
    """
    checks = []
    for name in sorted(thresholds or {}):
        limit = thresholds[name]
        if name.endswith('_max'):
            metric, kind = name[:-4], 'max'
        elif name.endswith('_min'):
            metric, kind = name[:-4], 'min'
        else:
            raise FioReportError(
                'threshold %r must end with _max or _min (e.g. read_amplification_max)' % name)
        if metric not in METRICS:
            raise FioReportError('threshold %r: unknown metric %r (known: %s)'
                                 % (name, metric, ', '.join(METRICS)))
        try:
            limit = float(limit)
        except (TypeError, ValueError):
            raise FioReportError('threshold %r: limit %r is not a number' % (name, limit))
        value = result.get(metric)
        if value is None:
            passed = False
        elif kind == 'max':
            passed = value <= limit
        else:
            passed = value >= limit
        noise_value = (result.get('noise') or {}).get(metric)
        checks.append({
            'name': name, 'metric': metric, 'kind': kind, 'limit': limit, 'value': value,
            'passed': passed, 'noise': noise_value, 'trusted': _trusted(noise_value, noise_max),
        })
    return all(c['passed'] for c in checks), checks


def fmt_bytes(value):
    """Compact human size for summaries (binary units)."""
    if value is None:
        return '-'
    value = float(value)
    for unit in ('B', 'KiB', 'MiB', 'GiB'):
        if abs(value) < 1024 or unit == 'GiB':
            return ('%.0f%s' % (value, unit)) if unit == 'B' else ('%.1f%s' % (value, unit))
        value /= 1024.0
    return '%.1fGiB' % value  # pragma: no cover


def _pct(value):
    return None if value is None else value * 100.0


def summary_line(name, result, status='pass'):
    """One fixed-width line describing an aggregated result (for the role's table)."""
    def num(value, pattern):
        return '-' if value is None else pattern % value

    text = status
    if result.get('noisy') and status != 'noisy':
        text += ' (noisy)'
    return '%-16s %10s %10s %8s %10s %8s %7s  %s' % (
        name[:16],
        num(result.get('iops'), '%.0f'),
        fmt_bytes(result.get('bw_bytes')) + '/s' if result.get('bw_bytes') is not None else '-',
        num(result.get('read_amplification'), '%.2fx'),
        num(result.get('p99_us'), '%.0fus'),
        num(result.get('avg_request_kb'), '%.1fk'),
        num(_pct((result.get('noise') or {}).get('iops')), '%.0f%%'),
        text,
    )


SUMMARY_HEADER = '%-16s %10s %10s %8s %10s %8s %7s  %s' % (
    'job', 'IOPS', 'bw', 'amplif', 'p99', 'avg_req', 'noise', 'verdict')


def count_job_file_sections(text):
    """Return [(section, {key: value})] of a fio job file, [global] sections included.

    Minimal parser: ``[name]`` headers, ``key=value`` or bare ``key`` lines,
    ``#``/``;`` comments. Enough to find the keys the module refuses and to
    estimate the test file footprint.
    """
    sections = []
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in '#;':
            continue
        if line.startswith('[') and line.endswith(']'):
            current = (line[1:-1].strip(), {})
            sections.append(current)
            continue
        if current is None:
            raise FioReportError('job file line outside a [section]: %r' % raw)
        key, _sep, value = line.partition('=')
        current[1][key.strip().lower()] = value.strip()
    return sections
