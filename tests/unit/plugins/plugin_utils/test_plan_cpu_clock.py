# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The CPU governor and clocksource (issue 27) on the controller: the plan validates them before any change (one rule
with kernel_settings), the profiles set them only where docs/profiles.md names a source (its table equal to the
files), overrides set and unset them, and the kernel role's files and steps for their unit (filters kernel_files,
kernel_steps, stage_calls)."""

from __future__ import annotations

import os
import re

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.kernel_files import kernel_files
from ansible_collections.iotune.storage.plugins.filter.kernel_steps import kernel_steps
from ansible_collections.iotune.storage.plugins.plugin_utils import stages
from ansible_collections.iotune.storage.plugins.plugin_utils.plan import PlanError, build_plan

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..')
PROFILES = os.path.join(ROOT, 'roles', 'profile', 'vars', 'profiles')
ARRAYS = [{'name': 'data', 'devices': ['/dev/disk/by-id/virtio-a', '/dev/disk/by-id/virtio-b'],
           'mountpoint': '/var/lib/db'}]
NAMES = ('cassandra', 'mongodb', 'mongodb_ebs_piops', 'streaming', 'custom')
CUSTOM = {'raid_chunk_kb': 64, 'array': {'read_ahead_kb': 128},
          'members': {'read_ahead_kb': 128, 'scheduler_by_class': {'ssd': 'none'}}, 'mount_options': ['noatime'],
          'fio_verify_jobs': [{'name': 'a'}], 'fio_verify_thresholds': {}}


def profile_data(name):
    with open(os.path.join(PROFILES, name + '.yml'), encoding='utf-8') as f:
        return yaml.safe_load(f)['profile_data']


def cpu_clock(name='cassandra', overrides=None):
    overrides = dict(CUSTOM, **(overrides or {})) if name == 'custom' else (overrides or {})
    return build_plan(name, profile_data(name), overrides, ARRAYS, mongodb_version='7.0')['kernel']['cpu_clock']


def problems(overrides, name='cassandra'):
    with pytest.raises(PlanError) as e:
        cpu_clock(name, overrides)
    return str(e.value)


# --- the profiles and their sources -------------------------------------------------------------------------------

def test_only_cassandra_sets_a_governor_and_no_profile_a_clocksource():
    assert cpu_clock('cassandra') == {'cpu_governor': 'performance'}
    for name in NAMES[1:]:
        assert cpu_clock(name) == {}, name


def _table():
    with open(os.path.join(ROOT, 'docs', 'profiles.md'), encoding='utf-8') as f:
        text = f.read()
    body = text.split('## CPU governor and clocksource', 1)[1].split('\n## ', 1)[0]
    rows = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) >= 4 and re.fullmatch(r'`[a-z_]+`', cells[0]) and cells[1] in ('`cpu_governor`', '`clocksource`'):
            rows[(cells[0].strip('`'), cells[1].strip('`'))] = cells[2].strip('`')
    return rows


def test_the_docs_table_is_the_profile_files():
    found = {}
    for name in NAMES:
        for key in ('cpu_governor', 'clocksource'):
            value = (profile_data(name).get('kernel') or {}).get(key)
            if value is not None:
                found[(name, key)] = value
    assert found and _table() == found
    # negative control: a profile value the table does not have is found
    more = dict(found)
    more[('streaming', 'clocksource')] = 'tsc'
    assert _table() != more


# --- overrides and the validation before any change ------------------------------------------------------------------

def test_overrides_set_and_unset():
    assert cpu_clock(overrides={'kernel': {'clocksource': 'tsc'}}) == {'cpu_governor': 'performance', 'clocksource': 'tsc'}
    assert cpu_clock(overrides={'kernel': {'cpu_governor': None}}) == {}
    assert cpu_clock('custom', {'kernel': {'cpu_governor': 'schedutil'}}) == {'cpu_governor': 'schedutil'}
    # the MongoDB version entries do not take them (they do not depend on the version)
    assert 'unknown key cpu_governor' in problems(
        {'kernel': {'by_mongodb_version': [{'thp': {'enabled': 'never'}, 'cpu_governor': 'performance'}]}}, 'mongodb')


@pytest.mark.parametrize('overrides, message', [
    ({'kernel': {'cpu_governor': 'perfomance'}}, "kernel.cpu_governor: 'perfomance' is not one of performance, "
                                                 "schedutil, ondemand, conservative, powersave (did you mean performance?)"),
    ({'kernel': {'cpu_governor': 'userspace'}}, "kernel.cpu_governor: 'userspace' holds the frequency a daemon sets"),
    ({'kernel': {'cpu_governor': True}}, "kernel.cpu_governor: True is not one of"),
    ({'kernel': {'clocksource': 'jiffies'}}, "kernel.clocksource: 'jiffies' is not one of tsc, kvm-clock"),
    ({'kernel': {'clocksource': 'TSC'}}, "kernel.clocksource: 'TSC' is not one of"),
    ({'kernel': {'cpu_governer': 'performance'}}, 'unknown key kernel.cpu_governer (did you mean kernel.cpu_governor?)'),
])
def test_the_plan_refuses_bad_values(overrides, message):
    assert message in problems(overrides)


def test_valid_values_pass():                                                   # negative control of the above
    for governor in ('performance', 'schedutil', 'ondemand', 'conservative', 'powersave'):
        assert cpu_clock(overrides={'kernel': {'cpu_governor': governor}})['cpu_governor'] == governor
    for source in ('tsc', 'kvm-clock', 'xen', 'hpet', 'acpi_pm', 'arch_sys_counter'):
        assert cpu_clock(overrides={'kernel': {'clocksource': source}})['clocksource'] == source


# --- the kernel role's files, steps and stage call ------------------------------------------------------------------

FILE = '/etc/sysctl.d/90-iotune-storage.conf'
UNIT = '/etc/systemd/system/iotune-storage-thp.service'
CPU_UNIT = '/etc/systemd/system/iotune-storage-cpu-clock.service'
WANT = {'cpu_governor': 'performance'}
OPTIONS = {'sysctl': {}, 'thp': {}, 'sysctl_file': FILE, 'thp_unit_path': UNIT, 'tuned_override': False,
           'cpu_clock': WANT, 'cpu_unit_path': CPU_UNIT}


def test_kernel_files_carry_the_unit_only_with_a_setting():
    assert kernel_files({}, {}, FILE, UNIT, 'S', 'T', cpu_clock=WANT, cpu_unit_path=CPU_UNIT, cpu_text='C') == [
        {'path': FILE, 'state': 'absent', 'content': 'S'}, {'path': CPU_UNIT, 'content': 'C'}]
    assert kernel_files({}, {}, FILE, UNIT, 'S', 'T', cpu_clock={}, cpu_unit_path=CPU_UNIT, cpu_text='C') == [
        {'path': FILE, 'state': 'absent', 'content': 'S'}]
    with pytest.raises(AnsibleFilterError, match='needs cpu_unit_path and cpu_text'):
        kernel_files({}, {}, FILE, UNIT, 'S', 'T', cpu_clock=WANT)


def test_steps_of_the_cpu_clock_unit():
    converged = {'drift': [], 'conflicts': [], 'cpu_unit_enabled': True}
    steps = kernel_steps(converged, OPTIONS)
    assert not (steps['cpu_unit'] or steps['check'] or steps['load_sysctl']) and 'cpu_state' not in steps
    # a governor that drifted: the unit runs again, the sysctl file is not loaded (negative control of the THP rule)
    drifted = dict(converged, drift=['cpu_governor: live cpu0 schedutil, wanted performance'])
    steps = kernel_steps(drifted, OPTIONS)
    assert steps['cpu_unit'] and steps['cpu_state'] == 'restarted' and steps['check'] and not steps['load_sysctl']
    assert 'thp_state' not in steps
    # a sysctl that drifted does not run the unit
    steps = kernel_steps(dict(converged, drift=['vm.swappiness: live 60, wanted 1']), dict(OPTIONS, sysctl={'vm.swappiness': 1}))
    assert steps['load_sysctl'] and not steps['cpu_unit']
    # written: enabled, reloaded and run; in check mode the unit is not there yet
    written = {'changed': True, 'changed_paths': [CPU_UNIT]}
    steps = kernel_steps(converged, OPTIONS, written=written)
    assert steps['cpu_unit'] and steps['cpu_written'] and steps['cpu_state'] == 'restarted'
    assert kernel_steps(converged, OPTIONS, written=written, check_mode=True)['cpu_unit'] is False


def test_one_daemon_reload_when_both_units_are_written():
    both = dict(OPTIONS, thp={"enabled": "never"})
    converged = {'drift': [], 'conflicts': [], 'cpu_unit_enabled': True, 'thp_unit_enabled': True}
    steps = kernel_steps(converged, both, written={'changed': True, 'changed_paths': [CPU_UNIT, UNIT]})
    assert steps['thp_unit'] and steps['cpu_unit'] and steps['thp_reload'] is True and steps['cpu_reload'] is False
    # the CPU unit alone written: its own task reloads, the THP unit's (run because it was disabled by hand) does not
    steps = kernel_steps(dict(converged, thp_unit_enabled=False), both, written={'changed': True, 'changed_paths': [CPU_UNIT]})
    assert steps['thp_unit'] and steps['thp_reload'] is True and steps['cpu_reload'] is False
    steps = kernel_steps(converged, both, written={'changed': True, 'changed_paths': [CPU_UNIT]})
    assert not steps['thp_unit'] and steps['thp_reload'] is False and steps['cpu_reload'] is True
    # the THP unit alone written: one reload, by its task; nothing written: none
    steps = kernel_steps(converged, both, written={'changed': True, 'changed_paths': [UNIT]})
    assert steps['thp_reload'] is True and steps['cpu_reload'] is False
    steps = kernel_steps(converged, both)
    assert steps['thp_reload'] is False and steps['cpu_reload'] is False
    # disabled by hand: enabled again
    assert kernel_steps(dict(converged, cpu_unit_enabled=False), OPTIONS)['cpu_unit'] is True


def test_an_earlier_unit_is_removed_when_neither_is_set():
    off = dict(OPTIONS, cpu_clock={})
    assert kernel_steps({'drift': []}, off)['look_old_cpu_unit'] is True
    found = [{'path': CPU_UNIT}]
    assert kernel_steps({'drift': []}, off, found_files=found)['remove_old_cpu_unit'] is True
    assert kernel_steps({'drift': []}, off, found_files=[])['remove_old_cpu_unit'] is False
    assert kernel_steps({'drift': []}, off, cpu_old={'stat': {'exists': True}})['remove_old_cpu_unit'] is True
    assert kernel_steps({'drift': []}, OPTIONS, found_files=found)['remove_old_cpu_unit'] is False
    # the options of an earlier caller without them: nothing to look for
    old = dict((k, v) for k, v in OPTIONS.items() if k not in ('cpu_clock', 'cpu_unit_path'))
    steps = kernel_steps({'drift': []}, old)
    assert not (steps['cpu_unit'] or steps['look_old_cpu_unit'] or steps['remove_old_cpu_unit'])


def test_stage_call_names_the_unit_only_with_a_setting():
    base = {'sysctl': {}, 'thp': {}, 'sysctl_file': FILE, 'thp_unit': 'iotune-storage-thp.service'}
    assert stages.kernel_calls(base) == [{'sysctl': {}, 'thp': {}, 'sysctl_file': FILE, 'mode': 'report'}]
    assert stages.kernel_calls(dict(base, cpu_clock={}, cpu_unit='u.service')) == stages.kernel_calls(base)
    call = stages.kernel_calls(dict(base, cpu_clock=WANT, cpu_unit='u.service'))[0]
    assert call['cpu_clock'] == WANT and call['cpu_unit'] == 'u.service'
    with pytest.raises(stages.StageInputError, match='cpu_unit'):
        stages.kernel_calls(dict(base, cpu_clock=WANT))
