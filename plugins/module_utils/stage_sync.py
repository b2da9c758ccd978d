# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Is a later stage of the tune role in sync? storage_preflight's ``stages`` option (issue 31).

For each stage the preflight is given the exact options of the module calls that stage would make. ``check``
runs each call here, in the preflight's process, through the same code the module runs (module_utils/md_array.py,
xfs_call.py, udev_tuning.py, kernel_call.py, each call's options validated by that module's own argument spec),
always in check mode and read-only. A stage is in sync when every one of its calls would return changed=false
with no warning and no failure, and nothing the role does after the call would run (a mount, an unmount, a
missing mount point, a THP unit to enable). Anything else, a read that failed included, is "not in sync" with a
short reason, and the role calls its module as before.

Imported only when the preflight is given ``stages`` (its payload compiles the stage code only then).
"""

from __future__ import annotations

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.iotune.storage.plugins.module_utils import block_tuning as bt
from ansible_collections.iotune.storage.plugins.module_utils import fstab
from ansible_collections.iotune.storage.plugins.module_utils import initramfs
from ansible_collections.iotune.storage.plugins.module_utils import kernel_call
from ansible_collections.iotune.storage.plugins.module_utils import kernel_settings as ks
from ansible_collections.iotune.storage.plugins.module_utils import md_array
from ansible_collections.iotune.storage.plugins.module_utils import mdadm
from ansible_collections.iotune.storage.plugins.module_utils import os_release
from ansible_collections.iotune.storage.plugins.module_utils import udev_tuning
from ansible_collections.iotune.storage.plugins.module_utils import xfs_call
from ansible_collections.iotune.storage.plugins.module_utils.device_safety import DeviceError
from ansible_collections.iotune.storage.plugins.module_utils.sysfs_block import SysfsBlockError

__metaclass__ = type

# in the order the tune role runs them
STAGES = ('raid0', 'xfs', 'block_tuning', 'kernel')


class StageError(Exception):
    """A stage check that cannot go on (invalid options, a write attempted): the stage is not in sync."""


def refuse_write(*args, **kwargs):
    """The ``replace``/``atomic_move`` of every stage call here: a check never writes."""
    raise StageError('a stage check tried to write a file')


class StageModule:
    """What a module's call code uses of AnsibleModule, in check mode, over the preflight's module: its
    ``params`` are one stage call's validated options, warnings are collected instead of sent."""

    def __init__(self, module, params):
        self.module = module
        self.params = params
        self.check_mode = True
        self._diff = False
        self.warnings = []

    def warn(self, msg):
        self.warnings.append(msg)

    def get_bin_path(self, name, required=False, opt_dirs=None):
        path = self.module.get_bin_path(name)
        if path is None and required:
            raise StageError('%s is not installed' % name)
        return path

    def run_command(self, argv, **kwargs):
        return self.module.run_command(argv, **kwargs)

    atomic_move = staticmethod(refuse_write)


def validated(spec, options, **rules):
    """``options`` checked by a module's own argument spec (and its required_* rules): the params the module would
    get; raises StageError naming the problems."""
    checked = ArgumentSpecValidator(spec, **rules).validate(dict(options))
    if checked.error_messages:
        raise StageError('invalid options: %s' % '; '.join(checked.error_messages))
    return checked.validated_parameters


def join(reasons):
    return '; '.join(reasons)


# --- raid0: mdadm_array ---------------------------------------------------------------------------------------
def raid0_calls(calls, mdadm_conf, view):
    """The raid0 stage's calls with ``conf_path`` set as the raid0 role sets it: ``mdadm_conf``, or the path of the
    distribution family os-release names (read here: the preflight runs before the role knows the family).
    None when the family is unknown (the stage is then not in sync)."""
    family = os_release.family(view.read)
    if mdadm_conf is None and family is None:
        return None
    conf = mdadm.conf_path(family, mdadm_conf)
    return [dict(call, conf_path=conf) for call in calls]


def raid0_call(module, view, options):
    """(result, reasons) of one mdadm_array call in check mode."""
    module_like = StageModule(module, validated(md_array.argument_spec(), options, required_if=md_array.REQUIRED_IF))
    params = module_like.params
    array = md_array.MdadmArray(params, view, module.run_command, module.get_bin_path('mdadm'),
                                udevadm=module.get_bin_path('udevadm'), check_mode=True, warn=module_like.warn,
                                blockdev=module.get_bin_path('blockdev'), replace=refuse_write)
    result, dummy = array.converge()
    result['changed'] = md_array.MdadmArray.changed(result)
    result['initramfs_generator'] = initramfs.installed_generator()
    result['initramfs_dpkg_pending'] = initramfs.dpkg_rebuild_pending_for(result)
    reasons = ['array %s would be %s' % (params['name'], what)
               for what in ('created', 'assembled', 'stopped') if result[what]]
    if result['conf_changed']:
        reasons.extend(array.conf_problems)
    elif result.get('rebuild_pending'):
        reasons.append('an initramfs rebuild is owed (%s: mdadm.conf changed in a run that did not finish its '
                       'rebuild)' % params['rebuild_marker'])
    reasons.extend('warning: %s' % w for w in module_like.warnings)
    return result, reasons


# --- xfs: xfs_filesystem ---------------------------------------------------------------------------------------
def mount_reasons(view, params, result):
    """Why the xfs role would mount, unmount or make a directory after this call (its result says so)."""
    if not params['mountpoint']:
        return []
    point = fstab.normalise_mountpoint(params['mountpoint'])
    reasons = []
    if not result['mountpoint_exists']:
        reasons.append('mount point %s does not exist' % point)
    for old in sorted(set(result['fstab_elsewhere']) | set(result['mounted_elsewhere'])):
        reasons.append('its filesystem is also on %s (fstab or mounted)' % old)
    if not result['mounted_as_planned'] and result.get('uuid'):
        problem = fstab.planned_line_problem(fstab.entries(view.read(params['fstab'], '') or ''), point,
                                             result['uuid'], params['mount_options'], path=params['fstab'])
        if problem:
            reasons.append(problem)
        if not xfs_call.mounted_here(view, params['device'], point):
            reasons.append('%s is not mounted on %s' % (params['device'], point))
    elif not result['mounted_as_planned']:
        reasons.append('%s is not mounted on %s as planned' % (params['device'], point))
    return reasons


def xfs_one(module, view, options):
    """(result, reasons) of one xfs_filesystem call in check mode, and the xfs role's mount steps after it."""
    module_like = StageModule(module, validated(xfs_call.argument_spec(), options,
                                                required_together=xfs_call.REQUIRED_TOGETHER))
    params = module_like.params
    bins = dict((name, module.get_bin_path(name)) for name in xfs_call.BINS)
    result = xfs_call.filesystem_call(params, view, module.run_command, bins, check_mode=True, warn=module_like.warn)
    reasons = ['no XFS filesystem on %s yet (would be made)' % params['device']] if result['changed'] else []
    if not result['changed']:
        reasons.extend(mount_reasons(view, params, result))
    if result['discard']['fstrim_timer']:
        # the role's enable task runs on this result: a timer disabled by hand is enabled again by the next run
        reasons.append('%s is not enabled and active, the discard policy is %s'
                       % (xfs_call.FSTRIM_TIMER, result['discard']['why']))
    reasons.extend('warning: %s' % w for w in module_like.warnings)
    return result, reasons


# --- block_tuning: udev_block_tuning ---------------------------------------------------------------------------
def block_tuning_one(module, view, options):
    """(result, reasons) of one udev_block_tuning call in check mode (the facts too when asked)."""
    module_like = StageModule(module, validated(udev_tuning.argument_spec(), options))
    result = udev_tuning.UdevTuning(module_like, view).call()
    reasons = []
    if result.get('skipped'):
        reasons.append('skipped (container)')
    if result['rules_changed']:
        reasons.append('%s differs from the plan' % result['rules_file'])
    for name, device in sorted(result['devices'].items()):
        for attr, (want, have) in sorted(bt.compare(device['expected'], device['before']).items()):
            reasons.append('%s %s is %s, planned %s' % (name, attr, have, want))
    if (result['tuned'] or {}).get('override'):
        reasons.append('tuned would overwrite the readahead (override profile)')
    if result['unmatched']:
        reasons.append('no device matches %s' % ', '.join(result['unmatched']))
    if result['changed'] and not reasons:
        reasons.append('udev_block_tuning would change the host')
    reasons.extend('warning: %s' % w for w in module_like.warnings)
    return result, reasons


# --- kernel: kernel_settings -----------------------------------------------------------------------------------
def kernel_one(module, view, options):
    """(result, reasons) of one kernel_settings call in check mode, and whether the kernel role would enable or run
    its THP unit after it (the read before its writes: mode report)."""
    params = validated(kernel_call.argument_spec(), options)
    checker = kernel_call.KernelSettings(params, root=view.root, run=module.run_command,
                                         tuned_adm=module.get_bin_path('tuned-adm'), check_mode=True,
                                         replace=refuse_write, systemctl=module.get_bin_path('systemctl'))
    result = checker.apply()
    reasons = ks.problems(result)
    if result['changed']:
        reasons.append('kernel_settings would change the host (tuned override profile)')
    if params['thp_unit'] and result['thp_unit_enabled'] is not True:
        reasons.append('%s is not enabled' % params['thp_unit'])
    if params['cpu_unit'] and result.get('cpu_unit_enabled') is not True:
        reasons.append('%s is not enabled' % params['cpu_unit'])
    return result, reasons


CALLS = {'raid0': raid0_call, 'xfs': xfs_one, 'block_tuning': block_tuning_one, 'kernel': kernel_one}
FAILURES = (StageError, md_array.ArrayError, xfs_call.FsError, DeviceError, udev_tuning.Failure,
            ks.KernelSettingsError, bt.TuningError, SysfsBlockError, IOError, OSError, ValueError)


def check_stage(module, view, name, calls):
    """{'in_sync', 'calls', 'results', 'why'} of one stage: every call run in check mode, in order."""
    read = {'in_sync': False, 'calls': calls, 'results': [], 'why': None}
    if calls is None:
        read['why'] = 'the distribution family is unknown (no mdadm.conf path)'
        return read
    reasons = []
    for options in calls:
        try:
            result, problems = CALLS[name](module, view, options)
        except xfs_call.FsRefusal:
            raise                           # the plan cannot be carried out here: the preflight refuses the run
        except FAILURES as e:
            read['results'] = []
            read['why'] = 'the module would fail: %s' % e
            return read
        read['results'].append(result)
        reasons.extend(problems)
    read['in_sync'] = not reasons
    read['why'] = join(reasons) if reasons else None
    return read


def check(module, view, stages):
    """``(in_sync, read, why)`` of the preflight's ``stages`` option: the names of the stages in sync (in the
    order of STAGES), each stage's read ({'in_sync', 'calls', 'results', 'why'}) and, by stage not in sync, why."""
    read = {}
    for name in STAGES:
        calls = stages.get(name)
        if calls is None:
            continue
        if name == 'raid0':
            calls = raid0_calls(calls, stages.get('mdadm_conf'), view)
        read[name] = check_stage(module, view, name, calls)
    in_sync = [name for name in STAGES if name in read and read[name]['in_sync']]
    why = dict((name, stage['why']) for name, stage in read.items() if not stage['in_sync'])
    return in_sync, read, why
