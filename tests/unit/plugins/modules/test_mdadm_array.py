# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""mdadm_array end to end against a fake host (sysfs tree + command table with real mdadm 4.2 output)."""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import device_safety as ds
from ansible_collections.iotune.storage.plugins.modules import mdadm_array as mod
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.mdadm.fakehost import FakeHost, fixture

MDADM = '/sbin/mdadm'
UUID = '223bf324:4839b32a:611abc08:26fcd6e8'
DISKS = [('vdb', '254:16'), ('vdc', '254:32'), ('vdd', '254:48'), ('vde', '254:64'), ('vdf', '254:80')]
BY_ID = ['/dev/disk/by-id/virtio-vol%d' % i for i in range(len(DISKS))]
CREATE = [MDADM, '--create', '/dev/md/data', '--run', '--level=0', '--raid-devices=4', '--chunk=256',
          '--metadata=1.2', '--name=data', '--homehost=any', '/dev/vdb', '/dev/vdc', '/dev/vdd', '/dev/vde']


@pytest.fixture
def host(tmp_path):
    h = FakeHost(tmp_path)
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
    view = ds.SystemView(run_command=host.run, root=host.root)
    obj = mod.MdadmArray(params(**kw), view, host.run, mdadm, udevadm='/bin/udevadm', check_mode=check_mode,
                         sleep=lambda s: None, warn=warnings.append)
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
    assert host.ran([MDADM, '--create']) == [] and host.ran(['wipefs', '-a']) == []


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
    assert host.ran([MDADM, '--create']) == [] and host.ran(['wipefs', '-a']) == []


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
    host.on(['wipefs', '-a', '/dev/vdc'], 0, '/dev/vdc: 4 bytes were erased\n')
    host.on(CREATE, lambda argv: (running(host), (0, '', ''))[1])
    result, dummy = array(host, wipe_devices=['/dev/vdc', '/dev/vdb'])[0].apply()
    wipes = host.ran(['wipefs', '-a'])
    assert wipes == [['wipefs', '-a', '/dev/vdc']]          # vdb is blank: nothing to wipe
    assert host.calls.index(wipes[0]) < host.calls.index(CREATE)
    assert result['wiped'] == ['/dev/vdc'] and result['created']


def test_wipe_opt_in_does_not_cover_mounted_disks(host):
    host.mount('254:32', '/srv')
    with pytest.raises(mod.ArrayError, match='refusing /dev/disk/by-id/virtio-vol1 \\(/dev/vdc\\): mounted on /srv'):
        array(host, wipe_devices=['/dev/vdc'])[0].apply()
    assert host.ran(['wipefs', '-a']) == []


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
    assert host.ran(['wipefs', '-a']) == [] and host.ran([MDADM, '--create']) == []


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
