# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The CPU frequency governor and the clocksource (issue 27) against fake sysfs trees: the live read, the check (drift
where the host offers a setting, "not offered" where it does not), kernel_call's validation and unit state, the audit's
comparison and the original state's record and restore. Each case has its negative control."""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import drift
from ansible_collections.iotune.storage.plugins.module_utils import kernel_call
from ansible_collections.iotune.storage.plugins.module_utils import kernel_settings as ks
from ansible_collections.iotune.storage.plugins.module_utils import original_state as orig
from ansible_collections.iotune.storage.plugins.module_utils import rules
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.kernel import fake_kernel

OURS = '/etc/sysctl.d/90-iotune-storage.conf'
ACPI = 'conservative ondemand userspace powersave performance schedutil'
PSTATE = 'performance powersave'          # intel_pstate in active mode offers only these two


def cpus(kernel, governors, available=ACPI):
    """CPUs cpu0..cpuN-1 with a cpufreq directory each (as a cpufreq driver makes them), and a CPU without one."""
    for number, governor in enumerate(governors):
        base = 'sys/devices/system/cpu/cpu%d/cpufreq/' % number
        kernel.write(base + 'scaling_governor', governor + '\n')
        kernel.write(base + 'scaling_available_governors', available + '\n')
    kernel.write('sys/devices/system/cpu/cpu%d/online' % len(governors), '1\n')
    kernel.write('sys/devices/system/cpu/cpufreq/boost', '1\n')     # not a CPU: never read as one


def clock(kernel, current, available):
    base = 'sys/devices/system/clocksource/clocksource0/'
    kernel.write(base + 'current_clocksource', current + '\n')
    kernel.write(base + 'available_clocksource', available + ' \n')


@pytest.fixture
def kernel(tmp_path):
    """The lab guest: no cpufreq (qemu offers no cpufreq driver), clocksources tsc, hpet, acpi_pm."""
    k = fake_kernel.FakeKernel(tmp_path)
    k.write('sys/devices/system/cpu/cpu0/online', '1\n')
    clock(k, 'tsc', 'tsc hpet acpi_pm')
    return k


def check(kernel, **cpu_clock):
    return ks.check(kernel.root, {}, {}, OURS, cpu_clock)


# --- the live read -------------------------------------------------------------------------------------------------

def test_read_of_governors_and_clocksource(kernel):
    assert ks.read_governors(kernel.root) == {}
    assert ks.read_cpu_clock(kernel.root) == {'cpu_governor': {}, 'clocksource': 'tsc'}
    cpus(kernel, ['schedutil'] * 2 + ['performance'] * 9)
    read = ks.read_governors(kernel.root)
    assert list(read) == ['cpu%d' % n for n in range(11)]          # in CPU order, cpu10 after cpu9
    assert read['cpu10'] == {'governor': 'performance', 'available': ACPI.split()}
    assert ks.read_clocksource(kernel.root) == {'current': 'tsc', 'available': ['tsc', 'hpet', 'acpi_pm']}


# --- the check: drift where offered, a note where not ---------------------------------------------------------------

def test_governor_as_wanted_is_no_drift(kernel):
    cpus(kernel, ['performance'] * 4)
    report = check(kernel, cpu_governor='performance')
    assert ks.problems(report) == [] and report['not_offered'] == []
    assert report['cpu_clock']['cpu_governor']['offered'] is True


def test_a_cpu_with_another_governor_is_drift_naming_it(kernel):
    cpus(kernel, ['performance', 'schedutil', 'performance', 'powersave'])
    report = check(kernel, cpu_governor='performance')
    assert report['drift'] == ['cpu_governor: live cpu1 schedutil, cpu3 powersave, wanted performance']
    assert report['not_offered'] == [] and report['notes'] == []


def test_no_cpufreq_is_not_offered_and_not_drift(kernel):
    report = check(kernel, cpu_governor='performance')
    assert ks.problems(report) == []
    assert report['not_offered'] == ['cpu_governor']
    assert report['notes'] == ['cpu_governor performance: not offered by this host (no '
                               '/sys/devices/system/cpu/cpu*/cpufreq: no cpufreq driver); skipped']
    # negative control: the same host with cpufreq and another governor is drift
    cpus(kernel, ['schedutil'])
    assert ks.problems(check(kernel, cpu_governor='performance')) != []


def test_a_governor_the_driver_does_not_offer_is_not_offered(kernel):
    cpus(kernel, ['powersave'] * 2, available=PSTATE)
    report = check(kernel, cpu_governor='schedutil')
    assert ks.problems(report) == [] and report['not_offered'] == ['cpu_governor']
    assert 'schedutil not in scaling_available_governors of cpu0, cpu1' in report['notes'][0]
    # negative control: one it offers is compared
    assert check(kernel, cpu_governor='performance')['drift'] == [
        'cpu_governor: live cpu0 powersave, cpu1 powersave, wanted performance']


def test_clocksource(kernel):
    assert ks.problems(check(kernel, clocksource='tsc')) == []
    report = check(kernel, clocksource='hpet')
    assert report['drift'] == ['clocksource: live tsc, wanted hpet'] and report['not_offered'] == []
    report = check(kernel, clocksource='kvm-clock')
    assert ks.problems(report) == [] and report['not_offered'] == ['clocksource']
    assert report['notes'] == ['clocksource kvm-clock: not offered by this host (kvm-clock not in available_clocksource: '
                               'tsc hpet acpi_pm); skipped']


def test_no_clocksource_device_is_not_offered(tmp_path):
    k = fake_kernel.FakeKernel(tmp_path)
    report = check(k, clocksource='tsc')
    assert report['not_offered'] == ['clocksource'] and ks.problems(report) == []


def test_without_cpu_clock_the_report_is_as_before(kernel):
    cpus(kernel, ['schedutil'])
    report = ks.check(kernel.root, {}, {}, OURS)
    assert 'cpu_clock' not in report and 'not_offered' not in report and ks.problems(report) == []


# --- kernel_call: the one validation, the unit's state, fail mode --------------------------------------------------

def params(**extra):
    p = dict((k, v.get('default')) for k, v in kernel_call.argument_spec().items())
    p.update(extra)
    return p


@pytest.mark.parametrize('cpu_clock, message', [
    ({'cpu_governor': 'perfomance'}, "cpu_clock cpu_governor: 'perfomance' is not one of"),
    ({'cpu_governor': 'userspace'}, "cpu_clock cpu_governor: 'userspace' holds the frequency a daemon sets"),
    ({'clocksource': 'jiffies'}, "cpu_clock clocksource: 'jiffies' is not one of tsc"),
    ({'governor': 'performance'}, "cpu_clock: unknown key 'governor' (known: cpu_governor, clocksource)"),
])
def test_kernel_settings_refuses_a_bad_value_before_reading(kernel, cpu_clock, message):
    with pytest.raises(ks.KernelSettingsError) as e:
        kernel_call.KernelSettings(params(cpu_clock=cpu_clock), root=kernel.root).apply()
    assert str(e.value).startswith(message)


def test_the_rule_is_the_plans_too():
    for key, good, bad in (('cpu_governor', 'performance', 'turbo'), ('clocksource', 'tsc', 'pit')):
        assert rules.cpu_clock_problem(key, good) is None
        assert rules.cpu_clock_problem(key, bad) is not None
        assert rules.cpu_clock_problem(key, None) is None


def test_fail_mode_fails_on_drift_not_on_a_setting_not_offered(kernel):
    p = params(cpu_clock={'cpu_governor': 'performance', 'clocksource': 'tsc'})
    report = kernel_call.KernelSettings(p, root=kernel.root).apply()             # the lab guest: nothing to fail on
    assert report['not_offered'] == ['cpu_governor'] and report['drift'] == []
    cpus(kernel, ['ondemand'])
    with pytest.raises(ks.KernelSettingsError) as e:
        kernel_call.KernelSettings(p, root=kernel.root).apply()
    assert 'cpu_governor: live cpu0 ondemand, wanted performance' in str(e.value)


def test_cpu_unit_enabled(kernel):
    def run(argv):
        return (0, 'enabled\n', '') if argv[-1] == 'iotune-storage-cpu-clock.service' else (1, 'disabled\n', '')
    p = params(cpu_clock={'clocksource': 'tsc'}, cpu_unit='iotune-storage-cpu-clock.service', mode='report')
    report = kernel_call.KernelSettings(p, root=kernel.root, run=run, systemctl='systemctl').apply()
    assert report['cpu_unit_enabled'] is True and report['thp_unit_enabled'] is None
    p['cpu_unit'] = 'other.service'                                                # negative control
    assert kernel_call.KernelSettings(p, root=kernel.root, run=run, systemctl='systemctl').apply()['cpu_unit_enabled'] is False
    del p['cpu_unit']
    assert 'cpu_unit_enabled' not in kernel_call.KernelSettings(p, root=kernel.root).apply()


# --- tuned's [cpu] governor: a conflict, as tuned's THP and sysctls -------------------------------------------------

POWERSAVE = '[main]\nsummary=saves power\n\n[cpu]\ngovernor=ondemand|powersave\n'


def test_a_tuned_governor_other_than_the_wanted_one_is_a_conflict_not_drift(kernel):
    """tuned's [cpu] unit sets its governor whenever tuned starts: without this the CPU unit and tuned took turns at
    every boot and every run set the governor again (changed=1 each time)."""
    cpus(kernel, ['ondemand'] * 2)
    kernel.tuned_profile('powersave-ish', POWERSAVE, under='etc/tuned')
    kernel.tuned_active('powersave-ish', running=True)
    report = check(kernel, cpu_governor='performance')
    assert report['conflicts'] == ["cpu_governor: tuned profile 'powersave-ish' [cpu] sets governor=ondemand|powersave "
                                   "(ondemand on this host; wanted performance)"]
    assert report['drift'] == [] and report['tuned']['conflicts'] == {'cpu.governor': 'performance'}
    # tuned's choice is the first governor the CPU offers: with intel_pstate that is powersave
    cpus(kernel, ['powersave'] * 2, available=PSTATE)
    assert '(powersave on this host; wanted performance)' in check(kernel, cpu_governor='performance')['conflicts'][0]
    # negative controls: a tuned profile that sets the wanted governor, or none at all, is no conflict
    kernel.tuned_profile('powersave-ish', '[cpu]\ngovernor=performance\n', under='etc/tuned')
    cpus(kernel, ['ondemand'] * 2)
    report = check(kernel, cpu_governor='performance')
    assert report['conflicts'] == [] and report['drift'] == ['cpu_governor: live cpu0 ondemand, cpu1 ondemand, '
                                                             'wanted performance']
    kernel.tuned_profile('powersave-ish', '[vm]\ntransparent_hugepages=never\n', under='etc/tuned')
    assert check(kernel, cpu_governor='performance')['conflicts'] == []


def test_a_tuned_governor_on_a_host_without_cpufreq_is_no_conflict(kernel):
    """tuned's cpu plugin sets nothing where there is no cpufreq (the lab guest): the setting stays not offered."""
    kernel.tuned_profile('throughput-performance', fake_kernel.THROUGHPUT_PERFORMANCE)
    kernel.tuned_profile('powersave-ish', POWERSAVE, under='etc/tuned')
    kernel.tuned_active('powersave-ish')
    report = check(kernel, cpu_governor='performance')
    assert report['conflicts'] == [] and report['not_offered'] == ['cpu_governor']
    # nor where tuned names only governors the CPU does not offer
    cpus(kernel, ['performance'], available=PSTATE)
    kernel.tuned_profile('powersave-ish', '[cpu]\ngovernor=ondemand|conservative\n', under='etc/tuned')
    assert check(kernel, cpu_governor='performance')['conflicts'] == []


def test_fail_mode_names_the_override_and_override_mode_writes_a_cpu_unit(kernel):
    cpus(kernel, ['ondemand'])
    kernel.tuned_profile('powersave-ish', POWERSAVE, under='etc/tuned')
    kernel.tuned_active('powersave-ish')
    p = params(cpu_clock={'cpu_governor': 'performance'})
    with pytest.raises(ks.KernelSettingsError) as e:
        kernel_call.KernelSettings(p, root=kernel.root).apply()
    assert "tuned profile 'powersave-ish' [cpu] sets governor" in str(e.value)
    assert 'kernel_tuned_override: true' in str(e.value)
    calls = []

    def run(argv):
        calls.append(argv)
        kernel.write('etc/tuned/active_profile', 'iotune-storage-kernel\n')
        return 0, '', ''
    p.update(mode='override', tuned_profile='iotune-storage-kernel')
    with pytest.raises(ks.KernelSettingsError) as e:       # the override wins over tuned; the live value is still drift
        kernel_call.KernelSettings(p, root=kernel.root, run=run, tuned_adm='/usr/sbin/tuned-adm').apply()
    assert 'cpu_governor: live cpu0 ondemand, wanted performance' in str(e.value) and 'tuned profile' not in str(e.value)
    text = open(os.path.join(kernel.root, 'etc/tuned/iotune-storage-kernel/tuned.conf')).read()
    assert '\ninclude=powersave-ish\n' in text and text.endswith('\n[cpu]\ngovernor=performance\n')
    assert calls == [['/usr/sbin/tuned-adm', 'profile', 'iotune-storage-kernel']]


# --- the audit: drift is an item, not offered is a note -------------------------------------------------------------

def test_audit_items_and_notes(kernel):
    items, notes = drift._kernel({'kernel': check(kernel, cpu_governor='performance', clocksource='hpet')})
    assert [(i['area'], i['subject']) for i in items] == [('kernel', 'clocksource')]
    assert notes == [n for n in notes if 'not offered by this host' in n] and len(notes) == 1
    cpus(kernel, ['schedutil'])                                                     # negative control: offered now
    items, notes = drift._kernel({'kernel': check(kernel, cpu_governor='performance', clocksource='hpet')})
    assert sorted(i['subject'] for i in items) == ['clocksource', 'cpu_governor'] and notes == []


# --- the original state: recorded, restored ------------------------------------------------------------------------

def test_restore_plan_sets_back_governors_and_clocksource(kernel):
    cpus(kernel, ['schedutil', 'schedutil'])
    recorded = ks.read_cpu_clock(kernel.root)
    cpus(kernel, ['performance', 'schedutil'])
    clock(kernel, 'hpet', 'tsc hpet acpi_pm')
    plan = orig._cpu_clock_actions(recorded, ks.read_cpu_clock(kernel.root))
    assert plan == [{'key': 'cpu_governor/cpu0', 'now': 'performance', 'restore': 'schedutil'},
                    {'key': 'clocksource', 'now': 'hpet', 'restore': 'tsc'}]
    assert orig.cpu_clock_file('cpu_governor/cpu0') == 'sys/devices/system/cpu/cpu0/cpufreq/scaling_governor'
    assert orig.cpu_clock_file('clocksource') == 'sys/devices/system/clocksource/clocksource0/current_clocksource'
    # negative controls: a snapshot of an earlier release (no cpu_clock), and a host without cpufreq now
    assert orig._cpu_clock_actions({}, ks.read_cpu_clock(kernel.root)) == []
    assert orig._cpu_clock_actions(recorded, {'cpu_governor': {}, 'clocksource': 'tsc'}) == []


def test_restore_plan_and_lines_carry_them(kernel):
    snapshot = {'files': {}, 'devices': [], 'cpu_clock': {'cpu_governor': {'cpu0': 'schedutil'}, 'clocksource': 'tsc'}}
    cpus(kernel, ['performance'])
    clock(kernel, 'hpet', 'tsc hpet')
    state = {'files': {}, 'devices': {}, 'sysctl': {}, 'thp': {}, 'cpu_clock': ks.read_cpu_clock(kernel.root)}
    plan = orig.restore_plan(snapshot, state)
    assert plan['changed'] is True and len(plan['cpu_clock']) == 2
    before, after = orig.plan_lines(plan)
    assert before == 'cpu_governor/cpu0: performance\nclocksource: hpet\n'
    assert after == 'cpu_governor/cpu0: schedutil\nclocksource: tsc\n'
    state['cpu_clock'] = snapshot['cpu_clock']                                      # negative control: as recorded
    assert orig.restore_plan(snapshot, state)['changed'] is False


def test_restore_writes_them_live(kernel, tmp_path):
    """OriginalState.apply_values writes each governor and the clocksource to its sysfs file."""
    cpus(kernel, ['performance', 'performance'])
    clock(kernel, 'hpet', 'tsc hpet')
    written = []

    def write(path, value):
        written.append((os.path.relpath(path, kernel.root), value))
        with open(path, 'w') as f:
            f.write(value + '\n')
    params = {'state': 'restored', 'path': str(tmp_path / 's.json'), 'devices': [], 'sysctl': [], 'files': []}
    one = orig.OriginalState(params, host=None, root=kernel.root, write=write)
    one.apply_values({'queue': [], 'sysctl': [], 'thp': [],
                      'cpu_clock': [{'key': 'cpu_governor/cpu1', 'now': 'performance', 'restore': 'schedutil'},
                                    {'key': 'clocksource', 'now': 'hpet', 'restore': 'tsc'}]})
    assert written == [('sys/devices/system/cpu/cpu1/cpufreq/scaling_governor', 'schedutil'),
                       ('sys/devices/system/clocksource/clocksource0/current_clocksource', 'tsc')]
    assert ks.read_cpu_clock(kernel.root) == {'cpu_governor': {'cpu0': 'performance', 'cpu1': 'schedutil'},
                                              'clocksource': 'tsc'}
    assert json.dumps(ks.read_cpu_clock(kernel.root))          # what the snapshot stores is JSON
