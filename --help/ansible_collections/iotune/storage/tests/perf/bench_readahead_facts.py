# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Benchmark (not a test) of iotune.storage.readahead_facts' collection function.

1. Builds a fake host with 500 whole block devices (200 EBS NVMe namespaces, 150 SATA disks with
   one partition each, 100 dm, 40 md, 10 attached loop) plus udev entries, by-id links and mounts,
   and times collect_block_devices() on it (best of N).
2. Times collect_block_devices() and ansible.builtin.setup's device gathering
   (LinuxHardware.get_device_facts(), which builds ansible_devices) on the real /sys of this
   machine, in-process, best of N, and prints the ratio.
3. Optionally (--setup-cli) times a full `ansible localhost -m ansible.builtin.setup
   -a gather_subset=!all,!min,hardware` for context (includes ansible start-up).

Run from the repository root:
  PYTHONPATH=build/collections .venv/bin/python tests/perf/bench_readahead_facts.py [--runs 20]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, '..', 'unit', 'plugins', 'fixtures', 'host.py')

from ansible_collections.iotune.storage.plugins.module_utils.sysfs_block import collect_block_devices  # noqa: E402


def load_fake_host():
    spec = importlib.util.spec_from_file_location('iotune_fake_host_bench', FAKE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build_500(root):
    fh = load_fake_host()
    host = fh.FakeHost(root)
    n = 0
    for i in range(200):
        name = 'nvme%dn1' % i
        ebs = {'model': 'Amazon Elastic Block Store   ', 'serial': 'vol%017x' % i}
        host.add_disk(name, '259:%d' % i, device=ebs, holders=['md%d' % (i // 5)])
        host.dev_link('disk/by-id/nvme-Amazon_Elastic_Block_Store_vol%017x' % i, '../../' + name)
        host.udev_db('259:%d' % i, {'ID_SERIAL_SHORT': 'vol%017x' % i, 'DEVTYPE': 'disk'})
        n += 1
    for i in range(150):
        name = 'sd' + chr(97 + i // 26) + chr(97 + i % 26)
        host.add_disk(name, '8:%d' % (16 * i), device={'model': 'SSD', 'vendor': 'ATA'},
                      queue={'scheduler': 'none [mq-deadline] kyber bfq', 'rotational': '1'})
        host.add_partition(name, name + '1', '8:%d' % (16 * i + 1), 1)
        host.udev_db('8:%d' % (16 * i), {'ID_SERIAL_SHORT': 'S%06d' % i, 'ID_WWN': '0x5%015x' % i})
        host.dev_link('disk/by-id/ata-SSD_S%06d' % i, '../../' + name)
        host.dev_link('disk/by-id/ata-SSD_S%06d-part1' % i, '../../' + name + '1')
        host.mount('8:%d' % (16 * i + 1), '/srv/d%d' % i, 'xfs', '/dev/%s1' % name)
        n += 1
    for i in range(40):
        name = 'md%d' % i
        host.add_disk(name, '9:%d' % i, queue={'optimal_io_size': '2621440'},
                      drop_queue=('scheduler', 'nr_requests'),
                      slaves=['nvme%dn1' % j for j in range(5 * i, 5 * i + 5)],
                      holders=['dm-%d' % i])
        for key, value in (('level', 'raid0'), ('chunk_size', '524288'), ('raid_disks', '5'),
                           ('array_state', 'clean'), ('metadata_version', '1.2'),
                           ('uuid', '%08x-0000-0000-0000-%012x' % (i, i))):
            host.write('sys/block/%s/md/%s' % (name, key), value + '\n')
        host.udev_db('9:%d' % i, {'MD_NAME': 'db:%d' % i, 'MD_DEVNAME': 'd%d' % i})
        host.dev_link('md/d%d' % i, '../' + name)
        n += 1
    for i in range(100):
        name = 'dm-%d' % i
        host.add_disk(name, '253:%d' % i, drop_queue=('scheduler', 'nr_requests'),
                      slaves=['md%d' % i] if i < 40 else ())
        host.write('sys/block/%s/dm/name' % name, 'vg-lv%d\n' % i)
        host.write('sys/block/%s/dm/uuid' % name, 'LVM-%d\n' % i)
        host.mount('253:%d' % i, '/var/lib/db%d' % i, 'xfs', '/dev/mapper/vg-lv%d' % i)
        n += 1
    for i in range(10):
        name = 'loop%d' % i
        host.add_disk(name, '7:%d' % i)
        host.write('sys/block/%s/loop/backing_file' % name, '/srv/img%d\n' % i)
        n += 1
    assert n == 500, n
    return host


def best_of(func, runs):
    best = None
    result = None
    for dummy in range(runs):
        start = time.perf_counter()
        result = func()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None or elapsed < best else best
    return best, result


def setup_device_facts():
    """ansible.builtin.setup's builder of ansible_devices, in-process on the real host."""
    from ansible.module_utils.basic import AnsibleModule
    from ansible.module_utils.facts.hardware.linux import LinuxHardware
    from ansible.module_utils.testing import patch_module_args
    with patch_module_args({}):
        module = AnsibleModule(argument_spec={})
    hw = LinuxHardware(module)
    return hw.get_device_facts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=20)
    parser.add_argument('--setup-cli', action='store_true',
                        help='also time the full ansible setup command (includes start-up)')
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix='bench_readahead_facts_')
    try:
        host = build_500(tmp)
        fake_time, facts = best_of(lambda: collect_block_devices(include_loop=True, **host.roots),
                                   args.runs)
        entries = len(facts[0])
    finally:
        shutil.rmtree(tmp)

    real_names = sorted(os.listdir('/sys/block'))
    ours_time, ours = best_of(lambda: collect_block_devices(devices=real_names), args.runs)
    get_devices = setup_device_facts()
    setup_time, setup = best_of(get_devices, args.runs)

    print('python %s, %d runs, best time each' % (sys.version.split()[0], args.runs))
    print('fake host, 500 whole devices (%d entries incl. partitions): collect_block_devices %.1f ms'
          % (entries, fake_time * 1000))
    print('  target < 50 ms: %s' % ('met' if fake_time < 0.05 else 'NOT met'))
    print('real host (%d devices in /sys/block): collect_block_devices %.2f ms (%d entries)'
          % (len(real_names), ours_time * 1000, len(ours[0])))
    print('real host: setup LinuxHardware.get_device_facts %.2f ms (%d ansible_devices)'
          % (setup_time * 1000, len(setup.get('devices', {}))))
    print('ratio setup / readahead_facts on the same devices: %.1fx' % (setup_time / ours_time))
    if args.setup_cli:
        env = dict(os.environ, ANSIBLE_NOCOLOR='1')
        cmd = ['ansible', 'localhost', '-m', 'ansible.builtin.setup',
               '-a', 'gather_subset=!all,!min,hardware']
        start = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        print('full `%s`: %.0f ms (one run, includes ansible start-up)'
              % (' '.join(cmd), (time.perf_counter() - start) * 1000))


if __name__ == '__main__':
    main()
