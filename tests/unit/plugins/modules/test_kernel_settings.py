# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kernel_settings module against fake /proc, /sys, sysctl.d and tuned trees."""

from __future__ import annotations

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import kernel_settings as ks
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.kernel import fake_kernel
from ansible_collections.iotune.storage.plugins.modules import kernel_settings as mod
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.module_run import run_module


OURS = '/etc/sysctl.d/90-iotune-storage.conf'
SYSCTL = {'vm.swappiness': 1, 'vm.zone_reclaim_mode': 0, 'vm.max_map_count': 1048575}
NEVER = {'enabled': 'never', 'defrag': 'never'}


@pytest.fixture
def host(tmp_path):
    k = fake_kernel.FakeKernel(tmp_path)
    k.sysctl_file(OURS.lstrip('/'), ['%s = %s' % kv for kv in sorted(SYSCTL.items())])
    for name, value in SYSCTL.items():
        k.set_vm(name.split('.', 1)[1], value)
    k.set_thp(**NEVER)
    return k


class Runner(object):
    def __init__(self, rc=0):
        self.calls = []
        self.rc = rc

    def __call__(self, argv):
        self.calls.append(argv)
        return self.rc, '', 'boom' if self.rc else ''


def checker(host, check_mode=False, run=None, tuned_adm='/usr/sbin/tuned-adm', **params):
    p = {'sysctl': SYSCTL, 'thp': NEVER, 'sysctl_file': OURS, 'mode': 'fail', 'tuned_profile': 'iotune-storage-kernel'}
    p.update(params)
    return mod.KernelSettings(p, root=host.root, run=run or Runner(), tuned_adm=tuned_adm, check_mode=check_mode)


def test_all_in_force_is_ok_and_unchanged(host):
    result = checker(host).apply()
    assert result['changed'] is False and result['conflicts'] == [] and result['drift'] == []
    assert result['sysctl']['vm.max_map_count']['live'] == '1048575'
    assert result['thp']['defrag'] == {'wanted': 'never', 'live': 'never'}


def test_later_file_fails_naming_it(host):
    host.sysctl_file('etc/sysctl.d/99-zz-test.conf', ['vm.swappiness = 60'])
    host.set_vm('swappiness', 60)
    with pytest.raises(ks.KernelSettingsError) as e:
        checker(host).apply()
    assert '/etc/sysctl.d/99-zz-test.conf line 1 sets 60' in str(e.value)
    assert e.value.data['sysctl']['vm.swappiness']['live'] == '60'


def test_later_file_is_not_overridden(host):
    host.sysctl_file('etc/sysctl.d/99-zz-test.conf', ['vm.swappiness = 60'])
    with pytest.raises(ks.KernelSettingsError, match='99-zz-test.conf'):
        checker(host, mode='override').apply()


def test_report_mode_never_fails(host):
    host.sysctl_file('etc/sysctl.d/99-zz-test.conf', ['vm.swappiness = 60'])
    host.set_thp(enabled='always')
    result = checker(host, mode='report').apply()
    assert len(result['conflicts']) == 1 and result['drift'] == ['THP enabled: live always, wanted never']
    assert result['changed'] is False


def test_tuned_conflict_fails_with_the_hint(host):
    host.tuned_profile('throughput-performance', fake_kernel.THROUGHPUT_PERFORMANCE)
    host.tuned_active('throughput-performance', running=True)
    with pytest.raises(ks.KernelSettingsError) as e:
        checker(host).apply()
    assert "tuned profile 'throughput-performance' [vm] sets always" in str(e.value)
    assert 'kernel_tuned_override: true' in str(e.value)


def test_tuned_override_writes_and_activates_a_profile(host):
    host.tuned_profile('throughput-performance', fake_kernel.THROUGHPUT_PERFORMANCE)
    host.tuned_profile('virtual-guest', fake_kernel.VIRTUAL_GUEST)
    host.tuned_active('virtual-guest', reapply=False)
    run = Runner()

    def activate(argv):
        run.calls.append(argv)
        host.write('etc/tuned/active_profile', 'iotune-storage-kernel\n')
        return 0, '', ''
    ksm = checker(host, mode='override', run=activate)
    result = ksm.apply()
    assert result['changed'] is True and result['tuned']['override'] is True
    assert run.calls == [['/usr/sbin/tuned-adm', 'profile', 'iotune-storage-kernel']]
    text = open(host.path('etc/tuned/iotune-storage-kernel/tuned.conf')).read()
    assert 'include=virtual-guest\n' in text
    assert '[sysctl]\nvm.swappiness=1\n' in text and '[vm]\ntransparent_hugepages=never\n' in text
    assert result['conflicts'] == [] and result['tuned']['profiles'] == ['iotune-storage-kernel']
    assert ksm.diff['before'] == '' and ksm.diff['after'] == text
    # second run: the override is active and complete
    again = checker(host, mode='override', run=activate).apply()
    assert again['changed'] is False and len(run.calls) == 1


def test_tuned_override_sets_each_value_in_the_parents_own_unit(host):
    # a site profile that sets swappiness in a unit not named sysctl and THP with tuned's singular option name: the
    # override overrides those units (tuned merges a unit of the same name); a [sysctl] unit beside them would leave
    # tuned applying both, and which one won would depend on the order of its units
    host.tuned_profile('site', '[main]\nsummary=site\n\n[site_sysctl]\ntype=sysctl\nvm.swappiness=60\n\n'
                               '[vm]\ntransparent_hugepage=always\n')
    host.tuned_active('site', reapply=False)

    def activate(argv):
        host.write('etc/tuned/active_profile', 'iotune-storage-kernel\n')
        return 0, '', ''
    result = checker(host, mode='override', run=activate).apply()
    text = open(host.path('etc/tuned/iotune-storage-kernel/tuned.conf')).read()
    assert '\n[site_sysctl]\ntype=sysctl\nvm.swappiness=1\n' in text
    assert '\n[vm]\ntransparent_hugepage=never\n' in text
    assert '[sysctl]' not in text
    # the check after the activation reads the merged chain: the override's values win, nothing left to resolve
    assert result['conflicts'] == [] and result['changed'] is True
    again = checker(host, mode='override', run=activate).apply()
    assert again['changed'] is False


def test_tuned_override_in_check_mode_writes_nothing(host):
    host.tuned_profile('throughput-performance', fake_kernel.THROUGHPUT_PERFORMANCE)
    host.tuned_active('throughput-performance')
    run = Runner()
    result = checker(host, mode='override', run=run, check_mode=True).apply()
    assert result['changed'] is True and run.calls == []
    assert not os.path.exists(host.path('etc/tuned/iotune-storage-kernel'))
    assert result['conflicts'] == [] and any('resolved by the tuned override profile' in n for n in result['notes'])


def test_tuned_override_without_tuned_adm_fails(host):
    host.tuned_profile('dbtest', '[sysctl]\nvm.swappiness=60\n', under='etc/tuned')
    host.tuned_active('dbtest', reapply=False)
    with pytest.raises(ks.KernelSettingsError, match='tuned-adm is not installed'):
        checker(host, mode='override', tuned_adm=None).apply()


def test_tuned_adm_failure_is_reported(host):
    host.tuned_profile('dbtest', '[sysctl]\nvm.swappiness=60\n', under='etc/tuned')
    host.tuned_active('dbtest', reapply=False)
    with pytest.raises(ks.KernelSettingsError, match='tuned-adm profile iotune-storage-kernel failed'):
        checker(host, mode='override', run=Runner(rc=1)).apply()


@pytest.mark.parametrize('params, message', [
    ({'sysctl': {'swappiness': 1}}, "'swappiness' is not a sysctl name"),
    ({'sysctl': {'vm.swappiness': 'low'}}, "sysctl vm.swappiness: 'low' is not an integer"),
    ({'sysctl': {'vm.swappiness': True}}, 'is not an integer'),
    ({'thp': {'enabled': 'off'}}, "thp enabled: 'off' is not one of always, madvise, never"),
    ({'thp': {'defrags': 'never'}}, "thp: unknown key 'defrags'"),
    ({'thp': {'khugepaged_max_ptes_none': 512}}, 'is not an integer 0..511'),
])
def test_bad_parameters(host, params, message):
    with pytest.raises(ks.KernelSettingsError, match=message.replace('.', r'\.').replace('(', r'\(')):
        checker(host, **params).apply()


def test_main_reports_through_exit_json(host, monkeypatch, capsys):
    """main() in report mode on the fake kernel (never the machine's own /proc): the values and no change."""
    real = mod.KernelSettings
    monkeypatch.setattr(mod, 'KernelSettings', lambda params, **kwargs: real(params, root=host.root, **kwargs))
    host.set_vm('swappiness', 60)
    code, out = run_module(mod, {'sysctl': {'vm.swappiness': 1}, 'mode': 'report'}, capsys, check_mode=True)
    assert code == 0, out
    swappiness = out['sysctl']['vm.swappiness']
    assert out['changed'] is False and (swappiness['wanted'], swappiness['live']) == ('1', '60'), out['sysctl']
    assert swappiness['sources'] == [{'file': OURS, 'line': 2, 'value': '1'}]


def test_main_fails_through_fail_json(host, monkeypatch, capsys):
    real = mod.KernelSettings
    monkeypatch.setattr(mod, 'KernelSettings', lambda params, **kwargs: real(params, root=host.root, **kwargs))
    code, out = run_module(mod, {'sysctl': {'vm.swappiness': 'low'}}, capsys, check_mode=True)
    assert code == 1 and out['failed'] is True
    assert out['msg'] == "sysctl vm.swappiness: 'low' is not an integer"


class EnabledRunner(Runner):
    """systemctl is-enabled answers `state` for the unit."""

    def __init__(self, state):
        super(EnabledRunner, self).__init__()
        self.state = state

    def __call__(self, argv):
        self.calls.append(argv)
        return (0 if self.state in ('enabled', 'static') else 1), self.state + '\n', ''


@pytest.mark.parametrize('state, expected', [('enabled', True), ('disabled', False), ('static', False),
                                             ('not-found', False)])
def test_thp_unit_enabled_is_read_with_systemctl(host, state, expected):
    run = EnabledRunner(state)
    result = mod.KernelSettings({'sysctl': SYSCTL, 'thp': NEVER, 'sysctl_file': OURS, 'mode': 'report',
                                 'tuned_profile': 'x', 'thp_unit': 'iotune-storage-thp.service'},
                                root=host.root, run=run, systemctl='/usr/bin/systemctl').apply()
    assert result['thp_unit_enabled'] is expected
    assert run.calls == [['/usr/bin/systemctl', 'is-enabled', 'iotune-storage-thp.service']]


def test_thp_unit_enabled_without_unit_or_systemctl(host):
    assert checker(host).apply()['thp_unit_enabled'] is None
    result = mod.KernelSettings({'sysctl': SYSCTL, 'thp': NEVER, 'sysctl_file': OURS, 'mode': 'report',
                                 'tuned_profile': 'x', 'thp_unit': 'u.service'}, root=host.root, run=Runner(),
                                systemctl=None).apply()
    assert result['thp_unit_enabled'] is False
