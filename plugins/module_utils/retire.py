# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Retiring an array (issue 29): the one way the collection takes an md array out of service, on an explicit
per-array opt-in that names it twice and gives its UUID (``iotune_retire_md_arrays``).

``ArrayRetire`` is one call of the retire_array module in small steps that raise ``RetireError``; storage_preflight
runs its read (``read``: what is on the host, and every refusal) before the first change of a run, the module runs
the read again and then the steps in this order, each only when there is something left to do:

1. the services' limits drop-ins (``service_limits.path``, the xfs role writes them with the mount holds) removed:
   those of the entry's units and of the units the mount holds hold for the array's mount points, except a unit
   of ``keep_services`` (a service of an array the plan keeps) or one whose mount hold also holds it for another
   mount point (a service of another array on the host);
2. the services' mount holds: a drop-in of the collection that holds a unit for the array's mount point is removed,
   or rewritten without that mount point when it holds the unit for another array too;
3. the array's filesystem unmounted from the mount points its fstab lines give;
4. those fstab lines removed (one atomic write, fsynced), then ``systemctl daemon-reload`` (also after steps 1 and 2
   alone);
5. the rebuild marker written (on disk before mdadm.conf changes: the initramfs rebuild is owed, and a run that
   stops before the rebuild finished leaves it for the next run), then the array's ARRAY lines in mdadm.conf replaced
   by one ``ARRAY <ignore> UUID=...`` line, which keeps mdadm from assembling it again from its superblocks (at boot,
   in the initramfs and in the real root, ``mdadm --incremental`` and ``--assemble --scan`` both honour it);
6. ``mdadm --stop``;
7. with ``zero_superblocks`` only: ``mdadm --zero-superblock`` on each member, then the ``<ignore>`` line removed
   (nothing is left that could be assembled).

A crash between any two steps leaves a state the next run with the same entry reads as its own and finishes: the
mount point is read from the fstab line as long as the filesystem is mounted (step 3 comes before step 4), the units
of the mount holds from the holds as long as they are there (step 1 comes before step 2) and, once they are gone,
from the record of the retire's units (``UNITS_RECORD``, written before step 1 when a hold names a unit, removed with
the stop; a run that finds it after the stop removes it), the members from the
running array or, once it is stopped, from the superblocks that carry its UUID; the rebuild is owed as long as the
marker is there. A host where nothing carries the UUID any more has nothing to do (changed=false): retired already,
with its superblocks zeroed, or never here.

The units are checked (refused while one runs) only while the array runs: once it is stopped nothing a later step
does can pull a filesystem from under a service, and a service the entry names may run again elsewhere (a second run
of an entry retired already is changed=false, never refused).

Nothing here is run for an array that is not named twice with the UUID it runs with: a typo is refused, naming
what the host has.
"""

from __future__ import annotations

import os
import re

from ansible_collections.iotune.storage.plugins.module_utils import device_safety as ds
from ansible_collections.iotune.storage.plugins.module_utils import files as fileutil
from ansible_collections.iotune.storage.plugins.module_utils import fstab
from ansible_collections.iotune.storage.plugins.module_utils import holders
from ansible_collections.iotune.storage.plugins.module_utils import mdadm as md
from ansible_collections.iotune.storage.plugins.module_utils import mount_holds
from ansible_collections.iotune.storage.plugins.module_utils import service_limits
from ansible_collections.iotune.storage.plugins.module_utils import systemd_show
from ansible_collections.iotune.storage.plugins.module_utils.ephemeral import SPEC_DIR as EPHEMERAL_SPEC_DIR
from ansible_collections.iotune.storage.plugins.module_utils.io_observe import is_unit_name, unit_name
from ansible_collections.iotune.storage.plugins.module_utils.md_identity import md_uuid_colon, short_name

__metaclass__ = type

BINS = ('mdadm', 'umount', 'systemctl')
# The units of a retire, recorded (root-only, atomically) before its first change when a mount hold names one: a crash
# after the holds are gone (step 2) and before the stop still knows every unit to check; removed with the stop.
UNITS_RECORD = '/var/lib/iotune-storage/retire-%s.units'
IGNORE = '<ignore>'
_COLON_UUID = re.compile(r'[0-9a-f]{8}(?::[0-9a-f]{8}){3}')
# ActiveState of systemctl show: a unit in one of these states runs (or is about to, or still stops)
RUNNING_STATES = ('active', 'activating', 'deactivating', 'reloading', 'refreshing')
# device kinds that never carry a member's superblock (sysfs_block.classify)
_NOT_MEMBERS = ('md', 'dm', 'loop', 'ram', 'zram', 'rom')


def argument_spec():
    """The retire_array module's options (also one entry of storage_preflight's ``retire.arrays``, without the
    paths)."""
    return dict(
        name=dict(type='str', required=True),
        confirm_name=dict(type='str', required=True),
        confirm_uuid=dict(type='str', required=True),
        zero_superblocks=dict(type='bool', default=False),
        services=dict(type='list', elements='str', default=[]),
        keep_services=dict(type='list', elements='str', default=[]),
        conf_path=dict(type='path', required=True),
        rebuild_marker=dict(type='path'),
        fstab=dict(type='path', default='/etc/fstab'),
    )


class RetireError(Exception):
    """A refusal or a failed step; ``data`` goes into the module result."""

    def __init__(self, msg, **data):
        super(RetireError, self).__init__(msg)
        self.data = data


def colon_uuid(value):
    """The md UUID in mdadm's colon form, or None when ``value`` is not 32 hex digits (with any separators)."""
    colon = md_uuid_colon(value) if isinstance(value, str) else None
    return colon if colon and _COLON_UUID.fullmatch(colon) else None


def ignore_line(uuid):
    """The mdadm.conf line that keeps mdadm from assembling the array ``uuid`` (mdadm.conf(5): ARRAY <ignore>)."""
    return 'ARRAY %s UUID=%s' % (IGNORE, md_uuid_colon(uuid))


_UUID_WORD = re.compile(r'\s(?:UUID|uuid)=(\S+)')


def uuid_lines(text, uuid):
    """The ARRAY lines of mdadm.conf ``text`` that name ``uuid`` (its <ignore> line too), whitespace normalised."""
    found = []
    for line in (text or '').splitlines():
        words = ' '.join(line.split())
        match = _UUID_WORD.search(' ' + words) if words.upper().startswith('ARRAY') else None
        if match and md_uuid_colon(match.group(1)) == uuid:
            found.append(words)
    return found


def conf_by_uuid(text, uuid, wanted):
    """mdadm.conf ``text`` with the ARRAY lines of ``uuid`` removed and ``wanted`` there once (None: not at all); the
    other lines as they are."""
    out, seen = [], False
    for line in (text or '').splitlines():
        words = ' '.join(line.split())
        found = _UUID_WORD.search(' ' + words) if words.upper().startswith('ARRAY') else None
        if found and md_uuid_colon(found.group(1)) == uuid:
            if wanted and words == wanted and not seen:
                seen = True
                out.append(line)
            continue
        out.append(line)
    if wanted and not seen:
        out.append(wanted)
    return '\n'.join(out) + '\n' if out else ''


def show_argv(systemctl, units):
    """``systemctl show`` of the state of ``units``: one block per unit, in order (systemd_show.blocks)."""
    return [systemctl, 'show', '--property=Id,ActiveState', '--'] + list(units)


def running_units(units, out):
    """The units of ``units`` whose ActiveState in ``out`` (show_argv's output) is one of RUNNING_STATES; None when
    the output does not have one block with an ActiveState per unit."""
    blocks = systemd_show.blocks(out)
    if len(blocks) != len(units) or not all('ActiveState' in block for block in blocks):
        return None
    return [unit for unit, block in zip(units, blocks) if block['ActiveState'] in RUNNING_STATES]


def held_text(text, mountpoints):
    """(the text a drop-in keeps once ``mountpoints`` are retired, or None: remove it; the points it held there)."""
    held = mount_holds.held_mounts(text)
    gone = [p for p in held if fstab.normalise_mountpoint(p) in mountpoints]
    kept = [p for p in held if p not in gone]
    return (mount_holds.dropin_text(kept) if kept else None), gone


class ArrayRetire:
    """One retire of one array; ``run`` is ``module.run_command``-like, ``bins`` {name: path or None} of BINS."""

    def __init__(self, params, view, run, bins, check_mode=False, replace=fileutil.replace_keeping_owner):
        self.p = params
        self.view = view
        self.run = run
        self.bins = bins
        self.check_mode = check_mode
        self.replace = replace
        self.name = params['name']
        self.uuid = colon_uuid(params['confirm_uuid'])
        self.problems = []
        self.warnings = []
        self.found = None

    # --- the read ------------------------------------------------------------------------------
    def read(self):
        """What is on the host for this array, and every refusal in ``problems`` (nothing changes)."""
        where = "retire '%s'" % self.name
        if self.p['confirm_name'] != self.name:
            self.problems.append('%s: confirm_name %r is not the name %r; nothing is retired unless both name the array'
                                 % (where, self.p['confirm_name'], self.name))
        if self.uuid is None:
            self.problems.append('%s: confirm_uuid %r is not an md UUID (32 hex digits, as mdadm --detail shows it)'
                                 % (where, self.p['confirm_uuid']))
        if self.problems:
            return None
        found = {'name': self.name, 'uuid': self.uuid, 'state': 'gone', 'kname': None, 'device': None,
                 'filesystem_uuid': None, 'mountpoints': [], 'mounted': [], 'fstab_lines': [], 'members': [],
                 'dropins': [], 'services': [], 'limits': [], 'conf_text': None, 'marker': False,
                 'recorded': None}
        self.found = found
        md_kname = self.md_kname(where)
        if md_kname is not None:
            found.update(kname=md_kname, device='/dev/%s' % md_kname, state='running')
            found['members'] = ['/dev/%s' % s for s in sorted(self.view.slaves(md_kname))]
            found['filesystem_uuid'] = self.probe('/dev/%s' % md_kname).get('UUID')
        found['conf_text'] = self.view._read(self.p['conf_path'])
        marker = self.p.get('rebuild_marker')
        found['marker'] = bool(marker) and os.path.exists(self.view.path(marker))
        if md_kname is None and self.ignored() and not self.p['zero_superblocks']:
            found['state'] = 'retired'       # its superblocks stay, mdadm.conf keeps it from being assembled
        elif md_kname is None:
            found['members'] = self.superblock_members(where)
            if found['members']:
                found['state'] = 'stopped'
        self.check_not_ephemeral(where)
        if found['state'] == 'gone' and self.array_lines():
            # members detached (a cloud volume, a dead controller) or not seen as members: the filesystem, its fstab
            # lines and its holds cannot be read, and removing the ARRAY line alone would let mdadm assemble it, and
            # fstab mount it, when the disks come back
            self.problems.append('%s: no member of the array of UUID %s is on this host, but mdadm.conf has its ARRAY '
                                 'line (%s): attach its members so that the retire can read its filesystem, fstab '
                                 'lines and holds, or remove the line yourself; nothing is retired'
                                 % (where, self.uuid, self.array_lines()[0]))
        self.read_fstab()
        self.read_holds()
        self.read_services()
        if md_kname is not None:
            self.check_in_use(where, md_kname)
            self.check_services(where)
        return found

    def array_lines(self):
        """The ARRAY lines of this UUID in mdadm.conf other than its <ignore> line."""
        return [words for words in uuid_lines(self.found['conf_text'], self.uuid) if words != ignore_line(self.uuid)]

    def check_not_ephemeral(self, where):
        """An ephemeral array (docs/ephemeral.md) is brought back at boot by its unit from its spec, whatever mdadm.conf
        says, and made again on members that look blank: its boot unit must go first (the ephemeral stage removes it
        once the array is out of iotune_arrays)."""
        for path in (os.path.join(EPHEMERAL_SPEC_DIR, self.name + '.json'),
                     '/etc/systemd/system/iotune-ephemeral-%s.service' % self.name):
            if self.view.exists(path):
                self.problems.append('%s: %s is an ephemeral array (%s): its boot unit would bring it back at the '
                                     'next boot; take it out of iotune_arrays and run once (the run removes its boot '
                                     'unit and spec), then retire it' % (where, self.name, path))
                return

    def probe(self, path):
        try:
            return self.view.blkid_probe(path)
        except ds.DeviceError as e:
            self.problems.append("retire '%s': %s" % (self.name, e))
            return {}

    def md_kname(self, where):
        """The kernel name of the running array of this UUID; a mismatch of name or UUID is a problem."""
        inv = self.view.inventory()
        by_uuid = None
        for kname in inv.order:
            info = inv.device(kname)
            if info['type'] == 'md' and (info.get('md') or {}).get('uuid') == self.uuid:
                by_uuid = (kname, info['md'])
        path = md.md_device(self.name)
        by_name = os.path.basename(self.view.realpath(path)) if self.view.exists(path) else None
        if by_name is not None and (by_uuid is None or by_uuid[0] != by_name):
            uuid = ((inv.device(by_name).get('md') or {}).get('uuid') if by_name in inv.sysdirs else None)
            self.problems.append('%s: %s runs as UUID %s, not %s (confirm_uuid); nothing is retired: give the UUID '
                                 'mdadm --detail %s shows, or the name of the array of that UUID'
                                 % (where, path, uuid or 'unknown', self.uuid, path))
            return None
        if by_uuid is None:
            return None
        named = short_name(by_uuid[1].get('name') or by_uuid[1].get('devname'))
        if named and named != self.name:
            self.problems.append('%s: the array of UUID %s is named %s (/dev/%s), not %s; nothing is retired'
                                 % (where, self.uuid, named, by_uuid[0], self.name))
            return None
        return by_uuid[0]

    def ignored(self):
        """Does mdadm.conf hold the <ignore> line of this UUID already (a retire that kept the superblocks)?"""
        return ignore_line(self.uuid) in uuid_lines(self.found['conf_text'], self.uuid)

    def superblock_members(self, where):
        """The devices that carry a superblock of this UUID while the array is not running (blkid -p of every disk
        and partition that is not itself an md, dm, loop or RAM device); a superblock of another name is a problem."""
        inv = self.view.inventory()
        members = []
        for kname in inv.order:
            disk = inv.parents.get(kname) or kname
            if inv.device(disk)['type'] in _NOT_MEMBERS or not self.view.exists('/dev/%s' % kname):
                continue
            probe = self.probe('/dev/%s' % kname)
            if probe.get('TYPE') != 'linux_raid_member' or colon_uuid(probe.get('UUID')) != self.uuid:
                continue
            label = short_name(probe.get('LABEL'))
            if label and label != self.name:
                self.problems.append('%s: /dev/%s carries a superblock of UUID %s named %s, not %s; nothing is retired'
                                     % (where, kname, self.uuid, label, self.name))
                continue
            members.append('/dev/%s' % kname)
        return members

    def read_fstab(self):
        """The fstab lines of the array's filesystem (by its UUID or /dev/md/NAME) and their mount points."""
        found = self.found
        sources = set(['/dev/md/%s' % self.name])
        if found['filesystem_uuid']:
            sources.add('UUID=%s' % found['filesystem_uuid'])
        lines = fstab.entries(self.view._read(self.p['fstab'], '') or '')
        found['fstab_lines'] = [line for line in lines if line['source'] in sources]
        found['mountpoints'] = sorted(set(line['mountpoint'] for line in found['fstab_lines']))

    def read_holds(self):
        """The collection's drop-ins that hold a unit for one of the mount points: [{path, unit, held, keep}]."""
        top = self.view.path(mount_holds.DIR)
        points = set(self.found['mountpoints'])
        for entry in sorted(os.listdir(top)) if points and os.path.isdir(top) else []:
            if not entry.endswith('.d'):
                continue
            path = mount_holds.path(entry[:-2])
            text = self.view.read(path)
            if text is None:
                continue
            keep, gone = held_text(text, points)
            if gone:
                self.found['dropins'].append({'path': path, 'unit': entry[:-2], 'held': gone, 'keep': keep,
                                              'text': text})

    def check_in_use(self, where, kname):
        """Refusals: mounted elsewhere than the mount points of its fstab lines (a bind mount, by hand), swap,
        held (LVM, dm-crypt), a process using files under a mount point or the device itself."""
        majmin = self.view.majmin_of(kname)
        allowed = set(self.found['mountpoints'])
        roots = set(p for ma, mi, p, dummy in self.view.mounts(root_only=True) if (ma, mi) == majmin)
        for major, minor, point, dummy in self.view.mounts():
            if (major, minor) != majmin:
                continue
            if point in allowed and point in roots and point not in self.found['mounted']:
                self.found['mounted'].append(point)
            else:
                self.problems.append('%s: /dev/%s is mounted on %s, which no fstab line of its filesystem gives; '
                                     'unmount it first (a retire unmounts only the mount points of its fstab lines)'
                                     % (where, kname, point))
        for dummy, dummy, point, dummy in self.view.mounts():
            under = [m for m in self.found['mountpoints'] if point.startswith(m.rstrip('/') + '/')]
            if under:
                self.problems.append('%s: %s is mounted under its mount point %s; unmount it first (the retire '
                                     'would fail to unmount %s after its first changes)'
                                     % (where, point, under[0], under[0]))
        if '/dev/%s' % kname in set(self.view.realpath(p) if p.startswith('/') else p for p in self.view.swaps()):
            self.problems.append('%s: /dev/%s is in use as swap' % (where, kname))
        for holder in self.view.holders(kname):
            self.problems.append('%s: /dev/%s is held by %s; remove that first'
                                 % (where, kname, ds.holder_text(self.view, holder)))
        dev = os.makedev(*majmin)
        users = []
        for point in self.found['mounted']:
            users.extend(holders.file_holders(self.view.proc_root, dev, point)[0])
        users.extend(holders.device_openers(self.view.proc_root, dev,
                                            ['/dev/%s' % kname, md.md_device(self.name)]))
        if users:
            self.problems.append('%s: %d process(es) use it: %s; stop them first' % (
                where, len(users), ', '.join('pid %d (%s, %s %s)' % (u['pid'], u['comm'], u['how'], u['path'])
                                             for u in users)))

    def read_services(self):
        """The array's units (those the entry names and those a drop-in holds for its mount points) and the limits
        drop-ins of them that go: [{path, unit, text}]. A unit of ``keep_services`` (a service of an array the plan
        keeps) or one whose mount hold stays for another mount point keeps its limits drop-in; nothing goes for an
        array the host has nothing of (a typo of the UUID)."""
        units = []
        self.found['recorded'] = self.read_record()
        recorded = self.found['recorded'] or []
        for unit in list(self.p['services']) + [d['unit'] for d in self.found['dropins']] + recorded:
            if unit_name(unit) not in units:
                units.append(unit_name(unit))
        self.found['services'] = units
        if self.found['state'] == 'gone':
            return
        kept = set(unit_name(u) for u in self.p.get('keep_services') or [])
        for unit in units:
            path = service_limits.path(unit)
            text = self.view.read(path) if unit not in kept and not self.held_elsewhere(unit) else None
            if text is not None:
                self.found['limits'].append({'path': path, 'unit': unit, 'text': text})

    def record_path(self):
        return UNITS_RECORD % self.uuid.replace(':', '')

    def read_record(self):
        """The units an interrupted retire of this array recorded (None: no record). An unreadable record is a
        refusal: the units it would name could not be checked."""
        text = self.view.read(self.record_path())
        if text is None:
            return None
        units = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith('#')]
        if [u for u in units if not is_unit_name(u)]:
            self.problems.append("retire '%s': %s is not a list of unit names; remove it after checking that none of "
                                 'the units of the array runs; nothing is retired' % (self.name, self.record_path()))
            return None
        return units

    def record_text(self):
        """The record of this retire's units (read_services): one unit a line."""
        return ('# the units of the retire of md array %s (UUID %s), checked by the next run if this one stops '
                'before the array is stopped (iotune.storage.retire_array)\n%s'
                % (self.name, self.uuid, ''.join('%s\n' % u for u in self.found['services'])))

    def held_elsewhere(self, unit):
        """Does the mount hold of ``unit`` hold it for a mount point of another array (one it keeps after the
        retire)?"""
        text = self.view.read(mount_holds.path(unit))
        return bool(text) and bool(held_text(text, set(self.found['mountpoints']))[0])

    def check_services(self, where):
        """Refused while a unit of the array runs (read_services; only asked while the array runs)."""
        units = self.found['services']
        if not units:
            return
        if not self.bins.get('systemctl'):
            self.problems.append('%s: systemctl is not there to tell whether %s run; nothing is retired'
                                 % (where, ', '.join(units)))
            return
        dummy, out, dummy2 = self.run(show_argv(self.bins['systemctl'], units))
        running = running_units(units, out)
        if running is None:
            self.problems.append('%s: systemctl show did not answer for each of %s; nothing is retired'
                                 % (where, ', '.join(units)))
        elif running:
            self.problems.append('%s: %s %s running; stop %s first (a retire never stops a service)'
                                 % (where, ', '.join(running), 'is' if len(running) == 1 else 'are',
                                    'it' if len(running) == 1 else 'them'))

    # --- what is left to do ----------------------------------------------------------------------
    def conf_after(self, text, wanted):
        """mdadm.conf ``text`` with the array's ARRAY lines replaced by ``wanted`` (None: removed). By name and UUID
        when the host confirmed both (the array runs, or its superblocks carry the name); else by the UUID only,
        so that a line of another array of that name is never touched."""
        if self.found['state'] in ('running', 'stopped'):
            return md.conf_update(text or '', self.name, self.uuid, wanted)
        return conf_by_uuid(text, self.uuid, wanted)

    def steps(self):
        """The steps left, in order: [(step, words)]."""
        found = self.found
        zero = self.p['zero_superblocks']
        conf = self.p['conf_path']
        text = found['conf_text'] or ''
        todo = []
        if found['limits']:
            todo.append(('limits', 'limits drop-ins removed: %s' % ', '.join(d['path'] for d in found['limits'])))
        if found['dropins']:
            todo.append(('holds', 'mount holds: %s' % '; '.join(
                '%s %s' % (d['path'], 'removed' if d['keep'] is None else 'keeps only its other mount points')
                for d in found['dropins'])))
        if found['mounted']:
            todo.append(('unmount', 'unmounted %s' % ', '.join(found['mounted'])))
        if found['fstab_lines']:
            todo.append(('fstab', 'fstab lines removed: %s' % '; '.join(l['line'] for l in found['fstab_lines'])))
        # while a superblock may be left, mdadm.conf keeps it from being assembled; once none is, it says nothing
        wanted = ignore_line(self.uuid) if found['members'] or (not zero and found['state'] != 'gone') else None
        if self.conf_after(text, wanted) != text:
            todo.append(('conf', '%s: %s' % (conf, 'the ARRAY lines of UUID %s replaced by "%s"' % (self.uuid, wanted)
                                             if wanted else 'the ARRAY lines of UUID %s removed' % self.uuid)))
        if found['state'] == 'running':
            todo.append(('stop', 'stopped %s' % found['device']))
        if zero and found['members']:
            todo.append(('zero', 'superblocks zeroed on %s' % ', '.join(found['members'])))
            todo.append(('unignore', '%s: its <ignore> line removed (no superblock left)' % conf))
        if found['recorded'] is not None and found['state'] != 'running':
            # a run that stopped after the stop and before the record went (the units are asked only while it runs)
            todo.append(('record', '%s removed (the array is stopped)' % self.record_path()))
        return todo, wanted

    # --- the steps --------------------------------------------------------------------------------
    def cmd(self, argv, what):
        rc, out, err = self.run(argv)
        if rc != 0:
            raise RetireError('%s failed (rc=%s): %s' % (what, rc, (err or out).strip()), cmd=argv, rc=rc,
                              stdout=out, stderr=err)
        return out

    def need(self, name):
        if not self.bins.get(name):
            raise RetireError('%s is not installed on this host; nothing more was changed' % name)
        return self.bins[name]

    def write(self, path, text):
        try:
            fileutil.write_text(self.view.path(path), text, self.replace, prefix='.iotune-retire.')
        except (IOError, OSError) as e:
            raise RetireError('cannot write %s: %s' % (path, e))

    def remove(self, path):
        try:
            fileutil.remove(self.view.path(path))
        except OSError as e:
            raise RetireError('cannot remove %s: %s' % (path, e))

    def do_record(self):
        """Record the units before the first change (the holds that name some of them go in step 2)."""
        if self.found['recorded'] != self.found['services']:     # the read of this call (read_services)
            try:
                fileutil.write_text(self.view.path(self.record_path()), self.record_text(), self.replace, mode=0o600,
                                    prefix='.iotune-retire-units.')
            except (IOError, OSError) as e:
                raise RetireError('cannot write %s: %s' % (self.record_path(), e))

    def do_limits(self):
        for dropin in self.found['limits']:
            self.remove(dropin['path'])

    def do_holds(self):
        for dropin in self.found['dropins']:
            if dropin['keep'] is None:
                self.remove(dropin['path'])
            else:
                self.write(dropin['path'], dropin['keep'])

    def do_unmount(self):
        umount = self.need('umount')
        for point in self.found['mounted']:
            self.cmd([umount, point], 'umount %s' % point)

    def do_fstab(self):
        text = self.view._read(self.p['fstab'], '') or ''
        numbers = set(line['number'] for line in self.found['fstab_lines'])
        kept = [line for number, line in enumerate(text.splitlines(), 1) if number not in numbers]
        self.write(self.p['fstab'], '\n'.join(kept) + '\n' if kept else '')

    def do_reload(self):
        self.cmd([self.need('systemctl'), 'daemon-reload'], 'systemctl daemon-reload')

    def do_conf(self, wanted):
        marker = self.p.get('rebuild_marker')
        if marker and not os.path.exists(self.view.path(marker)):
            try:
                fileutil.write_text(self.view.path(marker), '%s changed (array %s retired): the initramfs that carries '
                                    'a copy of it is rebuilt by the next run of the iotune.storage.raid0 role, which '
                                    'then removes this file\n' % (self.p['conf_path'], self.name), self.replace,
                                    mode=0o600, prefix='.initramfs-rebuild-pending.')
            except (IOError, OSError) as e:
                raise RetireError('cannot write %s: %s' % (marker, e))
        text = self.view._read(self.p['conf_path'], '') or ''
        self.write(self.p['conf_path'], self.conf_after(text, wanted))

    def do_stop(self):
        self.cmd([self.need('mdadm'), '--stop', self.found['device']], 'mdadm --stop %s' % self.found['device'])

    def do_zero(self):
        mdadm = self.need('mdadm')
        for member in self.found['members']:
            self.cmd([mdadm, '--zero-superblock', member], 'mdadm --zero-superblock %s' % member)

    def apply(self, todo, wanted):
        """Run the steps ``todo`` (steps(), with the line ``wanted`` of the conf step), in order."""
        names = [step for step, dummy in todo]
        if ('limits' in names or 'holds' in names) and self.found['dropins']:
            self.do_record()
        if 'limits' in names:
            self.do_limits()
        if 'holds' in names:
            self.do_holds()
        if 'unmount' in names:
            self.do_unmount()
        if 'fstab' in names:
            self.do_fstab()
        if set(names) & set(('limits', 'holds', 'fstab')):
            self.do_reload()
        if 'conf' in names:
            self.do_conf(wanted)
        if 'stop' in names:
            self.do_stop()
        if 'stop' in names or 'record' in names:
            self.remove(self.record_path())
        if 'zero' in names:
            self.do_zero()
        if 'unignore' in names:
            self.do_conf(None)

    def diff(self, todo, wanted):
        """One diff per file the steps change (before and after)."""
        names = [step for step, dummy in todo]
        diffs = []
        for dropin in self.found['limits'] if 'limits' in names else []:
            diffs.append({'before_header': dropin['path'], 'after_header': dropin['path'],
                          'before': dropin['text'], 'after': ''})
        for dropin in self.found['dropins'] if 'holds' in names else []:
            diffs.append({'before_header': dropin['path'], 'after_header': dropin['path'],
                          'before': dropin['text'], 'after': dropin['keep'] or ''})
        if 'fstab' in names:
            before = self.view._read(self.p['fstab'], '') or ''
            numbers = set(line['number'] for line in self.found['fstab_lines'])
            after = [line for number, line in enumerate(before.splitlines(), 1) if number not in numbers]
            diffs.append({'before_header': self.p['fstab'], 'after_header': self.p['fstab'], 'before': before,
                          'after': '\n'.join(after) + '\n' if after else ''})
        if 'conf' in names or 'unignore' in names:
            before = self.found['conf_text'] or ''
            final = None if 'unignore' in names else wanted
            diffs.append({'before_header': self.p['conf_path'], 'after_header': self.p['conf_path'], 'before': before,
                          'after': self.conf_after(before, final)})
        return diffs

    def call(self):
        """The module's result; raises RetireError for a refusal (before any change) or a failed step."""
        found = self.read()
        if self.problems:
            raise RetireError('retire refused (nothing was changed): %s' % '; '.join(self.problems),
                              problems=list(self.problems))
        todo, wanted = self.steps()
        diffs = self.diff(todo, wanted)
        done = []
        if not self.check_mode:
            try:
                self.apply(todo, wanted)
            except RetireError as e:
                raise RetireError('%s (the next run with the same entry goes on from here)' % e, **e.data)
        done = [words for dummy, words in todo]
        names = [step for step, dummy in todo]
        conf_changed = 'conf' in names or 'unignore' in names
        if found['state'] == 'gone' and not todo:
            status = 'no array of UUID %s on this host: retired already%s, or never here; nothing to do' % (
                self.uuid, ' (superblocks zeroed)' if self.p['zero_superblocks'] else '')
        elif not todo:
            status = ('retired already: not running, no fstab line, mdadm.conf keeps it from being assembled (%s)'
                      % ignore_line(self.uuid))
        else:
            status = '%s %d step(s)' % ('would take' if self.check_mode else 'took', len(todo))
        return {'changed': bool(todo), 'name': self.name, 'uuid': self.uuid, 'state': found['state'],
                'device': found['device'], 'filesystem_uuid': found['filesystem_uuid'],
                'mountpoints': found['mountpoints'], 'members': found['members'],
                'services': found['services'], 'steps': names, 'done': done, 'status': status,
                'conf_changed': conf_changed, 'conf_path': self.p['conf_path'],
                'rebuild_pending': bool(self.p.get('rebuild_marker')) and (found['marker'] or conf_changed),
                'superblocks_zeroed': 'zero' in names, 'diff': diffs}
