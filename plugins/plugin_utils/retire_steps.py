# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The tune role's decisions around its retire_array calls (issue 29; filters retire_calls and retire_report): which
entries of ``iotune_retire_md_arrays`` it calls the module for, and what was done, for the summary, the report file
(``<iotune_report_dir>/<host>/retire.json``) and the raid0 stage (the initramfs rebuild owed)."""

from __future__ import annotations

from ansible.plugins.test.core import skipped as skipped_test


class RetireStepsError(ValueError):
    pass


def _by_name(values, what):
    if values is None:
        return None
    if not isinstance(values, list) or not all(isinstance(v, dict) and 'name' in v for v in values):
        raise RetireStepsError('%s must be a list of results with a name, got %r' % (what, values))
    return dict((v['name'], v) for v in values)


def calls(entries, read):
    """The entries (the plan's ``retire_arrays``) to call retire_array for: every one without the preflight's
    ``read`` (its ``retire`` result); with it, only those it found something left to do for (a second run with the
    same entries makes no call)."""
    reads = _by_name(read, 'the preflight read')
    if reads is None:
        return list(entries)
    return [entry for entry in entries if entry['name'] not in reads or reads[entry['name']].get('steps')]


def _called(registered):
    """{name: result} of the registered loop of retire_array calls (skipped items left out); None when it did not
    run (its tags were left out, or iotune_restore)."""
    if not isinstance(registered, dict) or 'results' not in registered:
        return None
    return dict(((r.get('tune_retire') or r.get('item') or {}).get('name'), r)
                for r in registered['results'] if isinstance(r, dict) and not skipped_test(r))


def report(entries, registered=None, read=None, check_mode=False):
    """{arrays, rebuild_owed, changed, lines}: per entry what its call did (or, without a call, what the preflight
    read found: nothing left to do), whether the initramfs rebuild is owed, and one summary line per entry."""
    called = _called(registered)
    reads = _by_name(read, 'the preflight read') or {}
    arrays, lines, owed = [], [], False
    for entry in entries:
        name = entry['name']
        result = (called or {}).get(name)
        if result is not None and result.get('failed'):
            item = {'name': name, 'uuid': entry['confirm_uuid'], 'failed': True, 'msg': result.get('msg'),
                    'done': [], 'steps': []}
        elif result is not None:
            item = dict((k, result.get(k)) for k in ('name', 'uuid', 'state', 'device', 'filesystem_uuid',
                                                     'mountpoints', 'members', 'services', 'steps', 'done', 'status',
                                                     'rebuild_pending', 'superblocks_zeroed', 'conf_path'))
            item['source'] = 'retire_array (check mode)' if check_mode else 'retire_array'
        elif name in reads:
            item = dict((k, reads[name].get(k)) for k in ('name', 'uuid', 'state', 'mountpoints', 'members',
                                                          'rebuild_pending', 'conf_path'))
            item.update(steps=[], done=[], source='preflight read',
                        status=reads[name].get('status') if not reads[name].get('steps') else
                        'not run in this run (iotune_restore, or its tag iotune_raid left out)')
        else:
            item = {'name': name, 'uuid': entry['confirm_uuid'], 'steps': [], 'done': [], 'source': None,
                    'status': 'not checked in this run'}
        item['zero_superblocks'] = entry['zero_superblocks']
        owed = owed or bool(item.get('rebuild_pending'))
        arrays.append(item)
        if item.get('failed'):
            lines.append('retire %s: FAILED: %s' % (name, item['msg']))
        elif item['done']:
            lines.append('retire %s (UUID %s): %s%s' % (name, item['uuid'], 'would be: ' if check_mode else '',
                                                        '; '.join(item['done'])))
        else:
            lines.append('retire %s (UUID %s): %s' % (name, item['uuid'], item['status']))
    return {'arrays': arrays, 'rebuild_owed': owed, 'lines': lines,
            'changed': any(a['done'] for a in arrays)}
