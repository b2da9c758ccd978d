# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import xfs
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import fixture


def test_parse_xfs_info_loop_su64k_sw4():
    # captured from mkfs.xfs 6.1.0 (Debian 12): mkfs.xfs -d su=64k,sw=4 on a 1 GiB loop device
    info = xfs.parse_xfs_info(fixture('xfs', 'xfs_info_su64k_sw4.txt'))
    assert info['meta-data']['device'] == '/dev/loop1'
    assert info['meta-data']['agcount'] == 8
    assert info['data']['bsize'] == 4096
    assert info['data']['sunit'] == 16 and info['data']['swidth'] == 64
    assert info['naming']['bsize'] == 4096
    assert info['log']['sunit'] == 16
    geom = xfs.geometry(info)
    assert geom['su_kb'] == 64 and geom['sw'] == 4
    assert xfs.check_alignment(geom, 64, 4) == []


def test_parse_xfs_info_md_su256k_sw4():
    # captured in the lab VM: XFS on /dev/md/data (RAID0, 4 x 1 GiB, chunk 256K)
    geom = xfs.geometry(xfs.parse_xfs_info(fixture('xfs', 'xfs_info_md_su256k_sw4.txt')))
    assert (geom['bsize'], geom['sunit_blocks'], geom['swidth_blocks']) == (4096, 64, 256)
    assert (geom['su_kb'], geom['sw']) == (256, 4)


def test_check_alignment_reports_both_units():
    geom = {'bsize': 4096, 'sunit_blocks': 16, 'swidth_blocks': 64, 'su_kb': 64, 'sw': 4}
    problems = xfs.check_alignment(geom, 256, 4)
    assert problems == ['stripe unit is 64 KiB (xfs_info sunit=16 blks of 4096 bytes), wanted 256 KiB']
    assert xfs.check_alignment(geom, 64, 2) == ['stripe width is 4 x su (xfs_info swidth=64 blks), wanted sw=2']
    assert xfs.check_alignment(geom, None, None) == []


def test_unaligned_filesystem():
    geom = xfs.geometry({'data': {'bsize': 4096, 'sunit': 0, 'swidth': 0}})
    assert geom['su_kb'] == 0 and geom['sw'] == 0
    assert xfs.check_alignment(geom, 256, 4)


@pytest.mark.parametrize('level, chunk, disks, expected', [
    ('raid0', '262144', '4', (256, 4)),
    ('raid0', '524288', '2', (512, 2)),
    ('raid5', '65536', '4', (64, 3)),
    ('raid6', '65536', '6', (64, 4)),
    ('raid1', '0', '2', None),
    ('raid10', '65536', '4', None),
    ('raid0', None, '4', None),
])
def test_md_stripe(level, chunk, disks, expected):
    assert xfs.md_stripe(level, chunk, disks) == expected


def test_mkfs_argv():
    assert xfs.mkfs_argv('/sbin/mkfs.xfs', '/dev/md127', 'data', 256, 4) == [
        '/sbin/mkfs.xfs', '-L', 'data', '-d', 'su=256k,sw=4', '/dev/md127']
    assert xfs.mkfs_argv('mkfs.xfs', '/dev/vdb', None, None, None) == ['mkfs.xfs', '/dev/vdb']
