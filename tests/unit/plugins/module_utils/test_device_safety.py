# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import device_safety as ds
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.mdadm.fakehost import FakeHost


@pytest.fixture
def host(tmp_path):
    h = FakeHost(tmp_path)
    h.disk('vdb', '254:16', by_id='virtio-volA')
    h.disk('vdc', '254:32', by_id='virtio-volB')
    return h


def view(host):
    return ds.SystemView(run_command=host.run, root=host.root)


def test_resolve_by_id_and_kernel_name(host):
    dev = ds.resolve(view(host), '/dev/disk/by-id/virtio-volA')
    assert dev.resolved == '/dev/vdb'
    assert dev.kname == 'vdb'
    assert dev.majmin == (254, 16)
    assert dev.size_bytes == 1 << 30
    assert dev.label == '/dev/disk/by-id/virtio-volA (/dev/vdb)'


def test_resolve_missing_and_not_block(host):
    with pytest.raises(ds.DeviceError, match='/dev/vdz does not exist'):
        ds.resolve(view(host), '/dev/vdz')
    host.write('dev/notblock', '')
    with pytest.raises(ds.DeviceError, match='/dev/notblock is not a block device'):
        ds.resolve(view(host), '/dev/notblock')
    with pytest.raises(ds.DeviceError, match='not an absolute'):
        ds.resolve(view(host), 'vdb')


def test_duplicates_name_both_paths(host):
    devices, errors = ds.resolve_all(view(host), ['/dev/disk/by-id/virtio-volA', '/dev/vdc', '/dev/vdb'])
    assert [d.kname for d in devices] == ['vdb', 'vdc']
    assert errors == ['/dev/disk/by-id/virtio-volA and /dev/vdb are the same device (/dev/vdb); list each device once']


def test_blank_device_passes(host):
    devices, dummy = ds.resolve_all(view(host), ['/dev/vdb'])
    refusals, to_wipe = ds.check_writable(view(host), devices, set())
    assert refusals == [] and to_wipe == []


@pytest.mark.parametrize('probe, wipefs, expected', [
    ('TYPE=xfs\nUUID=1111-2222\nLABEL=old\n', [{'type': 'xfs', 'offset': '0x0', 'uuid': '1111-2222'}],
     'xfs filesystem signature (UUID 1111-2222, LABEL old)'),
    ('TYPE=LVM2_member\nUUID=abc\nVERSION=LVM2 001\n', [{'type': 'LVM2_member', 'offset': '0x218'}],
     'LVM2 physical volume signature (UUID abc)'),
    ('TYPE=linux_raid_member\nUUID=aa\nLABEL=other:x\n', [], 'md RAID superblock signature (UUID aa, LABEL other:x)'),
    ('PTUUID=5f1e\nPTTYPE=gpt\n', [{'type': 'PMBR', 'offset': '0x1fe'}, {'type': 'gpt', 'offset': '0x200'}],
     'gpt partition table (PTUUID 5f1e)'),
    ('TYPE=ext4\nUUID=e4\n', [], 'ext4 filesystem signature (UUID e4)'),
])
def test_signatures_refused_with_reason(host, probe, wipefs, expected):
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdb'], 0, probe)
    host.on(['wipefs', '--no-act', '--json', '/dev/vdb'], 0, json.dumps({'signatures': wipefs}))
    devices, dummy = ds.resolve_all(view(host), ['/dev/disk/by-id/virtio-volA'])
    refusals, to_wipe = ds.check_writable(view(host), devices, set())
    assert to_wipe == []
    assert refusals == ['refusing /dev/disk/by-id/virtio-volA (/dev/vdb): %s; add it to wipe_devices to allow '
                        'wiping' % expected]


def test_signature_only_seen_by_wipefs_is_refused(host):
    # blkid -p reports one (ambiguous-free) result; wipefs lists everything it finds
    host.on(['wipefs', '--no-act', '--json', '/dev/vdb'], 0,
            json.dumps({'signatures': [{'type': 'btrfs', 'offset': '0x10040', 'uuid': 'b1'}]}))
    devices, dummy = ds.resolve_all(view(host), ['/dev/vdb'])
    refusals, dummy = ds.check_writable(view(host), devices, set())
    assert 'btrfs filesystem signature (offset 0x10040, UUID b1)' in refusals[0]


def test_opt_in_allows_wipe(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdb'], 0, 'TYPE=xfs\nUUID=1\n')
    devices, dummy = ds.resolve_all(view(host), ['/dev/vdb', '/dev/vdc'])
    refusals, to_wipe = ds.check_writable(view(host), devices, {(254, 16)})
    assert refusals == []
    assert [d.kname for d in to_wipe] == ['vdb']


def test_blkid_failure_is_not_blank(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdb'], 4, '', 'blkid: error: /dev/vdb: Input/output error')
    devices, dummy = ds.resolve_all(view(host), ['/dev/vdb'])
    refusals, to_wipe = ds.check_writable(view(host), devices, {(254, 16)})
    assert to_wipe == []
    assert 'cannot probe it' in refusals[0] and 'Input/output error' in refusals[0]


def test_mounted_partition_refused_even_with_opt_in(host):
    host.disk('vdd', '254:48', partitions={'vdd1': '254:49'})
    host.mount('254:49', '/srv/old')
    devices, dummy = ds.resolve_all(view(host), ['/dev/vdd'])
    refusals, to_wipe = ds.check_writable(view(host), devices, {(254, 48)})
    assert to_wipe == []
    assert refusals[0].startswith('refusing /dev/vdd: mounted on /srv/old (partition /dev/vdd1)')
    assert 'not even with wipe_devices' in refusals[0]


def test_mounted_whole_disk(host):
    host.mount('254:16', '/data')
    devices, dummy = ds.resolve_all(view(host), ['/dev/vdb'])
    refusals, dummy = ds.check_writable(view(host), devices, set())
    assert 'mounted on /data' in refusals[0]


def test_swap_and_holders(host):
    host.disk('vde', '254:64')
    host.disk('vdf', '254:80', holders=['md127'])
    host.disk('vdg', '254:96', holders=['dm-0'])
    host.swap('/dev/vde')
    devices, dummy = ds.resolve_all(view(host), ['/dev/vde', '/dev/vdf', '/dev/vdg'])
    refusals, dummy = ds.check_writable(view(host), devices, {(254, 64), (254, 80), (254, 96)})
    assert 'refusing /dev/vde: in use as swap' in refusals[0]
    assert 'refusing /dev/vdf: held by an active md array (/dev/md127)' in refusals[1]
    assert 'refusing /dev/vdg: held by another device (/dev/dm-0)' in refusals[2]


def test_existing_partitions_are_reported(host):
    host.disk('vdh', '254:112', partitions={'vdh1': '254:113'})
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdh'], 0, 'PTTYPE=dos\n')
    devices, dummy = ds.resolve_all(view(host), ['/dev/vdh'])
    refusals, dummy = ds.check_writable(view(host), devices, set())
    assert 'dos partition table; partition /dev/vdh1' in refusals[0]


def test_size_mismatch(host):
    host.disk('vdi', '254:128', size_bytes=2 << 30)
    devices, dummy = ds.resolve_all(view(host), ['/dev/vdb', '/dev/vdi'])
    msg = ds.size_mismatch(devices)
    assert '/dev/vdb has 1073741824 bytes' in msg and '/dev/vdi has 2147483648 bytes' in msg
    same, dummy = ds.resolve_all(view(host), ['/dev/vdb', '/dev/vdc'])
    assert ds.size_mismatch(same) is None


def test_parse_export():
    assert ds.parse_export('A=1\nB=x=y\n\nbad\n') == {'A': '1', 'B': 'x=y'}
