# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The profiles' limits (issue 27): validated by the plan before any change, one set per service of the arrays,
overridable with iotune_profile_overrides, and the table of docs/profiles.md ("Limits") equal to the profile files."""

from __future__ import annotations

import os
import re

import pytest
import yaml

from ansible_collections.iotune.storage.plugins.plugin_utils.plan import PlanError, build_plan

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..')
PROFILES = os.path.join(ROOT, 'roles', 'profile', 'vars', 'profiles')
ARRAYS = [{'name': 'data', 'devices': ['/dev/disk/by-id/virtio-a', '/dev/disk/by-id/virtio-b'],
           'mountpoint': '/var/lib/db'}]


def profile_data(name):
    with open(os.path.join(PROFILES, name + '.yml'), encoding='utf-8') as f:
        return yaml.safe_load(f)['profile_data']


def plan(name='cassandra', overrides=None, arrays=None):
    return build_plan(name, profile_data(name), overrides or {}, ARRAYS if arrays is None else arrays,
                      mongodb_version='7.0')


def problems(overrides, name='cassandra'):
    with pytest.raises(PlanError) as e:
        plan(name, overrides)
    return str(e.value)


def test_each_service_of_the_arrays_gets_the_profiles_limits():
    found = plan()['limits']
    assert found == {'cassandra.service': {'LimitAS': 'infinity', 'LimitMEMLOCK': 'infinity', 'LimitNOFILE': '100000',
                                           'LimitNPROC': '32768'}}
    two = plan(arrays=[dict(ARRAYS[0], services=['a', 'b.service'])])['limits']
    assert sorted(two) == ['a.service', 'b.service'] and two['a.service'] == found['cassandra.service']
    # no service, no drop-in (services: [] writes none, as for the mount holds)
    assert plan(arrays=[dict(ARRAYS[0], services=[])])['limits'] == {}
    assert plan('custom', {'raid_chunk_kb': 64, 'array': {'read_ahead_kb': 8}, 'mount_options': ['noatime'],
                           'members': {'read_ahead_kb': 8, 'scheduler_by_class': {'nvme': 'none'}},
                           'fio_verify_jobs': [], 'fio_verify_thresholds': {}},
                arrays=[dict(ARRAYS[0], services=['db'])])['limits'] == {}


def test_overrides_change_add_and_remove_a_limit():
    found = plan(overrides={'limits': {'LimitNOFILE': 1048576, 'LimitAS': None, 'LimitCORE': 0}})['limits']
    assert found['cassandra.service'] == {'LimitMEMLOCK': 'infinity', 'LimitNOFILE': '1048576', 'LimitNPROC': '32768',
                                          'LimitCORE': '0'}
    # the mongodb profiles carry MongoDB's unit's limits
    assert plan('mongodb')['limits']['mongod.service']['LimitNOFILE'] == '64000'


@pytest.mark.parametrize('overrides, message', [
    ({'limits': {'LimitNOFLE': 1}}, 'did you mean limits.LimitNOFILE'),
    ({'limits': {'LimitNOFILE': '1M'}}, 'LimitNOFILE: \'1M\' is not a limit'),
    ({'limits': {'LimitNPROC': '65536:1024'}}, 'the soft limit 65536 is above the hard limit 1024'),
    ({'limits': {'LimitNOFILE': True}}, 'LimitNOFILE: True is not a limit'),
    ({'limits': ['LimitNOFILE=1']}, 'limits must be a dict'),
])
def test_bad_limits_are_refused_before_any_change(overrides, message):
    assert message in problems(overrides)


def test_a_good_override_is_not_refused():
    # negative control of the refusals above
    assert plan(overrides={'limits': {'LimitNOFILE': '65536:1048576'}})['limits']['cassandra.service'][
        'LimitNOFILE'] == '65536:1048576'


def _table(section):
    with open(os.path.join(ROOT, 'docs', 'profiles.md'), encoding='utf-8') as f:
        text = f.read()
    body = text.split('## %s' % section, 1)[1].split('\n## ', 1)[0]
    rows = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) >= 4 and re.fullmatch(r'`[a-z_]+`', cells[0]) and re.fullmatch(r'`Limit[A-Z]+`', cells[1]):
            rows[(cells[0].strip('`'), cells[1].strip('`'))] = cells[2].strip('`')
    return rows


def test_the_docs_table_is_the_profile_files():
    found = {}
    for name in ('cassandra', 'mongodb', 'mongodb_ebs_piops', 'streaming', 'custom'):
        for key, value in (profile_data(name).get('limits') or {}).items():
            found[(name, key)] = str(value)
    assert found and _table('Limits') == found
