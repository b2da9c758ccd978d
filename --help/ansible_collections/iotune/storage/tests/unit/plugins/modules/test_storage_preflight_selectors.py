# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""storage_preflight: member selectors resolved on the host before anything changes (docs/cloud.md)."""

from __future__ import annotations

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.preflight import Preflight, PreflightError
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.test_cloud import aws_nitro

EBS0 = '/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0'
EBS1 = '/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef1'
EBS2 = '/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef2'
IS3 = '/dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWS2E0E1B0C3F4A00000'
IS4 = '/dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWS2E0E1B0C4F4A00000'


@pytest.fixture
def host(fake_host):
    aws_nitro(fake_host)
    fake_host.write('etc/fstab', 'LABEL=rootfs / ext4 errors=remount-ro 0 1\n')
    return fake_host


def array(devices, name='data', mountpoint='/var/lib/cassandra', **kw):
    entry = {'name': name, 'devices': list(devices), 'wipe_devices': [], 'allow_shared_disk': [],
             'mountpoint': mountpoint, 'allow_nonempty_mountpoint': False}
    entry.update(kw)
    return entry


def preflight(host, *arrays, **params):
    params.update({'arrays': list(arrays), 'fstab': '/etc/fstab'})
    return Preflight(params, host.view())


def refused(host, *arrays, **params):
    check = preflight(host, *arrays, **params)
    with pytest.raises(PreflightError) as e:
        check.run()
    return e.value.problems


def test_selectors_resolve_to_stable_paths_and_are_checked_like_paths(host):
    check = preflight(host, array([{'ebs_volume_id': 'vol-0123456789abcdef1'}, {'ebs_volume_id': 'vol0123456789abcdef2'}]),
                      array([{'instance_store': 'all', 'count': 2}], name='scratch', mountpoint='/srv/scratch'))
    report = check.run()
    assert check.resolved == {'data': {'devices': [EBS1, EBS2], 'wipe_devices': [], 'allow_shared_disk': []},
                              'scratch': {'devices': [IS3, IS4], 'wipe_devices': [], 'allow_shared_disk': []}}
    assert check.selections[0] == {'array': 'data', 'selector': 'ebs_volume_id=vol-0123456789abcdef1',
                                   'devices': [{'path': EBS1, 'kname': 'nvme1n1'}]}
    assert check.selections[2]['selector'] == 'instance_store=all (count 2)'
    assert [m['kname'] for m in report[0]['members']] == ['nvme1n1', 'nvme2n1']
    assert report[1]['state'] == 'create' and report[1]['members'][0]['given'] == IS3


def test_a_selector_naming_a_disk_in_use_is_refused_by_name(host):
    # the root filesystem's EBS volume
    problems = refused(host, array([{'ebs_volume_id': 'vol-0123456789abcdef0'}, {'ebs_volume_id': 'vol-0123456789abcdef1'}]))
    assert problems == ["array 'data': ebs_volume_id=vol-0123456789abcdef0 names %s (/dev/nvme0n1), which is in use "
                        "(mounted on /); a disk in use is never made a member" % EBS0]


def test_instance_store_mounted_by_cloud_init_is_refused(host):
    host.mount('259:14', '/mnt', 'ext4', '/dev/nvme4n1')
    problems = refused(host, array([{'instance_store': 'all'}]))
    assert len(problems) == 1
    assert problems[0].startswith("array 'data': instance_store=all names %s (/dev/nvme4n1), which is in use (mounted on /mnt)"
                                  % IS4)


def test_selector_errors_come_all_at_once_and_change_nothing(host):
    problems = refused(host, array([{'ebs_volume_id': 'vol-0123456789abcdef9'}, {'instance_store': 'all', 'count': 3}]))
    assert problems[0].startswith("array 'data': ebs_volume_id=vol-0123456789abcdef9 matches no disk on this host")
    assert problems[1].startswith("array 'data': instance_store=all (count 3) matches 2 disks")
    assert all(c[0].endswith(('blkid', 'wipefs')) for c in host.calls)


def test_a_rerun_accepts_the_members_of_the_running_array(host):
    host.add_disk('md127', '9:127', slaves=['nvme3n1', 'nvme4n1'], node=True)
    for kname in ('nvme3n1', 'nvme4n1'):
        os.symlink('../../md127', os.path.join(host.sys, 'block', kname, 'holders', 'md127'))
    host.md_link('scratch', 'md127')
    check = preflight(host, array([{'instance_store': 'all'}], name='scratch', mountpoint='/srv/scratch'))
    report = check.run()
    assert report[0]['state'] == 'running'
    # held by another array: refused
    problems = refused(host, array([{'instance_store': 'all'}], name='other', mountpoint='/srv/other'))
    assert 'held by an active md array (/dev/md127)' in problems[0]


def test_wipe_devices_by_selector(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/nvme4n1'], 0, 'TYPE=ext4\nUUID=1234\n')
    sel = {'instance_store': 'all'}
    assert refused(host, array([sel]))[0].startswith("array 'data': refusing %s (/dev/nvme4n1): ext4" % IS4)
    check = preflight(host, array([sel], wipe_devices=[sel]))
    check.run()
    assert check.resolved['data']['wipe_devices'] == [IS3, IS4]


def test_resolve_only_skips_the_other_checks(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/nvme4n1'], 0, 'TYPE=ext4\nUUID=1234\n')
    check = preflight(host, array([{'instance_store': 'all'}]), resolve_only=True)
    assert check.run() == []
    assert check.resolved['data']['devices'] == [IS3, IS4]
    host.mount('259:14', '/mnt', 'ext4', '/dev/nvme4n1')
    assert 'which is in use' in refused(host, array([{'instance_store': 'all'}]), resolve_only=True)[0]


def test_resolve_only_reports_a_detached_volume_when_asked(host):
    arrays = [array([{'ebs_volume_id': 'vol-0123456789abcdef1'}, {'ebs_volume_id': 'vol-0123456789abcdef9'}])]
    # tune (the default): refused, by name
    assert refused(host, *arrays, resolve_only=True)[0].startswith(
        "array 'data': ebs_volume_id=vol-0123456789abcdef9 matches no disk on this host")
    # the audit: planned without that member, the selector named in unresolved
    check = preflight(host, *arrays, resolve_only=True, unresolved='report')
    assert check.run() == []
    assert check.resolved['data']['devices'] == [EBS1]
    assert len(check.unresolved) == 1 and check.unresolved[0]['array'] == 'data'
    assert check.unresolved[0]['problem'].startswith('ebs_volume_id=vol-0123456789abcdef9 matches no disk on this host')


def test_report_mode_still_refuses_what_is_not_a_selector_problem(host):
    # a bad selector is a selector problem (reported); without resolve_only every problem refuses
    check = preflight(host, array([{'ebs_volume_id': 'vol-0123456789abcdef9'}, EBS1]), unresolved='report')
    with pytest.raises(PreflightError):
        check.run()
