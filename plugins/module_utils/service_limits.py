# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The limits drop-ins of the database services (issue 27): one systemd drop-in per service of the plan,
C(/etc/systemd/system/UNIT.d/iotune-storage-limits.conf), with the profile's C(Limit*=) settings (systemd.exec(5),
"Process Properties"), and their check: what the drop-in on disk says and what systemd reports for the unit
(C(systemctl show -p LimitNOFILE,LimitNOFILESoft,...)).

One home for the names the plan accepts, the value rule, the drop-in's place, name and text, and the comparison: the
plan (plugin_utils/plan.py) validates a profile's C(limits) here, the xfs role writes what C(files()) returns (filter
C(limits_dropins), in the same config_files call as the mount holds), the tune role checks the live values by
C(live_problems()), and the audit and the metrics collector compare by C(problems()). Pure functions except
C(read_live()), which runs one C(systemctl show); nothing here imports Ansible.

A value is a whole number, C(infinity), or C(soft:hard) of those (systemd's own syntax); the plan keeps it as the
string systemd reads back, so that the drop-in, the read back and the plan compare as text. Units with a suffix
(C(1G), C(10min)) are refused: systemd would convert them and the check could no longer compare exactly; give the
number in the limit's base unit (bytes, seconds, microseconds).
"""

from __future__ import annotations

import re

from ansible_collections.iotune.storage.plugins.module_utils import systemd_show
from ansible_collections.iotune.storage.plugins.module_utils.rules import did_you_mean

DIR = '/etc/systemd/system'
NAME = 'iotune-storage-limits.conf'
# every limits drop-in of this collection, of any unit
GLOB = '%s/*.d/%s' % (DIR, NAME)
HEAD = ('# Managed by Ansible (iotune.storage): resource limits of the database service (docs/profiles.md, "Limits").\n'
        '# systemd applies them to the process it starts next: restart the service to use them.\n[Service]\n')

# The Limit*= settings of systemd.exec(5) whose value is a plain number of the limit's base unit (count, bytes,
# seconds for LimitCPU, microseconds for LimitRTTIME) or infinity, as systemctl show reports them. LimitNICE is left
# out: systemd reads a signed number there as a nice level and reports another number (set it in a drop-in of your own).
NAMES = ('LimitAS', 'LimitCORE', 'LimitCPU', 'LimitDATA', 'LimitFSIZE', 'LimitLOCKS', 'LimitMEMLOCK', 'LimitMSGQUEUE',
         'LimitNOFILE', 'LimitNPROC', 'LimitRSS', 'LimitRTPRIO', 'LimitRTTIME', 'LimitSIGPENDING', 'LimitSTACK')
INFINITY = 'infinity'
# systemctl show prints RLIM_INFINITY as infinity; a kernel's rlim_t maximum reads back as this number on some versions
RLIM_INFINITY = str(2 ** 64 - 1)
NUMBER_RE = re.compile(r'(?:0|[1-9][0-9]{0,19})')
LOAD_STATE = 'LoadState'


class LimitsError(ValueError):
    pass


def _one(value):
    """One side of a value as systemd reads it back ('infinity' or digits), None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value) if value >= 0 else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text.lower() in (INFINITY, 'unlimited'):
        return INFINITY
    return text if NUMBER_RE.fullmatch(text) and int(text) < 2 ** 64 else None


def _bigger(soft, hard):
    if hard == INFINITY:
        return False
    return soft == INFINITY or int(soft) > int(hard)


def value_problem(name, value):
    """Why ``value`` is no value of the setting ``name`` (None: it is one)."""
    if name not in NAMES:
        extra = ' (LimitNICE takes nice levels: set it in a drop-in of your own)' if name == 'LimitNICE' else ''
        return '%s is not a resource limit this collection sets%s%s (known: %s)' % (
            name, did_you_mean(str(name), list(NAMES)), extra, ', '.join(NAMES))
    if normalise(value) is None:
        return ('%s: %r is not a limit: give a whole number (in the base unit: bytes, seconds, no suffix such as 1G), '
                'infinity, or soft:hard of those, as systemd.exec(5) takes it' % (name, value))
    soft, hard = split(normalise(value))
    if _bigger(soft, hard):
        return '%s: the soft limit %s is above the hard limit %s' % (name, soft, hard)
    return None


def normalise(value):
    """The value as the drop-in writes it and systemd reads it back: ``N``, ``infinity`` or ``soft:hard`` (the same
    two written once); None when it is not a value."""
    if isinstance(value, str) and ':' in value:
        parts = value.split(':')
        if len(parts) != 2:
            return None
        soft, hard = _one(parts[0]), _one(parts[1])
        if soft is None or hard is None:
            return None
        return soft if soft == hard else '%s:%s' % (soft, hard)
    return _one(value)


def split(value):
    """(soft, hard) of a normalised value."""
    soft, dummy, hard = value.partition(':')
    return soft, hard or soft


def validate(limits, where):
    """({name: normalised value}, [problems]) of a profile's ``limits`` ({name: value}; a null value is no setting)."""
    if limits is None:
        return {}, []
    if not isinstance(limits, dict):
        return {}, ['%s must be a dict of Limit*= settings such as {LimitNOFILE: 100000}, got %r' % (where, limits)]
    out, problems = {}, []
    for name, value in sorted(limits.items(), key=lambda kv: str(kv[0])):
        if value is None:
            continue
        problem = value_problem(name, value)
        if problem:
            problems.append('%s: %s' % (where, problem))
        else:
            out[name] = normalise(value)
    return out, problems


# ---------------------------------------------------------------------------------------------
# the drop-ins


def path(unit):
    """The drop-in of ``unit`` (a full unit name such as cassandra.service)."""
    return '%s/%s.d/%s' % (DIR, unit, NAME)


def unit_of(dropin):
    """The unit whose drop-in ``dropin`` is (None when it is not a limits drop-in of this collection)."""
    prefix, suffix = DIR + '/', '.d/' + NAME
    if not (isinstance(dropin, str) and dropin.startswith(prefix) and dropin.endswith(suffix)):
        return None
    unit = dropin[len(prefix):-len(suffix)]
    return unit if unit and '/' not in unit else None


def text(limits):
    """The drop-in's text for the settings ``limits`` ({name: normalised value}), in the order of NAMES."""
    return HEAD + ''.join('%s=%s\n' % (name, limits[name]) for name in NAMES if name in limits)


def files(by_unit):
    """[{path, content}]: the drop-in of each unit of ``by_unit`` ({unit: {name: value}}) that has a setting."""
    return [{'path': path(unit), 'content': text(by_unit[unit])} for unit in sorted(by_unit) if by_unit[unit]]


def settings_in(content):
    """{name: value} the ``[Service]`` lines of a drop-in's text set (the last line of a name wins, as in systemd)."""
    found, section = {}, None
    for raw in (content or '').splitlines():
        line = raw.strip()
        if not line or line[0] in '#;':
            continue
        if line.startswith('[') and line.endswith(']'):
            section = line[1:-1]
            continue
        key, sep, value = line.partition('=')
        if sep and section == 'Service' and key.strip().startswith('Limit'):
            found[key.strip()] = value.strip()
    return found


# ---------------------------------------------------------------------------------------------
# what systemd reports


def show_properties(names):
    """The systemctl show properties of ``names``: each limit and its soft value (NAMESoft), and LoadState."""
    props = [LOAD_STATE]
    for name in names:
        props += [name, name + 'Soft']
    return props


def show_argv(by_unit):
    """``systemctl show`` of every limit planned for a unit of ``by_unit``, one block per unit (in sorted order)."""
    names = [n for n in NAMES if any(n in (by_unit[u] or {}) for u in by_unit)]
    return ['systemctl', 'show', '--property=%s' % ','.join(show_properties(names)), '--'] + sorted(by_unit)


def parse_show(out, units):
    """{unit: {property: value}} of ``systemctl show`` output for ``units`` (blocks separated by an empty line, in
    the order asked). LimitsError when the blocks do not match the units."""
    blocks = systemd_show.blocks(out)
    if len(blocks) != len(units):
        raise LimitsError('systemctl show returned %d block(s) for %d unit(s)' % (len(blocks), len(units)))
    return dict(zip(units, blocks))


def _shown(value):
    value = (value or '').strip()
    return INFINITY if value in (INFINITY, RLIM_INFINITY) else value


def live_problems(unit, limits, shown):
    """The problems of one unit's live limits: ``limits`` planned ({name: normalised value}), ``shown`` its block of
    systemctl show. A unit systemd does not know (not installed yet) has none: its drop-in applies once it is."""
    if (shown or {}).get(LOAD_STATE, 'loaded') == 'not-found':
        return []
    problems = []
    for name in NAMES:
        if name not in limits:
            continue
        soft, hard = split(limits[name])
        live_hard, live_soft = _shown(shown.get(name)), _shown(shown.get(name + 'Soft'))
        if (live_soft, live_hard) != (soft, hard):
            live = live_hard if live_soft == live_hard else '%s:%s' % (live_soft, live_hard)
            problems.append('%s: %s is %s for systemd, the plan says %s (a drop-in not loaded yet: systemctl '
                            'daemon-reload; or one that sorts after %s: systemctl cat %s)'
                            % (unit, name, live or 'not shown', limits[name], NAME, unit))
    return problems


def read_live(run_command, by_unit):
    """{'units': {unit: {property: value}}, 'error': None or why} with one systemctl show; nothing for no unit."""
    units = sorted(u for u in by_unit if by_unit[u])
    if not units:
        return {'units': {}, 'error': None}
    rc, out, err = run_command(show_argv(dict((u, by_unit[u]) for u in units)))
    if rc != 0:
        return {'units': {}, 'error': 'systemctl show failed (%s): %s' % (rc, (err or out or '').strip())}
    try:
        return {'units': parse_show(out, units), 'error': None}
    except LimitsError as e:
        return {'units': {}, 'error': str(e)}


def gather(read_text, run_command, by_unit):
    """What the audit compares: per unit of ``by_unit`` the drop-in's text as read (``read_text(path)``, None when
    missing) and, with ``run_command``, systemd's view ({'dropins', 'live', 'error'}); also the limits drop-ins of
    units the plan does not name are not looked for here (the xfs role removes them)."""
    dropins = dict((unit, read_text(path(unit))) for unit in sorted(by_unit) if by_unit[unit])
    live = read_live(run_command, by_unit) if run_command is not None else {'units': {}, 'error': None}
    return {'dropins': dropins, 'live': live['units'], 'error': live['error']}


def problems(by_unit, facts):
    """[(unit, message)]: per planned unit, its drop-in missing or different from what the xfs role writes, and each
    live limit that is not the plan's (``facts``: gather()'s)."""
    found = []
    facts = facts or {}
    for unit in sorted(by_unit):
        limits = by_unit[unit] or {}
        if not limits:
            continue
        content = (facts.get('dropins') or {}).get(unit)
        if content is None:
            found.append((unit, 'the limits drop-in %s is missing: the service starts with other limits' % path(unit)))
        elif content != text(limits):
            on_disk = settings_in(content)
            differ = ['%s=%s' % (name, on_disk.get(name, '(none)')) for name in NAMES
                      if (name in limits or name in on_disk) and on_disk.get(name) != limits.get(name)]
            found.append((unit, 'the limits drop-in %s differs from what tune writes (%s; the plan: %s)'
                          % (path(unit), ', '.join(differ) or 'comments or order',
                             ', '.join('%s=%s' % (n, limits[n]) for n in NAMES if n in limits))))
        shown = (facts.get('live') or {}).get(unit)
        if shown is not None:
            found.extend((unit, message) for message in live_problems(unit, limits, shown))
    return found
