# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""plugin_utils/role_tasks.py and its filters (issue 24): which packages are missing (the preflight's rule), the
package calls, the raid0 role's steps after its calls, the kernel role's files and steps; the audit role's result
and messages (plugin_utils/audit.py). The old Jinja against these: tests/unit/roles/test_role_tasks_templar.py."""

from __future__ import annotations

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.kernel_files import kernel_files
from ansible_collections.iotune.storage.plugins.filter.kernel_steps import kernel_steps
from ansible_collections.iotune.storage.plugins.plugin_utils import role_tasks
from ansible_collections.iotune.storage.plugins.filter.package_argv import package_argv
from ansible_collections.iotune.storage.plugins.filter.packages_missing import packages_missing
from ansible_collections.iotune.storage.plugins.filter.raid0_outcome import raid0_outcome
from ansible_collections.iotune.storage.plugins.filter.storage_audit import storage_audit_messages, storage_audit_result
from ansible_collections.iotune.storage.plugins.module_utils import dpkg
from ansible_collections.iotune.storage.plugins.module_utils import kernel_call
from ansible_collections.iotune.storage.plugins.module_utils import kernel_settings as ks
from ansible_collections.iotune.storage.plugins.plugin_utils import audit

LINES = ['mdadm install ok installed', 'xfsprogs deinstall ok config-files', 'fio install ok half-installed']


# --- packages ---------------------------------------------------------------------------------------------------
def test_missing_is_the_preflight_rule_each_name_once_in_order():
    assert packages_missing(['fio', 'mdadm', 'xfsprogs', 'fio'], dpkg_lines=LINES) == ['fio', 'xfsprogs']
    assert packages_missing(['fio', 'mdadm', 'xfsprogs', 'fio'], dpkg_lines=LINES) == \
        dpkg.missing(['fio', 'mdadm', 'xfsprogs', 'fio'], '\n'.join(LINES) + '\n')
    assert packages_missing(['mdadm'], dpkg_lines=[]) == ['mdadm']       # dpkg-query skipped or unknown name
    assert packages_missing([], dpkg_lines=LINES) == []


def test_a_callers_read_is_the_answer():
    assert packages_missing(['mdadm'], read=['xfsprogs'], dpkg_lines=[]) == ['xfsprogs']   # as given
    assert packages_missing(['mdadm'], read=[]) == []


@pytest.mark.parametrize('names, read, expected', [
    (['mdadm', 'xfsprogs'], ['xfsprogs', 'mdadm'], ['xfsprogs', 'mdadm']),
    (['mdadm'], ['xfsprogs', 'mdadm'], ['mdadm']),
    (['mdadm'], [], []),
    (['mdadm'], None, None),                     # the preflight did not look
    (['mdadm', 'fio'], [], None),                # fio was not among the names it read
])
def test_a_read_of_some_names_answers_only_for_those(names, read, expected):
    assert packages_missing(names, read=read, read_of=['mdadm', 'xfsprogs']) == expected


@pytest.mark.parametrize('bad', ['mdadm', [1], {'mdadm': 1}])
def test_missing_refuses_what_is_not_a_list_of_names(bad):
    with pytest.raises(AnsibleFilterError, match='list of package names'):
        packages_missing(bad)


def test_the_package_calls():
    assert package_argv(['mdadm'], 'query') == ['dpkg-query', '--show', r'--showformat=${Package} ${Status}\n', 'mdadm']
    assert package_argv(['mdadm'], 'install')[-7:] == ['-o', 'DPkg::Lock::Timeout=60', '-o', 'Dpkg::Options::=--force-confdef',
                                                       '-o', 'Dpkg::Options::=--force-confold', 'mdadm']
    unpack = package_argv(['mdadm', 'xfsprogs'], 'unpack')
    assert unpack[:9] == ['apt-get', 'install', '--yes', '--quiet', '--no-install-recommends', '-o', 'DPkg::NoTriggers=true',
                          '-o', 'DPkg::ConfigurePending=false'] and unpack[-2:] == ['mdadm', 'xfsprogs']
    out = 'Unpacking mdadm (4.2-5) ...\n  Unpacking not-at-start (1)\nUnpacking xfsprogs (6.1) over (6.0) ...\n'
    assert package_argv(out, 'configure') == ['dpkg', '--configure', '--no-triggers', 'mdadm', 'xfsprogs']
    assert package_argv(None, 'configure') == ['dpkg', '--configure', '--no-triggers']


@pytest.mark.parametrize('value, kind, match', [(['mdadm'], 'remove', 'kind must be one of'),
                                                (['mdadm'], 'configure', 'text apt-get printed'),
                                                ('mdadm', 'install', 'list of package names')])
def test_package_argv_refuses(value, kind, match):
    with pytest.raises(AnsibleFilterError, match=match):
        package_argv(value, kind)


# --- raid0 ------------------------------------------------------------------------------------------------------
def result(name, ephemeral=False, **fields):
    return dict(fields, item={'name': name, 'ephemeral': ephemeral})


def test_a_changed_array_line_rebuilds_with_the_generator_of_the_first_result():
    module = {'results': [result('data', conf_changed=True, initramfs_generator='initramfs-tools'),
                          result('logs', initramfs_generator='dracut')]}
    got = raid0_outcome(module, deferred={'skipped': True}, update_initramfs='yes')
    assert got['rebuild'] and not got['find_generator'] and got['generators'] == ['update-initramfs']
    assert got['argv'] == ['update-initramfs', '-u'] and not got['deferred'] and not got['settle']
    assert got['by_name'] == {'data': module['results'][0], 'logs': module['results'][1]}
    assert raid0_outcome(module, update_initramfs=False)['rebuild'] is False
    assert raid0_outcome(module, check_mode=True)['rebuild'] is False


@pytest.mark.parametrize('generator', ['initramfs-tools', 'dracut'])
def test_an_owed_rebuild_with_dpkg_work_pending_finishes_it(generator):
    """A crash between a deferred install and its rebuild, or during it, leaves dpkg's trigger pending or
    initramfs-tools half-configured: the next run's rebuild (the marker is still there) finishes that dpkg work, not
    the generator, or the next dpkg run (fio's install) builds again."""
    owed = result('data', rebuild_pending=True, initramfs_generator=generator, initramfs_dpkg_pending=True)
    got = raid0_outcome({'results': [owed]}, deferred={'skipped': True})
    assert got['rebuild'] and got['argv'] == ['dpkg', '--configure', '--pending'] and not got['deferred']
    # the owed array need not be the first: dpkg's state is the host's, read by the calls that rebuild
    in_sync = result('logs', initramfs_generator=generator, initramfs_dpkg_pending=False)
    assert raid0_outcome({'results': [in_sync, owed]})['argv'] == ['dpkg', '--configure', '--pending']
    # negative control: nothing pending in dpkg, the generator itself
    owed['initramfs_dpkg_pending'] = False
    assert raid0_outcome({'results': [owed]})['argv'][0] == ('update-initramfs' if generator == 'initramfs-tools'
                                                             else 'dracut')
    # nothing owed, nothing changed: a pending trigger alone is not the role's to run (the next dpkg run does)
    assert raid0_outcome({'results': [result('data', initramfs_dpkg_pending=True)]})['rebuild'] is False


def test_an_ephemeral_arrays_line_alone_rebuilds_nothing():
    module = {'results': [result('scratch', ephemeral=True, conf_changed=True, initramfs_generator='dracut')]}
    assert raid0_outcome(module)['rebuild'] is False
    # an array given without ephemeral: the argument spec's default (false)
    assert raid0_outcome({'results': [{'item': {'name': 'd'}, 'conf_changed': True}]})['rebuild'] is True


def test_a_rebuild_owed_by_an_interrupted_run_is_made_now():
    # mdadm.conf in step (conf_changed false), the marker of the last change still there: rebuild
    module = {'results': [result('data', rebuild_pending=True, initramfs_generator='dracut')]}
    got = raid0_outcome(module, deferred={'skipped': True})
    assert got['rebuild'] and got['argv'] == ['dracut', '-f']
    assert raid0_outcome(module, update_initramfs=False)['rebuild'] is False
    assert raid0_outcome(module, check_mode=True)['rebuild'] is False
    assert raid0_outcome({'results': [result('data', initramfs_generator='dracut')]})['rebuild'] is False


def test_a_deferred_install_rebuilds_with_the_pending_trigger():
    got = raid0_outcome({'results': []}, deferred={'changed': True}, update_initramfs=False)
    assert got['rebuild'] and got['deferred'] and got['find_generator']
    assert got['argv'] == ['dpkg', '--triggers-only', '--pending']


def test_without_results_the_find_names_the_generator():
    found = [{'path': '/usr/bin/dracut'}]
    got = raid0_outcome({'results': []}, found=found, deferred={'changed': True})
    assert got['generators'] == ['dracut']
    assert raid0_outcome({'results': []}, found=found + [{'path': '/usr/sbin/update-initramfs'}])['argv'] == \
        ['update-initramfs', '-u']
    assert raid0_outcome({'results': []}, found=[])['generators'] == []


def test_a_stopped_array_settles_udev_but_not_in_check_mode():
    module = {'results': [result('old', stopped=True), result('b', stopped=False)]}
    assert raid0_outcome(module)['settle'] is True and raid0_outcome(module, check_mode=True)['settle'] is False


@pytest.mark.parametrize('module, kwargs, match', [([], {}, 'registered mdadm_array'),
                                                   ({'results': 'x'}, {}, 'list of dicts'),
                                                   ({'results': []}, {'found': [{'name': 'x'}]}, 'files of a find'),
                                                   ({'results': []}, {'deferred': 'yes'}, 'registered result')])
def test_raid0_outcome_refuses(module, kwargs, match):
    with pytest.raises(AnsibleFilterError, match=match):
        raid0_outcome(module, **kwargs)


# --- kernel -----------------------------------------------------------------------------------------------------
UNIT = '/etc/systemd/system/iotune-storage-thp.service'
FILE = '/etc/sysctl.d/90-iotune-storage.conf'
OPTIONS = {'sysctl': {'vm.swappiness': 1}, 'thp': {'enabled': 'never'}, 'sysctl_file': FILE, 'thp_unit_path': UNIT,
           'tuned_override': False}


def test_kernel_files():
    assert kernel_files({'vm.swappiness': 1}, {}, FILE, UNIT, 'S', 'T') == [{'path': FILE, 'state': 'present', 'content': 'S'}]
    assert kernel_files({}, {'enabled': 'never'}, FILE, UNIT, 'S', 'T') == [
        {'path': FILE, 'state': 'absent', 'content': 'S'}, {'path': UNIT, 'content': 'T'}]
    with pytest.raises(AnsibleFilterError, match='must be dicts'):
        kernel_files([], {}, FILE, UNIT, 'S', 'T')


def test_a_converged_host_needs_no_step():
    steps = kernel_steps({'drift': [], 'conflicts': [], 'thp_unit_enabled': True}, OPTIONS, written={'skipped': True})
    assert not (steps['load_sysctl'] or steps['thp_unit'] or steps['check'] or steps['remove_old_unit'])
    assert 'thp_state' not in steps and steps['mode'] == 'fail' and steps['unresolved'] == []
    assert steps['act'] is False        # the role's tasks/apply.yml is not included


def test_act_is_any_step_that_runs_a_task():
    before = {'drift': [], 'conflicts': [], 'thp_unit_enabled': True}
    cases = [
        (dict(before, drift=['vm.swappiness: live 60, wanted 1']), OPTIONS, {}),          # load_sysctl, check
        (dict(before, thp_unit_enabled=False), OPTIONS, {}),                              # thp_unit
        (dict(before, conflicts=['x']), OPTIONS, {}),                                      # check
        (before, dict(OPTIONS, thp={}), {}),                                               # look_old_unit
        (before, dict(OPTIONS, thp={}), {'found_files': [{'path': UNIT}]}),                # remove_old_unit
    ]
    for read, options, extra in cases:
        steps = kernel_steps(read, options, **extra)
        assert steps['act'] is True and any(steps[k] for k in role_tasks.ACT_STEPS), (read, options, extra)
    # negative control: with the THP unit gone and no earlier one found there is nothing to do
    assert kernel_steps(before, dict(OPTIONS, thp={}), found_files=[{'path': FILE}])['act'] is False


def test_drift_loads_and_restarts_what_drifted():
    before = {'drift': ['vm.swappiness: live 60, wanted 1'], 'conflicts': [], 'thp_unit_enabled': True}
    steps = kernel_steps(before, OPTIONS)
    assert steps['load_sysctl'] and not steps['thp_unit'] and steps['check']
    before['drift'] = ['THP enabled: live always, wanted never']
    steps = kernel_steps(before, OPTIONS)
    assert not steps['load_sysctl'] and steps['thp_unit'] and steps['thp_state'] == 'restarted'


def test_a_written_unit_is_enabled_and_run_but_not_in_check_mode():
    before = {'drift': [], 'conflicts': []}
    written = {'changed': True, 'changed_paths': [UNIT]}
    steps = kernel_steps(before, OPTIONS, written=written)
    assert steps['thp_unit'] and steps['thp_written'] and steps['thp_state'] == 'restarted' and steps['check']
    assert kernel_steps(before, OPTIONS, written=written, check_mode=True)['thp_unit'] is False
    assert kernel_steps(before, OPTIONS, check_mode=True)['mode'] == 'report'
    # a unit not enabled yet (a read that does not say: not enabled)
    assert kernel_steps(before, OPTIONS)['thp_unit'] is True


def test_without_thp_an_earlier_unit_is_removed():
    options = dict(OPTIONS, thp={})
    assert kernel_steps({}, options)['look_old_unit'] is True
    assert kernel_steps({}, options, thp_old={'stat': {'exists': True}})['remove_old_unit'] is True
    assert kernel_steps({}, options, thp_old={'stat': {'exists': False}})['remove_old_unit'] is False
    assert kernel_steps({}, options, found_files=[{'path': UNIT}])['remove_old_unit'] is True
    assert kernel_steps({}, options, found_files=[{'path': FILE}])['look_old_unit'] is False


def test_the_results_and_what_the_override_resolves():
    before = {'drift': [], 'conflicts': ["vm.swappiness: tuned profile 'x' sets 10"]}
    checked = {'drift': [], 'conflicts': ["vm.swappiness: tuned profile 'x' sets 10", 'other']}
    assert kernel_steps(before, OPTIONS, checked={'skipped': True})['results'] is before
    assert kernel_steps(before, OPTIONS, checked=checked)['unresolved'] == checked['conflicts']
    override = kernel_steps(before, dict(OPTIONS, tuned_override=True), checked=checked)
    assert override['unresolved'] == ['other'] and override['mode'] == 'override'


@pytest.mark.parametrize('args, match', [(('x', OPTIONS), 'kernel_settings read'), (({}, {'thp': {}}), 'options must'),
                                         (({}, OPTIONS, 'x'), 'written must'), (({}, OPTIONS, None, None, 'x'), 'found_files')])
def test_kernel_steps_refuses(args, match):
    with pytest.raises(AnsibleFilterError, match=match):
        kernel_steps(*args)


# --- kernel: the module is the one check of the values (the role's assert is gone) ----------------------------------
def wanted(**params):
    base = {'sysctl': {}, 'thp': {}, 'sysctl_file': FILE, 'mode': 'report', 'tuned_profile': 'p', 'thp_unit': None}
    return kernel_call.KernelSettings(dict(base, **params)).wanted()


@pytest.mark.parametrize('params, match', [
    ({'thp': {'khugepaged_max_ptes_none': 512}}, 'thp khugepaged_max_ptes_none: 512 is not an integer 0..511'),
    ({'thp': {'khugepaged_max_ptes_none': '999'}}, 'thp khugepaged_max_ptes_none'),
    ({'thp': {'enabled': 'sometimes'}}, "thp enabled: 'sometimes' is not one of always, madvise, never"),
    ({'thp': {'defrag': 'often'}}, 'thp defrag'),
    ({'thp': {'shmem_enabled': 'never'}}, "thp: unknown key 'shmem_enabled'"),
    ({'sysctl_file': '/etc/sysctl.d/90-iotune'}, 'must be an absolute path ending in .conf'),
    ({'sysctl_file': 'sysctl.d/90.conf'}, 'must be an absolute path ending in .conf'),
])
def test_the_read_refuses_a_bad_value_naming_it(params, match):
    with pytest.raises(ks.KernelSettingsError, match=match):
        wanted(**params)


def test_the_read_takes_the_limits():
    assert wanted(thp={'khugepaged_max_ptes_none': 511, 'enabled': 'madvise', 'defrag': 'defer+madvise'})[1] == \
        {'khugepaged_max_ptes_none': '511', 'enabled': 'madvise', 'defrag': 'defer+madvise'}


# --- audit ------------------------------------------------------------------------------------------------------
def test_the_audit_result_of_an_unreachable_or_failed_host():
    assert storage_audit_result({'unreachable': True, 'msg': 'no route'}) == {'unreachable': 'no route'}
    assert storage_audit_result({'unreachable': True}) == {'unreachable': 'unreachable'}
    assert storage_audit_result({'unreachable': True, 'msg': 'x'}, failed=True) == {'unreachable': 'x'}
    assert storage_audit_result({'msg': ''}, failed=True) == {'error': 'the audit failed'}
    with pytest.raises(AnsibleFilterError, match='schema version None'):
        storage_audit_result({'audit': {}}, plan={})


def test_the_report_messages():
    doc = audit.fleet([audit.host_entry('b', error='boom'), audit.host_entry('a', unreachable='gone')],
                      generated_at='t', run={})
    got = storage_audit_messages(doc, '/r')
    assert got['summary'][0] == '2 host(s): 0 ok, 0 drift, 1 unreachable, 1 error' and got['summary'][-1] == 'reports in /r'
    assert got['not_ok'] == 'a=unreachable, b=error'
    assert got['files'] == {'json': 'storage_audit.json', 'markdown': 'storage_audit.md', 'html': 'storage_audit.html'}


def test_the_raid0_calls_carry_the_rebuild_marker_for_the_arrays_the_initramfs_assembles():
    from ansible_collections.iotune.storage.plugins.plugin_utils import stages  # pylint: disable=import-outside-toplevel
    inputs = {'arrays': [{'name': 'data', 'devices': ['/dev/vdb']},
                         {'name': 'scratch', 'devices': ['/dev/vdc'], 'ephemeral': True}],
              'chunk_kb': 512, 'homehost': 'any', 'rebuild_marker': '/var/lib/iotune-storage/m'}
    calls = stages.raid0_calls(inputs)
    assert [c.get('rebuild_marker') for c in calls] == ['/var/lib/iotune-storage/m', None]
    assert [c.get('rebuild_marker') for c in stages.raid0_calls(dict(inputs, update_initramfs='no'))] == [None, None]
    assert 'rebuild_marker' not in stages.raid0_calls(dict(inputs, rebuild_marker=None))[0]
