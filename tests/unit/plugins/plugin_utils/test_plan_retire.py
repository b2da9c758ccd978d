# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""iotune_retire_md_arrays (issue 29) in the plan: an entry names the array twice and gives its md UUID; everything
else is refused with the other problems of the run, before the host is read."""

from __future__ import annotations

import os

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.tune_plan import tune_plan

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..')
UUID = 'a0021927:0e4f10bf:2c47dc72:ca0b352e'
KEPT = {'name': 'data', 'devices': ['/dev/vdb', '/dev/vdc'], 'mountpoint': '/srv/data'}


def plan(retire, arrays=(KEPT,), **kwargs):
    with open(os.path.join(ROOT, 'roles', 'profile', 'vars', 'profiles', 'cassandra.yml')) as f:
        data = yaml.safe_load(f)['profile_data']
    return tune_plan(data, 'cassandra', arrays=list(arrays), retire=retire, **kwargs)


def refused(retire, **kwargs):
    with pytest.raises(AnsibleFilterError) as e:
        plan(retire, **kwargs)
    return str(e.value)


def entry(**kw):
    out = {'name': 'data2', 'confirm_name': 'data2', 'confirm_uuid': UUID}
    out.update(kw)
    return out


def test_an_entry_reaches_the_plan_normalised():
    got = plan([entry(confirm_uuid='A0021927-0E4F-10BF-2C47-DC72CA0B352E', services=['cassandra'])])
    assert got['retire_arrays'] == [{'name': 'data2', 'confirm_name': 'data2', 'confirm_uuid': UUID,
                                     'zero_superblocks': False, 'services': ['cassandra.service']}]
    assert plan(None)['retire_arrays'] == [] and plan([])['retire_arrays'] == []
    # the array retired is no part of what the stages build or tune
    assert [a['name'] for a in got['raid0_arrays']] == ['data']


@pytest.mark.parametrize('retire, expected', [
    ([entry(confirm_name='data')], "confirm_name 'data' is not the name 'data2'; a retire names the array twice"),
    ([entry(confirm_name=None)], 'confirm_name is required'),
    ([entry(confirm_uuid=None)], 'confirm_uuid is required'),
    ([entry(confirm_uuid='a0021927')], "confirm_uuid 'a0021927' is not an md UUID"),
    ([entry(confirm_uuid='g0021927:0e4f10bf:2c47dc72:ca0b352e')], 'is not an md UUID'),
    ([entry(zero_superblocks='yes')], "zero_superblocks must be true or false, got 'yes'"),
    ([entry(zero_superblock=True)], "unknown key 'zero_superblock' (did you mean zero_superblocks?)"),
    ([entry(services=['x.mount'])], 'x.mount is a .mount unit'),
    ([entry(name='data', confirm_name='data')], 'data is in iotune_arrays too'),
    ([entry(), entry()], 'iotune_retire_md_arrays: names must be unique: data2'),
    ([entry(), entry(name='data3', confirm_name='data3')], 'iotune_retire_md_arrays: UUIDs must be unique'),
    ({'name': 'data2'}, 'iotune_retire_md_arrays must be a list'),
    (['data2'], 'iotune_retire_md_arrays[0] must be a dict'),
    ([entry(name='../x', confirm_name='../x')], "name '../x' must be 1-32 letters"),
])
def test_refused_before_the_host_is_read(retire, expected):
    assert expected in refused(retire)


def test_refused_with_the_other_problems_of_the_run():
    text = refused([entry(confirm_name='x')], variables=['iotune_retire_md_array'])
    assert 'iotune_retire_md_array (did you mean iotune_retire_md_arrays' in text
    assert "confirm_name 'x' is not the name 'data2'" in text


def test_negative_control_the_same_entries_pass_when_right():
    assert len(plan([entry(), entry(name='data3', confirm_name='data3',
                                    confirm_uuid='11111111:22222222:33333333:44444444', zero_superblocks=True)])
               ['retire_arrays']) == 2
