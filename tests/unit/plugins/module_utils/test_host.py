# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/host.py: the one reader of the block host, its per-call memos and the parent lookup."""

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import host as host_utils
from ansible_collections.iotune.storage.plugins.module_utils.sysfs_block import SysfsBlockError

BLKID_VDB = ['blkid', '-p', '-o', 'export', '/dev/vdb']


@pytest.fixture
def host(fake_host):
    fake_host.disk('vdb', '254:16', by_id='virtio-volA')
    fake_host.disk('vdk', '254:160', partitions={'vdk1': '254:161', 'vdk2': '254:162'})
    return fake_host


def test_blkid_runs_once_per_device(host):
    host.on(BLKID_VDB, 0, 'TYPE=xfs\nUUID=0b7e-11\n')
    view = host.view()
    first = view.blkid_probe('/dev/vdb')
    first['TYPE'] = 'changed by the caller'
    assert view.blkid_probe('/dev/vdb') == {'TYPE': 'xfs', 'UUID': '0b7e-11'}
    assert view.blkid_probe('/dev/vdk') == {}
    assert view.blkid_probe('/dev/vdk') == {}
    assert host.ran(['blkid']) == [BLKID_VDB, ['blkid', '-p', '-o', 'export', '/dev/vdk']]


def test_blkid_fresh_probes_again(host):
    view = host.view()
    assert view.blkid_probe('/dev/vdb') == {}
    host.on(BLKID_VDB, 0, 'TYPE=xfs\n')
    assert view.blkid_probe('/dev/vdb') == {}
    assert view.blkid_probe('/dev/vdb', fresh=True) == {'TYPE': 'xfs'}
    assert len(host.ran(['blkid'])) == 2


def test_blkid_failure_is_raised_every_time_and_not_remembered(host):
    host.on(BLKID_VDB, 4, '', 'blkid: error')
    view = host.view()
    for dummy in range(2):
        with pytest.raises(host_utils.DeviceError, match='blkid -p /dev/vdb failed'):
            view.blkid_probe('/dev/vdb')
    assert len(host.ran(['blkid'])) == 2


def test_one_inventory_per_host(host, inventory_scans):
    view = host.view(page_size=4096)
    assert view.inventory() is view.inventory()
    assert view.inventory().order == ['vdb', 'vdk', 'vdk1', 'vdk2']
    assert inventory_scans == [host.sys]


def test_parent_disk_and_readahead_device(host):
    view = host.view()
    assert view.parent_disk('vdk2') == 'vdk'
    assert view.parent_disk('vdk') is None
    assert view.parent_disk('vdb') is None
    assert view.readahead_device('vdk1') == 'vdk'
    assert view.readahead_device('vdb') == 'vdb'
    assert view.partitions('vdk') == ['vdk1', 'vdk2']
    with pytest.raises(SysfsBlockError, match='no queue/read_ahead_kb for nope'):
        view.readahead_device('nope')


def test_read_ahead_round_trip(host):
    view = host.view()
    assert view.read_ahead_kb('vdb') == 128
    assert view.set_read_ahead_kb('vdb', 64) == 64
    assert host.read('sys/block/vdb/queue/read_ahead_kb') == '64\n'


def test_block_numbers_come_from_stat_without_injection(host):
    view = host_utils.BlockHost(root=host.root)
    assert view.block_majmin('/dev/vdb') is None     # a plain file, not a block special file
    assert host.view().block_majmin('/dev/vdb') == (254, 16)


def test_roots_follow_root(host):
    view = host.view()
    assert (view.sys_root, view.proc_root, view.dev_root, view.udev_root) == (host.sys, host.proc, host.dev, host.udev)
    real = host_utils.BlockHost()
    assert (real.sys_root, real.proc_root, real.dev_root, real.udev_root) == ('/sys', '/proc', '/dev', '/run/udev')


@pytest.mark.parametrize('offset, length, data_at, expected', [
    (0, 3 * host_utils.READ_BUFFER, None, None),                                     # blank: None
    (0, 3 * host_utils.READ_BUFFER, 0, 0),                                           # the very first byte
    (0, 3 * host_utils.READ_BUFFER, host_utils.READ_BUFFER - 1, host_utils.READ_BUFFER - 1),  # a buffer's last byte
    (0, 3 * host_utils.READ_BUFFER, host_utils.READ_BUFFER, host_utils.READ_BUFFER),  # the next buffer's first
    (100, 2 * host_utils.READ_BUFFER, 2 * host_utils.READ_BUFFER + 7, 2 * host_utils.READ_BUFFER + 7),  # unaligned
    (100, 1000, 1100, None),                                                          # just past the region
    (100, 1000, 1099, 1099),                                                          # its last byte
    (0, 10 * host_utils.READ_BUFFER, None, None),                                    # past the device's end: None
    (0, 10 * host_utils.READ_BUFFER, 4 * host_utils.READ_BUFFER - 2, 4 * host_utils.READ_BUFFER - 2),  # its last byte
])
def test_first_nonzero(tmp_path, offset, length, data_at, expected):
    """The absolute offset of the first non-zero byte of the region, buffer boundaries and a short device's end
    included (the device here: 4 buffers less one byte, blank unless data_at is given)."""
    dev = tmp_path / 'dev'
    content = bytearray(4 * host_utils.READ_BUFFER - 1)
    if data_at is not None and data_at < len(content):
        content[data_at] = 0x5a
    dev.write_bytes(bytes(content))
    view = host_utils.BlockHost(root=str(tmp_path))
    assert view.first_nonzero('/dev', offset, length) == expected
