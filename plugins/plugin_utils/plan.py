# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The tune plan: every user input validated in one place, on the controller, before the host changes.

``build_plan()`` takes the profile file's data, ``iotune_profile_overrides`` and ``iotune_arrays`` and
returns the inputs of every role (raid0, xfs, block_tuning, fio_verify) plus the list the host-side
preflight (module ``storage_preflight``) checks. Every problem is collected and raised together in
one ``PlanError`` whose message names the array and the key. Nothing is coerced silently: a string
where a number belongs, ``chunk_kb: 0``, an unknown key (a typo) are errors, not defaults.

What only the host can tell (device aliases, sizes, signatures, data, usage, mount point contents,
fstab) is checked by the preflight module, from the plan made here.
"""

from __future__ import annotations

import copy
import difflib
import posixpath
import re

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.iotune.storage.plugins.module_utils import cloud
from ansible_collections.iotune.storage.plugins.module_utils import fio as fio_job
from ansible_collections.iotune.storage.plugins.module_utils import mount_holds
from ansible_collections.iotune.storage.plugins.module_utils import retire as retire_utils
from ansible_collections.iotune.storage.plugins.module_utils import service_limits
from ansible_collections.iotune.storage.plugins.module_utils.fio_report import FioReportError
from ansible_collections.iotune.storage.plugins.module_utils.io_observe import is_unit_name
from ansible_collections.iotune.storage.plugins.module_utils.rules import (
    ARRAY_QUEUE_KEYS,
    CPU_CLOCK_KEYS,
    DEVICE_CLASSES,
    MKFS_KEYS,
    QUEUE_CLASSES,
    QUEUE_KEYS,
    READ_AHEAD_MAX_KB,
    SYSCTL_DATABASE,
    SYSCTL_EXCLUSIVE,
    SYSCTL_RANGES,
    THP_CHOICES,
    THP_MAX_PTES_NONE,
    XFS_LABEL_MAX,
    XFS_MAX_SWIDTH_BYTES,
    cpu_clock_problem,
    did_you_mean,
    discard_policy_problems,
    mkfs_problems,
    mount_option_problem,
    mount_option_set_problems,
    queue_class_problem,
    queue_value_problem,
    scheduler_problem,
    sysctl_action,
    sysctl_name,
    valid_chunk_kb,
    valid_md_name,
    valid_read_ahead_kb,
    valid_xfs_label,
)

# Every key a profile (after iotune_profile_overrides) may carry; dicts are nested schemas.
PROFILE_SCHEMA = {
    'description': None,
    'raid_chunk_kb': None,
    'array': {'read_ahead_kb': None, 'queue': dict.fromkeys(ARRAY_QUEUE_KEYS)},
    'members': {'read_ahead_kb': None, 'scheduler_by_class': None,
                'queue_by_class': dict((cls, dict.fromkeys(QUEUE_KEYS)) for cls in QUEUE_CLASSES)},
    'mount_options': None,
    # mkfs.xfs options and the discard policy per member class (rules.mkfs_problems, rules.discard_policy_problems;
    # docs/xfs.md "mkfs options" and "Discard")
    'mkfs': dict.fromkeys(MKFS_KEYS),
    'discard_by_class': dict.fromkeys(QUEUE_CLASSES),
    'services': None,
    # Limit*= of the services' limits drop-ins (module_utils/service_limits.py; docs/profiles.md "Limits")
    'limits': dict.fromkeys(service_limits.NAMES),
    'fio_verify_jobs': None,
    'fio_verify_thresholds': None,
    # kernel settings (validate_kernel below; docs/profiles.md "Kernel settings")
    'kernel': {'thp': {'enabled': None, 'defrag': None, 'khugepaged_max_ptes_none': None},
               'sysctl': None, 'extra_sysctl': None, 'by_mongodb_version': None,
               # host settings beside the storage ones (_kernel_cpu_clock; docs/profiles.md "CPU governor and clocksource")
               'cpu_governor': None, 'clocksource': None},
}
# Keys that must have a value (custom leaves them null for the user to fill).
PROFILE_REQUIRED = ('raid_chunk_kb', 'array.read_ahead_kb', 'members.read_ahead_kb',
                    'members.scheduler_by_class', 'mount_options', 'fio_verify_jobs',
                    'fio_verify_thresholds')

ARRAY_KEYS = ('name', 'devices', 'chunk_kb', 'mountpoint', 'mount_options', 'label', 'wipe_devices',
              'allow_shared_disk', 'allow_single_device', 'allow_nonempty_mountpoint', 'owner',
              'group', 'mode', 'services', 'ephemeral', 'move_from', 'write_cache')
ARRAY_REQUIRED = ('name', 'devices', 'mountpoint')

OWNER_RE = re.compile(r'[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}\$?')
MODE_RE = re.compile(r'0?[0-7]{3}')
OTHER_UNIT_TYPES = ('socket', 'target', 'mount', 'automount', 'timer', 'path', 'slice', 'scope', 'swap', 'device')
# Directories of the operating system: mounting an array there hides what the system needs.
SYSTEM_DIRECTORIES = frozenset([
    '/', '/bin', '/boot', '/boot/efi', '/dev', '/etc', '/home', '/lib', '/lib32', '/lib64', '/libx32',
    '/media', '/mnt', '/opt', '/proc', '/root', '/run', '/sbin', '/srv', '/sys', '/tmp', '/usr',
    '/usr/bin', '/usr/lib', '/usr/local', '/usr/sbin', '/usr/share', '/var', '/var/cache', '/var/lib',
    '/var/log', '/var/spool', '/var/tmp', '/var/mail', '/var/backups', '/var/opt',
])


# kernel (virtual) filesystems: nothing below them is a place for a data array
KERNEL_FILESYSTEMS = ('/proc', '/sys', '/dev', '/run')


class PlanError(Exception):
    """One or more problems in the user's variables; the message lists every one."""

    def __init__(self, problems):
        self.problems = list(problems)
        super(PlanError, self).__init__('; '.join(self.problems))


# ---------------------------------------------------------------------------------------------
# Values


def strict_int(value, what, minimum=0):
    """An integer (or a string of digits) >= minimum; raises ValueError naming ``what`` otherwise.

    Booleans, floats and strings such as '16k' are refused: nothing is coerced silently.
    """
    if isinstance(value, bool) or value is None:
        raise ValueError('%s must be an integer, got %r' % (what, value))
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and re.fullmatch(r'[0-9]+', value.strip()):
        number = int(value.strip())
    else:
        raise ValueError('%s must be a whole number of KiB, got %r' % (what, value))
    if number < minimum:
        raise ValueError('%s must be >= %d, got %d' % (what, minimum, number))
    return number


def chunk_kb(value, what):
    """A RAID chunk in KiB: a power of two >= 4."""
    number = strict_int(value, what, minimum=4)
    if not valid_chunk_kb(number):
        raise ValueError('%s must be a power of two >= 4 KiB, got %d' % (what, number))
    return number


def normalise_mountpoint(value):
    """('/data/x', None) or (None, reason). Collapses //, /./ and a trailing slash; refuses .., $ and ~."""
    if not isinstance(value, str) or not value.startswith('/'):
        return None, 'must be an absolute path, got %r' % (value,)
    if any(c in value for c in '\n\t\0') or ' ' in value:
        return None, 'must not contain white space or control characters, got %r' % (value,)
    # the modules' path options expand ~ and $VARS on the host: the path checked here must be the one used there
    if '$' in value or '~' in value:
        return None, 'must be a literal path without $ or ~ (a module would expand them on the host), got %r' % (value,)
    if '..' in value.split('/'):
        return None, 'must not contain .. (write the path it means), got %r' % (value,)
    path = posixpath.normpath('/' + value.lstrip('/'))
    kernel_fs = next((top for top in KERNEL_FILESYSTEMS if path.startswith(top + '/')), None)
    if kernel_fs:
        return None, ('%s is below %s, a filesystem of the kernel; an array cannot be mounted there' % (path, kernel_fs))
    if path in SYSTEM_DIRECTORIES:
        return None, ('%s is %s; mounting an array there would hide it'
                      % (path, 'the root directory' if path == '/' else 'a system directory'))
    return path, None


def string_list(value, what):
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ValueError('%s must be a list of strings, got %r' % (what, value))
    return list(value)


def member_text(member):
    """A member as the messages show it: the path, or the selector as ``key=value``."""
    return cloud.describe(member) if isinstance(member, dict) else member


def member_count(devices):
    """How many disks ``devices`` names, or None when a selector (instance_store without count) leaves it to the host."""
    total = 0
    for member in devices:
        if isinstance(member, dict) and not cloud.single(member):
            if member.get('count') is None:
                return None
            total += member['count']
        else:
            total += 1
    return total


def mount_options(value, what):
    options = string_list(value, what)
    problems = []
    for option in options:
        problem = mount_option_problem(option)
        if problem:
            problems.append('%s: %s' % (what, problem))
    if not problems:
        problems = ['%s: %s' % (what, problem) for problem in mount_option_set_problems(options)]
    if problems:
        raise ValueError('; '.join(problems))
    return options


def service_units(value, what):
    """Unit names; a name without a suffix is a .service."""
    units = []
    for name in string_list(value, what):
        if not is_unit_name(name):
            raise ValueError('%s: %r is not a systemd unit name' % (what, name))
        suffix = name.rsplit('.', 1)[-1] if '.' in name else ''
        if suffix in OTHER_UNIT_TYPES:
            raise ValueError('%s: %s is a .%s unit; name the services that use the mount point' % (what, name, suffix))
        units.append(name if suffix == 'service' else name + '.service')
    return units


# ---------------------------------------------------------------------------------------------
# Profile


def unknown_keys(data, schema, prefix=''):
    found = []
    for key, value in sorted(data.items(), key=lambda kv: str(kv[0])):
        dotted = prefix + str(key)
        if key not in schema:
            found.append(dotted)
        elif isinstance(schema[key], dict) and isinstance(value, dict):
            found.extend(unknown_keys(value, schema[key], dotted + '.'))
    return found


def schema_paths(schema, prefix=''):
    """Every dotted key of a schema (branches and leaves)."""
    paths = []
    for key, sub in schema.items():
        paths.append(prefix + key)
        if isinstance(sub, dict):
            paths.extend(schema_paths(sub, prefix + key + '.'))
    return paths


def merge(base, override):
    """Recursive dict merge (like Ansible's combine(recursive=True))."""
    result = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merge(result[key], value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def dotted_get(data, dotted):
    value = data
    for part in dotted.split('.'):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def validate_profile(name, data, overrides):
    """The profile after overrides, validated; raises PlanError."""
    problems = []
    if not isinstance(overrides, dict):
        raise PlanError(['iotune_profile_overrides must be a dict, got %r' % (overrides,)])
    typos = unknown_keys(overrides, PROFILE_SCHEMA)
    if typos:
        paths = schema_paths(PROFILE_SCHEMA)
        problems.append('iotune_profile_overrides: unknown key%s %s (known: %s)'
                        % ('s' if len(typos) > 1 else '', ', '.join(typo + did_you_mean(typo, paths) for typo in typos),
                           ', '.join(PROFILE_REQUIRED + ('services', 'limits', 'kernel', 'mkfs', 'discard_by_class'))))
    profile = merge(data or {}, overrides)
    if 'fio_verify_jobs' in overrides:
        # own jobs replace the profile's, and with them its thresholds, which name its jobs: only those given apply
        profile['fio_verify_thresholds'] = copy.deepcopy(overrides.get('fio_verify_thresholds', {}))
    where = "profile '%s'" % name
    missing = [k for k in PROFILE_REQUIRED if dotted_get(profile, k) is None]
    if missing:
        problems.append('%s: %s not set; give %s in iotune_profile_overrides (for example {array: {read_ahead_kb: 16}})'
                        % (where, ', '.join(missing), 'them' if len(missing) > 1 else 'it'))
        raise PlanError(problems)
    for key in ('array.read_ahead_kb', 'members.read_ahead_kb'):
        try:
            section, leaf = key.split('.')
            profile[section][leaf] = strict_int(profile[section][leaf], '%s: %s' % (where, key))
            if not valid_read_ahead_kb(profile[section][leaf]):
                # the same words as the tuning module's refusal ("readahead N KiB is out of range")
                raise ValueError('%s: %s must be at most %d KiB (1 GiB), got %d: readahead %d KiB is out of range; '
                                 'check the unit' % (where, key, READ_AHEAD_MAX_KB, profile[section][leaf],
                                                     profile[section][leaf]))
        except ValueError as e:
            problems.append(str(e))
    try:
        profile['raid_chunk_kb'] = chunk_kb(profile['raid_chunk_kb'], '%s: raid_chunk_kb' % where)
    except ValueError as e:
        problems.append(str(e))
    problems.extend(_scheduler_problems(profile['members']['scheduler_by_class'], where))
    problems.extend(_queue_problems(profile, where))
    for key, check in (('mount_options', mount_options), ('services', service_units)):
        if profile.get(key) is None and key == 'services':
            profile[key] = []
            continue
        try:
            profile[key] = check(profile[key], '%s: %s' % (where, key))
        except ValueError as e:
            problems.append(str(e))
    profile['limits'], found = service_limits.validate(profile.get('limits'), '%s: limits' % where)
    problems.extend(found)
    profile['mkfs'], found = mkfs_problems(profile.get('mkfs'), '%s: mkfs' % where)
    problems.extend(found)
    profile['discard_by_class'], found = discard_policy_problems(profile.get('discard_by_class'),
                                                                 '%s: discard_by_class' % where)
    problems.extend(found)
    problems.extend(fio_verify_problems(profile['fio_verify_jobs'], profile['fio_verify_thresholds'], where))
    if problems:
        raise PlanError(problems)
    return profile


def _scheduler_problems(classes, where):
    """members.scheduler_by_class: a scheduler name per known device class, not a legacy single-queue one (the rule
    udev_block_tuning applies, rules.scheduler_problem). Whether the devices offer it is checked on the host by
    udev_block_tuning's validation in the preflight."""
    if not isinstance(classes, dict):
        return ['%s: members.scheduler_by_class must be a dict keyed by %s' % (where, '/'.join(DEVICE_CLASSES))]
    problems = []
    for cls, sched in sorted(classes.items(), key=lambda kv: str(kv[0])):
        if cls not in DEVICE_CLASSES:
            problems.append('%s: members.scheduler_by_class: unknown device class %r (known: %s)'
                            % (where, cls, ', '.join(DEVICE_CLASSES)))
        elif not isinstance(sched, str) or not sched:
            problems.append('%s: members.scheduler_by_class.%s must be a scheduler name, got %r' % (where, cls, sched))
        elif scheduler_problem(sched):
            problems.append('%s: members.scheduler_by_class.%s: %s' % (where, cls, scheduler_problem(sched)))
    return problems


# ---------------------------------------------------------------------------------------------
# Queue settings of the profile (array.queue, members.queue_by_class) and an array's write_cache opt-in (issue 27);
# the values' rules are rules.queue_value_problem and queue_class_problem, which udev_block_tuning applies too


def _queue_settings(values, keys, what):
    """(validated {setting: value}, problems) of one dict of queue settings whose allowed keys are ``keys``."""
    if values is None:
        return {}, []
    if not isinstance(values, dict):
        return {}, ['%s must be a dict of queue settings (%s), got %r' % (what, ', '.join(keys), values)]
    out, problems = {}, []
    for key, value in sorted(values.items(), key=lambda kv: str(kv[0])):
        if key not in keys:
            problems.append('%s: unknown key %r%s (known: %s)' % (what, key, did_you_mean(key, keys), ', '.join(keys)))
            continue
        if value is None:
            continue
        problem = queue_value_problem(key, value)
        if problem:
            problems.append('%s: %s' % (what, problem))
        else:
            out[key] = value
    return out, problems


def _queue_problems(profile, where):
    """array.queue (the md array's queue: ARRAY_QUEUE_KEYS) and members.queue_by_class ({class: settings}), checked
    and normalised in ``profile`` (absent sections become {}); the problems found."""
    problems = []
    queue, found = _queue_settings(profile['array'].get('queue'), ARRAY_QUEUE_KEYS, '%s: array.queue' % where)
    problems.extend(found)
    profile['array']['queue'] = queue
    by_class = profile['members'].get('queue_by_class')
    out = {}
    if by_class is not None and not isinstance(by_class, dict):
        problems.append('%s: members.queue_by_class must be a dict keyed by %s' % (where, '/'.join(QUEUE_CLASSES)))
        by_class = {}
    for cls, values in sorted((by_class or {}).items(), key=lambda kv: str(kv[0])):
        what = '%s: members.queue_by_class.%s' % (where, cls)
        class_problem = queue_class_problem(cls, None)
        if class_problem:
            problems.append('%s: members.queue_by_class: %s' % (where, class_problem))
            continue
        settings, found = _queue_settings(values, QUEUE_KEYS, what)
        problems.extend(found)
        for key in sorted(settings):
            misplaced = queue_class_problem(cls, key)
            if misplaced:
                problems.append('%s: %s' % (what, misplaced))
                settings.pop(key)
        if settings:
            out[cls] = settings
    profile['members']['queue_by_class'] = out
    return problems


def _write_cache(value):
    """(an array's write_cache opt-in or None, problem or None)."""
    if value is None:
        return None, None
    problem = queue_value_problem('write_cache', value)
    if problem:
        return None, problem + ' (an explicit opt-in per array; docs/block_tuning.md warns about it)'
    return value, None


def fio_verify_problems(jobs, thresholds, where):
    """fio_verify_jobs (each as the fio module checks it, names unique) and fio_verify_thresholds keyed by them: the
    one check of a job set, for the plan and for the fio_verify role used without it (filter fio_verify_problems)."""
    if not isinstance(jobs, list) or not all(isinstance(j, dict) and isinstance(j.get('name'), str) for j in jobs):
        return ['%s: fio_verify_jobs must be a list of dicts with a name' % where]
    problems = []
    names = [j['name'] for j in jobs]
    for job in jobs:
        problems.extend(fio_job_problems(job, "%s: fio_verify_jobs '%s'" % (where, job['name'])))
    if len(names) != len(set(names)):
        problems.append('%s: fio_verify_jobs names are not unique: %s' % (where, ', '.join(names)))
    if not isinstance(thresholds, dict):
        problems.append('%s: fio_verify_thresholds must be a dict keyed by job name' % where)
    else:
        stray = sorted(set(thresholds) - set(names))
        if stray:
            problems.append('%s: fio_verify_thresholds for unknown jobs: %s (jobs: %s)'
                            % (where, ', '.join(stray), ', '.join(names)))
    return problems


# The keys of a fio_verify_jobs entry: the options of iotune.storage.fio that the fio_verify role passes from
# a job (roles/fio_verify/tasks/main.yml; a unit test keeps the two lists equal). The role sets the others.
FIO_VERIFY_JOB_KEYS = ('name', 'rw', 'bs', 'ioengine', 'iodepth', 'numjobs', 'direct', 'fadvise_hint', 'io_size',
                       'runtime', 'time_based', 'ramp_time', 'read_ahead_kb', 'extra')


def fio_job_problems(job, where):
    """A fio_verify_jobs entry checked the way the fio module will check it (its own argument spec and its
    check of ``extra``, which refuses filename, directory and every option the module sets itself)."""
    problems = ['%s: unknown key %r%s (known: %s)' % (where, key, did_you_mean(key, FIO_VERIFY_JOB_KEYS),
                                                      ', '.join(FIO_VERIFY_JOB_KEYS))
                for key in sorted(set(job) - set(FIO_VERIFY_JOB_KEYS), key=str)]
    spec = fio_job.argument_spec()
    given = dict((key, value) for key, value in job.items() if key in FIO_VERIFY_JOB_KEYS)
    checked = ArgumentSpecValidator(dict((key, spec[key]) for key in FIO_VERIFY_JOB_KEYS)).validate(given)
    problems.extend('%s: %s' % (where, message) for message in checked.error_messages)
    if not checked.error_messages:
        try:
            fio_job.check_extra(checked.validated_parameters['extra'] or {})
        except FioReportError as e:
            problems.append('%s: %s' % (where, e))
    return problems


# ---------------------------------------------------------------------------------------------
# Arrays


def _members(key, items, bad):
    """The members of list ``key`` (devices, wipe_devices, allow_shared_disk): /dev paths as given, member
    selectors normalised (module_utils/cloud.py); ``bad(message)`` is told about each item that is neither."""
    out = []
    for item in items:
        if cloud.is_selector(item):
            try:
                out.append(cloud.parse_selector(item))
            except cloud.SelectorError as e:
                bad('%s: %s' % (key, e))
        elif isinstance(item, str):
            out.append(item)
        else:
            bad('%s: %r is neither a /dev path nor a member selector such as {ebs_volume_id: vol-0123...}' % (key, item))
    return out


def _array_problems(index, entry, profile):
    """(normalised entry, problems) for one iotune_arrays entry: each part checked by its own function below,
    every problem of the entry collected."""
    problems = []
    if not isinstance(entry, dict):
        return None, ['iotune_arrays[%d] must be a dict, got %r' % (index, entry)]
    name = entry.get('name')
    where = "iotune_arrays entry '%s'" % name if isinstance(name, str) else 'iotune_arrays[%d]' % index

    def bad(msg):
        problems.append('%s: %s' % (where, msg))

    for key in sorted(set(entry) - set(ARRAY_KEYS), key=str):
        bad('unknown key %r%s (known: %s)' % (key, did_you_mean(key, ARRAY_KEYS), ', '.join(ARRAY_KEYS)))
    for key in ARRAY_REQUIRED:
        if entry.get(key) in (None, '', []):
            bad('%s is required' % key)
    if problems:
        return None, problems

    out = {'name': name}
    if not valid_md_name(name):
        bad('name %r must be 1-32 letters, digits, _ . - (and not . or ..)' % (name,))
    _array_members(entry, out, bad)
    _array_stripe(entry, out, bad, profile)
    _array_mount(entry, out, bad, profile)
    _array_ownership(entry, out, bad)
    _array_flags(entry, out, bad, profile)
    return out, problems


def _label_source(label, entries, arrays):
    """A label two arrays share, with the arrays; "derived" when one of them gave none (the label is then the
    first 12 characters of its name, a value the user never wrote)."""
    given = dict((a.get('name'), a.get('label')) for a in arrays if isinstance(a, dict))
    names = [e['name'] for e in entries if e.get('label') == label]
    derived = [n for n in names if given.get(n) is None]
    if not derived:
        return '%s (arrays %s)' % (label, ', '.join(names))
    return ('%s (arrays %s; derived from the first %d characters of the name of %s: give each array its own label)'
            % (label, ', '.join(names), XFS_LABEL_MAX, ', '.join(derived)))


def _array_members(entry, out, bad):
    """devices (paths or selectors, unique), allow_single_device, and wipe_devices/allow_shared_disk among them."""
    raw_devices = entry['devices']
    if not isinstance(raw_devices, (list, tuple)):
        bad('devices must be a list of strings (/dev paths) or member selectors, got %r' % (raw_devices,))
        raw_devices = []
    devices = _members('devices', raw_devices, bad)
    paths = [d for d in devices if isinstance(d, str)]
    not_dev = [d for d in paths if not d.startswith('/dev/') or '\n' in d]
    if not_dev:
        # quoted when it holds a blank or a control character, which would not show in the message
        bad('devices must be /dev paths: %s'
            % ', '.join(d if d.isprintable() and d == d.strip() else repr(d) for d in not_dev))
    shown = [member_text(d) for d in devices]
    if len(shown) != len(set(shown)):
        bad('devices are not unique: %s' % ', '.join(shown))
    single_ok = entry.get('allow_single_device', False)
    if not isinstance(single_ok, bool):
        bad('allow_single_device must be true or false, got %r' % (single_ok,))
    elif member_count(devices) == 1 and not single_ok:
        bad('a RAID0 of one device gives nothing but a layer to lose; list two or more devices, or set '
            'allow_single_device: true')
    out['devices'] = devices
    out['allow_single_device'] = single_ok is True
    for key in ('wipe_devices', 'allow_shared_disk'):
        raw = entry.get(key) or []
        if not isinstance(raw, (list, tuple)):
            bad('%s must be a list, got %r' % (key, raw))
            raw = []
        values = _members(key, raw, bad)
        stray = [member_text(v) for v in values if member_text(v) not in shown]
        if stray:
            bad('%s not in devices: %s (name each one exactly as in devices)' % (key, ', '.join(stray)))
        out[key] = values


def _array_stripe(entry, out, bad, profile):
    """chunk_kb (the profile's when not given), and a stripe width mkfs.xfs accepts."""
    chunk = entry.get('chunk_kb')
    try:
        out['chunk_kb'] = profile['raid_chunk_kb'] if chunk is None else chunk_kb(chunk, 'chunk_kb')
    except ValueError as e:
        bad(str(e))
        out['chunk_kb'] = None
    members = member_count(out['devices'])
    if out['chunk_kb'] and members and out['chunk_kb'] * 1024 * members > XFS_MAX_SWIDTH_BYTES:
        bad('chunk_kb %d x %d devices is a stripe of %d bytes; mkfs.xfs refuses a stripe width of 2 GiB '
            'or more' % (out['chunk_kb'], members, out['chunk_kb'] * 1024 * members))


def _array_mount(entry, out, bad, profile):
    """mountpoint, move_from, mount_options (the profile's when not given) and the XFS label."""
    mountpoint, why = normalise_mountpoint(entry['mountpoint'])
    if why:
        bad('mountpoint %s' % why)
    out['mountpoint'] = mountpoint
    # the one opt-in that lets a run move an existing filesystem: the exact path it is mounted on now
    out['move_from'] = None
    if entry.get('move_from') is not None:
        move_from, why = normalise_mountpoint(entry['move_from'])
        if why:
            bad('move_from %s' % why)
        elif move_from == mountpoint:
            bad('move_from %s is the mountpoint itself; remove move_from' % move_from)
        out['move_from'] = move_from
    try:
        out['mount_options'] = (profile['mount_options'] if entry.get('mount_options') is None
                                else mount_options(entry['mount_options'], 'mount_options'))
    except ValueError as e:
        bad(str(e))
    label = entry.get('label')
    if label is None:
        label = out['name'][:XFS_LABEL_MAX] if valid_md_name(out['name']) else None
    if label is not None and not valid_xfs_label(label):
        bad('label %r must be 1-12 letters, digits or _ . + - (XFS labels hold at most 12 characters)' % (label,))
    out['label'] = label


def _array_ownership(entry, out, bad):
    """owner, group and mode of the mounted root (set only when given)."""
    for key in ('owner', 'group'):
        value = entry.get(key)
        if value is not None and not (isinstance(value, int) and not isinstance(value, bool) and value >= 0) \
                and not (isinstance(value, str) and OWNER_RE.fullmatch(value)):
            bad('%s %r is not a user/group name or id' % (key, value))
        out[key] = None if value is None else str(value)
    mode = entry.get('mode')
    if mode is not None and not (isinstance(mode, str) and MODE_RE.fullmatch(mode)):
        bad("mode %r must be a quoted octal string such as '0750' (an unquoted 0750 is read as a decimal number)"
            % (mode,))
    out['mode'] = mode


def _array_flags(entry, out, bad, profile):
    """allow_nonempty_mountpoint, ephemeral and services (the profile's when not given)."""
    for key in ('allow_nonempty_mountpoint', 'ephemeral'):
        value = entry.get(key, False)
        if not isinstance(value, bool):
            bad('%s must be true or false, got %r' % (key, value))
        out[key] = value is True if key == 'ephemeral' else value
    try:
        out['services'] = (profile['services'] if entry.get('services') is None
                           else service_units(entry['services'], 'services'))
    except ValueError as e:
        bad(str(e))
    out['write_cache'], problem = _write_cache(entry.get('write_cache'))
    if problem:
        bad(problem)


def validate_arrays(arrays, profile):
    if not isinstance(arrays, list):
        raise PlanError(['iotune_arrays must be a list, got %r' % (arrays,)])
    problems = []
    entries = []
    for index, entry in enumerate(arrays):
        out, found = _array_problems(index, entry, profile)
        problems.extend(found)
        if out is not None:
            entries.append(out)
    for key, what in (('name', 'array names'), ('mountpoint', 'mount points'), ('label', 'labels')):
        values = [e[key] for e in entries if e.get(key)]
        dup = sorted(set(v for v in values if values.count(v) > 1))
        if dup:
            shown = [_label_source(v, entries, arrays) for v in dup] if key == 'label' else dup
            problems.append('iotune_arrays: %s must be unique across arrays: %s' % (what, ', '.join(shown)))
    owners = {}
    for entry in entries:
        for dev in entry['devices']:
            owners.setdefault(member_text(dev), []).append(entry['name'])
    shared = ['%s (in %s)' % (dev, ', '.join(names)) for dev, names in sorted(owners.items()) if len(names) > 1]
    if shared:
        problems.append('iotune_arrays: a device can be a member of one array only: %s' % '; '.join(shared))
    mounts = sorted(e['mountpoint'] for e in entries if e.get('mountpoint'))
    for outer in mounts:
        for inner in mounts:
            if inner != outer and inner.startswith(outer + '/'):
                problems.append('iotune_arrays: mount point %s lies inside %s; give each array its own tree'
                                % (inner, outer))
    if problems:
        raise PlanError(problems)
    return entries


# ---------------------------------------------------------------------------------------------
# Kernel settings (THP and vm.* sysctls) of the profile; applied by the kernel role


VERSION_RE = re.compile(r'[0-9]+(\.[0-9]+){0,2}')


def _is_version(value):
    return isinstance(value, str) and VERSION_RE.fullmatch(value) is not None


def _version_tuple(value):
    """(major, minor, patch): '8' is 8.0.0, so that it compares as MongoDB 8 and not as before 8.0."""
    parts = [int(part) for part in value.split('.')]
    return tuple(parts + [0] * (3 - len(parts)))


def _sysctl_name_problem(name, written, where, extra):
    """Why a sysctl name is refused in kernel.sysctl (extra false) or kernel.extra_sysctl, or None."""
    if name is None:
        return '%s: %r is not a sysctl name such as vm.swappiness' % (where, written)
    action = sysctl_action(name)
    if action:
        return '%s: %s' % (where, action)
    if not extra and name not in SYSCTL_DATABASE:
        return ('%s: %s is not one of the sysctls database vendors ask for%s (docs/profiles.md, "Which sysctls"); '
                'give it in kernel.extra_sysctl of iotune_profile_overrides if you mean it'
                % (where, name, did_you_mean(name, sorted(SYSCTL_DATABASE))))
    # an extra one a letter or two away from a database sysctl is a typo, which the host would refuse only after
    # the arrays and filesystems changed (a longer name with the same start, kernel.numa_balancing_scan_delay_ms, is not)
    close = difflib.get_close_matches(name, sorted(SYSCTL_DATABASE), n=1, cutoff=0.9) if extra else []
    if close and name not in SYSCTL_DATABASE:
        return '%s: %s looks like a typo of %s; set that one in kernel.sysctl' % (where, name, close[0])
    return None


def _kernel_sysctl(values, where, extra=False, out=None):
    """(validated {name: int}, problems) of kernel.sysctl, or of kernel.extra_sysctl (extra: any setting, added to
    ``out``, the kernel.sysctl already validated)."""
    problems, out = [], dict(out or {})
    if values is None:
        return out, problems
    if not isinstance(values, dict):
        return out, ['%s must be a dict of sysctl name: integer, got %r' % (where, values)]
    for written, value in sorted(values.items(), key=lambda kv: str(kv[0])):
        name = sysctl_name(written)
        problem = _sysctl_name_problem(name, written, where, extra)
        if problem:
            problems.append(problem)
            continue
        if name in out and extra:
            problems.append('%s: %s is a kernel.sysctl setting (the profile\'s or yours): change it in kernel.sysctl'
                            % (where, name))
            continue
        if name in out:
            problems.append('%s: %s is given twice (as %s and %s)' % (where, name, name, written))
            continue
        low, high = SYSCTL_RANGES.get(name, (0, None))
        try:
            number = strict_int(value, '%s.%s' % (where, name), minimum=low)
        except ValueError as e:
            problems.append(str(e).replace('a whole number of KiB', 'an integer'))
            continue
        if high is not None and number > high:
            problems.append('%s.%s must be <= %d, got %d' % (where, name, high, number))
            continue
        out[name] = number
    return out, problems


def _sysctl_pair_problems(out, where):
    problems = []
    for one, other in SYSCTL_EXCLUSIVE:
        if one in out and other in out:
            problems.append('%s: set %s or %s, not both (writing one resets the other to 0)' % (where, one, other))
    for background, limit in (('vm.dirty_background_bytes', 'vm.dirty_bytes'),
                              ('vm.dirty_background_ratio', 'vm.dirty_ratio')):
        if background in out and limit in out and out[background] >= out[limit]:
            problems.append('%s: %s (%d) must be below %s (%d)' % (where, background, out[background], limit, out[limit]))
    return problems


def _kernel_thp(values, where):
    problems, out = [], {}
    if values is None:
        return out, problems
    if not isinstance(values, dict):
        return out, ['%s must be a dict with enabled/defrag/khugepaged_max_ptes_none, got %r' % (where, values)]
    for key, choices in sorted(THP_CHOICES.items()):
        value = values.get(key)
        if value is None:
            continue
        if value not in choices:
            problems.append('%s.%s: %r is not one of %s' % (where, key, value, ', '.join(choices)))
        else:
            out[key] = value
    if values.get('khugepaged_max_ptes_none') is not None:
        try:
            number = strict_int(values['khugepaged_max_ptes_none'], '%s.khugepaged_max_ptes_none' % where)
            if number > THP_MAX_PTES_NONE:
                raise ValueError('%s.khugepaged_max_ptes_none must be <= %d (HPAGE_PMD_NR - 1), got %d'
                                 % (where, THP_MAX_PTES_NONE, number))
            out['khugepaged_max_ptes_none'] = number
        except ValueError as e:
            problems.append(str(e).replace('a whole number of KiB', 'an integer'))
    return out, problems


def _kernel_cpu_clock(kernel, where):
    """(validated {cpu_governor, clocksource} of those set, problems): the merged section's keys (the profile's, then
    iotune_profile_overrides'; null leaves one unset), by rules.cpu_clock_problem, kernel_settings' own rule."""
    out, problems = {}, []
    for key in CPU_CLOCK_KEYS:
        problem = cpu_clock_problem(key, kernel.get(key))
        if problem:
            problems.append('%s.%s: %s' % (where, key, problem))
        elif kernel.get(key) is not None:
            out[key] = kernel[key]
    return out, problems


def _version_entry_problems(entries, where):
    """kernel.by_mongodb_version: known keys, the first entry without since, then increasing quoted versions."""
    problems = []
    for index, entry in enumerate(entries):
        stray = sorted(set(entry) - set(('since', 'thp', 'sysctl')), key=str)
        since = entry.get('since')
        if stray:
            problems.append('%s.by_mongodb_version[%d]: unknown key %s (known: since, thp, sysctl)'
                            % (where, index, ', '.join(map(str, stray))))
        if index == 0 and since is not None:
            problems.append('%s.by_mongodb_version[0] is the entry for versions before the next since and has no since'
                            % where)
        elif index > 0 and not _is_version(since):
            problems.append("%s.by_mongodb_version[%d].since must be a quoted version such as '8.0', got %r"
                            % (where, index, since))
        elif index > 1 and _is_version(entries[index - 1].get('since')) \
                and _version_tuple(since) <= _version_tuple(entries[index - 1]['since']):
            problems.append('%s.by_mongodb_version: since must increase (%s after %s)'
                            % (where, since, entries[index - 1]['since']))
    return problems


def _merged_kernel(kernel, chosen, overrides, where):
    """({thp, sysctl, extra_sysctl}: the profile's, the chosen version entry's and the user's, merged; problems)."""
    merged, problems = {}, []
    for key in ('thp', 'sysctl', 'extra_sysctl'):
        merged[key] = {}
        for part in (kernel.get(key), chosen.get(key), overrides.get(key)):
            if part is not None and not isinstance(part, dict):
                problems.append('%s.%s must be a dict, got %r' % (where, key, part))
            elif part:
                merged[key] = merge(merged[key], part)
    return merged, problems


def validate_kernel(name, kernel, overrides, mongodb_version=None):
    """The profile's ``kernel`` section resolved for this host: {'thp': {...}, 'sysctl': {...}, ...}.

    ``kernel`` is the merged section, ``overrides`` the user's own ``kernel`` section (its values win
    over a version entry). ``by_mongodb_version`` is a list of entries ``{since: 'X.Y', thp, sysctl}``
    (the first without ``since``); the entry with the highest ``since`` <= ``mongodb_version`` is merged
    over the section. When the entries differ and no version is given, the plan refuses to guess.
    """
    where = "profile '%s': kernel" % name
    if kernel is None:
        return {'thp': {}, 'sysctl': {}, 'mongodb_version': None, 'cpu_clock': {}}
    if not isinstance(kernel, dict):
        raise PlanError(['%s must be a dict with thp and sysctl, got %r' % (where, kernel)])
    overrides = overrides if isinstance(overrides, dict) else {}
    problems = []
    version = None
    if mongodb_version not in (None, ''):
        if not isinstance(mongodb_version, str) or not VERSION_RE.fullmatch(mongodb_version.strip()):
            problems.append("iotune_mongodb_version must be a quoted version string such as '7.0' or '8.0', got %r "
                            "(an unquoted 7.10 is read as the number 7.1)" % (mongodb_version,))
        else:
            version = mongodb_version.strip()
    entries = kernel.get('by_mongodb_version') or []
    chosen = {}
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        problems.append('%s.by_mongodb_version must be a list of dicts {since, thp, sysctl}' % where)
        entries = []
    problems.extend(_version_entry_problems(entries, where))
    if problems:
        raise PlanError(problems)
    if entries:
        distinct = set(repr(sorted((k, v) for k, v in e.items() if k != 'since')) for e in entries)
        if len(distinct) > 1 and version is None:
            ranges = ', '.join('before %s' % entries[1]['since'] if i == 0 else 'from %s' % e['since']
                               for i, e in enumerate(entries))
            raise PlanError(['%s: the THP and sysctl settings depend on the MongoDB version (%s); set '
                             "iotune_mongodb_version (for example '7.0' or '8.0'), or give kernel.by_mongodb_version: [] "
                             'and your own kernel.thp in iotune_profile_overrides' % (where, ranges)])
        chosen = entries[0]
        for entry in entries[1:]:
            if version is not None and _version_tuple(version) >= _version_tuple(entry['since']):
                chosen = entry
    merged, problems = _merged_kernel(kernel, chosen, overrides, where)
    if problems:
        raise PlanError(problems)
    thp, found = _kernel_thp(merged['thp'], where + '.thp')
    problems.extend(found)
    sysctl, found = _kernel_sysctl(merged['sysctl'], where + '.sysctl')
    problems.extend(found)
    sysctl, found = _kernel_sysctl(merged['extra_sysctl'], where + '.extra_sysctl', extra=True, out=sysctl)
    problems.extend(found)
    problems.extend(_sysctl_pair_problems(sysctl, where + '.sysctl'))
    cpu_clock, found = _kernel_cpu_clock(kernel, where)
    problems.extend(found)
    if problems:
        raise PlanError(problems)
    return {'thp': thp, 'sysctl': sysctl, 'mongodb_version': version if entries else None, 'cpu_clock': cpu_clock}


# ---------------------------------------------------------------------------------------------
# The plan


def with_resolution(arrays, resolved):
    """``iotune_arrays`` with the member selectors replaced by what the host resolved them to.

    ``resolved`` is the ``resolved`` result of the storage_preflight module: {array name: {devices,
    wipe_devices, allow_shared_disk}}, each a list of stable paths in the order of the selectors. This is
    the one place where the resolved members enter the plan; every role input is then built from them.
    """
    if not resolved:
        return arrays
    if not isinstance(resolved, dict) or not isinstance(arrays, list):
        raise PlanError(['resolved must be the dict storage_preflight returns, got %r' % (resolved,)])
    result = []
    for entry in arrays:
        if isinstance(entry, dict) and entry.get('name') in resolved:
            entry = dict(entry)
            for key in ('devices', 'wipe_devices', 'allow_shared_disk'):
                if key in resolved[entry['name']]:
                    entry[key] = list(resolved[entry['name']][key])
        result.append(entry)
    return result


def has_selectors(entries):
    return any(isinstance(d, dict) for e in entries for key in ('devices', 'wipe_devices', 'allow_shared_disk')
               for d in e.get(key) or [])


def _validated(profile_name, profile_data, overrides, arrays, extra_tuning, mongodb_version, resolved):
    """(profile, kernel, array entries), every input validated; raises PlanError with every problem found."""
    problems = []
    profile = None
    kernel = None
    entries = []
    try:
        profile = validate_profile(profile_name, profile_data, {} if overrides is None else overrides)
    except PlanError as e:
        problems.extend(e.problems)
    if profile is not None:
        try:
            kernel = validate_kernel(profile_name, profile.get('kernel'), (overrides or {}).get('kernel'),
                                     mongodb_version)
        except PlanError as e:
            problems.extend(e.problems)
        try:
            entries = validate_arrays(with_resolution(arrays, resolved), profile)
        except PlanError as e:
            problems.extend(e.problems)
    if extra_tuning is not None and (not isinstance(extra_tuning, list)
                                     or not all(isinstance(entry, dict) for entry in extra_tuning)):
        problems.append('iotune_block_tuning_extra_devices must be a list of dicts, got %r' % (extra_tuning,))
    if problems:
        raise PlanError(problems)
    return profile, kernel, entries


def _release_holds(value):
    """iotune_release_holds: units whose mount hold (RequiresMountsFor drop-in) a run may remove although the filesystem
    it holds is mounted (storage_preflight's holds check); ([units], [problems])."""
    try:
        return service_units([] if value is None else value, 'iotune_release_holds'), []
    except ValueError as e:
        return [], [str(e)]


def _member_tuning(dev, members, write_cache):
    """The block_tuning entry of one member: its readahead, the scheduler and queue settings by class, and the
    array's write_cache opt-in (keys without a value left out, so that a plan without them is as before)."""
    entry = {'device': dev, 'read_ahead_kb': members['read_ahead_kb'],
             'scheduler_by_class': members['scheduler_by_class']}
    if members.get('queue_by_class'):
        entry['queue_by_class'] = members['queue_by_class']
    if write_cache is not None:
        entry['write_cache'] = write_cache
    return entry


# iotune_restore (issue 29): a boolean, or its words as -e gives them
RESTORE_WORDS = {'true': True, 'yes': True, 'on': True, '1': True, 'false': False, 'no': False, 'off': False, '0': False}


def _restore(value):
    """iotune_restore: put the host's original state back instead of tuning (module original_state); (bool,
    [problems])."""
    if value is None or isinstance(value, bool):
        return bool(value), []
    if isinstance(value, str) and value.strip().lower() in RESTORE_WORDS:
        return RESTORE_WORDS[value.strip().lower()], []
    return False, ['iotune_restore must be true (put the original state back) or false, got %r' % (value,)]


# iotune_retire_md_arrays (issue 29): the keys of an entry; name, confirm_name and confirm_uuid are required
RETIRE_KEYS = ('name', 'confirm_name', 'confirm_uuid', 'zero_superblocks', 'services')
RETIRE_REQUIRED = ('name', 'confirm_name', 'confirm_uuid')


def _retire_entry(index, entry, planned):
    """(one iotune_retire_md_arrays entry normalised or None, problems)."""
    if not isinstance(entry, dict):
        return None, ['iotune_retire_md_arrays[%d] must be a dict {name, confirm_name, confirm_uuid}, got %r'
                      % (index, entry)]
    name = entry.get('name')
    where = ("iotune_retire_md_arrays entry '%s'" % name if isinstance(name, str)
             else 'iotune_retire_md_arrays[%d]' % index)
    problems = ['%s: unknown key %r%s (known: %s)'
                % (where, key, did_you_mean(key, RETIRE_KEYS), ', '.join(RETIRE_KEYS))
                for key in sorted(set(entry) - set(RETIRE_KEYS), key=str)]
    problems += ['%s: %s is required (a retire names the array twice and gives its md UUID)' % (where, key)
                 for key in RETIRE_REQUIRED if entry.get(key) in (None, '')]
    if problems:
        return None, problems
    out = {'name': name, 'confirm_name': entry['confirm_name'], 'services': [],
           'zero_superblocks': entry.get('zero_superblocks', False),
           'confirm_uuid': retire_utils.colon_uuid(entry['confirm_uuid'])}
    if not valid_md_name(name):
        problems.append('%s: name %r must be 1-32 letters, digits, _ . - (and not . or ..)' % (where, name))
    if entry['confirm_name'] != name:
        problems.append('%s: confirm_name %r is not the name %r; a retire names the array twice'
                        % (where, entry['confirm_name'], name))
    if out['confirm_uuid'] is None:
        problems.append('%s: confirm_uuid %r is not an md UUID (32 hex digits, as mdadm --detail /dev/md/%s shows it)'
                        % (where, entry['confirm_uuid'], name))
    if not isinstance(out['zero_superblocks'], bool):
        problems.append('%s: zero_superblocks must be true or false, got %r' % (where, out['zero_superblocks']))
    try:
        out['services'] = service_units(entry.get('services') or [], 'services')
    except ValueError as e:
        problems.append('%s: %s' % (where, e))
    if name in planned:
        problems.append('%s: %s is in iotune_arrays too; an array is either kept or retired: take it out of one'
                        % (where, name))
    return out, problems


def _retire_arrays(value, arrays):
    """iotune_retire_md_arrays: the arrays to retire (module retire_array, after the preflight checked each on the
    host); ([entries], [problems])."""
    if value is None:
        return [], []
    if not isinstance(value, list):
        return [], ['iotune_retire_md_arrays must be a list of {name, confirm_name, confirm_uuid}, got %r' % (value,)]
    planned = set(a.get('name') for a in arrays or [] if isinstance(a, dict))
    entries, problems = [], []
    for index, entry in enumerate(value):
        out, found = _retire_entry(index, entry, planned)
        problems.extend(found)
        if out is not None:
            entries.append(out)
    for key, what in (('name', 'names'), ('confirm_uuid', 'UUIDs')):
        values = [e[key] for e in entries if e[key]]
        dup = sorted(set(v for v in values if values.count(v) > 1))
        if dup:
            problems.append('iotune_retire_md_arrays: %s must be unique: %s' % (what, ', '.join(dup)))
    return entries, problems


def build_plan(profile_name, profile_data, overrides, arrays, extra_tuning=None, mongodb_version=None,
               resolved=None, release_holds=None, restore=None, retire=None):
    """Validate everything and return the plan dict (see docs/architecture.md).

    With member selectors in ``arrays`` and no ``resolved``, the plan has ``needs_resolution: true``:
    the storage_preflight module resolves them on the host and the plan is made again with its
    ``resolved`` result (the profile role does both); only that second plan feeds the roles.
    """
    release, release_problems = _release_holds(release_holds)
    restore, restore_problems = _restore(restore)
    release_problems += restore_problems
    retired, retire_problems = _retire_arrays(retire, arrays if isinstance(arrays, list) else [])
    release_problems += retire_problems
    try:
        profile, kernel, entries = _validated(profile_name, profile_data, overrides, arrays, extra_tuning,
                                              mongodb_version, resolved)
    except PlanError as e:
        raise PlanError(e.problems + release_problems)
    if release_problems:
        raise PlanError(release_problems)
    raid0, xfs, tuning, verify, preflight, ephemeral = [], [], list(extra_tuning or []), [], [], []
    # the members as given (selectors before their resolution): an ephemeral array resolves them again at boot
    given = dict((a.get('name'), a.get('devices')) for a in arrays if isinstance(a, dict))
    for e in entries:
        raid0.append({'name': e['name'], 'devices': e['devices'], 'chunk_kb': e['chunk_kb'],
                      'wipe_devices': e['wipe_devices'], 'allow_shared_disk': e['allow_shared_disk'],
                      'allow_single_device': e['allow_single_device'],
                      # its boot unit re-creates it in the real root: its ARRAY line never needs an initramfs rebuild
                      'ephemeral': e['ephemeral']})
        fs = {'device': '/dev/md/' + e['name'], 'label': e['label'], 'mountpoint': e['mountpoint'],
              'mount_options': e['mount_options'], 'services': e['services'], 'move_from': e['move_from'],
              # data on the array can only come from members the user opted in to wipe
              'allow_data': bool(e['wipe_devices'])}
        # the profile's mkfs options (at creation only) and discard policy, only when it sets them
        if 'discard' in profile['mkfs']:
            fs['mkfs_discard'] = profile['mkfs']['discard']
        if profile['discard_by_class']:
            fs['discard_by_class'] = dict(profile['discard_by_class'])
            # the disks the array is made of: check mode on a fresh host predicts the policy from their classes
            fs['members'] = list(e['devices'])
        for key in ('owner', 'group', 'mode'):
            if e[key] is not None:
                fs[key] = e[key]
        xfs.append(fs)
        tuning.append(dict({'md_name': e['name'], 'read_ahead_kb': profile['array']['read_ahead_kb']},
                           **profile['array']['queue']))
        for dev in e['devices']:
            tuning.append(_member_tuning(dev, profile['members'], e['write_cache']))
        verify.append({'directory': e['mountpoint'], 'expected_mount': e['mountpoint'],
                       'jobs': profile['fio_verify_jobs'], 'thresholds': profile['fio_verify_thresholds']})
        preflight.append({'name': e['name'], 'devices': e['devices'], 'wipe_devices': e['wipe_devices'],
                          'allow_shared_disk': e['allow_shared_disk'], 'mountpoint': e['mountpoint'],
                          'allow_nonempty_mountpoint': e['allow_nonempty_mountpoint'],
                          'move_from': e['move_from'],
                          'allow_single_device': e['allow_single_device'],
                          'chunk_kb': e['chunk_kb'], 'label': e['label']})
        if e['ephemeral']:
            # the boot-time program re-creates it from these (roles/ephemeral, module_utils/ephemeral.py)
            ephemeral.append(dict((key, e[key]) for key in (
                'name', 'devices', 'chunk_kb', 'allow_single_device', 'label', 'mountpoint', 'mount_options',
                'owner', 'group', 'mode', 'services')))
            members = given.get(e['name']) or []
            if any(cloud.is_selector(m) for m in members):
                ephemeral[-1]['members'] = [cloud.parse_selector(m) if cloud.is_selector(m) else m for m in members]
            if 'mkfs_discard' in fs:
                # the boot re-creation makes the XFS with the profile's mkfs options too (mkfs.xfs -K)
                ephemeral[-1]['mkfs_discard'] = fs['mkfs_discard']
    # the kernel role orders its THP unit before the services of every array
    kernel['services'] = sorted(set(unit for fs in xfs for unit in fs['services']))
    # each of them gets the profile's limits drop-in (the xfs role writes it with the mount holds)
    limits = dict((unit, dict(profile['limits'])) for unit in kernel['services'] if profile['limits'])
    return {'profile': profile, 'raid0_arrays': raid0, 'xfs_filesystems': xfs,
            'block_tuning_devices': tuning, 'fio_verify': verify, 'preflight_arrays': preflight,
            'kernel': kernel, 'needs_resolution': has_selectors(entries), 'ephemeral_arrays': ephemeral,
            'services': kernel['services'], 'mount_holds': mount_holds.accounted(xfs), 'release_holds': release,
            'limits': limits, 'restore': restore, 'retire_arrays': retired}
