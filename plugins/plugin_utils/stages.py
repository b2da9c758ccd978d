# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The options of each stage's module calls, and whether a role may skip them (issue 31).

``calls`` is the one place that turns a role's input into the exact options of its module calls: the roles raid0,
xfs, block_tuning and kernel call their modules with them, and the tune role gives the same dicts, made from the
plan before the first change, to storage_preflight's ``stages`` option (module_utils/stage_sync.py runs them there in
check mode). ``skip`` is the role's decision: skip only when the preflight found the stage in sync, nothing earlier
in the run changed the host, and the options are exactly those the preflight checked.
"""

from __future__ import annotations

from ansible.plugins.filter.core import to_bool
from ansible.plugins.test.core import changed as changed_test

from ansible_collections.iotune.storage.plugins.module_utils import fstab

STAGES = ('raid0', 'xfs', 'block_tuning', 'kernel')


class StageInputError(ValueError):
    pass


def _need(inputs, *keys):
    missing = [k for k in keys if k not in inputs]
    if missing:
        raise StageInputError('missing %s' % ', '.join(missing))


def raid0_calls(inputs):
    """mdadm_array options per array, as the raid0 role's task passes them (``conf_path`` when given;
    ``rebuild_marker`` when given and ``update_initramfs`` is true, for the arrays the initramfs assembles: not an
    ephemeral one, which its boot unit brings back in the real root)."""
    _need(inputs, 'arrays', 'chunk_kb', 'homehost')
    calls = []
    for a in inputs['arrays']:
        call = {'name': a['name'], 'state': a.get('state', 'present')}
        if 'devices' in a:
            call['devices'] = a['devices']
        call.update({'level': a.get('level', 0), 'chunk_kb': a.get('chunk_kb', inputs['chunk_kb']),
                     'metadata': a.get('metadata', '1.2'), 'homehost': a.get('homehost', inputs['homehost']),
                     'wipe_devices': a.get('wipe_devices', []), 'allow_shared_disk': a.get('allow_shared_disk', []),
                     'allow_single_device': a.get('allow_single_device', False)})
        if inputs.get('conf_path') is not None:
            call['conf_path'] = inputs['conf_path']
        if inputs.get('rebuild_marker') and to_bool(inputs.get('update_initramfs', True)) and \
                a.get('ephemeral') is not True:
            call['rebuild_marker'] = inputs['rebuild_marker']
        calls.append(call)
    return calls


def planned_stripes(arrays, chunk_kb):
    """What the raid0 stage's results say of each array once it runs as planned (level, chunk, member count): the
    xfs stage's stripe before the raid0 stage ran (the raid0 role's calls, ``raid0_calls``)."""
    return dict((a['name'], {'level': 'raid%d' % a.get('level', 0), 'chunk_kb': a.get('chunk_kb', chunk_kb),
                             'raid_disks': len(a.get('devices') or [])})
                for a in arrays if a.get('state', 'present') != 'absent')


def xfs_calls(inputs):
    """xfs_filesystem options per filesystem, as the xfs role's task passes them; ``stripes`` is raid0_results (or
    planned_stripes of ``planned_raid0``, the raid0 stage's input, before it ran): the stripe of an md array the raid0
    stage built or confirmed."""
    _need(inputs, 'filesystems', 'mount_options', 'device_timeout')
    stripes = inputs.get('stripes')
    if stripes is None:
        stripes = planned_stripes(raid0_calls(inputs['planned_raid0']), None) if inputs.get('planned_raid0') else {}
    calls = []
    for fs in inputs['filesystems']:
        device = fs['device']
        md = stripes.get(device[len('/dev/md/'):], {}) if device.startswith('/dev/md/') else {}
        stripe = (md.get('level') == 'raid0' and int(md.get('chunk_kb') or 0) > 0 and int(md.get('raid_disks') or 0) > 0)
        call = {'device': device}
        if 'label' in fs:
            call['label'] = fs['label']
        su_kb = fs.get('su_kb', md.get('chunk_kb') if stripe else None)
        sw = fs.get('sw', md.get('raid_disks') if stripe else None)
        if su_kb is not None:
            call['su_kb'] = int(su_kb)
        if sw is not None:
            call['sw'] = int(sw)
        call['allow_data'] = fs.get('allow_data', False)
        call['mountpoint'] = fs['mountpoint']
        call['mount_options'] = fstab.line_options(fs.get('mount_options', inputs['mount_options']),
                                                   inputs['device_timeout'])
        if fs.get('move_from'):
            call['move_from'] = fs['move_from']
        if inputs.get('mkfs_marker'):
            call['mkfs_marker'] = inputs['mkfs_marker']
        # the profile's mkfs options and discard policy (plan.py), only when the entry has them: calls without are as before
        if fs.get('mkfs_discard') is not None:
            call['mkfs_discard'] = bool(fs['mkfs_discard'])
        if fs.get('discard_by_class'):
            call['discard_by_class'] = dict(fs['discard_by_class'])
            # the array's planned members: the policy's classes while the array is not made yet (check mode)
            if fs.get('members'):
                call['members'] = list(fs['members'])
        calls.append(call)
    return calls


# What a module does when tuned's active profile would win (the one home of the mapping, issue 24): the option of each
# stage's module, and its value for block_tuning_tuned_override / kernel_tuned_override true and false. The kernel
# stage only reports in check mode (nothing was applied, the old values are still live); udev_block_tuning honours
# check mode itself. The filter tuned_mode gives the roles the same values.
TUNED_MODES = {
    'block_tuning': {'option': 'tuned', 'override': 'override', 'otherwise': 'fail', 'check_mode': None},
    'kernel': {'option': 'mode', 'override': 'override', 'otherwise': 'fail', 'check_mode': 'report'},
}


def tuned_mode(override, stage, check_mode=False):
    """The value of the ``stage`` module's tuned option (udev_block_tuning ``tuned``, kernel_settings ``mode``) for
    the role's ``*_tuned_override`` (a boolean as Ansible's ``bool`` filter reads it) and check mode."""
    if stage not in TUNED_MODES:
        raise StageInputError('unknown stage %r for the tuned mode (one of %s)' % (stage, ', '.join(TUNED_MODES)))
    modes = TUNED_MODES[stage]
    if to_bool(check_mode) and modes['check_mode'] is not None:
        return modes['check_mode']
    return modes['override'] if to_bool(override) else modes['otherwise']


def block_tuning_calls(inputs):
    """The udev_block_tuning call of the block_tuning role."""
    _need(inputs, 'devices', 'rules_file', 'state', 'tuned_override', 'container', 'settle_timeout', 'facts')
    return [{'devices': inputs['devices'], 'rules_file': inputs['rules_file'], 'state': inputs['state'],
             'tuned': tuned_mode(inputs['tuned_override'], 'block_tuning'), 'container': inputs['container'],
             'settle_timeout': int(inputs['settle_timeout']), 'facts': bool(inputs['facts'])}]


def kernel_calls(inputs):
    """The kernel role's read before its writes (kernel_settings, mode report; the THP unit when THP is set; the CPU
    governor and clocksource and their unit when one is set, optional inputs ``cpu_clock`` and ``cpu_unit``)."""
    _need(inputs, 'sysctl', 'thp', 'sysctl_file', 'thp_unit')
    call = {'sysctl': inputs['sysctl'], 'thp': inputs['thp'], 'sysctl_file': inputs['sysctl_file'], 'mode': 'report'}
    if inputs['thp']:
        call['thp_unit'] = inputs['thp_unit']
    if inputs.get('cpu_clock'):
        _need(inputs, 'cpu_unit')
        call['cpu_clock'] = inputs['cpu_clock']
        call['cpu_unit'] = inputs['cpu_unit']
    return [call]


CALLS = {'raid0': raid0_calls, 'xfs': xfs_calls, 'block_tuning': block_tuning_calls, 'kernel': kernel_calls}


def calls(inputs, stage):
    if stage not in CALLS:
        raise StageInputError('unknown stage %r (one of %s)' % (stage, ', '.join(STAGES)))
    if not isinstance(inputs, dict):
        raise StageInputError('the input of stage %s must be a dict, got %r' % (stage, inputs))
    return CALLS[stage](inputs)


def skip(calls_now, read, items=None, stale=None):
    """{'skip', 'reason', 'registered'}: whether a role skips its module calls ``calls_now``, given the preflight's
    ``read`` of the stage (stages_read[stage], or None) and ``stale`` (what changed the host earlier in this run).
    ``registered`` is, on a skip, what the skipped task would have registered: the preflight's results, one per
    call, each with its loop ``item`` (``items``) when given."""
    if read is None:
        return {'skip': False, 'reason': 'no read of the preflight for this stage', 'registered': None}
    if stale:
        return {'skip': False, 'reason': 'the preflight read is stale: %s' % '; '.join(stale), 'registered': None}
    if not read.get('in_sync'):
        return {'skip': False, 'reason': 'not in sync: %s' % (read.get('why') or 'unknown'), 'registered': None}
    if read.get('calls') != calls_now or len(read.get('results') or []) != len(calls_now):
        return {'skip': False, 'reason': 'the options differ from those the preflight checked', 'registered': None}
    results = []
    for index, result in enumerate(read['results']):
        entry = dict(result, changed=False, skipped_by_preflight=True)
        if items is not None:
            entry['item'] = items[index]
        results.append(entry)
    return {'skip': True, 'registered': {'changed': False, 'results': results},
            'reason': 'in sync: the preflight ran the same %d call(s) in check mode and nothing would change'
            % len(calls_now)}


# --- the tune role: what changed the host before a stage (``stale`` of ``skip``) -----------------------------------
CHANGING_STAGES = ('raid0', 'xfs', 'block_tuning')


def stale_reasons(results, after, install_packages=False, packages_missing=None):
    """What changed the host in this run up to stage ``after`` (raid0, xfs or block_tuning), one reason per stage:
    one of its registered ``results`` ({stage: [results]}) is changed (the ``changed`` test), or, for raid0, it
    installs packages (``install_packages``) that the preflight did not find installed (``packages_missing``: what it
    found missing, None when it did not look). In check mode a predicted change counts, as in the results."""
    if after not in CHANGING_STAGES:
        raise StageInputError('unknown stage %r (one of %s)' % (after, ', '.join(CHANGING_STAGES)))
    reasons = []
    for stage in CHANGING_STAGES:
        if [result for result in results.get(stage, []) if changed_test(result)]:
            reasons.append('the %s stage changed the host in this run' % stage)
        if stage == 'raid0' and to_bool(install_packages) and (packages_missing is None or len(packages_missing) > 0):
            reasons.append('the raid0 stage installs packages in this run')
        if stage == after:
            return reasons
    return reasons


# --- the xfs role: a filesystem found at another mount point too -------------------------------------------------
def moved_mounts(results):
    """[[uuid, old mount point]] from the xfs_filesystem ``results``: each other path where a filesystem with a
    UUID is in fstab (``fstab_elsewhere``) or mounted (``mounted_elsewhere``), each path once, fstab's first.

    Once as the role's Jinja had it (Ansible's ``unique``): two paths that differ only in case count as one."""
    moved = []
    for result in results:
        if not result.get('uuid', ''):
            continue
        seen = set()
        for old in result.get('fstab_elsewhere', []) + result.get('mounted_elsewhere', []):
            key = old.lower() if isinstance(old, str) else old
            if key not in seen:
                seen.add(key)
                moved.append([result['uuid'], old])
    return moved
