# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The executor of the mdadm_array module: create, assemble or stop one array after the safety checks.

It lives in module_utils (pure Python, no Ansible imports) so that the module and the boot-time program
of ephemeral arrays (module_utils/ephemeral.py) run the same decisions and the same refusals.
``run`` is ``module.run_command``-like: run(argv, **kwargs) -> (rc, stdout, stderr).
"""

from __future__ import annotations

import glob
import os
import re
import socket
import tempfile
import time

from ansible_collections.iotune.storage.plugins.module_utils import device_safety as ds
from ansible_collections.iotune.storage.plugins.module_utils import files
from ansible_collections.iotune.storage.plugins.module_utils import mdadm as md

__metaclass__ = type

# The chunk (KiB) of an array without chunk_kb: mdadm's own default, the one home of the value. The module's
# argument default is this; what cannot import it (its DOCUMENTATION, roles/raid0/defaults/main.yml and
# meta/argument_specs.yml, docs/raid0.md) is compared with it by tests/unit/plugins/plugin_utils/test_rule_agreement.py.
CHUNK_DEFAULT_KB = 512
# The raid0 role's marker of an initramfs rebuild owed since mdadm.conf changed (option rebuild_marker; its
# raid0_rebuild_marker default, compared with this one by test_rule_agreement.py): written, and on disk, before
# mdadm.conf is; removed by the role once the rebuild finished. A run that crashed or was stopped in between
# leaves it, and the next run rebuilds although mdadm.conf is in step by then (docs/safety.md, crash safety).
REBUILD_MARKER_DEFAULT = '/var/lib/iotune-storage/initramfs-rebuild-pending'


def argument_spec():
    """The mdadm_array module's options (with REQUIRED_IF)."""
    return dict(
        name=dict(type='str', required=True),
        state=dict(type='str', default='present', choices=['present', 'absent', 'assembled']),
        devices=dict(type='list', elements='path'),
        level=dict(type='int', default=0),
        chunk_kb=dict(type='int', default=CHUNK_DEFAULT_KB),
        metadata=dict(type='str', default='1.2', choices=['1.0', '1.1', '1.2']),
        homehost=dict(type='str', default='any'),
        wipe_devices=dict(type='list', elements='path', default=[]),
        allow_shared_disk=dict(type='list', elements='path', default=[]),
        allow_single_device=dict(type='bool', default=False),
        settle_timeout=dict(type='int', default=60),
        conf_path=dict(type='path'),
        rebuild_marker=dict(type='path'),
    )


REQUIRED_IF = [('state', 'present', ['devices']), ('state', 'assembled', ['devices'])]


class ArrayError(Exception):
    def __init__(self, msg, **data):
        super(ArrayError, self).__init__(msg)
        self.msg = msg
        self.data = data


BACKUP_ROOT = '/var/backups/iotune-storage'
_BACKUP_RE = re.compile(r'-0x([0-9a-fA-F]+)\.bak$')


class MdadmArray:
    """Executes the plan for one array. ``run`` is ``module.run_command``-like."""

    backup_root = BACKUP_ROOT

    def __init__(self, params, view, run, mdadm, udevadm=None, check_mode=False, sleep=time.sleep,
                 warn=None, blockdev=None, replace=files.replace_keeping_owner):
        self.p = params
        self.replace = replace
        self.view = view
        self.run = run
        self.mdadm = mdadm
        self.udevadm = udevadm
        self.blockdev = blockdev
        self.check_mode = check_mode
        self.sleep = sleep
        self.warn = warn or (lambda msg: None)
        self.name = params['name']
        self.device = md.md_device(self.name)
        self.conf_problems = []     # what update_conf found out of step in conf_path

    # --- helpers ---------------------------------------------------------------------------------
    def _cmd(self, argv, what):
        rc, out, err = self.run(argv)
        if rc != 0:
            raise ArrayError('%s failed (rc=%s): %s' % (what, rc, (err or out).strip()),
                             cmd=argv, rc=rc, stdout=out, stderr=err)
        return out

    def member_subset(self, option, why, member_ids, errors):
        """Resolve a list option whose entries must be members; problems are appended to ``errors``."""
        resolved, problems = ds.resolve_all(self.view, self.p.get(option) or [])
        errors.extend('%s: %s' % (option, e) for e in problems)
        for dev in resolved:
            if dev.majmin not in member_ids:
                errors.append('%s entry %s is not one of devices; %s' % (option, dev.label, why))
        return resolved

    def md_exists(self):
        return self.view.exists(self.device)

    def detail(self, path):
        """Parsed detail of a running array, or None."""
        rc, out, err = self.run([self.mdadm, '--detail', '--export', path])
        if rc != 0:
            return None
        exp = md.parse_detail_export(out)
        rc, text, err = self.run([self.mdadm, '--detail', path])
        det = md.parse_detail(text) if rc == 0 else {'devices': []}
        members = sorted(set(os.path.basename(d['path']) for d in det['devices'] if d.get('path')))
        if not members:
            members = sorted(exp['members'])
        return {
            'level': exp['level'] or det.get('level'),
            'chunk_kb': det.get('chunk_kb'),
            'raid_devices': exp['raid_devices'] if exp['raid_devices'] is not None else det.get('raid_devices'),
            'uuid': exp['uuid'] or det.get('uuid'),
            'name': exp['name'] or det.get('name'),
            'metadata': exp['metadata'] or det.get('version'),
            'state': det.get('state'),
            'members': members,
        }

    def examine(self, dev):
        return self.examine_path(dev.resolved)

    def examine_path(self, path):
        rc, out, err = self.run([self.mdadm, '--examine', '--export', path])
        if rc != 0 or not out.strip():
            return None
        sb = md.parse_examine_export(out)
        rc, text, err = self.run([self.mdadm, '--examine', path])
        if rc == 0:
            human = md.parse_examine(text)
            for key in ('chunk_kb', 'role', 'level', 'raid_devices', 'name', 'uuid'):
                if sb.get(key) is None:
                    sb[key] = human.get(key)
        return sb

    def superblock_from_blkid(self, dev):
        probe = self.view.blkid_probe(dev.resolved)
        if probe.get('TYPE') != 'linux_raid_member':
            return None
        return {'name': probe.get('LABEL'), 'uuid': md.blkid_uuid_to_mdadm(probe.get('UUID')),
                'level': None, 'chunk_kb': None, 'raid_devices': None, 'role': None}

    def inactive(self, kname, info):
        state = self.view.sys_read(kname, 'md/array_state') if kname else None
        return 'inactive' in (state or '') or 'inactive' in (info.get('state') or '')

    def inactive_message(self, kname, info, devices, labels):
        """Why an array is inactive: which slot is missing and what became of the listed devices."""
        present = set(self.view.slaves(kname))
        present.update(d.kname for d in devices if kname in self.view.holders(d.kname))
        present.update(info.get('members') or [])
        roles = {}
        raid_devices = None
        for member in sorted(present):
            sb = self.examine_path('/dev/%s' % member) or {}
            if sb.get('role') is not None:
                roles[sb['role']] = member
            raid_devices = raid_devices if sb.get('raid_devices') is None else sb['raid_devices']
        # (not info['raid_devices']: for an inactive array mdadm --detail --export counts the members present)
        uuid = info.get('uuid')
        missing = md.missing_slots(raid_devices, roles)
        parts = []
        if missing:
            parts.append('%s of %s %s missing' % (md.join_words('slot %d' % s for s in missing), raid_devices,
                                                  'is' if len(missing) == 1 else 'are'))
        elif missing is None:
            parts.append('the number of members it needs is not known')
        parts.append('present: %s' % (', '.join('/dev/%s%s' % (k, ''.join(' as slot %d' % r for r, m in roles.items()
                                                                          if m == k)) for k in sorted(present))
                                      or 'none'))
        not_added = []
        for dev in devices:
            if dev.kname in present:
                continue
            sb = self.examine(dev)
            if sb and uuid and sb.get('uuid') == uuid:
                not_added.append('%s carries its superblock (slot %s) but was not added' % (labels[dev.kname], sb.get('role')))
            elif sb:
                not_added.append('%s is not in it (it carries the superblock of another array, %s UUID %s)'
                                 % (labels[dev.kname], sb.get('name'), sb.get('uuid')))
            else:
                not_added.append('%s is not in it (it does not carry the superblock of this array)' % labels[dev.kname])
        text = ('array %s (UUID %s) is assembled as /dev/%s but inactive: a member is missing: %s'
                % (self.name, uuid, kname, '; '.join(parts)))
        if not_added:
            text += '; of devices, %s' % '; '.join(not_added)
        if any('but was not added' in n for n in not_added):
            text += ('. Stop the half-assembled array with "mdadm --stop /dev/%s" and run again to assemble it from '
                     'all its members' % kname)
        else:
            text += ('. A RAID0 array cannot run without all its members and nothing was changed: attach the missing '
                     'disk, then stop the array with "mdadm --stop /dev/%s" and run again; if the disk is lost, so '
                     'is the array' % kname)
        return text

    def result_from_detail(self, info, **flags):
        kname = md.kernel_name(self.view.path(self.device)) if self.md_exists() else None
        result = {
            'device': self.device,
            'kernel_name': kname,
            'uuid': info.get('uuid'),
            'level': info.get('level'),
            'chunk_kb': info.get('chunk_kb'),
            'members': ['/dev/%s' % k for k in info.get('members') or []],
            'raid_disks': info.get('raid_devices') or len(info.get('members') or []),
            'md_name': info.get('name'),
            'array_line': None,
            'created': False, 'assembled': False, 'stopped': False, 'wiped': [], 'wipe_backups': [],
        }
        if info.get('uuid'):
            result['array_line'] = md.array_line(self.name, self.p['metadata'] if not info.get('metadata')
                                                 else info['metadata'], info['uuid'], info.get('name'))
        result.update(flags)
        return result

    def settle(self):
        if self.udevadm:
            self.run([self.udevadm, 'settle', '--timeout=%d' % self.p['settle_timeout']])
        deadline = self.p['settle_timeout'] * 2
        for dummy in range(deadline):
            if self.md_exists():
                return
            self.sleep(0.5)
        raise ArrayError('%s did not appear within %s seconds' % (self.device, self.p['settle_timeout']))

    # --- state=absent ------------------------------------------------------------------------------
    def absent(self):
        empty = {'level': None, 'chunk_kb': None, 'members': [], 'raid_devices': 0}
        if not self.md_exists():
            return self.result_from_detail(empty), None
        dev = ds.resolve(self.view, self.device)
        in_use = ds.usage(self.view, dev)
        if in_use:
            raise ArrayError('refusing to stop %s: %s' % (dev.label, '; '.join(in_use)))
        info = self.detail(self.device) if self.mdadm else None
        info = info or empty
        before = md.describe_array(self.name, info.get('level'), info.get('chunk_kb'),
                                   ['/dev/%s' % k for k in info.get('members') or []])
        if not self.check_mode:
            if not self.mdadm:
                raise ArrayError('mdadm is not installed; cannot stop %s' % self.device)
            self._cmd([self.mdadm, '--stop', self.device], 'mdadm --stop %s' % self.device)
        result = self.result_from_detail(info, stopped=True)
        result['kernel_name'] = dev.kname
        result['array_line'] = None
        return result, {'before': before, 'after': {}}

    # --- state=present/assembled ----------------------------------------------------------------
    def present(self):
        """Leave a matching running array, assemble an inactive one, or create a new one (in that order)."""
        devices, wipe, shared = self.resolve_params()
        labels = dict((d.kname, d.label) for d in devices)
        desired = {'level': self.p['level'], 'chunk_kb': self.p['chunk_kb'], 'members': [d.kname for d in devices]}
        after = md.describe_array(self.name, md.LEVEL_NAMES[self.p['level']], self.p['chunk_kb'],
                                  ['/dev/%s' % d.kname for d in devices], self.p['metadata'])
        self.require_mdadm()
        if self.md_exists():
            return self.confirm_running(devices, labels, desired), None
        self.refuse_foreign_name(devices, labels)
        assembled = self.assemble_inactive(devices, labels, desired, after)
        if assembled is not None:
            return assembled, {'before': {}, 'after': after}
        if self.p['state'] == 'assembled':
            raise ArrayError('no array named %s found on %s; state=assembled never creates one'
                             % (self.name, ', '.join(d.label for d in devices)))
        return self.create(devices, wipe, shared, desired, after), {'before': {}, 'after': after}

    def resolve_params(self):
        """Validated members, wipe_devices and allow_shared_disk (resolved devices); raises on any error."""
        p = self.p
        errors = md.validate_params(self.name, p['level'], p['chunk_kb'], p['metadata'], len(p['devices'] or []),
                                    allow_single_device=p.get('allow_single_device', False))
        if errors:
            raise ArrayError('; '.join(errors))
        devices, errors = ds.resolve_all(self.view, p['devices'])
        member_ids = set(d.majmin for d in devices)
        wipe = self.member_subset('wipe_devices', 'only members can be wiped', member_ids, errors)
        shared = self.member_subset('allow_shared_disk', 'it only applies to members', member_ids, errors)
        if errors:
            raise ArrayError('array %s: %s' % (self.name, '; '.join(errors)))
        return devices, wipe, shared

    def require_mdadm(self):
        """Without mdadm only check mode can go on (predicting from blkid)."""
        if self.mdadm is None:
            if not self.check_mode:
                raise ArrayError('mdadm is not installed on this host; install the mdadm package first '
                                 '(the iotune.storage.raid0 role does)')
            self.warn('mdadm is not installed; the result is predicted from blkid only')

    def confirm_running(self, devices, labels, desired):
        """1. an array already runs as /dev/md/NAME: it must be active and match."""
        if self.mdadm is None:
            raise ArrayError('%s exists but mdadm is not installed to inspect it' % self.device)
        info = self.detail(self.device)
        if info is None:
            raise ArrayError('%s exists but mdadm --detail cannot read it' % self.device)
        kname = md.kernel_name(self.view.path(self.device))
        if self.inactive(kname, info):
            raise ArrayError(self.inactive_message(kname, info, devices, labels), existing=info)
        problems = md.compare_active(self.name, desired, info)
        if problems:
            raise ArrayError(problems[0], existing=info)
        return self.result_from_detail(info)

    def refuse_foreign_name(self, devices, labels):
        """2. members already belong to a running array of this name under another device name."""
        if self.mdadm is None:
            return
        for dev in devices:
            for holder in self.view.holders(dev.kname):
                if not holder.startswith('md'):
                    continue
                info = self.detail('/dev/%s' % holder)
                if not info or not md.name_matches(info.get('name'), self.name):
                    continue
                if self.inactive(holder, info):
                    raise ArrayError(self.inactive_message(holder, info, devices, labels), existing=info)
                raise ArrayError(
                    'array %s (UUID %s) is running as /dev/%s but %s does not exist (it was '
                    'assembled under a foreign name); stop it with "mdadm --stop /dev/%s" and run '
                    'again to assemble it as %s'
                    % (self.name, info.get('uuid'), holder, self.device, holder, self.device))

    def assemble_inactive(self, devices, labels, desired, after):
        """3. the members carry the superblocks of this array: assemble it (None when they do not)."""
        if self.mdadm is not None:
            superblocks = dict((d.kname, self.examine(d)) for d in devices)
        else:
            superblocks = dict((d.kname, self.superblock_from_blkid(d)) for d in devices)
        plan = md.plan_from_superblocks(self.name, desired, superblocks, labels)
        if plan is None:
            return None
        if plan.action == 'fail':
            raise ArrayError(plan.messages[0])
        if not self.check_mode:
            argv = [self.mdadm, '--assemble', self.device, '--uuid=%s' % plan.uuid] + [d.resolved for d in devices]
            self._cmd(argv, 'mdadm --assemble %s' % self.device)
            self.settle()
            info = self.detail(self.device)
            if info is None:
                raise ArrayError('%s was assembled but mdadm --detail cannot read it' % self.device)
            return self.result_from_detail(info, assembled=True)
        md_name = superblocks[devices[0].kname].get('name')
        if plan.unknown:
            self.warn('the prediction is uncertain: array %s (superblock name %s, UUID %s) would be assembled '
                      'from %s, but its %s cannot be read without mdadm (blkid shows only name and UUID), so '
                      'whether they match (raid%s, %sK chunk, %d members) is not known; the real run compares '
                      'them with mdadm --examine and fails when they differ'
                      % (self.name, md_name, plan.uuid, ', '.join(labels[d.kname] for d in devices),
                         md.join_words(plan.unknown), self.p['level'], self.p['chunk_kb'], len(devices)))
        info = {'uuid': plan.uuid, 'level': after['level'], 'chunk_kb': self.p['chunk_kb'],
                'members': desired['members'], 'raid_devices': len(devices), 'name': md_name}
        return self.result_from_detail(info, assembled=True)

    def refuse_unsafe_create(self, devices, wipe, shared):
        """4a. safety first: equal sizes, nothing in use, no data; returns the members to wipe."""
        problems = []
        mismatch = ds.size_mismatch(devices)
        if mismatch:
            problems.append(mismatch)
        refusals, to_wipe = ds.check_writable(self.view, devices, set(w.majmin for w in wipe),
                                              allowed_shared=set(d.majmin for d in shared))
        problems.extend(refusals)
        if problems:
            raise ArrayError('array %s not created: %s' % (self.name, ' | '.join(problems)), refusals=problems)
        return to_wipe

    def create(self, devices, wipe, shared, desired, after):
        """4b. create the array (wiping the opted-in members first); check mode predicts."""
        to_wipe = self.refuse_unsafe_create(devices, wipe, shared)
        wiped = [d.resolved for d in to_wipe]
        if self.check_mode:
            info = {'uuid': None, 'level': after['level'], 'chunk_kb': self.p['chunk_kb'],
                    'members': desired['members'], 'raid_devices': len(devices),
                    'name': md.predicted_md_name(self.name, self.p['homehost'], socket.gethostname())}
            return self.result_from_detail(info, created=True, wiped=wiped)
        backups = self.wipe_and_create(devices, to_wipe)
        self.settle()
        info = self.detail(self.device)
        if info is None:
            raise ArrayError('%s was created but mdadm --detail cannot read it' % self.device)
        after['uuid'] = info.get('uuid')
        result = self.result_from_detail(info, created=True, wiped=wiped)
        result['wipe_backups'] = backups
        return result

    # --- mdadm.conf --------------------------------------------------------------------------------
    def update_conf(self, result):
        """Keep conf_path in step with the array: stale lines out, the ARRAY line in once. Returns a diff.

        With ``rebuild_marker``, the marker is written (and on disk) before mdadm.conf changes, and
        ``rebuild_pending`` says whether a rebuild of the initramfs is owed: mdadm.conf changes now, or an earlier
        run changed it and did not get to the end of its rebuild (the marker is still there)."""
        path = self.p.get('conf_path')
        marker = self.p.get('rebuild_marker')
        result['conf_changed'] = False
        result['rebuild_pending'] = bool(marker) and os.path.exists(marker)
        if not path:
            return None
        try:
            with open(path) as f:
                before = f.read()
        except FileNotFoundError:
            before = None
        except (IOError, OSError) as e:
            raise ArrayError('cannot read %s: %s' % (path, e))
        wanted = None if self.p['state'] == 'absent' else result.get('array_line')
        if not wanted and self.p['state'] != 'absent':
            # check mode create: the UUID is not known yet; only a line of another UUID/name is stale then
            return None
        # the one rule of an ARRAY line in step (mdadm.conf_problems), which the audit applies too
        self.conf_problems = md.conf_problems(before, self.name, result.get('uuid'), wanted, where=path)
        if not self.conf_problems:
            return None
        after = md.conf_update(before or '', self.name, result.get('uuid'), wanted)
        result['conf_changed'] = True
        result['rebuild_pending'] = bool(marker)
        if not self.check_mode:
            if marker and not os.path.exists(marker):
                self.write_marker(marker, path)
            self.write_file(path, after)
        return {'before_header': path, 'after_header': path, 'before': before or '', 'after': after}

    def write_marker(self, marker, conf_path):
        """The rebuild marker, fsynced before mdadm.conf changes (files.write_text)."""
        try:
            files.write_text(marker, '%s changed: the initramfs that carries a copy of it is rebuilt by the next run of '
                             'the iotune.storage.raid0 role, which then removes this file\n' % conf_path,
                             self.replace, mode=0o600, prefix='.initramfs-rebuild-pending.')
        except (IOError, OSError) as e:
            raise ArrayError('cannot write %s: %s' % (marker, e))

    def write_file(self, path, text):
        """Write ``text`` to ``path`` atomically (module_utils/files.py; mode 0644 when the file is new)."""
        try:
            files.write_text(path, text, self.replace, prefix='.mdadm.conf.')
        except (IOError, OSError) as e:
            raise ArrayError('cannot write %s: %s' % (path, e))

    def create_argv(self, devices):
        p = self.p
        argv = [self.mdadm, '--create', self.device, '--run', '--level=%d' % p['level'],
                '--raid-devices=%d' % len(devices), '--chunk=%d' % p['chunk_kb'],
                '--metadata=%s' % p['metadata'], '--name=%s' % self.name]
        if p['homehost']:
            argv.append('--homehost=%s' % p['homehost'])
        if len(devices) == 1:
            argv.append('--force')
        argv += [d.resolved for d in devices]
        return argv

    # --- wipe with backup, undo on failure ---------------------------------------------------------
    def backup_dir(self):
        """A new private directory for the wipefs backup files of this run."""
        os.makedirs(self.backup_root, mode=0o700, exist_ok=True)
        stamp = time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())
        return tempfile.mkdtemp(prefix='%s-%s-' % (self.name, stamp), dir=self.backup_root)

    @staticmethod
    def backup_files(directory, dev):
        return sorted(glob.glob(os.path.join(glob.escape(directory), 'wipefs-%s-0x*.bak'
                                             % glob.escape(os.path.basename(dev.resolved)))))

    def wipe(self, dev, directory):
        """``wipefs --all --backup``: util-linux writes $HOME/wipefs-<dev>-0x<offset>.bak per signature."""
        argv = [self.view.wipefs, '--all', '--backup', dev.resolved]
        rc, out, err = self.run(argv, environ_update={'HOME': directory})
        if rc != 0:
            raise ArrayError('wipefs --all %s failed (rc=%s): %s' % (dev.label, rc, (err or out).strip()),
                             cmd=argv, rc=rc, stdout=out, stderr=err)

    def restore(self, dev, files):
        """Write the saved signature bytes back at their offsets; returns a description."""
        pieces = []
        if not files:
            return '%s (nothing saved)' % dev.resolved
        with open(self.view.path(dev.resolved), 'r+b') as target:
            for name in files:
                m = _BACKUP_RE.search(name)
                if not m:
                    continue
                with open(name, 'rb') as f:
                    data = f.read()
                target.seek(int(m.group(1), 16))
                target.write(data)
                pieces.append('%d bytes at offset %#x' % (len(data), int(m.group(1), 16)))
            target.flush()
            os.fsync(target.fileno())
        return '%s (%s)' % (dev.resolved, ', '.join(pieces))

    def undo_wipes(self, wiped, directory):
        """Restore every wiped device; returns a sentence for the failure message."""
        done = []
        failed = []
        for dev in wiped:
            files = self.backup_files(directory, dev)
            try:
                done.append(self.restore(dev, files))
            except (IOError, OSError) as e:
                failed.append('%s: %s' % (dev.resolved, e))
                continue
            if self.blockdev and files:
                # wipefs made the kernel drop the partitions of a wiped partition table; read it again
                self.run([self.blockdev, '--rereadpt', dev.resolved])
        text = []
        if done:
            text.append('restored the signatures wiped from %s' % ', '.join(done))
        if failed:
            text.append('could NOT restore %s; restore by hand with "dd if=FILE of=DEVICE seek=$((OFFSET)) bs=1 '
                        'conv=notrunc"' % '; '.join(failed))
        text.append('the wipefs backup files are in %s' % directory)
        if self.udevadm:
            self.run([self.udevadm, 'settle', '--timeout=%d' % self.p['settle_timeout']])
        return '; '.join(text)

    def wipe_and_create(self, devices, to_wipe):
        """Wipe the opted-in members (with backups), create the array; undo the wipes if that fails."""
        directory = self.backup_dir() if to_wipe else None
        wiped = []
        try:
            for dev in to_wipe:
                wiped.append(dev)
                self.wipe(dev, directory)
            self._cmd(self.create_argv(devices), 'mdadm --create %s' % self.device)
        except ArrayError as e:
            if not wiped:
                raise
            files = [f for dev in wiped for f in self.backup_files(directory, dev)]
            raise ArrayError('%s; %s' % (e.msg, self.undo_wipes(wiped, directory)),
                             wipe_backup_dir=directory, wipe_backups=files, **e.data)
        return [f for dev in wiped for f in self.backup_files(directory, dev)]

    def apply(self):
        """(result, diff of the array or None)."""
        if self.p['state'] == 'absent':
            return self.absent()
        return self.present()

    @staticmethod
    def changed(result):
        """Whether a result of ``converge()`` changed (or, in check mode, would change) the host."""
        return bool(result['created'] or result['assembled'] or result['stopped'] or result['conf_changed'])

    def converge(self):
        """(result, list of diffs): the array, then mdadm.conf when conf_path is set."""
        result, diff = self.apply()
        conf_diff = self.update_conf(result)
        return result, [d for d in (diff, conf_diff) if d is not None]
