# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The decisions of the packages, raid0 and kernel roles' tasks (issue 24), from their inputs and registered results:
which packages are missing and the argv of the package calls (filters packages_missing, package_argv), what the
raid0 role does after its mdadm_array calls (filter raid0_outcome), the kernel role's files and the steps after its
read (filters kernel_files, kernel_steps). The roles loop over and branch on these results; the values are those of
the Jinja they replace (tests/unit/roles/test_role_tasks_templar.py renders both)."""

from __future__ import annotations

import re

from ansible.plugins.filter.core import to_bool
from ansible.plugins.test.core import changed as changed_test
from ansible.plugins.test.core import skipped as skipped_test

from ansible_collections.iotune.storage.plugins.module_utils import dpkg
from ansible_collections.iotune.storage.plugins.plugin_utils import stages


class RoleTaskError(ValueError):
    pass


# --- packages: which are missing, and the calls -----------------------------------------------------------------
# apt-get as the packages role calls it: no recommended packages, dpkg's lock waited for, old config files kept
APT_INSTALL = ['apt-get', 'install', '--yes', '--quiet', '--no-install-recommends']
APT_KEEP_CONFIG = ['-o', 'DPkg::Lock::Timeout=60', '-o', 'Dpkg::Options::=--force-confdef',
                   '-o', 'Dpkg::Options::=--force-confold']
# the raid0 role's unpack: no triggers, nothing pending configured (its one initramfs rebuild comes later)
APT_NO_TRIGGERS = ['-o', 'DPkg::NoTriggers=true', '-o', 'DPkg::ConfigurePending=false']
UNPACKED_RE = re.compile(r'(?m)^Unpacking (\S+) \(')
ARGV_KINDS = ('query', 'install', 'unpack', 'configure')


def unique(values):
    """The values without repeats, in their first order (as Jinja's unique)."""
    out = []
    for value in values:
        if value not in out:
            out.append(value)
    return out


def packages_missing(names, dpkg_lines=None, read=None, read_of=None):
    """The names of ``names`` that are not installed (each once, in order), or None when not known.

    ``read``: what a caller found missing already (storage_preflight's packages_missing, None: it did not look).
    With ``read_of`` (the names that read covered), the answer is ``read``'s names among ``names``, or None when the
    read is None or ``names`` holds a name it did not cover; without it, ``read`` is the answer as it is.
    ``read`` None and no ``read_of``: dpkg.missing over ``dpkg_lines`` (dpkg-query's stdout_lines)."""
    if read_of is not None:
        if read is None or [n for n in names if n not in read_of]:
            return None
        return unique(n for n in read if n in names)
    if read is not None:
        return read
    return dpkg.missing(list(names), list(dpkg_lines or []))


def package_argv(value, kind):
    """The argv of one package call: ``query`` (dpkg-query of the names ``value``), ``install`` (apt-get install of
    ``value``), ``unpack`` (the same without triggers or configuring what is pending), ``configure`` (dpkg
    --configure --no-triggers of the packages apt-get's output ``value`` names as unpacked)."""
    if kind == 'query':
        return dpkg.query_argv(value)
    if kind == 'install':
        return APT_INSTALL + APT_KEEP_CONFIG + list(value)
    if kind == 'unpack':
        return APT_INSTALL + APT_NO_TRIGGERS + APT_KEEP_CONFIG + list(value)
    if kind == 'configure':
        return ['dpkg', '--configure', '--no-triggers'] + UNPACKED_RE.findall(value or '')
    raise RoleTaskError('unknown kind %r (one of %s)' % (kind, ', '.join(ARGV_KINDS)))


# --- raid0: after the mdadm_array calls -------------------------------------------------------------------------
def generators(results, found):
    """The initramfs generator the first array result names (initramfs-tools as its program, update-initramfs),
    else the base names of the programs the role's find found (``found``: its files)."""
    if results:
        named = [r.get('initramfs_generator') for r in results[:1]]
        return [g.replace('initramfs-tools', 'update-initramfs') for g in named if g]
    return [f['path'].rsplit('/', 1)[-1] for f in found]


def _initramfs_results(results):
    """The results of the arrays the initramfs assembles: not an ephemeral one (its boot unit assembles or re-creates
    it in the real root, docs/ephemeral.md; an array given without ``ephemeral`` is not one)."""
    return [r for r in results if (r.get('item') or {}).get('ephemeral') is not True]


def conf_changed(results):
    """Whether a call changed an ARRAY line in mdadm.conf, leaving out ephemeral arrays (their boot unit assembles
    or re-creates them in the real root, docs/ephemeral.md)."""
    return any(r.get('conf_changed') for r in _initramfs_results(results))


def rebuild_pending(results):
    """Whether a call reports an initramfs rebuild owed by an earlier run (its rebuild marker is still there: the run
    that changed mdadm.conf crashed or stopped before its rebuild finished); ephemeral arrays carry no marker."""
    return any(r.get('rebuild_pending') for r in _initramfs_results(results))


def raid0_outcome(module, found=None, deferred=None, update_initramfs=True, check_mode=False, owed=False):
    """What the raid0 role does after its calls, from ``module`` (raid0_module: the calls' results, or the
    preflight's on a skip), the find of the generators (``found``), the registered deferred configure
    (``deferred``) and the role's options: {deferred, rebuild, find_generator, generators, argv, settle, by_name}.
    ``owed``: a rebuild owed by a change of mdadm.conf outside the role's calls (the tune role's retire_array)."""
    results = module.get('results')
    if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
        raise RoleTaskError('the results of the mdadm_array calls must be a list of dicts, got %r' % (results,))
    is_deferred = bool(changed_test(deferred or {}))
    rebuild = not check_mode and (is_deferred or (to_bool(update_initramfs) and (conf_changed(results)
                                                                                 or rebuild_pending(results)
                                                                                 or to_bool(owed))))
    names = generators(results, found or [])
    # after a deferred install, dpkg's pending update-initramfs trigger is the rebuild; when an earlier run's dpkg was
    # stopped (a crash during the trigger leaves initramfs-tools half-configured) the rebuild is finishing that dpkg
    # work, which builds once; any later dpkg run would otherwise build again (module_utils/initramfs.py)
    if is_deferred:
        argv = ['dpkg', '--triggers-only', '--pending']
    elif any(r.get('initramfs_dpkg_pending') for r in results):       # dpkg's state is the host's: any call's
        argv = ['dpkg', '--configure', '--pending']
    else:
        argv = ['update-initramfs', '-u'] if 'update-initramfs' in names else ['dracut', '-f']
    return {'deferred': is_deferred, 'rebuild': rebuild, 'find_generator': rebuild and not results,
            'generators': names, 'argv': argv,
            'settle': not check_mode and any(r.get('stopped') for r in results),
            'by_name': dict(((r.get('item') or {}).get('name'), r) for r in results)}


# --- kernel: the files and the steps after the read --------------------------------------------------------------
def kernel_files(sysctl, thp, sysctl_file, thp_unit_path, sysctl_text, thp_text, cpu_clock=None, cpu_unit_path=None,
                 cpu_text=None):
    """The config_files entries of the kernel role: the sysctl file (absent without sysctls), with THP values the THP
    unit, and with a CPU governor or clocksource (``cpu_clock``) their unit (``*_text``: the rendered templates)."""
    files = [{'path': sysctl_file, 'state': 'present' if sysctl else 'absent', 'content': sysctl_text}]
    if thp:
        files.append({'path': thp_unit_path, 'content': thp_text})
    if cpu_clock:
        files.append({'path': cpu_unit_path, 'content': cpu_text})
    return files


def _thp_unit_found(thp_unit_path, found_files, thp_old):
    """Is the THP unit file there: in the caller's read (``found_files``), else the role's stat (``thp_old``)."""
    if found_files is None:
        return bool(((thp_old or {}).get('stat') or {}).get('exists'))
    return thp_unit_path in [f.get('path') for f in found_files]


# the drift lines of the CPU governor and the clocksource (module_utils/kernel_settings.py), set by their own unit
CPU_CLOCK_DRIFT = '^(cpu_governor|clocksource): '


def _cpu_clock_steps(before, options, changed_paths, found_files, cpu_old, check_mode):
    """The steps of the CPU governor and clocksource unit (as those of the THP unit): enable, run it now when it was
    written or a live value differs, look for and remove an earlier one when neither is set."""
    cpu_clock, path = options.get('cpu_clock') or {}, options.get('cpu_unit_path')
    written = bool(path) and path in changed_paths
    drift = any(re.match(CPU_CLOCK_DRIFT, d) for d in before.get('drift') or [])
    steps = {'cpu_written': written,
             'cpu_unit': (bool(cpu_clock) and not (check_mode and written)
                          and (written or drift or not before.get('cpu_unit_enabled', False))),
             'look_old_cpu_unit': not cpu_clock and bool(path) and found_files is None,
             'remove_old_cpu_unit': not cpu_clock and bool(path) and _thp_unit_found(path, found_files, cpu_old)}
    if written or drift:
        steps['cpu_state'] = 'restarted'
    return steps


# the kernel role's steps after its read that run a task (kernel_steps' ``act``)
ACT_STEPS = ('load_sysctl', 'thp_unit', 'look_old_unit', 'remove_old_unit', 'check', 'cpu_unit', 'look_old_cpu_unit',
             'remove_old_cpu_unit')


def kernel_steps(before, options, written=None, checked=None, found_files=None, thp_old=None, check_mode=False,
                 cpu_old=None):
    """The kernel role's steps after its read ``before`` (kernel_before: drift, conflicts, thp_unit_enabled) and the
    registered ``written`` (the file write), ``checked`` (the check after, None before it ran), ``thp_old`` and
    ``cpu_old`` (the stats of earlier units). ``options``: {sysctl, thp, sysctl_file, thp_unit_path, tuned_override},
    optionally cpu_clock and cpu_unit_path (the CPU governor and clocksource unit)."""
    drift = before.get('drift') or []
    changed_paths = (written or {}).get('changed_paths') or []
    thp_written = options['thp_unit_path'] in changed_paths
    thp_drift = any(re.match('^THP ', d) for d in drift)
    sysctl_drift = any(not re.match('^THP ', d) and not re.match(CPU_CLOCK_DRIFT, d) for d in drift)
    steps = {
        'load_sysctl': bool(options['sysctl']) and (options['sysctl_file'] in changed_paths or sysctl_drift),
        'thp_written': thp_written,
        'thp_unit': (bool(options['thp']) and not (check_mode and thp_written)
                     and (thp_written or thp_drift or not before.get('thp_unit_enabled', False))),
        'look_old_unit': not options['thp'] and found_files is None,
        'remove_old_unit': not options['thp'] and _thp_unit_found(options['thp_unit_path'], found_files, thp_old),
        'check': bool(changed_test(written or {})) or len(drift) > 0 or len(before.get('conflicts') or []) > 0,
        'mode': stages.tuned_mode(options['tuned_override'], 'kernel', check_mode=check_mode),
    }
    if thp_written or thp_drift:
        steps['thp_state'] = 'restarted'
    steps.update(_cpu_clock_steps(before, options, changed_paths, found_files, cpu_old, check_mode))
    # one daemon-reload when both unit files were written (a first run with THP and a CPU governor): the THP unit's
    # task, which runs first, reloads for both; the CPU unit's task reloads only when that one did not
    steps['thp_reload'] = bool(steps['thp_unit'] and (thp_written or (steps['cpu_written'] and steps['cpu_unit'])))
    steps['cpu_reload'] = bool(steps['cpu_written'] and not steps['thp_reload'])
    # any step after the read to take (the role's tasks/apply.yml is included only then, or when a file is written)
    steps['act'] = any(steps[k] for k in ACT_STEPS)
    results = before if checked is None or skipped_test(checked) else checked
    # with the tuned override, a tuned conflict is the override profile's to resolve
    resolved = 'tuned profile' if to_bool(options['tuned_override']) else '^$'
    steps['results'] = results
    steps['unresolved'] = [c for c in results.get('conflicts') or [] if not re.search(resolved, c)]
    return steps
