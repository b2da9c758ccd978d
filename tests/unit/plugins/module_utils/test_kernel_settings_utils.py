# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils.kernel_settings against fake /proc, /sys, sysctl.d and tuned trees."""

from __future__ import annotations

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import kernel_settings as ks
from ansible_collections.iotune.storage.plugins.module_utils import tuned
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.kernel import fake_kernel


OURS = '/etc/sysctl.d/90-iotune-storage.conf'
CASSANDRA_SYSCTL = {'vm.swappiness': 1, 'vm.zone_reclaim_mode': 0, 'vm.max_map_count': 1048575}
NEVER = {'enabled': 'never', 'defrag': 'never'}


@pytest.fixture
def host(tmp_path):
    return fake_kernel.FakeKernel(tmp_path)


def applied(host, sysctl=None, thp=None):
    """The host as the kernel role leaves it: our file written, values live."""
    sysctl = CASSANDRA_SYSCTL if sysctl is None else sysctl
    host.sysctl_file(OURS.lstrip('/'), ['%s = %s' % kv for kv in sorted(sysctl.items())])
    for name, value in sysctl.items():
        host.set_vm(name.split('.', 1)[1], value)
    host.set_thp(**(NEVER if thp is None else thp))


# --- live values ----------------------------------------------------------------------------------

def test_live_values(host):
    assert ks.read_sysctl(host.root, 'vm.swappiness') == '60'
    assert ks.read_sysctl(host.root, 'vm/swappiness') == '60'
    assert ks.read_sysctl(host.root, 'vm.nosuch') is None
    assert ks.read_thp(host.root) == {'enabled': 'always', 'defrag': 'madvise', 'khugepaged_max_ptes_none': '511'}


def test_parse_thp_choice():
    assert ks.parse_thp_choice('always defer [defer+madvise] madvise never\n') == 'defer+madvise'
    assert ks.parse_thp_choice('0\n') == '0'
    assert ks.parse_thp_choice(None) is None


def test_cmdline_thp(tmp_path):
    assert ks.cmdline_thp(fake_kernel.FakeKernel(tmp_path, cmdline='ro transparent_hugepage=never').root) == 'never'
    assert ks.cmdline_thp(fake_kernel.FakeKernel(tmp_path / 'b').root) is None


def test_parse_sysctl_text():
    text = '# c\n; c\nvm.swappiness=10\n -vm.max_map_count = 262144 \nvm/dirty_ratio = 5\nnot a line\n'
    assert ks.parse_sysctl_text(text) == [('vm.swappiness', '10', 3), ('vm.max_map_count', '262144', 4),
                                          ('vm.dirty_ratio', '5', 5)]


# --- sysctl.d order -------------------------------------------------------------------------------

def test_sysctl_file_order_like_systemd_sysctl(host):
    host.sysctl_file('usr/lib/sysctl.d/50-default.conf', ['kernel.sysrq = 16'])
    host.sysctl_file('usr/lib/sysctl.d/99-zz-vendor.conf', ['vm.swappiness = 5'])
    host.sysctl_file('etc/sysctl.d/99-zz-vendor.conf', ['vm.swappiness = 7'])     # hides the vendor file
    host.sysctl_file('run/sysctl.d/95-run.conf', ['vm.swappiness = 9'])
    host.mask('etc/sysctl.d/97-masked.conf')
    host.sysctl_file('usr/lib/sysctl.d/97-masked.conf', ['vm.swappiness = 11'])
    host.sysctl_file('etc/sysctl.conf', ['vm.swappiness = 13'])
    files = ks.sysctl_files(host.root, OURS)
    assert files == ['/usr/lib/sysctl.d/50-default.conf', OURS, '/run/sysctl.d/95-run.conf',
                     '/etc/sysctl.d/99-zz-vendor.conf', '/etc/sysctl.conf']
    assert [s['value'] for s in ks.sysctl_setters(host.root, 'vm.swappiness', files)] == ['9', '7', '13']


def test_sysctl_conf_linked_as_99_sysctl_is_applied_once(host):
    host.sysctl_file('etc/sysctl.conf', ['vm.swappiness = 13'])
    os.makedirs(host.path('etc/sysctl.d'))
    os.symlink('../sysctl.conf', host.path('etc/sysctl.d/99-sysctl.conf'))
    files = ks.sysctl_files(host.root, OURS)
    assert files == [OURS, '/etc/sysctl.d/99-sysctl.conf']


def test_glob_keys_match(host):
    host.sysctl_file('etc/sysctl.d/99-glob.conf', ['vm.dirty_* = 3'])
    files = ks.sysctl_files(host.root, OURS)
    assert ks.sysctl_setters(host.root, 'vm.dirty_ratio', files)[0]['value'] == '3'


# --- the check ------------------------------------------------------------------------------------

def test_applied_profile_is_clean(host):
    applied(host)
    report = ks.check(host.root, CASSANDRA_SYSCTL, NEVER, OURS)
    assert report['conflicts'] == [] and report['drift'] == [] and report['notes'] == []
    assert report['sysctl']['vm.swappiness'] == {'wanted': '1', 'live': '1',
                                                 'sources': [{'file': OURS, 'line': 2, 'value': '1'}]}
    assert report['thp'] == {'enabled': {'wanted': 'never', 'live': 'never'},
                             'defrag': {'wanted': 'never', 'live': 'never'}}


def test_fresh_host_is_drift_only(host):
    report = ks.check(host.root, CASSANDRA_SYSCTL, NEVER, OURS)
    assert report['conflicts'] == []
    assert 'vm.swappiness: live 60, wanted 1' in report['drift']
    assert 'THP enabled: live always, wanted never' in report['drift']
    assert OURS in report['sysctl_files']


def test_later_sysctl_file_is_a_conflict_naming_the_file(host):
    applied(host)
    host.sysctl_file('etc/sysctl.d/99-zz-test.conf', ['vm.swappiness = 60'])
    host.set_vm('swappiness', 60)     # sysctl --system
    report = ks.check(host.root, CASSANDRA_SYSCTL, NEVER, OURS)
    assert report['conflicts'] == ['vm.swappiness: /etc/sysctl.d/99-zz-test.conf line 1 sets 60, and it is applied '
                                   'after %s (wanted 1)' % OURS]
    assert report['drift'] == []


def test_earlier_file_or_same_value_is_not_a_conflict(host):
    applied(host)
    host.sysctl_file('usr/lib/sysctl.d/10-early.conf', ['vm.swappiness = 60'])
    host.sysctl_file('etc/sysctl.d/99-same.conf', ['vm.swappiness = 1'])
    report = ks.check(host.root, CASSANDRA_SYSCTL, NEVER, OURS)
    assert report['conflicts'] == [] and report['drift'] == []


def test_drift_without_a_source(host):
    applied(host)
    host.set_vm('max_map_count', 65530)
    report = ks.check(host.root, CASSANDRA_SYSCTL, NEVER, OURS)
    assert report['drift'] == ['vm.max_map_count: live 65530, wanted 1048575']


def test_unknown_key_is_a_conflict(host):
    report = ks.check(host.root, {'vm.nosuch': 1}, {}, OURS)
    assert report['conflicts'] == ['vm.nosuch: the kernel has no /proc/sys/vm/nosuch']


# --- tuned ----------------------------------------------------------------------------------------

def test_tuned_virtual_guest_chain(host):
    host.tuned_profile('throughput-performance', fake_kernel.THROUGHPUT_PERFORMANCE)
    host.tuned_profile('virtual-guest', fake_kernel.VIRTUAL_GUEST)
    found = tuned.tuned_settings(host.root, ['virtual-guest'])
    assert found[('sysctl', 'vm.swappiness')] == ('30', 'virtual-guest', 'sysctl', 'sysctl', 'vm.swappiness')
    assert found[('sysctl', 'vm.dirty_ratio')] == ('30', 'virtual-guest', 'sysctl', 'sysctl', 'vm.dirty_ratio')
    assert found[('thp', 'enabled')] == ('always', 'throughput-performance', 'vm', 'vm', 'transparent_hugepages')


def test_tuned_thp_is_a_conflict(host):
    applied(host)
    host.tuned_profile('throughput-performance', fake_kernel.THROUGHPUT_PERFORMANCE)
    host.tuned_profile('virtual-guest', fake_kernel.VIRTUAL_GUEST)
    host.tuned_active('virtual-guest', running=True)
    report = ks.check(host.root, CASSANDRA_SYSCTL, NEVER, OURS)
    assert report['conflicts'] == ["THP enabled: tuned profile 'throughput-performance' [vm] sets always (wanted never)"]
    assert report['tuned']['conflicts'] == {'thp.enabled': 'never'}
    assert report['tuned']['running'] is True and report['tuned']['profiles'] == ['virtual-guest']
    # [sysctl] vm.swappiness=30 loses: tuned re-applies the sysctl files (reapply_sysctl default 1)
    assert any("vm.swappiness: tuned profile 'virtual-guest' [sysctl] sets vm.swappiness=30, but tuned applies "
               'the sysctl files again' in n for n in report['notes'])


def test_tuned_sysctl_wins_without_reapply(host):
    applied(host)
    host.tuned_profile('dbtest', '[sysctl]\nvm.swappiness=60\n', under='etc/tuned')
    host.tuned_active('dbtest', reapply=False)
    report = ks.check(host.root, CASSANDRA_SYSCTL, NEVER, OURS)
    assert report['conflicts'] == ["vm.swappiness: tuned profile 'dbtest' [sysctl] sets vm.swappiness=60 (wanted 1)"]
    assert report['tuned']['conflicts'] == {'vm.swappiness': '1'}
    assert report['tuned']['running'] is False


def test_tuned_sysctl_loses_also_before_our_file_exists(host):
    # check mode on a fresh host: the role writes the file, tuned re-applies it after its [sysctl]
    host.tuned_profile('dbtest', '[sysctl]\nvm.swappiness=60\n', under='etc/tuned')
    host.tuned_active('dbtest')
    report = ks.check(host.root, {'vm.swappiness': 1}, {}, OURS)
    assert report['tuned']['conflicts'] == {} and report['conflicts'] == []
    assert report['drift'] == ['vm.swappiness: live 60, wanted 1']


def test_tuned_vm_dirty_options_are_never_reapplied(host):
    applied(host, sysctl={'vm.dirty_ratio': 80})
    host.tuned_profile('dbtest', '[vm]\ndirty_ratio=40\n', under='etc/tuned')
    host.tuned_active('dbtest')
    report = ks.check(host.root, {'vm.dirty_ratio': 80}, {}, OURS)
    assert report['conflicts'] == ["vm.dirty_ratio: tuned profile 'dbtest' [vm] sets vm.dirty_ratio=40 (wanted 80)"]


@pytest.mark.parametrize('text', ['[vm]\nenabled=false\ntransparent_hugepages=always\n',
                                  '[vm]\ntransparent_hugepages=never\n',
                                  '[my_vm]\ntype=vm\ntransparent_hugepages=never\n'])
def test_tuned_disabled_or_agreeing_unit_is_fine(host, text):
    applied(host)
    host.tuned_profile('dbtest', text, under='etc/tuned')
    host.tuned_active('dbtest')
    assert ks.check(host.root, CASSANDRA_SYSCTL, NEVER, OURS)['conflicts'] == []


def test_tuned_replace_drops_the_parent_unit(host):
    applied(host)
    host.tuned_profile('throughput-performance', fake_kernel.THROUGHPUT_PERFORMANCE)
    host.tuned_profile('child', '[main]\ninclude=throughput-performance\n[vm]\nreplace=1\n', under='etc/tuned')
    host.tuned_active('child')
    assert ks.check(host.root, CASSANDRA_SYSCTL, NEVER, OURS)['conflicts'] == []


@pytest.mark.parametrize('value, wanted, differs', [
    ('>4096', 1048575, False), ('>2000000', 1048575, True), ('<10', 1, False), ('<0', 1, True),
    ('60', 1, True), ('1', 1, False), ('${f:virt_check:1:2}', 1, None)])
def test_tuned_modifiers(value, wanted, differs):
    assert tuned.tuned_differs(value, wanted) is differs


def test_tuned_variable_is_a_note(host):
    applied(host)
    host.tuned_profile('dbtest', '[sysctl]\nvm.swappiness=${f:virt_check:1:2}\n', under='etc/tuned')
    host.tuned_active('dbtest', reapply=False)
    report = ks.check(host.root, CASSANDRA_SYSCTL, NEVER, OURS)
    assert report['conflicts'] == [] and 'not evaluated' in report['notes'][0]


def test_cmdline_thp_is_a_note(tmp_path):
    host = fake_kernel.FakeKernel(tmp_path, cmdline='ro transparent_hugepage=always')
    applied(host)
    report = ks.check(host.root, CASSANDRA_SYSCTL, NEVER, OURS)
    assert report['conflicts'] == [] and report['drift'] == []
    assert report['notes'] == ['THP enabled: the kernel command line sets transparent_hugepage=always; the THP unit '
                               'sets never after boot']


def test_render_tuned_override():
    text = tuned.render_tuned_override('virtual-guest', {('sysctl', 'vm.swappiness'): '1', ('thp', 'enabled'): 'never'},
                                       ['x'])
    assert 'include=virtual-guest\n' in text
    assert '\n[sysctl]\nvm.swappiness=1\n' in text and '\n[vm]\ntransparent_hugepages=never\n' in text
    assert text.index('[sysctl]') < text.index('[vm]')   # the order of earlier releases


def test_render_tuned_override_uses_the_parents_unit_and_option_names(host):
    # the parent sets the governor in a unit not named cpu, dirty_bytes through its [vm] unit and THP with the singular
    # option name: the override must set each where the parent does (tuned merges units by name), not in a second unit
    host.tuned_profile('site', '[main]\nsummary=site\n\n[my_cpu]\ntype=cpu\ngovernor=powersave\n\n'
                               '[vm]\ndirty_bytes=1000\ntransparent_hugepage=always\n')
    settings = tuned.tuned_settings(host.root, ['site'])
    conflicts = {('cpu', 'governor'): 'performance', ('sysctl', 'vm.dirty_bytes'): '2000', ('thp', 'enabled'): 'never',
                 ('sysctl', 'vm.swappiness'): '1'}
    text = tuned.render_tuned_override('site', conflicts, ['x'], settings)
    assert '\n[my_cpu]\ntype=cpu\ngovernor=performance\n' in text
    assert '\n[vm]\ndirty_bytes=2000\ntransparent_hugepage=never\n' in text
    assert '\n[sysctl]\nvm.swappiness=1\n' in text          # not set by the parent: the unit of its kind
    assert '[cpu]' not in text and 'vm.dirty_bytes' not in text
    # negative control: without the parent's settings every value lands in the unit of its kind
    plain = tuned.render_tuned_override('site', conflicts, ['x'])
    assert '\n[cpu]\ngovernor=performance\n' in plain and '[my_cpu]' not in plain
