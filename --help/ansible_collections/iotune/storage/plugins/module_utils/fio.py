# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The fio module's job: its options, what it refuses, the fio argv and job file it builds, and the host access.

``argument_spec()`` is the module's option spec (the controller's plan checks a profile's fio_verify_jobs with
it, and ``check_extra``); ``Measurer`` is everything that touches the host (block devices through a BlockHost,
the page cache, fio in a process group of its own). The orchestration of one call is ``fio_run.FioRun``;
parsing fio's JSON and the figures are ``fio_report``.
"""

from __future__ import annotations

import copy
import os
import re

from ansible_collections.iotune.storage.plugins.module_utils import fio_report, holders, kernel_log, process_group
from ansible_collections.iotune.storage.plugins.module_utils.fio_report import FioReportError

FILE_PREFIX = 'iotune-fio.'
REFUSED_KEYS = frozenset((
    'filename', 'directory', 'filename_format', 'opendir', 'readonly', 'unlink', 'unlink_each_loop',
    'rw', 'readwrite', 'create_only', 'output', 'output-format', 'trim_percentage', 'verify',
))
# Refused in ``extra`` as well (job files may set them): the module sets these itself (use its option),
# they size or place the test files (the free-space check must know the size), write files elsewhere,
# or run programs.
EXTRA_ONLY_REFUSED_KEYS = frozenset((
    'name', 'size', 'filesize', 'nrfiles', 'fill_device', 'fill_fs', 'bs', 'ioengine', 'iodepth', 'numjobs',
    'direct', 'buffered', 'fadvise_hint', 'io_size', 'io_limit', 'runtime', 'time_based', 'ramp_time',
    'group_reporting', 'percentile_list', 'lat_percentiles', 'clat_percentiles', 'exec_prerun', 'exec_postrun',
    'write_iolog', 'write_bw_log', 'write_lat_log', 'write_iops_log', 'write_hist_log', 'read_iolog',
    'replay_redirect', 'ioscheduler', 'invalidate', 'pre_read', 'trim_backlog', 'do_verify',
))
_EXTRA_KEY_RE = re.compile(r'^-{0,2}[A-Za-z0-9_][A-Za-z0-9_-]*$')
_WS_RE = re.compile(r'[\s=]')
ALLOWED_RW = frozenset(('read', 'randread'))


class FioError(Exception):
    """A refusal or failure; ``data`` goes into the module result."""

    def __init__(self, msg, **data):
        super(FioError, self).__init__(msg)
        self.data = copy.deepcopy(data)     # as it was when raised: later clean-up does not change it


class Measurer(object):
    """Everything that touches the host: block devices through the module's BlockHost, processes, fio."""

    def __init__(self, module, host):
        self.module = module
        self.host = host

    # ---- block devices (module_utils/host.py) ------------------------------------------------------
    def members(self, device):
        return self.host.slaves(device)

    def readahead_device(self, device):
        """The device owning queue/read_ahead_kb: itself, or the parent disk of a partition."""
        return self.host.readahead_device(device)

    def get_ra(self, device):
        return self.host.read_ahead_kb(device)

    def set_ra(self, device, value):
        return self.host.set_read_ahead_kb(device, value)

    def snapshot(self, device, members):
        return (self.host.block_stat(device), dict((m, self.host.block_stat(m)) for m in members))

    def drop_caches(self):
        self.host.drop_caches()

    def evict(self, paths):
        """Evict the clean pages of ``paths`` (the test files) from the page cache; True when all were."""
        ok = True
        for path in paths:
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError:
                ok = False
                continue
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            except (OSError, AttributeError):
                ok = False
            finally:
                os.close(fd)
        return ok

    # ---- who uses the filesystem --------------------------------------------------------------
    def open_files(self, dev, scope, limit=20):
        """Processes holding files on the filesystem ``dev`` under ``scope`` (module_utils/holders.py)."""
        return holders.file_holders(self.host.proc_root, dev, scope, limit)

    # ---- processes -----------------------------------------------------------------------------
    def run(self, argv, what):
        """fio's stdout; FioError with RV(crash) when it fails, dies or runs out of time."""
        before = kernel_log.tainted(self.host.proc_root)
        started = kernel_log.uptime(self.host.proc_root)
        res = process_group.run(argv, self.module.params['timeout'], proc_root=self.host.proc_root,
                                env=dict(os.environ, LC_ALL='C', LANG='C'))
        if res.rc == 0 and not res.timed_out:
            return res.out
        crash = dict(rc=res.rc, signal=res.signal_name(), timed_out=res.timed_out, workers_ended=res.ended,
                     stderr=(res.err or '').strip()[-2000:],
                     kernel_died=kernel_log.died_since(before, kernel_log.tainted(self.host.proc_root)))
        crash['kernel_oops'] = kernel_log.oops_lines(self.kmsg(started)) if crash['kernel_died'] else []
        raise FioError(crash_message(what, crash, self.module.params['timeout']),
                       cmd=argv, rc=res.rc, stdout=res.out, stderr=res.err, crash=crash)

    def kernel_died_before(self):
        """The kernel's first oops line when it has oopsed since boot (taint flag D), else None."""
        if not kernel_log.died_since(0, kernel_log.tainted(self.host.proc_root)):
            return None
        found = kernel_log.oops_lines(self.kmsg())
        return found[0] if found else 'its log has no oops line left'

    def kmsg(self, since=None):
        return kernel_log.kmsg_text(os.path.join(self.host.root, 'dev', 'kmsg'), since=since)


def crash_message(what, crash, timeout):
    """One sentence for a failed fio process: how it ended, its last stderr line, the kernel's oops."""
    if crash['timed_out']:
        how = 'did not finish within %d s and was ended' % timeout
    elif crash['signal']:
        how = 'died (killed by %s)' % crash['signal']
    else:
        how = 'failed (rc=%s)' % crash['rc']
    msg = 'fio %s %s' % (what, how)
    if crash['workers_ended']:
        msg += '; its leftover processes %s were ended' % ', '.join(str(p) for p in crash['workers_ended'])
    if crash['stderr']:
        msg += ': %s' % crash['stderr'][-2000:]
    if crash['kernel_died']:
        msg += ('; the kernel oopsed during the run (taint flag D): %s'
                % (crash['kernel_oops'][0] if crash['kernel_oops'] else 'its log has no oops line left'))
    return msg


def first_data_file(mountpoint, dev):
    """A file on the filesystem mounted at ``mountpoint`` other than lost+found and the module's test files.

    Walks the filesystem (not crossing into other mounts) and stops at the first such entry; returns its
    path, or None when the filesystem holds only directories, lost+found and iotune-fio.* files.
    """
    stack = [mountpoint]
    while stack:
        current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            if current == mountpoint and entry.name == 'lost+found':
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.stat(follow_symlinks=False).st_dev == dev:
                        stack.append(entry.path)
                    continue
            except OSError:
                continue
            if entry.name.startswith(FILE_PREFIX):
                continue
            return entry.path
    return None


def drop_caches_mode(value):
    """Normalise the drop_caches option: always, never or auto (booleans: true = always, false = never)."""
    if isinstance(value, bool):
        return 'always' if value else 'never'
    text = str(value).strip().lower()
    if text in ('always', 'true', 'yes', 'on', '1'):
        return 'always'
    if text in ('never', 'false', 'no', 'off', '0'):
        return 'never'
    if text == 'auto':
        return 'auto'
    raise FioReportError('drop_caches must be always, never or auto (or a boolean), got %r' % (value,))


def job_argv(params, fio_bin, path):
    """argv (without --readonly/--create_only/--output-format) of an option-described job."""
    argv = [
        fio_bin,
        '--name=%s' % params['name'],
        '--filename=%s' % path,
        '--size=%s' % params['size'],
        '--rw=%s' % params['rw'],
        '--bs=%s' % params['bs'],
        '--ioengine=%s' % params['ioengine'],
        '--iodepth=%d' % params['iodepth'],
        '--numjobs=%d' % params['numjobs'],
        '--direct=%d' % (1 if params['direct'] else 0),
        '--fadvise_hint=%s' % params['fadvise_hint'],
        '--group_reporting=1',
        '--percentile_list=%s' % ':'.join(_fmt_pct(p) for p in params['percentiles']),
        '--lat_percentiles=1',
    ]
    if params['io_size']:
        argv.append('--io_size=%s' % params['io_size'])
    if params['runtime']:
        argv.append('--runtime=%d' % params['runtime'])
    if params['time_based']:
        argv.append('--time_based=1')
    if params['ramp_time']:
        argv.append('--ramp_time=%d' % params['ramp_time'])
    for key in sorted(params['extra']):
        value = params['extra'][key]
        name = str(key).lstrip('-')         # check_extra accepts --randrepeat as well as randrepeat
        if value is None or value is True:
            argv.append('--%s' % name)
        elif value is False:
            argv.append('--%s=0' % name)
        else:
            argv.append('--%s=%s' % (name, value))
    return argv


def mount_point_of(path):
    """The mount point of the filesystem holding ``path`` (walks up until os.path.ismount)."""
    path = os.path.realpath(path)
    while not os.path.ismount(path):
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return path


def _fmt_pct(value):
    text = ('%f' % float(value)).rstrip('0').rstrip('.')
    return text


def _option_name(text):
    """fio option name of ``text``: ``--Filename=/x`` -> ``filename`` (``-`` and ``_`` are the same)."""
    name = _WS_RE.split(str(text).strip().lstrip('-'), 1)[0]
    return name.lower().replace('-', '_')


_REFUSED_NAMES = frozenset(k.replace('-', '_') for k in REFUSED_KEYS | EXTRA_ONLY_REFUSED_KEYS)


def check_extra(extra):
    """Refuse ``extra`` keys that are reserved, not plain option names, or values with line breaks."""
    for key, value in extra.items():
        key_text = str(key)
        if _option_name(key_text) in _REFUSED_NAMES:
            raise FioReportError('extra option %r is not allowed (the module controls it)' % key_text)
        if not _EXTRA_KEY_RE.match(key_text):
            raise FioReportError('extra option %r is not a plain fio option name (no "=", spaces or other '
                                 'characters in keys; put the value in the value)' % key_text)
        if value is not None and not isinstance(value, bool) and any(c in str(value) for c in '\n\r\0'):
            raise FioReportError('extra option %r: the value must not contain a line break or NUL' % key_text)


def job_file_plan(text, size_bytes, directory, name):
    """Validate a job file and return (wrapped job text, estimated bytes of test files)."""
    sections = fio_report.count_job_file_sections(text)
    jobs = [(s, opts) for s, opts in sections if s.lower() != 'global']
    if not jobs:
        raise FioReportError('job file has no job section')
    glob_opts = {}
    for section, opts in sections:
        for key in opts:
            if key in REFUSED_KEYS - {'rw', 'readwrite'}:
                raise FioReportError('job file sets %r in [%s]: not allowed (the module places and '
                                     'protects the test files)' % (key, section))
        for key in ('rw', 'readwrite'):
            if key in opts and opts[key] not in ALLOWED_RW:
                raise FioReportError('job file [%s] uses %s=%s: only read and randread are supported'
                                     % (section, key, opts[key]))
        if section.lower() == 'global':
            glob_opts.update(opts)
    total = 0
    for section, opts in jobs:
        merged = dict(glob_opts)
        merged.update(opts)
        rw = merged.get('rw', merged.get('readwrite', 'read'))
        if rw not in ALLOWED_RW:
            raise FioReportError('job [%s] uses rw=%s: only read and randread are supported' % (section, rw))
        fsize = fio_report.parse_size(merged['size']) if 'size' in merged else size_bytes
        numjobs = int(merged.get('numjobs', '1') or 1)
        total += fsize * numjobs  # nrfiles split size, they do not multiply it
    header = '[global]\ndirectory=%s\nsize=%d\nfilename_format=%s%s.$jobname.$jobnum.$filenum.dat\n\n' % (
        directory, size_bytes, FILE_PREFIX, name)
    return header + text, total


def argument_spec():
    """The module's options (also what the tune plan checks a profile's fio_verify_jobs with)."""
    return dict(
        directory=dict(type='path', required=True),
        expected_mount=dict(type='path'),
        name=dict(type='str', default='iotune'),
        rw=dict(type='str', default='randread', choices=sorted(ALLOWED_RW)),
        bs=dict(type='str', default='4k'),
        ioengine=dict(type='str', default='psync',
                      choices=['mmap', 'psync', 'pvsync', 'pvsync2', 'sync', 'libaio', 'io_uring', 'posixaio']),
        iodepth=dict(type='int', default=1),
        numjobs=dict(type='int', default=1),
        direct=dict(type='bool', default=False),
        fadvise_hint=dict(type='str', default='0', choices=['0', '1', 'random', 'sequential', 'normal']),
        size=dict(type='str', default='256m'),
        test_file=dict(type='str'),
        io_size=dict(type='str'),
        runtime=dict(type='int'),
        time_based=dict(type='bool', default=False),
        ramp_time=dict(type='int'),
        percentiles=dict(type='list', elements='float', default=[50, 95, 99, 99.9]),
        extra=dict(type='dict', default={}),
        job_file=dict(type='path'),
        free_space_margin=dict(type='str', default='64m'),
        drop_caches=dict(type='raw', default='always'),
        allow_open_files=dict(type='bool', default=False),
        keep_file=dict(type='bool', default=False),
        repeat=dict(type='int', default=1),
        noise_max=dict(type='float', default=0.2),
        thresholds=dict(type='dict', default={}),
        read_ahead_kb=dict(type='int'),
        restore_read_ahead=dict(type='bool', default=True),
        run_job=dict(type='bool', default=True),
        timeout=dict(type='int', default=600),
    )
