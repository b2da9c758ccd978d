# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The tune plan with member selectors (docs/cloud.md): syntax checked on the controller, the members
resolved on the host enter the plan in one place (plan.with_resolution)."""

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.plugin_utils.plan import PlanError, build_plan
from ansible_collections.iotune.storage.tests.unit.plugins.plugin_utils.test_plan import profile_data

EBS = [{'ebs_volume_id': 'vol0123456789abcdef0'}, {'ebs_volume_id': 'vol-0123456789abcdef1'}]
PATHS = ['/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0',
         '/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef1']


def arrays(devices, **more):
    entry = {'name': 'data', 'devices': devices, 'mountpoint': '/var/lib/cassandra'}
    entry.update(more)
    return [entry]


def plan(arrays_, resolved=None):
    return build_plan('cassandra', profile_data(), {}, arrays_, resolved=resolved)


def problems(arrays_):
    with pytest.raises(PlanError) as e:
        plan(arrays_)
    return str(e.value)


def test_selectors_are_normalised_and_need_resolution():
    got = plan(arrays(EBS + [{'instance_store': 'all'}]))
    assert got['needs_resolution'] is True
    assert got['preflight_arrays'][0]['devices'] == [
        {'ebs_volume_id': 'vol-0123456789abcdef0'}, {'ebs_volume_id': 'vol-0123456789abcdef1'},
        {'instance_store': 'all', 'count': None}]
    assert got['preflight_arrays'][0]['allow_single_device'] is False


def test_paths_only_need_no_resolution():
    assert plan(arrays(PATHS))['needs_resolution'] is False


@pytest.mark.parametrize('devices, words', [
    ([{'ebs_volume_id': 'vol-nope'}, '/dev/vdb'], "devices: ebs_volume_id 'vol-nope' is not an EBS volume id"),
    ([{'azure_lun': 99}, '/dev/vdb'], 'devices: azure_lun must be a whole number 0..63, got 99'),
    ([{'instance_store': 'yes'}], 'instance_store takes the value all'),
    ([{'lun': 1}, '/dev/vdb'], 'unknown key lun'),
    ([EBS[0], {'ebs_volume_id': 'vol-0123456789abcdef0'}], 'devices are not unique: ebs_volume_id=vol-0123456789abcdef0, '
                                                           'ebs_volume_id=vol-0123456789abcdef0'),
    ([{'azure_lun': 1}], 'a RAID0 of one device'),
    ([{'instance_store': 'all', 'count': 1}], 'a RAID0 of one device'),
    ([7, '/dev/vdb'], 'devices: 7 is neither a /dev path nor a member selector'),
])
def test_selector_errors_name_the_array(devices, words):
    msg = problems(arrays(devices))
    assert msg.startswith("iotune_arrays entry 'data': ")
    assert words in msg


def test_instance_store_without_count_leaves_the_number_to_the_host():
    assert plan(arrays([{'instance_store': 'all'}]))['needs_resolution'] is True


def test_one_selector_in_two_arrays():
    two = arrays([{'instance_store': 'all'}]) + [{'name': 'logs', 'devices': [{'instance_store': 'all'}],
                                                  'mountpoint': '/srv/logs'}]
    assert 'a device can be a member of one array only: instance_store=all (in data, logs)' in problems(two)


def test_wipe_devices_may_name_a_selector_of_devices():
    got = plan(arrays(EBS, wipe_devices=[{'ebs_volume_id': 'vol0123456789abcdef1'}]))
    assert got['preflight_arrays'][0]['wipe_devices'] == [{'ebs_volume_id': 'vol-0123456789abcdef1'}]
    msg = problems(arrays(EBS, wipe_devices=[{'azure_lun': 3}]))
    assert 'wipe_devices not in devices: azure_lun=3' in msg


def test_the_resolved_members_feed_every_role():
    resolved = {'data': {'devices': PATHS, 'wipe_devices': PATHS[1:], 'allow_shared_disk': []}}
    got = plan(arrays(EBS, wipe_devices=[EBS[1]]), resolved=resolved)
    assert got['needs_resolution'] is False
    assert got['raid0_arrays'][0]['devices'] == PATHS and got['raid0_arrays'][0]['wipe_devices'] == PATHS[1:]
    assert [d['device'] for d in got['block_tuning_devices'][1:]] == PATHS
    assert got['preflight_arrays'][0]['devices'] == PATHS
    assert got['xfs_filesystems'][0]['allow_data'] is True


def test_the_resolved_members_are_validated_like_paths():
    # instance_store without count resolved to one disk: the single-device refusal applies now
    msg = problems_resolved(arrays([{'instance_store': 'all'}]), {'data': {'devices': PATHS[:1]}})
    assert 'a RAID0 of one device' in msg


def problems_resolved(arrays_, resolved):
    with pytest.raises(PlanError) as e:
        plan(arrays_, resolved=resolved)
    return str(e.value)
