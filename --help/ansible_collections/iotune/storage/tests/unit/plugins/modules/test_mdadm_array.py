# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""mdadm_array end to end against a fake host (sysfs tree + command table with real mdadm 4.2 output)."""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.iotune.storage.plugins.modules import mdadm_array as mod
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import fixture
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.module_run import on_fake_host, run_module

MDADM = '/sbin/mdadm'
UUID = '223bf324:4839b32a:611abc08:26fcd6e8'
DISKS = [('vdb', '254:16'), ('vdc', '254:32'), ('vdd', '254:48'), ('vde', '254:64'), ('vdf', '254:80')]
BY_ID = ['/dev/disk/by-id/virtio-vol%d' % i for i in range(len(DISKS))]
CREATE = [MDADM, '--create', '/dev/md/data', '--run', '--level=0', '--raid-devices=4', '--chunk=256',
          '--metadata=1.2', '--name=data', '--homehost=any', '/dev/vdb', '/dev/vdc', '/dev/vdd', '/dev/vde']
WIPE_VDC = ['wipefs', '--all', '--backup', '/dev/vdc']


@pytest.fixture
def host(fake_host):
    h = fake_host
    for i, (kname, mm) in enumerate(DISKS):
        h.disk(kname, mm, by_id='virtio-vol%d' % i)
    return h


def params(**kw):
    p = {'name': 'data', 'state': 'present', 'devices': BY_ID[:4], 'level': 0, 'chunk_kb': 256,
         'metadata': '1.2', 'homehost': 'any', 'wipe_devices': [], 'settle_timeout': 2}
    p.update(kw)
    return p


def array(host, check_mode=False, mdadm=MDADM, **kw):
    warnings = []
    view = host.view()
    obj = mod.MdadmArray(params(**kw), view, host.run, mdadm, udevadm='/bin/udevadm', check_mode=check_mode,
                         sleep=lambda s: None, warn=warnings.append)
    obj.backup_root = os.path.join(os.path.dirname(host.root), 'backups')   # never the real /var/backups
    return obj, warnings


def running(host):
    """Make /dev/md/data a running array with the captured mdadm 4.2 output."""
    host.disk('md127', '9:127', size_bytes=4 << 30)
    host.md_link('data', 'md127')
    host.on([MDADM, '--detail', '--export', '/dev/md/data'], 0, fixture('mdadm', 'detail_export_raid0_4.txt'))
    host.on([MDADM, '--detail', '/dev/md/data'], 0, fixture('mdadm', 'detail_raid0_4.txt'))


def members_carry_superblock(host):
    for kname in ('vdb', 'vdc', 'vdd', 'vde'):
        host.on([MDADM, '--examine', '--export', '/dev/%s' % kname], 0, fixture('mdadm', 'examine_export_vdb.txt'))
        role = fixture('mdadm', 'examine_vdb.txt').replace('Active device 0', 'Active device %d' % 'bcde'.index(kname[-1]))
        host.on([MDADM, '--examine', '/dev/%s' % kname], 0, role)
        host.on(['blkid', '-p', '-o', 'export', '/dev/%s' % kname], 0,
                fixture('mdadm', 'blkid_member_vdb.txt').replace('/dev/vdb', '/dev/%s' % kname))


def test_create_on_blank_disks(host):
    host.on(CREATE, lambda argv: (running(host), (0, '', 'mdadm: array /dev/md/data started.\n'))[1])
    result, diff = array(host)[0].apply()
    assert host.ran([MDADM, '--create']) == [CREATE]
    assert result['created'] and not result['assembled']
    assert result['uuid'] == UUID and result['kernel_name'] == 'md127'
    assert result['members'] == ['/dev/vdb', '/dev/vdc', '/dev/vdd', '/dev/vde']
    assert result['chunk_kb'] == 256 and result['raid_disks'] == 4 and result['level'] == 'raid0'
    assert result['array_line'] == 'ARRAY /dev/md/data metadata=1.2 UUID=%s name=any:data' % UUID
    assert diff['before'] == {} and diff['after']['uuid'] == UUID
    # every member was probed before the create
    assert len(host.ran(['blkid', '-p'])) == 4 and len(host.ran(['wipefs', '--no-act'])) == 4
    assert host.ran(['/bin/udevadm', 'settle'])


def test_matching_array_is_ok(host):
    running(host)
    result, diff = array(host)[0].apply()
    assert not (result['created'] or result['assembled'])
    assert diff is None
    assert host.ran([MDADM, '--create']) == [] and host.ran([MDADM, '--assemble']) == []
    assert result['uuid'] == UUID and result['md_name'] == 'any:data'


def test_same_disks_in_another_order_via_kernel_names_is_ok(host):
    running(host)
    result, dummy = array(host, devices=['/dev/vde', '/dev/vdd', '/dev/vdc', '/dev/vdb'])[0].apply()
    assert not result['created']


@pytest.mark.parametrize('kw, fragment', [
    ({'chunk_kb': 512}, 'chunk is 256K, wanted 512K'),
    ({'devices': BY_ID[1:5]}, 'members are /dev/vdb, /dev/vdc, /dev/vdd, /dev/vde, wanted /dev/vdc, /dev/vdd, /dev/vde, /dev/vdf'),
])
def test_differing_array_fails_and_is_not_recreated(host, kw, fragment):
    running(host)
    with pytest.raises(mod.ArrayError) as e:
        array(host, **kw)[0].apply()
    assert fragment in str(e.value) and 'will not be re-created' in str(e.value)
    assert host.ran([MDADM, '--create']) == [] and host.ran(['wipefs', '--all']) == []


def test_inactive_intact_array_is_assembled(host):
    members_carry_superblock(host)
    assemble = [MDADM, '--assemble', '/dev/md/data', '--uuid=%s' % UUID, '/dev/vdb', '/dev/vdc', '/dev/vdd', '/dev/vde']
    host.on(assemble, lambda argv: (running(host), (0, '', ''))[1])
    result, dummy = array(host)[0].apply()
    assert host.ran([MDADM, '--assemble']) == [assemble]
    assert result['assembled'] and not result['created']
    assert host.ran([MDADM, '--create']) == []


def test_assembled_state_never_creates(host):
    with pytest.raises(mod.ArrayError, match='no array named data found on .*state=assembled never creates'):
        array(host, state='assembled')[0].apply()
    assert host.ran([MDADM, '--create']) == []


def test_foreign_name_is_reported(host):
    members_carry_superblock(host)
    os.symlink('../../md126', os.path.join(host.root, 'sys/class/block/vdb/holders/md126'))
    host.on([MDADM, '--detail', '--export', '/dev/md126'], 0,
            fixture('mdadm', 'detail_export_raid0_4.txt').replace('MD_DEVNAME=data', 'MD_DEVNAME=data_0'))
    host.on([MDADM, '--detail', '/dev/md126'], 0, fixture('mdadm', 'detail_raid0_4.txt'))
    with pytest.raises(mod.ArrayError, match=r'running as /dev/md126 but /dev/md/data does not exist.*mdadm --stop /dev/md126'):
        array(host)[0].apply()


def test_refuses_xfs_member_naming_both_paths(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdc'], 0, 'UUID=0b7e\nLABEL=probe\nTYPE=xfs\n')
    with pytest.raises(mod.ArrayError) as e:
        array(host)[0].apply()
    assert ('refusing /dev/disk/by-id/virtio-vol1 (/dev/vdc): xfs filesystem signature (UUID 0b7e, LABEL probe); '
            'add it to wipe_devices to allow wiping') in str(e.value)
    assert host.ran([MDADM, '--create']) == [] and host.ran(['wipefs', '--all']) == []


def test_reports_every_refused_member(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdb'], 0, 'TYPE=LVM2_member\nUUID=pv\n')
    host.on(['wipefs', '--no-act', '--json', '/dev/vdd'], 0,
            json.dumps({'signatures': [{'type': 'PMBR', 'offset': '0x1fe'}, {'type': 'gpt', 'offset': '0x200'}]}))
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdd'], 0, 'PTUUID=p\nPTTYPE=gpt\n')
    with pytest.raises(mod.ArrayError) as e:
        array(host)[0].apply()
    assert 'virtio-vol0 (/dev/vdb): LVM2 physical volume signature' in str(e.value)
    assert 'virtio-vol2 (/dev/vdd): gpt partition table' in str(e.value)
    assert e.value.data['refusals'] and len(e.value.data['refusals']) == 2


def test_wipe_opt_in_wipes_only_listed_then_creates(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdc'], 0, 'TYPE=xfs\nUUID=1\n')
    host.on(WIPE_VDC, 0, '/dev/vdc: 4 bytes were erased\n')
    host.on(CREATE, lambda argv: (running(host), (0, '', ''))[1])
    result, dummy = array(host, wipe_devices=['/dev/vdc', '/dev/vdb'])[0].apply()
    wipes = host.ran(['wipefs', '--all'])
    assert wipes == [WIPE_VDC]          # vdb is blank: nothing to wipe
    assert host.calls.index(wipes[0]) < host.calls.index(CREATE)
    assert result['wiped'] == ['/dev/vdc'] and result['created']


def test_wipe_opt_in_does_not_cover_mounted_disks(host):
    host.mount('254:32', '/srv')
    with pytest.raises(mod.ArrayError, match='refusing /dev/disk/by-id/virtio-vol1 \\(/dev/vdc\\): mounted on /srv'):
        array(host, wipe_devices=['/dev/vdc'])[0].apply()
    assert host.ran(['wipefs', '--all']) == []


def test_wipe_devices_must_be_members(host):
    with pytest.raises(mod.ArrayError, match='wipe_devices entry /dev/vdf is not one of devices'):
        array(host, wipe_devices=['/dev/vdf'])[0].apply()


def test_duplicate_paths_fail(host):
    with pytest.raises(mod.ArrayError, match='/dev/disk/by-id/virtio-vol0 and /dev/vdb are the same device'):
        array(host, devices=BY_ID[:3] + ['/dev/vdb'])[0].apply()


def test_missing_device_fails(host):
    with pytest.raises(mod.ArrayError, match='/dev/disk/by-id/virtio-gone does not exist'):
        array(host, devices=BY_ID[:3] + ['/dev/disk/by-id/virtio-gone'])[0].apply()


def test_level_not_implemented(host):
    with pytest.raises(mod.ArrayError, match='level 1 is not implemented'):
        array(host, level=1)[0].apply()
    assert host.calls == []


def test_size_mismatch_refused(host):
    host.disk('vdg', '254:96', size_bytes=8 << 30)
    with pytest.raises(mod.ArrayError, match='member sizes differ too much'):
        array(host, devices=BY_ID[:3] + ['/dev/vdg'])[0].apply()


def test_check_mode_predicts_create_and_changes_nothing(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdc'], 0, 'TYPE=xfs\nUUID=1\n')
    result, diff = array(host, check_mode=True, wipe_devices=['/dev/vdc'])[0].apply()
    assert result['created'] and result['uuid'] is None and result['array_line'] is None
    assert result['wiped'] == ['/dev/vdc']
    assert diff['after']['members'] == ['/dev/vdb', '/dev/vdc', '/dev/vdd', '/dev/vde']
    assert host.ran(['wipefs', '--all']) == [] and host.ran([MDADM, '--create']) == []


def test_check_mode_without_mdadm_on_a_fresh_host(host):
    obj, warnings = array(host, check_mode=True, mdadm=None)
    result, dummy = obj.apply()
    assert result['created'] and result['md_name'] == 'any:data'
    assert 'mdadm is not installed' in warnings[0]
    assert all(c[0] in ('blkid', 'wipefs') for c in host.calls)


def test_check_mode_without_mdadm_predicts_assemble_from_blkid(host):
    members_carry_superblock(host)
    result, dummy = array(host, check_mode=True, mdadm=None)[0].apply()
    assert result['assembled'] and result['uuid'] == UUID


def test_check_mode_without_mdadm_still_refuses(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdc'], 0, 'TYPE=xfs\nUUID=1\n')
    with pytest.raises(mod.ArrayError, match='refusing'):
        array(host, check_mode=True, mdadm=None)[0].apply()


def test_without_mdadm_outside_check_mode_fails(host):
    with pytest.raises(mod.ArrayError, match='mdadm is not installed'):
        array(host, mdadm=None)[0].apply()


def test_absent_stops_array(host):
    running(host)
    host.on([MDADM, '--stop', '/dev/md/data'], 0, 'mdadm: stopped /dev/md/data\n')
    result, diff = array(host, state='absent')[0].apply()
    assert result['stopped'] and result['array_line'] is None
    assert host.ran([MDADM, '--stop']) == [[MDADM, '--stop', '/dev/md/data']]
    assert diff['before']['members'] == ['/dev/vdb', '/dev/vdc', '/dev/vdd', '/dev/vde'] and diff['after'] == {}


def test_absent_refuses_mounted_array(host):
    running(host)
    host.mount('9:127', '/var/lib/cassandra')
    with pytest.raises(mod.ArrayError, match='refusing to stop /dev/md/data \\(/dev/md127\\): mounted on /var/lib/cassandra'):
        array(host, state='absent')[0].apply()
    assert host.ran([MDADM, '--stop']) == []


def test_absent_when_missing_is_ok(host):
    result, diff = array(host, state='absent')[0].apply()
    assert not result['stopped'] and host.calls == []


MiB = 1 << 20


def test_single_device_refused_without_opt_in(host):
    with pytest.raises(mod.ArrayError, match='devices lists a single device.*allow_single_device'):
        array(host, devices=BY_ID[:1])[0].apply()
    assert host.calls == []


def test_single_device_with_opt_in_is_created_with_force(host):
    create = [MDADM, '--create', '/dev/md/data', '--run', '--level=0', '--raid-devices=1', '--chunk=256',
              '--metadata=1.2', '--name=data', '--homehost=any', '--force', '/dev/vdb']
    host.on(create, lambda argv: (running(host), (0, '', ''))[1])
    result, dummy = array(host, devices=BY_ID[:1], allow_single_device=True)[0].apply()
    assert host.ran([MDADM, '--create']) == [create]


def test_member_with_data_but_no_signature_is_refused(host):
    host.content('vdc', {MiB + 0x438: b'\x53\xef'}, size_bytes=1 << 30)
    with pytest.raises(mod.ArrayError) as e:
        array(host)[0].apply()
    assert ('refusing /dev/disk/by-id/virtio-vol1 (/dev/vdc): non-zero data at offset 1 MiB (first non-zero byte at '
            '0x100438; no signature recognised: a filesystem whose partition table was lost?)') in str(e.value)
    assert host.ran([MDADM, '--create']) == []


def test_member_with_data_is_used_when_listed_in_wipe_devices(host):
    host.content('vdc', {MiB + 0x438: b'\x53\xef'}, size_bytes=1 << 30)
    host.on(CREATE, lambda argv: (running(host), (0, '', ''))[1])
    result, dummy = array(host, wipe_devices=['/dev/vdc'])[0].apply()
    assert result['created'] and host.ran(['wipefs', '--all']) == []   # no signature: nothing for wipefs


XFS_MAGIC = b'XFSB'


def wipefs_with_backup(host):
    """wipefs --all --backup as util-linux 2.38 does it: $HOME/wipefs-<dev>-0x<offset %08x>.bak, then erase."""
    def side_effect(argv):
        home = host.call_kwargs[-1]['environ_update']['HOME']
        with open(os.path.join(home, 'wipefs-vdc-0x00000000.bak'), 'wb') as f:
            f.write(host.bytes_at('vdc', 0, 4))
        host.content('vdc', {0: b'\0\0\0\0'})
        host.on(['blkid', '-p', '-o', 'export', '/dev/vdc'], 2, '')
        return 0, '/dev/vdc: 4 bytes were erased at offset 0x00000000 (xfs): 58 46 53 42\n', ''
    return side_effect


def test_failed_create_restores_the_wiped_signatures(host, tmp_path):
    host.content('vdc', {0: XFS_MAGIC, 4096: b'old data'}, size_bytes=1 << 30)
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdc'], 0, 'TYPE=xfs\nUUID=1\n')
    host.on(WIPE_VDC, wipefs_with_backup(host))
    host.on(CREATE, 1, '', 'mdadm: cannot open /dev/vde: Device or resource busy\n')
    host.on(['/sbin/blockdev', '--rereadpt', '/dev/vdc'], 0)
    obj, dummy = array(host, wipe_devices=['/dev/vdc'])
    obj.blockdev = '/sbin/blockdev'
    with pytest.raises(mod.ArrayError) as e:
        obj.apply()
    msg = str(e.value)
    assert 'mdadm --create /dev/md/data failed (rc=1)' in msg
    assert 'restored the signatures wiped from /dev/vdc (4 bytes at offset 0x0)' in msg
    backup_dir = e.value.data['wipe_backup_dir']
    assert backup_dir.startswith(str(tmp_path / 'backups') + '/data-') and backup_dir in msg
    assert host.bytes_at('vdc', 0, 4) == XFS_MAGIC          # the signature is back
    assert host.calls.index(['/sbin/blockdev', '--rereadpt', '/dev/vdc']) > host.calls.index(CREATE)
    assert os.stat(backup_dir).st_mode & 0o777 == 0o700
    assert e.value.data['wipe_backups'] == [os.path.join(backup_dir, 'wipefs-vdc-0x00000000.bak')]


def test_successful_create_returns_the_backup_files(host):
    host.content('vdc', {0: XFS_MAGIC}, size_bytes=1 << 30)
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdc'], 0, 'TYPE=xfs\nUUID=1\n')
    host.on(WIPE_VDC, wipefs_with_backup(host))
    host.on(CREATE, lambda argv: (running(host), (0, '', ''))[1])
    obj, dummy = array(host, wipe_devices=['/dev/vdc'])
    result, dummy = obj.apply()
    assert result['wiped'] == ['/dev/vdc']
    assert len(result['wipe_backups']) == 1 and result['wipe_backups'][0].endswith('/wipefs-vdc-0x00000000.bak')
    assert host.bytes_at('vdc', 0, 4) == b'\0\0\0\0'


def test_check_mode_wipes_nothing_and_writes_no_backup(host, tmp_path):
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdc'], 0, 'TYPE=xfs\nUUID=1\n')
    obj, dummy = array(host, check_mode=True, wipe_devices=['/dev/vdc'])
    result, dummy = obj.apply()
    assert result['wipe_backups'] == [] and not os.path.exists(str(tmp_path / 'backups'))
    assert host.ran(['wipefs', '--all']) == []


def shared(host):
    host.disk('vdk', '254:160', partitions={'vdk1': '254:161', 'vdk2': '254:162'})
    host.mount('254:161', '/mnt/iotune-busy')


def test_partition_of_a_disk_in_use_is_refused(host):
    shared(host)
    with pytest.raises(mod.ArrayError) as e:
        array(host, devices=['/dev/vdk2'], allow_single_device=True)[0].apply()
    assert ('refusing /dev/vdk2: it is a partition of /dev/vdk, which is in use: mounted on /mnt/iotune-busy '
            '(partition /dev/vdk1); add it to allow_shared_disk') in str(e.value)


def test_allow_shared_disk_lets_the_partition_through(host):
    shared(host)
    os.symlink('../../vdk2', os.path.join(host.root, 'dev/disk/by-id/virtio-part2'))
    result, dummy = array(host, check_mode=True, devices=['/dev/vdk2'], allow_single_device=True,
                          allow_shared_disk=['/dev/disk/by-id/virtio-part2'])[0].apply()
    assert result['created']


def test_allow_shared_disk_must_be_members(host):
    shared(host)
    with pytest.raises(mod.ArrayError, match='allow_shared_disk entry /dev/vdk2 is not one of devices'):
        array(host, allow_shared_disk=['/dev/vdk2'])[0].apply()
    assert not host.ran(['blkid'])


def inactive_md127(host, present=('vdb', 'vdc', 'vdd')):
    """udev incremental assembly left md127 inactive because one member did not show up."""
    members_carry_superblock(host)
    host.disk('md127', '9:127', size_bytes=0)
    host.write('sys/class/block/md127/md/array_state', 'inactive\n')
    for kname in present:
        os.symlink('../../md127', os.path.join(host.root, 'sys/class/block/%s/holders/md127' % kname))
        os.symlink('../../%s' % kname, os.path.join(host.root, 'sys/class/block/md127/slaves/%s' % kname))
    host.on([MDADM, '--detail', '--export', '/dev/md127'], 0, fixture('mdadm', 'detail_export_inactive_3of4.txt'))
    host.on([MDADM, '--detail', '/dev/md127'], 0, fixture('mdadm', 'detail_inactive_3of4.txt'))


def test_inactive_array_names_the_missing_member(host):
    inactive_md127(host)
    # vde is blank now (replaced disk): it does not carry the superblock
    host.on([MDADM, '--examine', '--export', '/dev/vde'], 1, '', 'mdadm: No md superblock detected on /dev/vde.\n')
    host.on([MDADM, '--examine', '/dev/vde'], 1, '', 'mdadm: No md superblock detected on /dev/vde.\n')
    with pytest.raises(mod.ArrayError) as e:
        array(host)[0].apply()
    msg = str(e.value)
    assert 'is assembled as /dev/md127 but inactive: a member is missing' in msg
    assert 'slot 3 of 4 is missing' in msg
    assert '/dev/disk/by-id/virtio-vol3 (/dev/vde) is not in it (it does not carry the superblock of this array)' in msg
    assert 'run again to assemble' not in msg
    assert host.ran([MDADM, '--create']) == [] and host.ran([MDADM, '--assemble']) == []


def test_inactive_array_with_the_member_present_but_not_added(host):
    inactive_md127(host)
    with pytest.raises(mod.ArrayError) as e:
        array(host)[0].apply()
    msg = str(e.value)
    assert 'slot 3 of 4 is missing' in msg
    assert 'virtio-vol3 (/dev/vde) carries its superblock (slot 3) but was not added' in msg
    assert 'mdadm --stop /dev/md127' in msg


def test_check_mode_without_mdadm_warns_that_the_assemble_prediction_is_uncertain(host):
    members_carry_superblock(host)
    obj, warnings = array(host, check_mode=True, mdadm=None)
    result, dummy = obj.apply()
    assert result['assembled']
    uncertain = [w for w in warnings if 'uncertain' in w]
    assert uncertain and 'level, chunk size and number of members' in uncertain[0]
    assert 'any:data' in uncertain[0] and UUID in uncertain[0]


def test_inactive_array_without_readable_superblocks_does_not_guess_the_slots(host):
    inactive_md127(host)
    for kname in ('vdb', 'vdc', 'vdd', 'vde'):
        host.on([MDADM, '--examine', '--export', '/dev/%s' % kname], 1, '', 'mdadm: cannot open: Input/output error\n')
    with pytest.raises(mod.ArrayError) as e:
        array(host)[0].apply()
    assert 'the number of members it needs is not known' in str(e.value) and 'slot' not in str(e.value)


def test_failed_second_wipe_restores_the_first(host):
    host.content('vdc', {0: XFS_MAGIC}, size_bytes=1 << 30)
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdc'], 0, 'TYPE=xfs\nUUID=1\n')
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdd'], 0, 'TYPE=ext4\nUUID=2\n')
    host.on(WIPE_VDC, wipefs_with_backup(host))
    host.on(['wipefs', '--all', '--backup', '/dev/vdd'], 1, '', 'wipefs: error: /dev/vdd: probing initialization failed')
    with pytest.raises(mod.ArrayError) as e:
        array(host, wipe_devices=['/dev/vdc', '/dev/vdd'])[0].apply()
    assert 'wipefs --all /dev/disk/by-id/virtio-vol2 (/dev/vdd) failed' in str(e.value)
    assert 'restored the signatures wiped from /dev/vdc (4 bytes at offset 0x0), /dev/vdd (nothing saved)' in str(e.value)
    assert host.bytes_at('vdc', 0, 4) == XFS_MAGIC
    assert host.ran([MDADM, '--create']) == []


# --- conf_path: the ARRAY line in mdadm.conf (what the raid0 role's lineinfile tasks did) ---------------
LINE = 'ARRAY /dev/md/data metadata=1.2 UUID=%s name=any:data' % UUID


def test_conf_path_writes_the_array_line_once(host, tmp_path):
    running(host)
    conf = tmp_path / 'mdadm.conf'
    conf.write_text('DEVICE partitions\nARRAY /dev/md/data metadata=1.2 UUID=0:1:2:3 name=any:data\n')
    result, diffs = array(host, conf_path=str(conf))[0].converge()
    assert result['conf_changed'] and not result['created']
    assert conf.read_text() == 'DEVICE partitions\n%s\n' % LINE
    assert diffs[-1]['after'] == conf.read_text() and 'UUID=0:1:2:3' in diffs[-1]['before']
    again, diffs = array(host, conf_path=str(conf))[0].converge()
    assert not again['conf_changed'] and diffs == []


def test_conf_path_creates_a_missing_file_0644_and_check_mode_writes_nothing(host, tmp_path):
    running(host)
    conf = tmp_path / 'etc' / 'mdadm.conf'
    result, diffs = array(host, check_mode=True, conf_path=str(conf))[0].converge()
    assert result['conf_changed'] and not conf.exists() and diffs[-1]['after'] == LINE + '\n'
    result, dummy = array(host, conf_path=str(conf))[0].converge()
    assert result['conf_changed'] and conf.read_text() == LINE + '\n'
    assert oct(conf.stat().st_mode & 0o777) == '0o644'


def test_the_rebuild_marker_is_on_disk_before_mdadm_conf_changes(host, tmp_path):
    # a crash between the two writes leaves the marker: the next run rebuilds the initramfs
    running(host)
    conf = tmp_path / 'mdadm.conf'
    marker = tmp_path / 'state' / 'initramfs-rebuild-pending'
    order = []
    arr = array(host, conf_path=str(conf), rebuild_marker=str(marker))[0]
    arr.replace = lambda src, dest: (order.append(os.path.basename(dest)), os.rename(src, dest))
    result, dummy = arr.converge()
    assert order == ['initramfs-rebuild-pending', 'mdadm.conf'], order
    assert result['conf_changed'] and result['rebuild_pending'] and marker.exists()
    assert oct(marker.stat().st_mode & 0o777) == '0o600'
    # the next run (mdadm.conf in step by then) still owes the rebuild while the marker is there; no new write
    order.clear()
    again, dummy = arr.converge()
    assert not again['conf_changed'] and again['rebuild_pending'] and order == []
    marker.unlink()                                       # the raid0 role, after the rebuild
    done, dummy = arr.converge()
    assert not done['conf_changed'] and not done['rebuild_pending']


def test_check_mode_and_no_marker_option_write_no_marker(host, tmp_path):
    running(host)
    conf = tmp_path / 'mdadm.conf'
    marker = tmp_path / 'initramfs-rebuild-pending'
    result, dummy = array(host, check_mode=True, conf_path=str(conf), rebuild_marker=str(marker))[0].converge()
    assert result['conf_changed'] and result['rebuild_pending'] and not marker.exists() and not conf.exists()
    result, dummy = array(host, conf_path=str(conf))[0].converge()
    assert result['conf_changed'] and result['rebuild_pending'] is False and not marker.exists()


def test_without_conf_path_mdadm_conf_is_not_touched(host):
    running(host)
    result, diffs = array(host)[0].converge()
    assert result['conf_changed'] is False and diffs == []


# ---- main(): the argument spec, exit_json and fail_json, run the way Ansible runs the module ---------------

BINS = {'mdadm': MDADM, 'udevadm': '/bin/udevadm', 'blkid': 'blkid', 'wipefs': 'wipefs', 'blockdev': '/sbin/blockdev'}


@pytest.fixture
def main_on_host(host, monkeypatch, tmp_path):
    on_fake_host(monkeypatch, mod, host, BINS)
    monkeypatch.setattr(mod, 'installed_generator', lambda: 'initramfs-tools')
    monkeypatch.setattr(mod.MdadmArray, 'backup_root', str(tmp_path / 'backups'))
    return host


def test_main_creates_on_blank_disks(main_on_host, capsys):
    host = main_on_host
    host.on(CREATE, lambda argv: (running(host), (0, '', 'mdadm: array /dev/md/data started.\n'))[1])
    code, result = run_module(mod, params(), capsys, diff=True)
    assert code == 0 and result['changed'] is True, result
    assert result['created'] and result['uuid'] == UUID and result['initramfs_generator'] == 'initramfs-tools'
    assert result['diff']['after']['uuid'] == UUID
    assert host.ran([MDADM, '--create']) == [CREATE]


def test_main_check_mode_creates_nothing(main_on_host, capsys):
    code, result = run_module(mod, params(), capsys, check_mode=True)
    assert code == 0 and result['changed'] is True, result
    assert main_on_host.ran([MDADM, '--create']) == []


def test_main_fails_with_the_refusal_and_the_device(main_on_host, capsys):
    main_on_host.on(['blkid', '-p', '-o', 'export', '/dev/vdc'], 0, 'UUID=0b7e\nLABEL=probe\nTYPE=xfs\n')
    code, result = run_module(mod, params(), capsys)
    assert code == 1 and result['failed'] is True
    assert 'vdc' in result['msg'] and 'xfs' in result['msg'] and result['device'] == '/dev/md/data'
    assert main_on_host.ran([MDADM, '--create']) == []


@pytest.mark.parametrize('args, fragment', [
    ({'devices': None}, 'state is present but all of the following are missing: devices'),
    ({'metadata': '0.90'}, 'value of metadata must be one of'),
    ({'chunk_kb': 'big'}, 'chunk_kb'),
])
def test_main_argument_spec_refuses(main_on_host, capsys, args, fragment):
    args = dict((k, v) for k, v in params(**args).items() if v is not None)
    code, result = run_module(mod, args, capsys)
    assert code == 1 and fragment in result['msg'], result['msg']
    assert main_on_host.calls == []
