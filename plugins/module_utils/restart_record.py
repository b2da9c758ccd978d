# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The record of the restarts a tune run owes (issue 28, docs/rolling.md): with ``restart: never`` in the restart
policy, a change that needs a restart (a THP change for MongoDB, a limits drop-in, a newly mounted data directory)
leaves the running service on the old setting. The run writes, on the host, which unit owes a restart, since when
and why; the audit (module storage_audit) and the metrics collector read it back and report each one still owed.

A restart is owed by the process that was running when the change was made: the record keeps that process's
systemd ``InvocationID`` (systemd.exec(5): a new one for each start of the unit). The restart is done, whoever did
it, once the unit runs with another invocation or is not running (its next start uses the new settings). Nothing
has to clear the record: readers judge each entry against the unit's state now, and the next run that writes the
record drops the entries that are done.

The file (``PATH``, root only, 0600) holds JSON: ``{"schema_version": 1, "pending": [{"unit", "invocation_id",
"since", "reasons"}]}``, one entry per unit; ``reasons`` are the change lines of the restart decision
(plugin_utils/restart_decision.py). Written atomically (a temporary file, fsync, rename, fsync of the directory): a
crash leaves the old record or the new one, never a torn one.
"""

from __future__ import annotations

import json
import os

from ansible_collections.iotune.storage.plugins.module_utils import files, systemd_show

PATH = '/var/lib/iotune-storage/pending-restarts.json'
SCHEMA_VERSION = 1
SHOW_PROPERTIES = ('Id', 'ActiveState', 'InvocationID')


class RestartRecordError(ValueError):
    pass


def show_argv(units):
    """``systemctl show`` of the properties each entry is judged by, for ``units`` (one block per unit, in order)."""
    argv = ['systemctl', 'show']
    for prop in SHOW_PROPERTIES:
        argv += ['-p', prop]
    return argv + ['--'] + list(units)


def parse_show(text, units):
    """{unit: {'active': bool, 'invocation_id': str or None}} from ``systemctl show`` output for ``units`` (blocks
    separated by an empty line, in the order asked; a unit systemd does not know is inactive, with no invocation)."""
    blocks = systemd_show.blocks(text)
    states = {}
    for index, unit in enumerate(units):
        block = blocks[index] if index < len(blocks) else {}
        states[unit] = {'active': block.get('ActiveState') in ('active', 'reloading'),
                        'invocation_id': block.get('InvocationID') or None}
    return states


def unit_states(run_command, units):
    """The state of ``units`` now, read with one systemctl call ({} for no unit)."""
    units = list(units)
    if not units:
        return {}
    rc, out, err = run_command(show_argv(units))
    if rc != 0:
        raise RestartRecordError('systemctl show failed (%s): %s' % (rc, (err or out).strip()))
    return parse_show(out, units)


def parse(text):
    """The record in ``text`` (None: no file). RestartRecordError when it is not a record of this schema."""
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError as e:
        raise RestartRecordError('not JSON: %s' % e)
    if not isinstance(data, dict) or data.get('schema_version') != SCHEMA_VERSION or \
            not isinstance(data.get('pending'), list):
        raise RestartRecordError('not a record of schema version %d' % SCHEMA_VERSION)
    for entry in data['pending']:
        if not isinstance(entry, dict) or not isinstance(entry.get('unit'), str) or \
                not isinstance(entry.get('reasons'), list):
            raise RestartRecordError('an entry without unit or reasons: %r' % (entry,))
    return data


def read(path=PATH):
    """(record or None, error or None) of the file at ``path``; a missing file is no record, not an error."""
    try:
        with open(path, encoding='utf-8') as f:
            text = f.read()
    except FileNotFoundError:
        return None, None
    except OSError as e:
        return None, 'cannot read %s: %s' % (path, e)
    try:
        return parse(text), None
    except RestartRecordError as e:
        return None, '%s: %s' % (path, e)


def owed(entry, states):
    """Whether ``entry``'s restart is still owed: its unit runs, with the invocation the record names."""
    state = states.get(entry['unit']) or {}
    return bool(state.get('active')) and state.get('invocation_id') == entry.get('invocation_id')


def still_pending(record, states):
    """The entries of ``record`` whose restart is still owed (states: unit_states() of their units)."""
    return [e for e in (record or {}).get('pending') or [] if owed(e, states)]


def merged(record, pending, states, now):
    """The record to write: the entries of ``record`` still owed, and one per unit of ``pending`` ([{'unit',
    'reasons'}], this run's decision) that runs now. A unit already owed keeps its ``since`` and gains the new
    reasons; a unit that is not running owes nothing (its next start uses the new settings)."""
    entries = dict((e['unit'], dict(e, reasons=list(e['reasons']))) for e in still_pending(record, states))
    for item in pending or []:
        state = states.get(item['unit']) or {}
        if not state.get('active'):
            continue
        entry = entries.get(item['unit'])
        if entry is None or entry.get('invocation_id') != state.get('invocation_id'):
            entry = {'unit': item['unit'], 'invocation_id': state.get('invocation_id'), 'since': now, 'reasons': []}
            entries[item['unit']] = entry
        for reason in item.get('reasons') or []:
            if reason not in entry['reasons']:
                entry['reasons'].append(reason)
    return {'schema_version': SCHEMA_VERSION, 'pending': [entries[u] for u in sorted(entries)]}


def text_of(record):
    return json.dumps(record, indent=1, sort_keys=True) + '\n'


def write_atomic(path, text, mode=0o600):
    """Replace ``path`` by ``text`` (files.write_text: a temporary file in the same directory, fsync, rename, fsync of
    the directory); the directory is made 0700 when missing, the file gets ``mode`` whatever it had."""
    directory = os.path.dirname(path) or '.'
    if not os.path.isdir(directory):
        os.makedirs(directory, mode=0o700)
    files.write_text(path, text, replace=os.replace, mode=mode, prefix='.pending-restarts.')


def audit_facts(run_command, path=PATH):
    """What the audit and the metrics collector report: {'path', 'error', 'pending'} with the entries still owed."""
    record, error = read(path)
    if record is None:
        return {'path': path, 'error': error, 'pending': []}
    try:
        states = unit_states(run_command, [e['unit'] for e in record['pending']])
    except RestartRecordError as e:
        return {'path': path, 'error': str(e), 'pending': []}
    return {'path': path, 'error': None, 'pending': still_pending(record, states)}
