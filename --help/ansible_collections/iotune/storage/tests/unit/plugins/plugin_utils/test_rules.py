# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/rules.py, the one home of the value rules: the rules themselves, and the plan and every module
that applies a rule agreeing on a sample of values per rule (a test fails when two of them disagree)."""

from __future__ import annotations

import os

import pytest
import yaml

from ansible_collections.iotune.storage.plugins.filter.md_identity import md_identity
from ansible_collections.iotune.storage.plugins.filter.mount_option_problems import mount_option_problems
from ansible_collections.iotune.storage.plugins.module_utils import block_tuning, mdadm
from ansible_collections.iotune.storage.plugins.module_utils import rules as r
from ansible_collections.iotune.storage.plugins.module_utils import xfs_format
from ansible_collections.iotune.storage.plugins.modules import kernel_settings as kernel_settings_module
from ansible_collections.iotune.storage.plugins.plugin_utils import plan
from ansible.errors import AnsibleFilterError


# ---------------------------------------------------------------------------------------------
# the rules


@pytest.mark.parametrize('value', [4, 8, 64, 256, 512, 1 << 20])
def test_valid_chunks(value):
    assert r.valid_chunk_kb(value)


@pytest.mark.parametrize('value', [None, 0, 1, 2, 3, 6, 96, 100, 384, -4, True, '64', 64.0])
def test_invalid_chunks(value):
    assert not r.valid_chunk_kb(value)


@pytest.mark.parametrize('value, ok', [(0, True), (16, True), (r.READ_AHEAD_MAX_KB, True),
                                       (r.READ_AHEAD_MAX_KB + 1, False), (-1, False), (True, False),
                                       ('16', False), (None, False)])
def test_read_ahead_range(value, ok):
    assert r.valid_read_ahead_kb(value) is ok


@pytest.mark.parametrize('name, canonical', [('vm.swappiness', 'vm.swappiness'), ('vm/swappiness', 'vm.swappiness'),
                                             ('net.ipv4.tcp_rmem', 'net.ipv4.tcp_rmem'),
                                             ('net.ipv4.conf.*.rp_filter', None), ('swappiness', None),
                                             ('VM.swappiness', None), ('vm..x', None), (None, None), (1, None)])
def test_sysctl_names(name, canonical):
    assert r.sysctl_name(name) == canonical


@pytest.mark.parametrize('key, value, ok', [('enabled', 'never', True), ('enabled', 'defer', False),
                                            ('defrag', 'defer+madvise', True), ('defrag', None, True),
                                            ('khugepaged_max_ptes_none', 0, True), ('khugepaged_max_ptes_none', '511', True),
                                            ('khugepaged_max_ptes_none', 512, False),
                                            ('khugepaged_max_ptes_none', -1, False),
                                            ('khugepaged_max_ptes_none', True, False), ('shmem_enabled', 'never', False)])
def test_thp(key, value, ok):
    assert (r.thp_problem(key, value) is None) is ok


# ---------------------------------------------------------------------------------------------
# the plan and the modules agree (each sample: what the rule says, then every caller)

PROFILES = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'roles', 'profile', 'vars', 'profiles')


def _plan_problems(**entry):
    """The tune plan's problems (one text) for one array entry on the cassandra profile; '' when it passes."""
    with open(os.path.join(PROFILES, 'cassandra.yml')) as f:
        profile = yaml.safe_load(f)['profile_data']
    base = {'name': 'data', 'devices': ['/dev/disk/by-id/virtio-a', '/dev/disk/by-id/virtio-b'],
            'mountpoint': '/var/lib/cassandra'}
    base.update(entry)
    try:
        plan.build_plan('cassandra', profile, {}, [base])
    except plan.PlanError as e:
        return str(e)
    return ''


MD_NAMES = ['data', 'a', 'x' * 32, 'db-1_2.3', 'x' * 33, '', '.', '..', 'a/b', 'a b', 'dàta', None]


@pytest.mark.parametrize('name', MD_NAMES)
def test_md_names_agree(name):
    ok = r.valid_md_name(name)
    found = _plan_problems(name=name)
    in_plan = 'name %r must be' % (name,) not in found and 'name is required' not in found
    in_mdadm = not any(e.startswith('name ') for e in mdadm.validate_params(name, 0, 64, '1.2', 2))
    try:
        md_identity(name)
        in_filter = True
    except AnsibleFilterError:
        in_filter = False
    assert (ok, ok, ok) == (in_plan, in_mdadm, in_filter)


@pytest.mark.parametrize('chunk', [4, 64, 512, 96, 2, 384, 0, True])
def test_chunks_agree(chunk):
    ok = r.valid_chunk_kb(chunk)
    try:
        plan.chunk_kb(chunk, 'chunk_kb')
        in_plan = True
    except ValueError:
        in_plan = False
    in_mdadm = not any('chunk_kb' in e for e in mdadm.validate_params('data', 0, chunk, '1.2', 2))
    fs = xfs_format.XfsFilesystem({'su_kb': chunk, 'sw': 2}, view=None, run=None, bins={})
    try:
        fs.expected(None)
        in_xfs = True
    except xfs_format.FsError:
        in_xfs = False
    assert (ok, ok, ok) == (in_plan, in_mdadm, in_xfs)


@pytest.mark.parametrize('label', ['data', 'x' * 12, 'a.b+c-d_e', 'x' * 13, 'a b', 'dàta', ''])
def test_xfs_labels_agree(label):
    ok = r.valid_xfs_label(label)
    in_plan = 'label %r must be' % (label,) not in _plan_problems(label=label)
    fs = xfs_format.XfsFilesystem({'label': label, 'device': '/dev/md/data'}, view=None, run=None, bins={})
    with pytest.raises((xfs_format.FsError, AttributeError)) as e:
        fs.apply()          # the label is checked first; a valid one goes on to the (absent) host view
    in_module = e.type is AttributeError
    assert (ok, ok) == (in_plan, in_module)


def _profile(read_ahead_kb=128, by_class=None):
    return {'raid_chunk_kb': 64, 'array': {'read_ahead_kb': read_ahead_kb},
            'members': {'read_ahead_kb': 8, 'scheduler_by_class': by_class if by_class is not None else {'nvme': 'none'}},
            'mount_options': ['noatime'], 'fio_verify_jobs': [], 'fio_verify_thresholds': {}}


def _plan_ok(profile):
    try:
        plan.validate_profile('x', profile, {})
        return True
    except plan.PlanError:
        return False


def _tuning_ok(entry):
    try:
        block_tuning.normalize_entry(dict(entry, md_name='data'))
        return True
    except block_tuning.TuningError:
        return False


@pytest.mark.parametrize('kb', [0, 8, 4096, r.READ_AHEAD_MAX_KB, r.READ_AHEAD_MAX_KB + 1, 2097152])
def test_read_ahead_agrees(kb):
    ok = r.valid_read_ahead_kb(kb)
    assert (ok, ok) == (_plan_ok(_profile(read_ahead_kb=kb)), _tuning_ok({'read_ahead_kb': kb}))


@pytest.mark.parametrize('cls', list(r.DEVICE_CLASSES) + ['rotational', 'NVME', 'scsi'])
def test_device_classes_agree(cls):
    ok = cls in r.DEVICE_CLASSES
    assert (ok, ok) == (_plan_ok(_profile(by_class={cls: 'none'})),
                        _tuning_ok({'scheduler_by_class': {cls: 'none'}}))


def _module_kernel(sysctl=None, thp=None):
    ks = kernel_settings_module.KernelSettings({'sysctl': sysctl, 'thp': thp, 'sysctl_file': '/etc/sysctl.d/90-iotune-storage.conf'})
    try:
        return ks.wanted()
    except Exception as e:  # pylint: disable=broad-except
        assert type(e).__name__ == 'KernelSettingsError', e
        return None


@pytest.mark.parametrize('name', ['vm.swappiness', 'vm/swappiness', 'fs.aio-max-nr', 'net.ipv4.conf.*.rp_filter',
                                  'swappiness', 'VM.swappiness', 'vm.', '.vm'])
def test_sysctl_names_agree(name):
    ok = r.sysctl_name(name) is not None
    in_plan = not plan._kernel_sysctl({name: 1}, 'kernel.extra_sysctl', extra=True)[1]
    in_module = _module_kernel(sysctl={name: 1}) is not None
    assert (ok, ok) == (in_plan, in_module)


@pytest.mark.parametrize('name', sorted(r.SYSCTL_ACTIONS) + ['vm/drop_caches', 'vm.swappiness', 'net.ipv4.ip_forward'])
def test_an_action_sysctl_is_refused_by_both(name):
    refused = r.sysctl_action(r.sysctl_name(name)) is not None
    assert refused == (name.replace('/', '.') in r.SYSCTL_ACTIONS)
    in_plan = not plan._kernel_sysctl({name: 1}, 'kernel.extra_sysctl', extra=True)[1]
    in_module = _module_kernel(sysctl={name: 1}) is not None
    assert (in_plan, in_module) == (not refused, not refused)


def test_a_sysctl_given_twice_is_refused_by_both():
    values = {'vm.swappiness': 1, 'vm/swappiness': 10}
    assert any('given twice' in p for p in plan._kernel_sysctl(values, 'kernel.sysctl')[1])
    assert _module_kernel(sysctl=values) is None


@pytest.mark.parametrize('key, value', [('enabled', 'never'), ('enabled', 'defer'), ('defrag', 'defer+madvise'),
                                        ('defrag', 'sometimes'), ('khugepaged_max_ptes_none', 511),
                                        ('khugepaged_max_ptes_none', 512)])
def test_thp_agrees(key, value):
    ok = r.thp_problem(key, value) is None
    in_plan = not plan._kernel_thp({key: value}, 'kernel.thp')[1]
    in_module = _module_kernel(thp={key: value}) is not None
    assert (ok, ok) == (in_plan, in_module)


@pytest.mark.parametrize('option', ['noatime', 'logbsize=256k', 'barrier', 'nobarrier', 'noauto', 'defaults', 'noatme',
                                    'logbsize', 'noatime=1', 'x-systemd.device-timeout=90s', 'x-', 'attr2',
                                    'X-fstrim.notrim', 'auto', 'seclabel', 'user', 'norecovery',
                                    'noatime,nodiratime', 'a b', ''])
def test_mount_options_agree(option):
    ok = r.mount_option_problem(option) is None
    try:
        plan.mount_options([option], 'mount_options')
        in_plan = True
    except ValueError:
        in_plan = False
    in_xfs_role = mount_option_problems([option]) == []     # the xfs role's own check (used without the plan)
    assert (ok, ok) == (in_plan, in_xfs_role)


@pytest.mark.parametrize('options', [['sunit=512', 'swidth=2048'], ['sunit=512'], ['noatime', 'swidth=2048'], ['noatime']])
def test_mount_option_lists_agree(options):
    ok = r.mount_option_set_problems(options) == []
    try:
        plan.mount_options(options, 'mount_options')
        in_plan = True
    except ValueError:
        in_plan = False
    assert (ok, ok) == (in_plan, mount_option_problems(options) == [])
    assert ok == (('sunit=512' in options) == ('swidth=2048' in options))


def test_plan_refuses_a_readahead_the_module_would_refuse():
    with pytest.raises(plan.PlanError) as e:
        plan.validate_profile('x', _profile(read_ahead_kb=2097152), {})
    assert 'array.read_ahead_kb must be at most 1048576 KiB' in str(e.value)
