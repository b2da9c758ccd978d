# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 31, the role side: the options the tune role gives its preflight (tune_stages) are exactly those each stage's
role computes for its module call (one filter, stage_calls); a role skips its call only on an in-sync read of those
very options with nothing changed before it (stage_skip); every stage's module task is guarded so, and its result
comes from the read on a skip."""

from __future__ import annotations

import os

import pytest
import yaml
from jinja2.nativetypes import NativeEnvironment

from ansible.plugins.filter.core import to_bool
from ansible.plugins.test.core import changed as changed_test

from ansible_collections.iotune.storage.plugins.filter.stage_calls import stage_calls
from ansible_collections.iotune.storage.plugins.filter.stage_skip import stage_skip
from ansible_collections.iotune.storage.plugins.filter.stage_stale import stage_stale
from ansible_collections.iotune.storage.plugins.filter.tune_plan import tune_plan
from ansible_collections.iotune.storage.plugins.plugin_utils import stages

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..')


def load(*parts):
    with open(os.path.join(ROOT, *parts)) as f:
        return yaml.safe_load(f)


def environment():
    env = NativeEnvironment()
    env.filters['iotune.storage.stage_calls'] = stage_calls
    env.filters['iotune.storage.stage_skip'] = stage_skip
    env.filters['iotune.storage.stage_stale'] = stage_stale
    env.filters['bool'] = to_bool
    env.tests['changed'] = changed_test
    env.tests['none'] = lambda value: value is None
    return env


def evaluate(value, context):
    """A role variable as Ansible templates it (nested strings, lazily)."""
    if isinstance(value, dict):
        return dict((k, evaluate(v, context)) for k, v in value.items())
    if isinstance(value, list):
        return [evaluate(v, context) for v in value]
    if isinstance(value, str) and '{{' in value:
        template = environment().from_string(value)
        # shared: names resolve through ``context`` itself, so that each is evaluated when looked up
        return template.environment.concat(template.root_render_func(template.new_context(context, shared=True)))
    return value


class Vars(dict):
    """Role defaults and vars, each evaluated when looked up (as Ansible's lazy variables)."""

    def __getitem__(self, key):
        return evaluate(dict.__getitem__(self, key), self)


def context(**extra):
    ctx = Vars()
    for role in ('raid0', 'xfs', 'block_tuning', 'kernel', 'tune'):
        for kind in ('defaults', 'vars'):
            path = os.path.join(ROOT, 'roles', role, kind, 'main.yml')
            if os.path.exists(path):
                ctx.update(load(path) or {})
    ctx.update(extra)
    return ctx


@pytest.fixture
def plan():
    data = load('roles', 'profile', 'vars', 'profiles', 'cassandra.yml')['profile_data']
    arrays = [{'name': 'data', 'devices': ['/dev/disk/by-id/virtio-vol1', '/dev/disk/by-id/virtio-vol2'],
               'mountpoint': '/var/lib/cassandra'}]
    return tune_plan(data, 'cassandra', arrays=arrays)


def test_the_preflight_gets_the_very_options_each_role_calls_its_module_with(plan):
    ctx = context(iotune_plan=plan)
    given = ctx['tune_stages']
    # raid0: the preflight sets conf_path as the role does (the distribution's path)
    raid0 = context(raid0_arrays=plan['raid0_arrays'], raid0_conf_path='/etc/mdadm/mdadm.conf')['raid0_calls']
    assert [dict(c, conf_path='/etc/mdadm/mdadm.conf') for c in given['raid0']] == raid0
    assert raid0[0]['chunk_kb'] == plan['raid0_arrays'][0]['chunk_kb'] and raid0[0]['homehost'] == 'any'
    assert given['mdadm_conf'] is None
    # xfs: the stripe the raid0 stage reports of the array as planned
    raid0_results = {'data': {'level': 'raid0', 'chunk_kb': plan['raid0_arrays'][0]['chunk_kb'], 'raid_disks': 2}}
    xfs = context(xfs_filesystems=plan['xfs_filesystems'], raid0_results=raid0_results)['xfs_calls']
    assert given['xfs'] == xfs
    assert xfs[0]['su_kb'] == plan['raid0_arrays'][0]['chunk_kb'] and xfs[0]['sw'] == 2
    assert xfs[0]['mount_options'].endswith(',nofail,x-systemd.device-timeout=90s')
    # another stripe (the array differs from the plan): the options differ, no skip
    other = context(xfs_filesystems=plan['xfs_filesystems'], raid0_results={'data': dict(raid0_results['data'], raid_disks=3)})
    assert given['xfs'] != other['xfs_calls']
    block = context(block_tuning_devices=plan['block_tuning_devices'], block_tuning_facts=True)['block_tuning_calls']
    assert given['block_tuning'] == block and block[0]['facts'] is True and block[0]['tuned'] == 'fail'
    kernel = context(kernel_sysctl=plan['kernel']['sysctl'], kernel_thp=plan['kernel']['thp'],
                     kernel_cpu_clock=plan['kernel']['cpu_clock'])['kernel_calls']
    assert given['kernel'] == kernel and kernel[0]['mode'] == 'report'
    assert ('thp_unit' in kernel[0]) == bool(plan['kernel']['thp'])
    # the CPU governor and clocksource (issue 27) and their unit, only when the profile sets one
    assert ('cpu_unit' in kernel[0]) == bool(plan['kernel']['cpu_clock'])


def read_of(calls, in_sync=True, why=None):
    return {'in_sync': in_sync, 'calls': calls, 'results': [{'changed': False, 'n': i} for i in range(len(calls))],
            'why': why}


CALLS = [{'name': 'data', 'chunk_kb': 256}]


def test_a_stage_skips_on_an_in_sync_read_of_the_same_options():
    decision = stages.skip(CALLS, read_of(CALLS), items=[{'name': 'data'}])
    assert decision['skip'] and decision['reason'].startswith('in sync')
    assert decision['registered'] == {'changed': False, 'results': [
        {'changed': False, 'n': 0, 'item': {'name': 'data'}, 'skipped_by_preflight': True}]}


@pytest.mark.parametrize('read, stale, reason', [
    (None, None, 'no read of the preflight for this stage'),
    (read_of(CALLS, in_sync=False, why='vdb read_ahead_kb is 128, planned 8'), None,
     'not in sync: vdb read_ahead_kb is 128, planned 8'),
    (read_of([dict(CALLS[0], chunk_kb=512)]), None, 'the options differ from those the preflight checked'),
    (dict(read_of(CALLS), results=[]), None, 'the options differ from those the preflight checked'),
    (read_of(CALLS), ['the raid0 stage changed the host in this run'],
     'the preflight read is stale: the raid0 stage changed the host in this run'),
])
def test_a_stage_calls_its_module_on_any_other_read(read, stale, reason):
    decision = stage_skip(CALLS, read, stale=stale)
    assert decision == {'skip': False, 'reason': reason, 'registered': None}


def test_empty_stale_entries_do_not_count():
    assert stage_skip(CALLS, read_of(CALLS), stale=['', ''])['skip']


CHANGED = {'changed': True}
UNCHANGED = {'changed': False}


@pytest.mark.parametrize('registered, stale', [
    ({}, {'xfs': [], 'block_tuning': [], 'kernel': []}),
    ({'raid0_module_call': {'results': [CHANGED]}}, {'xfs': ['raid0'], 'block_tuning': ['raid0'], 'kernel': ['raid0']}),
    ({'xfs_mounted': {'results': [UNCHANGED, CHANGED]}}, {'xfs': [], 'block_tuning': ['xfs'], 'kernel': ['xfs']}),
    ({'xfs_dropins': CHANGED}, {'xfs': [], 'block_tuning': ['xfs'], 'kernel': ['xfs']}),
    ({'block_tuning_module': CHANGED}, {'xfs': [], 'block_tuning': [], 'kernel': ['block_tuning']}),
    ({'raid0_module_call': UNCHANGED, 'xfs_created_call': UNCHANGED, 'block_tuning_module': UNCHANGED},
     {'xfs': [], 'block_tuning': [], 'kernel': []}),
])
def test_what_an_earlier_stage_changed_makes_the_later_reads_stale(registered, stale):
    ctx = context(raid0_install_packages=True, profile_preflight_result={'packages_missing': []}, **registered)
    found = {'xfs': ctx['tune_stale_after_raid0'], 'block_tuning': ctx['tune_stale_after_xfs'],
             'kernel': ctx['tune_stale_after_block_tuning']}
    assert dict((k, [s.split(' ')[1] for s in v]) for k, v in found.items()) == stale


def test_packages_installed_or_unknown_make_the_later_reads_stale():
    for read in ({'packages_missing': ['xfsprogs']}, {'packages_missing': None}, {'skipped': True}):
        ctx = context(raid0_install_packages=True, profile_preflight_result=read)
        assert ctx['tune_stale_after_raid0'] == ['the raid0 stage installs packages in this run']
    assert context(raid0_install_packages=False, profile_preflight_result={})['tune_stale_after_raid0'] == []


@pytest.mark.parametrize('role, module, sync, registered, result', [
    ('raid0', 'iotune.storage.mdadm_array', 'raid0_sync', 'raid0_module_call', 'raid0_module'),
    ('xfs', 'iotune.storage.xfs_filesystem', 'xfs_sync', 'xfs_created_call', 'xfs_created'),
    ('block_tuning', 'iotune.storage.udev_block_tuning', 'block_tuning_sync', 'block_tuning_module',
     'block_tuning_results'),
    ('kernel', 'iotune.storage.kernel_settings', 'kernel_sync', 'kernel_before_call', 'kernel_before'),
])
def test_each_stage_guards_its_call_names_the_reason_and_takes_the_read_on_a_skip(role, module, sync, registered,
                                                                                  result):
    tasks = load('roles', role, 'tasks', 'main.yml')
    index = [i for i, t in enumerate(tasks) if module in t][0]
    call = tasks[index]
    assert call['when'] == 'not %s.skip' % sync and call['register'] == registered
    # every option comes from the stage's calls, the dicts stage_skip compares with the preflight's read
    assert all(('_call.' in str(v)) for v in call[module].values()), call[module]
    shown = tasks[index - 1]
    assert shown['ansible.builtin.debug']['msg'].endswith('{{ %s.reason }}' % sync)
    assert shown['when'] == '%s_stage_read is not none' % role
    kept = tasks[index + 1]['ansible.builtin.set_fact'][result]
    # the preflight's read on a skip, else the call's result (stage_result; test_role_reports_templar.py renders it)
    assert kept.startswith('{{ %s | iotune.storage.stage_result(%s' % (sync, registered)) and kept.endswith(') }}')
    # without a read (the role used on its own) the call is made
    assert load('roles', role, 'defaults', 'main.yml')['%s_stage_read' % role] is None


def test_the_tune_role_passes_each_stage_its_read_and_what_changed_before_it():
    tasks = dict((t['name'], t) for t in load('roles', 'tune', 'tasks', 'main.yml'))
    # null while the profile role's argument spec is validated: ansible templates the role's parameters before the
    # role's first task makes iotune_plan (found by the vm scenario's check-mode run)
    assert tasks['Validate the variables and plan from the workload profile']['vars']['profile_stages'] == (
        '{{ tune_stages if iotune_plan is defined else none }}')
    expected = {'raid0': None, 'xfs': 'tune_stale_after_raid0', 'block_tuning': 'tune_stale_after_xfs',
                'kernel': 'tune_stale_after_block_tuning'}
    for task in tasks.values():
        role = task.get('ansible.builtin.import_role', {}).get('name', '').replace('iotune.storage.', '')
        if role in expected and 'tasks_from' not in task['ansible.builtin.import_role']:
            assert task['vars']['%s_stage_read' % role] == '{{ tune_stages_read.%s | default(none) }}' % role
            assert task['vars'].get('%s_stage_stale' % role) == (
                '{{ %s }}' % expected[role] if expected[role] else None)


@pytest.mark.parametrize('again, first, expected', [
    # the first call read the stages (no selectors): the second call was skipped
    ({'skipped': True, 'changed': False}, {'stages_read': {'kernel': ['k1']}}, {'kernel': ['k1']}),
    # selectors: the first call could not read them, the second one (made with the resolved members) did
    ({'stages_read': {'kernel': ['k2']}}, {'resolved': {}}, {'kernel': ['k2']}),
    # neither (a plan that reads no stage): nothing, so every stage calls its module
    ({'skipped': True}, {'resolved': {}}, {}),
])
def test_the_stage_reads_come_from_the_call_that_made_them(again, first, expected):
    """On a host whose members are chosen by cloud identity, the stages' reads come from the profile role's second
    preflight call (before, nothing read them there and a converged run called every stage: the lab's nvme entry)."""
    expression = load('roles', 'tune', 'vars', 'main.yml')['tune_stages_read']
    context = {'profile_preflight_again': again, 'profile_preflight_result': first}
    assert evaluate(expression.strip(), context) == expected


def test_the_second_preflight_call_reads_the_stages_only_after_a_re_plan():
    task = [t for t in load('roles', 'profile', 'tasks', 'main.yml')
            if t.get('register') == 'profile_preflight_again'][0]
    stages_again = task['vars']['profile_stages_again']
    for first, stages, wanted in (({'resolved': {}}, {'kernel': []}, True),             # selectors: read now
                                  ({'stages_read': {}}, {'kernel': []}, False),          # read by the first call
                                  ({'resolved': {}}, None, False),                        # no stages (audit)
                                  ({'skipped': True}, {'kernel': []}, False)):            # no first call
        context = {'profile_stages': stages, 'profile_preflight_result': first}
        env = environment()
        env.tests['skipped'] = lambda r: bool(r.get('skipped'))
        assert env.from_string(stages_again.strip()).render(context) is wanted, (first, stages)
