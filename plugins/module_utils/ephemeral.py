# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The boot-time program of ephemeral (instance-store) arrays: bring the array back after a stop/start.

An instance-store disk comes back blank after a stop/start: the array, its filesystem and the database's
directory are gone. For an array marked ``ephemeral: true`` the ``ephemeral`` role installs a copy of these
module_utils on the host, one JSON spec per array under /etc/iotune-storage/ephemeral/ and a systemd unit
``iotune-ephemeral-NAME.service`` that runs ``main()`` before the array's mount unit and before the
services of the array. It decides, with the same code as the modules (md_array.MdadmArray,
xfs_format.XfsFilesystem, device_safety):

- the array runs, or its members carry its superblocks (an ordinary reboot): it is left alone or assembled,
  exactly as the mdadm_array module would, and its XFS must be there (it is never re-made; fstab is left as
  it is);
- EVERY member is blank (no signature, zeros in the regions device_safety reads, nothing in use): the RAID0
  is created with the same name, chunk, metadata and homehost, the XFS with the same label and stripe (and
  ``mkfs.xfs -K`` when the profile's ``mkfs: {discard: false}``, the spec's ``mkfs_discard``), the
  mdadm.conf ARRAY line and the fstab UUID are rewritten (systemd reloaded, so that the mount unit follows),
  and the mount and the enabled services of the array get start jobs (their boot jobs may have timed out);
- anything else (a member missing, carrying a signature or data, in use, sizes differ): it refuses, says why
  on stdout (the journal), writes nothing, and exits 1 - the services that Require= the unit stay down.

No Ansible import: the role copies this file and the module_utils it imports (host, sysfs_block, ebs,
md_identity, rules, device_safety, files, mdadm, md_array, xfs, xfs_format) below
/usr/local/lib/iotune-storage/ as one entry script that carries these module_utils files byte for byte.
"""

from __future__ import annotations

import json
import os
import pwd
import grp
import shutil
import sys
import tempfile
import time

from ansible_collections.iotune.storage.plugins.module_utils import cloud
from ansible_collections.iotune.storage.plugins.module_utils import device_safety as ds
from ansible_collections.iotune.storage.plugins.module_utils import files
from ansible_collections.iotune.storage.plugins.module_utils import fstab
from ansible_collections.iotune.storage.plugins.module_utils import mdadm as md
from ansible_collections.iotune.storage.plugins.module_utils.host import BlockHost, run_argv
from ansible_collections.iotune.storage.plugins.module_utils.md_array import ArrayError, MdadmArray
from ansible_collections.iotune.storage.plugins.module_utils.xfs_format import FsError, XfsFilesystem

__metaclass__ = type

SPEC_DIR = '/etc/iotune-storage/ephemeral'
SPEC_REQUIRED = ('name', 'devices', 'chunk_kb', 'label', 'mountpoint', 'mount_options', 'conf_path')
SPEC_DEFAULTS = {'metadata': '1.2', 'homehost': 'any', 'allow_single_device': False, 'owner': None,
                 'group': None, 'mode': None, 'fstab': '/etc/fstab', 'device_wait': 90, 'settle_timeout': 60,
                 'mount_unit': None, 'services': [], 'members': None,
                 # the profile's mkfs.discard (docs/xfs.md "mkfs options"): false is mkfs.xfs -K, as xfs_filesystem
                 # does; a spec an earlier release wrote lacks it (mkfs.xfs's own default: discard)
                 'mkfs_discard': True}
TOOLS = ('mdadm', 'mkfs.xfs', 'xfs_info', 'blkid', 'wipefs', 'udevadm', 'blockdev', 'systemctl', 'mount', 'umount')
NOT_BLANK = ('The boot program never wipes anything: a member that is not blank is not a fresh instance-store '
             'disk. Nothing was written; the services of the array stay stopped. Look at the disks, then run '
             'the tune playbook (or attach the right disks) and reboot or start the unit again')


class Refused(Exception):
    """The array is not brought back; the message says why. Nothing was written."""


def load_spec(path):
    """The spec of one array (JSON written by the ephemeral role) with defaults; raises Refused."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (IOError, OSError, ValueError) as e:
        raise Refused('cannot read the spec %s: %s' % (path, e))
    if not isinstance(data, dict):
        raise Refused('the spec %s is not a JSON object' % path)
    missing = [k for k in SPEC_REQUIRED if data.get(k) in (None, '', [])]
    if missing:
        raise Refused('the spec %s lacks %s' % (path, ', '.join(missing)))
    spec = dict(SPEC_DEFAULTS)
    spec.update(data)
    return spec


def numeric_id(value, lookup, what):
    """uid/gid of a name or number given as a string; raises Refused when unknown."""
    if value is None:
        return -1
    if str(value).isdigit():
        return int(value)
    try:
        return lookup(value)
    except KeyError:
        raise Refused('%s %s does not exist on this host' % (what, value))


class EphemeralArray:
    """One array's decision and execution. ``run`` is run_command-like (argv -> (rc, out, err))."""

    def __init__(self, spec, view, run, bins, log, check_mode=False, sleep=time.sleep, clock=time.monotonic):
        self.spec = spec
        self.view = view
        self.run = run
        self.bins = bins
        self.log = log
        self.check_mode = check_mode
        self.sleep = sleep
        self.clock = clock
        self.name = spec['name']

    def params(self):
        """The mdadm_array parameters of this array: state present, never a wipe."""
        s = self.spec
        return {'name': s['name'], 'state': 'present', 'devices': list(s['devices']), 'level': 0,
                'chunk_kb': s['chunk_kb'], 'metadata': s['metadata'], 'homehost': s['homehost'],
                'wipe_devices': [], 'allow_shared_disk': [], 'allow_single_device': s['allow_single_device'],
                'settle_timeout': s['settle_timeout'], 'conf_path': s['conf_path']}

    def selected_devices(self):
        """The member paths of this boot: the spec's ``devices``, or, for an array given by cloud selectors
        (``members``, e.g. {instance_store: all}), what they resolve to now (serials change with the disks).
        Raises cloud.SelectorError."""
        members = self.spec.get('members') or []
        if not any(isinstance(m, dict) for m in members):
            return list(self.spec['devices'])
        self.view.rescan()
        paths = []
        for member in members:
            if isinstance(member, dict):
                paths.extend(path for dummy, path in cloud.resolve(self.view, member))
            else:
                paths.append(member)
        return paths

    def wait_for_members(self):
        """Wait (udevadm settle, then poll) until every member exists; Refused naming the missing ones.

        With selectors the spec's ``devices`` become what they resolve to now; a selection of another number
        of disks than the array had is refused (its stripe would differ).
        """
        if self.bins.get('udevadm'):
            self.run([self.bins['udevadm'], 'settle', '--timeout=%d' % self.spec['settle_timeout']])
        deadline = self.clock() + self.spec['device_wait']
        slept = False
        while True:
            problem = None
            try:
                devices = self.selected_devices()
                missing = [d for d in devices if not self.view.exists(d)]
            except cloud.SelectorError as e:
                problem, missing, devices = str(e), None, []
            # NVMe namespaces appear one by one: a selection short of the array's size is not ready yet either
            ready = not missing and not problem and len(devices) == len(self.spec['devices'])
            if ready or self.clock() >= deadline:
                break
            self.sleep(1)
            slept = True
        if slept and self.bins.get('udevadm'):
            # the last member's link exists before udev's own RUN (mdadm --incremental) for it has run
            self.run([self.bins['udevadm'], 'settle', '--timeout=%d' % self.spec['settle_timeout']])
        if problem:
            raise Refused('%s (waited %ss). Nothing was written' % (problem, self.spec['device_wait']))
        if missing:
            raise Refused('%s of array %s %s missing after %ss; a RAID0 needs every member. Nothing was written'
                          % (', '.join(missing), self.name, 'is' if len(missing) == 1 else 'are',
                             self.spec['device_wait']))
        if devices != list(self.spec['devices']):
            if len(devices) != len(self.spec['devices']):
                raise Refused('the members of array %s now resolve to %d disks (%s), the array has %d (%s); its '
                              'stripe would differ. Nothing was written'
                              % (self.name, len(devices), ', '.join(devices), len(self.spec['devices']),
                                 ', '.join(self.spec['devices'])))
            self.log.info('array %s: its member selectors resolve to %s (at the tune run: %s)'
                          % (self.name, ', '.join(devices), ', '.join(self.spec['devices'])))
            self.spec['devices'] = devices

    def ensure_array(self):
        """(MdadmArray, result): left alone, assembled or created by the mdadm_array code; Refused otherwise."""
        array = MdadmArray(self.params(), self.view, self.run, self.bins.get('mdadm'), udevadm=self.bins.get('udevadm'),
                           check_mode=self.check_mode, sleep=self.sleep, warn=self.log.warning,
                           blockdev=self.bins.get('blockdev'))
        try:
            result, dummy = array.apply()
        except ArrayError as e:
            if e.data.get('refusals'):
                # the module's opt-in hints (wipe_devices) do not apply at boot: this program never wipes
                msg = e.msg.replace('; ' + ds.WIPE_HINT, '').replace('; ' + ds.DATA_HINT, '')
                raise Refused('%s. %s' % (msg, NOT_BLANK))
            raise Refused('%s. Nothing was written' % e.msg)
        except ds.DeviceError as e:
            raise Refused('%s. Nothing was written' % e)
        return array, result

    def ensure_filesystem(self, array_result):
        """The XFS of the array: made (same label, stripe) only on an array created now; else it must exist."""
        created = array_result['created']
        fs = XfsFilesystem({'device': md.md_device(self.name), 'label': self.spec['label'],
                            'su_kb': self.spec['chunk_kb'], 'sw': len(self.spec['devices']),
                            'allow_data': False, 'allow_shared_disk': False,
                            'mkfs_discard': self.spec['mkfs_discard'] is not False},
                           self.view, self.run, self.bins, check_mode=self.check_mode or not created,
                           warn=self.log.warning)
        try:
            result = fs.apply()
        except (FsError, ds.DeviceError) as e:
            raise Refused('%s. %s' % (e, 'The array was created now, but not its filesystem' if created
                                      else 'Nothing was written'))
        if result['created'] and not created:
            raise Refused('array %s was already there (not created now) but carries no XFS filesystem; the boot '
                          'program only formats an array it has just created from blank disks. Nothing was '
                          'written; run the tune playbook' % self.name)
        return result

    def set_root_owner(self, device):
        """owner/group/mode of the new filesystem's root (mkfs makes it root:root 0755), via a private mount."""
        s = self.spec
        if s['owner'] is None and s['group'] is None and s['mode'] is None:
            return
        uid = numeric_id(s['owner'], lambda n: pwd.getpwnam(n).pw_uid, 'owner')
        gid = numeric_id(s['group'], lambda n: grp.getgrnam(n).gr_gid, 'group')
        where = tempfile.mkdtemp(prefix='iotune-ephemeral-%s.' % self.name, dir=self.bins.get('mount_dir'))
        try:
            rc, out, err = self.run([self.bins.get('mount') or 'mount', '-t', 'xfs', device, where])
            if rc != 0:
                raise Refused('mounting the new filesystem to set its owner failed (rc=%s): %s' % (rc, (err or out).strip()))
            try:
                os.chown(where, uid, gid)
                if s['mode'] is not None:
                    os.chmod(where, int(str(s['mode']), 8))
            finally:
                self.run([self.bins.get('umount') or 'umount', where])
        finally:
            os.rmdir(where)

    def update_fstab(self, uuid):
        """Point the mount point's fstab line at the filesystem; True when it changed."""
        path = self.spec['fstab']
        try:
            with open(path) as f:
                before = f.read()
        except FileNotFoundError:
            before = ''
        try:
            after = fstab.set_uuid(before, self.spec['mountpoint'], uuid, self.spec['mount_options'])
        except fstab.LineError as e:
            raise Refused(str(e))
        if after == before:
            return False
        if not self.check_mode:
            files.write_text(path, after, prefix='.fstab.iotune-')
        return True

    def queue_mount_and_services(self):
        """Start jobs (--no-block) for the mount and the enabled services of the array.

        At boot the mount unit waited for the old filesystem's device (x-systemd.device-timeout from the start
        of the boot); a re-creation that takes longer than that (mkfs.xfs discards the whole array) finds the
        mount, and the services behind it, failed with 'dependency'. New jobs (ordered after this unit, so they
        run when it has finished) bring them up; a job that is still queued just merges. Only services that are
        enabled are started: the boot would have started exactly those.
        """
        systemctl = self.bins.get('systemctl')
        if not systemctl:
            return
        units = [u for u in [self.spec.get('mount_unit')] if u]
        for service in self.spec.get('services') or []:
            rc, out, dummy = self.run([systemctl, 'is-enabled', service])
            if rc == 0 and out.strip() in ('enabled', 'enabled-runtime'):
                units.append(service)
        if units:
            rc, out, err = self.run([systemctl, 'start', '--no-block'] + units)
            if rc != 0:
                self.log.warning('systemctl start --no-block %s failed (rc=%s): %s'
                                 % (' '.join(units), rc, (err or out).strip()))

    def apply(self):
        """Bring the array back or refuse. Returns a dict of what happened; raises Refused."""
        self.wait_for_members()
        array, result = self.ensure_array()
        what = 'created' if result['created'] else 'assembled' if result['assembled'] else 'running'
        if result['created']:
            self.log.info('array %s: every member is blank (%s); %s RAID0 %s (chunk %sK, UUID %s)'
                          % (self.name, ', '.join(self.spec['devices']),
                             'would create' if self.check_mode else 'created', md.md_device(self.name),
                             self.spec['chunk_kb'], result.get('uuid')))
        fs = self.ensure_filesystem(result)
        if result['created'] and not self.check_mode:
            self.set_root_owner(fs['resolved'] or md.md_device(self.name))
        conf_diff = array.update_conf(result)
        # fstab follows a filesystem made now; an array that was already there keeps its line (the tune run's job)
        fstab_changed = result['created'] and fs['uuid'] is not None and self.update_fstab(fs['uuid'])
        if fstab_changed and not self.check_mode and self.bins.get('systemctl'):
            # the mount unit was generated from the old line; reload so that it waits for the new UUID
            self.run([self.bins['systemctl'], 'daemon-reload'])
        if result['created'] and not self.check_mode:
            self.queue_mount_and_services()
        return {'name': self.name, 'array': what, 'uuid': result.get('uuid'), 'filesystem_created': fs['created'],
                'filesystem_uuid': fs['uuid'], 'conf_changed': conf_diff is not None, 'fstab_changed': fstab_changed,
                'check_mode': self.check_mode}


class Log:
    """Lines on stdout; with a ``<N>`` syslog prefix when stdout is the journal (systemd reads the level)."""

    def __init__(self, name, stream=None, journal=None):
        self.name = name
        self.stream = stream or sys.stdout
        self.journal = bool(os.environ.get('JOURNAL_STREAM')) if journal is None else journal
        self.lines = []

    def _emit(self, level, text):
        line = '%s%s' % ('<%d>' % level if self.journal else '', text)
        self.lines.append(text)
        self.stream.write(line + '\n')
        self.stream.flush()

    def info(self, text):
        self._emit(6, text)

    def warning(self, text):
        self._emit(4, 'warning: %s' % text)

    def error(self, text):
        self._emit(3, text)


# run_command of the boot program: argv list, no shell, (rc, stdout, stderr)
runner = run_argv


def find_tools():
    path = os.pathsep.join([os.environ.get('PATH', ''), '/usr/sbin', '/usr/bin', '/sbin', '/bin'])
    bins = dict((tool, shutil.which(tool, path=path)) for tool in TOOLS)
    bins['mount_dir'] = '/run' if os.path.isdir('/run') else None
    return bins


def bring_back(spec_path, log, check_mode=False, view=None, run=runner, bins=None, **kw):
    """Run one spec; returns the exit code (0 done or nothing to do, 1 refused or failed)."""
    try:
        spec = load_spec(spec_path)
    except Refused as e:
        log.error(str(e))
        return 1
    log.name = spec['name']
    bins = find_tools() if bins is None else bins
    view = view or BlockHost(run_command=run, blkid=bins.get('blkid') or 'blkid', wipefs=bins.get('wipefs') or 'wipefs')
    try:
        done = EphemeralArray(spec, view, run, bins, log, check_mode=check_mode, **kw).apply()
    except Refused as e:
        log.error('refusing to bring back array %s: %s' % (spec['name'], e))
        return 1
    except (IOError, OSError) as e:
        log.error('array %s: %s' % (spec['name'], e))
        return 1
    log.info('array %s: %s; filesystem %s%s; mdadm.conf %s; fstab %s%s'
             % (spec['name'], done['array'], 'created' if done['filesystem_created'] else 'present',
                ' (UUID %s)' % done['filesystem_uuid'] if done['filesystem_uuid'] else '',
                'updated' if done['conf_changed'] else 'unchanged',
                'updated' if done['fstab_changed'] else 'unchanged',
                ' (check mode: nothing written)' if check_mode else ''))
    return 0


def main(argv=None):
    """``iotune-ephemeral [--check] SPEC.json|NAME ...``; exit 1 when any array was refused."""
    args = list(sys.argv[1:] if argv is None else argv)
    check_mode = '--check' in args
    specs = [a for a in args if a != '--check']
    if not specs:
        sys.stderr.write('usage: iotune-ephemeral [--check] SPEC.json|NAME ...\n')
        return 2
    rc = 0
    for spec in specs:
        path = spec if '/' in spec or spec.endswith('.json') else os.path.join(SPEC_DIR, spec + '.json')
        rc = max(rc, bring_back(path, Log(spec), check_mode=check_mode))
    return rc
