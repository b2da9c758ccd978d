# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Parsers and decision logic. Fixtures are real mdadm 4.2 (Debian 12) output captured in the lab VM:
RAID0 'data', 4 x 1 GiB virtio disks vdb..vde, chunk 256K, --homehost=any."""

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import mdadm as md
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import fixture

UUID = '223bf324:4839b32a:611abc08:26fcd6e8'


def test_parse_detail_real():
    d = md.parse_detail(fixture('mdadm', 'detail_raid0_4.txt'))
    assert d['version'] == '1.2'
    assert d['level'] == 'raid0'
    assert d['raid_devices'] == 4 and d['total_devices'] == 4
    assert d['chunk_kb'] == 256
    assert d['name'] == 'any:data'
    assert d['uuid'] == UUID
    assert d['state'] == 'clean'
    assert [x['path'] for x in d['devices']] == ['/dev/vdb', '/dev/vdc', '/dev/vdd', '/dev/vde']
    assert [x['raid_device'] for x in d['devices']] == [0, 1, 2, 3]
    assert d['devices'][0]['major'] == 254 and d['devices'][0]['minor'] == 16
    assert d['devices'][0]['state'] == 'active sync'


def test_parse_detail_export_real():
    d = md.parse_detail_export(fixture('mdadm', 'detail_export_raid0_4.txt'))
    assert d['level'] == 'raid0' and d['raid_devices'] == 4 and d['metadata'] == '1.2'
    assert d['uuid'] == UUID and d['devname'] == 'data' and d['name'] == 'any:data'
    assert d['members'] == {'vdb': 0, 'vdc': 1, 'vdd': 2, 'vde': 3}


def test_parse_examine_real():
    e = md.parse_examine(fixture('mdadm', 'examine_vdb.txt'))
    assert e == {'version': '1.2', 'level': 'raid0', 'raid_devices': 4, 'chunk_kb': 256, 'name': 'any:data',
                 'uuid': UUID, 'device_uuid': '57823a0a:b5519d3f:7be069ac:de9e2f2b', 'role': 0}
    assert md.parse_examine(fixture('mdadm', 'examine_vdc.txt'))['role'] == 1


def test_parse_examine_export_real():
    e = md.parse_examine_export(fixture('mdadm', 'examine_export_vdb.txt'))
    assert e['level'] == 'raid0' and e['raid_devices'] == 4
    assert e['uuid'] == UUID and e['name'] == 'any:data'
    assert e['device_uuid'] == '57823a0a:b5519d3f:7be069ac:de9e2f2b'


def test_blkid_uuid_form_matches_mdadm():
    probe = dict(line.split('=', 1) for line in fixture('mdadm', 'blkid_member_vdb.txt').splitlines())
    assert probe['TYPE'] == 'linux_raid_member' and probe['LABEL'] == 'any:data'
    assert md.blkid_uuid_to_mdadm(probe['UUID']) == UUID


@pytest.mark.parametrize('text, kb', [('256K', 256), ('512K', 512), ('1M', 1024), ('64', 64), ('x', None), (None, None)])
def test_parse_size_kb(text, kb):
    assert md.parse_size_kb(text) == kb


def test_short_name_and_prediction():
    assert md.short_name('any:data') == 'data' and md.short_name('data') == 'data'
    assert md.predicted_md_name('data', 'any', 'raid') == 'any:data'
    assert md.predicted_md_name('data', '<none>', 'raid') == 'data'
    assert md.predicted_md_name('data', '<system>', 'db1') == 'db1:data'
    assert md.predicted_md_name('data', None, 'db1') == 'db1:data'


def test_array_line():
    assert md.array_line('data', '1.2', UUID, 'any:data') == (
        'ARRAY /dev/md/data metadata=1.2 UUID=%s name=any:data' % UUID)


@pytest.mark.parametrize('args, fragment', [
    (('x' * 33, 0, 512, '1.2', 2), 'must be 1-32 characters'),
    (('bad/name', 0, 512, '1.2', 2), 'must be 1-32 characters'),
    (('data', 5, 512, '1.2', 2), 'level 5 is not implemented'),
    (('data', 0, 384, '1.2', 2), 'chunk_kb 384 must be a power of two'),
    (('data', 0, 2, '1.2', 2), 'chunk_kb 2 must be a power of two and at least 4'),
    (('data', 0, 512, '0.90', 2), "metadata '0.90' is not supported"),
    (('data', 0, 512, '1.2', 0), 'at least one device'),
])
def test_validate_params(args, fragment):
    errors = md.validate_params(*args)
    assert len(errors) == 1 and fragment in errors[0]
    assert md.validate_params('data', 0, 4, '1.2', 2) == []


def test_validate_params_single_device_needs_opt_in():
    errors = md.validate_params('data', 0, 512, '1.2', 1)
    assert len(errors) == 1 and 'single device' in errors[0] and 'allow_single_device: true' in errors[0]
    assert md.validate_params('data', 0, 512, '1.2', 1, allow_single_device=True) == []


DESIRED = {'level': 0, 'chunk_kb': 256, 'members': ['vdb', 'vdc', 'vdd', 'vde']}


def active(**kw):
    d = {'level': 'raid0', 'chunk_kb': 256, 'raid_devices': 4, 'members': ['vdb', 'vdc', 'vdd', 'vde']}
    d.update(kw)
    return d


def test_compare_active_matches():
    assert md.compare_active('data', DESIRED, active()) == []
    assert md.compare_active('data', dict(DESIRED, members=['vde', 'vdd', 'vdc', 'vdb']), active()) == []


@pytest.mark.parametrize('kw, fragment', [
    ({'chunk_kb': 512}, 'chunk is 512K, wanted 256K'),
    ({'level': 'raid1'}, 'level is raid1, wanted raid0'),
    ({'members': ['vdb', 'vdc', 'vdd', 'vdf']}, 'members are /dev/vdb, /dev/vdc, /dev/vdd, /dev/vdf, wanted'),
    ({'raid_devices': 5}, 'it has 5 raid devices, wanted 4'),
])
def test_compare_active_differs(kw, fragment):
    problems = md.compare_active('data', DESIRED, active(**kw))
    assert len(problems) == 1
    assert fragment in problems[0] and 'will not be re-created' in problems[0]


LABELS = {'vdb': '/dev/vdb', 'vdc': '/dev/vdc', 'vdd': '/dev/vdd', 'vde': '/dev/vde'}


def sb(role, **kw):
    d = {'name': 'any:data', 'uuid': UUID, 'level': 'raid0', 'chunk_kb': 256, 'raid_devices': 4, 'role': role}
    d.update(kw)
    return d


def test_plan_assemble_intact_inactive_array():
    plan = md.plan_from_superblocks('data', DESIRED, {'vdb': sb(0), 'vdc': sb(1), 'vdd': sb(2), 'vde': sb(3)}, LABELS)
    assert plan.action == 'assemble' and plan.uuid == UUID


def test_plan_no_superblocks_falls_through():
    assert md.plan_from_superblocks('data', DESIRED, dict.fromkeys(LABELS), LABELS) is None
    other = dict((k, sb(i, name='h:other')) for i, k in enumerate(sorted(LABELS)))
    assert md.plan_from_superblocks('data', DESIRED, other, LABELS) is None


@pytest.mark.parametrize('superblocks, fragment', [
    ({'vdb': sb(0), 'vdc': sb(1), 'vdd': sb(2), 'vde': None}, '/dev/vde do not carry its superblock'),
    ({'vdb': sb(0, chunk_kb=512), 'vdc': sb(1, chunk_kb=512), 'vdd': sb(2, chunk_kb=512), 'vde': sb(3, chunk_kb=512)},
     'its chunk is 512K, wanted 256K'),
    ({'vdb': sb(0, raid_devices=5), 'vdc': sb(1, raid_devices=5), 'vdd': sb(2, raid_devices=5),
      'vde': sb(3, raid_devices=5)}, 'it has 5 raid devices, wanted 4'),
    ({'vdb': sb(0), 'vdc': sb(0), 'vdd': sb(2), 'vde': sb(3)}, 'two members claim the same slot'),
    ({'vdb': sb(0, level='raid1'), 'vdc': sb(1, level='raid1'), 'vdd': sb(2, level='raid1'),
      'vde': sb(3, level='raid1')}, 'its level is raid1'),
])
def test_plan_fails_for_mismatching_inactive_array(superblocks, fragment):
    plan = md.plan_from_superblocks('data', DESIRED, superblocks, LABELS)
    assert plan.action == 'fail'
    assert fragment in plan.messages[0] and 'refusing to assemble or re-create' in plan.messages[0]


def test_plan_fails_for_two_arrays_with_the_same_name():
    superblocks = {'vdb': sb(0), 'vdc': sb(1), 'vdd': sb(0, uuid='1:2:3:4'), 'vde': sb(1, uuid='1:2:3:4')}
    plan = md.plan_from_superblocks('data', DESIRED, superblocks, LABELS)
    assert plan.action == 'fail' and 'several arrays named data' in plan.messages[0]


def test_plan_from_blkid_only_superblocks():
    # check mode without mdadm: only name and UUID are known
    bare = dict((k, {'name': 'any:data', 'uuid': UUID, 'level': None, 'chunk_kb': None, 'raid_devices': None,
                     'role': None}) for k in LABELS)
    assert md.plan_from_superblocks('data', DESIRED, bare, LABELS).action == 'assemble'
