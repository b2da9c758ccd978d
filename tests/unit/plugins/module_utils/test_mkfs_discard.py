# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""mkfs options and the discard policy (issue 27): the rules, the policy of an array from its members, the fstab
options, the xfs_filesystem call (-K at creation only, discard for online) and the audit's area filesystem.

module_utils only (no controller code): the plan's side is tests/unit/plugins/plugin_utils/test_plan_mkfs_discard.py.
"""

from __future__ import annotations

import copy
import os
import shutil

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import audit as host_audit
from ansible_collections.iotune.storage.plugins.module_utils import drift, fstab, rules, xfs, xfs_call
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.audit import (
    ARRAYS,
    FS_UUID,
    OPTIONS,
    RULES,
    tuned_host,
    tuning,
)
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import fixture

BY_CLASS = {'nvme': 'fstrim_timer', 'virtual': 'fstrim_timer', 'ssd': 'fstrim_timer', 'hdd': 'none',
            'ebs': 'fstrim_timer', 'instance_store': 'fstrim_timer'}


# ---- the rules ---------------------------------------------------------------------------------------------------

def test_mkfs_section_takes_discard_only_as_a_boolean():
    assert rules.mkfs_problems({'discard': False}) == ({'discard': False}, [])
    assert rules.mkfs_problems(None) == ({}, [])
    assert rules.mkfs_problems({'discard': None}) == ({}, [])
    assert rules.mkfs_problems({'discard': 'no'})[1] == ["mkfs.discard must be true or false, got 'no'"]
    # a key no source asks for is refused (negative control: the allow-list is not open)
    found = rules.mkfs_problems({'sector_size': 4096, 'discrad': False})[1]
    assert found[0].startswith("mkfs: unknown key 'discrad' (did you mean discard?)")
    assert found[1].startswith("mkfs: unknown key 'sector_size'")


def test_discard_by_class_takes_the_member_classes_and_the_three_policies():
    assert rules.discard_policy_problems(BY_CLASS) == (BY_CLASS, [])
    assert rules.discard_policy_problems({'nvme': 'trim'})[1] == [
        "discard_by_class.nvme must be one of none, fstrim_timer, online, got 'trim'"]
    assert 'unknown member class' in rules.discard_policy_problems({'nvm': 'none'})[1][0]
    assert rules.discard_policy_problems('online')[1][0].startswith('discard_by_class must be a dict')


def test_discard_in_raw_mount_options_points_to_the_policy():
    problem = rules.mount_option_problem('discard')
    assert problem.startswith('discard is refused') and 'discard_by_class' in problem
    assert rules.mount_option_problem('nodiscard') is None          # the kernel's default, harmless


# ---- the policy of an array --------------------------------------------------------------------------------------

def test_the_members_policy_and_the_most_conservative_of_a_mixed_set():
    assert xfs.discard_policy({'vdb': 'virtual', 'vdc': 'virtual'}, BY_CLASS)[0] == 'fstrim_timer'
    mixed = dict(BY_CLASS, nvme='online')
    policy, why = xfs.discard_policy({'nvme1n1': 'nvme', 'sdb': 'hdd'}, mixed)
    assert policy == 'none' and 'the most conservative' in why and 'sdb: hdd -> none' in why
    assert xfs.discard_policy({'nvme1n1': 'nvme', 'nvme2n1': 'ssd'}, mixed)[0] == 'fstrim_timer'
    # negative control: the least conservative would have been online
    assert max(('online', 'fstrim_timer'), key=rules.DISCARD_POLICIES.index) == 'online'


def test_no_policy_where_the_plan_says_nothing():
    assert xfs.discard_policy({'vdb': 'virtual'}, {}) == (None, 'the plan sets no discard policy')
    assert xfs.discard_policy({}, BY_CLASS)[0] is None
    policy, why = xfs.discard_policy({'vdb': 'virtual', 'sdc': None}, BY_CLASS)
    assert policy is None and 'sdc (None)' in why


def test_a_cloud_class_wins_over_nvme_only_when_the_policy_names_it():
    assert xfs.discard_class('nvme', 'instance_store', BY_CLASS) == 'instance_store'
    assert xfs.discard_class('nvme', 'instance_store', {'nvme': 'online'}) == 'nvme'
    assert xfs.discard_class('virtual', None, BY_CLASS) == 'virtual'


def test_online_adds_discard_before_the_options_every_line_carries():
    assert fstab.with_discard(OPTIONS, 'online') == 'noatime,discard,nofail,x-systemd.device-timeout=90s'
    assert fstab.with_discard(fstab.with_discard(OPTIONS, 'online'), 'online').count('discard') == 1
    for policy in ('fstrim_timer', 'none', None):
        assert fstab.with_discard(OPTIONS, policy) == OPTIONS
    assert fstab.with_discard(None, 'online') is None


def test_mkfs_argv_with_and_without_discard():
    assert xfs.mkfs_argv('mkfs.xfs', '/dev/md127', 'data', 256, 4, discard=False) == [
        'mkfs.xfs', '-K', '-L', 'data', '-d', 'su=256k,sw=4', '/dev/md127']
    assert '-K' not in xfs.mkfs_argv('mkfs.xfs', '/dev/md127', 'data', 256, 4)


def test_mount_stripe_reads_the_sectors_of_the_mount():
    assert xfs.mount_stripe(['rw', 'attr2', 'sunit=512', 'swidth=1024']) == (512, 1024)
    assert xfs.mount_stripe(['rw', 'noquota']) == (None, None)


# ---- the xfs_filesystem call -------------------------------------------------------------------------------------

BINS = {'mkfs.xfs': '/sbin/mkfs.xfs', 'xfs_info': '/sbin/xfs_info', 'udevadm': None, 'blkid': 'blkid',
        'wipefs': 'wipefs'}
MKFS_K = ['/sbin/mkfs.xfs', '-K', '-L', 'data', '-d', 'su=256k,sw=2', '/dev/md127']
BLKID = ['blkid', '-p', '-o', 'export', '/dev/md127']


def params(**kw):
    p = dict((key, spec.get('default')) for key, spec in xfs_call.argument_spec().items())
    p.update({'device': '/dev/md/data', 'label': 'data', 'mountpoint': '/var/lib/cassandra', 'mount_options': OPTIONS})
    p.update(kw)
    return p


def blank_array(fake_host):
    """tuned_host's two virtio members and md127, no filesystem yet."""
    h = tuned_host(fake_host)
    h.write('etc/fstab', '')
    h.mountinfo = h.mountinfo[:1]
    h._write_mountinfo()
    h.udev_db('9:127', {'MD_NAME': 'lab:data', 'MD_DEVNAME': 'data', 'DEVTYPE': 'disk'})
    h.on(BLKID, 2, '')
    h.on(['wipefs', '--no-act', '--output', 'DEVICE,OFFSET,TYPE', '--noheadings', '/dev/md127'], 0, '')
    return h


def test_mkfs_discard_false_runs_mkfs_with_k_and_the_diff_shows_it(fake_host):
    h = blank_array(fake_host)
    result = xfs_call.filesystem_call(params(mkfs_discard=False, discard_by_class=BY_CLASS), h.view(), h.run, BINS,
                                      check_mode=True, diff=True)
    assert result['changed'] and result['cmd'] == MKFS_K
    assert result['diff']['after']['mkfs'] == ' '.join(MKFS_K)
    assert result['discard']['policy'] == 'fstrim_timer' and result['discard']['fstrim_timer'] is True
    assert result['discard']['classes'] == {'vdb': 'virtual', 'vdc': 'virtual'}
    assert h.ran(['/sbin/mkfs.xfs']) == []                           # check mode: nothing ran
    # negative control: without the option mkfs discards as before
    assert '-K' not in xfs_call.filesystem_call(params(), h.view(), h.run, BINS, check_mode=True)['cmd']


def test_an_existing_filesystem_is_never_made_again_for_its_mkfs_options(fake_host):
    h = tuned_host(fake_host)
    h.on(BLKID, 0, 'UUID=%s\nTYPE=xfs\nLABEL=data\n' % FS_UUID)
    h.on(['/sbin/xfs_info', '/dev/md127'], 0, fixture('xfs', 'xfs_info_md_su256k_sw4.txt').replace(
        'swidth=256', 'swidth=128'))
    result = xfs_call.filesystem_call(params(mkfs_discard=False, discard_by_class=BY_CLASS), h.view(), h.run, BINS,
                                      diff=True)
    assert result['changed'] is False and result['cmd'] == [] and h.ran(['/sbin/mkfs.xfs']) == []
    assert result['mounted_as_planned'] is True
    assert result['diff']['before'] == result['diff']['after']


def test_online_puts_discard_into_the_fstab_line_compared(fake_host):
    h = tuned_host(fake_host)
    h.on(BLKID, 0, 'UUID=%s\nTYPE=xfs\nLABEL=data\n' % FS_UUID)
    h.on(['/sbin/xfs_info', '/dev/md127'], 0, fixture('xfs', 'xfs_info_md_su256k_sw4.txt').replace(
        'swidth=256', 'swidth=128'))
    online = dict(BY_CLASS, virtual='online')
    result = xfs_call.filesystem_call(params(discard_by_class=online), h.view(), h.run, BINS)
    assert result['mount_options'] == 'noatime,discard,nofail,x-systemd.device-timeout=90s'
    assert result['mounted_as_planned'] is False                      # the fstab line lacks it: the role mounts
    assert result['discard']['fstrim_timer'] is False
    # negative control: fstrim_timer keeps the line as it is
    assert xfs_call.filesystem_call(params(discard_by_class=BY_CLASS), h.view(), h.run, BINS)['mounted_as_planned']


@pytest.mark.parametrize('shown, wanted', [
    ('LoadState=loaded\nUnitFileState=enabled\nActiveState=active\n', False),
    ('LoadState=loaded\nUnitFileState=disabled\nActiveState=inactive\n', True),
    ('LoadState=loaded\nUnitFileState=enabled\nActiveState=inactive\n', True),
])
def test_the_role_enables_the_timer_only_when_it_is_not_enabled_and_active(fake_host, shown, wanted):
    """A converged re-run makes no call for the timer (issue 31): the call reads its state once."""
    h = tuned_host(fake_host)
    h.on(BLKID, 0, 'UUID=%s\nTYPE=xfs\nLABEL=data\n' % FS_UUID)
    h.on(['/sbin/xfs_info', '/dev/md127'], 0, fixture('xfs', 'xfs_info_md_su256k_sw4.txt').replace(
        'swidth=256', 'swidth=128'))
    h.on(['/bin/systemctl'] + SHOW[1:], 0, shown)
    result = xfs_call.filesystem_call(params(discard_by_class=BY_CLASS), h.view(), h.run,
                                      dict(BINS, systemctl='/bin/systemctl'))
    assert result['discard']['policy'] == 'fstrim_timer' and result['discard']['fstrim_timer'] is wanted
    # negative control: a policy other than fstrim_timer never asks for the timer, and reads nothing
    before = len(h.ran(['/bin/systemctl']))
    none = dict(BY_CLASS, virtual='none')
    assert xfs_call.filesystem_call(params(discard_by_class=none), h.view(), h.run,
                                    dict(BINS, systemctl='/bin/systemctl'))['discard']['fstrim_timer'] is False
    assert len(h.ran(['/bin/systemctl'])) == before


def fresh_disks(fake_host):
    """Two blank virtio disks by id, no array yet (a fresh host before the raid0 stage)."""
    h = fake_host
    for i, name in ((1, 'vdb'), (2, 'vdc')):
        h.add_disk(name, '254:%d' % (16 * i), queue={'read_ahead_kb': '128', 'scheduler': '[none] mq-deadline'},
                   attrs={'serial': 'vol%d' % i}, node=True)
        h.dev_link('disk/by-id/virtio-vol%d' % i, '../../%s' % name)
        h.udev_db('254:%d' % (16 * i), {'DEVTYPE': 'disk'})
    h.write('etc/fstab', '')
    return h


MEMBERS = ['/dev/disk/by-id/virtio-vol1', '/dev/disk/by-id/virtio-vol2']


@pytest.mark.parametrize('policy, options', [
    ('fstrim_timer', OPTIONS),
    ('online', 'noatime,discard,nofail,x-systemd.device-timeout=90s'),
])
def test_check_mode_before_the_array_exists_predicts_the_policy_from_the_planned_members(fake_host, policy, options):
    """Check mode on a fresh host (the gap of issue 27): the array is not made yet, its planned members say which
    policy the filesystem gets, so --check shows fstrim.timer's enabling or the discard in the fstab line."""
    h = fresh_disks(fake_host)
    by_class = dict(BY_CLASS, virtual=policy)
    result = xfs_call.filesystem_call(params(discard_by_class=by_class, members=MEMBERS), h.view(), h.run, BINS,
                                      check_mode=True, diff=True, warn=lambda msg: None)
    assert result['created'] is True and result['resolved'] is None
    assert result['discard']['classes'] == {'vdb': 'virtual', 'vdc': 'virtual'}
    assert result['discard']['policy'] == policy
    assert result['discard']['fstrim_timer'] is (policy == 'fstrim_timer')
    assert result['mount_options'] == options
    assert result['diff']['after']['discard_policy'].startswith(policy)
    # negative control: without the members (as before the fix) nothing is known of the policy
    blind = xfs_call.filesystem_call(params(discard_by_class=by_class), h.view(), h.run, BINS, check_mode=True,
                                     warn=lambda msg: None)
    assert blind['discard']['policy'] is None and blind['discard']['fstrim_timer'] is False
    assert blind['mount_options'] == OPTIONS


def test_the_planned_members_are_ignored_once_the_array_exists(fake_host):
    """sysfs decides for an existing array: members the plan names but md does not list take no part."""
    h = tuned_host(fake_host)
    h.add_disk('vdd', '254:48', queue={'read_ahead_kb': '128', 'scheduler': '[none] mq-deadline',
                                       'rotational': '1'}, node=True)
    h.on(BLKID, 0, 'UUID=%s\nTYPE=xfs\nLABEL=data\n' % FS_UUID)
    h.on(['/sbin/xfs_info', '/dev/md127'], 0, fixture('xfs', 'xfs_info_md_su256k_sw4.txt').replace(
        'swidth=256', 'swidth=128'))
    result = xfs_call.filesystem_call(params(discard_by_class=BY_CLASS, members=['/dev/vdd']), h.view(), h.run, BINS)
    assert result['discard']['classes'] == {'vdb': 'virtual', 'vdc': 'virtual'}
    assert result['discard']['policy'] == 'fstrim_timer'


# ---- the audit: area filesystem ----------------------------------------------------------------------------------

PLAN = {
    'profile': {'description': 'Cassandra data volume'},
    'raid0_arrays': [{'name': 'data', 'devices': ARRAYS[0]['devices'], 'chunk_kb': 256}],
    'xfs_filesystems': [{'device': '/dev/md/data', 'mountpoint': '/var/lib/cassandra', 'mount_options': ['noatime'],
                         'discard_by_class': BY_CLASS}],
}
TIMER_ON = 'LoadState=loaded\nUnitFileState=enabled\nActiveState=active\n'
SHOW = ['systemctl', 'show', '--property=LoadState,UnitFileState,ActiveState', '--', 'fstrim.timer']


def audited(h, plan=None, timer=TIMER_ON):
    plan = PLAN if plan is None else plan
    h.on(SHOW, 0, timer)
    facts = host_audit.gather(h.view(), ARRAYS, tuning(h), RULES, run_command=h.run,
                              fstrim_timer=bool(plan['xfs_filesystems'][0].get('discard_by_class')))
    return [(i['area'], i['message']) for i in drift.compare(facts, plan)['items']]


def test_a_converged_host_with_the_timer_is_ok(fake_host):
    assert audited(tuned_host(fake_host)) == []


def test_the_timer_disabled_is_drift_of_the_filesystem_only_when_the_plan_asks_for_it(fake_host):
    h = tuned_host(fake_host)
    found = audited(h, timer='LoadState=loaded\nUnitFileState=disabled\nActiveState=inactive\n')
    assert found == [('filesystem', 'fstrim.timer is disabled and inactive, the discard policy is fstrim_timer '
                                    '(vdb: virtual -> fstrim_timer, vdc: virtual -> fstrim_timer)')]
    # not drift where the plan says nothing (negative control of the same host)
    plain = copy.deepcopy(PLAN)
    del plain['xfs_filesystems'][0]['discard_by_class']
    assert audited(h, plan=plain, timer='LoadState=loaded\nUnitFileState=disabled\nActiveState=inactive\n') == []


def test_a_mount_with_discard_against_the_policy_and_without_it_for_online(fake_host):
    h = tuned_host(fake_host)
    h.mountinfo[-1] = h.mountinfo[-1].replace('noquota', 'discard,noquota')
    h._write_mountinfo()
    found = audited(h)
    assert [area for area, dummy in found] == ['filesystem'] and found[0][1].startswith('mounted with discard')
    h2 = tuned_host(fake_host.__class__(fake_host.root + '2'))
    online = copy.deepcopy(PLAN)
    online['xfs_filesystems'][0]['discard_by_class'] = dict(BY_CLASS, virtual='online')
    areas = audited(h2, plan=online)
    # the fstab line lacks discard (the role writes it) and the mount has none
    assert sorted(area for area, dummy in areas) == ['filesystem', 'fstab']


def test_a_stripe_other_than_the_arrays_is_reported(fake_host):
    h = tuned_host(fake_host)
    h.mountinfo[-1] = h.mountinfo[-1].replace('swidth=1024', 'swidth=2048')
    h._write_mountinfo()
    assert audited(h) == [('filesystem', 'XFS stripe sunit=512,swidth=2048 (512-byte sectors), the array is 256 KiB '
                                         'x 2 members (sunit=512,swidth=1024); the filesystem is left as it is '
                                         '(re-creating it would destroy its data)')]
    h.mountinfo[-1] = h.mountinfo[-1].replace(',sunit=512,swidth=2048', '')
    h._write_mountinfo()
    assert audited(h)[0][1].startswith('XFS stripe no stripe')


def test_the_timer_read_fails_as_an_audit_item(fake_host):
    h = tuned_host(fake_host)
    h.on(SHOW, 1, '')
    facts = host_audit.gather(h.view(), ARRAYS, tuning(h), RULES, run_command=h.run, fstrim_timer=True)
    assert facts['fstrim_timer']['error'].startswith('systemctl show')
    assert [i['area'] for i in drift.compare(facts, PLAN)['items']] == ['audit']
    assert host_audit.gather(h.view(), ARRAYS, tuning(h), RULES)['fstrim_timer'] is None


@pytest.mark.parametrize('state, enabled', [('loaded', 'enabled'), ('not-found', 'not-found')])
def test_the_timer_facts(state, enabled):
    file_state = 'enabled' if enabled == 'enabled' else ''

    def run(argv):
        return 0, 'LoadState=%s\nUnitFileState=%s\nActiveState=active\n' % (state, file_state), ''
    assert host_audit.fstrim_timer_facts(run) == {'enabled': enabled, 'active': 'active', 'error': None}


def test_the_compared_plan_carries_the_policy():
    assert drift.compared_plan(PLAN)['xfs_filesystems'][0]['discard_by_class'] == BY_CLASS
    plain = copy.deepcopy(PLAN)
    del plain['xfs_filesystems'][0]['discard_by_class']
    assert 'discard_by_class' not in drift.compared_plan(plain)['xfs_filesystems'][0]


def test_a_member_gone_from_the_host_leaves_the_policy_to_the_members_that_are_there(fake_host):
    """A member unplugged while the array runs (md still lists it, the host has no such disk: the lab's degraded
    boot test) takes no discard and has no class: the policy is the remaining members'. Before this, the unknown
    class of the gone member made the policy None and the disabled timer went unreported."""
    h = tuned_host(fake_host)
    shutil.rmtree(os.path.join(h.root, 'sys/block/vdc'))
    found = audited(h, timer='LoadState=loaded\nUnitFileState=disabled\nActiveState=inactive\n')
    assert ('filesystem', 'fstrim.timer is disabled and inactive, the discard policy is fstrim_timer '
                          '(vdb: virtual -> fstrim_timer)') in found, found


def test_the_module_and_the_audit_leave_a_gone_member_out_of_the_policy_alike(fake_host):
    """xfs_call.discard_of takes the same rule as the audit: a member md lists that the host has not any more has no
    part in the policy (before, its unknown class made the module's policy None while the audit's was the others')."""
    h = tuned_host(fake_host)
    assert xfs_call.discard_of(h.view(), '/dev/md127', BY_CLASS)['classes'] == {'vdb': 'virtual', 'vdc': 'virtual'}
    shutil.rmtree(os.path.join(h.root, 'sys/block/vdc'))
    found = xfs_call.discard_of(h.view(), '/dev/md127', BY_CLASS)
    assert found['classes'] == {'vdb': 'virtual'} and found['policy'] == 'fstrim_timer', found
