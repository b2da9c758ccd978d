# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import device_safety as ds


@pytest.fixture
def host(fake_host):
    h = fake_host
    h.disk('vdb', '254:16', by_id='virtio-volA')
    h.disk('vdc', '254:32', by_id='virtio-volB')
    return h


def view(host):
    return host.view()


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


SAN_LUN = 'naa.600a098038303053453f463045727a6b'


def two_paths(fake_host, sizes=(1 << 30, 1 << 30), wwid=SAN_LUN, partitions=False):
    """sdb and sdc, one LUN through two HBAs (no dm-multipath): one world-wide id on both SCSI devices."""
    for kname, majmin, size, parts in (('sdb', '8:16', sizes[0], {'sdb1': '8:17'}),
                                       ('sdc', '8:32', sizes[1], {'sdc1': '8:33'})):
        fake_host.disk(kname, majmin, size_bytes=size, partitions=parts if partitions else None)
        fake_host.write('sys/block/%s/device/wwid' % kname, wwid + '\n')
    return fake_host


def test_two_paths_to_one_lun_are_one_disk(fake_host):
    devices, errors = ds.resolve_all(two_paths(fake_host).view(), ['/dev/sdb', '/dev/sdc'])
    assert [d.kname for d in devices] == ['sdb']
    assert errors == ['/dev/sdb and /dev/sdc are two paths to one disk (both report wwid %s): a RAID0 over both '
                      'would write the same blocks twice; use its multipath device (dm-multipath) or list it once'
                      % SAN_LUN]


def test_two_paths_to_one_lun_are_one_disk_for_their_partitions_too(fake_host):
    devices, errors = ds.resolve_all(two_paths(fake_host, partitions=True).view(), ['/dev/sdb1', '/dev/sdc1'])
    assert len(devices) == 1 and 'both report wwid %s, partition 1' % SAN_LUN in errors[0]
    # two partitions of one disk are two devices
    devices, errors = ds.resolve_all(fake_host.view(), ['/dev/sdb1', '/dev/sdc'])
    assert len(devices) == 2 and errors == []


def test_one_virtio_serial_on_two_disks_is_one_disk(host):
    for kname in ('vdb', 'vdc'):
        host.write('sys/block/%s/serial' % kname, 'volA\n')
    devices, errors = ds.resolve_all(view(host), ['/dev/vdb', '/dev/vdc'])
    assert len(devices) == 1 and 'two paths to one disk (both report serial volA)' in errors[0]


@pytest.mark.parametrize('wwid,sizes', [
    ('eui.0000000000000000', (1 << 30, 1 << 30)),      # a bogus namespace identifier names no disk
    ('naa.0000000000000000', (1 << 30, 1 << 30)),
    ('t10.VMware  Virtual disk    ', (1 << 30, 1 << 30)),   # a vendor id only: the same on every disk of a hypervisor
    (SAN_LUN, (1 << 30, 2 << 30)),                      # one identity, two sizes: not one disk
])
def test_placeholder_identities_and_other_sizes_are_two_disks(fake_host, wwid, sizes):
    devices, errors = ds.resolve_all(two_paths(fake_host, sizes=sizes, wwid=wwid).view(), ['/dev/sdb', '/dev/sdc'])
    assert len(devices) == 2 and errors == []


def test_namespaces_of_one_nvme_controller_are_two_disks(fake_host):
    # they share the controller's serial (device/serial), never read as an identity; their wwids differ
    for nsid in (1, 2):
        kname = 'nvme0n%d' % nsid
        fake_host.disk(kname, '259:%d' % nsid)
        fake_host.write('sys/block/%s/device/serial' % kname, 'S4EVNX0R123456\n')
        fake_host.write('sys/block/%s/wwid' % kname, 'eui.0025388b9150f1%02d\n' % nsid)
    devices, errors = ds.resolve_all(fake_host.view(), ['/dev/nvme0n1', '/dev/nvme0n2'])
    assert len(devices) == 2 and errors == []


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


@pytest.mark.parametrize('uuid, text', [
    ('LVM-Xq3aBcD9v8w7u6t5s4r3q2p1o0n9m8l7k6j5i4h3g2f1e0d9c8b7a6', 'LVM logical volume vg0-held'),
    ('CRYPT-LUKS2-5a1b9c7d3e2f4a6b8c0d1e3f5a7b9c1d-vg0-held', 'dm-crypt mapping vg0-held'),
    ('mpath-3600508b400105e210000900000490000', 'dm-multipath map vg0-held'),
    ('', 'device-mapper device vg0-held'),
])
def test_a_device_mapper_holder_is_named_with_its_map(host, uuid, text):
    # an LVM VG whose logical volume is not mounted (or a LUKS mapping, a multipath map): the PV is held
    host.disk('vdg', '254:96', holders=['dm-0'])
    host.add_disk('dm-0', '253:0', slaves=['vdg'], attrs={'dm/name': 'vg0-held', 'dm/uuid': uuid})
    devices, dummy = ds.resolve_all(view(host), ['/dev/vdg'])
    refusals, to_wipe = ds.check_writable(view(host), devices, {(254, 96)})
    assert to_wipe == []
    assert refusals == ['refusing /dev/vdg: held by %s (/dev/dm-0); it is in use and will not be touched '
                        '(not even with wipe_devices)' % text]


def test_second_device_of_a_mounted_btrfs_is_in_use_even_with_opt_in(host):
    # a two-device btrfs mounted from vdc: vdb itself is neither mounted nor held
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdb'], 0, 'TYPE=btrfs\nUUID=5e1f-aa\nUUID_SUB=1\n')
    os.makedirs(os.path.join(host.root, 'sys/fs/btrfs/5e1f-aa/devices'))
    devices, dummy = ds.resolve_all(view(host), ['/dev/vdb'])
    refusals, to_wipe = ds.check_writable(view(host), devices, {(254, 16)})
    assert to_wipe == []
    assert refusals == ['refusing /dev/vdb: a device of the mounted btrfs filesystem 5e1f-aa (mounted from another '
                        'of its devices); it is in use and will not be touched (not even with wipe_devices)']


def test_member_of_an_imported_zfs_pool_is_in_use_even_with_opt_in(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdb'], 0, 'TYPE=zfs_member\nLABEL=tank\nUUID=123\n')
    os.makedirs(os.path.join(host.root, 'proc/spl/kstat/zfs/tank'))
    devices, dummy = ds.resolve_all(view(host), ['/dev/vdb'])
    refusals, dummy = ds.check_writable(view(host), devices, {(254, 16)})
    assert refusals[0].startswith('refusing /dev/vdb: a member of the imported ZFS pool tank; it is in use')


def test_btrfs_or_zfs_signature_of_nothing_open_is_only_a_signature(host):
    # negative control: no /sys/fs/btrfs/<fsid>, no imported pool: an ordinary signature, opt-in wipes it
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdb'], 0, 'TYPE=btrfs\nUUID=5e1f-aa\n')
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdc'], 0, 'TYPE=zfs_member\nLABEL=tank\n')
    devices, dummy = ds.resolve_all(view(host), ['/dev/vdb', '/dev/vdc'])
    refusals, to_wipe = ds.check_writable(view(host), devices, {(254, 16), (254, 32)})
    assert refusals == [] and [d.kname for d in to_wipe] == ['vdb', 'vdc']
    refusals, dummy = ds.check_writable(view(host), devices, set())
    assert 'btrfs filesystem signature' in refusals[0] and 'in use' not in refusals[0]


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


MiB = 1 << 20
EXT4_MAGIC = b'\x53\xef'


def refusals_for(host, paths, allowed_to_wipe=(), **kw):
    devices, errors = ds.resolve_all(view(host), paths)
    assert errors == []
    return ds.check_writable(view(host), devices, set(allowed_to_wipe), **kw)


def test_zeroed_device_passes_the_content_check(host):
    # a fresh cloud volume: 1 GiB of zeros (sparse file)
    host.content('vdb', {}, size_bytes=1 << 30)
    refusals, to_wipe = refusals_for(host, ['/dev/vdb'])
    assert refusals == [] and to_wipe == []


def test_ext4_without_partition_table_is_refused(host):
    # partition table lost: ext4 superblock magic at 1 MiB + 1024 + 0x38; blkid -p and wipefs see nothing
    host.content('vdb', {MiB + 0x438: EXT4_MAGIC}, size_bytes=1 << 30)
    refusals, to_wipe = refusals_for(host, ['/dev/disk/by-id/virtio-volA'])
    assert to_wipe == []
    assert refusals == ['refusing /dev/disk/by-id/virtio-volA (/dev/vdb): non-zero data at offset 1 MiB (first non-zero '
                        'byte at 0x100438; no signature recognised: a filesystem whose partition table was lost?); '
                        'add it to wipe_devices to allow overwriting it']


@pytest.mark.parametrize('offset, where', [
    (0x200, 'non-zero data in the first MiB (first non-zero byte at 0x200'),
    ((1 << 30) - 4096, 'non-zero data in the last MiB (first non-zero byte at 0x3ffff000'),
])
def test_content_in_first_or_last_mib_is_refused(host, offset, where):
    host.content('vdb', {offset: b'\x01'}, size_bytes=1 << 30)
    refusals, dummy = refusals_for(host, ['/dev/vdb'])
    assert where in refusals[0]


def test_content_opt_in_through_wipe_set_or_allowed_data(host):
    host.content('vdb', {MiB + 0x438: EXT4_MAGIC}, size_bytes=1 << 30)
    refusals, to_wipe = refusals_for(host, ['/dev/vdb'], {(254, 16)})
    assert refusals == [] and to_wipe == []          # nothing wipefs could erase
    refusals, to_wipe = refusals_for(host, ['/dev/vdb'], allowed_data={(254, 16)})
    assert refusals == [] and to_wipe == []


def test_allowed_data_never_overrides_a_signature(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdb'], 0, 'TYPE=ext4\nUUID=e4\n')
    refusals, dummy = refusals_for(host, ['/dev/vdb'], allowed_data={(254, 16)})
    assert 'ext4 filesystem signature' in refusals[0]


@pytest.mark.parametrize('size, chunks, fragment', [
    (2 * MiB, {MiB + 512: b'x'}, 'non-zero data at offset 1 MiB (first non-zero byte at 0x100200'),
    (100 * 1024, {99 * 1024: b'x'}, 'non-zero data in the first MiB (first non-zero byte at 0x18c00'),
    (100 * 1024, {}, None),
])
def test_small_devices_are_read_as_far_as_they_go(host, size, chunks, fragment):
    host.disk('vdj', '254:144', size_bytes=size)
    host.content('vdj', chunks, size_bytes=size)
    refusals, dummy = refusals_for(host, ['/dev/vdj'])
    if fragment is None:
        assert refusals == []
    else:
        assert fragment in refusals[0]


def test_unreadable_content_is_not_blank(host):
    os.unlink(os.path.join(host.root, 'dev', 'vdb'))
    os.mkdir(os.path.join(host.root, 'dev', 'vdb'))
    refusals, dummy = refusals_for(host, ['/dev/vdb'])
    assert 'cannot probe it: cannot read its content' in refusals[0]


@pytest.mark.parametrize('rc, out', [(1, ''), (0, '{"signatures": [')])
def test_wipefs_failure_is_not_blank(host, rc, out):
    err = 'wipefs: error: /dev/vdb: probing initialization failed'
    host.on(['wipefs', '--no-act', '--json', '/dev/vdb'], rc, out, err)
    refusals, to_wipe = refusals_for(host, ['/dev/vdb'], {(254, 16)})
    assert to_wipe == []
    assert 'cannot probe it' in refusals[0] and 'wipefs' in refusals[0]


def shared_disk(host):
    host.disk('vdk', '254:160', partitions={'vdk1': '254:161', 'vdk2': '254:162'})
    return '/dev/vdk2'


def test_partition_of_a_disk_with_a_mounted_sibling_is_refused(host):
    part = shared_disk(host)
    host.mount('254:161', '/mnt/iotune-busy')
    refusals, dummy = refusals_for(host, [part], {(254, 162)})
    assert refusals == ['refusing /dev/vdk2: it is a partition of /dev/vdk, which is in use: mounted on /mnt/iotune-busy '
                        '(partition /dev/vdk1); add it to allow_shared_disk to use it anyway']
    refusals, dummy = refusals_for(host, [part], allowed_shared={(254, 162)})
    assert refusals == []


@pytest.mark.parametrize('setup, fragment', [
    (lambda h: h.swap('/dev/vdk1'), 'in use as swap (partition /dev/vdk1)'),
    (lambda h: os.symlink('../../../md5', os.path.join(h.root, 'sys/class/block/vdk/vdk1/holders/md5')),
     'partition /dev/vdk1 held by an active md array (/dev/md5)'),
    (lambda h: h.write('proc/self/mountinfo', '22 1 0:31 / / rw - btrfs /dev/vdk1 rw\n'),
     'mounted on / (partition /dev/vdk1)'),
])
def test_partition_of_a_disk_in_use_other_ways(host, setup, fragment):
    part = shared_disk(host)
    setup(host)
    refusals, dummy = refusals_for(host, [part])
    assert 'it is a partition of /dev/vdk, which is in use: ' in refusals[0] and fragment in refusals[0]


def test_partition_of_an_unused_disk_is_fine(host):
    part = shared_disk(host)
    refusals, dummy = refusals_for(host, [part])
    assert refusals == []
