# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Readahead sweep tables on the controller (the readahead_sweep_table filter): rows, recommendation, CSV.

Only the controller uses this; the fio module's own reporting stays in module_utils/fio_report.py.
"""

from __future__ import annotations

from ansible_collections.iotune.storage.plugins.module_utils.fio_report import FioReportError

SWEEP_COLUMNS = (
    'read_ahead_kb', 'iops', 'device_mb_s', 'app_mb_s', 'read_amplification', 'p99_us',
    'avg_request_kb', 'runtime_ms', 'noise', 'noisy',
)


def sweep_rows(points):
    """One table row per sweep point (a fio module result with ``read_ahead``), sorted by readahead.

    ``device_mb_s``/``app_mb_s`` are 10^6 bytes/s; ``noise`` is the IOPS noise.
    """
    rows = []
    for point in points:
        ra = (point.get('read_ahead') or {}).get('used')
        if ra is None:
            raise FioReportError('sweep point without read_ahead.used (was read_ahead_kb set?)')

        def mb(value):
            return None if value is None else round(value / 1e6, 3)
        rows.append({
            'read_ahead_kb': int(ra),
            'iops': point.get('iops'),
            'device_mb_s': mb(point.get('device_bw_bytes')),
            'app_mb_s': mb(point.get('bw_bytes')),
            'read_amplification': point.get('read_amplification'),
            'p99_us': point.get('p99_us'),
            'avg_request_kb': point.get('avg_request_kb'),
            'runtime_ms': point.get('runtime_ms'),
            'noise': (point.get('noise') or {}).get('iops'),
            'noisy': bool(point.get('noisy')),
        })
    return sorted(rows, key=lambda r: r['read_ahead_kb'])


def recommend(rows, tolerance=0.1):
    """The smallest readahead whose IOPS is within ``tolerance`` of the best IOPS.

    Returns a dict with ``read_ahead_kb``, ``best_iops``, ``best_read_ahead_kb``,
    ``tolerance``, ``noisy`` (True if a point inside the tolerance band was noisy:
    the choice is then less certain) and a one-sentence ``reason``.
    """
    measured = [r for r in rows if r.get('iops') is not None]
    if not measured:
        raise FioReportError('no measured sweep point')
    if not 0 <= tolerance < 1:
        raise FioReportError('tolerance must be in [0, 1)')
    best = max(measured, key=lambda r: (r['iops'], -r['read_ahead_kb']))
    floor = best['iops'] * (1 - tolerance)
    inside = [r for r in measured if r['iops'] >= floor]
    chosen = min(inside, key=lambda r: r['read_ahead_kb'])
    return {
        'read_ahead_kb': chosen['read_ahead_kb'],
        'iops': chosen['iops'],
        'read_amplification': chosen.get('read_amplification'),
        'best_iops': best['iops'],
        'best_read_ahead_kb': best['read_ahead_kb'],
        'tolerance': tolerance,
        'noisy': any(r.get('noisy') for r in inside),
        'reason': 'smallest readahead with IOPS >= %.0f (best %.0f at %d KiB minus %.0f %%): %d KiB at %.0f IOPS, '
                  'amplification %s' % (
                      floor, best['iops'], best['read_ahead_kb'], tolerance * 100, chosen['read_ahead_kb'],
                      chosen['iops'], '-' if chosen.get('read_amplification') is None
                      else '%.2fx' % chosen['read_amplification']),
    }


def _csv_cell(value):
    if value is None:
        return ''
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, float):
        return '%g' % value
    return str(value)


def sweep_csv(rows):
    """CSV text (header + rows) of sweep_rows()."""
    lines = [','.join(SWEEP_COLUMNS)]
    for row in rows:
        cells = []
        for col in SWEEP_COLUMNS:
            cells.append(_csv_cell(row.get(col)))
        lines.append(','.join(cells))
    return '\n'.join(lines) + '\n'
