# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""tuned, in one place: profiles and their include= chain, the [disk] readahead (udev_block_tuning) and
the [sysctl]/[vm]/[cpu] settings (kernel_settings), and the override profiles both modules write.

Pure functions over files; the callers give the directories (absolute, or relative to a ``root``).
"""

from __future__ import annotations

import configparser
import os
import re

from ansible_collections.iotune.storage.plugins.module_utils.files import read_text

# below the root (kernel_settings); the order is tuned's search order
TUNED_ETC = 'etc/tuned'
TUNED_DIRS = ('etc/tuned/profiles', 'etc/tuned', 'usr/lib/tuned/profiles', 'usr/lib/tuned')
FALSE_WORDS = ('0', 'false', 'no', 'off', 'n', 'f')
# tuned [vm] plugin options and what they set
TUNED_VM_OPTIONS = {
    'transparent_hugepages': ('thp', 'enabled'),
    'transparent_hugepage': ('thp', 'enabled'),
    'transparent_hugepage.defrag': ('thp', 'defrag'),
    'dirty_bytes': ('sysctl', 'vm.dirty_bytes'),
    'dirty_ratio': ('sysctl', 'vm.dirty_ratio'),
    'dirty_background_bytes': ('sysctl', 'vm.dirty_background_bytes'),
    'dirty_background_ratio': ('sysctl', 'vm.dirty_background_ratio'),
}


def normalise_name(name):
    """sysctl accepts vm.swappiness and vm/swappiness; the canonical form uses dots."""
    name = name.strip()
    return name.replace('/', '.') if '/' in name else name


def normalise_value(value):
    return ' '.join(str(value).split())


# ---------------------------------------------------------------------------------------------
# profiles and the [disk] readahead (udev_block_tuning)


def parse_readahead(value):
    """Return (kib, raise_only) from a tuned [disk] readahead value ('>4096', '8192 s')."""
    value = value.strip()
    raise_only = value.startswith('>')
    value = value.lstrip('>').strip()
    m = re.match(r'^(\d+)\s*(s)?$', value)
    if not m:
        return None, raise_only
    kib = int(m.group(1))
    if m.group(2):
        kib //= 2
    return kib, raise_only


def tuned_profile_chain(profile, dirs, seen=None):
    """Return [(name, path, ConfigParser)] for a tuned profile and everything it includes."""
    seen = seen if seen is not None else set()
    chain = []
    for name in re.split(r'[\s,]+', profile.strip()):
        if not name or name in seen:
            continue
        seen.add(name)
        for d in dirs:
            path = os.path.join(d, name, 'tuned.conf')
            if os.path.exists(path):
                cp = configparser.ConfigParser(interpolation=None, strict=False)
                try:
                    cp.read(path)
                except configparser.Error:
                    break
                if cp.has_option('main', 'include'):
                    chain.extend(tuned_profile_chain(cp.get('main', 'include'), dirs, seen))
                chain.append((name, path, cp))
                break
    return chain


def tuned_readahead(profile, dirs):
    """Effective [disk] readahead of a tuned profile chain: (value text, profile name) or None.

    Later (including) profiles override earlier (included) ones; a disabled or replaced disk unit
    without readahead clears it.
    """
    result = None
    for name, dummy, cp in tuned_profile_chain(profile, dirs):
        for section in cp.sections():
            stype = cp.get(section, 'type', fallback=section)
            if stype != 'disk':
                continue
            enabled = cp.get(section, 'enabled', fallback='true').strip().lower()
            if enabled in ('false', '0', 'no', 'off'):
                result = None
                continue
            if cp.has_option(section, 'readahead'):
                result = (cp.get(section, 'readahead').strip(), name)
            elif cp.get(section, 'replace', fallback='0').strip().lower() in ('1', 'true', 'yes'):
                result = None
    return result


def tuned_conflicts(tuned_ra, expected):
    """Devices whose expected readahead tuned would overwrite: list of (dev, ours, tuned_kib)."""
    if not tuned_ra:
        return []
    kib, raise_only = parse_readahead(tuned_ra[0])
    if kib is None:
        return []
    out = []
    for dev, exp in sorted(expected.items()):
        ours = exp.get('read_ahead_kb')
        if ours is None:
            continue
        if (raise_only and kib > ours) or (not raise_only and kib != ours):
            out.append((dev, ours, kib))
    return out


def readahead_state(expected, get_bin_path, run_command, etc_dir, dirs):
    """(info, conflicts) of the running tuned against the ``expected`` readahead per device.

    ``info``: active, profile, readahead, conflicts (device names), override (False). Without tuned-adm,
    with tuned stopped or without an active profile there is nothing that could overwrite the values.
    """
    info = {'active': False, 'profile': None, 'readahead': None, 'conflicts': [], 'override': False}
    if not get_bin_path('tuned-adm'):
        return info, []
    systemctl = get_bin_path('systemctl')
    if systemctl:
        rc, dummy, dummy2 = run_command([systemctl, 'is-active', '--quiet', 'tuned.service'])
        info['active'] = rc == 0
    else:
        info['active'] = os.path.exists('/run/tuned/tuned.pid')
    if not info['active']:
        return info, []
    profile = (read_text(os.path.join(etc_dir, 'active_profile')) or '').strip()
    info['profile'] = profile or None
    if not profile:
        return info, []
    ra = tuned_readahead(profile, dirs)
    info['readahead'] = ra[0] if ra else None
    conflicts = tuned_conflicts(ra, expected)
    info['conflicts'] = [c[0] for c in conflicts]
    return info, conflicts


def readahead_refusal(info, conflicts, override_profile):
    """Why tune stops when the active tuned profile would overwrite the readahead (tuned=fail)."""
    detail = ', '.join('%s wants %d KiB, tuned sets %d KiB' % c for c in conflicts)
    return ("tuned is active with profile %r whose [disk] readahead=%s overrides the udev values (%s). Set "
            "block_tuning_tuned_override: true (module option tuned=override) to install the override profile "
            "%r, or choose a tuned profile without disk readahead" % (info['profile'], info['readahead'], detail,
                                                                      override_profile))


DISK_OVERRIDE_TEMPLATE = """\
# Managed by Ansible (iotune.storage.block_tuning).
# Same as tuned profile "{parent}", but without its [disk] unit: scheduler and readahead are set
# by the udev rules in {rules_file}, and tuned's readahead ({readahead}) would overwrite them.
[main]
summary={parent} without disk readahead/scheduler (iotune.storage)
include={parent}

[disk]
replace=1
enabled=false
"""


# ---------------------------------------------------------------------------------------------
# [sysctl] and [vm] (kernel_settings)


def tuned_active_profiles(root):
    """Names in /etc/tuned/active_profile (tuned merges several, space separated)."""
    text = read_text(os.path.join(root, os.path.join(TUNED_ETC, 'active_profile'))) or ''
    return [name for name in re.split(r'[\s,]+', text.strip()) if name]


def tuned_reapply_sysctl(root):
    """tuned-main.conf reapply_sysctl (default 1): the system sysctl files are applied again after [sysctl]."""
    for line in (read_text(os.path.join(root, os.path.join(TUNED_ETC, 'tuned-main.conf'))) or '').splitlines():
        line = line.strip()
        if line.startswith('reapply_sysctl') and '=' in line:
            return line.split('=', 1)[1].strip().lower() not in FALSE_WORDS
    return True


def tuned_settings(root, profiles):
    """Effective tuned settings: {('sysctl'|'thp'|'cpu', key): (value, profile name, unit name, unit type, option)}.

    Units of included profiles come first; a later unit of the same name adds or overrides options,
    ``replace=1`` drops what came before, ``enabled=false`` switches the unit off.
    """
    dirs = [os.path.join(root, d) for d in TUNED_DIRS]
    units = {}
    order = []
    for profile in profiles:
        for name, dummy, cp in tuned_profile_chain(profile, dirs):
            for section in cp.sections():
                if section == 'main':
                    continue
                options = dict(cp.items(section))
                current = units.get(section)
                if current is None or options.get('replace', '0').strip().lower() in ('1', 'true', 'yes'):
                    current = {'type': section, 'options': {}}
                    units[section] = current
                    if section not in order:
                        order.append(section)
                for key, value in options.items():
                    if key == 'type':
                        current['type'] = value.strip()
                    elif key not in ('replace', 'devices', 'priority'):
                        current['options'][key] = (value.strip(), name)
    found = {}
    for section in order:
        unit = units[section]
        enabled = unit['options'].get('enabled', ('true', None))[0].lower()
        if enabled in FALSE_WORDS:
            continue
        for key, (value, profile) in unit['options'].items():
            if key == 'enabled':
                continue
            if unit['type'] == 'sysctl':
                found[('sysctl', normalise_name(key))] = (normalise_value(value), profile, section, 'sysctl', key)
            elif unit['type'] == 'vm' and key in TUNED_VM_OPTIONS:
                found[TUNED_VM_OPTIONS[key]] = (normalise_value(value), profile, section, 'vm', key)
            elif unit['type'] == 'cpu' and key == 'governor':
                found[('cpu', 'governor')] = (normalise_value(value), profile, section, 'cpu', key)
    return found


def tuned_governor(value, available):
    """The governor tuned's [cpu] ``governor=`` sets on a CPU offering ``available``: the first of its
    ``|``-separated choices the CPU offers (tuned's rule), None when it offers none of them (tuned sets nothing). A
    tuned variable (``${...}``) is the caller's to tell apart (kernel_settings makes it a note)."""
    for choice in value.split('|'):
        choice = choice.strip()
        if choice and choice in available:
            return choice
    return None


def tuned_differs(value, wanted):
    """Whether a tuned value would change ``wanted``; tuned's '>N'/'<N' only raise/lower."""
    if '${' in value:
        return None
    if value[:1] in '<>' and re.fullmatch(r'[<>]\s*-?\d+', value) and re.fullmatch(r'-?\d+', str(wanted)):
        number = int(value[1:].strip())
        return number > int(wanted) if value[0] == '>' else number < int(wanted)
    return normalise_value(value) != normalise_value(wanted)


KERNEL_OVERRIDE_TEMPLATE = """\
# Managed by Ansible (iotune.storage.kernel).
# Same as tuned profile(s) "{parent}", but with the kernel settings of the iotune.storage profile:
# tuned would otherwise overwrite them ({reasons}).
[main]
summary={parent} with the kernel settings of iotune.storage
include={parent}
{units}"""


def render_tuned_override(parent, conflicts, reasons, settings=None):
    """tuned.conf text for the override profile: the parent plus our values for the conflicting keys.

    Each value goes into the unit (section) and under the option name the parent's chain sets it with (``settings``:
    tuned_settings of the parent): tuned merges a unit of the same name, so ``[my_cpu] type=cpu`` or ``[vm]
    dirty_bytes=`` is overridden where it is, not by a second unit that runs beside it. A key the parent does not set
    goes into the unit named after its kind ([sysctl], [vm], [cpu])."""
    default_units = {'sysctl': ('sysctl', 'sysctl'), 'thp': ('vm', 'vm'), 'cpu': ('cpu', 'cpu')}
    thp_options = {'enabled': 'transparent_hugepages', 'defrag': 'transparent_hugepage.defrag'}
    units = {}
    for (kind, key), value in conflicts.items():
        found = (settings or {}).get((kind, key))
        if found is not None:
            section, unit_type, option = found[2], found[3], found[4]
        else:
            section, unit_type = default_units[kind]
            option = thp_options[key] if kind == 'thp' else key
        units.setdefault((section, unit_type), []).append((option, value))
    text = ''
    rank = {'sysctl': 0, 'vm': 1, 'cpu': 2}   # the order of earlier releases: an unchanged override is not rewritten
    for (section, unit_type), options in sorted(units.items(), key=lambda u: (rank.get(u[0][1], 3), u[0][0])):
        text += '\n[%s]\n' % section
        if section != unit_type:
            text += 'type=%s\n' % unit_type
        text += ''.join('%s=%s\n' % kv for kv in sorted(options))
    return KERNEL_OVERRIDE_TEMPLATE.format(parent=parent, reasons='; '.join(reasons), units=text)
