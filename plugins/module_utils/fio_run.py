# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One call of the fio module: ``FioRun``, small steps that raise ``FioError``, in the order ``run()`` takes them.

The parameters first (nothing is read before every one is valid), then where the directory is (mount point,
device, members, free space), the readahead-only calls, the refusals (a kernel that has oopsed, processes holding
files, free space) and the commands; check mode stops there. The measurement lays out the test files, runs the
measured runs, and afterwards always restores the readahead and removes the test files (unless the kernel
oopsed under them). The host is reached through ``fio.Measurer`` only.
"""

from __future__ import annotations

import glob
import os

from ansible_collections.iotune.storage.plugins.module_utils import fio, fio_report
from ansible_collections.iotune.storage.plugins.module_utils.fio import FILE_PREFIX, FioError
from ansible_collections.iotune.storage.plugins.module_utils.fio_report import FioReportError
from ansible_collections.iotune.storage.plugins.module_utils.sysfs_block import SysfsBlockError


def page_cache_note(drop_mode, buffered, drop, data_found):
    """The one sentence of RV(page_cache) for reports."""
    if not buffered:
        return 'direct I/O: the page cache is not used'
    if drop:
        return 'host page cache dropped before every run (drop_caches=%s%s)' % (
            drop_mode, ': the filesystem holds no files' if drop_mode == 'auto' else '')
    if drop_mode == 'auto':
        return ('host page cache not dropped: the filesystem holds files (e.g. %s); only the '
                'test file was evicted (set drop_caches=always to drop the whole cache)' % data_found)
    return 'host page cache not dropped (drop_caches=never); only the test file was evicted'


class FioRun(object):
    """One module call: small steps that raise FioError; ``run()`` returns the result."""

    def __init__(self, module, measurer):
        self.module = module
        self.host = measurer
        self.p = module.params
        self.result = dict(changed=False)

    def refuse(self, msg, with_result=False):
        raise FioError(msg, **(self.result if with_result else {}))

    def run(self):
        self.check_params()
        self.directory = os.path.realpath(self.p['directory'])
        if not os.path.isdir(self.directory):
            return self.missing_directory()
        self.locate()
        done = self.readahead_only()
        if done is not None:
            return done
        self.check_kernel()
        self.check_open_files()
        self.plan_commands()
        self.check_free_space()
        if self.module.check_mode:
            return self.would_measure()
        self.plan_page_cache()
        runs, evicted = self.measure()
        return self.report(runs, evicted)

    def missing_directory(self):
        """A refusal; in check mode the result of a call that measures nothing now (a later task may create it)."""
        if not self.module.check_mode:
            self.refuse('directory %s does not exist or is not a directory' % self.directory)
        self.result['msg'] = 'directory %s does not exist (yet); nothing would be measured now' % self.directory
        self.result['skipped_reason'] = self.result['msg']
        return self.result

    def would_measure(self):
        """The result of check mode once every refusal has been checked."""
        self.result['msg'] = 'check mode: would lay out %s and run %d measured run(s) on %s' % (
            fio_report.fmt_bytes(self.needed), self.p['repeat'], self.device)
        return self.result

    # ---- parameters ---------------------------------------------------------------------------
    def check_params(self):
        """Validate the parameters; sets drop_mode, size_bytes (None for auto) and margin."""
        self.check_names_and_limits()
        self.parse_params()
        if self.size_bytes is not None and self.size_bytes <= 0:
            self.refuse('size must be > 0')

    def check_names_and_limits(self):
        """The job and test file names, the counts and the options that need one another."""
        p = self.p
        if not p['name'] or '/' in p['name'] or p['name'].startswith('.'):
            self.refuse('name %r must be a plain job name (no "/")' % p['name'])
        if p['repeat'] < 1:
            self.refuse('repeat must be >= 1')
        if p['timeout'] < 1:
            self.refuse('timeout must be >= 1 (seconds)')
        if p['time_based'] and not p['runtime']:
            self.refuse('time_based requires runtime')
        if p['read_ahead_kb'] is not None and p['read_ahead_kb'] < 0:
            self.refuse('read_ahead_kb must be >= 0')
        if p['test_file'] and (not p['test_file'].startswith(FILE_PREFIX) or '/' in p['test_file']):
            self.refuse('test_file %r must be a base name starting with %r' % (p['test_file'], FILE_PREFIX))
        if p['job_file'] and p['test_file']:
            self.refuse('test_file cannot be used with job_file (file names come from the job sections)')

    def parse_params(self):
        """drop_caches, extra, the sizes and the thresholds, read the way fio_report reads them."""
        p = self.p
        try:
            self.drop_mode = fio.drop_caches_mode(p['drop_caches'])
            fio.check_extra(p['extra'])
            self.size_bytes = None if p['size'] == 'auto' else fio_report.parse_size(p['size'])
            self.margin = fio_report.parse_size(p['free_space_margin'])
            if p['io_size']:
                fio_report.parse_size(p['io_size'])
            fio_report.check_thresholds({}, p['thresholds'])  # validates names and limits
        except FioReportError as exc:
            self.refuse(str(exc))

    # ---- where are we? --------------------------------------------------------------------------
    def locate(self):
        """Mount point, device, members, free space and test file size of ``directory``."""
        self.find_mount_point()
        self.find_device()
        st = os.statvfs(self.directory)
        self.free = st.f_bavail * st.f_frsize
        self.result['free_bytes'] = self.free
        self.test_file = os.path.join(self.directory,
                                      self.p['test_file'] or '%s%s.dat' % (FILE_PREFIX, self.p['name']))
        if self.size_bytes is None:
            self.size_from_free_space()
        self.result['size_bytes'] = self.size_bytes

    def find_mount_point(self):
        """The mount point of ``directory``; a refusal when it is not ``expected_mount``."""
        mountpoint = fio.mount_point_of(self.directory)
        self.mountpoint = mountpoint
        self.result['mountpoint'] = mountpoint
        if self.p['expected_mount'] and os.path.realpath(self.p['expected_mount']) != mountpoint:
            raise FioError('%s is on the filesystem mounted at %s, not on expected_mount %s: refusing to measure'
                           % (self.directory, mountpoint, self.p['expected_mount']), mountpoint=mountpoint)

    def find_device(self):
        """The block device under ``directory`` and its members; a refusal when there is none."""
        try:
            self.device = self.host.host.device_for_path(self.directory)
        except SysfsBlockError as exc:
            self.refuse('refusing to measure %s: %s' % (self.directory, exc))
        self.result['device'] = self.device
        self.members = self.host.members(self.device)

    def size_from_free_space(self):
        """size=auto: from the free space, or the size of the test file already there."""
        if self.p['job_file']:
            self.refuse('size=auto is not supported with job_file')
        existing_size = os.path.getsize(self.test_file) if os.path.exists(self.test_file) else 0
        self.size_bytes = fio_report.auto_size(self.free, existing_size)
        self.p['size'] = str(self.size_bytes)

    # ---- readahead ----------------------------------------------------------------------------
    def readahead_only(self):
        """Read the readahead when it is needed; the result when the call is about readahead only, else None."""
        p = self.p
        self.ra_dev = None
        if p['read_ahead_kb'] is None and p['run_job']:
            return None
        previous = self.read_previous_read_ahead()
        if p['read_ahead_kb'] is None:
            # readahead only: report the current value and run nothing
            self.result['read_ahead'] = dict(device=self.ra_dev, previous=previous, used=previous, restored=False)
            return self.result
        self.result['read_ahead'] = dict(device=self.ra_dev, previous=previous, used=None, restored=False)
        if p['run_job']:
            return None
        return self.set_read_ahead_only(previous)

    def read_previous_read_ahead(self):
        """read_ahead_kb of the device owning it (sets ra_dev); a refusal when it cannot be read."""
        try:
            self.ra_dev = self.host.readahead_device(self.device)
            return self.host.get_ra(self.ra_dev)
        except (SysfsBlockError, OSError, ValueError) as exc:
            self.refuse('cannot read readahead of %s: %s' % (self.device, exc))

    def set_read_ahead_only(self, previous):
        """run_job=false with read_ahead_kb: set it (in check mode only say so), no restore."""
        p = self.p
        changed = previous != p['read_ahead_kb']
        if changed and not self.module.check_mode:
            used = self.set_ra(p['read_ahead_kb'])
        else:
            used = p['read_ahead_kb'] if self.module.check_mode else previous
        self.result['read_ahead']['used'] = used
        self.result['changed'] = changed
        return self.result

    def set_ra(self, value):
        try:
            return self.host.set_ra(self.ra_dev, value)
        except (OSError, ValueError) as exc:
            self.refuse('cannot set %s read_ahead_kb=%d: %s' % (self.ra_dev, value, exc))

    # ---- a kernel that has oopsed is not measured on ----------------------------------------------
    def check_kernel(self):
        """Refuse on a kernel that has oopsed since boot (read-only; also in check mode): a measurement on it
        can hang in the kernel, and its figures mean nothing."""
        oops = self.host.kernel_died_before()
        if oops:
            self.refuse('refusing to measure %s: the kernel has oopsed since it booted (taint flag D): %s. A '
                        'measurement on it can hang or crash; reboot the host first' % (self.directory, oops))

    # ---- nobody may use the filesystem ----------------------------------------------------------
    def check_open_files(self):
        """Refuse when processes hold files on the filesystem (read-only; also in check mode)."""
        mountpoint = self.mountpoint
        self.fs_dev = os.stat(mountpoint).st_dev
        scope = mountpoint if mountpoint != '/' else self.directory
        users, unreadable = self.host.open_files(self.fs_dev, scope)
        self.result['open_files'] = users
        if users and not self.p['allow_open_files']:
            self.refuse('refusing to measure %s: %d process(es) hold files on the filesystem mounted at %s: %s. '
                        'Stop them (a database must not be benchmarked under its feet), or set allow_open_files=true '
                        '(role fio_verify: fio_verify_force=true)'
                        % (self.directory, len(users), mountpoint,
                           ', '.join('pid %d (%s, %s %s)' % (h['pid'], h['comm'], h['how'], h['path']) for h in users)),
                        with_result=True)
        if unreadable:
            self.module.warn('%d process(es) could not be inspected for open files on %s (run as root)'
                             % (unreadable, mountpoint))

    # ---- plan the commands --------------------------------------------------------------------
    def plan_commands(self):
        """layout and measured commands, the bytes the test files need and the files already there."""
        fio_bin = self.module.get_bin_path('fio', required=not self.module.check_mode) or 'fio'
        self.wrapped = None
        base = self.plan_job_file(fio_bin) if self.p['job_file'] else self.plan_option_job(fio_bin)
        self.layout_cmd = base + ['--create_only=1', '--output-format=json']
        self.cmd = base + ['--readonly', '--output-format=json']
        self.result['layout_cmd'] = self.layout_cmd
        self.result['cmd'] = self.cmd

    def plan_job_file(self, fio_bin):
        """job_file: the wrapped job text, the bytes its test files need and those already there; fio's argv."""
        p = self.p
        try:
            with open(p['job_file']) as f:
                text = f.read()
            self.wrapped, self.needed = fio.job_file_plan(text, self.size_bytes, self.directory, p['name'])
        except (IOError, OSError) as exc:
            self.refuse('cannot read job_file %s: %s' % (p['job_file'], exc))
        except (FioReportError, ValueError) as exc:
            self.refuse('job_file %s: %s' % (p['job_file'], exc))
        self.test_glob = os.path.join(self.directory, '%s%s.*.dat' % (FILE_PREFIX, p['name']))
        self.existing = dict((f, os.path.getsize(f)) for f in glob.glob(self.test_glob))
        return [fio_bin]

    def plan_option_job(self, fio_bin):
        """The job of the options: one test file, maybe already there; fio's argv."""
        base = fio.job_argv(self.p, fio_bin, self.test_file)
        self.needed = self.size_bytes
        self.test_glob = None
        self.existing = {self.test_file: os.path.getsize(self.test_file)} if os.path.exists(self.test_file) else {}
        return base

    def check_free_space(self):
        missing = max(0, self.needed - sum(self.existing.values()))
        if missing + self.margin > self.free:
            self.refuse('not enough free space in %s: test file(s) need %s more, margin %s, free %s'
                        % (self.directory, fio_report.fmt_bytes(missing), fio_report.fmt_bytes(self.margin),
                           fio_report.fmt_bytes(self.free)), with_result=True)

    # ---- page cache ------------------------------------------------------------------------------
    def plan_page_cache(self):
        """Whether the runs are buffered and the host cache is dropped before each; the page_cache result."""
        drop_mode = self.drop_mode
        buffered = bool(self.p['job_file'] or not self.p['direct'])
        data_found = fio.first_data_file(self.mountpoint, self.fs_dev) if drop_mode == 'auto' and buffered else None
        drop = buffered and (drop_mode == 'always' or (drop_mode == 'auto' and data_found is None))
        self.buffered = buffered
        self.drop = drop
        self.page_cache = dict(mode=drop_mode, buffered=buffered, host_cache_dropped=drop, test_file_evicted=False,
                               data_found=data_found, note=page_cache_note(drop_mode, buffered, drop, data_found))

    # ---- run --------------------------------------------------------------------------------------
    def measure(self):
        """Lay out the test files, run the measured runs; readahead restored and test files removed after.

        Returns (runs, evicted).
        """
        self.created = []
        self.runs = []
        leave_files = False
        try:
            self.lay_out()
            if self.ra_dev is not None:
                self.result['read_ahead']['used'] = self.set_ra(self.p['read_ahead_kb'])
            evicted = self.measured_runs()
        except (FioReportError, SysfsBlockError, OSError) as exc:
            self.result['runs'] = self.runs
            raise FioError('measurement failed: %s' % exc, **self.result)
        except FioError as exc:
            leave_files = self.leave_files_after_oops(exc)
            raise
        finally:
            self.clean_up(self.created, remove_files=not leave_files)
        return self.runs, evicted

    def lay_out(self):
        """The unmeasured layout run (a job file is written to the module's tmpdir first); notes the files created."""
        if self.p['job_file']:
            tmp_job = os.path.join(self.module.tmpdir, 'job.fio')
            with open(tmp_job, 'w') as f:
                f.write(self.wrapped)
            self.layout_cmd.append(tmp_job)
            self.cmd.append(tmp_job)
        self.host.run(self.layout_cmd, 'layout')
        if self.test_glob:
            self.created = [f for f in glob.glob(self.test_glob) if f not in self.existing]
        elif not self.existing:
            self.created = [self.test_file]

    def measured_runs(self):
        """``repeat`` measured runs, each cold (test files evicted, maybe the host cache dropped); True when every
        eviction worked."""
        test_files = sorted(glob.glob(self.test_glob)) if self.test_glob else [self.test_file]
        evicted = True
        for _i in range(self.p['repeat']):
            if self.buffered:
                evicted = self.host.evict(test_files) and evicted
                if self.drop:
                    self.host.drop_caches()
            self.runs.append(self.measured_run())
        return evicted

    def measured_run(self):
        """One measured fio run between two snapshots of the device's and its members' stat."""
        before, members_before = self.host.snapshot(self.device, self.members)
        out = self.host.run(self.cmd, 'measured run')
        after, members_after = self.host.snapshot(self.device, self.members)
        data = fio_report.load_fio_json(out)
        return fio_report.build_run_result(data, self.device, before, after, members_before, members_after)

    def leave_files_after_oops(self, exc):
        """True when the kernel oopsed during the fio run of ``exc``: its test files are then named in the crash and
        the message, and left in place (unlinking on a filesystem whose kernel code just oopsed can hang for good)."""
        crash = exc.data.get('crash') or {}
        if not crash.get('kernel_died'):
            return False
        crash['test_files_left'] = sorted(set(list(self.existing) + self.created)) or [self.test_glob or
                                                                                       self.test_file]
        exc.args = ('%s; test files left in place: %s' % (exc, ', '.join(crash['test_files_left'])),)
        return True

    def clean_up(self, created, remove_files=True):
        if self.ra_dev is not None and self.p['restore_read_ahead']:
            try:
                self.host.set_ra(self.ra_dev, self.result['read_ahead']['previous'])
                self.result['read_ahead']['restored'] = True
            except (OSError, ValueError):
                self.result['read_ahead']['restored'] = False
        if remove_files and not self.p['keep_file']:
            paths = set(list(self.existing) + created)
            for path in paths:
                try:
                    os.unlink(path)
                except OSError:
                    pass
            self.result['test_files_removed'] = not any(os.path.lexists(path) for path in paths)

    # ---- the result ---------------------------------------------------------------------------------
    def report(self, runs, evicted):
        p = self.p
        result = self.result
        result['page_cache'] = self.final_page_cache(evicted)
        agg = fio_report.aggregate_runs(runs, p['noise_max'])
        passed, checks = fio_report.check_thresholds(agg, p['thresholds'], p['noise_max'])
        result.update(agg)
        result['runs'] = runs
        result['fio_version'] = runs[-1].get('fio_version')
        result['fio_disk_util_read_bytes'] = runs[-1].get('fio_disk_util_read_bytes')
        result['thresholds'] = checks
        result['thresholds_passed'] = passed
        result['verdict'] = fio_report.verdict(checks, p['noise_max'])
        result['summary'] = fio_report.summary_line(p['name'], agg, result['verdict'])
        result['summary_header'] = fio_report.SUMMARY_HEADER
        if self.ra_dev is not None and p['restore_read_ahead'] and not result['read_ahead']['restored']:
            self.refuse('could not restore %s read_ahead_kb to %s' % (self.ra_dev, result['read_ahead']['previous']),
                        with_result=True)
        return result

    def final_page_cache(self, evicted):
        """The page_cache result once the runs are done: whether the test file was evicted before every run."""
        page_cache = self.page_cache
        page_cache['test_file_evicted'] = bool(self.buffered and evicted)
        if self.buffered and not evicted and not self.drop:
            page_cache['note'] += ' (eviction of the test file failed: results may be warm)'
        return page_cache
