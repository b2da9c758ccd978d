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
    every application on the host (a serving database loses its hot set). RV(page_cache) says what was done.
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
  - iotune.storage.fio_job
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
  # the job's options (name, rw, bs, ioengine ... job_file) and repeat, noise_max, thresholds: doc_fragments/fio_job.py
  directory:
    description:
      - Existing directory on the filesystem to measure; the test file is created in it.
    type: path
    required: true
  expected_mount:
    description:
      - If set, O(directory) must be on the filesystem mounted exactly here, otherwise the module fails.
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
      - The test file is evicted in any case (see description); without the host-wide drop, filesystem
        metadata may be cached.
    type: raw
    default: always
  allow_open_files:
    description:
      - Run even when processes hold files on the measured filesystem (see description). The measurement
        competes with them for the device, and their I/O inflates the device counters.
    type: bool
    default: false
  keep_file:
    description: Keep the test file(s) after the run (to reuse them in a following call).
    type: bool
    default: false
  read_ahead_kb:
    description:
      - C(queue/read_ahead_kb) (KiB) for the measured runs (see description); set on the parent disk of a partition.
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
        its own; when it does not return in time, or returns with an error, its leftover workers are ended
        (C(SIGTERM), C(SIGKILL) 10 s later) before the module returns, so none keeps the test file open.
      - On a kernel that has oopsed since it booted (taint flag C(D)) the module refuses to measure at all (also in
        check mode), naming the kernel's first oops line.
      - A fio that dies is reported in RV(crash). When the kernel oopsed during the run, the test files are left
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
test_files_removed:
  description:
    - V(true) when the run removed its test files and none of them is left (O(keep_file=false)); a caller that
      would otherwise remove them itself can skip that.
  returned: when the module measured and O(keep_file=false)
  type: bool
  sample: true
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.iotune.storage.plugins.module_utils.fio import FioError, Measurer, argument_spec
from ansible_collections.iotune.storage.plugins.module_utils.fio_run import FioRun
from ansible_collections.iotune.storage.plugins.module_utils.host import BlockHost
from ansible_collections.iotune.storage.plugins.module_utils.module_call import result_or_fail

# Root of the host the module reads (tests point it at a fake tree).
HOST_ROOT = '/'


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    job = FioRun(module, Measurer(module, BlockHost(root=HOST_ROOT)))
    result = result_or_fail(module, job.run, FioError)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
