# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations


class ModuleDocFragment(object):
    """The fio module's options that describe the job and its repetition.

    The part of module_utils/fio.argument_spec that the fio_verify role passes per job and that the tune_plan
    filter checks a profile's fio_verify_jobs with (name, rw, bs, ioengine, ..., job_file; repeat, noise_max,
    thresholds). Only the fio module extends it: it lives here so that plugins/modules/fio.py stays under the
    house limit of 400 lines (issue 24); ansible-doc shows these options on the module's page as before.
    """

    DOCUMENTATION = r"""
options:
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
"""
