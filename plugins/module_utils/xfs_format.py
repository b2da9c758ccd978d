# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The executor of the xfs_filesystem module: a stripe-aligned mkfs.xfs that never overwrites a signature.

It lives in module_utils (pure Python, no Ansible imports) so that the module and the boot-time program
of ephemeral arrays (module_utils/ephemeral.py) run the same checks.
"""

from __future__ import annotations

import json
import os
import uuid as uuid_mod

from ansible_collections.iotune.storage.plugins.module_utils import device_safety as ds
from ansible_collections.iotune.storage.plugins.module_utils import files
from ansible_collections.iotune.storage.plugins.module_utils import xfs
from ansible_collections.iotune.storage.plugins.module_utils.rules import XFS_LABEL_MAX, valid_chunk_kb, valid_xfs_label

__metaclass__ = type


# The xfs role's marker of a mkfs in progress (option mkfs_marker; its xfs_mkfs_marker default, compared with this
# one by test_rule_agreement.py).
MKFS_MARKER_DEFAULT = '/var/lib/iotune-storage/mkfs-pending'


class FsError(Exception):
    def __init__(self, msg, **data):
        super(FsError, self).__init__(msg)
        self.data = data


class FsRefusal(FsError):
    """The plan cannot be carried out on this host, whatever the earlier stages do (a timer the discard policy needs
    and systemd does not know): storage_preflight's stage read refuses the run with it, before the first change."""


class XfsFilesystem:
    def __init__(self, params, view, run, bins, check_mode=False, warn=None):
        self.p = params
        self.view = view
        self.run = run
        self.bins = bins
        self.check_mode = check_mode
        self.warn = warn or (lambda msg: None)

    def expected(self, dev):
        p = self.p
        if p['su_kb'] is not None:
            if not valid_chunk_kb(p['su_kb']):
                raise FsError('su_kb %s must be a power of two and at least 4' % p['su_kb'])
            if p['sw'] < 1:
                raise FsError('sw %s must be at least 1' % p['sw'])
            return {'su_kb': p['su_kb'], 'sw': p['sw'], 'source': 'parameters'}
        if dev is not None and dev.kname.startswith('md'):
            stripe = xfs.md_stripe(self.view.sys_read(dev.kname, 'md/level'),
                                   self.view.sys_read(dev.kname, 'md/chunk_size'),
                                   self.view.sys_read(dev.kname, 'md/raid_disks'))
            if stripe:
                return {'su_kb': stripe[0], 'sw': stripe[1], 'source': 'md'}
        return {'su_kb': None, 'sw': None, 'source': 'none'}

    HINTS = (
        (ds.WIPE_HINT, 'wipe it yourself if the data is not needed'),
        (ds.DATA_HINT, 'set allow_data: true to make the filesystem over it anyway (only if its data is not needed)'),
        (ds.SHARED_HINT, 'set allow_shared_disk: true to use it anyway'),
    )

    def check_writable(self, dev):
        """Raise FsError when mkfs must not touch ``dev`` (in use, signature, data, shared disk)."""
        allowed = set([dev.majmin])
        refusals, dummy = ds.check_writable(self.view, [dev], set(),
                                            allowed_data=allowed if self.p.get('allow_data') else set(),
                                            allowed_shared=allowed if self.p.get('allow_shared_disk') else set())
        if refusals:
            texts = []
            for text in refusals:
                for generic, ours in self.HINTS:
                    text = text.replace(generic, ours)
                texts.append(text)
            raise FsError('not creating XFS: %s' % ' | '.join(texts))

    # --- the mkfs marker: an interrupted mkfs of this module is made again, anything else is refused ---------------
    def pending_mkfs(self, dev):
        """The marker of a mkfs this module started on ``dev`` and never saw finish ({md_uuid, fs_uuid}), or None.
        Only an md array is recognised, by the UUID the kernel shows for it (md/uuid): the same array, not one
        made again since (a kernel name can change across the crash's boot, an array's UUID cannot)."""
        marker = self.p.get('mkfs_marker')
        if not marker or not os.path.exists(marker):
            return None
        try:
            with open(marker) as f:
                pending = json.load(f)
        except (IOError, OSError, ValueError):
            return None
        md_uuid = self.view.sys_read(dev.kname, 'md/uuid') if dev.kname.startswith('md') else None
        if not md_uuid or not isinstance(pending, dict) or pending.get('md_uuid') != md_uuid:
            return None
        return pending

    def write_marker(self, dev, fs_uuid):
        """The marker, flushed to disk before mkfs runs (files.write_text); none without mkfs_marker."""
        marker = self.p.get('mkfs_marker')
        if not marker:
            return
        body = {'device': dev.resolved, 'md_uuid': self.view.sys_read(dev.kname, 'md/uuid'), 'fs_uuid': fs_uuid}
        try:
            files.write_text(marker, json.dumps(body) + '\n', mode=0o600, prefix='.mkfs-pending.')
        except (IOError, OSError) as e:
            raise FsError('cannot write %s: %s' % (marker, e))

    def remove_marker(self):
        if self.p.get('mkfs_marker'):
            try:
                os.unlink(self.p['mkfs_marker'])
            except FileNotFoundError:
                pass

    def read_geometry(self, path):
        if not self.bins.get('xfs_info'):
            return {}
        rc, out, err = self.run([self.bins['xfs_info'], path])
        if rc != 0:
            raise FsError('xfs_info %s failed (rc=%s): %s' % (path, rc, (err or out).strip()))
        return xfs.geometry(xfs.parse_xfs_info(out))

    def result(self, dev, **kw):
        res = {'device': self.p['device'], 'resolved': dev.resolved if dev else None, 'uuid': None,
               'label': self.p['label'], 'created': False, 'expected': None, 'geometry': {}, 'cmd': []}
        res.update(kw)
        return res

    def apply(self):
        p = self.p
        if p['label'] is not None and not valid_xfs_label(p['label']):
            raise FsError('label %r must be 1-%d letters, digits or _ . + - (XFS labels hold at most %d characters)'
                          % (p['label'], XFS_LABEL_MAX, XFS_LABEL_MAX))
        if not self.view.exists(p['device']):
            if self.check_mode:
                self.warn('%s does not exist yet; assuming it will be created earlier in the play' % p['device'])
                exp = self.expected(None)
                return self.result(None, created=True, expected=exp,
                                   cmd=xfs.mkfs_argv('mkfs.xfs', p['device'], p['label'], exp['su_kb'], exp['sw'],
                                                     discard=p.get('mkfs_discard', True) is not False))
            raise FsError('%s does not exist' % p['device'])
        dev = ds.resolve(self.view, p['device'])
        exp = self.expected(dev)
        probe = self.view.blkid_probe(dev.resolved)
        pending = self.pending_mkfs(dev)
        remake = False
        if probe.get('TYPE') == 'xfs' and xfs.sb_inprogress(self.view.read_bytes, dev.resolved):
            # the kernel will not mount it: a mkfs (or an offline xfs_admin/xfs_repair change) did not finish
            if pending is None or probe.get('UUID') != pending.get('fs_uuid'):
                raise FsError('%s holds an XFS filesystem (UUID %s) whose superblock says an offline operation did not '
                              'finish (sb_inprogress): the kernel refuses to mount it. It is not a mkfs of this module '
                              'that was interrupted (no marker %s names this array and filesystem); if it is an '
                              'interrupted mkfs, wipe it (wipefs -a %s) and run again; if it is a filesystem with data, '
                              'finish its xfs_repair or xfs_admin first'
                              % (dev.label, probe.get('UUID'), p.get('mkfs_marker') or '(no mkfs_marker given)',
                                 dev.resolved))
            remake = True
        elif probe.get('TYPE') == 'xfs':
            if pending is not None and not self.check_mode:
                self.remove_marker()                  # the mkfs finished before the crash: the marker is stale
        if probe.get('TYPE') == 'xfs' and not remake:
            if p['label'] is not None and probe.get('LABEL', '') != p['label']:
                raise FsError('%s already has an XFS filesystem (UUID %s) labelled %r, wanted %r; it is left '
                              'alone and not relabelled' % (dev.label, probe.get('UUID'), probe.get('LABEL', ''),
                                                            p['label']))
            geom = self.read_geometry(dev.resolved)
            if not geom:
                self.warn('xfs_info is not installed; the geometry of %s was not checked' % dev.label)
            problems = xfs.check_alignment(geom, exp['su_kb'], exp['sw']) if geom else []
            if problems:
                raise FsError('%s already has an XFS filesystem (UUID %s) that is not aligned to the stripe: %s; '
                              'it is left alone (re-creating it would destroy its data)'
                              % (dev.label, probe.get('UUID'), '; '.join(problems)), geometry=geom, expected=exp)
            return self.result(dev, uuid=probe.get('UUID'), label=probe.get('LABEL'), expected=exp, geometry=geom)

        # with the marker of this array, what is on it is this module's own interrupted mkfs (a superblock in
        # progress, or blocks written before it): made again (-f over the half-made superblock); anything else, or a
        # device in use, goes through the checks whatever the marker says
        ours = pending is not None and (remake or not probe.get('TYPE'))
        if not ours or ds.usage(self.view, dev):
            self.check_writable(dev)
        fs_uuid = str(uuid_mod.uuid4()) if p.get('mkfs_marker') else None
        argv = xfs.mkfs_argv(self.bins.get('mkfs.xfs') or 'mkfs.xfs', dev.resolved, p['label'], exp['su_kb'], exp['sw'],
                             uuid=fs_uuid, force=ours, discard=p.get('mkfs_discard', True) is not False)
        if self.check_mode:
            if not self.bins.get('mkfs.xfs'):
                self.warn('mkfs.xfs is not installed yet (package xfsprogs)')
            return self.result(dev, created=True, expected=exp, cmd=argv)
        if not self.bins.get('mkfs.xfs'):
            raise FsError('mkfs.xfs is not installed; install the xfsprogs package first')
        self.write_marker(dev, fs_uuid)
        rc, out, err = self.run(argv)
        if rc != 0:
            raise FsError('mkfs.xfs on %s failed (rc=%s): %s' % (dev.label, rc, (err or out).strip()), cmd=argv)
        self.remove_marker()
        if self.bins.get('udevadm'):
            self.run([self.bins['udevadm'], 'settle'])
        probe = self.view.blkid_probe(dev.resolved, fresh=True)
        geom = self.read_geometry(dev.resolved)
        problems = xfs.check_alignment(geom, exp['su_kb'], exp['sw'])
        if problems:
            raise FsError('XFS created on %s but its geometry does not match the stripe: %s'
                          % (dev.label, '; '.join(problems)), geometry=geom, expected=exp, cmd=argv)
        return self.result(dev, uuid=probe.get('UUID'), label=probe.get('LABEL'), created=True, expected=exp,
                           geometry=geom, cmd=argv)
