# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""State logic of the kernel_settings module: live vm.* sysctls and THP, and who else sets them.

Pure functions over a file tree rooted at ``root`` (``/`` on a host, a fake tree in unit tests):
``/proc/sys``, ``/sys/kernel/mm/transparent_hugepage``, the sysctl.d directories in the order
systemd-sysctl and ``sysctl --system`` apply them, tuned's active profile with its ``include=``
chain (read through module_utils/tuned.py), and ``/proc/cmdline``. Nothing here writes to the host except ``write_tuned_override``.
"""

from __future__ import annotations

import fnmatch
import os
import re

from ansible_collections.iotune.storage.plugins.module_utils.files import read_text
from ansible_collections.iotune.storage.plugins.module_utils.rules import CPU_CLOCK_KEYS, THP_KEYS
from ansible_collections.iotune.storage.plugins.module_utils.tuned import (
    normalise_name,
    normalise_value,
    tuned_active_profiles,
    tuned_differs,
    tuned_governor,
    tuned_reapply_sysctl,
    tuned_settings,
)

# Precedence of a file name found in several directories: the first directory wins (systemd-sysctl,
# sysctl.d(5)); all files are then applied in the order of their names.
SYSCTL_DIRS = ('etc/sysctl.d', 'run/sysctl.d', 'usr/local/lib/sysctl.d', 'usr/lib/sysctl.d', 'lib/sysctl.d')
# procps `sysctl --system` (and tuned's reapply) read /etc/sysctl.conf after all sysctl.d files;
# Debian and RHEL also link it as /etc/sysctl.d/99-sysctl.conf for systemd-sysctl at boot.
SYSCTL_CONF = 'etc/sysctl.conf'
THP_DIR = 'sys/kernel/mm/transparent_hugepage'
TUNED_OVERRIDE = 'iotune-storage-kernel'
# the CPU governor and clocksource (issue 27): one cpufreq directory per online CPU that has a cpufreq driver (a link to
# its policy), one clocksource device
CPU_DIR = 'sys/devices/system/cpu'
CLOCKSOURCE_DIR = 'sys/devices/system/clocksource/clocksource0'


class KernelSettingsError(Exception):
    """A problem the module reports with fail_json; ``data`` goes into the result."""

    def __init__(self, msg, **data):
        super(KernelSettingsError, self).__init__(msg)
        self.data = data


def _join(root, rel):
    return os.path.join(root, rel)


# ---------------------------------------------------------------------------------------------
# live values


def read_sysctl(root, name):
    """The live value of a sysctl (whitespace collapsed) or None when the kernel has no such key."""
    text = read_text(_join(root, os.path.join('proc/sys', *normalise_name(name).split('.'))))
    return None if text is None else normalise_value(text)


def parse_thp_choice(text):
    """'always madvise [never]' -> 'never'; a plain number (max_ptes_none) is returned as is."""
    if text is None:
        return None
    m = re.search(r'\[([^\]]+)\]', text)
    return m.group(1) if m else normalise_value(text)


def read_thp(root):
    """{'enabled', 'defrag', 'khugepaged_max_ptes_none'}: live values, None where the kernel has none."""
    base = _join(root, THP_DIR)
    return {'enabled': parse_thp_choice(read_text(os.path.join(base, 'enabled'))),
            'defrag': parse_thp_choice(read_text(os.path.join(base, 'defrag'))),
            'khugepaged_max_ptes_none': parse_thp_choice(read_text(os.path.join(base, 'khugepaged', 'max_ptes_none')))}


def cmdline_thp(root):
    """The transparent_hugepage= value of the kernel command line, or None."""
    text = read_text(_join(root, 'proc/cmdline')) or ''
    for word in text.split():
        if word.startswith('transparent_hugepage='):
            return word.split('=', 1)[1]
    return None


def _cpu_number(name):
    return int(name[3:]) if re.fullmatch(r'cpu[0-9]+', name) else None


def read_governors(root):
    """{cpuN: {'governor', 'available'}} of every CPU with a cpufreq directory, in CPU order ({} without cpufreq: a
    VM without a cpufreq driver, such as the lab's). ``available`` is scaling_available_governors as a list."""
    base = _join(root, CPU_DIR)
    try:
        names = sorted((n for n in os.listdir(base) if _cpu_number(n) is not None), key=_cpu_number)
    except OSError:
        return {}
    out = {}
    for name in names:
        governor = read_text(os.path.join(base, name, 'cpufreq', 'scaling_governor'))
        if governor is None:
            continue
        available = read_text(os.path.join(base, name, 'cpufreq', 'scaling_available_governors'))
        out[name] = {'governor': normalise_value(governor), 'available': (available or '').split()}
    return out


def read_clocksource(root):
    """{'current', 'available'} of the clocksource device (None and [] where the kernel has none)."""
    base = _join(root, CLOCKSOURCE_DIR)
    current = read_text(os.path.join(base, 'current_clocksource'))
    available = read_text(os.path.join(base, 'available_clocksource'))
    return {'current': None if current is None else normalise_value(current), 'available': (available or '').split()}


def read_cpu_clock(root):
    """The live CPU governor per CPU and the clocksource: {'cpu_governor': {cpuN: governor}, 'clocksource': name or
    None} (what original_state records)."""
    return {'cpu_governor': dict((cpu, v['governor']) for cpu, v in read_governors(root).items()),
            'clocksource': read_clocksource(root)['current']}


def not_offered_note(key, wanted, why):
    """The note of a setting this host does not offer (the run skips it; the audit does not count it as drift)."""
    return '%s %s: not offered by this host (%s); skipped' % (key, wanted, why)


# ---------------------------------------------------------------------------------------------
# sysctl.d


def parse_sysctl_text(text):
    """[(name, value, line number)] of a sysctl.d file; '-' prefixes (ignore errors) are dropped."""
    out = []
    for number, line in enumerate((text or '').splitlines(), 1):
        line = line.strip()
        if not line or line[0] in '#;' or '=' not in line:
            continue
        name, value = line.split('=', 1)
        name = normalise_name(name.strip().lstrip('-'))
        if name:
            out.append((name, normalise_value(value), number))
    return out


def sysctl_files(root, managed=None):
    """The sysctl files in the order they are applied, as absolute host paths.

    ``managed`` (a host path such as /etc/sysctl.d/90-iotune-storage.conf) is placed where it sorts
    even when it does not exist yet (check mode). A file masked by a link to /dev/null is skipped.
    """
    chosen = {}
    for rel in SYSCTL_DIRS:
        directory = _join(root, rel)
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            if name.endswith('.conf') and name not in chosen:
                chosen[name] = '/' + rel + '/' + name
    if managed and os.path.basename(managed) not in chosen:
        chosen[os.path.basename(managed)] = managed
    ordered = [chosen[name] for name in sorted(chosen)]
    real = set()
    files = []
    for path in ordered:
        target = os.path.realpath(_join(root, path.lstrip('/')))
        if target == '/dev/null' or os.path.realpath(_join(root, 'dev/null')) == target:
            continue
        real.add(target)
        files.append(path)
    conf = _join(root, SYSCTL_CONF)
    if os.path.exists(conf) and os.path.realpath(conf) not in real:
        files.append('/' + SYSCTL_CONF)
    return files


def sysctl_setters(root, name, files):
    """[{'file', 'line', 'value'}] of every line in ``files`` that sets ``name`` (globs included)."""
    out = []
    for path in files:
        for key, value, number in parse_sysctl_text(read_text(_join(root, path.lstrip('/')))):
            if key == name or ('*' in key and fnmatch.fnmatchcase(name, key)):
                out.append({'file': path, 'line': number, 'value': value})
    return out


# ---------------------------------------------------------------------------------------------
# the check


def check(root, sysctl, thp, managed_file, cpu_clock=None):
    """Compare the wanted settings with the host; returns the report dict (see the module's RETURN).

    ``conflicts``: another source sets a different value and would win (later sysctl file, tuned);
    ``drift``: the live value differs and nothing configured explains it; ``notes``: sources that set
    a different value but lose (earlier files, tuned [sysctl] re-overridden by the sysctl files,
    the kernel command line that the THP unit overrides at boot). ``cpu_clock`` ({cpu_governor, clocksource}) adds
    ``cpu_clock`` and ``not_offered``: a setting the host does not offer is a note, neither drift nor a conflict.
    """
    files = sysctl_files(root, managed_file)
    profiles = tuned_active_profiles(root)
    tuned = tuned_settings(root, profiles) if profiles else {}
    reapply = tuned_reapply_sysctl(root)
    report = {'sysctl': {}, 'thp': {}, 'conflicts': [], 'drift': [], 'notes': [],
              'tuned': {'profiles': profiles, 'reapply_sysctl': reapply,
                        'running': os.path.exists(_join(root, 'run/tuned/tuned.pid')), 'conflicts': {}},
              'sysctl_files': files, 'cmdline_thp': cmdline_thp(root)}
    for name, wanted in sorted(sysctl.items()):
        _check_sysctl(root, report, name, normalise_value(wanted), managed_file, tuned)
    _check_thp(root, report, thp, tuned)
    if cpu_clock:
        _check_cpu_clock(root, report, cpu_clock, tuned)
    return report


def _check_sysctl(root, report, name, wanted, managed_file, tuned):
    """One sysctl into ``report``: its live value, who sets it (files after ours, tuned) and what wins."""
    files = report['sysctl_files']
    position = files.index(managed_file) if managed_file in files else -1
    live = read_sysctl(root, name)
    entry = {'wanted': wanted, 'live': live, 'sources': []}
    report['sysctl'][name] = entry
    if live is None:
        report['conflicts'].append('%s: the kernel has no /proc/sys/%s' % (name, name.replace('.', '/')))
        return
    setters = sysctl_setters(root, name, files)
    entry['sources'] = setters
    later = [s for s in setters if position >= 0 and files.index(s['file']) > position and s['value'] != wanted]
    for s in later:
        report['conflicts'].append('%s: %s line %d sets %s, and it is applied after %s (wanted %s)'
                                   % (name, s['file'], s['line'], s['value'], managed_file, wanted))
    tuned_value = tuned.get(('sysctl', name))
    differs = None if tuned_value is None else tuned_differs(tuned_value[0], wanted)
    if tuned_value is not None and differs is None:
        report['notes'].append('%s: tuned profile %r [%s] sets %s=%s (a tuned variable, not evaluated here)'
                               % (name, tuned_value[1], tuned_value[2], name, tuned_value[0]))
    elif differs:
        how = 'tuned profile %r [%s] sets %s=%s' % (tuned_value[1], tuned_value[2], name, tuned_value[0])
        # tuned's [sysctl] unit re-applies the system sysctl files after its own values (reapply_sysctl)
        # (managed_file carries every wanted key: the role writes it before this check)
        if report['tuned']['reapply_sysctl'] and tuned_value[3] == 'sysctl' and not later:
            report['notes'].append('%s: %s, but tuned applies the sysctl files again afterwards '
                                   '(reapply_sysctl=1), so %s wins' % (name, how, managed_file))
        else:
            report['conflicts'].append('%s: %s (wanted %s)' % (name, how, wanted))
            report['tuned']['conflicts'][name] = wanted
    if live != wanted and not later and name not in report['tuned']['conflicts']:
        report['drift'].append('%s: live %s, wanted %s' % (name, live, wanted))


def _check_thp(root, report, thp, tuned):
    """The transparent huge page settings into ``report`` (tuned's [vm] unit wins; the command line loses)."""
    live_thp = read_thp(root)
    boot = report['cmdline_thp']
    for key in THP_KEYS:
        if thp.get(key) is None:
            continue
        wanted = normalise_value(thp[key])
        live = live_thp.get(key)
        report['thp'][key] = {'wanted': wanted, 'live': live}
        if live is None:
            report['conflicts'].append('THP %s: the kernel has no %s' % (key, THP_DIR))
            continue
        tuned_value = tuned.get(('thp', key))
        if tuned_value is not None and tuned_differs(tuned_value[0], wanted):
            report['conflicts'].append('THP %s: tuned profile %r [%s] sets %s (wanted %s)'
                                       % (key, tuned_value[1], tuned_value[2], tuned_value[0], wanted))
            report['tuned']['conflicts']['thp.' + key] = wanted
        elif live != wanted:
            report['drift'].append('THP %s: live %s, wanted %s' % (key, live, wanted))
        if key == 'enabled' and boot is not None and boot != wanted:
            report['notes'].append('THP enabled: the kernel command line sets transparent_hugepage=%s; the THP unit '
                                   'sets %s after boot' % (boot, wanted))


def _check_cpu_clock(root, report, cpu_clock, tuned):
    """The CPU governor and the clocksource into ``report['cpu_clock']``: {key: {wanted, live, offered}}; a live value
    that differs is drift, a value the host does not offer is in ``not_offered`` and a note. A governor the active
    tuned profile's [cpu] unit sets instead is a conflict (tuned applies it whenever it starts), as for THP."""
    report['cpu_clock'], report['not_offered'] = {}, []
    for key in CPU_CLOCK_KEYS:
        wanted = cpu_clock.get(key)
        if wanted is None:
            continue
        wanted = normalise_value(wanted)
        if key == 'cpu_governor':
            cpus = read_governors(root)
            live = dict((cpu, v['governor']) for cpu, v in cpus.items())
            lacking = [cpu for cpu, v in cpus.items() if wanted not in v['available']]
            why = ('no /%s/cpu*/cpufreq: no cpufreq driver' % CPU_DIR if not cpus else
                   '%s not in scaling_available_governors of %s' % (wanted, ', '.join(lacking)) if lacking else None)
            differs = sorted((cpu for cpu, governor in live.items() if governor != wanted), key=_cpu_number)
            shown = ', '.join('%s %s' % (cpu, live[cpu]) for cpu in differs)
        else:
            clock = read_clocksource(root)
            live = clock['current']
            why = ('no /%s' % CLOCKSOURCE_DIR if live is None else
                   '%s not in available_clocksource: %s' % (wanted, ' '.join(clock['available']) or 'none')
                   if wanted not in clock['available'] and wanted != live else None)
            differs = [] if live == wanted else [live]
            shown = live
        report['cpu_clock'][key] = {'wanted': wanted, 'live': live, 'offered': why is None}
        if why is not None:
            report['not_offered'].append(key)
            report['notes'].append(not_offered_note(key, wanted, why))
            continue
        if key == 'cpu_governor' and _tuned_governor_conflict(report, tuned.get(('cpu', 'governor')), cpus, wanted):
            continue
        if differs:
            report['drift'].append('%s: live %s, wanted %s' % (key, shown, wanted))


def _tuned_governor_conflict(report, tuned_value, cpus, wanted):
    """Is the governor tuned's [cpu] unit (``tuned_value``, from tuned_settings) sets on ``cpus`` not ``wanted``? Then
    a conflict in ``report`` (and the key the tuned override profile sets); a tuned variable is a note."""
    if tuned_value is None:
        return False
    value, profile, section = tuned_value[0], tuned_value[1], tuned_value[2]
    if '${' in value:
        report['notes'].append('cpu_governor: tuned profile %r [%s] sets governor=%s (a tuned variable, not evaluated '
                               'here)' % (profile, section, value))
        return False
    chosen = sorted(set(tuned_governor(value, v['available']) for v in cpus.values()) - set([None]))
    if not chosen or chosen == [wanted]:
        return False
    report['conflicts'].append('cpu_governor: tuned profile %r [%s] sets governor=%s (%s on this host; wanted %s)'
                               % (profile, section, value, ', '.join(chosen), wanted))
    report['tuned']['conflicts']['cpu.governor'] = wanted
    return True


def problems(report):
    """What keeps the wanted settings of a check() ``report`` from being in force: its drift, then its conflicts ([]
    when they are). The one rule of "the kernel settings are as planned": kernel_settings (it fails on them, or
    reports them), the preflight's stage check and the audit (module_utils/drift.py)."""
    return list(report.get('drift') or []) + list(report.get('conflicts') or [])


def tuned_override_conflicts(report):
    """{('sysctl'|'thp'|'cpu', key): value} of the tuned conflicts, for render_tuned_override."""
    out = {}
    for key, wanted in report['tuned']['conflicts'].items():
        if key.startswith('thp.'):
            out[('thp', key[4:])] = wanted
        elif key.startswith('cpu.'):
            out[('cpu', key[4:])] = wanted
        else:
            out[('sysctl', key)] = wanted
    return out
