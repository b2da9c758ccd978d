#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
module: io_observe
short_description: Watch the kernel's I/O counters over a window while the host keeps serving
version_added: 0.1.0
description:
  - Samples C(/proc/diskstats), C(/proc/vmstat) and, for the processes of a systemd unit, C(/proc/PID/io) over a
    window of O(seconds), every O(interval) seconds, and returns per device the read IOPS, read bytes per second,
    average read request, merge ratio and average read wait, and per host the major faults per second and the
    B(device read bytes per major fault), with a verdict that says when the window saw too little I/O to judge.
  - It is the proof of a readahead change on a host that cannot be benchmarked. Run it before and after the change
    while the database serves, and compare the two windows (filter P(iotune.storage.observe_report#filter); the role
    P(iotune.storage.tune#role) does both with C(iotune_observe_seconds)). docs/observe.md explains each figure and
    its limits.
  - Reads C(/proc) and C(/sys) only, runs no command but C(systemctl show) (to find the cgroup of O(unit)), installs
    nothing and changes nothing. Its own CPU time over the window is measured and returned in RV(cost).
  - "The host figures count each device once: the top of each stack (an md array and not its members, a whole
    disk and not its partitions, but the free partitions of a disk whose other partitions are md members)."
author:
  - iotune.storage contributors (@iotune)
options:
  seconds:
    description: Length of the window in seconds, 1 to 3600.
    type: int
    default: 60
  interval:
    description:
      - Seconds between two samples, at least 1 and at most O(seconds). The window totals use the first and the last
        sample; the samples in between give the spread of the per-interval rates (RV(spread)).
    type: int
    default: 1
  devices:
    description:
      - Kernel names (V(md127), V(nvme1n1)) or C(/dev) paths (V(/dev/md/data); links are followed) of the devices to
        report. A name that C(/proc/diskstats) does not list makes the module fail.
      - The host figures count those of them that are not below another one named (a member under its array, a
        partition under its disk).
      - Default is every top of stack of the host, without loop, ram and zram devices.
    type: list
    elements: str
  unit:
    description:
      - A systemd unit (V(cassandra), V(mongod.service)) whose processes' C(read_bytes) (C(/proc/PID/io)) are summed
        and compared with the device reads. The PIDs are read from the unit's cgroup (C(/sys/fs/cgroup/system.slice/UNIT),
        or where C(systemctl show -p ControlGroup) says) at the start and at the end of the window.
      - A unit without a cgroup (not running) makes the module fail.
    type: str
  min_major_faults:
    description:
      - Fewer major faults than this in the window give the verdict C(too little I/O to judge).
      - Set it to V(0) for a database that reads with C(pread) (WiredTiger, PostgreSQL) rather than through mmap; the
        comparison then goes by the average read request.
    type: int
    default: 200
  min_device_reads:
    description: Fewer read requests than this on the counted devices give the verdict C(too little I/O to judge).
    type: int
    default: 200
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.platform
  - iotune.storage.attributes.read_only
notes:
  - Supports check mode; it runs the same way and returns the same figures.
  - Major faults are counted for the whole host (C(/proc/vmstat)); on a host shared with other workloads they are
    not the database's alone.
  - Sectors in C(/proc/diskstats) are 512-byte units whatever the device's block size. A counter that went down
    inside the window wrapped (32-bit counters) or was reset; RV(notes) says which.
seealso:
  - name: Documentation/admin-guide/iostats.rst
    description: The fields of /proc/diskstats.
    link: https://www.kernel.org/doc/Documentation/admin-guide/iostats.rst
"""

EXAMPLES = r"""
- name: Watch the host for a minute
  iotune.storage.io_observe:
  register: observed

- name: The array and its members for 30 s, the unit's reads too, sampled every 5 s
  iotune.storage.io_observe:
    seconds: 30
    interval: 5
    devices: [/dev/md/data, vdb, vdc]
    unit: cassandra

- name: A pread engine (WiredTiger) that takes no major faults
  iotune.storage.io_observe:
    seconds: 60
    unit: mongod
    min_major_faults: 0
"""

RETURN = r"""
seconds:
  description: Length of the window measured (monotonic clock), in seconds.
  returned: always
  type: float
  sample: 60.002
interval:
  description: O(interval).
  returned: always
  type: int
samples:
  description: Number of samples taken (the first, one per interval, the last).
  returned: always
  type: int
  sample: 61
devices:
  description:
    - Per device, by kernel name, the figures of the window. Devices that appeared or disappeared inside the window
      are not here (RV(appeared), RV(disappeared), RV(notes)).
    - C(reads), C(read_bytes), C(merged_reads) (counts over the window); C(read_iops), C(read_bytes_per_s);
      C(avg_read_kib) (read bytes per read request, KiB); C(merge_ratio) (merged / (merged + completed));
      C(avg_read_wait_ms) (milliseconds reading per read request); C(busy) (share of the window with I/O in
      flight); C(notes) (counters that wrapped or were reset).
  returned: always
  type: dict
  sample: {md127: {reads: 3000, read_bytes: 1572864000, merged_reads: 0, read_iops: 300.0,
                   read_bytes_per_s: 157286400.0, avg_read_kib: 512.0, merge_ratio: 0.0, avg_read_wait_ms: 1.54,
                   busy: 0.94, notes: []}}
host:
  description:
    - The host's figures. C(devices) the devices counted (each once); C(reads), C(read_bytes), C(read_iops),
      C(read_bytes_per_s), C(avg_read_kib) over them; C(major_faults) and C(major_faults_per_s) (C(pgmajfault),
      system-wide); C(device_read_bytes_per_major_fault) (null without faults); C(pgpgin_kib); C(refaults) and
      C(refaults_per_s) (file workingset refaults).
  returned: always
  type: dict
  sample: {devices: [md127, vda], reads: 3040, read_bytes: 1573027840, read_iops: 304.0,
           read_bytes_per_s: 157302784.0, avg_read_kib: 505.32, major_faults: 3000, major_faults_per_s: 300.0,
           device_read_bytes_per_major_fault: 524343.0, pgpgin_kib: 1536160, refaults: 2900, refaults_per_s: 290.0}
processes:
  description:
    - With O(unit), its PIDs' C(read_bytes) over the window and their share of the counted devices' read bytes
      (C(pids), by PID, each with C(read_bytes), C(share_of_device_reads) and C(note); C(read_bytes) and
      C(share_of_device_reads) of them all). Null without O(unit).
  returned: always
  type: dict
  sample: {pids: {"4711": {read_bytes: 786432000, share_of_device_reads: 0.5, note: null}}, read_bytes: 786432000,
           share_of_device_reads: 0.5}
appeared:
  description: Block devices of the host that appeared inside the window.
  returned: always
  type: list
  elements: str
disappeared:
  description: Block devices of the host that disappeared inside the window.
  returned: always
  type: list
  elements: str
notes:
  description: What the figures should be read with (a device gone, a counter reset or wrapped).
  returned: always
  type: list
  elements: str
verdict:
  description: C(measured), or C(too little I/O to judge) when the window saw fewer major faults or device reads than
    O(min_major_faults) or O(min_device_reads).
  returned: always
  type: str
  sample: measured
verdict_reason:
  description: The counts the verdict was taken from, and the thresholds missed.
  returned: always
  type: str
  sample: "too little I/O to judge: 12 major faults (threshold 200)"
thresholds:
  description: O(min_major_faults) and O(min_device_reads).
  returned: always
  type: dict
spread:
  description: The smallest and largest per-interval C(major_faults_per_s) and C(read_bytes_per_s) (each C(min),
    C(max)), and the number of C(intervals).
  returned: always
  type: dict
  sample: {major_faults_per_s: {min: 251.0, max: 342.0}, read_bytes_per_s: {min: 129761280.0, max: 178257920.0},
           intervals: 60}
cost:
  description: C(cpu_seconds) of the module's process over the window (C(getrusage)) and C(share_of_one_core)
    (CPU seconds / window seconds; the aim is well under 0.01).
  returned: always
  type: dict
  sample: {cpu_seconds: 0.031, share_of_one_core: 0.00052}
unit:
  description: The systemd unit of O(unit) with its suffix, and C(cgroup) its cgroup directory; null without O(unit).
  returned: always
  type: dict
  sample: {name: cassandra.service, cgroup: /sys/fs/cgroup/system.slice/cassandra.service}
"""

import functools
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.iotune.storage.plugins.module_utils import io_observe
from ansible_collections.iotune.storage.plugins.module_utils.host import BlockHost
from ansible_collections.iotune.storage.plugins.module_utils.module_call import result_or_fail


def observe(module, host):
    """The window of the module's parameters on ``host`` (raises io_observe.ObserveError)."""
    params = module.params
    io_observe.check_window(params['seconds'], params['interval'])
    unit, pids = None, None
    if params['unit']:
        cgroup = io_observe.unit_cgroup(host, params['unit'], module.run_command)
        unit = {'name': cgroup.rsplit('/', 1)[-1], 'cgroup': cgroup}
        pids = functools.partial(io_observe.cgroup_pids, host, cgroup)
    result = io_observe.observe(host, params['seconds'], params['interval'], devices=params['devices'], pids=pids,
                                min_major_faults=params['min_major_faults'],
                                min_device_reads=params['min_device_reads'], sleep=time.sleep, clock=time.monotonic)
    result['unit'] = unit
    return result


def main():
    module = AnsibleModule(
        argument_spec=dict(
            seconds=dict(type='int', default=60),
            interval=dict(type='int', default=1),
            devices=dict(type='list', elements='str'),
            unit=dict(type='str'),
            min_major_faults=dict(type='int', default=io_observe.DEFAULT_MIN_MAJOR_FAULTS),
            min_device_reads=dict(type='int', default=io_observe.DEFAULT_MIN_DEVICE_READS),
        ),
        supports_check_mode=True,
    )
    result = result_or_fail(module, lambda: observe(module, BlockHost()), io_observe.ObserveError)
    module.exit_json(changed=False, **result)


if __name__ == '__main__':
    main()
