# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tune_summary: the per-host summary lines of the iotune.storage.tune role (docs: tune_summary.yml)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.module_utils import md_identity
from ansible_collections.iotune.storage.plugins.plugin_utils.observe import summary_line


def _text(value):
    return str(value)


def _array_lines(array, facts, plan_profile, check_mode):
    name = array.get('name')
    found = [dev for dev in facts.values()
             if isinstance(dev, dict) and dev.get('md') and isinstance((dev['md'] or {}).get('name'), str)
             and md_identity.name_matches(dev['md']['name'], str(name))]
    if not found:
        return ['%s: array not present%s' % (name, ' (check mode)' if check_mode else '')]
    dev = found[0]
    md = dev['md']
    mounts = ', '.join(_text(m.get('mountpoint')) for m in dev.get('mounts') or []) or 'nothing'
    lines = ['%s: %s raid%s chunk %s KiB x %s, read_ahead_kb %s (profile %s, kernel default %s), mounted at %s' % (
        name, dev.get('name'), _text(md.get('level', '?')).replace('raid', ''), md.get('chunk_kb'),
        md.get('raid_disks'), dev.get('read_ahead_kb'), (plan_profile.get('array') or {}).get('read_ahead_kb'),
        dev.get('kernel_default_read_ahead_kb'), mounts)]
    for member in dev.get('slaves') or []:
        info = facts.get(member) or {}
        lines.append('  member %s: scheduler %s, read_ahead_kb %s' % (
            member, info.get('scheduler', '?'), info.get('read_ahead_kb', '?')))
    return lines


def _udev_line(block_tuning, check_mode):
    if not isinstance(block_tuning, dict) or 'rules_file' not in block_tuning:
        return []
    if block_tuning.get('rules_changed'):
        state = 'would change' if check_mode else 'changed'
    else:
        state = 'unchanged'
    return ['udev rules %s: %s%s%s' % (block_tuning['rules_file'], state,
                                       ', would trigger: ' if check_mode else ', triggered: ',
                                       ', '.join(block_tuning.get('triggered') or []) or 'none')]


def _verify_lines(decisions, verified, check_mode):
    lines = []
    for item in decisions or []:
        directory = item['directory']
        if directory in verified:
            report = verified[directory]
            lines.append('fio verification of %s: %s%s%s); %s' % (
                directory, report.get('verdict'), ' (check mode: ' if check_mode else ' (', item.get('reason'),
                report.get('page_cache_note')))
        elif item.get('verify'):
            lines.append('fio verification of %s: not measured%s (%s)' % (
                directory, ' (check mode)' if check_mode else '', item.get('reason')))
        else:
            lines.append('fio verification of %s: %s' % (directory, item.get('reason')))
    return lines


def _kernel_line(report):
    if not isinstance(report, dict) or 'conflicts' not in report:
        return []
    problems = list(report.get('conflicts') or []) + list(report.get('drift') or [])
    notes = report.get('notes') or []
    return ['kernel settings: %s%s' % ('; '.join(problems) if problems else 'as the profile says',
                                       (' (notes: %s)' % '; '.join(notes)) if notes else '')]


def _original_state_lines(report, check_mode):
    """The snapshot of the host's original state (module original_state): recorded or restored in this run, or
    found by the preflight's read (a re-run that makes no call for it)."""
    if not isinstance(report, dict):
        return []
    path = report.get('path')
    restored, recorded = report.get('restored'), report.get('recorded')
    if isinstance(restored, dict) and isinstance(restored.get('restore'), dict):
        plan = restored['restore']
        held = restored.get('original_state') or {}
        if not plan.get('changed'):
            line = 'original state %s (recorded %s): nothing to restore, the host has it' % (path, held.get('recorded_at'))
        else:
            line = 'original state %s (recorded %s): %s %d file(s), %d queue value(s), %d sysctl(s), %d THP value(s)' % (
                path, held.get('recorded_at'), 'would restore' if check_mode else 'restored', len(plan.get('files') or []),
                len(plan.get('queue') or []), len(plan.get('sysctl') or []), len(plan.get('thp') or []))
        gone = ', '.join(str(g.get('identity')) for g in plan.get('gone') or [])
        timer = plan.get('fstrim_timer') or {}
        timer_line = ['fstrim.timer: %s (%s)' % (' and '.join(timer['commands']) if timer.get('commands') else 'left',
                                                 timer.get('why'))] if timer.get('why') else []
        return [line + ('; not on the host any more: %s' % gone if gone else '')] + list(
            restored.get('limits') or []) + timer_line
    if isinstance(recorded, dict) and isinstance(recorded.get('original_state'), dict):
        held = recorded['original_state']
        if recorded.get('recorded'):
            return ['original state %s in %s: %d device(s), %d sysctl(s), THP %s, files %s' % (
                'would be recorded' if check_mode else 'recorded', path, len(held.get('devices') or []),
                held.get('sysctl') or 0, ', '.join(held.get('thp') or []) or 'none',
                ', '.join('%s (%s)' % kv for kv in sorted((held.get('files') or {}).items())) or 'none')]
        return ['original state: %s (recorded %s by %s)' % (path, held.get('recorded_at'), held.get('version'))]
    if report.get('found'):
        return ['original state: %s (recorded by an earlier run; iotune_restore: true puts it back)' % path]
    return []


def tune_summary(facts, profile=None, plan_profile=None, arrays=None, block_tuning=None, verified=None,
                 decisions=None, kernel_report=None, check_mode=False, observe=None, original_state=None,
                 retired=None):
    """The summary lines of one host (see tune_summary.yml)."""
    if facts is None:
        facts = {}
    if not isinstance(facts, dict):
        raise AnsibleFilterError('tune_summary expects the iotune_readahead facts (a dict), got %s'
                                 % type(facts).__name__)
    plan_profile = plan_profile or {}
    lines = ['profile %s (%s)' % (profile, plan_profile.get('description'))]
    for array in arrays or []:
        lines.extend(_array_lines(array, facts, plan_profile, check_mode))
    lines.extend(_udev_line(block_tuning, check_mode))
    lines.extend(_verify_lines(decisions, verified or {}, check_mode))
    lines.extend(_kernel_line(kernel_report))
    observed = summary_line(observe)
    if observed:
        lines.append(observed)
    lines.extend(_original_state_lines(original_state, check_mode))
    if isinstance(retired, dict):
        lines.extend(retired.get('lines') or [])
    return lines


class FilterModule(object):
    def filters(self):
        return {'tune_summary': tune_summary}
