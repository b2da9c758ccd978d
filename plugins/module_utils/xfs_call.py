# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One call of the xfs_filesystem module: its argument spec, the filesystem (module_utils/xfs_format.py) and where
it is mounted (the mount point, fstab, the mounts), in the order the module takes them (``filesystem_call``).
The module and storage_preflight's stage check (module_utils/stage_sync.py) run this same code.
"""

from __future__ import annotations

import os

from ansible_collections.iotune.storage.plugins.module_utils import block_tuning, fstab, systemd_show, xfs
from ansible_collections.iotune.storage.plugins.module_utils.xfs_format import FsError, FsRefusal, XfsFilesystem

__metaclass__ = type

BINS = ('mkfs.xfs', 'xfs_info', 'udevadm', 'blkid', 'wipefs', 'systemctl')
# the timer the discard policy fstrim_timer wants enabled and active (the xfs role enables it)
FSTRIM_TIMER = 'fstrim.timer'


def argument_spec():
    """The xfs_filesystem module's options (with REQUIRED_TOGETHER)."""
    return dict(
        device=dict(type='path', required=True),
        label=dict(type='str'),
        su_kb=dict(type='int'),
        sw=dict(type='int'),
        allow_data=dict(type='bool', default=False),
        allow_shared_disk=dict(type='bool', default=False),
        mountpoint=dict(type='path'),
        mount_options=dict(type='str'),
        move_from=dict(type='str'),
        fstab=dict(type='path', default='/etc/fstab'),
        mkfs_marker=dict(type='path'),
        mkfs_discard=dict(type='bool', default=True),
        discard_by_class=dict(type='dict', default={}),
        members=dict(type='list', elements='path', default=[]),
    )


REQUIRED_TOGETHER = [('su_kb', 'sw')]


def where_to_mount(view, result, mountpoint, fstab_path, device=None, options=None):
    """mountpoint_exists, fstab_elsewhere, mounted_here and mounted_as_planned of ``result`` (read-only; the xfs
    role's mount step: a filesystem mounted here whose fstab line it rewrites is remounted, not mounted)."""
    if not mountpoint:
        return {'mountpoint_exists': None, 'fstab_elsewhere': [], 'mounted_elsewhere': [], 'mounted_here': False,
                'mounted_as_planned': False}
    mountpoint = fstab.normalise_mountpoint(mountpoint)
    elsewhere = []
    here = planned = False
    if result.get('uuid'):
        spec = 'UUID=%s' % result['uuid']
        lines = fstab.entries(view._read(fstab_path, '') or '')
        elsewhere = [line['mountpoint'] for line in lines if line['source'] == spec and line['mountpoint'] != mountpoint]
        here = bool(device) and mounted_here(view, device, mountpoint)
        planned = bool(options) and here and fstab.planned_line_problem(lines, mountpoint, result['uuid'], options) is None
    return {'mountpoint_exists': os.path.lexists(view.path(mountpoint)), 'fstab_elsewhere': elsewhere,
            'mounted_elsewhere': mounted_on(view, device, exclude=mountpoint, root_only=True) if result.get('uuid') else [],
            'mounted_here': here, 'mounted_as_planned': planned}


def move_refusal(found, mountpoint, move_from):
    """The refusal of a move nobody opted in for: the filesystem is on other paths than ``mountpoint``."""
    paths = sorted(set(found['fstab_elsewhere']) | set(found['mounted_elsewhere']))
    if not paths or paths == [move_from]:
        return None
    return ('its filesystem is on %s (fstab: %s; mounted: %s), not on the planned mountpoint %s; a run never '
            'moves a filesystem that holds data: correct mountpoint (a typo?), or set move_from: %s to move it'
            % (', '.join(paths), ', '.join(found['fstab_elsewhere']) or 'none',
               ', '.join(found['mounted_elsewhere']) or 'none', mountpoint, paths[0]))


def mounted_on(view, device, exclude=None, root_only=False):
    """The mount points of ``device`` (any path to it), but ``exclude``; ``root_only``: not the bind mounts of
    directories inside the filesystem."""
    if not device or not view.exists(device):
        return []
    majmin = tuple(view.block_majmin(view.realpath(device)) or ())
    return sorted(set(point for major, minor, point, dummy in view.mounts(root_only=root_only)
                      if (major, minor) == majmin and point != exclude))


def mounted_here(view, device, mountpoint):
    """Is ``device`` (any path to it) mounted on ``mountpoint`` now?"""
    return mountpoint in mounted_on(view, device)


def discard_of(view, resolved, by_class, run=None, systemctl=None, members=None):
    """{policy, why, classes, fstrim_timer} of the filesystem on ``resolved`` (a /dev node): the classes of the md
    array's members (or of the device itself) as udev_block_tuning reads them (block_tuning.collect_devices), the
    policy of ``by_class`` for them (xfs.discard_policy); ``fstrim_timer`` true when the policy is fstrim_timer and
    fstrim.timer is not enabled and active yet (one systemctl show; unknown counts as not): the xfs role enables it
    then, and a converged re-run makes no call for it. ``members`` (the paths the array is planned with) stand in
    for the array's members only while ``resolved`` does not exist: check mode on a fresh host, before the raid0
    stage made the array, predicts the policy from the disks it will be made of."""
    if not by_class:
        policy, why = xfs.discard_policy({}, by_class)
        return {'policy': policy, 'why': why, 'classes': {}, 'fstrim_timer': False}
    classes = {}
    names = []
    if resolved and view.exists(resolved):
        kname = os.path.basename(view.realpath(resolved))
        inv = view.inventory()
        names = (inv.device(kname).get('slaves') or [kname]) if kname in inv.sysdirs else []
    elif members:
        names = [os.path.basename(view.realpath(m)) for m in members if view.exists(m)]
    if names:
        devices = block_tuning.collect_devices(view)
        for name in names:
            dev = devices.get(name)
            if dev is None:
                continue    # a member md still lists, gone from the host: no class, no discard (as the audit)
            classes[name] = xfs.discard_class(dev.get('class'), dev.get('cloud_class'), by_class)
    policy, why = xfs.discard_policy(classes, by_class)
    wanted = policy == 'fstrim_timer'
    if wanted and run is not None and systemctl:
        state = systemd_show.timer_state(run, FSTRIM_TIMER, systemctl)
        if state['enabled'] == 'not-found':
            raise FsRefusal('the discard policy %s needs %s, which systemd does not know on this host (util-linux '
                            'ships it): install it, or set discard_by_class to none or online for %s (nothing was '
                            'changed for this filesystem)'
                            % (why, FSTRIM_TIMER, ', '.join(sorted(set(classes.values())))))
        wanted = state['enabled'] not in systemd_show.ENABLED_STATES or state['active'] != 'active'
    return {'policy': policy, 'why': why, 'classes': classes, 'fstrim_timer': wanted}


def filesystem_call(params, view, run, bins, check_mode=False, warn=None, diff=False):
    """The result of one xfs_filesystem call (``bins``: {name: path or None} of BINS); raises FsError (its
    ``data`` goes into the failure)."""
    if params['move_from'] and not params['mountpoint']:
        raise FsError('move_from needs mountpoint (where the filesystem moves to)')
    # the discard policy decides the mount option discard: the fstab line compared here is the one the role writes.
    # Decided before mkfs: a policy the host cannot carry out (FsRefusal) changes nothing
    device = params['device']
    discard = discard_of(view, view.realpath(device) if view.exists(device) else None, params.get('discard_by_class'),
                         run=run, systemctl=bins.get('systemctl'), members=params.get('members'))
    fs = XfsFilesystem(params, view, run, bins, check_mode=check_mode, warn=warn)
    result = fs.apply()
    result['discard'] = discard
    result['mount_options'] = fstab.with_discard(params['mount_options'], result['discard']['policy'])
    result.update(where_to_mount(view, result, params['mountpoint'], params['fstab'],
                                 device=params['device'], options=result['mount_options']))
    move_from = fstab.normalise_mountpoint(params['move_from']) if params['move_from'] else None
    refusal = move_refusal(result, fstab.normalise_mountpoint(params['mountpoint']),
                           move_from) if params['mountpoint'] else None
    if refusal:
        raise FsError('%s: %s' % (params['device'], refusal), **result)
    if diff:
        before = {} if result['created'] else {'fstype': 'xfs', 'uuid': result['uuid'], 'label': result['label']}
        after = {'fstype': 'xfs', 'label': result['label'], 'su_kb': (result['expected'] or {}).get('su_kb'),
                 'sw': (result['expected'] or {}).get('sw'),
                 # the command line it runs (or would run): the mkfs options of the profile (-K) are visible here
                 'mkfs': ' '.join(result['cmd'])} if result['created'] else before
        # the policy and the options of the fstab line, on both sides of an existing filesystem (no change shown)
        for side in ((after,) if result['created'] else (before,)):
            if result['discard']['policy'] is not None:
                side['discard_policy'] = result['discard']['why']
            if result['mount_options']:
                side['mount_options'] = result['mount_options']
        result['diff'] = {'before': before, 'after': after}
    result['changed'] = result['created']
    return result
