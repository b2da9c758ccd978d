# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One host's observations against its plan: the comparison of the audit, in one home.

``compare(facts, plan)`` takes what module_utils/audit.py ``gather()`` read on a host and the host's plan (the
keys of plan.build_plan it reads: ``profile`` (``description``, ``array.read_ahead_kb``), ``raid0_arrays``,
``xfs_filesystems``) and returns the verdict (``ok`` or ``drift``) with one item per deviation. The controller's
audit (plugins/plugin_utils/audit.py, which adds the observe window) and the host's metrics collector
(module_utils/textfile_metrics.py) both call it, so they never disagree. ``drift_kind`` names the kind of an
item with its host-specific parts left out. Pure Python, no I/O; nothing here imports Ansible.
"""

from __future__ import annotations

import re

from ansible_collections.iotune.storage.plugins.module_utils import (
    block_tuning,
    fstab,
    kernel_settings,
    mdadm,
    service_limits,
    systemd_show,
    xfs,
)

FACTS_SCHEMA_VERSIONS = (1,)


def _item(area, subject, message):
    return {'area': area, 'subject': subject, 'message': message}


# ---------------------------------------------------------------------------------------------
# arrays, mounts, fstab, mdadm.conf, initramfs


def array_state(facts):
    """active / degraded / broken / inactive / missing of one array's observations."""
    if not facts.get('kname'):
        return 'missing'
    md = facts.get('md') or {}
    state = md.get('array_state')
    if state in (None, 'inactive', 'clear'):
        return 'inactive'
    if state == 'broken':
        return 'broken'
    raid_disks = md.get('raid_disks')
    if raid_disks is not None and working_members(facts) < raid_disks:
        return 'degraded'
    return 'active'


def working_members(facts):
    """The number of members an array's observations show it running with: md's members that are not faulty (its
    slaves when md lists none)."""
    known = [d for d in facts.get('md_devices') or [] if 'faulty' not in (d.get('state') or '')]
    return len(known) if facts.get('md_devices') else len(facts.get('slaves') or [])


def _members(plan_array, facts):
    items = []
    subject = '/dev/md/%s' % plan_array['name']
    in_array = set(facts.get('slaves') or []) | set(d['name'] for d in facts.get('md_devices') or [])
    faulty = set(d['name'] for d in facts.get('md_devices') or [] if 'faulty' in (d.get('state') or ''))
    for member in facts.get('members') or []:
        path = member['path']
        if not member.get('exists'):
            items.append(_item('member', subject, 'member %s is missing (the path does not exist: detached or '
                                                  'renamed)' % path))
            continue
        kname = member.get('kname')
        for other in member.get('foreign') or []:
            items.append(_item('member', subject, 'member %s (%s) belongs to another md array %s%s'
                               % (path, kname, other['kname'],
                                  ' (%s)' % other['name'] if other.get('name') else '')))
        if facts.get('kname') and kname not in in_array:
            items.append(_item('member', subject, 'member %s (%s) is not in the array' % (path, kname)))
        elif kname in faulty:
            items.append(_item('member', subject, 'member %s (%s) is faulty' % (path, kname)))
    return items


def fstab_options(fs, plan):
    """The options field of the fstab line tune writes for ``fs`` (a plan's xfs_filesystems entry): its mount options,
    nofail and the plan's ``device_timeout`` (the tune role's xfs_device_timeout; fstab.DEVICE_TIMEOUT_DEFAULT when
    the plan carries none)."""
    return fstab.line_options(fs.get('mount_options'), plan.get('device_timeout') or fstab.DEVICE_TIMEOUT_DEFAULT)


def _mount_and_fstab(fs, facts, options, path):
    items = []
    mountpoint = fs['mountpoint']
    wanted = list(fs.get('mount_options') or [])
    mounted = facts.get('mounted')
    if mounted is None:
        items.append(_item('mount', mountpoint, 'nothing is mounted at %s' % mountpoint))
    else:
        if facts.get('kname') and mounted.get('kname') != facts['kname']:
            items.append(_item('mount', mountpoint, '%s is mounted from %s, not from the array (%s)'
                               % (mountpoint, mounted.get('source'), facts['kname'])))
        # the live options: tune does not remount a filesystem whose fstab line is as planned, but a mount without
        # them is drift the audit names (a remount or reboot takes the fstab line's)
        missing = [o for o in wanted if o not in mounted.get('options', [])]
        if missing:
            items.append(_item('mount', mountpoint, 'mounted without %s (live options %s)'
                               % (','.join(missing), ','.join(mounted.get('options', [])))))
    for other in facts.get('mounts_elsewhere') or []:
        items.append(_item('mount', mountpoint, 'the array is also mounted at %s' % other))
    # the xfs role's own rule (fstab.planned_line_problem): the one line it writes, exactly
    problem = fstab.planned_line_problem(facts.get('fstab') or [], mountpoint, facts.get('fs_uuid'), options, path=path)
    if problem:
        items.append(_item('fstab', mountpoint, problem))
    stray = [line for line in facts.get('fstab') or [] if line['mountpoint'] != fstab.normalise_mountpoint(mountpoint)]
    for line in stray:
        items.append(_item('fstab', mountpoint, 'fstab also mounts the array at %s' % line['mountpoint']))
    return items


# the states of fstrim.timer (systemctl show's UnitFileState) that start it at boot: the xfs_filesystem call's own
FSTRIM_ENABLED = systemd_show.ENABLED_STATES


def discard_policy(fs, facts):
    """(policy, why) of a planned filesystem (its ``discard_by_class``) on the array of ``facts`` (the classes of its
    members): xfs.discard_policy, the xfs_filesystem module's own rule. (None, why) when the plan says nothing."""
    by_class = fs.get('discard_by_class') or {}
    classes = dict((name, xfs.discard_class(seen.get('class'), seen.get('cloud_class'), by_class))
                   for name, seen in (facts.get('member_classes') or {}).items())
    return xfs.discard_policy(classes, by_class)


def _stripe(fs, facts, state):
    """The ``filesystem`` item of a mounted array whose XFS stripe (sunit/swidth of the mount, 512-byte sectors)
    is not the array's (its chunk x its members: RAID0), or none."""
    mounted = facts.get('mounted') or {}
    md = facts.get('md') or {}
    if (state != 'active' or 'super_options' not in mounted or mounted.get('kname') != facts.get('kname')
            or md.get('level') not in (None, 'raid0') or not md.get('chunk_kb') or not md.get('raid_disks')):
        return []
    want_sunit = int(md['chunk_kb']) * 2
    want_swidth = want_sunit * int(md['raid_disks'])
    sunit, swidth = xfs.mount_stripe(mounted['super_options'])
    if (sunit, swidth) == (want_sunit, want_swidth):
        return []
    shown = 'no stripe' if sunit is None else 'sunit=%s,swidth=%s' % (sunit, swidth)
    return [_item('filesystem', fs['mountpoint'],
                  'XFS stripe %s (512-byte sectors), the array is %d KiB x %d members (sunit=%d,swidth=%d); the '
                  'filesystem is left as it is (re-creating it would destroy its data)'
                  % (shown, int(md['chunk_kb']), int(md['raid_disks']), want_sunit, want_swidth))]


def _discard(fs, facts, policy, why, timer):
    """The ``filesystem`` items of the discard policy: the mount option discard live (the mount's options and the
    filesystem's) against the policy, and fstrim.timer enabled and active for fstrim_timer. None without a policy."""
    if policy is None:
        return []
    items = []
    mountpoint = fs['mountpoint']
    mounted = facts.get('mounted')
    if mounted is not None:
        live = 'discard' in set(mounted.get('options') or []) | set(mounted.get('super_options') or [])
        if policy == 'online' and not live:
            items.append(_item('filesystem', mountpoint, 'mounted without discard, the discard policy is %s' % why))
        elif policy != 'online' and live:
            items.append(_item('filesystem', mountpoint, 'mounted with discard, the discard policy is %s' % why))
    if policy == 'fstrim_timer' and timer is not None:
        if timer.get('error'):
            items.append(_item('audit', 'fstrim.timer', 'could not be read: %s' % timer['error']))
        elif timer.get('enabled') not in FSTRIM_ENABLED or timer.get('active') != 'active':
            items.append(_item('filesystem', mountpoint, 'fstrim.timer is %s and %s, the discard policy is %s'
                               % (timer.get('enabled') or 'unknown', timer.get('active') or 'unknown', why)))
    return items


def _array_lines(where, name, uuid, text, wanted_line=None):
    """Items for the ARRAY lines of one array in mdadm.conf or the initramfs (``where``): mdadm.conf_problems, the rule
    mdadm_array writes mdadm.conf by; without ``wanted_line`` (the initramfs, or an array whose metadata version is not
    known) any line with the running UUID is right."""
    subject = '/dev/md/%s' % name
    words = where if where != 'initramfs' else 'the initramfs that boots next'
    return [_item(where, subject, problem)
            for problem in mdadm.conf_problems(text, name, uuid, wanted_line, where=words,
                                               any_line_of_uuid=wanted_line is None)]


def _lines_text(found):
    """The text of mdadm.conf as read (``text``), else its ARRAY lines (the initramfs's copy, facts of a module that
    kept only those)."""
    if found.get('text') is not None:
        return found['text']
    return ''.join('%s\n' % line['line'] for line in found.get('lines') or [])


def _array_readahead(plan, facts, seen):
    """The array's live readahead against the profile when no tuning entry matched it (for example a RAID0
    that lost a member: the kernel keeps the device, udev forgets its name)."""
    want = ((plan.get('profile') or {}).get('array') or {}).get('read_ahead_kb')
    tuned = (facts.get('tuning') or {}).get('devices') or {}
    if want is None or not seen.get('kname') or seen['kname'] in tuned or seen.get('read_ahead_kb') is None:
        return []
    page = facts.get('page_kb') or 4
    want = int(want) - int(want) % page
    if int(seen['read_ahead_kb']) == want:
        return []
    return [_item('readahead', '%s (/dev/md/%s)' % (seen['kname'], seen['name']),
                  'read_ahead_kb live %s, profile %s' % (seen['read_ahead_kb'], want))]


def _arrays(plan, facts):
    items = []
    notes = []
    by_name = dict((a['name'], a) for a in facts.get('arrays') or [])
    fs_by_device = dict((fs['device'], fs) for fs in plan.get('xfs_filesystems') or [])
    conf = facts.get('mdadm_conf') or {}
    initramfs = facts.get('initramfs') or {}
    fstab_path = (facts.get('fstab') or {}).get('path') or '/etc/fstab'
    summary = []
    for planned in plan.get('raid0_arrays') or []:
        name = planned['name']
        subject = '/dev/md/%s' % name
        seen = by_name.get(name, {'name': name, 'kname': None, 'members': []})
        state = array_state(seen)
        md = seen.get('md') or {}
        # an inactive array shows md/uuid as zeros and md/chunk_size 0 (seen in the lab after a degraded boot)
        uuid = md.get('uuid') if (md.get('uuid') or '').strip('0:-') else None
        summary.append({'name': name, 'kname': seen.get('kname'), 'state': state,
                        'read_ahead_kb': seen.get('read_ahead_kb'), 'uuid': uuid})
        if state != 'active':
            why = {'missing': 'is not running (no such md device)', 'inactive': 'is inactive (not running)',
                   'broken': 'is broken (a member disappeared while it ran)',
                   'degraded': 'is degraded (%s of %s members)' % (
                       working_members(seen), md.get('raid_disks'))}[state]
            items.append(_item('array', subject, '%s %s' % (subject, why)))
        if md.get('chunk_kb') and planned.get('chunk_kb') and md['chunk_kb'] != planned['chunk_kb']:
            items.append(_item('array', subject, 'chunk %d KiB, the plan says %d KiB' % (md['chunk_kb'], planned['chunk_kb'])))
        items.extend(_members(planned, seen))
        items.extend(_array_readahead(plan, facts, seen))
        fs = fs_by_device.get(subject)
        if fs:
            policy, why = discard_policy(fs, seen)
            items.extend(_mount_and_fstab(fs, seen, fstab.with_discard(fstab_options(fs, plan), policy), fstab_path))
            items.extend(_stripe(fs, seen, state))
            items.extend(_discard(fs, seen, policy, why, facts.get('fstrim_timer')))
        if not conf.get('present'):
            items.append(_item('mdadm.conf', subject, 'no mdadm.conf (%s)' % conf.get('path')))
        elif uuid:
            # the line mdadm_array writes for the running array (its metadata version and md name, as mdadm reads them);
            # of an array that is not active (udev forgets the md name of a RAID0 that lost a member, and mdadm_array
            # fails on it) any line with its UUID is taken as right: its state is the item
            wanted = (mdadm.array_line(name, md['metadata_version'], uuid, md.get('name'))
                      if md.get('metadata_version') and state == 'active' else None)
            items.extend(_array_lines('mdadm.conf', name, uuid, _lines_text(conf), wanted))
        # an ephemeral array is not compared with the initramfs: its boot unit assembles or re-creates it in the
        # real root, and a re-creation gives it a new UUID that no rebuild follows (docs/ephemeral.md)
        if initramfs.get('checked') and not planned.get('ephemeral') and uuid:
            items.extend(_array_lines('initramfs', name, uuid, _lines_text(initramfs)))
    if not initramfs.get('checked') and plan.get('raid0_arrays'):
        notes.append('initramfs: %s' % (initramfs.get('error') or 'not checked'))
    return items, notes, summary


# ---------------------------------------------------------------------------------------------
# tuning, tuned, kernel


# the audit's area of each queue value; the other queue settings are one area, ``queue`` (as the restart decision
# calls them: plugin_utils/restart_decision.py)
ATTR_AREA = {'read_ahead_kb': 'readahead', 'scheduler': 'scheduler'}
QUEUE_AREA = 'queue'


# whether a live queue value is the profile's: udev_block_tuning's own rule (the metrics collector reads it here too)
live_matches = block_tuning.live_matches


def _tuning(facts):
    items = []
    tuning = facts.get('tuning') or {}
    rules = tuning.get('rules') or {}
    devices = tuning.get('devices') or {}
    path = rules.get('path')
    if not rules.get('present'):
        items.append(_item('rules', path, 'the udev rules file %s is missing: the values are lost at the next '
                                          'reboot or change event' % path))
    elif not rules.get('matches'):
        items.append(_item('rules', path, 'the udev rules file differs from what tune writes (%d line(s) missing, '
                                          '%d other)' % (len(rules.get('missing_lines') or []),
                                                         len(rules.get('extra_lines') or []))))
    rows = []
    for name in sorted(devices):
        dev = devices[name]
        subject = '%s (%s)' % (name, ', '.join(dev.get('selected_by') or []))
        row = {'device': name, 'selected_by': dev.get('selected_by') or [], 'is_md': dev.get('is_md'),
               'class': dev.get('class')}
        for attr, want in sorted((dev.get('profile') or {}).items()):
            live = (dev.get('live') or {}).get(attr)
            on_disk = (dev.get('rules') or {}).get(attr)
            row[attr] = {'live': live, 'profile': want, 'rules': on_disk}
            area = ATTR_AREA.get(attr, QUEUE_AREA)
            if not live_matches(live, want):
                items.append(_item(area, subject, '%s live %s, profile %s' % (attr, live, want)))
            if rules.get('present') and str(on_disk) != str(want):
                items.append(_item('rules', subject, 'the rules file sets %s %s, profile %s'
                                   % (attr, 'nothing' if on_disk is None else on_disk, want)))
        rows.append(row)
    for where in tuning.get('unmatched') or []:
        items.append(_item('tuning', where, 'the plan tunes %s, which matches no block device' % where))
    return items, rows


def _tuned(facts):
    tuned = facts.get('tuned') or {}
    return [_item('tuned', c['device'], 'tuned profile %s sets readahead %s KiB (profile %s KiB)'
                  % (' '.join(tuned.get('profiles') or []), c['tuned'], c['ours']))
            for c in tuned.get('conflicts') or []]


def _kernel(facts):
    report = facts.get('kernel')
    if not report:
        return [], []
    items = [_item('kernel', text.split(':', 1)[0], text) for text in kernel_settings.problems(report)]
    return items, list(report.get('notes') or [])


def _limits(plan, facts):
    """A ``limits`` item per planned unit whose limits drop-in is missing or differs from what the xfs role writes,
    and per limit systemd reports otherwise than planned (service_limits.problems, the tune role's own check); an
    ``audit`` item when systemd could not be asked. Nothing when the plan has no limits or the host was not read for
    them (facts of an earlier release)."""
    planned = plan.get('limits') or {}
    found = facts.get('limits')
    if not planned or found is None:
        return []
    items = [_item('audit', 'limits', 'could not be read: %s' % found['error'])] if found.get('error') else []
    items.extend(_item('limits', unit, message) for unit, message in service_limits.problems(planned, found))
    return items


# ---------------------------------------------------------------------------------------------
# one host, the fleet


def _unresolved(unresolved):
    """Member selectors that matched no disk (storage_preflight unresolved=report): a detached cloud disk."""
    items = []
    for entry in unresolved or []:
        if not isinstance(entry, dict) or 'array' not in entry or 'problem' not in entry:
            raise ValueError('unresolved entries must be dicts with array and problem, got %r' % (entry,))
        items.append(_item('member', '/dev/md/%s' % entry['array'],
                           'member selector %s' % entry['problem']))
    return items


def configured_readahead(arrays, devices):
    """{kernel name: {live, profile, rules}} of read_ahead_kb: the tuned devices' rows, and the arrays no tuning
    entry matched (their live value only)."""
    result = {}
    for array in arrays:
        if array.get('kname') and array.get('read_ahead_kb') is not None:
            result[array['kname']] = {'live': str(array['read_ahead_kb']), 'profile': None, 'rules': None}
    for row in devices:
        if row.get('read_ahead_kb'):
            result[row['device']] = dict(row['read_ahead_kb'])
    return result


def with_device_timeout(plan, device_timeout=None):
    """``plan`` with the tune role's ``device_timeout`` (xfs_device_timeout) that its fstab lines carry; ``plan``
    itself when it is None (the comparison then takes fstab.DEVICE_TIMEOUT_DEFAULT)."""
    if device_timeout is None:
        return plan
    return dict(plan, device_timeout=str(device_timeout))


def compared_plan(plan):
    """The part of a tune plan (plan.build_plan) that compare() reads, and no more: what the host's metrics spec
    carries (compare(facts, compared_plan(plan)) == compare(facts, plan))."""
    profile = plan.get('profile') or {}
    return {
        'device_timeout': plan.get('device_timeout'),
        'profile': {'description': profile.get('description'),
                    'array': {'read_ahead_kb': (profile.get('array') or {}).get('read_ahead_kb')}},
        'raid0_arrays': [{'name': a['name'], 'chunk_kb': a.get('chunk_kb'), 'ephemeral': bool(a.get('ephemeral'))}
                         for a in plan.get('raid0_arrays') or []],
        'xfs_filesystems': [dict({'device': fs['device'], 'mountpoint': fs['mountpoint'],
                                  'mount_options': list(fs.get('mount_options') or [])},
                                 **({'discard_by_class': dict(fs['discard_by_class'])}
                                    if fs.get('discard_by_class') else {}))
                            for fs in plan.get('xfs_filesystems') or []],
        'limits': dict((unit, dict(values)) for unit, values in (plan.get('limits') or {}).items()),
    }


def _restarts(facts):
    """A ``restart`` item per database service that still owes the restart a tune run decided and did not make
    (restart policy never: module_utils/restart_record.py), and an ``audit`` item when its record is unreadable."""
    found = facts.get('restarts') or {}
    items = [_item('audit', 'restarts', 'could not be read: %s' % found['error'])] if found.get('error') else []
    for entry in found.get('pending') or []:
        items.append(_item('restart', entry['unit'], 'restart pending since %s: %s'
                           % (entry.get('since') or 'an earlier run', '; '.join(entry.get('reasons') or []) or
                              'a change that needs it')))
    return items


def compare(facts, plan, host=None, unresolved=None):
    """The verdict of one host: {'host', 'verdict', 'profile', 'items', 'notes', 'arrays', 'devices', 'observed',
    'error'} (``observed`` None: no observe window here; the controller's audit adds its own).

    ``unresolved``: the member selectors the host could not resolve (each becomes a ``member`` item)."""
    if not isinstance(facts, dict) or facts.get('schema_version') not in FACTS_SCHEMA_VERSIONS:
        raise ValueError('storage_audit facts of schema version %r, this controller reads %s'
                         % (facts.get('schema_version') if isinstance(facts, dict) else None, FACTS_SCHEMA_VERSIONS))
    items = [_item('audit', 'host', 'could not be read: %s' % e) for e in facts.get('errors') or []]
    array_items, notes, arrays = _arrays(plan, facts)
    items.extend(_unresolved(unresolved))
    items.extend(array_items)
    tuning_items, devices = _tuning(facts)
    items.extend(tuning_items)
    items.extend(_tuned(facts))
    kernel_items, kernel_notes = _kernel(facts)
    items.extend(kernel_items)
    notes.extend(kernel_notes)
    items.extend(_limits(plan, facts))
    items.extend(_restarts(facts))
    profile = (plan.get('profile') or {}).get('description')
    # the snapshot of the host's original state is shown, never drift (an unreadable one is a note)
    snapshot = facts.get('original_state')
    if isinstance(snapshot, dict) and snapshot.get('error'):
        notes.append('original state: %s' % snapshot['error'])
    return {'host': host, 'verdict': 'drift' if items else 'ok', 'profile': profile, 'items': items,
            'notes': notes, 'arrays': arrays, 'devices': devices, 'observed': None, 'error': None,
            'original_state': snapshot}


# ---------------------------------------------------------------------------------------------
# the kind of an item (the fleet report groups by it; the metrics label their drift gauge with it)

PLACEHOLDER = '\u2026'
# the host-specific parts of an item's message, replaced by PLACEHOLDER so the same deviation on many hosts is one kind
_HOST_SPECIFIC = [
    (re.compile(r'(/dev/disk/by-[a-z-]+/)[^\s,;()\'"]+'), r'\g<1>' + PLACEHOLDER),
    (re.compile(r'(UUID=)[^\s,;()\'"]+'), r'\g<1>' + PLACEHOLDER),
    # a moment (the since of a restart owed)
    (re.compile(r'\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}:\d{2}|Z)?'), PLACEHOLDER),
    (re.compile(r'\b[0-9a-f]{8}(?::[0-9a-f]{8}){3}\b', re.I), PLACEHOLDER),
    (re.compile(r'\b[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\b', re.I), PLACEHOLDER),
    (re.compile(r'\bname=[^\s:=]+:(?=\S)'), 'name=' + PLACEHOLDER + ':'),
    (re.compile(r'(?<![\w.-])(?!hdd(?![\w.-]))(?:(?:[shv]|xv)d[a-z]{1,3}\d*|nvme\d+(?:c\d+)?n\d+(?:p\d+)?|md\d+(?:p\d+)?'
                r'|dm-\d+|mmcblk\d+(?:p\d+)?|loop\d+)(?![\w.-])'), PLACEHOLDER),
]


def normalise(message):
    """``message`` without its host-specific parts: md and filesystem UUIDs, /dev/disk/by-*/ names, the homehost of an
    md name, kernel names (sdb, vdc, nvme1n1, md127, dm-3) become PLACEHOLDER; numbers (live values, member counts)
    stay, so different values are different kinds."""
    text = str(message)
    for pattern, replacement in _HOST_SPECIFIC:
        text = pattern.sub(replacement, text)
    return text


def drift_kind(item):
    """The kind of one item: ``area: message`` with the message normalised."""
    return '%s: %s' % (item['area'], normalise(item['message']))
