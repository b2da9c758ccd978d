# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Prometheus metrics of a host's storage against its plan, for node_exporter's textfile collector.

The host program ``iotune-storage-metrics`` (roles/metrics, docs/metrics.md) is :func:`main`: it reads the spec
(the arguments the audit role passes to the storage_audit module, and the part of the tune plan that
drift.compare reads), reads the host with audit.gather, compares with drift.compare (the audit's own comparison),
renders the text exposition format (:func:`render`) and replaces the ``.prom`` file atomically
(:func:`write_atomically`). The initramfs check unpacks an image; its result is kept in a small cache file keyed
by the image and mdadm.conf (:func:`cached_initramfs`), so a timer every few minutes unpacks it only after a change.
Nothing here imports Ansible: the program carries these module_utils and runs without it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

from ansible_collections.iotune.storage.plugins.module_utils import audit, drift, files, initramfs, restart_record
from ansible_collections.iotune.storage.plugins.module_utils.block_tuning import loadable_schedulers
from ansible_collections.iotune.storage.plugins.module_utils.host import BlockHost, run_argv

PROGRAM = 'iotune-storage-metrics'
PREFIX = 'iotune_storage_'
SPEC_SCHEMA_VERSION = 1
DEFAULT_SPEC = '/etc/iotune-storage/metrics.json'
DEFAULT_CACHE = '/var/cache/iotune-storage/metrics-initramfs.json'
# the parameters the audit role passes to the storage_audit module, all in the spec (the filter
# storage_audit_arguments makes them for both); fstab is optional (audit.gather's default)
AUDIT_KEYS = ('arrays', 'tuning', 'rules_file', 'mdadm_conf', 'sysctl', 'thp', 'sysctl_file', 'initramfs', 'limits',
              'fstrim_timer', 'cpu_clock')
# a spec an earlier release wrote lacks these (no limits, fstrim.timer, CPU governor or clocksource compared until
# the next tune run writes the spec again)
OPTIONAL_AUDIT_KEYS = ('limits', 'fstrim_timer', 'cpu_clock')
ARRAY_STATES = ('active', 'degraded', 'broken', 'inactive', 'missing')
KIB = 1024
# host roots; unit tests point them at fake trees
HOST_ROOT = '/'
MODULES_ROOT = '/lib/modules'

# Every family (a gauge), in the order of the output, with its help text (docs/metrics.md lists the labels).
FAMILIES = (
    ('collector_up', 'Whether the collector read the host and compared it with its spec (0: only the collector_* '
                     'and spec metrics are written; the reason is in the journal of iotune-storage-metrics.service).'),
    ('collector_last_run_timestamp_seconds', 'Unix time of the collector\'s last run, written even when it failed.'),
    ('collector_duration_seconds', 'Seconds the collector\'s last run took (the host read and the comparison).'),
    ('spec_timestamp_seconds', 'Modification time of the spec: the last tune run that changed what this host '
                               'should be.'),
    ('drift', 'Deviations from the plan, as the storage audit reports them, by area, subject and kind (the kind of '
              'the audit report); the value is the number of such items, usually 1.'),
    ('drift_items', 'Number of deviations the storage audit would report for this host (0: as planned).'),
    ('device_read_ahead_bytes', 'Live readahead of a device the profile tunes.'),
    ('device_read_ahead_wanted_bytes', 'Readahead the profile sets on the device.'),
    ('device_scheduler_info', 'Live I/O scheduler of a device and the one the profile sets (wanted).'),
    ('device_nr_requests', 'Live nr_requests of a device whose profile sets it.'),
    ('device_nr_requests_wanted', 'nr_requests the profile sets on the device.'),
    ('device_max_sectors_bytes', 'Live max_sectors_kb of a device whose profile sets it, in bytes.'),
    ('device_max_sectors_wanted_bytes', 'max_sectors_kb the profile sets on the device, in bytes.'),
    ('device_rotational', 'Live rotational flag of a device whose profile sets it.'),
    ('device_rotational_wanted', 'Rotational flag the profile sets on the device.'),
    ('device_setting_ok', 'Whether the live value of a queue setting is the profile\'s.'),
    ('device_setting_persisted', 'Whether the udev rules file sets the profile\'s value of a queue setting (what '
                                 'the next boot or change event applies).'),
    ('array_state', 'State of a planned md array: 1 for the current state, 0 for the others.'),
    ('array_members', 'Members the array runs with (not faulty).'),
    ('array_members_planned', 'Members the plan gives the array.'),
    ('array_read_ahead_bytes', 'Live readahead of the array\'s md device.'),
    ('mount_present', 'Whether the planned filesystem is mounted at its mount point (from the array, when the '
                      'array runs).'),
    ('kernel_setting_ok', 'Whether a kernel setting of the profile (sysctl, transparent huge pages) is as planned.'),
    ('udev_rules_ok', 'Whether the udev rules file is there and is the one tune writes.'),
    ('initramfs_checked', 'Whether the ARRAY lines of the initramfs that boots next were compared (0: not asked '
                          'for, or the image could not be read).'),
    ('original_state_recorded', 'Whether the snapshot of the host\'s original state (what it had before the '
                                'collection\'s first change, docs/tune.md) is recorded; not drift.'),
    ('original_state_timestamp_seconds', 'Unix time the snapshot of the host\'s original state was recorded.'),
)
# (queue attribute, live family, wanted family, multiplier to the base unit)
QUEUE_GAUGES = (
    ('read_ahead_kb', 'device_read_ahead_bytes', 'device_read_ahead_wanted_bytes', KIB),
    ('nr_requests', 'device_nr_requests', 'device_nr_requests_wanted', 1),
    ('max_sectors_kb', 'device_max_sectors_bytes', 'device_max_sectors_wanted_bytes', KIB),
    ('rotational', 'device_rotational', 'device_rotational_wanted', 1),
)


# ---------------------------------------------------------------------------------------------
# the text exposition format


def escape_label(value):
    """A label value as the text format writes it: backslash, double quote and newline escaped."""
    return str(value).replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')


def escape_help(text):
    """A help text as the text format writes it: backslash and newline escaped."""
    return str(text).replace('\\', '\\\\').replace('\n', '\\n')


def format_value(value):
    """1/0 for a bool, an integer as such, a float as Go's ParseFloat reads it (NaN, +Inf, -Inf)."""
    if isinstance(value, bool):
        return '1' if value else '0'
    if isinstance(value, int):
        return str(value)
    value = float(value)
    if math.isnan(value):
        return 'NaN'
    if math.isinf(value):
        return '+Inf' if value > 0 else '-Inf'
    return repr(value)


class Exposition:
    """Samples by family; :meth:`text` writes each family that has one, with ``# HELP`` and ``# TYPE``."""

    def __init__(self):
        self.samples = dict((name, {}) for name, dummy in FAMILIES)

    def add(self, family, value, **labels):
        """One sample (``None``: none, the value is unknown); the same labels again replace it."""
        if value is not None:
            self.samples[family][tuple(labels.items())] = value

    def text(self):
        lines = []
        for name, help_text in FAMILIES:
            if not self.samples[name]:
                continue
            full = PREFIX + name
            lines.append('# HELP %s %s' % (full, escape_help(help_text)))
            lines.append('# TYPE %s gauge' % full)
            for labels, value in self.samples[name].items():
                text = ','.join('%s="%s"' % (key, escape_label(v)) for key, v in labels)
                lines.append('%s%s %s' % (full, '{%s}' % text if text else '', format_value(value)))
        return '\n'.join(lines) + '\n'


# ---------------------------------------------------------------------------------------------
# the metrics of one comparison


def _number(value, multiplier=1):
    """``value`` (a sysfs string such as '8') times ``multiplier``, None when it is not an integer."""
    try:
        return int(str(value).strip()) * multiplier
    except (TypeError, ValueError):
        return None


def _drift(out, result):
    counts = {}
    for item in result['items']:
        key = (item['area'], '' if item['subject'] is None else str(item['subject']), drift.drift_kind(item))
        counts[key] = counts.get(key, 0) + 1
    for (area, subject, kind), count in counts.items():
        out.add('drift', count, area=area, subject=subject, kind=kind)
    out.add('drift_items', len(result['items']))


def _devices(out, result, rules_present):
    for row in result['devices']:
        device = row['device']
        for attr, live_family, wanted_family, multiplier in QUEUE_GAUGES:
            if row.get(attr):
                out.add(live_family, _number(row[attr]['live'], multiplier), device=device)
                out.add(wanted_family, _number(row[attr]['profile'], multiplier), device=device)
        scheduler = row.get('scheduler')
        if scheduler and scheduler['live'] is not None:
            out.add('device_scheduler_info', 1, device=device, scheduler=scheduler['live'], wanted=scheduler['profile'])
        for attr in sorted(k for k, v in row.items() if isinstance(v, dict) and 'profile' in v):
            values = row[attr]
            out.add('device_setting_ok', drift.live_matches(values['live'], values['profile']), device=device,
                    setting=attr)
            out.add('device_setting_persisted', bool(rules_present) and str(values['rules']) == str(values['profile']),
                    device=device, setting=attr)


def _arrays(out, result, facts):
    seen = dict((a['name'], a) for a in facts.get('arrays') or [])
    for summary in result['arrays']:
        name = summary['name']
        for state in ARRAY_STATES:
            out.add('array_state', summary['state'] == state, array=name, state=state)
        array = seen.get(name) or {}
        out.add('array_members', drift.working_members(array), array=name)
        out.add('array_members_planned', len(array.get('members') or []), array=name)
        out.add('array_read_ahead_bytes', _number(summary.get('read_ahead_kb'), KIB), array=name)


def mount_present(array):
    """Something is mounted at the array's mount point, and it is the array when the array runs."""
    mounted = array.get('mounted')
    return mounted is not None and (not array.get('kname') or mounted.get('kname') == array['kname'])


def _kernel(out, result, facts):
    """Compliance per setting: no ``kernel`` item names it (the audit's subject is the sysctl, or ``THP <key>``)."""
    report = facts.get('kernel') or {}
    named = set(item['subject'] for item in result['items'] if item['area'] == 'kernel')
    for name in sorted(report.get('sysctl') or {}):
        out.add('kernel_setting_ok', name not in named, setting=name)
    for key in sorted(report.get('thp') or {}):
        out.add('kernel_setting_ok', 'THP %s' % key not in named, setting='transparent_hugepage.%s' % key)
    # the CPU governor and clocksource, where the host offers them (not offered: no series, as it is no drift)
    for key in sorted(k for k, v in (report.get('cpu_clock') or {}).items() if v.get('offered')):
        out.add('kernel_setting_ok', key not in named, setting=key)


def render(result, facts, now, duration, spec_mtime=None):
    """The text exposition of one run: ``result`` is drift.compare's on ``facts`` (audit.gather's); both None when
    reading the host failed, then only the collector metrics (collector_up 0) and the spec's time are written."""
    out = Exposition()
    out.add('collector_up', result is not None)
    out.add('collector_last_run_timestamp_seconds', round(now, 3))
    out.add('collector_duration_seconds', round(duration, 3))
    out.add('spec_timestamp_seconds', spec_mtime)
    if result is None:
        return out.text()
    tuning = facts.get('tuning') or {}
    rules = tuning.get('rules') or {}
    _drift(out, result)
    _devices(out, result, rules.get('present'))
    _arrays(out, result, facts)
    for array in facts.get('arrays') or []:
        if array.get('mountpoint'):
            out.add('mount_present', mount_present(array), mountpoint=array['mountpoint'])
    _kernel(out, result, facts)
    out.add('udev_rules_ok', bool(rules.get('present') and rules.get('matches')))
    out.add('initramfs_checked', bool((facts.get('initramfs') or {}).get('checked')))
    held = facts.get('original_state')
    if isinstance(held, dict) and not held.get('error'):
        out.add('original_state_recorded', bool(held.get('recorded')))
        out.add('original_state_timestamp_seconds', held.get('timestamp'))
    return out.text()


# ---------------------------------------------------------------------------------------------
# files: the .prom file, the initramfs cache, the spec


def write_atomically(path, text):
    """Replace ``path`` in one rename of a temporary file of the same directory (never ``*.prom``, which node_exporter
    would read half written), written and fsynced first; the file ends with mode 0644."""
    files.write_text(path, text, replace=os.replace, mode=0o644, prefix='.%s-' % PROGRAM)
    os.chmod(path, 0o644)


def _mtime_ns(path):
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def initramfs_key(boot_dir, conf_path=None):
    """What the cached initramfs result depends on: the image that boots next (path, size, mtime) and mdadm.conf's
    mtime; None when there is no such image (then nothing is cached: the reader says why quickly)."""
    kernel = initramfs.next_kernel(boot_dir)
    image = initramfs.image_path(kernel, boot_dir) if kernel else None
    if image is None:
        return None
    st = os.stat(image)
    confs = [conf_path] if conf_path else list(audit.MDADM_CONF_PATHS)
    return {'image': image, 'size': st.st_size, 'mtime_ns': st.st_mtime_ns,
            'mdadm_conf': dict((path, _mtime_ns(path)) for path in confs)}


def _load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def cached_initramfs(read, key, cache_path):
    """``read()`` (audit.next_initramfs) once per ``key``: a result that read the image is kept in ``cache_path``
    and returned again while the key is the same. An error is never kept (the next run tries again)."""
    cached = _load_json(cache_path) if key is not None else None
    if isinstance(cached, dict) and cached.get('key') == key and isinstance(cached.get('result'), dict):
        return cached['result']
    result = read()
    if key is not None and result.get('checked'):
        try:
            files.write_text(cache_path, json.dumps({'key': key, 'result': result}, sort_keys=True) + '\n',
                             replace=os.replace, mode=0o644, prefix='.%s-' % PROGRAM)
        except OSError:
            pass  # the cache only saves time
    return result


def read_spec(path):
    """(spec, mtime) of the JSON spec; ValueError when it is not one this program reads."""
    with open(path) as f:
        try:
            spec = json.load(f)
        except ValueError as e:
            raise ValueError('%s is not JSON: %s' % (path, e))
        mtime = os.fstat(f.fileno()).st_mtime
    if not isinstance(spec, dict) or spec.get('schema_version') != SPEC_SCHEMA_VERSION:
        raise ValueError('%s is not a metrics spec of schema version %d' % (path, SPEC_SCHEMA_VERSION))
    if not isinstance(spec.get('audit'), dict) or not isinstance(spec.get('plan'), dict):
        raise ValueError('%s lacks audit or plan' % path)
    missing = [key for key in AUDIT_KEYS if key not in spec['audit'] and key not in OPTIONAL_AUDIT_KEYS]
    if missing:
        raise ValueError('%s: audit lacks %s' % (path, ', '.join(missing)))
    return spec, mtime


# ---------------------------------------------------------------------------------------------
# the program


def run_command(argv, **dummy):
    """``(rc, stdout, stderr)`` of ``argv`` (as AnsibleModule.run_command returns them), in the C locale."""
    return run_argv(argv, environ_update={'LC_ALL': 'C', 'LANG': 'C'})


def page_kb():
    try:
        return max(os.sysconf('SC_PAGE_SIZE') // 1024, 1)
    except (ValueError, OSError, AttributeError):
        return 4


def read_host(spec, cache_path):
    """audit.gather() with the spec's storage_audit arguments on this host (HOST_ROOT)."""
    args = spec['audit']
    reader = None
    if args['initramfs']:
        boot_dir = os.path.join(HOST_ROOT, 'boot')

        def reader():
            return cached_initramfs(lambda: audit.next_initramfs(run_command, boot_dir=boot_dir),
                                    initramfs_key(boot_dir, args['mdadm_conf']), cache_path)
    optional = dict((key, args[key]) for key in ('fstab',) if args.get(key))
    return audit.gather(BlockHost(run_command=run_command, root=HOST_ROOT), args['arrays'], args['tuning'],
                        args['rules_file'], conf_path=args['mdadm_conf'], sysctl=args['sysctl'], thp=args['thp'],
                        sysctl_file=args['sysctl_file'], page_kb=page_kb(),
                        loadable=loadable_schedulers(os.path.join(MODULES_ROOT, os.uname()[2])),
                        read_initramfs=reader, read_restarts=lambda: restart_record.audit_facts(
                            run_command, os.path.join(HOST_ROOT, restart_record.PATH.lstrip('/'))),
                        limits=args.get('limits') or None, run_command=run_command,
                        fstrim_timer=bool(args.get('fstrim_timer')), cpu_clock=args.get('cpu_clock') or None,
                        **optional)


def parse_args(argv):
    parser = argparse.ArgumentParser(prog=PROGRAM, description='Compare this host\'s storage with its plan (the '
                                     'storage audit\'s comparison) and write Prometheus metrics (docs/metrics.md).')
    parser.add_argument('--spec', default=DEFAULT_SPEC, help='the JSON spec the metrics role writes (%(default)s)')
    parser.add_argument('--output', help='the .prom file to replace atomically; without it the metrics go to stdout')
    parser.add_argument('--cache', default=DEFAULT_CACHE, help='the initramfs cache file (%(default)s)')
    return parser.parse_args(argv)


def main(argv=None):
    """Exit 0 when the host was read and compared, 1 when not (the output then says collector_up 0, stderr why);
    argparse's 2 on a usage error."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    started, clock = time.time(), time.monotonic()
    spec_mtime = result = facts = problem = None
    try:
        spec, spec_mtime = read_spec(args.spec)
        facts = read_host(spec, args.cache)
        result = drift.compare(facts, spec['plan'])
    # any failure is collector_up 0 in the file, never a missing or stale file
    except Exception as e:  # pylint: disable=broad-exception-caught
        why = e if isinstance(e, (OSError, ValueError)) else '%s: %s' % (type(e).__name__, e)
        problem = 'reading the host failed: %s' % why
        result = facts = None
    text = render(result, facts, started, time.monotonic() - clock, spec_mtime=spec_mtime)
    if not args.output:
        sys.stdout.write(text)
    else:
        try:
            write_atomically(args.output, text)
        except OSError as e:
            problem = '%s; writing %s failed too: %s' % (problem, args.output, e) if problem else \
                'writing %s failed: %s' % (args.output, e)
    if problem:
        sys.stderr.write('%s: %s\n' % (PROGRAM, problem))
        return 1
    return 0
