# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What the storage_audit module reads from a host, in one call; nothing here writes.

``gather()`` returns the observations the controller compares with the plan
(plugins/plugin_utils/audit.py): per planned array its md state, members and mount; per tuned device
the live values, the values of the profile (block_tuning.plan(), the code udev_block_tuning renders
with) and the values the rules file on disk would set; the rules file against the text tune would
write (block_tuning.render_rules); the ARRAY lines of mdadm.conf and of the initramfs that boots next;
the fstab lines; tuned; the kernel settings (kernel_settings.check). Everything below ``root`` is read
through host.BlockHost and the existing readers.
"""

from __future__ import annotations

import calendar
import fnmatch
import json
import os
import time
import re

from ansible_collections.iotune.storage.plugins.module_utils import (
    block_tuning,
    files,
    initramfs,
    kernel_settings,
    service_limits,
    systemd_show,
    tuned,
)
from ansible_collections.iotune.storage.plugins.module_utils.fstab import entries as fstab_entries
from ansible_collections.iotune.storage.plugins.module_utils.md_identity import name_matches
from ansible_collections.iotune.storage.plugins.module_utils.sysfs_block import (
    SysfsBlockError,
    parse_udev_db,
    read_mountinfo,
    read_text,
)

SCHEMA_VERSION = 1
MDADM_CONF_PATHS = initramfs.HOST_CONF        # Debian's path first, then EL's: one home in module_utils/mdadm.py
RULE_TOKEN = re.compile(r'([A-Z_]+(?:\{[^}]*\})?)\s*(==|!=|\+=|:=|=)\s*"([^"]*)"')


# ---------------------------------------------------------------------------------------------
# mdadm.conf and fstab


def parse_array_lines(text):
    """[{'line', 'device', 'uuid', 'name'}] of the ARRAY lines of an mdadm.conf text (UUID in colon form);
    the lines are read by module_utils/initramfs.py (continuation lines, comments), as in the initramfs."""
    return [array_line_facts(line) for line in initramfs.parse_array_lines(text)]


def array_line_facts(line):
    parsed = initramfs.parse_array_line(line)
    return {'line': ' '.join(line.split()), 'device': parsed['device'], 'uuid': parsed['uuid'], 'name': parsed['name']}


def next_initramfs(run_command, **kwargs):
    """The ARRAY lines in the initramfs that boots next (initramfs.array_lines_in_next_initramfs), as gather() keeps them."""
    found = initramfs.array_lines_in_next_initramfs(run_command, **kwargs)
    return {'checked': found['error'] is None, 'image': found['image'], 'generator': found['generator'],
            'kernel': found['kernel'], 'conf_path': found['conf_path'], 'error': found['error'],
            'lines': [array_line_facts(line) for line in found['array_lines']]}


def mdadm_conf(host, path=None):
    """{'path', 'present', 'lines', 'text'}: the first of the distribution paths that exists (or ``path``); ``text``
    as read, which the comparison judges by mdadm_array's own rule (mdadm.conf_problems)."""
    candidates = [path] if path else list(MDADM_CONF_PATHS)
    for candidate in candidates:
        text = files.read_text(host.path(candidate))
        if text is not None:
            return {'path': candidate, 'present': True, 'lines': parse_array_lines(text), 'text': text}
    return {'path': candidates[0], 'present': False, 'lines': [], 'text': None}


# ---------------------------------------------------------------------------------------------
# the rules file on disk: which values would it set on a device?


def _glob_match(value, pattern):
    return any(fnmatch.fnmatchcase(value or '', alt) for alt in pattern.split('|'))


def rules_set(text, props):
    """{attr: value} the rule lines of ``text`` would write on a device, evaluated for the keys our rules use.

    ``props``: KERNEL (kernel name), ENV (udev properties), ATTRS (sysfs attributes such as serial),
    TEST (queue attributes that exist). Lines with GOTO/LABEL (the file's skip logic) are ignored; an
    event is taken as ``change`` of a whole disk in the block subsystem. A key this evaluator does not
    know makes the line not match (so a hand-written rule is never credited with a value).
    """
    found = {}
    for raw in (text or '').splitlines():
        line = raw.strip()
        if not line or line.startswith('#') or 'GOTO=' in line or line.startswith('LABEL='):
            continue
        matched = True
        assigns = {}
        for key, op, value in RULE_TOKEN.findall(line):
            if op in ('=', '+=', ':='):
                if key.startswith('ATTR{'):
                    assigns[key[5:-1]] = value
                continue
            if key == 'ACTION':
                have = 'change'
            elif key == 'SUBSYSTEM':
                have = 'block'
            elif key == 'KERNEL':
                have = props.get('KERNEL')
            elif key.startswith('ENV{'):
                have = 'disk' if key == 'ENV{DEVTYPE}' else props.get('ENV', {}).get(key[4:-1])
            elif key.startswith('ATTRS{') or key.startswith('ATTR{'):
                have = props.get('ATTRS', {}).get(key[key.index('{') + 1:-1])
            elif key == 'TEST':
                ok = value in props.get('TEST', ())
                if (op == '==') != ok:
                    matched = False
                continue
            else:
                matched = False
                continue
            hit = have is not None and _glob_match(have, value)
            if op == '!=':
                # udev: != on a missing property matches everything but the empty pattern
                hit = not (have is not None and _glob_match(have, value)) if value else bool(have)
                if not hit:
                    matched = False
            elif not hit:
                matched = False
        if matched:
            for attr, value in assigns.items():
                found[attr.replace('queue/', '')] = value
    return found


def device_props(host, dev):
    """The properties rules_set() matches on, for one device of block_tuning.collect_devices()."""
    env = parse_udev_db(read_text(os.path.join(host.udev_root, 'data', 'b' + (dev['majmin'] or ''))))
    queue = host.path('/sys/class/block/%s/queue' % dev['name'])
    # the queue files the rules test for (TEST=="queue/..."): every attribute the tuning writes
    tests = [attr for dummy, attr in block_tuning.ATTR_ORDER
             if os.path.exists(os.path.join(queue, attr.split('/', 1)[1]))]
    return {'KERNEL': dev['name'], 'ENV': env, 'ATTRS': {'serial': dev['serial']}, 'TEST': tests}


# ---------------------------------------------------------------------------------------------
# arrays


def _md_devices(host, kname):
    """[{'name', 'state'}] of md/dev-* (the members md knows, with their state)."""
    base = host.path('/sys/class/block/%s/md' % kname)
    try:
        entries = sorted(os.listdir(base))
    except OSError:
        return []
    out = []
    for entry in entries:
        if entry.startswith('dev-'):
            state = read_text(os.path.join(base, entry, 'state'))
            out.append({'name': entry[4:], 'state': state.strip() if state else None})
    return out


def array_facts(host, entry, mountinfo, fstab_lines, devices=None):
    """Observations of one planned array ({name, devices, mountpoint}); ``devices``: block_tuning.collect_devices()
    of the host, for the classes of its members (the discard policy's input)."""
    inv = host.inventory()
    name = entry['name']
    out = {'name': name, 'device': '/dev/md/%s' % name, 'kname': None, 'running': False, 'md': None,
           'slaves': [], 'md_devices': [], 'fs_uuid': None, 'fs_type': None, 'read_ahead_kb': None,
           'members': [], 'mountpoint': entry.get('mountpoint'), 'mounted': None, 'mounts_elsewhere': [],
           'fstab': [], 'member_classes': {}}
    kname = None
    if host.exists(out['device']):
        kname = os.path.basename(host.realpath(out['device']))
    else:
        kname = _find_md(host, inv, name, entry.get('devices') or [])
    if kname and kname in inv.sysdirs:
        info = inv.device(kname)
        md = info.get('md') or {}
        out.update(kname=kname, md=md, slaves=info['slaves'], md_devices=_md_devices(host, kname),
                   read_ahead_kb=info.get('read_ahead_kb'))
        out['running'] = md.get('array_state') not in (None, 'inactive', 'clear')
        # the class and cloud class of each member as udev_block_tuning reads them (xfs.discard_class picks one); a
        # member the host does not have any more (unplugged while the array ran: md still lists it) takes no discard
        # and has no class: the policy is the one of the members that are there
        for slave in info['slaves']:
            dev = (devices or {}).get(slave)
            if dev is not None:
                out['member_classes'][slave] = {'class': dev.get('class'), 'cloud_class': dev.get('cloud_class')}
        env = parse_udev_db(read_text(os.path.join(host.udev_root, 'data', 'b' + (info['maj_min'] or ''))))
        out['fs_uuid'] = env.get('ID_FS_UUID')
        out['fs_type'] = env.get('ID_FS_TYPE')
        majmin = info['maj_min']
        for mnt in mountinfo:
            if mnt['maj_min'] == majmin and mnt['mountpoint'] != entry.get('mountpoint'):
                out['mounts_elsewhere'].append(mnt['mountpoint'])
    for mnt in mountinfo:
        if mnt['mountpoint'] == entry.get('mountpoint'):
            out['mounted'] = {'source': mnt['source'], 'fstype': mnt['fstype'],
                              'options': mnt['options'].split(','), 'maj_min': mnt['maj_min'],
                              'super_options': [o for o in (mnt.get('super_options') or '').split(',') if o],
                              'kname': _kname_of(host, mnt['maj_min'])}
    out['fstab'] = [line for line in fstab_lines
                    if line['mountpoint'] == entry.get('mountpoint')
                    or (out['fs_uuid'] and line['source'] == 'UUID=%s' % out['fs_uuid'])]
    for path in entry.get('devices') or []:
        member = {'path': path, 'exists': host.exists(path), 'kname': None, 'holders': [], 'foreign': []}
        if member['exists']:
            mkname = os.path.basename(host.realpath(path))
            member['kname'] = mkname
            member['holders'] = host.holders(mkname)
            for holder in member['holders']:
                if holder != kname and holder.startswith('md'):
                    hmd = (inv.device(holder).get('md') or {}) if holder in inv.sysdirs else {}
                    member['foreign'].append({'kname': holder, 'name': hmd.get('name'), 'uuid': hmd.get('uuid')})
        out['members'].append(member)
    return out


def _find_md(host, inv, name, devices):
    """The md device of array ``name`` when /dev/md/NAME is gone (an inactive array has no link; a RAID0
    that lost a member loses its udev entry and links): by its name, else the md device that holds most
    of the planned members."""
    for candidate in inv.order:
        info = inv.device(candidate)
        if info['type'] == 'md' and info.get('md') and name_matches(info['md'].get('name'), name):
            return candidate
    counts = {}
    for path in devices:
        if host.exists(path):
            for holder in host.holders(os.path.basename(host.realpath(path))):
                if holder.startswith('md'):
                    counts[holder] = counts.get(holder, 0) + 1
    return max(sorted(counts), key=lambda k: counts[k]) if counts else None


def _kname_of(host, majmin):
    try:
        major, minor = majmin.split(':')
        return host.kname_for((int(major), int(minor)))
    except (AttributeError, ValueError):
        return None


# ---------------------------------------------------------------------------------------------
# tuning


def tuning_facts(host, entries, rules_file, page_kb=4, loadable=()):
    """Per device: live, profile (the plan's values) and rules (what the file on disk sets); the rules file."""
    result = {'devices': {}, 'unmatched': [], 'errors': [], 'warnings': [],
              'rules': {'path': rules_file, 'present': False, 'matches': False}}
    existing = files.read_text(host.path(rules_file))
    result['rules']['present'] = existing is not None
    devices = block_tuning.collect_devices(host)
    try:
        pl = block_tuning.plan(entries, devices, host, page_kb=page_kb, allow_unmatched=True, loadable=loadable)
    except block_tuning.TuningError as e:
        result['errors'].append(str(e))
        return result, {}
    rendered = block_tuning.render_rules(pl['rules'], os.path.basename(rules_file))
    result['rules']['matches'] = existing == rendered
    result['rules']['missing_lines'] = [line for line in rendered.splitlines()
                                        if line and not line.startswith('#') and line not in (existing or '').splitlines()]
    result['rules']['extra_lines'] = [line for line in (existing or '').splitlines()
                                      if line and not line.startswith('#') and line not in rendered.splitlines()]
    result['unmatched'] = pl['unmatched']
    result['warnings'] = pl['warnings']
    for name in sorted(pl['expected']):
        dev = devices[name]
        live = block_tuning.read_live(host, name)
        on_disk = rules_set(existing, device_props(host, dev)) if existing is not None else {}
        result['devices'][name] = {
            'selected_by': pl['selected'][name], 'class': dev['class'], 'is_md': dev['is_md'],
            'profile': dict((k, str(v)) for k, v in pl['expected'][name].items()),
            'live': dict((k, live.get(k)) for k in pl['expected'][name]),
            'rules': dict((k, on_disk.get(k)) for k in pl['expected'][name]),
        }
    return result, pl['expected']


def tuned_facts(host, expected):
    """tuned's active profile(s) and the devices whose readahead its [disk] unit would overwrite."""
    root = host.root or '/'
    profiles = tuned.tuned_active_profiles(root)
    running = os.path.exists(host.path('/run/tuned/tuned.pid'))
    dirs = [host.path('/' + d) for d in tuned.TUNED_DIRS]
    readahead = tuned.tuned_readahead(' '.join(profiles), dirs) if profiles else None
    conflicts = tuned.tuned_conflicts(readahead, expected) if running else []
    return {'running': running, 'profiles': profiles, 'readahead': readahead[0] if readahead else None,
            'conflicts': [{'device': d, 'ours': ours, 'tuned': theirs} for d, ours, theirs in conflicts]}


# ---------------------------------------------------------------------------------------------
# the whole call


FSTRIM_TIMER = 'fstrim.timer'
# the snapshot of the host's original state (module_utils/original_state.py's PATH; a unit test keeps them equal: this
# file is part of the metrics collector, which carries no Ansible import, so it reads the JSON itself)
ORIGINAL_STATE = '/var/lib/iotune-storage/original-state.json'
# and the values first planned after it (original_state.additions_path of it; the same unit test)
ORIGINAL_STATE_ADDITIONS = '/var/lib/iotune-storage/original-state-additions.json'
_SNAPSHOT_META = ('format', 'collection', 'version', 'recorded_at', 'kernel', 'tuned_before')


def original_state_facts(host, path=ORIGINAL_STATE):
    """What the snapshot of the host's original state holds, in short (never drift): {path, recorded, error,
    recorded_at, timestamp, version, counts} with ``counts`` the values recorded per kind (``queue`` the queue values of
    all devices; any other key of the file, such as one a later release adds, counted by its entries). Read with the
    other files of this call (no command)."""
    out = {'path': path, 'recorded': False, 'error': None, 'recorded_at': None, 'timestamp': None, 'version': None,
           'counts': {}}
    full = host.path(path)
    text = files.read_text(full)
    if text is None:
        if os.path.lexists(full):
            out['error'] = 'cannot read %s' % path
        return out
    try:
        snapshot = json.loads(text)
    except ValueError as e:
        snapshot, out['error'] = None, '%s is not JSON: %s' % (path, e)
    if not isinstance(snapshot, dict):
        out['error'] = out['error'] or '%s is not a snapshot of this collection' % path
        return out
    out.update(recorded=True, recorded_at=snapshot.get('recorded_at'), version=snapshot.get('version'))
    try:
        out['timestamp'] = calendar.timegm(time.strptime(str(snapshot.get('recorded_at')), '%Y-%m-%dT%H:%M:%SZ'))
    except ValueError:
        pass
    counts = out['counts']
    for key, value in sorted(snapshot.items()):
        if key in _SNAPSHOT_META:
            continue
        if key == 'devices' and isinstance(value, list):
            counts['queue'] = sum(len(d.get('queue') or {}) for d in value if isinstance(d, dict))
        if isinstance(value, (dict, list)):
            counts[key] = 1 if key == 'fstrim_timer' else len(value)
    if path == ORIGINAL_STATE:
        # the records of values first planned later (one per run that found something new), when readable
        try:
            extra = json.loads(files.read_text(host.path(ORIGINAL_STATE_ADDITIONS)) or 'null')
        except ValueError:
            extra = None
        if isinstance(extra, dict) and isinstance(extra.get('additions'), list):
            counts['additions'] = len(extra['additions'])
    return out


def fstrim_timer_facts(run_command):
    """{'enabled', 'active', 'error'} of util-linux's fstrim.timer (systemd_show.timer_state: one systemctl show)."""
    if run_command is None:
        return {'enabled': None, 'active': None, 'error': 'systemctl was not run (no command runner)'}
    return systemd_show.timer_state(run_command, FSTRIM_TIMER)


def gather(host, arrays, tuning, rules_file, conf_path=None, fstab='/etc/fstab', sysctl=None, thp=None,
           sysctl_file='/etc/sysctl.d/90-iotune-storage.conf', page_kb=4, loadable=(), read_initramfs=None,
           read_restarts=None, limits=None, run_command=None, fstrim_timer=False, cpu_clock=None,
           original_state=ORIGINAL_STATE):
    """Everything the controller's comparison needs, as one dict (schema SCHEMA_VERSION).

    ``read_initramfs``: a callable returning {'checked', 'image', 'lines', 'error'} about the ARRAY lines in
    the initramfs that boots next, or None (then that check is reported as not made).
    ``read_restarts``: a callable returning the restarts a tune run left owed ({'path', 'error', 'pending'},
    restart_record.audit_facts), or None (none read).
    ``limits``: the planned limits per unit (the plan's ``limits``); their drop-ins are read, and with ``run_command``
    what systemd reports for each unit (service_limits.gather: one systemctl show). None or {}: not read.
    ``fstrim_timer``: read the state of fstrim.timer (a plan with a discard policy); else it is None (not read).
    ``cpu_clock``: the planned CPU governor and clocksource, read with the kernel settings (not offered: a note).
    ``original_state``: the snapshot of the host's original state (original_state_facts); None: not read.
    """
    facts = {'schema_version': SCHEMA_VERSION, 'page_kb': page_kb, 'errors': []}
    fstab_text = files.read_text(host.path(fstab))
    fstab_lines = fstab_entries(fstab_text)
    facts['fstab'] = {'path': fstab, 'present': fstab_text is not None}
    try:
        mountinfo = read_mountinfo(host.proc_root)
    except SysfsBlockError as e:  # pragma: no cover - read_mountinfo returns [] when unreadable
        facts['errors'].append(str(e))
        mountinfo = []
    devices = block_tuning.collect_devices(host) if arrays else {}
    facts['arrays'] = [array_facts(host, entry, mountinfo, fstab_lines, devices) for entry in arrays or []]
    tune, expected = tuning_facts(host, tuning or [], rules_file, page_kb=page_kb, loadable=loadable)
    facts['errors'].extend(tune.pop('errors'))
    facts['tuning'] = tune
    facts['mdadm_conf'] = mdadm_conf(host, conf_path)
    facts['tuned'] = tuned_facts(host, expected)
    if sysctl or thp or cpu_clock:
        facts['kernel'] = kernel_settings.check(host.root or '/', sysctl or {}, thp or {}, sysctl_file, cpu_clock)
    else:
        facts['kernel'] = None
    if read_initramfs is None:
        facts['initramfs'] = {'checked': False, 'image': None, 'lines': [], 'error': 'not checked (initramfs=false)'}
    else:
        facts['initramfs'] = read_initramfs()
    facts['restarts'] = read_restarts() if read_restarts is not None else {'path': None, 'error': None, 'pending': []}
    facts['limits'] = (service_limits.gather(lambda path: files.read_text(host.path(path)), run_command, limits)
                       if limits else None)
    facts['fstrim_timer'] = fstrim_timer_facts(run_command) if fstrim_timer else None
    facts['original_state'] = original_state_facts(host, original_state) if original_state else None
    return facts
