# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 24: no rule has a second home. Per rule, the tune plan's validator, the roles' meta/argument_specs.yml
(types, choices, defaults) and the modules' argument specs and validators agree on a sample of values, on both sides
of each boundary; what cannot import the rule's home (role defaults, argument_specs.yml, a module's DOCUMENTATION,
the docs) is compared with it here. test_rules.py checks the rules themselves and the plan against each module.

Each sample: the plan accepts it iff the module (its argument spec, then its validator) accepts it, and every role
option that carries the value accepts what the plan accepts (an argument spec has no patterns: it may accept more,
never less; its choices must be the same). COERCED samples are values Ansible's argument spec converts (a float, a
number for a string): the plan refuses them on purpose (nothing is coerced silently), the module never refuses what
the plan accepts."""

from __future__ import annotations

import importlib
import os

import pytest
import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.iotune.storage.plugins.filter.fio_verify_problems import fio_verify_problems
from ansible_collections.iotune.storage.plugins.filter.mount_option_problems import mount_option_problems
from ansible_collections.iotune.storage.plugins.module_utils import block_tuning, files, fio, fstab, kernel_call, md_array
from ansible_collections.iotune.storage.plugins.module_utils import mdadm, xfs_call, xfs_format
from ansible_collections.iotune.storage.plugins.module_utils import rules as r
from ansible_collections.iotune.storage.plugins.modules import config_files
from ansible_collections.iotune.storage.plugins.modules import mdadm_array as mdadm_array_module
from ansible_collections.iotune.storage.plugins.plugin_utils import plan, stages
from ansible_collections.iotune.storage.tests.unit.roles.test_role_vars_templar import render_all

_PACKAGE = importlib.import_module('ansible_collections.iotune.storage')
ROOT = os.path.dirname(os.path.abspath(_PACKAGE.__file__)) if getattr(_PACKAGE, '__file__', None) \
    else list(_PACKAGE.__path__)[0]
SPEC_KEYS = ('type', 'elements', 'choices', 'default', 'required', 'options')


def _yaml(*parts):
    with open(os.path.join(ROOT, *parts)) as f:
        return yaml.safe_load(f)


def role_option(role, *path):
    """The option at ``path`` of the role's main entry point (a list's ``options`` are its elements')."""
    option = {'options': _yaml('roles', role, 'meta', 'argument_specs.yml')['argument_specs']['main']['options']}
    for key in path:
        option = option['options'][key]
    return option


def as_spec(option):
    spec = dict((key, option[key]) for key in SPEC_KEYS if key in option and key != 'options')
    if 'options' in option:
        spec['options'] = dict((key, as_spec(sub)) for key, sub in option['options'].items())
    return spec


def accepts(spec, value):
    """Whether an argument spec (one option) takes ``value``, and the value it converts it to."""
    checked = ArgumentSpecValidator({'v': spec}).validate({'v': value})
    return not checked.error_messages, checked.validated_parameters.get('v')


def roles_accept(value, *options):
    """Every role option (role, path...) takes ``value``."""
    return all(accepts(as_spec(role_option(*option)), value)[0] for option in options)


def module_accepts(spec, value, validator):
    """The module's argument spec takes ``value`` and its validator (on the converted value) finds no problem."""
    ok, converted = accepts(spec, value)
    return ok and validator(converted)


def _plan_ok(call, *args):
    try:
        call(*args)
        return True
    except (ValueError, plan.PlanError):
        return False


def agree(plan_ok, module_ok, role_ok, coerced=False):
    """The plan accepts iff the module does (a COERCED sample: the plan refuses what the module converts and takes),
    and the roles take what the plan accepts."""
    assert (plan_ok, module_ok) == ((False, True) if coerced else (module_ok, module_ok))
    assert role_ok or not plan_ok


# ---------------------------------------------------------------------------------------------
# md names

def _md_name_in_module(name):
    return module_accepts(md_array.argument_spec()['name'], name,
                          lambda v: not any(e.startswith('name ') for e in mdadm.validate_params(v, 0, 64, '1.2', 2)))


def _md_name_in_plan(name):
    found = ' '.join(_array_problems(name=name))
    return 'name %r must be' % (name,) not in found and 'name is required' not in found


@pytest.mark.parametrize('name', ['data', 'a', 'x' * 32, 'db-1_2.3', 'x' * 33, '', '.', '..', 'a/b', 'a b', 'dàta'])
def test_md_names(name):
    agree(_md_name_in_plan(name), _md_name_in_module(name),
          roles_accept(name, ('raid0', 'raid0_arrays', 'name'), ('profile', 'iotune_arrays', 'name'),
                       ('ephemeral', 'ephemeral_arrays', 'name')))


@pytest.mark.parametrize('name', [5, 1.5])
def test_md_names_coerced(name):
    agree(_md_name_in_plan(name), _md_name_in_module(name), True, coerced=True)


# ---------------------------------------------------------------------------------------------
# chunk: the default and the values

def test_the_chunk_default_has_one_home():
    default = md_array.CHUNK_DEFAULT_KB
    assert r.valid_chunk_kb(default)
    documented = yaml.safe_load(mdadm_array_module.DOCUMENTATION)['options']['chunk_kb']['default']
    assert (md_array.argument_spec()['chunk_kb']['default'], documented,
            _yaml('roles', 'raid0', 'defaults', 'main.yml')['raid0_chunk_kb'],
            role_option('raid0', 'raid0_chunk_kb')['default']) == (default,) * 4
    with open(os.path.join(ROOT, 'docs', 'raid0.md')) as f:
        assert '| `raid0_chunk_kb` | `%d` |' % default in f.read()


def test_the_device_timeout_default_has_one_home():
    """What the audit and the metrics collector compare an fstab line with when no timeout is given."""
    default = fstab.DEVICE_TIMEOUT_DEFAULT
    assert fstab.line_options(None, default).endswith('x-systemd.device-timeout=%s' % default)
    assert (_yaml('roles', 'xfs', 'defaults', 'main.yml')['xfs_device_timeout'],
            role_option('xfs', 'xfs_device_timeout')['default'],
            _yaml('roles', 'ephemeral', 'defaults', 'main.yml')['ephemeral_device_timeout'],
            role_option('ephemeral', 'ephemeral_device_timeout')['default']) == (default,) * 4
    with open(os.path.join(ROOT, 'docs', 'xfs.md')) as f:
        assert '| `xfs_device_timeout` | `%s` |' % default in f.read()


@pytest.mark.parametrize('default, role, variable', [
    # the file mdadm_array writes before mdadm.conf changes and the raid0 role removes after its rebuild
    (md_array.REBUILD_MARKER_DEFAULT, 'raid0', 'raid0_rebuild_marker'),
    # the file xfs_filesystem writes before mkfs.xfs and removes after it
    (xfs_format.MKFS_MARKER_DEFAULT, 'xfs', 'xfs_mkfs_marker'),
])
def test_the_crash_markers_have_one_home(default, role, variable):
    assert (_yaml('roles', role, 'defaults', 'main.yml')[variable], role_option(role, variable)['default']) \
        == (default,) * 2
    with open(os.path.join(ROOT, 'docs', '%s.md' % role)) as f:
        assert '| `%s` | `%s` |' % (variable, default) in f.read()


def test_the_raid0_role_and_the_tune_preflight_give_the_marker_alike(rendered):
    assert rendered[-1]['raid0_calls'][0]['rebuild_marker'] == md_array.REBUILD_MARKER_DEFAULT


def _chunk_in_module(chunk):
    return module_accepts(md_array.argument_spec()['chunk_kb'], chunk,
                          lambda v: not any('chunk_kb' in e for e in mdadm.validate_params('data', 0, v, '1.2', 2)))


CHUNK_ROLES = (('raid0', 'raid0_arrays', 'chunk_kb'), ('raid0', 'raid0_chunk_kb'), ('profile', 'iotune_arrays', 'chunk_kb'),
               ('ephemeral', 'ephemeral_arrays', 'chunk_kb'))


@pytest.mark.parametrize('chunk', [4, 8, 64, 512, 1 << 20, '64', ' 64', 0, 2, 3, 6, 96, 384, -4, True, '64k', '0x40'])
def test_chunks(chunk):
    agree(_plan_ok(plan.chunk_kb, chunk, 'chunk_kb'), _chunk_in_module(chunk), roles_accept(chunk, *CHUNK_ROLES))
    fs = xfs_format.XfsFilesystem({'su_kb': accepts(xfs_call.argument_spec()['su_kb'], chunk)[1], 'sw': 2},
                                  view=None, run=None, bins={})
    try:
        fs.expected(None)
        in_xfs = accepts(xfs_call.argument_spec()['su_kb'], chunk)[0]
    except xfs_format.FsError:
        in_xfs = False
    assert in_xfs == _plan_ok(plan.chunk_kb, chunk, 'chunk_kb')     # the XFS stripe unit is the chunk


@pytest.mark.parametrize('chunk', [64.0, '+64'])
def test_chunks_coerced(chunk):
    agree(_plan_ok(plan.chunk_kb, chunk, 'chunk_kb'), _chunk_in_module(chunk), True, coerced=True)


# ---------------------------------------------------------------------------------------------
# XFS labels

@pytest.mark.parametrize('label', ['data', 'x' * r.XFS_LABEL_MAX, 'a.b+c-d_e', 'x' * (r.XFS_LABEL_MAX + 1), 'a b',
                                   'dàta', '', 'a/b'])
def test_xfs_labels(label):
    in_plan = not any('label' in p for p in _array_problems(label=label))
    ok, converted = accepts(xfs_call.argument_spec()['label'], label)
    fs = xfs_format.XfsFilesystem({'label': converted, 'device': '/dev/md/data'}, view=None, run=None, bins={})
    with pytest.raises((xfs_format.FsError, AttributeError)) as e:
        fs.apply()          # the label is checked first; a valid one goes on to the (absent) host view
    agree(in_plan, ok and e.type is AttributeError,
          roles_accept(label, ('xfs', 'xfs_filesystems', 'label'), ('profile', 'iotune_arrays', 'label'),
                       ('ephemeral', 'ephemeral_arrays', 'label')))


# ---------------------------------------------------------------------------------------------
# the plan's array entry and profile, for one value

PROFILE = 'cassandra'


def _profile(**members):
    data = _yaml('roles', 'profile', 'vars', 'profiles', PROFILE + '.yml')['profile_data']
    data['members'].update(members)
    return data


def _array_problems(**entry):
    base = {'name': 'data', 'devices': ['/dev/disk/by-id/virtio-a', '/dev/disk/by-id/virtio-b'], 'mountpoint': '/data'}
    base.update(entry)
    try:
        plan.build_plan(PROFILE, _profile(), {}, [base])
    except plan.PlanError as e:
        return e.problems
    return []


def _profile_ok(**members):
    return _plan_ok(plan.validate_profile, PROFILE, _profile(**members), {})


def _tuning_ok(entry):
    """udev_block_tuning's argument spec and its check of an entry (a member disk's) take ``entry``."""
    ok, converted = accepts(block_tuning.devices_option(), [dict(entry, device='/dev/disk/by-id/virtio-a')])
    if not ok:
        return False
    try:
        block_tuning.normalize_entry(converted[0])
        return True
    except block_tuning.TuningError:
        return False


# ---------------------------------------------------------------------------------------------
# device classes and schedulers

@pytest.mark.parametrize('cls', list(r.DEVICE_CLASSES) + ['rotational', 'NVME', 'scsi', ''])
def test_device_classes(cls):
    agree(_profile_ok(scheduler_by_class={cls: 'none'}), _tuning_ok({'scheduler_by_class': {cls: 'none'}}),
          roles_accept({cls: 'none'}, ('block_tuning', 'block_tuning_devices', 'scheduler_by_class')))


# an empty scheduler of a class is not a sample: in a block_tuning entry it means "none set for that class", the plan
# wants every class it lists to have one
@pytest.mark.parametrize('name', ['none', 'mq-deadline', 'deadline', 'bfq', 'kyber', ' none ', 'noop', 'cfq',
                                  'anticipatory', ' noop', ' ', 5])
def test_schedulers(name):
    in_plan = _profile_ok(scheduler_by_class={'nvme': name})
    agree(in_plan, _tuning_ok({'scheduler_by_class': {'nvme': name}}),
          roles_accept(name, ('block_tuning', 'block_tuning_devices', 'scheduler')))
    if isinstance(name, str):
        assert _tuning_ok({'scheduler': name}) == in_plan


# ---------------------------------------------------------------------------------------------
# kernel: THP and sysctl names

def _kernel_module_ok(sysctl=None, thp=None):
    spec = kernel_call.argument_spec()
    ok_sysctl, sysctl = accepts(spec['sysctl'], sysctl or {})
    ok_thp, thp = accepts(spec['thp'], thp or {})
    if not (ok_sysctl and ok_thp):
        return False
    try:
        kernel_call.KernelSettings({'sysctl': sysctl, 'thp': thp, 'sysctl_file': '/etc/sysctl.d/90-iotune-storage.conf'}).wanted()
        return True
    except Exception as e:  # pylint: disable=broad-except
        assert type(e).__name__ == 'KernelSettingsError', e
        return False


def _kernel_plan_ok(**kernel):
    """The plan takes ``kernel`` as the user's iotune_profile_overrides (merged over the profile, its keys checked)."""
    return _plan_ok(plan.build_plan, PROFILE, _profile(), {'kernel': kernel}, [])


@pytest.mark.parametrize('key, value', [('enabled', choice) for choice in r.THP_CHOICES['enabled']]
                         + [('defrag', choice) for choice in r.THP_CHOICES['defrag']]
                         + [('enabled', 'defer'), ('enabled', 'Never'), ('defrag', 'sometimes'), ('enabled', ''),
                            ('khugepaged_max_ptes_none', 0), ('khugepaged_max_ptes_none', r.THP_MAX_PTES_NONE),
                            ('khugepaged_max_ptes_none', str(r.THP_MAX_PTES_NONE)),
                            ('khugepaged_max_ptes_none', r.THP_MAX_PTES_NONE + 1), ('khugepaged_max_ptes_none', -1),
                            ('khugepaged_max_ptes_none', True), ('shmem_enabled', 'never')])
def test_thp(key, value):
    agree(_kernel_plan_ok(thp={key: value}), _kernel_module_ok(thp={key: value}),
          roles_accept({key: value}, ('kernel', 'kernel_thp')))


@pytest.mark.parametrize('name', ['vm.dirty_expire_centisecs', 'vm/dirty_expire_centisecs', 'fs.aio-max-nr', 'net.ipv4.tcp_rmem',
                                  'net.ipv4.conf.*.rp_filter', 'swappiness', 'VM.swappiness', 'vm.', '.vm', 'vm..x',
                                  'vm.drop_caches'])
def test_sysctl_names(name):
    # a name of the sysctls database goes into kernel.sysctl, any other into kernel.extra_sysctl (docs/profiles.md)
    key = 'sysctl' if r.sysctl_name(name) in r.SYSCTL_DATABASE else 'extra_sysctl'
    agree(_kernel_plan_ok(**{key: {name: 1}}), _kernel_module_ok(sysctl={name: 1}),
          roles_accept({name: 1}, ('kernel', 'kernel_sysctl')))


# ---------------------------------------------------------------------------------------------
# mount options: the plan, the xfs role's own check (used without the plan), the option lists of the roles

MOUNT_ROLES = (('xfs', 'xfs_filesystems', 'mount_options'), ('xfs', 'xfs_mount_options'),
               ('profile', 'iotune_arrays', 'mount_options'), ('ephemeral', 'ephemeral_arrays', 'mount_options'))


@pytest.mark.parametrize('options', [['noatime'], ['noatime', 'logbsize=256k'], ['barrier'], ['nobarrier'], ['noauto'],
                                     ['defaults'], ['norecovery'], ['noatme'], ['logbsize'], ['noatime=1'],
                                     ['x-systemd.device-timeout=90s'], ['x-'], ['noatime,nodiratime'], [''],
                                     ['sunit=512', 'swidth=2048'], ['sunit=512']])
def test_mount_options(options):
    agree(_plan_ok(plan.mount_options, options, 'mount_options'), mount_option_problems(options) == [],
          roles_accept(options, *MOUNT_ROLES))


def test_the_default_mount_options_have_one_home():
    """fstab.DEFAULT_MOUNT_OPTIONS (the fstab line of an entry without options) is what the roles default to."""
    default = list(fstab.DEFAULT_MOUNT_OPTIONS)
    assert mount_option_problems(default) == []
    assert (_yaml('roles', 'xfs', 'defaults', 'main.yml')['xfs_mount_options'],
            role_option('xfs', 'xfs_mount_options')['default'],
            role_option('ephemeral', 'ephemeral_arrays', 'mount_options')['default']) == (default,) * 3


# ---------------------------------------------------------------------------------------------
# fio_verify jobs: the role's options are the fio module's, its check is the plan's

@pytest.mark.parametrize('key', plan.FIO_VERIFY_JOB_KEYS)
def test_fio_verify_job_options_are_the_modules(key):
    role = as_spec(role_option('fio_verify', 'fio_verify_jobs', key))
    module = fio.argument_spec()[key]
    assert role.get('type') == module.get('type')
    assert sorted(role.get('choices') or []) == sorted(module.get('choices') or [])
    if 'default' in role:
        assert role['default'] == module.get('default')


JOB = {'name': 'rand', 'rw': 'randread', 'bs': '4k'}


def _job_in_module(job):
    """The fio module's argument spec and its check of extra take the job (as the role passes it)."""
    checked = ArgumentSpecValidator(fio.argument_spec()).validate(dict(job, directory='/data'))
    if checked.error_messages:
        return False
    try:
        fio.check_extra(checked.validated_parameters['extra'] or {})
        return True
    except Exception:  # pylint: disable=broad-except
        return False


# the role loops over the jobs, each a fio call; the plan checks the set (so does the role, by the same function)
@pytest.mark.parametrize('jobs, thresholds, ok', [
    ([JOB], {'rand': {'iops_min': 1}}, True),
    ([JOB, dict(JOB, name='seq', rw='read')], {}, True),
    ([JOB, JOB], {}, False),                                   # names not unique
    ([JOB], {'other': {'iops_min': 1}}, False),                # thresholds of an unknown job
    ([dict(JOB, rw='write')], {}, False),                      # not a choice of the fio module
    ([dict(JOB, ioengine='libaio', iodepth=16)], {}, True),
    ([dict(JOB, ioengine='windowsaio')], {}, False),
    ([dict(JOB, extra={'filename': '/dev/sda'})], {}, False),  # the fio module refuses it in extra
    ([dict(JOB, iodepth='deep')], {}, False),
])
def test_fio_verify_jobs(jobs, thresholds, ok):
    in_plan = not plan.fio_verify_problems(jobs, thresholds, 'x')
    in_role = fio_verify_problems(jobs, thresholds, '/data') == []
    assert (in_plan, in_role) == (ok, ok)
    assert all(_job_in_module(job) for job in jobs) or not in_plan
    assert roles_accept(jobs, ('fio_verify', 'fio_verify_jobs')) or not in_plan


def test_the_default_jobs_pass_the_plans_check():
    jobs = _yaml('roles', 'fio_verify', 'vars', 'main.yml')['fio_verify_default_jobs']
    assert fio_verify_problems(jobs, {}, '/data') == []
    assert fio_verify_problems(jobs, {}, '') == ['fio_verify: fio_verify_directory must be set']


# ---------------------------------------------------------------------------------------------
# the tuned mode: one mapping, the values the modules take

def test_tuned_modes_are_choices_of_the_modules():
    options = {'block_tuning': block_tuning.tuned_options(), 'kernel': kernel_call.argument_spec()}
    for stage, modes in stages.TUNED_MODES.items():
        choices = options[stage][modes['option']]['choices']
        for override in (True, False):
            for check_mode in (True, False):
                assert stages.tuned_mode(override, stage, check_mode=check_mode) in choices


# ---------------------------------------------------------------------------------------------
# the roles' own variables, rendered by Ansible's templar

OVERRIDES = [True, False, 'false', 'yes', 0]
JOBS = [[JOB], [JOB, JOB]]
BLOCK_TUNING_VARS = {'block_tuning_devices': [{'md_name': 'data', 'read_ahead_kb': 64}]}


@pytest.fixture(scope='module')
def rendered():
    return render_all([('profile', ['profile_tuned_mode'], {'block_tuning_tuned_override': o}) for o in OVERRIDES]
                      + [('block_tuning', ['block_tuning_calls'], dict(BLOCK_TUNING_VARS, block_tuning_tuned_override=o))
                         for o in OVERRIDES]
                      + [('fio_verify', ['fio_verify_problems'], {'fio_verify_jobs': jobs, 'fio_verify_directory': '/d'})
                         for jobs in JOBS]
                      + [('raid0', ['raid0_calls'], {'raid0_arrays': [{'name': 'data', 'devices': ['/dev/vdb', '/dev/vdc']}],
                                                     'raid0_conf_path': None})])


@pytest.mark.parametrize('index', range(len(OVERRIDES)))
def test_the_profile_checks_the_tuning_with_the_block_tuning_stages_mode(rendered, index):
    mode = stages.tuned_mode(OVERRIDES[index], 'block_tuning')
    call = rendered[len(OVERRIDES) + index]['block_tuning_calls']
    assert (rendered[index]['profile_tuned_mode'], call[0]['tuned']) == (mode, mode)


def test_the_fio_verify_role_checks_with_the_plan(rendered):
    got = [case['fio_verify_problems'] for case in rendered[2 * len(OVERRIDES):2 * len(OVERRIDES) + len(JOBS)]]
    assert got == [fio_verify_problems(jobs, {}, '/d') for jobs in JOBS]
    assert got[0] == [] and 'not unique' in got[1][0]


def test_the_raid0_role_calls_with_the_chunk_default(rendered):
    assert rendered[-1]['raid0_calls'][0]['chunk_kb'] == md_array.CHUNK_DEFAULT_KB


# ---------------------------------------------------------------------------------------------
# does this file differ: the config_files module and the preflight's read (files.pending_changes) by one rule

@pytest.mark.parametrize('on_disk, mode, ok', [('a = 1\n', 0o644, True), ('a = 2\n', 0o644, False),
                                               ('a = 1\r\n', 0o644, False), ('a = 1\n', 0o600, False),
                                               (None, None, False)])
def test_a_file_differs_for_the_module_iff_for_the_preflight(tmp_path, on_disk, mode, ok):
    path = str(tmp_path / 'x.conf')
    if on_disk is not None:
        with open(path, 'w', newline='') as f:
            f.write(on_disk)
        os.chmod(path, mode)
    wanted = {'path': path, 'content': 'a = 1\n', 'state': 'present', 'mode': '0644',
              'owner': str(os.getuid()), 'group': str(os.getgid())}
    in_preflight = files.pending_changes([wanted], files.snapshot([path])[path]) == []
    in_module = config_files.ConfigFiles([dict(wanted)], check_mode=True).converge()[0] == []
    assert (in_preflight, in_module) == (ok, ok)
