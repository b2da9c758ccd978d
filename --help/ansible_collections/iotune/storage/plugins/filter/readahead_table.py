# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import csv
import io
import os

from ansible.errors import AnsibleFilterError

SYSTEM_MOUNTS = ('/', '/boot', '/boot/efi', '/usr', '/var', '/var/log', '/var/tmp', '/home', '/tmp',
                 '/run', '/opt', '/srv', '/snap')
SYSTEM_MOUNT_PREFIXES = ('/boot/', '/run/', '/snap/', '/proc/', '/sys/', '/dev/')

COLUMNS = (
    ('host', 'host'), ('device', 'device'), ('type', 'type'), ('read_ahead_kb', 'read_ahead_kb'),
    ('sectors', 'sectors'), ('scheduler', 'scheduler'), ('rotational', 'rotational'),
    ('kernel_default_kb', 'kernel default'), ('mounted_at', 'mounted at'), ('flagged', 'flag'),
    ('data_directories', 'data directories'),
)
_LIST_COLUMNS = ('mounted_at', 'data_directories')


def _is_db_mount(mountpoint, system_mounts, prefixes):
    if mountpoint in system_mounts:
        return False
    return not any(mountpoint.startswith(p) for p in prefixes)


def _under(path, mountpoint):
    return mountpoint == '/' or path == mountpoint or path.startswith(mountpoint.rstrip('/') + '/')


def place_directories(devices, directories):
    """Dict device name -> sorted data directories on it (see the option data_directories)."""
    by_majmin = dict((d.get('maj_min'), name) for name, d in devices.items() if d.get('maj_min'))
    placed = {}
    for entry in directories or []:
        if isinstance(entry, dict):
            path, dev = entry.get('path'), entry.get('dev')
        else:
            path, dev = entry, None
        if not path:
            continue
        path = os.path.normpath(str(path))
        names = []
        if isinstance(dev, int) and not isinstance(dev, bool):
            name = by_majmin.get('%d:%d' % (os.major(dev), os.minor(dev)))
            if name:
                names.append(name)
                parent = devices[name].get('parent') or devices[name].get('readahead_shared_with')
                if parent in devices:
                    names.append(parent)
        if not names:
            best = None
            for name, d in devices.items():
                for m in d.get('mounts') or []:
                    mp = m.get('mountpoint')
                    if mp and _under(path, mp) and (best is None or len(mp) > len(best[0])):
                        best = (mp, [])
                    if best and mp == best[0]:
                        best[1].append(name)
            names = best[1] if best else []
        for name in names:
            placed.setdefault(name, set()).add(path)
    return dict((k, sorted(v)) for k, v in placed.items())


def readahead_rows(facts_by_host, threshold_kb=128, system_mounts=None, system_mount_prefixes=None,
                   data_directories=None):
    """Return report rows (see DOCUMENTATION)."""
    if not isinstance(facts_by_host, dict):
        raise AnsibleFilterError('readahead_rows expects a dict of host -> iotune_readahead facts, got %s'
                                 % type(facts_by_host).__name__)
    try:
        threshold = int(threshold_kb)
    except (TypeError, ValueError):
        raise AnsibleFilterError('readahead_rows: threshold_kb must be an integer, got %r' % (threshold_kb,))
    system = set(SYSTEM_MOUNTS if system_mounts is None else system_mounts)
    prefixes = tuple(SYSTEM_MOUNT_PREFIXES if system_mount_prefixes is None else system_mount_prefixes)
    data_directories = data_directories or {}
    if not isinstance(data_directories, dict):
        raise AnsibleFilterError('readahead_rows: data_directories must be a dict of host -> directories')
    rows = []
    for host in sorted(facts_by_host):
        devices = facts_by_host[host] or {}
        if not isinstance(devices, dict):
            raise AnsibleFilterError('readahead_rows: facts of host %s are not a dict' % host)
        data_by_device = place_directories(devices, data_directories.get(host))
        for name in sorted(devices):
            dev = devices[name]
            mounts = [m.get('mountpoint') for m in dev.get('mounts') or [] if m.get('mountpoint')]
            db_mounts = [m for m in mounts if _is_db_mount(m, system, prefixes)]
            ra = dev.get('read_ahead_kb')
            rows.append({
                'host': host,
                'device': name,
                'type': dev.get('type'),
                'read_ahead_kb': ra,
                'sectors': dev.get('read_ahead_sectors'),
                'scheduler': dev.get('scheduler'),
                'rotational': dev.get('rotational'),
                'kernel_default_kb': dev.get('kernel_default_read_ahead_kb'),
                'mounted_at': mounts,
                'db_mounts': db_mounts,
                'data_directories': data_by_device.get(name, []),
                'flagged': bool(db_mounts or data_by_device.get(name)) and ra is not None and ra > threshold,
            })
    return rows


def _cell(row, key):
    value = row.get(key)
    if key in _LIST_COLUMNS:
        return ' '.join(value or [])
    if key == 'flagged':
        return 'HIGH' if value else ''
    if value is None:
        return '-'
    if isinstance(value, bool):
        return 'yes' if value else 'no'
    return str(value)


def readahead_csv(rows):
    """Format rows as CSV (header + one line per row, RFC 4180 quoting)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator='\n')
    writer.writerow([key for key, _title in COLUMNS])
    for row in rows:
        values = []
        for key, _title in COLUMNS:
            value = row.get(key)
            if key in _LIST_COLUMNS:
                values.append(' '.join(value or []))
            elif value is None:
                values.append('')
            elif isinstance(value, bool):
                values.append('true' if value else 'false')
            else:
                values.append(value)
        writer.writerow(values)
    return out.getvalue()


def readahead_table(rows, threshold_kb=None):
    """Format rows as a fixed-width text table (flagged rows marked HIGH)."""
    header = [title for _key, title in COLUMNS]
    body = [[_cell(row, key) for key, _title in COLUMNS] for row in rows]
    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]
    numeric = {3, 4, 7}
    lines = []
    for idx, r in enumerate([header] + body):
        cells = [c.rjust(widths[i]) if i in numeric and idx else c.ljust(widths[i]) for i, c in enumerate(r)]
        lines.append('  '.join(cells).rstrip())
        if idx == 0:
            lines.append('  '.join('-' * w for w in widths))
    flagged = sum(1 for row in rows if row.get('flagged'))
    if threshold_kb is not None:
        lines.append('')
        lines.append('%d device(s) flagged HIGH: readahead above %s KiB under a database mount point or a '
                     'database data directory.' % (flagged, threshold_kb))
    return '\n'.join(lines) + '\n'


class FilterModule(object):
    """iotune.storage readahead report filters."""

    def filters(self):
        return {
            'readahead_rows': readahead_rows,
            'readahead_csv': readahead_csv,
            'readahead_table': readahead_table,
        }
