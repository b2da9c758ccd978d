#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
module: fio
short_description: Measure read performance and readahead amplification of a filesystem with fio
version_added: 0.1.0
description:
  - Runs one fio read job (described by options or by O(job_file)) on a test file inside a mounted
    filesystem and returns IOPS, bandwidth, latency percentiles and, from snapshots of
    C(/sys/block/<dev>/stat) of the device under the filesystem and of its members (md/dm slaves),
    the bytes the device really read and the read amplification (device bytes / application bytes).
  - The test file is laid out first in a separate, unmeasured step (fio C(--create_only=1)). The
    measured run uses fio C(--readonly), so the measured job can never write.
  - Never works on a raw device. O(directory) must be an existing directory on a mounted block device
    filesystem; the module refuses to run when the filesystem lacks free space for the test file plus
    O(free_space_margin).
  - Before each buffered run (O(direct=false)) the test file's own pages are evicted from the page cache
    (C(fsync) and C(posix_fadvise(POSIX_FADV_DONTNEED)) on the test file only), so the data reads are cold
    without touching any other file's cache.
  - Depending on O(drop_caches), the page cache of the B(whole host) is dropped too (C(sync) and C(3)
    written to C(/proc/sys/vm/drop_caches)), which also evicts cached metadata. This evicts the cache of
    every application on the host (a serving database loses its hot set); V(auto) does it only when the
    filesystem holds no files besides C(lost+found) and the module's own test files. RV(page_cache) says
    what was done.
  - Refuses to run when a process holds files on the measured filesystem (open file descriptors, working
    directory, or memory-mapped files such as Cassandra's SSTables, found by reading C(/proc/<pid>/fd),
    C(/proc/<pid>/cwd) and C(/proc/<pid>/maps)), naming each process; O(allow_open_files) overrides it.
  - Optionally sets C(queue/read_ahead_kb) of the device under the filesystem before the job and
    restores the previous value afterwards, also when fio fails (O(read_ahead_kb)). fio opens the test
    file after the change, so the new value is used (readahead is snapshotted per open file).
  - Repeats the measurement O(repeat) times and returns the median of every metric with the noise
    (max-min)/median, and checks O(thresholds) against the medians.
  - Device counters include every I/O on the device during the run; other activity on the same
    filesystem inflates RV(device_read_bytes) and RV(read_amplification).
author:
  - iotune.storage contributors (@iotune)
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.platform
attributes:
  check_mode:
    support: full
    details: Runs nothing, reports the fio command lines that would run (C(changed) is always false).
  diff_mode:
    support: none
notes:
  - It is a measurement, so it reports C(changed=false), except with O(run_job=false) where it only
    sets O(read_ahead_kb) and reports whether that changed the device.
  - Works with fio 3.33 (Debian 12) whose JSON has no C(read_sectors) in C(disk_util); that field
    (fio >= 3.36) is returned as RV(fio_disk_util_read_bytes) for cross-checking when present.
  - Needs root for O(drop_caches) and O(read_ahead_kb).
requirements:
  - fio
options:
  directory:
    description:
      - Existing directory on the filesystem to measure; the test file is created in it.
    type: path
    required: true
  expected_mount:
    description:
      - If set, O(directory) must be on the filesystem mounted exactly here, otherwise the module fails.
    type: path
  name:
    description: Job name (also used for the test file name C(iotune-fio.<name>.dat)).
    type: str
    default: iotune
  rw:
    description: Access pattern. Only reads are supported (the measured run is read-only).
    type: str
    choices: [read, randread]
    default: randread
  bs:
    description: Block size of each read (fio syntax, for example C(4k), C(1m)).
    type: str
    default: 4k
  ioengine:
    description: fio I/O engine. C(mmap) reads through page faults (mmap read-around readahead).
    type: str
    choices: [mmap, psync, pvsync, pvsync2, sync, libaio, io_uring, posixaio]
    default: psync
  iodepth:
    description: Queue depth (only meaningful for asynchronous engines).
    type: int
    default: 1
  numjobs:
    description: Number of parallel fio jobs on the same test file (reported as one group).
    type: int
    default: 1
  direct:
    description: Use O_DIRECT (bypass the page cache; readahead does not apply).
    type: bool
    default: false
  fadvise_hint:
    description:
      - fio C(fadvise_hint). fio's own default C(1) applies C(POSIX_FADV_RANDOM)/C(MADV_RANDOM) to
        random jobs and hides readahead effects, so this module defaults to C(0).
    type: str
    choices: ['0', '1', random, sequential, normal]
    default: '0'
  size:
    description:
      - Size of the test file (bytes or fio size with a binary k/m/g/t suffix; no percentages).
      - V(auto) uses 25 % of the free space, clamped to 64 MiB .. 1 GiB (or the size of an existing
        test file of the same name, so that consecutive calls with O(keep_file) reuse it).
    type: str
    default: 256m
  test_file:
    description:
      - Base name of the test file inside O(directory) (default C(iotune-fio.<name>.dat)). Must start
        with C(iotune-fio.) so that only the module's own files are ever created or removed. Several
        jobs can share one file with O(keep_file=true).
    type: str
  io_size:
    description: Amount of data each job reads (fio C(io_size)); smaller than O(size) for random jobs.
    type: str
  runtime:
    description: Runtime limit in seconds (fio C(runtime)).
    type: int
  time_based:
    description: Keep running for O(runtime) even when O(io_size)/O(size) has been read.
    type: bool
    default: false
  ramp_time:
    description: Seconds of warm-up excluded from the statistics.
    type: int
  percentiles:
    description: Latency percentiles to request (50, 95, 99, 99.9 are returned).
    type: list
    elements: float
    default: [50, 95, 99, 99.9]
  extra:
    description:
      - Additional fio options as a dict (each item passed as C(--key=value)); a value of V(null) or V(true)
        passes a bare C(--key). Options that would change the test file location or size, disable the
        read-only run, write, run programs, or that the module sets itself (use its option instead) are
        refused.
      - Keys must be plain option names (letters, digits, C(_), C(-); leading C(--) allowed); a key that
        carries C(=) or whitespace (C(filename=/dev/sda)) is refused, and so is a value with a line break
        or NUL.
    type: dict
    default: {}
  job_file:
    description:
      - Path (on the managed host) of a fio job file to run instead of the option-described job.
      - The module adds a C([global]) section with C(directory), C(size) and C(filename_format) so test
        files land in O(directory); the job file must not set C(filename), C(directory),
        C(filename_format), C(readonly) or C(opendir). Read-only workloads only.
    type: path
  free_space_margin:
    description: Free space that must remain on the filesystem after the test file is laid out.
    type: str
    default: 64m
  drop_caches:
    description:
      - Drop the page cache of the whole host before each buffered run (see description).
      - V(always) (or V(true)) drops it; V(never) (or V(false)) does not; V(auto) drops it only when the
        filesystem holds no files besides C(lost+found) and the module's own C(iotune-fio.*) test files
        (a freshly created filesystem), i.e. when no application on it can lose its cache.
      - The test file itself is evicted before every buffered run in any case, so the data reads are cold
        either way; without the host-wide drop, filesystem metadata may be cached.
    type: raw
    default: always
  allow_open_files:
    description:
      - Run even when processes hold files on the measured filesystem (open, as working directory or
        memory-mapped). Without it the module refuses and names the processes (pid and command).
      - The measurement competes with those processes for the device, and their I/O inflates the device
        counters.
    type: bool
    default: false
  keep_file:
    description: Keep the test file(s) after the run (to reuse them in a following call).
    type: bool
    default: false
  repeat:
    description: Number of measured runs; results are the medians.
    type: int
    default: 1
  noise_max:
    description: A result is flagged RV(noisy) when (max-min)/median of IOPS or amplification exceeds this.
    type: float
    default: 0.2
  thresholds:
    description:
      - Limits checked against the median results, C(<metric>_max) or C(<metric>_min), for example
        C(read_amplification_max), C(iops_min), C(p99_us_max), C(device_bw_bytes_min). The module
        does not fail when a threshold is missed; see RV(thresholds_passed).
    type: dict
    default: {}
  read_ahead_kb:
    description:
      - Set C(queue/read_ahead_kb) (KiB) of the device under the filesystem (its parent disk for a
        partition) for the measured runs, and restore the previous value afterwards.
    type: int
  restore_read_ahead:
    description: Restore the previous readahead after the runs (only with O(read_ahead_kb)).
    type: bool
    default: true
  run_job:
    description:
      - If V(false), run no fio job. With O(read_ahead_kb) only set it (no restore) and report C(changed)
        when the value differed (used to put a saved value back at the end of a sweep); without it only
        report the device and its current readahead in RV(read_ahead).
    type: bool
    default: true
  timeout:
    description:
      - Seconds one fio process (the layout or one measured run) may take. fio runs in a process group of
        its own; when it does not return in time, or returns with an error, what is left of the group (its
        workers) is ended (C(SIGTERM), C(SIGKILL) 10 s later) before the module returns, so no stray worker
        keeps the test file open.
      - On a kernel that has oopsed since it booted (taint flag C(D)) the module refuses to measure at all (also in
        check mode), naming the kernel's first oops line.
      - A fio that dies is reported as such in RV(crash) (signal, stderr, whether the time limit ended it) with
        what the kernel said. When the kernel oopsed during the run (its C(D) taint flag set since the run
        started), RV(crash.kernel_oops) holds its oops lines from C(/dev/kmsg), and the test files are left
        in place (removing them could hang on the broken filesystem) and named in RV(crash.test_files_left).
    type: int
    default: 600
"""

EXAMPLES = r"""
- name: Amplification of 4 KiB random mmap reads on the Cassandra filesystem
  iotune.storage.fio:
    directory: /var/lib/cassandra
    expected_mount: /var/lib/cassandra
    name: mmap_rand4k
    ioengine: mmap
    rw: randread
    bs: 4k
    fadvise_hint: '0'
    size: 1g
    io_size: 32m
    repeat: 3
    thresholds:
      read_amplification_max: 2.0
  register: mmap_rand4k

- name: Sequential 1 MiB direct reads for 10 s
  iotune.storage.fio:
    directory: /var/lib/kafka
    name: seq1m
    rw: read
    bs: 1m
    ioengine: libaio
    iodepth: 16
    direct: true
    size: 2g
    runtime: 10
    time_based: true

- name: One point of a readahead sweep (value restored afterwards)
  iotune.storage.fio:
    directory: /srv/data
    name: sweep
    ioengine: mmap
    read_ahead_kb: 16
    keep_file: true

- name: Read the current readahead of the device under /srv/data
  iotune.storage.fio:
    directory: /srv/data
    run_job: false
  register: ra_before

- name: Put a saved readahead value back without running fio
  iotune.storage.fio:
    directory: /srv/data
    read_ahead_kb: "{{ ra_before.read_ahead.previous }}"
    run_job: false
"""

RETURN = r"""
crash:
  description:
    - Only when fio failed, died or ran out of time (the module then fails); see O(timeout).
  returned: failure of a fio process
  type: dict
  contains:
    rc:
      description: fio's exit status; negative for the signal that ended it.
      type: int
    signal:
      description: Name of the signal that ended fio (C(SIGABRT) for a C(double free)), else null.
      type: str
    timed_out:
      description: Whether the time limit ended it.
      type: bool
    workers_ended:
      description: pids of fio's process group still alive after it returned, which the module ended.
      type: list
      elements: int
    stderr:
      description: The last 2000 characters of fio's stderr.
      type: str
    kernel_died:
      description: Whether the kernel oopsed (taint flag C(D) set) during the run.
      type: bool
    kernel_oops:
      description: The kernel's oops, BUG and panic lines logged in C(/dev/kmsg) during the run, when it oopsed.
      type: list
      elements: str
    test_files_left:
      description: Test files left in place because the kernel oopsed during the run.
      type: list
      elements: str
      returned: when the kernel oopsed during a measured run
  sample: {rc: -6, signal: SIGABRT, timed_out: false, workers_ended: [7221], stderr: "free(): double free detected in tcache 2",
           kernel_died: true, kernel_oops: ["BUG: unable to handle page fault for address: fffffffffffffec8"],
           test_files_left: [/var/lib/cassandra/iotune-fio.verify.dat]}
cmd:
  description: argv of the measured fio run.
  returned: always
  type: list
  elements: str
layout_cmd:
  description: argv of the unmeasured layout step.
  returned: always
  type: list
  elements: str
device:
  description: Kernel name of the block device under the filesystem.
  returned: when the device could be determined
  type: str
  sample: md0
members:
  description: Per member (slave) device median read numbers (md/dm members), keyed by name.
  returned: success
  type: dict
  sample: {vdb: {device_read_bytes: 4194304, device_read_ios: 1024, avg_request_kb: 4.0}}
iops:
  description: Median read IOPS.
  returned: success
  type: float
bw_bytes:
  description: Median application read bandwidth in bytes/s.
  returned: success
  type: int
p50_us:
  description: Median 50th latency percentile in microseconds (total latency if fio reported it, else completion latency).
  returned: success
  type: float
p95_us:
  description: Median 95th latency percentile (µs).
  returned: success
  type: float
p99_us:
  description: Median 99th latency percentile (µs).
  returned: success
  type: float
p99_9_us:
  description: Median 99.9th latency percentile (µs).
  returned: success
  type: float
runtime_ms:
  description: Median runtime of the measured job (ms).
  returned: success
  type: int
io_bytes:
  description: Median bytes the application read.
  returned: success
  type: int
device_read_bytes:
  description: Median bytes read by the device (delta of stat read sectors x 512).
  returned: success
  type: int
device_read_ios:
  description: Median read requests completed by the device.
  returned: success
  type: int
device_read_merges:
  description: Median read merges on the device.
  returned: success
  type: int
device_bw_bytes:
  description: Median device read bandwidth (device_read_bytes / runtime) in bytes/s.
  returned: success
  type: int
avg_request_kb:
  description: Median average device read request size in KiB.
  returned: success
  type: float
read_amplification:
  description: Median device bytes read / application bytes read (1.0 = no waste).
  returned: success
  type: float
  sample: 1.02
fio_disk_util_read_bytes:
  description: Bytes read according to fio's own disk_util (fio >= 3.36 only, else null), last run.
  returned: success
  type: int
noise:
  description: Per metric (max-min)/median over the runs.
  returned: success
  type: dict
noisy:
  description: True when the IOPS or amplification noise exceeds O(noise_max); do not trust the result.
  returned: success
  type: bool
repeat:
  description: Number of measured runs.
  returned: success
  type: int
runs:
  description: The per-run results (same metrics as the top level plus per-job numbers).
  returned: success
  type: list
  elements: dict
thresholds:
  description:
    - One entry per threshold with C(name), C(metric), C(kind) (max/min), C(limit), C(value) (median),
      C(passed), C(noise) and C(trusted) (false when that metric's noise exceeds O(noise_max)).
  returned: success
  type: list
  elements: dict
thresholds_passed:
  description: True when every threshold passed (also true without thresholds).
  returned: success
  type: bool
verdict:
  description:
    - C(pass); C(fail) when a threshold is missed and that metric's noise is at most O(noise_max);
      C(noisy) when only noisy metrics missed their thresholds (the result is not trusted).
  returned: success
  type: str
  sample: pass
size_bytes:
  description: Size of the test file in bytes (resolved when O(size=auto)).
  returned: when the directory exists
  type: int
summary_header:
  description: Column header for RV(summary).
  returned: success
  type: str
summary:
  description: One fixed-width summary line (job, IOPS, bw, amplification, p99, avg request, noise, verdict).
  returned: success
  type: str
page_cache:
  description:
    - What the module did to the page cache - C(mode) (V(always), V(never), V(auto)), C(buffered) (false
      for O(direct) jobs, which do not use the page cache), C(host_cache_dropped) (whether C(/proc/sys/vm/drop_caches) was written before the buffered runs),
      C(test_file_evicted) (the test file's pages were evicted before every buffered run), C(data_found)
      (in V(auto) mode, a file found on the filesystem that made the module keep the host's cache, else
      null) and C(note) (one sentence for reports).
  returned: when fio ran (not in check mode)
  type: dict
  sample: {mode: auto, buffered: true, host_cache_dropped: false, test_file_evicted: true,
           data_found: /var/lib/cassandra/data/ks/t/nb-1-big-Data.db,
           note: "host page cache not dropped: the filesystem holds files (e.g. ...)"}
open_files:
  description:
    - Processes that hold files on the measured filesystem - C(pid), C(comm), C(how) (V(fd), V(cwd) or
      V(mmap)) and one C(path). The module refuses to run when this is not empty unless O(allow_open_files).
  returned: when the directory exists and a job would run
  type: list
  elements: dict
  sample: [{pid: 812, comm: java, how: mmap, path: /var/lib/cassandra/data/ks/t/nb-1-big-Data.db}]
read_ahead:
  description:
    - Readahead handling - C(device) (the disk owning C(queue/read_ahead_kb)), C(previous) (value found),
      C(used) (value in force for the runs), C(restored).
  returned: when O(read_ahead_kb) is set or O(run_job=false)
  type: dict
  sample: {device: md0, previous: 4096, used: 8, restored: true}
fio_version:
  description: Version reported by fio.
  returned: success
  type: str
  sample: fio-3.33
"""

import copy
import glob
import os
import re

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.iotune.storage.plugins.module_utils import fio_report, holders, kernel_log, process_group
from ansible_collections.iotune.storage.plugins.module_utils.fio_report import FioReportError
from ansible_collections.iotune.storage.plugins.module_utils.host import BlockHost
from ansible_collections.iotune.storage.plugins.module_utils.sysfs_block import SysfsBlockError

FILE_PREFIX = 'iotune-fio.'
# Root of the host the module reads (tests point it at a fake tree).
HOST_ROOT = '/'
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


def build_module():
    return AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)


class FioRun(object):
    """One module call: small steps that raise FioError; ``run()`` returns the result."""

    def __init__(self, module, measurer):
        self.module = module
        self.host = measurer
        self.p = module.params
        self.result = dict(changed=False)

    def refuse(self, msg, with_result=False):
        raise FioError(msg, **(self.result if with_result else {}))

    # ---- parameters ---------------------------------------------------------------------------
    def check_params(self):
        """Validate the parameters; sets drop_mode, size_bytes (None for auto) and margin."""
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
        try:
            self.drop_mode = drop_caches_mode(p['drop_caches'])
            check_extra(p['extra'])
            self.size_bytes = None if p['size'] == 'auto' else fio_report.parse_size(p['size'])
            self.margin = fio_report.parse_size(p['free_space_margin'])
            if p['io_size']:
                fio_report.parse_size(p['io_size'])
            fio_report.check_thresholds({}, p['thresholds'])  # validates names and limits
        except FioReportError as exc:
            self.refuse(str(exc))
        if self.size_bytes is not None and self.size_bytes <= 0:
            self.refuse('size must be > 0')

    # ---- where are we? --------------------------------------------------------------------------
    def locate(self):
        """Mount point, device, members, free space and test file size of ``directory``."""
        p = self.p
        directory = self.directory
        mountpoint = mount_point_of(directory)
        self.mountpoint = mountpoint
        self.result['mountpoint'] = mountpoint
        if p['expected_mount'] and os.path.realpath(p['expected_mount']) != mountpoint:
            raise FioError('%s is on the filesystem mounted at %s, not on expected_mount %s: refusing to measure'
                           % (directory, mountpoint, p['expected_mount']), mountpoint=mountpoint)
        try:
            self.device = self.host.host.device_for_path(directory)
        except SysfsBlockError as exc:
            self.refuse('refusing to measure %s: %s' % (directory, exc))
        self.result['device'] = self.device
        self.members = self.host.members(self.device)
        st = os.statvfs(directory)
        self.free = st.f_bavail * st.f_frsize
        self.result['free_bytes'] = self.free
        self.test_file = os.path.join(directory, p['test_file'] or '%s%s.dat' % (FILE_PREFIX, p['name']))
        if self.size_bytes is None:
            if p['job_file']:
                self.refuse('size=auto is not supported with job_file')
            existing_size = os.path.getsize(self.test_file) if os.path.exists(self.test_file) else 0
            self.size_bytes = fio_report.auto_size(self.free, existing_size)
            p['size'] = str(self.size_bytes)
        self.result['size_bytes'] = self.size_bytes

    # ---- readahead ----------------------------------------------------------------------------
    def readahead_only(self):
        """Read the readahead when it is needed; the result when the call is about readahead only, else None."""
        p = self.p
        self.ra_dev = None
        if p['read_ahead_kb'] is None and p['run_job']:
            return None
        try:
            self.ra_dev = self.host.readahead_device(self.device)
            previous = self.host.get_ra(self.ra_dev)
        except (SysfsBlockError, OSError, ValueError) as exc:
            self.refuse('cannot read readahead of %s: %s' % (self.device, exc))
        if p['read_ahead_kb'] is None:
            # readahead only: report the current value and run nothing
            self.result['read_ahead'] = dict(device=self.ra_dev, previous=previous, used=previous, restored=False)
            return self.result
        self.result['read_ahead'] = dict(device=self.ra_dev, previous=previous, used=None, restored=False)
        if p['run_job']:
            return None
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
        p = self.p
        directory = self.directory
        fio_bin = self.module.get_bin_path('fio', required=not self.module.check_mode) or 'fio'
        self.wrapped = None
        if p['job_file']:
            try:
                with open(p['job_file']) as f:
                    text = f.read()
                self.wrapped, self.needed = job_file_plan(text, self.size_bytes, directory, p['name'])
            except (IOError, OSError) as exc:
                self.refuse('cannot read job_file %s: %s' % (p['job_file'], exc))
            except (FioReportError, ValueError) as exc:
                self.refuse('job_file %s: %s' % (p['job_file'], exc))
            base = [fio_bin]
            self.test_glob = os.path.join(directory, '%s%s.*.dat' % (FILE_PREFIX, p['name']))
            self.existing = dict((f, os.path.getsize(f)) for f in glob.glob(self.test_glob))
        else:
            base = job_argv(p, fio_bin, self.test_file)
            self.needed = self.size_bytes
            self.test_glob = None
            self.existing = {self.test_file: os.path.getsize(self.test_file)} if os.path.exists(self.test_file) else {}
        self.layout_cmd = base + ['--create_only=1', '--output-format=json']
        self.cmd = base + ['--readonly', '--output-format=json']
        self.result['layout_cmd'] = self.layout_cmd
        self.result['cmd'] = self.cmd

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
        data_found = first_data_file(self.mountpoint, self.fs_dev) if drop_mode == 'auto' and buffered else None
        drop = buffered and (drop_mode == 'always' or (drop_mode == 'auto' and data_found is None))
        page_cache = dict(mode=drop_mode, buffered=buffered, host_cache_dropped=drop, test_file_evicted=False,
                          data_found=data_found)
        if not buffered:
            page_cache['note'] = 'direct I/O: the page cache is not used'
        elif drop:
            page_cache['note'] = 'host page cache dropped before every run (drop_caches=%s%s)' % (
                drop_mode, ': the filesystem holds no files' if drop_mode == 'auto' else '')
        elif drop_mode == 'auto':
            page_cache['note'] = ('host page cache not dropped: the filesystem holds files (e.g. %s); only the '
                                  'test file was evicted (set drop_caches=always to drop the whole cache)' % data_found)
        else:
            page_cache['note'] = 'host page cache not dropped (drop_caches=never); only the test file was evicted'
        self.buffered = buffered
        self.drop = drop
        self.page_cache = page_cache

    # ---- run --------------------------------------------------------------------------------------
    def measure(self):
        """Lay out the test files, run the measured runs; readahead restored and test files removed after.

        Returns (runs, evicted).
        """
        p = self.p
        created = []
        runs = []
        evicted = True
        leave_files = False
        try:
            if p['job_file']:
                tmp_job = os.path.join(self.module.tmpdir, 'job.fio')
                with open(tmp_job, 'w') as f:
                    f.write(self.wrapped)
                self.layout_cmd.append(tmp_job)
                self.cmd.append(tmp_job)
            self.host.run(self.layout_cmd, 'layout')
            if self.test_glob:
                created = [f for f in glob.glob(self.test_glob) if f not in self.existing]
            elif not self.existing:
                created = [self.test_file]
            if self.ra_dev is not None:
                self.result['read_ahead']['used'] = self.set_ra(p['read_ahead_kb'])
            test_files = sorted(glob.glob(self.test_glob)) if self.test_glob else [self.test_file]
            for _i in range(p['repeat']):
                if self.buffered:
                    evicted = self.host.evict(test_files) and evicted
                    if self.drop:
                        self.host.drop_caches()
                before, members_before = self.host.snapshot(self.device, self.members)
                out = self.host.run(self.cmd, 'measured run')
                after, members_after = self.host.snapshot(self.device, self.members)
                data = fio_report.load_fio_json(out)
                runs.append(fio_report.build_run_result(data, self.device, before, after, members_before, members_after))
        except (FioReportError, SysfsBlockError, OSError) as exc:
            self.result['runs'] = runs
            raise FioError('measurement failed: %s' % exc, **self.result)
        except FioError as exc:
            crash = exc.data.get('crash') or {}
            if crash.get('kernel_died'):
                # unlinking on a filesystem whose kernel code just oopsed can hang for good: leave them
                leave_files = True
                crash['test_files_left'] = sorted(set(list(self.existing) + created)) or [self.test_glob or
                                                                                          self.test_file]
                exc.args = ('%s; test files left in place: %s' % (exc, ', '.join(crash['test_files_left'])),)
            raise
        finally:
            self.clean_up(created, remove_files=not leave_files)
        return runs, evicted

    def clean_up(self, created, remove_files=True):
        if self.ra_dev is not None and self.p['restore_read_ahead']:
            try:
                self.host.set_ra(self.ra_dev, self.result['read_ahead']['previous'])
                self.result['read_ahead']['restored'] = True
            except (OSError, ValueError):
                self.result['read_ahead']['restored'] = False
        if remove_files and not self.p['keep_file']:
            for path in set(list(self.existing) + created):
                try:
                    os.unlink(path)
                except OSError:
                    pass

    def report(self, runs, evicted):
        p = self.p
        result = self.result
        page_cache = self.page_cache
        page_cache['test_file_evicted'] = bool(self.buffered and evicted)
        if self.buffered and not evicted and not self.drop:
            page_cache['note'] += ' (eviction of the test file failed: results may be warm)'
        result['page_cache'] = page_cache
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

    def run(self):
        self.check_params()
        self.directory = os.path.realpath(self.p['directory'])
        if not os.path.isdir(self.directory):
            if self.module.check_mode:
                self.result['msg'] = 'directory %s does not exist (yet); nothing would be measured now' % self.directory
                self.result['skipped_reason'] = self.result['msg']
                return self.result
            self.refuse('directory %s does not exist or is not a directory' % self.directory)
        self.locate()
        done = self.readahead_only()
        if done is not None:
            return done
        self.check_kernel()
        self.check_open_files()
        self.plan_commands()
        self.check_free_space()
        if self.module.check_mode:
            self.result['msg'] = 'check mode: would lay out %s and run %d measured run(s) on %s' % (
                fio_report.fmt_bytes(self.needed), self.p['repeat'], self.device)
            return self.result
        self.plan_page_cache()
        runs, evicted = self.measure()
        return self.report(runs, evicted)


def main():
    module = build_module()
    job = FioRun(module, Measurer(module, BlockHost(root=HOST_ROOT)))
    try:
        result = job.run()
    except FioError as exc:
        module.fail_json(msg=str(exc), **exc.data)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
