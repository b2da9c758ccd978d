# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""mdadm output parsers and the decision logic of the mdadm_array module.

The parsers understand ``mdadm --detail``, ``--detail --export``, ``--examine`` and
``--examine --export`` (mdadm 4.x). ``plan()`` is a pure function: given what the host looks like
it decides ``ok``/``create``/``assemble``/``fail``; the module only executes the decision.
"""

from __future__ import annotations

import os
import re

from ansible_collections.iotune.storage.plugins.module_utils.device_safety import parse_export
# md identity lives in md_identity.py (no dependencies, so the sysfs readers use it too); re-exported here
from ansible_collections.iotune.storage.plugins.module_utils.md_identity import (  # noqa: F401 pylint: disable=unused-import
    identity,
    md_uuid_colon,
    name_matches,
    name_regexp,
    short_name,
    udev_name_glob,
)
from ansible_collections.iotune.storage.plugins.module_utils.rules import valid_chunk_kb, valid_md_name

__metaclass__ = type

# Where each distribution family keeps mdadm.conf (mdadm's own default is /etc/mdadm.conf; Debian and
# Ubuntu patch it to /etc/mdadm/mdadm.conf). One home: the roles (filter mdadm_conf_path), the audit and
# the initramfs reader (CONF_PATHS, Debian's first) read it from here.
CONF_PATH_BY_FAMILY = {'Debian': '/etc/mdadm/mdadm.conf', 'RedHat': '/etc/mdadm.conf', 'Suse': '/etc/mdadm.conf'}
CONF_PATH_DEFAULT = '/etc/mdadm.conf'
CONF_PATHS = ('/etc/mdadm/mdadm.conf', '/etc/mdadm.conf')


def conf_path(os_family, override=None):
    """The mdadm.conf of a host of ``os_family`` (Ansible's fact), or ``override`` when given."""
    return override or CONF_PATH_BY_FAMILY.get(os_family, CONF_PATH_DEFAULT)


LEVEL_NAMES = {0: 'raid0', 1: 'raid1', 4: 'raid4', 5: 'raid5', 6: 'raid6', 10: 'raid10'}


def stale_conf_line_regexp(name, uuid=None, wanted_line=None):
    """Regexp of mdadm.conf lines that describe array ``name`` (by /dev/md/NAME, name= or UUID) and are not
    exactly ``wanted_line`` (every such line when ``wanted_line`` is None)."""
    ids = [r'\s/dev/md/%s(?:\s|$)' % re.escape(name), r'\sname=%s(?:\s|$)' % name_regexp(name)]
    if uuid:
        ids.append(r'\s(?:UUID|uuid)=%s(?:\s|$)' % re.escape(uuid))
    keep = r'(?!%s\s*$)' % re.escape(wanted_line) if wanted_line else ''
    return r'^%s\s*ARRAY.*(?:%s)' % (keep, '|'.join(ids))


def conf_update(text, name, uuid=None, wanted_line=None):
    """mdadm.conf ``text`` with the stale lines of array ``name`` removed and ``wanted_line`` present once."""
    stale = re.compile(stale_conf_line_regexp(name, uuid, wanted_line))
    lines = []
    seen = False
    for line in (text or '').splitlines():
        if stale.search(line):
            continue
        if wanted_line and line.rstrip() == wanted_line:
            if seen:
                continue
            seen = True
        lines.append(line)
    if wanted_line and not seen:
        lines.append(wanted_line)
    return '\n'.join(lines) + '\n' if lines else ''


_UUID_WORD = re.compile(r'\s(?:UUID|uuid)=(\S+)')


def conf_problems(text, name, uuid=None, wanted_line=None, where='mdadm.conf', any_line_of_uuid=False):
    """What is not in step in the ARRAY lines of array ``name`` (running as ``uuid``) in ``text``, in words ([] when
    it is): the one rule of "the ARRAY line is right", which mdadm_array (MdadmArray.update_conf: it writes iff this
    is not empty) and the audit (module_utils/drift.py) both apply. ``where`` names the file in the messages.

    In step means conf_update leaves ``text`` as it is: no stale line of the array (by /dev/md/NAME, name= or UUID)
    other than ``wanted_line``, which is there once. ``any_line_of_uuid``: any line with ``uuid`` is right and
    ``wanted_line`` is not asked for (the initramfs's copy, which no stage writes itself)."""
    stale = re.compile(stale_conf_line_regexp(name, uuid, None if any_line_of_uuid else wanted_line))
    problems = []
    right = 0
    for line in (text or '').splitlines():
        words = ' '.join(line.split())
        if not stale.search(line):
            right += bool(wanted_line and line.rstrip() == wanted_line)
            continue
        found = _UUID_WORD.search(' ' + words)
        same = bool(uuid and found and md_uuid_colon(found.group(1)) == md_uuid_colon(uuid))
        if same and any_line_of_uuid:
            right += 1
        elif same:
            problems.append('the ARRAY line in %s is "%s", the plan writes "%s"' % (where, words, wanted_line))
        else:
            problems.append('stale ARRAY line in %s: %s%s' % (where, words, ' (the running array is UUID=%s)' % uuid
                                                              if uuid else ''))
    if (wanted_line or any_line_of_uuid) and uuid and not right and not any(p.startswith('the ARRAY') for p in problems):
        problems.append('no ARRAY line in %s for the running array (UUID=%s)' % (where, uuid))
    if right > 1:
        problems.append('several ARRAY lines for UUID=%s in %s' % (uuid, where))
    if not problems and not any_line_of_uuid:
        after = conf_update(text or '', name, uuid, wanted_line)
        if text is None and after:
            problems.append('%s does not exist' % where)
        elif text is not None and after != text:
            problems.append('%s would be rewritten (line ends)' % where)
    return problems


def parse_size_kb(text):
    """'512K' / '1M' / '524288' (bytes? no: mdadm prints K suffix) -> KiB as int, or None."""
    if text is None:
        return None
    m = re.match(r'^\s*(\d+)\s*([KMGT]?)', str(text))
    if not m:
        return None
    value = int(m.group(1))
    factor = {'': 1, 'K': 1, 'M': 1024, 'G': 1024 * 1024, 'T': 1024 * 1024 * 1024}[m.group(2)]
    return value * factor


def level_number(text):
    """'raid0' / '0' / 'RAID0' -> 0; None when unknown ('container', 'linear', ...)."""
    if text is None:
        return None
    m = re.match(r'^(?:raid)?(\d+)$', str(text).strip().lower())
    return int(m.group(1)) if m else None


_KV_RE = re.compile(r'^\s*([A-Za-z][A-Za-z /]*?)\s*:\s?(.*)$')
_DEV_ROW_RE = re.compile(r'^\s*(\d+|-)\s+(\d+)\s+(\d+)\s+(\d+|-)\s+(.*?)\s+(/\S+)\s*$')


def parse_detail(text):
    """Parse ``mdadm --detail DEV`` (human form).

    Returns a dict: version, level, raid_devices, total_devices, state, chunk_kb, name, uuid,
    events, devices (list of {number, major, minor, raid_device, state, path}).
    """
    info = {'devices': []}
    keys = {}
    in_table = False
    for line in (text or '').splitlines():
        if re.match(r'^\s*Number\s+Major\s+Minor\s+RaidDevice', line):
            in_table = True
            continue
        if in_table:
            m = _DEV_ROW_RE.match(line)
            if m:
                info['devices'].append({
                    'number': None if m.group(1) == '-' else int(m.group(1)),
                    'major': int(m.group(2)),
                    'minor': int(m.group(3)),
                    'raid_device': None if m.group(4) == '-' else int(m.group(4)),
                    'state': m.group(5).strip(),
                    'path': m.group(6),
                })
            continue
        m = _KV_RE.match(line)
        if m and not line.rstrip().endswith(':'):
            keys[m.group(1).strip()] = m.group(2).strip()
    info['version'] = keys.get('Version')
    info['level'] = keys.get('Raid Level')
    info['raid_devices'] = _int(keys.get('Raid Devices'))
    info['total_devices'] = _int(keys.get('Total Devices'))
    info['state'] = keys.get('State')
    info['chunk_kb'] = parse_size_kb(keys.get('Chunk Size'))
    info['name'] = keys.get('Name', '').split(' ')[0] or None
    info['uuid'] = keys.get('UUID')
    info['events'] = keys.get('Events')
    return info


def parse_examine(text):
    """Parse ``mdadm --examine MEMBER`` (human form, v1.x superblocks)."""
    keys = {}
    for line in (text or '').splitlines():
        m = _KV_RE.match(line)
        if m and not line.rstrip().endswith(':'):
            keys.setdefault(m.group(1).strip(), m.group(2).strip())
    role = keys.get('Device Role', '')
    m = re.search(r'(\d+)', role)
    return {
        'version': keys.get('Version'),
        'level': keys.get('Raid Level'),
        'raid_devices': _int(keys.get('Raid Devices')),
        'chunk_kb': parse_size_kb(keys.get('Chunk Size')),
        'name': keys.get('Name', '').split(' ')[0] or None,
        'uuid': keys.get('Array UUID'),
        'device_uuid': keys.get('Device UUID'),
        'role': int(m.group(1)) if m else None,
    }


def parse_detail_export(text):
    """Parse ``mdadm --detail --export DEV``: identity plus members {kname: role}."""
    env = parse_export(text)
    members = {}
    for key, value in env.items():
        # mdadm 4.2: MD_DEVICE_dev_vdb_ROLE=0 and MD_DEVICE_dev_vdb_DEV=/dev/vdb
        m = re.match(r'^MD_DEVICE_(.+)_DEV$', key)
        if m:
            role = env.get('MD_DEVICE_%s_ROLE' % m.group(1))
            members[os.path.basename(value)] = _int(role) if role and role.isdigit() else role
    return {
        'level': env.get('MD_LEVEL'),
        'raid_devices': _int(env.get('MD_DEVICES')),
        'metadata': env.get('MD_METADATA'),
        'uuid': env.get('MD_UUID'),
        'devname': env.get('MD_DEVNAME'),
        'name': env.get('MD_NAME'),
        'members': members,
        'env': env,
    }


def parse_examine_export(text):
    """Parse ``mdadm --examine --export MEMBER``."""
    env = parse_export(text)
    return {
        'level': env.get('MD_LEVEL'),
        'raid_devices': _int(env.get('MD_DEVICES')),
        'uuid': env.get('MD_UUID') or env.get('MD_ARRAY_UUID'),
        'device_uuid': env.get('MD_DEV_UUID'),
        'name': env.get('MD_NAME'),
        'env': env,
    }


def blkid_uuid_to_mdadm(uuid):
    """blkid prints md UUIDs as 8-4-4-4-12; mdadm as 4 colon separated groups of 8 (see md_uuid_colon)."""
    return md_uuid_colon(uuid)


def predicted_md_name(name, homehost, hostname):
    """Superblock name mdadm will record: plain with homehost <none>, else 'host:name'."""
    if homehost == '<none>':
        return name
    host = hostname if not homehost or homehost == '<system>' else homehost
    if not host or len(host) + 1 + len(name) >= 32:
        return name
    return '%s:%s' % (host, name)


def array_line(name, metadata, uuid, md_name):
    """The mdadm.conf ARRAY line for an array (identified by UUID, pinned to /dev/md/NAME)."""
    return 'ARRAY /dev/md/%s metadata=%s UUID=%s name=%s' % (name, metadata, uuid, md_name or name)


def _int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def describe_array(name, level, chunk_kb, members, metadata=None, uuid=None):
    """Array description used for diff output."""
    desc = {
        'device': '/dev/md/%s' % name,
        'level': level,
        'chunk_kb': chunk_kb,
        'raid_disks': len(members),
        'members': list(members),
    }
    if metadata:
        desc['metadata'] = metadata
    if uuid:
        desc['uuid'] = uuid
    return desc


class Plan:
    """Decision for state=present/assembled."""

    def __init__(self, action, messages=None, uuid=None, unknown=None):
        self.action = action            # ok | create | assemble | fail
        self.messages = messages or []
        self.uuid = uuid
        self.unknown = unknown or []    # properties that could not be compared (superblock from blkid)

    def __repr__(self):
        return 'Plan(%s, %r)' % (self.action, self.messages)


def compare_active(name, desired, active):
    """Compare a running array (parsed detail + export) with the desired one.

    ``desired``: dict level (int), chunk_kb, members (list of kernel names).
    Returns a list of mismatch messages (empty = matches).
    """
    problems = []
    level = level_number(active.get('level'))
    if level != desired['level']:
        problems.append('level is %s, wanted raid%s' % (active.get('level'), desired['level']))
    if desired['level'] == 0 and active.get('chunk_kb') != desired['chunk_kb']:
        problems.append('chunk is %sK, wanted %sK' % (active.get('chunk_kb'), desired['chunk_kb']))
    have = sorted(active.get('members') or [])
    want = sorted(desired['members'])
    if have != want:
        problems.append('members are %s, wanted %s' % (
            ', '.join('/dev/%s' % k for k in have) or 'none',
            ', '.join('/dev/%s' % k for k in want)))
    elif active.get('raid_devices') is not None and active['raid_devices'] != len(want):
        problems.append('it has %s raid devices, wanted %s' % (active['raid_devices'], len(want)))
    if problems:
        return ['/dev/md/%s already exists and differs: %s; it will not be re-created or changed '
                '(stop it and remove its superblocks yourself if you really want a new array)'
                % (name, '; '.join(problems))]
    return []


def plan_from_superblocks(name, desired, superblocks, labels):
    """Decide from the members' superblocks when no array is running under /dev/md/NAME.

    ``superblocks``: {kname: parsed examine dict or None}; ``labels``: {kname: 'given (resolved)'}.
    Returns a Plan with action assemble/create/fail, or None to fall through to the safety checks.
    """
    ours = {}
    for kname, sb in superblocks.items():
        if sb and short_name(sb.get('name')) == name:
            ours[kname] = sb
    if not ours:
        return None
    uuids = sorted(set(sb.get('uuid') for sb in ours.values()))
    if len(uuids) > 1:
        return Plan('fail', ['members carry superblocks of several arrays named %s (UUIDs %s): %s'
                             % (name, ', '.join(str(u) for u in uuids),
                                ', '.join(labels[k] for k in sorted(ours)))])
    uuid = uuids[0]
    sb = next(iter(ours.values()))
    problems = []
    missing = [k for k in desired['members'] if k not in ours]
    if missing:
        problems.append('%s do not carry its superblock' % ', '.join(labels[k] for k in missing))
    level = level_number(sb.get('level'))
    if sb.get('level') is not None and level != desired['level']:
        problems.append('its level is %s, wanted raid%s' % (sb.get('level'), desired['level']))
    if desired['level'] == 0 and sb.get('chunk_kb') is not None and sb['chunk_kb'] != desired['chunk_kb']:
        problems.append('its chunk is %sK, wanted %sK' % (sb['chunk_kb'], desired['chunk_kb']))
    if sb.get('raid_devices') is not None and sb['raid_devices'] != len(desired['members']):
        problems.append('it has %s raid devices, wanted %s' % (sb['raid_devices'], len(desired['members'])))
    roles = [s.get('role') for s in ours.values() if s.get('role') is not None]
    if len(roles) != len(set(roles)):
        problems.append('two members claim the same slot')
    if problems:
        return Plan('fail', ['an inactive array named %s (UUID %s) exists on %s but %s; refusing to assemble '
                             'or re-create it' % (name, uuid, ', '.join(labels[k] for k in sorted(ours)),
                                                  '; '.join(problems))], uuid=uuid)
    unknown = [what for key, what in (('level', 'level'), ('chunk_kb', 'chunk size'), ('raid_devices', 'number of members'))
               if sb.get(key) is None]
    return Plan('assemble', uuid=uuid, unknown=unknown)


def join_words(words):
    """'a', 'a and b', 'a, b and c'."""
    words = list(words)
    if len(words) < 2:
        return ''.join(words)
    return '%s and %s' % (', '.join(words[:-1]), words[-1])


def missing_slots(raid_devices, roles):
    """Slots (0-based) of an array with ``raid_devices`` members that no present member claims."""
    if raid_devices is None:
        return None
    return [slot for slot in range(raid_devices) if slot not in roles]


def validate_params(name, level, chunk_kb, metadata, device_count, allow_single_device=False):
    """Parameter errors (list of messages)."""
    errors = []
    if not valid_md_name(name):
        errors.append('name %r must be 1-32 characters of letters, digits, ".", "_" or "-" (and not . or ..)' % (name,))
    if level != 0:
        errors.append('level %s is not implemented: this module only builds RAID0 (level: 0)' % (level,))
    if not valid_chunk_kb(chunk_kb):
        errors.append('chunk_kb %s must be a power of two and at least 4' % (chunk_kb,))
    if metadata not in ('1.0', '1.1', '1.2'):
        errors.append('metadata %r is not supported (use 1.0, 1.1 or 1.2)' % (metadata,))
    if device_count < 1:
        errors.append('devices must list at least one device')
    elif device_count == 1 and not allow_single_device:
        errors.append('devices lists a single device: a RAID0 of one device stripes nothing and only adds an md '
                      'layer (mdadm needs --force for it); set allow_single_device: true if that is really wanted')
    return errors


def md_device(name):
    return '/dev/md/%s' % name


def kernel_name(path):
    try:
        return os.path.basename(os.path.realpath(path))
    except OSError:
        return None
