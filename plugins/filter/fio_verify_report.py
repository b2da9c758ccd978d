# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.module_utils import fio_report

_KEEP_OUT = ('invocation', 'failed', 'changed', 'item', 'fio_verify_job', 'ansible_loop_var', '_ansible_no_log',
             '_ansible_item_label', '_ansible_ignore_errors', 'test_files_removed')


def _job_name(item):
    for key in ('fio_verify_job', 'item'):
        value = item.get(key)
        if isinstance(value, dict) and value.get('name'):
            return value['name']
    return (item.get('invocation') or {}).get('module_args', {}).get('name') or '?'


def _fmt(value):
    if isinstance(value, float):
        return '%g' % value
    return str(value)


def fio_verify_report(results, directory=None, drop_runs=False):
    if not isinstance(results, list):
        raise AnsibleFilterError('fio_verify_report expects the results list of a registered loop')
    jobs = []
    missed = []
    table = [fio_report.SUMMARY_HEADER]
    device = None
    version = None
    for item in results:
        if not isinstance(item, dict):
            raise AnsibleFilterError('fio_verify_report: result items must be dicts')
        name = _job_name(item)
        measured = 'verdict' in item and not item.get('skipped')
        result = dict((k, v) for k, v in item.items() if k not in _KEEP_OUT and not k.startswith('_ansible'))
        if drop_runs:
            result.pop('runs', None)
        verdict = item['verdict'] if measured else 'not measured'
        device = device or item.get('device')
        version = version or item.get('fio_version')
        for check in item.get('thresholds') or []:
            if not check.get('passed'):
                missed.append('%s: %s = %s, limit %s %s%s' % (
                    name, check['metric'], _fmt(check['value']), 'max' if check['kind'] == 'max' else 'min',
                    _fmt(check['limit']),
                    ' (noise %s: not trusted)' % _fmt(check.get('noise'))
                    if not check.get('trusted', True) else ''))
        summary = item.get('summary') if measured else '%-16s (not measured: %s)' % (
            name[:16], item.get('msg') or item.get('skipped_reason') or 'check mode')
        table.append(summary)
        jobs.append({'name': name, 'verdict': verdict, 'summary': summary, 'result': result})
    dropped, note = _page_cache(results)
    verdicts = [j['verdict'] for j in jobs]
    if 'fail' in verdicts:
        host_verdict = 'fail'
    elif 'noisy' in verdicts:
        host_verdict = 'noisy'
    elif 'pass' in verdicts:
        host_verdict = 'pass'
    else:
        host_verdict = 'not measured'
    return {
        'directory': directory,
        'device': device,
        'fio_version': version,
        'verdict': host_verdict,
        'jobs': jobs,
        'missed': missed,
        'table': table,
        'host_cache_dropped': dropped,
        'page_cache_note': note,
    }


def _page_cache(results):
    """(host_cache_dropped, note) over the buffered jobs that ran."""
    infos = [item['page_cache'] for item in results
             if isinstance(item, dict) and isinstance(item.get('page_cache'), dict) and not item.get('skipped')
             and item['page_cache'].get('buffered', True)]
    if not infos:
        return None, 'page cache: no buffered job was measured'
    flags = [bool(i.get('host_cache_dropped')) for i in infos]
    evicted = all(i.get('test_file_evicted') for i in infos)
    if all(flags):
        return True, 'host page cache dropped before every buffered run (cold reads)'
    kept = [i for i in infos if not i.get('host_cache_dropped')]
    found = [i.get('data_found') for i in kept if i.get('data_found')]
    why = ('the filesystem holds files (e.g. %s)' % found[0]) if found else (
        'fio_verify_drop_caches=%s' % kept[0].get('mode', 'never'))
    note = ('host page cache %s: %s; %s before each run; set fio_verify_drop_caches=always to drop the whole '
            "host's cache (it evicts every application's cache)"
            % ('not dropped' if not any(flags) else 'dropped for some jobs only', why,
               'the test file was evicted from the cache' if evicted
               else 'the test file could not be evicted: results may be warm'))
    return (False if not any(flags) else 'partial'), note


_TRUE = ('true', 'yes', 'on', '1')
_FALSE = ('false', 'no', 'off', '0')


def verify_mode(value):
    """iotune_verify -> auto, always or never (true = auto, false = never)."""
    if value is None or isinstance(value, bool):
        return 'never' if value is False else 'auto'
    text = str(value).strip().lower()
    if text in _TRUE:
        return 'auto'
    if text in _FALSE:
        return 'never'
    if text in ('auto', 'always', 'never'):
        return text
    raise AnsibleFilterError('iotune_verify must be auto, always or never (or a boolean: true = auto, '
                             'false = never), got %r' % (value,))


def fio_verify_decisions(items, mode='auto', filesystems=None, run_tags=None, tag_prefix=None):
    """Annotate the plan items (iotune_plan_fio_verify) with ``verify`` (bool) and ``reason``; ``tag_prefix`` is
    dropped from the start of each of ``run_tags`` first (iotune_verify counts as verify)."""
    if not isinstance(items, list):
        raise AnsibleFilterError('fio_verify_decisions expects the list iotune_plan_fio_verify')
    mode = verify_mode(mode)
    filesystems = filesystems or {}
    prefix = tag_prefix or ''
    tags = [tag[len(prefix):] if prefix and tag.startswith(prefix) else tag for tag in run_tags or []]
    asked = 'verify' in tags
    out = []
    for item in items:
        if not isinstance(item, dict) or not item.get('directory'):
            raise AnsibleFilterError('fio_verify_decisions: every item needs a directory')
        mount = item.get('expected_mount') or item['directory']
        created = bool((filesystems.get(mount) or {}).get('changed'))
        if mode == 'never':
            verify, reason = False, 'skipped (iotune_verify=never)'
        elif mode == 'always':
            verify, reason = True, 'iotune_verify=always'
        elif asked:
            verify, reason = True, 'asked with --tags verify'
        elif created:
            verify, reason = True, 'the filesystem was created in this run'
        else:
            verify, reason = False, ('skipped: the filesystem existed before this run and a re-run does not '
                                     'benchmark a host that may be serving; run it with --tags verify or '
                                     '-e iotune_verify=always')
        out.append(dict(item, verify=verify, reason=reason))
    return out


class FilterModule(object):
    def filters(self):
        return {'fio_verify_report': fio_verify_report, 'fio_verify_decisions': fio_verify_decisions}
