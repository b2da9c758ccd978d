# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The host's original state (issue 29): what it had before the collection's first change, and putting it back.

``record`` reads, on the first run, every live value the collection will change and the files it will replace; the
snapshot is written once (``write_once``: a temporary file in the same directory, fsync, a hard link to the final
name, which fails when it exists, fsync of the directory), root-only, and never overwritten. Devices are keyed by
stable identity (``identities``: md UUID and name, WWN, cloud identity, serial, /dev/disk/by-id links; only the keys
no other device of the host shares), never by kernel name, so that a restore after a reboot that renamed them
(nvme1n1 <-> nvme2n1) finds each one.

A value the plan first asks about after the snapshot was written (a device or an array added to the plan, a sysctl a
later profile sets) is recorded by a later run, before that run changes it, in the additions file beside the
snapshot (``additions_path``): a list of records, each holding only objects neither the snapshot nor an earlier record
holds; a record, once written, is never changed (the file is replaced atomically with one more record). A restore
takes the snapshot and its additions together (``with_additions``).

``restore_plan`` is pure: from a snapshot and the live state (``live``) it returns what a restore changes: the
collection's files removed (or written back as they were), the recorded queue values, sysctls, THP values, CPU
governors and clocksource set again. ``OriginalState`` is one call of the original_state module in small steps that raise ``OriginalStateError``.
Nothing here touches an array, a filesystem or an fstab line.
"""

from __future__ import annotations

import errno
import glob
import json
import os
import re
import time

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.iotune.storage.plugins.module_utils import block_tuning as bt
from ansible_collections.iotune.storage.plugins.module_utils import files as fileutil
from ansible_collections.iotune.storage.plugins.module_utils import kernel_settings as ks
from ansible_collections.iotune.storage.plugins.module_utils import rules
from ansible_collections.iotune.storage.plugins.module_utils import service_limits
from ansible_collections.iotune.storage.plugins.module_utils import systemd_show
from ansible_collections.iotune.storage.plugins.module_utils.md_identity import md_uuid_colon, short_name

__metaclass__ = type

# where the tune role keeps it (docs/tune.md, "Changing your mind"); root-only
PATH = '/var/lib/iotune-storage/original-state.json'
FILE_MODE = 0o600
DIR_MODE = 0o700
FORMAT = 1
# the collection's version, written into every snapshot; tests/unit keeps it equal to galaxy.yml's
COLLECTION_VERSION = '0.1.0'
TEMP_PREFIX = '.original-state.'
# the queue attributes recorded and restored, in the order they are written (the scheduler first: switching it resets
# nr_requests); block_tuning.ATTR_ORDER is their one home
QUEUE_KEYS = tuple(key for key, dummy in bt.ATTR_ORDER)
# tuned profiles the collection may have activated (udev_block_tuning's and kernel_settings' override profiles):
# a restore refuses while one is active (tuned would put the values back; tuned-adm profile PARENT first)
TUNED_OVERRIDES = ('iotune-storage', ks.TUNED_OVERRIDE)
# util-linux's weekly fstrim timer: the discard policy fstrim_timer enables and starts it (xfs role); the snapshot
# records whether it was enabled and active before (key FSTRIM_KEY; a snapshot an earlier release wrote lacks it)
FSTRIM_TIMER = 'fstrim.timer'
FSTRIM_KEY = 'fstrim_timer'
_UNIT = re.compile(r'^/(etc|run)/systemd/system/[^/]+\.(service|timer)$')


class OriginalStateError(Exception):
    """A refusal or failure; ``data`` goes into the module result."""

    def __init__(self, msg, **data):
        super(OriginalStateError, self).__init__(msg)
        self.data = data


def file_kind(path):
    """'unit' (a systemd unit: disabled before it is removed), 'udev' (a rules file: udev reloads), 'sysctl' or
    'file'."""
    if _UNIT.match(path):
        return 'unit'
    if path.endswith('.rules') and '/udev/' in path:
        return 'udev'
    if '/sysctl.d/' in path:
        return 'sysctl'
    return 'file'


# ---------------------------------------------------------------------------------------------
# identity


def device_identities(info):
    """Every identity key of a whole device's readahead_facts entry, best first (md UUID, md name, WWN, cloud
    identity, rbd image, serial, by-id links); never the kernel name."""
    keys = []
    md = info.get('md') or {}
    if md.get('uuid'):
        keys.append('md-uuid:%s' % md_uuid_colon(md['uuid']))
    if md.get('name'):
        keys.append('md-name:%s' % short_name(md['name']))
    if info.get('wwn'):
        keys.append('wwn:%s' % info['wwn'].strip())
    found = info.get('cloud') or {}
    if found:
        keys.append('cloud:%s' % ','.join('%s=%s' % (k, found[k]) for k in sorted(found)
                                          if found[k] not in (None, False, '')))
    if info.get('serial') and not md:
        keys.append('serial:%s' % info['serial'].strip())
    for link in sorted(info.get('by_id') or ()):
        base = os.path.basename(link)
        if not base.startswith(('md-uuid-', 'md-name-')):
            keys.append('by-id:%s' % base)
    return keys


def unique_identities(keys_by_device):
    """{kname: [keys]} keeping only the keys no other device has (an EBS disk's wwid, the serial of an NVMe
    controller's namespaces and an instance store's cloud identity are shared)."""
    count = {}
    for keys in keys_by_device.values():
        for key in set(keys):
            count[key] = count.get(key, 0) + 1
    return dict((name, [k for k in keys if count[k] == 1]) for name, keys in keys_by_device.items())


def scan_devices(host):
    """{kname: {identities, queue, kernel_default_read_ahead_kb, is_md}} of every whole device of ``host`` (a
    host.BlockHost), its unique identities only."""
    inv = host.inventory()
    infos = dict((name, inv.device(name)) for name in inv.order if not inv.parents.get(name))
    unique = unique_identities(dict((name, device_identities(info)) for name, info in infos.items()))
    return dict((name, {'identities': unique[name], 'queue': bt.read_live(host, name), 'is_md': info['type'] == 'md',
                        'kernel_default_read_ahead_kb': info.get('kernel_default_read_ahead_kb')})
                for name, info in infos.items())


def match_devices(recorded, live):
    """({index of a recorded device: live kname}, [indexes gone]): each recorded device is the one live device that
    carries the first of its identities that exactly one live device carries; a live device is matched once."""
    holders = {}
    for name, dev in live.items():
        for key in dev['identities']:
            holders.setdefault(key, []).append(name)
    matched, gone, taken = {}, [], set()
    for index, dev in enumerate(recorded):
        found = None
        for key in dev.get('identities') or ():
            names = holders.get(key, [])
            if len(names) == 1 and names[0] not in taken:
                found = names[0]
                break
        if found is None:
            gone.append(index)
        else:
            matched[index] = found
            taken.add(found)
    return matched, gone


# ---------------------------------------------------------------------------------------------
# reading the host


def host_path(root, path):
    return os.path.join(root, path.lstrip('/'))


def read_file(root, path):
    """None when ``path`` does not exist, else {content, mode, owner, group} (content None when not text)."""
    full = host_path(root, path)
    state = fileutil.file_state(full)
    if state is None:
        return None
    content = fileutil.read_text(full) if state['isreg'] else None
    return {'content': content, 'mode': state['mode'], 'owner': state['pw_name'], 'group': state['gr_name']}


def sysctl_names(given):
    """The sysctls a snapshot records: the database vendors ask for (the only ones a profile may set, so a later
    profile switch finds its originals too) and ``given`` (a profile's extra_sysctl)."""
    names = set(rules.SYSCTL_DATABASE)
    for name in given or ():
        normal = rules.sysctl_name(name)
        if normal is None:
            raise OriginalStateError('sysctl: %r is not a sysctl name such as vm.swappiness' % (name,))
        names.add(normal)
    return sorted(names)


def live(host, root, names, paths):
    """The live state a restore compares with: devices (scan_devices), sysctls ``names``, THP, the CPU governor per
    CPU and the clocksource, files ``paths``, the limits drop-ins of any unit (``dropins``: {path: content})."""
    return {'devices': scan_devices(host),
            'sysctl': dict((name, ks.read_sysctl(root, name)) for name in names),
            'thp': ks.read_thp(root),
            'cpu_clock': ks.read_cpu_clock(root),
            'files': dict((path, read_file(root, path)) for path in paths),
            'dropins': limits_dropins(root)}


def limits_dropins(root):
    """{path: content} of the collection's limits drop-ins on the host (service_limits.GLOB, any unit)."""
    found = {}
    for full in sorted(glob.glob(host_path(root, glob.escape(service_limits.DIR).lstrip('/') + '/*.d/'
                                           + service_limits.NAME))):
        path = '/' + os.path.relpath(full, root).replace(os.sep, '/')
        if service_limits.unit_of(path):
            found[path] = fileutil.read_text(full)
    return found


def timestamp(now=None):
    """``recorded_at`` of a snapshot or an addition: UTC, to the second (``now`` None: the current time)."""
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(now))


def planned_devices(host, devices):
    """(the tuning entries ``devices`` validated by udev_block_tuning's own spec, their host_plan on ``host``)."""
    checked = ArgumentSpecValidator({'devices': bt.devices_option()}).validate({'devices': devices})
    if checked.error_messages:
        raise OriginalStateError('devices: %s' % '; '.join(checked.error_messages))
    devices = checked.validated_parameters['devices']
    try:
        return devices, bt.host_plan(devices, host, allow_unmatched=True)
    except bt.TuningError as e:
        raise OriginalStateError('devices: %s' % e)


def device_records(state, planned, known=()):
    """The records of the planned devices that exist (their live queue values by identity), but those carrying an
    identity of ``known``."""
    recorded = []
    for name in sorted(planned['expected']):
        dev = state['devices'][name]
        if set(dev['identities']) & set(known):
            continue
        if not dev['identities']:
            raise OriginalStateError('device %s has no stable identity (no WWN, serial, cloud identity or by-id link '
                                     'that no other device shares): its values cannot be recorded by identity' % name)
        recorded.append({'identity': dev['identities'][0], 'identities': dev['identities'], 'kname': name,
                         'queue': dict((k, v) for k, v in dev['queue'].items() if v is not None)})
    return recorded


def created_later(devices, planned, known=()):
    """The planned md arrays that do not exist yet (a restore gives them the kernel's readahead of a new array), but
    those of ``known``."""
    later = []
    for entry in devices:
        if bt.describe(entry) not in planned['unmatched']:
            continue
        if entry.get('md_name'):
            keys = ['md-name:%s' % short_name(entry['md_name'])]
        elif entry.get('md_uuid'):
            keys = ['md-uuid:%s' % md_uuid_colon(entry['md_uuid'])]
        else:
            continue
        if not set(keys) & set(known):
            later.append({'identities': keys, 'selector': bt.describe(entry)})
    return later


def record(host, root, devices, sysctl, paths, now=None, version=COLLECTION_VERSION):
    """The snapshot of this host (a dict): the queue values of every device the tuning plan ``devices`` matches (the
    planned md arrays that do not exist yet listed as ``created_later``), ``sysctl_names(sysctl)``, THP and the files
    ``paths``."""
    devices, planned = planned_devices(host, devices)
    state = live(host, root, sysctl_names(sysctl), paths)
    recorded = device_records(state, planned)
    later = created_later(devices, planned)
    files = state['files']
    return {'format': FORMAT, 'collection': 'iotune.storage', 'version': version,
            'recorded_at': timestamp(now),
            'kernel': os.uname()[2],
            # an earlier release (or a run before this file existed) left the collection's files: the values
            # recorded may be its tuning, not the host's own
            'tuned_before': any(files[p] is not None for p in paths),
            'devices': recorded, 'created_later': later,
            'sysctl': dict((k, v) for k, v in state['sysctl'].items() if v is not None),
            'thp': dict((k, v) for k, v in state['thp'].items() if v is not None),
            # {cpu_governor: {cpuN: governor}, clocksource}: {} and null where the host has none
            'cpu_clock': state['cpu_clock'],
            'files': files}


# ---------------------------------------------------------------------------------------------
# values first planned after the snapshot: the additions file


def additions_path(path):
    """The additions file beside the snapshot ``path`` (original-state.json -> original-state-additions.json)."""
    stem, ext = os.path.splitext(path)
    return stem + '-additions' + (ext or '.json')


def known_identities(snapshot, additions):
    """Every identity the snapshot and its additions hold (devices and arrays made later)."""
    keys = set()
    for doc in [snapshot] + list(additions):
        for dev in (doc.get('devices') or []) + (doc.get('created_later') or []):
            keys.update(dev.get('identities') or [])
    return keys


def addition(host, root, devices, sysctl, snapshot, additions, now=None, version=COLLECTION_VERSION):
    """The record of what the plan asks about and neither ``snapshot`` nor ``additions`` holds (devices by identity,
    arrays made later, sysctls), read live now (before this run changes them); None when there is nothing new.
    THP, the CPU governor and clocksource and the files are recorded whole by the snapshot: never an addition."""
    devices, planned = planned_devices(host, devices)
    known = known_identities(snapshot, additions)
    have = set(snapshot.get('sysctl') or {})
    for doc in additions:
        have.update(doc.get('sysctl') or {})
    names = [name for name in sysctl_names(sysctl) if name not in have]
    state = live(host, root, names, [])
    found = {'devices': device_records(state, planned, known), 'created_later': created_later(devices, planned, known),
             'sysctl': dict((k, v) for k, v in state['sysctl'].items() if v is not None)}
    if not any(found.values()):
        return None
    return dict(found, version=version, recorded_at=timestamp(now))


def load_additions(path):
    """The records of the additions file of the snapshot ``path`` ([] when there is none); raises
    OriginalStateError when it cannot be read (it is then kept as it is)."""
    extra = additions_path(path)
    doc = read_json(extra)
    if doc is None:
        return []
    if not isinstance(doc, dict) or doc.get('format') != FORMAT or not isinstance(doc.get('additions'), list):
        raise OriginalStateError('%s is not an additions file of format %d of this collection' % (extra, FORMAT))
    return doc['additions']


def write_additions(path, additions):
    """The additions file of the snapshot ``path``, replaced atomically (temporary file, fsync, rename, fsync of the
    directory: a crash leaves the old list or the new one), root-only."""
    text = json.dumps({'format': FORMAT, 'additions': additions}, indent=2, sort_keys=True) + '\n'
    fileutil.write_text(additions_path(path), text, os.replace, mode=FILE_MODE, prefix=TEMP_PREFIX)


def with_additions(snapshot, additions):
    """The snapshot a restore brings back: ``snapshot`` with the devices, arrays made later and sysctls of its
    ``additions`` (an object is in one of them only)."""
    merged = dict(snapshot)
    merged['devices'] = list(snapshot.get('devices') or [])
    merged['created_later'] = list(snapshot.get('created_later') or [])
    merged['sysctl'] = dict(snapshot.get('sysctl') or {})
    for doc in additions:
        merged['devices'].extend(doc.get('devices') or [])
        merged['created_later'].extend(doc.get('created_later') or [])
        for name, value in (doc.get('sysctl') or {}).items():
            merged['sysctl'].setdefault(name, value)
    return merged


def summary(path, snapshot, additions=()):
    """What a snapshot holds, in short (the facts, the summary and the audit show it)."""
    if snapshot is None:
        return {'path': path, 'exists': False}
    return {'path': path, 'exists': True, 'recorded_at': snapshot.get('recorded_at'),
            'version': snapshot.get('version'), 'tuned_before': snapshot.get('tuned_before', False),
            'devices': [d.get('identity') for d in snapshot.get('devices', [])],
            'created_later': [d.get('selector') for d in snapshot.get('created_later', [])],
            'sysctl': len(snapshot.get('sysctl', {})), 'thp': sorted(snapshot.get('thp', {})),
            'files': dict((p, 'absent' if s is None else 'present') for p, s in sorted(snapshot.get('files', {}).items())),
            # values first planned after the snapshot (additions_path): when each was recorded and what
            'additions': [{'recorded_at': doc.get('recorded_at'),
                           'devices': [d.get('identity') for d in doc.get('devices') or []],
                           'created_later': [d.get('selector') for d in doc.get('created_later') or []],
                           'sysctl': sorted(doc.get('sysctl') or {})} for doc in additions]}


# ---------------------------------------------------------------------------------------------
# the file itself


def check_format(snapshot, path):
    devices = snapshot.get('devices') if isinstance(snapshot, dict) else None
    if not isinstance(snapshot, dict) or snapshot.get('format') != FORMAT or not isinstance(devices, list):
        raise OriginalStateError('%s is not a snapshot of format %d of this collection' % (path, FORMAT))
    return snapshot


def read_json(path):
    """The JSON document at ``path`` (the snapshot or its additions file), None when there is none; raises
    OriginalStateError when it cannot be read or is not JSON (the file is kept as it is)."""
    try:
        with open(path, 'r') as f:
            text = f.read()
    except FileNotFoundError:
        return None
    except (IOError, OSError) as e:
        raise OriginalStateError('cannot read %s: %s' % (path, e))
    try:
        return json.loads(text)
    except ValueError as e:
        raise OriginalStateError('%s is not JSON (%s): it is kept as it is, never overwritten' % (path, e))


def load(path):
    """The snapshot at ``path``, None when there is none; raises OriginalStateError when it cannot be read."""
    doc = read_json(path)
    return None if doc is None else check_format(doc, path)


def _link_no_clobber(src, dest):
    """The final step of write_once: a hard link never replaces an existing file (os.replace would)."""
    os.link(src, dest)


def write_once(path, snapshot, replace=_link_no_clobber):
    """Write ``snapshot`` to ``path`` unless a file is there; True when written. The text is complete and on disk
    before it gets its name (files.write_text: a temporary file, fsync, then the link and an fsync of the
    directory); a crash leaves no file or the whole file, and at most a temporary ``.original-state.*`` file, which
    the next call removes. The directory is made root-only."""
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        os.makedirs(directory, DIR_MODE)
    for stale in glob.glob(os.path.join(glob.escape(directory), TEMP_PREFIX + '*')):
        os.unlink(stale)
    if os.path.lexists(path):
        return False
    text = json.dumps(snapshot, indent=2, sort_keys=True) + '\n'
    try:
        fileutil.write_text(path, text, replace, mode=FILE_MODE, prefix=TEMP_PREFIX)
    except OSError as e:
        if e.errno == errno.EEXIST:
            return False        # another run wrote it in between: that one is the original
        raise
    return True


# ---------------------------------------------------------------------------------------------
# the restore plan (pure)


def written_by_the_collection(content):
    """Does a file's text carry the header the collection writes in its first lines ("Managed by Ansible
    (iotune.storage.ROLE)" or "{{ ansible_managed }} (iotune.storage.ROLE)")? A path set by the user to a file of
    their own does not, and a restore never removes such a file it has no record of."""
    return '(iotune.storage.' in '\n'.join((content or '').splitlines()[:3])


def _file_actions(recorded, now):
    """The writes and removals that bring the collection's files ``now`` ({path: read_file or None}) back to
    ``recorded``. A file of the collection the snapshot does not name came with a later release than the snapshot's
    (the snapshot records every file its release writes, before the first change): it did not exist then, and goes
    when it carries the collection's header (written_by_the_collection)."""
    actions = []
    for path in sorted(set(now) - set(recorded)):
        if now[path] is not None and written_by_the_collection(now[path].get('content')):
            actions.append({'path': path, 'kind': file_kind(path), 'action': 'remove',
                            'before': now[path].get('content'), 'after': None})
    for path in sorted(recorded):
        was, have = recorded[path], now.get(path)
        if was is None:
            if have is not None:
                actions.append({'path': path, 'kind': file_kind(path), 'action': 'remove',
                                'before': have.get('content'), 'after': None})
            continue
        if have is not None and have.get('content') == was.get('content') and have.get('mode') == was.get('mode') \
                and have.get('owner') == was.get('owner') and have.get('group') == was.get('group'):
            continue
        if was.get('content') is None:
            continue        # not a text file when recorded: nothing to write back
        actions.append({'path': path, 'kind': file_kind(path), 'action': 'write', 'before': (have or {}).get('content'),
                        'after': was['content'], 'mode': was.get('mode') or '0644', 'owner': was.get('owner') or 'root',
                        'group': was.get('group') or 'root'})
    return actions


def restore_plan(snapshot, state):
    """What a restore changes on a host whose live state is ``state`` (``live``), to bring back ``snapshot``:
    {files, queue, sysctl, thp, gone, created_later, changed}. Devices are matched by identity (match_devices); a
    recorded device that is gone is listed in ``gone``, not an error. A planned md array that did not exist when the
    snapshot was recorded gets the readahead the kernel gives a new array. Pure: reads and writes nothing."""
    plan = {'files': _file_actions(snapshot.get('files') or {}, state['files']), 'queue': [], 'sysctl': [],
            'thp': [], 'cpu_clock': [], 'gone': [], 'created_later': []}
    plan['limits'] = _dropin_actions(snapshot.get('files') or {}, state.get('dropins') or {}, plan['files'])
    plan['fstrim_timer'] = fstrim_action(snapshot, state.get(FSTRIM_KEY))
    devices = snapshot.get('devices') or []
    matched, gone = match_devices(devices, state['devices'])
    for index in gone:
        plan['gone'].append({'identity': devices[index].get('identity'), 'kname': devices[index].get('kname')})
    for index in sorted(matched, key=lambda i: devices[i].get('identity') or ''):
        dev, name = devices[index], matched[index]
        now = state['devices'][name]['queue']
        for key in QUEUE_KEYS:
            want = dev['queue'].get(key)
            if want is not None and not bt.live_matches(now.get(key), want):
                plan['queue'].append({'kname': name, 'identity': dev.get('identity'), 'key': key,
                                      'now': now.get(key), 'restore': str(want)})
    later, dummy = match_devices(snapshot.get('created_later') or [], state['devices'])
    for index, name in sorted(later.items()):
        dev = state['devices'][name]
        want = dev.get('kernel_default_read_ahead_kb')
        plan['created_later'].append({'selector': snapshot['created_later'][index].get('selector'), 'kname': name})
        if dev['is_md'] and want is not None and not bt.live_matches(dev['queue'].get('read_ahead_kb'), want):
            plan['queue'].append({'kname': name, 'identity': snapshot['created_later'][index]['identities'][0],
                                  'key': 'read_ahead_kb', 'now': dev['queue'].get('read_ahead_kb'),
                                  'restore': str(want)})
    for name, want in sorted((snapshot.get('sysctl') or {}).items()):
        now = state['sysctl'].get(name)
        if now is not None and now != want:
            plan['sysctl'].append({'name': name, 'now': now, 'restore': want})
    for key in rules.THP_KEYS:
        want = (snapshot.get('thp') or {}).get(key)
        now = state['thp'].get(key)
        if want is not None and now is not None and now != want:
            plan['thp'].append({'key': key, 'now': now, 'restore': want})
    plan['cpu_clock'] = _cpu_clock_actions(snapshot.get('cpu_clock') or {}, state.get('cpu_clock') or {})
    plan['changed'] = bool(plan['files'] or plan['queue'] or plan['sysctl'] or plan['thp'] or plan['cpu_clock']
                           or plan['fstrim_timer']['commands'])
    return plan


def _cpu_clock_actions(recorded, now):
    """The CPU governors (per CPU that still has cpufreq) and the clocksource a restore sets back: [{key, now,
    restore}], key ``cpu_governor/cpuN`` or ``clocksource``. A snapshot of an earlier release has neither."""
    actions = []
    governors = now.get('cpu_governor') or {}
    for cpu, want in sorted((recorded.get('cpu_governor') or {}).items(), key=lambda kv: int(kv[0][3:] or 0)):
        if governors.get(cpu) is not None and governors[cpu] != want:
            actions.append({'key': 'cpu_governor/' + cpu, 'now': governors[cpu], 'restore': want})
    want = recorded.get('clocksource')
    if want is not None and now.get('clocksource') is not None and now['clocksource'] != want:
        actions.append({'key': 'clocksource', 'now': now['clocksource'], 'restore': want})
    return actions


def _dropin_actions(recorded, dropins, file_actions):
    """[{unit, path, settings}] of the collection's limits drop-ins to remove (any unit; a path the snapshot recorded
    is its file actions' business), each added to ``file_actions`` as a removal of kind 'dropin'. The mount holds
    (RequiresMountsFor=) in the same directories belong to the filesystem, which a restore keeps: not touched."""
    found = []
    for path in sorted(dropins):
        if path in recorded:
            continue
        file_actions.append({'path': path, 'kind': 'dropin', 'action': 'remove', 'before': dropins[path],
                             'after': None})
        found.append({'unit': service_limits.unit_of(path), 'path': path,
                      'settings': service_limits.settings_in(dropins[path])})
    return found


def fstrim_action(snapshot, now):
    """What a restore does with fstrim.timer: {recorded, now, commands ([] or systemctl verbs), why}. It is disabled
    (stopped) again only when the snapshot says it was not enabled (not active) before; a snapshot without the key (an
    earlier release), a state that could not be read then or now, or a timer that was enabled leaves it."""
    was = snapshot.get(FSTRIM_KEY)
    out = {'recorded': was, 'now': now, 'commands': [], 'why': None}
    if not isinstance(was, dict):
        out['why'] = ('the snapshot was recorded before the collection recorded fstrim.timer\'s state (an earlier '
                      'release): whether it was enabled then is unknown, so it is left as it is')
    elif was.get('error') or was.get('enabled') is None:
        out['why'] = 'its state could not be read when the snapshot was recorded (%s): left as it is' % (
            was.get('error') or 'unknown')
    elif was['enabled'] == 'not-found':
        out['why'] = 'it did not exist when the snapshot was recorded: left as it is'
    elif was['enabled'] in systemd_show.ENABLED_STATES:
        out['why'] = 'it was enabled before the collection\'s first change: left enabled'
    elif not isinstance(now, dict) or now.get('error') or now.get('enabled') is None:
        out['why'] = 'its state now could not be read (%s): left as it is' % ((now or {}).get('error') or 'not read')
    else:
        if now['enabled'] in systemd_show.ENABLED_STATES:
            out['commands'].append('disable')
        if now.get('active') == 'active' and was.get('active') != 'active':
            out['commands'].append('stop')
        out['why'] = ('it was %s and %s before the collection\'s first change' % (was['enabled'], was.get('active'))
                      if out['commands'] else 'it is as recorded')
    return out


def plan_lines(plan):
    """(before, after) text of the live values a restore sets, one line each (the diff)."""
    before, after = [], []
    for item in plan['queue']:
        label = '%s (%s) queue/%s' % (item['kname'], item['identity'], item['key'])
        before.append('%s: %s' % (label, item['now']))
        after.append('%s: %s' % (label, item['restore']))
    for item in plan['sysctl']:
        before.append('sysctl %s = %s' % (item['name'], item['now']))
        after.append('sysctl %s = %s' % (item['name'], item['restore']))
    for item in plan['thp']:
        before.append('transparent_hugepage/%s: %s' % (item['key'], item['now']))
        after.append('transparent_hugepage/%s: %s' % (item['key'], item['restore']))
    for item in plan.get('cpu_clock') or []:
        before.append('%s: %s' % (item['key'], item['now']))
        after.append('%s: %s' % (item['key'], item['restore']))
    timer = plan.get('fstrim_timer') or {}
    if timer.get('commands'):
        before.append('%s: %s, %s' % (FSTRIM_TIMER, timer['now']['enabled'], timer['now']['active']))
        after.append('%s: %s, %s' % (FSTRIM_TIMER, timer['recorded']['enabled'] if 'disable' in timer['commands']
                                     else timer['now']['enabled'],
                                     timer['recorded']['active'] if 'stop' in timer['commands'] else timer['now']['active']))
    return ''.join(line + '\n' for line in before), ''.join(line + '\n' for line in after)


def diffs(plan):
    """The module's diff: one per file, then one of the live values."""
    out = [{'before_header': f['path'], 'after_header': f['path'] if f['action'] == 'write' else '(removed)',
            'before': f['before'] or '', 'after': f['after'] or ''} for f in plan['files']]
    before, after = plan_lines(plan)
    if before or after:
        out.append({'before_header': 'live values', 'after_header': 'live values restored', 'before': before,
                    'after': after})
    return out


# ---------------------------------------------------------------------------------------------
# one call


def argument_spec():
    """The original_state module's options."""
    return dict(
        state=dict(type='str', choices=['recorded', 'restored'], default='recorded'),
        path=dict(type='path', default=PATH),
        # checked by udev_block_tuning's own spec in record() (one home of the tuning entries, as the preflight does)
        devices=dict(type='list', elements='dict', default=[]),
        sysctl=dict(type='list', elements='str', default=[]),
        files=dict(type='list', elements='path', default=[]),
    )


class OriginalState:
    """One call of the original_state module. ``run(argv)`` runs a command ((rc, out, err)); ``systemctl`` and
    ``udevadm`` are their paths (None when missing)."""

    def __init__(self, params, host, root='/', run=None, systemctl=None, udevadm=None, check_mode=False, now=None,
                 write=None):
        self.p = params
        self.write = write or write_value
        self.host = host
        self.root = root
        self.run = run
        self.systemctl = systemctl
        self.udevadm = udevadm
        self.check_mode = check_mode
        self.now = now
        self.warnings = []
        self.result = {'changed': False, 'path': params['path']}

    def call(self):
        if self.p['state'] == 'recorded':
            return self.recorded()
        return self.restored()

    # --- state=recorded ---------------------------------------------------------------------
    def recorded(self):
        path = self.p['path']
        try:
            existing = load(path)
        except OriginalStateError as e:
            self.warnings.append(str(e))
            self.result.update(recorded=False, original_state={'path': path, 'exists': True, 'unreadable': str(e)})
            return self.result
        if existing is not None:
            return self.recorded_additions(path, existing)
        snapshot = record(self.host, self.root, self.p['devices'], self.p['sysctl'], self.p['files'], now=self.now)
        snapshot[FSTRIM_KEY] = self.timer_state()
        if snapshot['tuned_before']:
            self.warnings.append('the collection\'s files were on this host before its original state was recorded '
                                 '(%s): the values recorded may be an earlier run\'s tuning, not the host\'s own'
                                 % ', '.join(p for p, s in sorted(snapshot['files'].items()) if s is not None))
        written = True
        if not self.check_mode:
            try:
                written = write_once(path, snapshot)
            except (IOError, OSError) as e:
                raise OriginalStateError('cannot write %s: %s' % (path, e))
            if not written:
                snapshot = load(path)
        self.result.update(changed=written, recorded=written, snapshot=snapshot, original_state=summary(path, snapshot))
        return self.result

    def recorded_additions(self, path, existing):
        """The snapshot is there: record what the plan asks about that neither it nor an earlier addition holds
        (``addition``), as one more record of the additions file; ``added`` is that record (None: nothing new)."""
        try:
            additions = load_additions(path)
        except OriginalStateError as e:
            self.warnings.append('%s; values first planned after the snapshot are not recorded' % e)
            self.result.update(recorded=False, added=None, snapshot=existing, original_state=summary(path, existing))
            return self.result
        added = addition(self.host, self.root, self.p['devices'], self.p['sysctl'], existing, additions, now=self.now)
        if added is not None:
            additions = additions + [added]
            if not self.check_mode:
                try:
                    write_additions(path, additions)
                except (IOError, OSError) as e:
                    raise OriginalStateError('cannot write %s: %s' % (additions_path(path), e))
        self.result.update(changed=added is not None, recorded=False, added=added, snapshot=existing,
                           original_state=summary(path, existing, additions))
        return self.result

    # --- state=restored ---------------------------------------------------------------------
    def restored(self):
        path = self.p['path']
        snapshot = load(path)
        if snapshot is None:
            raise OriginalStateError('%s does not exist: no original state was recorded on this host (the tune role '
                                     'records it before its first change), so there is nothing to restore' % path)
        try:
            additions = load_additions(path)
        except OriginalStateError as e:
            additions = []
            self.warnings.append('%s; only the snapshot is restored, not the values recorded after it' % e)
        recorded = snapshot
        snapshot = with_additions(recorded, additions)
        self.refuse_tuned()
        names = sorted(snapshot.get('sysctl') or {})
        paths = sorted(set(snapshot.get('files') or {}) | set(self.p['files']))
        plan = restore_plan(snapshot, self.live_state(snapshot, names, paths))
        self.result.update(original_state=summary(path, recorded, additions), restore=plan, changed=plan['changed'],
                           diff=diffs(plan))
        for item in plan['gone']:
            self.warnings.append('%s (was %s) is not on this host any more: its recorded values are not restored'
                                 % (item['identity'], item['kname']))
        removed = set(f['path'] for f in plan['files'] if f['action'] == 'remove')
        for extra in sorted(set(self.p['files']) - set(snapshot.get('files') or {}) - removed):
            if read_file(self.root, extra) is not None:
                self.warnings.append('%s is not in the snapshot (it was not recorded) and does not carry the '
                                     'collection\'s header: left as it is' % extra)
        self.limits_messages(plan['limits'])
        if self.check_mode or not plan['changed']:
            return self.result
        self.apply_files(plan['files'])
        self.apply_values(plan)
        self.apply_timer(plan['fstrim_timer'])
        self.host.rescan()
        after = restore_plan(snapshot, self.live_state(snapshot, names, paths))
        left = [i for kind in ('files', 'queue', 'sysctl', 'thp', 'cpu_clock') for i in after[kind]]
        left += ['%s %s' % (FSTRIM_TIMER, c) for c in after['fstrim_timer']['commands']]
        if left:
            raise OriginalStateError('values still differ from the snapshot after the restore: %s'
                                     % '; '.join(sorted(str(i) for i in left)), **self.result)
        return self.result

    def refuse_tuned(self):
        from ansible_collections.iotune.storage.plugins.module_utils import tuned  # pylint: disable=import-outside-toplevel
        active = [name for name in tuned.tuned_active_profiles(self.root) if name in TUNED_OVERRIDES]
        if active:
            raise OriginalStateError('tuned runs the collection\'s override profile %s, which would set the tuned '
                                     'values again: switch tuned back to its own profile first (tuned-adm profile '
                                     'PARENT, the include= line of /etc/tuned/%s/tuned.conf); nothing was changed'
                                     % (', '.join(active), active[0]))

    def command(self, argv):
        rc, out, err = self.run(argv)
        if rc != 0:
            raise OriginalStateError('%s failed (rc=%d): %s' % (' '.join(argv), rc, (err or out).strip()),
                                     **self.result)

    def apply_files(self, actions):
        for item in actions:
            full = host_path(self.root, item['path'])
            if item['kind'] == 'unit' and item['action'] == 'remove' and self.systemctl:
                self.command([self.systemctl, 'disable', os.path.basename(item['path'])])
            try:
                if item['action'] == 'remove':
                    os.unlink(full)
                else:
                    fileutil.write_text(full, item['after'], mode=int(item['mode'], 8))
                    os.chmod(full, int(item['mode'], 8))
                    os.chown(full, _uid(item['owner']), _gid(item['group']))
            except (IOError, OSError, KeyError) as e:
                raise OriginalStateError('cannot restore %s: %s' % (item['path'], e), **self.result)
        kinds = set(item['kind'] for item in actions)
        if kinds & set(('unit', 'dropin')) and self.systemctl:
            self.command([self.systemctl, 'daemon-reload'])
        if 'udev' in kinds and self.udevadm:
            # before any value is set: a change event must not apply the removed rules again
            self.command([self.udevadm, 'control', '--reload'])

    def timer_state(self):
        """fstrim.timer's {enabled, active, error} (one systemctl show)."""
        if not self.systemctl:
            return {'enabled': None, 'active': None, 'error': 'systemctl is not installed'}
        return systemd_show.timer_state(self.run, FSTRIM_TIMER, self.systemctl)

    def live_state(self, snapshot, names, paths):
        """live(), and fstrim.timer's state when the snapshot says it was not enabled (else it is never read)."""
        state = live(self.host, self.root, names, paths)
        was = snapshot.get(FSTRIM_KEY)
        if isinstance(was, dict) and was.get('enabled') not in (None, 'not-found') + systemd_show.ENABLED_STATES \
                and not was.get('error'):
            state[FSTRIM_KEY] = self.timer_state()
        return state

    def limits_messages(self, limits):
        """One line per unit whose limits drop-in the restore removes (result ``limits``). Not written to the record of
        restarts owed (restart_record.py): that record is judged by the unit's invocation only, so a tune run that
        writes the drop-in again would leave an entry owing a restart nobody needs (the process kept those limits)."""
        self.result['limits'] = ['%s: its limits drop-in %s (%s) %s; the running process keeps them, the unit gets '
                                 'its own limits back at its next restart' % (
                                     item['unit'], item['path'], ', '.join('%s=%s' % kv for kv in
                                                                           sorted(item['settings'].items())),
                                     'would be removed' if self.check_mode else 'is removed')
                                 for item in limits]

    def apply_timer(self, timer):
        if timer['commands'] and self.systemctl:
            for verb in timer['commands']:
                self.command([self.systemctl, verb, FSTRIM_TIMER])

    def apply_values(self, plan):
        failures = []
        writes = [(self.host.path('/sys/block/%s/queue/%s' % (i['kname'], i['key'])), i['restore'], i)
                  for i in sorted(plan['queue'], key=lambda i: (i['kname'], QUEUE_KEYS.index(i['key'])))]
        writes += [(host_path(self.root, 'proc/sys/' + i['name'].replace('.', '/')), i['restore'], i)
                   for i in plan['sysctl']]
        thp_files = {'enabled': 'enabled', 'defrag': 'defrag', 'khugepaged_max_ptes_none': 'khugepaged/max_ptes_none'}
        writes += [(host_path(self.root, ks.THP_DIR + '/' + thp_files[i['key']]), i['restore'], i) for i in plan['thp']]
        writes += [(host_path(self.root, cpu_clock_file(i['key'])), i['restore'], i) for i in plan.get('cpu_clock') or []]
        for target, value, dummy in writes:
            try:
                self.write(target, value)
            except (IOError, OSError) as e:
                failures.append('%s: %s' % (target, e))
        if failures:
            raise OriginalStateError('the kernel refused some values: %s' % '; '.join(failures), **self.result)


def cpu_clock_file(key):
    """The sysfs file (below the root) of a restore's ``cpu_governor/cpuN`` or ``clocksource`` key."""
    if key == 'clocksource':
        return ks.CLOCKSOURCE_DIR + '/current_clocksource'
    return '%s/%s/cpufreq/scaling_governor' % (ks.CPU_DIR, key.split('/', 1)[1])


def write_value(path, value):
    """Write one sysfs or /proc/sys value (the kernel takes it or the write fails)."""
    with open(path, 'w') as f:
        f.write(value)


def _uid(owner):
    import pwd  # pylint: disable=import-outside-toplevel
    return int(owner) if str(owner).isdigit() else pwd.getpwnam(owner).pw_uid


def _gid(group):
    import grp  # pylint: disable=import-outside-toplevel
    return int(group) if str(group).isdigit() else grp.getgrnam(group).gr_gid
