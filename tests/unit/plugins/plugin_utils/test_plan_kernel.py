# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kernel part of the tune plan: value selection per profile and MongoDB version, strict validation."""

from __future__ import annotations

import os

import pytest
import yaml

from ansible_collections.iotune.storage.plugins.plugin_utils.plan import PlanError, build_plan, validate_kernel

PROFILES = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'roles', 'profile', 'vars', 'profiles')
ARRAYS = [{'name': 'data', 'devices': ['/dev/disk/by-id/virtio-a', '/dev/disk/by-id/virtio-b'],
           'mountpoint': '/var/lib/db'}]


def profile_data(name):
    with open(os.path.join(PROFILES, name + '.yml')) as f:
        return yaml.safe_load(f)['profile_data']


def kernel_plan(name, overrides=None, version=None, arrays=None):
    return build_plan(name, profile_data(name), overrides or {}, ARRAYS if arrays is None else arrays,
                      mongodb_version=version)['kernel']


def kernel_problems(name, overrides=None, version=None):
    with pytest.raises(PlanError) as e:
        kernel_plan(name, overrides, version)
    return str(e.value)


# --- values per profile ---------------------------------------------------------------------------

def test_cassandra_values_and_services():
    k = kernel_plan('cassandra')
    assert k['thp'] == {'enabled': 'never', 'defrag': 'never'}
    assert k['sysctl'] == {'vm.swappiness': 1, 'vm.zone_reclaim_mode': 0, 'vm.max_map_count': 1048575,
                           'fs.aio-max-nr': 1048576}
    assert k['services'] == ['cassandra.service']
    assert k['mongodb_version'] is None


def test_services_of_every_array_are_collected_once():
    arrays = ARRAYS + [{'name': 'logs', 'devices': ['/dev/disk/by-id/virtio-c', '/dev/disk/by-id/virtio-d'],
                        'mountpoint': '/var/lib/logs', 'services': ['cassandra', 'scylla-server.service']}]
    assert kernel_plan('cassandra', arrays=arrays)['services'] == ['cassandra.service', 'scylla-server.service']


@pytest.mark.parametrize('profile', ['mongodb', 'mongodb_ebs_piops'])
@pytest.mark.parametrize('version, thp, overcommit', [
    ('7.0', {'enabled': 'never', 'defrag': 'never'}, None),
    ('6.0.15', {'enabled': 'never', 'defrag': 'never'}, None),
    ('7.99', {'enabled': 'never', 'defrag': 'never'}, None),
    ('8.0', {'enabled': 'always', 'defrag': 'defer+madvise', 'khugepaged_max_ptes_none': 0}, 1),
    ('8.2.1', {'enabled': 'always', 'defrag': 'defer+madvise', 'khugepaged_max_ptes_none': 0}, 1),
    ('10', {'enabled': 'always', 'defrag': 'defer+madvise', 'khugepaged_max_ptes_none': 0}, 1),
])
def test_mongodb_thp_follows_the_version(profile, version, thp, overcommit):
    k = kernel_plan(profile, version=version)
    assert k['thp'] == thp
    assert k['sysctl'].get('vm.overcommit_memory') == overcommit
    assert k['sysctl']['vm.swappiness'] == 1 and k['sysctl']['vm.zone_reclaim_mode'] == 0
    assert k['mongodb_version'] == version
    assert k['services'] == ['mongod.service']


@pytest.mark.parametrize('profile', ['mongodb', 'mongodb_ebs_piops'])
def test_mongodb_without_version_refuses_to_guess(profile):
    msg = kernel_problems(profile)
    assert 'iotune_mongodb_version' in msg and 'before 8.0, from 8.0' in msg


@pytest.mark.parametrize('bad', [8.0, 7, '7.x', 'latest', '8.0.0.1', True])
def test_mongodb_version_must_be_a_quoted_version(bad):
    assert 'iotune_mongodb_version must be a quoted version string' in kernel_problems('mongodb', version=bad)


def test_mongodb_user_may_drop_the_version_choice():
    k = kernel_plan('mongodb', overrides={'kernel': {'by_mongodb_version': [],
                                                     'thp': {'enabled': 'madvise', 'defrag': 'madvise'}}})
    assert k['thp'] == {'enabled': 'madvise', 'defrag': 'madvise'} and k['mongodb_version'] is None


def test_overrides_win_over_the_version_entry():
    overrides = {'kernel': {'thp': {'defrag': 'madvise'}, 'sysctl': {'vm.overcommit_memory': 0}}}
    k = kernel_plan('mongodb', version='8.0', overrides=overrides)
    assert k['thp'] == {'enabled': 'always', 'defrag': 'madvise', 'khugepaged_max_ptes_none': 0}
    assert k['sysctl']['vm.overcommit_memory'] == 0


def test_streaming_sets_no_thp_and_kafka_sysctls():
    k = kernel_plan('streaming')
    assert k['thp'] == {}
    assert k['sysctl'] == {'vm.swappiness': 1, 'vm.max_map_count': 262144, 'vm.dirty_background_ratio': 5,
                           'vm.dirty_ratio': 80}


def test_version_is_ignored_by_profiles_without_a_version_choice():
    assert kernel_plan('cassandra', version='8.0')['mongodb_version'] is None


def test_custom_leaves_the_kernel_alone_unless_asked():
    base = {'raid_chunk_kb': 64, 'array': {'read_ahead_kb': 128}, 'members': {'read_ahead_kb': 128, 'scheduler_by_class': {'ssd': 'none'}},
            'mount_options': ['noatime'], 'fio_verify_jobs': [{'name': 'a'}], 'fio_verify_thresholds': {}}
    assert kernel_plan('custom', overrides=base)['thp'] == {}
    assert kernel_plan('custom', overrides=base)['sysctl'] == {}
    asked = dict(base, kernel={'thp': {'enabled': 'never'}, 'sysctl': {'vm.swappiness': 10, 'vm.dirty_bytes': '268435456'}})
    k = kernel_plan('custom', overrides=asked)
    assert k['thp'] == {'enabled': 'never'}
    assert k['sysctl'] == {'vm.swappiness': 10, 'vm.dirty_bytes': 268435456}


def test_no_kernel_section_means_nothing_to_do():
    assert validate_kernel('old', None, None) == {'thp': {}, 'sysctl': {}, 'mongodb_version': None, 'cpu_clock': {}}


# --- validation -----------------------------------------------------------------------------------

@pytest.mark.parametrize('overrides, message', [
    ({'kernel': {'thp': {'enabled': 'off'}}}, "kernel.thp.enabled: 'off' is not one of always, madvise, never"),
    ({'kernel': {'thp': {'defrag': 'defer+never'}}}, "kernel.thp.defrag: 'defer+never' is not one of"),
    ({'kernel': {'thp': {'enable': 'never'}}}, 'unknown key kernel.thp.enable'),
    ({'kernel': {'sysctls': {}}}, 'unknown key kernel.sysctls'),
    ({'kernel': {'thp': {'khugepaged_max_ptes_none': 512}}}, 'khugepaged_max_ptes_none must be <= 511'),
    ({'kernel': {'sysctl': {'vm.swappiness': 'low'}}}, "kernel.sysctl.vm.swappiness must be an integer, got 'low'"),
    ({'kernel': {'sysctl': {'vm.swappiness': True}}}, 'kernel.sysctl.vm.swappiness must be an integer, got True'),
    ({'kernel': {'sysctl': {'vm.swappiness': 1.5}}}, 'kernel.sysctl.vm.swappiness must be an integer'),
    ({'kernel': {'sysctl': {'vm.swappiness': 201}}}, 'kernel.sysctl.vm.swappiness must be <= 200, got 201'),
    ({'kernel': {'sysctl': {'vm.zone_reclaim_mode': 8}}}, 'vm.zone_reclaim_mode must be <= 7'),
    ({'kernel': {'sysctl': {'vm.max_map_count': 1000}}}, 'vm.max_map_count must be >= 65530, got 1000'),
    ({'kernel': {'sysctl': {'swappiness': 1}}}, "'swappiness' is not a sysctl name"),
    ({'kernel': {'sysctl': {'vm.swappiness ': 1}}}, "'vm.swappiness ' is not a sysctl name"),
    ({'kernel': {'sysctl': {'vm.dirty_bytes': 268435456, 'vm.dirty_ratio': 10}}},
     'set vm.dirty_bytes or vm.dirty_ratio, not both'),
    ({'kernel': {'sysctl': {'vm.dirty_background_bytes': 536870912, 'vm.dirty_bytes': 268435456}}},
     'vm.dirty_background_bytes (536870912) must be below vm.dirty_bytes (268435456)'),
    ({'kernel': {'sysctl': {'vm.dirty_background_ratio': 90}}},
     'vm.dirty_background_ratio (90) must be below vm.dirty_ratio (80)'),
    ({'kernel': {'sysctl': ['vm.swappiness=1']}}, 'kernel.sysctl must be a dict'),
])
def test_bad_kernel_values_are_refused(overrides, message):
    assert message in kernel_problems('streaming', overrides)


@pytest.mark.parametrize('entries, message', [
    ([{'since': '7.0', 'thp': {}}], 'by_mongodb_version[0] is the entry for versions before'),
    ([{'thp': {}}, {'thp': {'enabled': 'always'}}], "by_mongodb_version[1].since must be a quoted version such as '8.0'"),
    ([{'thp': {}}, {'since': 8.0, 'thp': {}}], 'by_mongodb_version[1].since must be a quoted version'),
    ([{'thp': {}}, {'since': '8.0'}, {'since': '7.0'}], 'since must increase (7.0 after 8.0)'),
    ([{'thp': {}, 'readahead': 8}], 'by_mongodb_version[0]: unknown key readahead'),
    ({'8.0': {}}, 'by_mongodb_version must be a list of dicts'),
])
def test_bad_version_entries_are_refused(entries, message):
    assert message in kernel_problems('mongodb', {'kernel': {'by_mongodb_version': entries}}, version='8.0')


def test_every_problem_is_reported_together():
    msg = kernel_problems('streaming', {'kernel': {'thp': {'enabled': 'off'}, 'sysctl': {'vm.swappiness': -1}}})
    assert 'thp.enabled' in msg and 'vm.swappiness must be >= 0' in msg


def test_kernel_problems_join_the_other_plan_problems():
    with pytest.raises(PlanError) as e:
        build_plan('cassandra', profile_data('cassandra'), {'kernel': {'thp': {'enabled': 'off'}}},
                   [{'name': '.', 'devices': [], 'mountpoint': '/'}])
    assert 'thp.enabled' in str(e.value)


# --- which sysctls (issue 23): an allow-list, extras on purpose, never an action ------------------------------------

def test_a_sysctl_outside_the_vendors_list_is_refused_with_the_way_to_set_it():
    text = kernel_problems('cassandra', {'kernel': {'sysctl': {'net.ipv4.ip_forward': 1, 'vm.swapiness': 1}}})
    assert "kernel.sysctl: net.ipv4.ip_forward is not one of the sysctls database vendors ask for" in text
    assert 'give it in kernel.extra_sysctl of iotune_profile_overrides if you mean it' in text
    assert 'vm.swapiness is not one of the sysctls database vendors ask for (did you mean vm.swappiness?)' in text


def test_an_extra_sysctl_is_applied_beside_the_profiles():
    k = kernel_plan('cassandra', {'kernel': {'extra_sysctl': {'net.ipv4.ip_forward': 1, 'kernel/panic': '10'}}})
    assert k['sysctl'] == {'vm.swappiness': 1, 'vm.zone_reclaim_mode': 0, 'vm.max_map_count': 1048575,
                           'fs.aio-max-nr': 1048576, 'net.ipv4.ip_forward': 1, 'kernel.panic': 10}


@pytest.mark.parametrize('name', ['vm.drop_caches', 'vm/compact_memory', 'vm.stat_refresh', 'net.ipv4.route.flush',
                                  'net.ipv6.route.flush'])
@pytest.mark.parametrize('key', ['sysctl', 'extra_sysctl'])
def test_an_action_is_refused_even_as_an_extra(name, key):
    text = kernel_problems('cassandra', {'kernel': {key: {name: 3}}})
    assert 'is an action, not a setting' in text and name.replace('/', '.') in text


def test_one_name_in_both_lists_is_refused_where_it_belongs():
    text = kernel_problems('cassandra', {'kernel': {'extra_sysctl': {'vm.swappiness': 10}}})
    assert ("kernel.extra_sysctl: vm.swappiness is a kernel.sysctl setting (the profile's or yours): "
            "change it in kernel.sysctl") in text


def test_an_extra_sysctl_that_looks_like_a_typo_of_a_vendors_is_refused():
    text = kernel_problems('cassandra', {'kernel': {'extra_sysctl': {'vm.swapiness': 5}}})
    assert 'kernel.extra_sysctl: vm.swapiness looks like a typo of vm.swappiness; set that one in kernel.sysctl' in text
    # a longer knob that starts like one of the list is not a typo
    k = kernel_plan('cassandra', {'kernel': {'extra_sysctl': {'kernel.numa_balancing_scan_delay_ms': 1000}}})
    assert k['sysctl']['kernel.numa_balancing_scan_delay_ms'] == 1000


def test_a_pair_problem_is_named_once_across_both_lists():
    text = kernel_problems('cassandra', {'kernel': {'sysctl': {'vm.dirty_ratio': 10},
                                                    'extra_sysctl': {'vm/dirty_bytes': 268435456}}})
    assert text.count('set vm.dirty_bytes or vm.dirty_ratio, not both') == 1


def test_the_vendors_list_is_documented():
    with open(os.path.join(PROFILES, '..', '..', '..', '..', 'docs', 'profiles.md'), encoding='utf-8') as f:
        docs = f.read()
    section = docs.split('### Which sysctls', 1)[1].split('\n#', 1)[0]
    from ansible_collections.iotune.storage.plugins.module_utils.rules import SYSCTL_ACTIONS, SYSCTL_DATABASE
    assert sorted(n for n in SYSCTL_DATABASE | SYSCTL_ACTIONS if '`%s`' % n not in section) == []
