# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One call of the storage_preflight module: read-only checks of the plan on the host, which raise.

``Preflight`` resolves the member selectors and the members of every array, then checks each array's state and
mount point (``PreflightError`` lists every problem). ``check_tuning`` checks a tuning plan by udev_block_tuning's
validate code. ``preflight_call`` is the whole call in the order the module takes it (tuning, arrays, files,
OS facts, services, packages); it raises ``PreflightFailure``, whose message and data go into ``fail_json``.
``argument_spec`` is the module's options.
"""

from __future__ import annotations

import copy
import os

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.iotune.storage.plugins.module_utils import block_tuning as bt
from ansible_collections.iotune.storage.plugins.module_utils import cloud
from ansible_collections.iotune.storage.plugins.module_utils import device_safety as ds
from ansible_collections.iotune.storage.plugins.module_utils import dpkg
from ansible_collections.iotune.storage.plugins.module_utils import files as fileutil
from ansible_collections.iotune.storage.plugins.module_utils import fstab
from ansible_collections.iotune.storage.plugins.module_utils import holders
from ansible_collections.iotune.storage.plugins.module_utils import io_observe
from ansible_collections.iotune.storage.plugins.module_utils import mdadm
from ansible_collections.iotune.storage.plugins.module_utils import mount_holds
from ansible_collections.iotune.storage.plugins.module_utils import os_release, systemd_show
from ansible_collections.iotune.storage.plugins.module_utils import retire
from ansible_collections.iotune.storage.plugins.module_utils import tuned


class PreflightError(Exception):
    def __init__(self, problems, arrays=None):
        self.problems = problems
        self.arrays = arrays or []
        super(PreflightError, self).__init__('; '.join(problems))


class Preflight:
    def __init__(self, params, view):
        self.params = copy.deepcopy(params)
        self.view = view
        self.problems = []
        self.resolved = {}
        self.selections = []
        self.unresolved = []

    def selector_problem(self, array, problem):
        self.unresolved.append({'array': array['name'], 'problem': problem})
        self.problems.append("array '%s': %s" % (array['name'], problem))

    # --- member selectors ---------------------------------------------------------------------------
    def selected(self, array, selector):
        """Stable paths of the disks ``selector`` names for ``array``; problems name the selector."""
        what = cloud.describe(selector)
        try:
            found = cloud.resolve(self.view, selector)
        except cloud.SelectorError as e:
            self.selector_problem(array, str(e))
            return []
        own = self.md_device(array['name'])
        paths = []
        for kname, path in found:
            try:
                dev = ds.resolve(self.view, path)
            except ds.DeviceError as e:
                self.selector_problem(array, '%s: %s' % (what, e))
                continue
            reasons = ds.usage(self.view, dev)
            if own is not None and self.view.holders(dev.kname) == [own.kname]:
                # a member of this very array (a re-run): the array checks below judge it
                reasons = [r for r in reasons if not r.startswith('held by')]
            if reasons:
                self.selector_problem(array, '%s names %s, which is in use (%s); a disk in use is never made a member'
                                      % (what, dev.label, '; '.join(reasons)))
                continue
            paths.append((path, kname))
        self.selections.append({'array': array['name'], 'selector': cloud.describe(selector),
                                'devices': [{'path': p, 'kname': k} for p, k in paths]})
        return [p for p, dummy in paths]

    def resolve_selectors(self):
        """Replace every member selector by its stable paths, in place; fills ``resolved``."""
        for array in self.params['arrays']:
            by_selector = {}
            devices = []
            for item in array['devices']:
                if not cloud.is_selector(item):
                    devices.append(item)
                    continue
                try:
                    selector = cloud.parse_selector(item)
                except cloud.SelectorError as e:
                    self.selector_problem(array, str(e))
                    continue
                by_selector[cloud.describe(selector)] = self.selected(array, selector)
                devices.extend(by_selector[cloud.describe(selector)])
            array['devices'] = devices
            for key in ('wipe_devices', 'allow_shared_disk'):
                values = []
                for item in array[key]:
                    if not cloud.is_selector(item):
                        values.append(item)
                        continue
                    try:
                        values.extend(by_selector.get(cloud.describe(cloud.parse_selector(item)), []))
                    except cloud.SelectorError as e:
                        self.problems.append("array '%s': %s: %s" % (array['name'], key, e))
                array[key] = values
            self.resolved[array['name']] = dict((key, list(array[key])) for key in
                                                ('devices', 'wipe_devices', 'allow_shared_disk'))

    # --- devices ---------------------------------------------------------------------------------
    def resolve_members(self):
        """{array name: [BlockDevice]}; aliases across all arrays are one problem each."""
        everything = []
        owner = []
        for array in self.params['arrays']:
            for given in array['devices']:
                everything.append(given)
                owner.append(array['name'])
        devices, errors = ds.resolve_all(self.view, everything)
        self.problems.extend(errors)
        by_given = dict((d.given, d) for d in devices)
        members = {}
        for array in self.params['arrays']:
            members[array['name']] = [by_given[g] for g in array['devices'] if g in by_given]
        return members

    def majmins(self, paths, members):
        """major:minor of opt-in paths: a member as given, or any other alias of one (resolved)."""
        by_given = dict((m.given, m.majmin) for m in members)
        result = set()
        for given in paths:
            if given in by_given:
                result.add(by_given[given])
                continue
            try:
                result.add(ds.resolve(self.view, given).majmin)
            except ds.DeviceError:
                continue     # not a device: nothing to allow
        return result

    def md_device(self, name):
        path = '/dev/md/%s' % name
        if not self.view.exists(path):
            return None
        try:
            return ds.resolve(self.view, path)
        except ds.DeviceError:
            return None

    def slaves(self, md):
        return set(self.view.majmin_of(n) for n in self.view.slaves(md.kname))

    def carries_superblock_of(self, dev, name):
        probe = self.view.blkid_probe(dev.resolved)
        label = probe.get('LABEL', '')
        return probe.get('TYPE') == 'linux_raid_member' and (label == name or label.endswith(':' + name))

    def array_state(self, array, members):
        """'running', 'assemble' or 'create'; adds problems."""
        name = array['name']
        where = "array '%s'" % name
        md = self.md_device(name)
        if md is not None:
            running_on = self.slaves(md)
            if running_on == set(m.majmin for m in members) and len(members) == len(array['devices']):
                return 'running', md
            names = ', '.join(sorted('/dev/%s' % self.view.kname_for(mm) for mm in running_on if mm)) or 'no members'
            self.problems.append('%s: /dev/md/%s already runs on %s, not on the listed devices %s; it is never '
                                 're-created: stop it yourself or list its members'
                                 % (where, name, names, ', '.join(array['devices'])))
            return 'conflict', md
        if len(members) != len(array['devices']):
            return 'unresolved', None
        try:
            if members and all(self.carries_superblock_of(m, name) for m in members):
                return 'assemble', None
        except ds.DeviceError as e:
            self.problems.append('%s: %s' % (where, e))
            return 'unresolved', None
        mismatch = ds.size_mismatch(members)
        if mismatch:
            self.problems.append('%s: %s' % (where, mismatch))
        refusals, dummy = ds.check_writable(self.view, members, self.majmins(array['wipe_devices'], members),
                                            allowed_shared=self.majmins(array['allow_shared_disk'], members))
        self.problems.extend('%s: %s' % (where, r) for r in refusals)
        return 'create', None

    # --- mount points ----------------------------------------------------------------------------
    def fs_uuid(self, md):
        if md is None:
            return None
        try:
            return self.view.blkid_probe(md.resolved).get('UUID')
        except ds.DeviceError:
            return None

    def gone_hint(self, source):
        """Why an fstab line may name a filesystem that no longer exists (an instance store after a stop/start)."""
        if not source.startswith('UUID='):
            return ''
        uuid = source[len('UUID='):]
        if os.path.lexists(self.view.path('/dev/disk/by-uuid/%s' % uuid)):
            return ''
        return ('; no filesystem with UUID %s is on this host now (a detached disk, or an instance store that came '
                'back blank after a stop/start): if it is gone for good, delete the line and the ARRAY line of the '
                "array in mdadm.conf" % uuid)

    def check_mountpoint(self, array, md, fstab_lines):
        where = "array '%s'" % array['name']
        path = array['mountpoint']
        found = {'path': path, 'exists': False, 'mounted_from': None, 'fstab_spec': None, 'elsewhere': []}
        ours = md.majmin if md is not None else None
        mounted_here = False
        elsewhere = {}
        for major, minor, mountpoint, source in self.view.mounts():
            if mountpoint != path:
                continue
            found['mounted_from'] = source or '%d:%d' % (major, minor)
            if (major, minor) == ours:
                mounted_here = True
            else:
                self.problems.append('%s: %s is already mounted from %s (%d:%d); the array would be mounted '
                                     'over it' % (where, path, found['mounted_from'], major, minor))
        uuid = self.fs_uuid(md)
        mine = set(['UUID=%s' % uuid, '/dev/md/%s' % array['name']]) if uuid else set()
        for line in fstab_lines:
            if line['mountpoint'] != path:
                if line['source'] in mine:
                    elsewhere.setdefault(line['mountpoint'], []).append('/etc/fstab line %d' % line['number'])
                continue
            found['fstab_spec'] = line['source']
            if line['source'] not in mine:
                self.problems.append('%s: /etc/fstab line %d gives %s to %s; remove or change that line first '
                                     '(it is never rewritten)%s' % (where, line['number'], path, line['source'],
                                                                    self.gone_hint(line['source'])))
        # the filesystem's root mounted elsewhere (a bind mount of a directory inside it is no move)
        for major, minor, mountpoint, source in self.view.mounts(root_only=True):
            if ours is not None and (major, minor) == ours and mountpoint != path:
                elsewhere.setdefault(mountpoint, []).insert(0, 'mounted there')
        found['elsewhere'] = sorted(elsewhere)
        if elsewhere:
            self.check_move(array, md, elsewhere)
        full = self.view.path(path)
        if os.path.lexists(full):
            found['exists'] = True
            if not os.path.isdir(full) or os.path.islink(full):
                self.problems.append('%s: %s exists and is not a directory' % (where, path))
            elif not mounted_here and not array['allow_nonempty_mountpoint']:
                try:
                    entries = sorted(os.listdir(full))
                except OSError as e:
                    entries = []
                    self.problems.append('%s: cannot list %s: %s' % (where, path, e))
                if entries:
                    shown = ', '.join(entries[:3]) + (', ...' if len(entries) > 3 else '')
                    self.problems.append('%s: %s is not empty (%d entries: %s); mounting the array there would hide '
                                         'them: move them away, or set allow_nonempty_mountpoint: true'
                                         % (where, path, len(entries), shown))
        return found

    def check_move(self, array, md, elsewhere):
        """The filesystem of an existing array is on other paths than the planned one: a move, which needs
        move_from naming the path it is on, and nobody using files there."""
        where = "array '%s'" % array['name']
        shown = '; '.join('%s (%s)' % (p, ', '.join(how)) for p, how in sorted(elsewhere.items()))
        if array.get('move_from') not in elsewhere:
            self.problems.append(
                "%s: its filesystem is on %s, not on the planned mountpoint %s; a run never moves a filesystem "
                "that holds data: correct mountpoint (a typo?), or set move_from: %s on the array to move it"
                % (where, shown, array['mountpoint'], sorted(elsewhere)[0]))
            return
        if len(elsewhere) > 1:
            self.problems.append('%s: its filesystem is on %s; move_from names only %s: put the others right by '
                                 'hand first' % (where, shown, array['move_from']))
        users, dummy = holders.file_holders(self.view.proc_root, os.makedev(*md.majmin), array['move_from'])
        if users:
            self.problems.append(
                '%s: move_from %s: %d process(es) use files there: %s; stop them before the filesystem is moved'
                % (where, array['move_from'], len(users),
                   ', '.join('pid %d (%s, %s %s)' % (u['pid'], u['comm'], u['how'], u['path']) for u in users)))

    # --- all --------------------------------------------------------------------------------------
    def run(self):
        self.resolve_selectors()
        if self.params.get('resolve_only'):
            if self.params.get('unresolved') == 'report' and len(self.problems) == len(self.unresolved):
                return []
            if self.problems:
                raise PreflightError(self.problems)
            return []
        members = self.resolve_members()
        lines = fstab.entries(self.view._read(self.params['fstab'], '') or '')
        report = []
        for array in self.params['arrays']:
            state, md = self.array_state(array, members[array['name']])
            mount = self.check_mountpoint(array, md, lines)
            report.append({'name': array['name'], 'state': state, 'mountpoint': mount,
                           'members': [{'given': m.given, 'resolved': m.resolved, 'kname': m.kname,
                                        'size_bytes': m.size_bytes} for m in members[array['name']]]})
        if self.problems:
            raise PreflightError(self.problems, report)
        return report


# the options of retire_array the preflight sets itself, the same for every entry (retire.mdadm_conf,
# retire.rebuild_marker, retire.keep_services, fstab)
RETIRE_PATHS = ('conf_path', 'rebuild_marker', 'fstab', 'keep_services')


def argument_spec():
    """The storage_preflight module's options."""
    array_spec = dict(
        name=dict(type='str', required=True),
        devices=dict(type='list', elements='raw', required=True),
        wipe_devices=dict(type='list', elements='raw', default=[]),
        allow_shared_disk=dict(type='list', elements='raw', default=[]),
        allow_single_device=dict(type='bool', default=False),
        mountpoint=dict(type='path', required=True),
        allow_nonempty_mountpoint=dict(type='bool', default=False),
        move_from=dict(type='str'),
        chunk_kb=dict(type='int'),
        label=dict(type='str'),
    )
    return dict(
        arrays=dict(type='list', elements='dict', required=True, options=array_spec),
        fstab=dict(type='path', default='/etc/fstab'),
        resolve_only=dict(type='bool', default=False),
        unresolved=dict(type='str', choices=['fail', 'report'], default='fail'),
        tuning=dict(type='dict'),
        os_facts=dict(type='bool', default=False),
        packages=dict(type='list', elements='str', default=[]),
        files=dict(type='list', elements='str'),
        services=dict(type='list', elements='str', default=[]),
        observe_unit=dict(type='str'),
        stages=dict(type='dict', options=dict(raid0=dict(type='list', elements='dict'),
                                              mdadm_conf=dict(type='str'),
                                              xfs=dict(type='list', elements='dict'),
                                              block_tuning=dict(type='list', elements='dict'),
                                              kernel=dict(type='list', elements='dict'))),
        retire=dict(type='dict', options=dict(
            arrays=dict(type='list', elements='dict', default=[], options=dict(
                (key, spec) for key, spec in retire.argument_spec().items() if key not in RETIRE_PATHS)),
            mdadm_conf=dict(type='path'), rebuild_marker=dict(type='path'),
            keep_services=dict(type='list', elements='str', default=[]))),
        holds=dict(type='dict', options=dict(keep=dict(type='list', elements='str', default=[]),
                                             release=dict(type='list', elements='str', default=[]),
                                             mounts=dict(type='dict'))),
    )


class PreflightFailure(Exception):
    """The module call fails; ``data`` goes into the result of ``fail_json`` beside the message."""

    def __init__(self, msg, **data):
        super(PreflightFailure, self).__init__(msg)
        self.data = data


def preflight_call(module, view):
    """The result of one storage_preflight call on ``view`` (a BlockHost); raises PreflightFailure."""
    params = module.params
    preflight = Preflight(params, view)
    arrays = checked_arrays(preflight, module)
    extra = {'files': None}
    if params['files'] is not None:
        try:
            extra['files'] = fileutil.snapshot(params['files'])
        except (ValueError, IOError, OSError) as e:
            raise PreflightFailure('preflight could not read the files: %s' % e)
    if params['os_facts']:
        extra['ansible_facts'] = os_facts(module, view)
    retired = retire_reads(module, view, params['retire'])
    if params['holds'] is not None:
        # a retire removes the holds on the mount points of its array itself, after unmounting it: not dropped
        dropped = dropped_holds(view, params['holds']['keep'], params['holds']['release'], params['holds']['mounts'],
                                retiring=[p for r in retired for p in r['mountpoints']])
        if dropped:
            raise PreflightFailure('preflight refused the plan (nothing was changed): %s' % '; '.join(dropped),
                                   problems=dropped)
    if params['observe_unit']:
        # the tune and audit roles' observation windows read this unit's processes (io_observe): one that does not run
        # is bad input, refused here with the rest before any change rather than by the first window
        try:
            io_observe.unit_cgroup(view, params['observe_unit'], module.run_command)
        except io_observe.ObserveError as e:
            raise PreflightFailure('preflight refused the plan (nothing was changed): iotune_observe_unit: %s' % e,
                                   problems=['iotune_observe_unit: %s' % e])
    missing_services = unknown_units(module, params['services'])
    for unit in missing_services or []:
        module.warn('service %s is not known to systemd on this host: a typo, or not installed yet (the drop-in that '
                    'holds it until its mount is written anyway and takes effect once it is installed)' % unit)
    result = dict(changed=False, arrays=arrays, resolved=preflight.resolved, selections=preflight.selections,
                  services_missing=missing_services,
                  unresolved=preflight.unresolved if params['unresolved'] == 'report' else [],
                  tuning_checked=params['tuning'] is not None,
                  packages_missing=missing_packages(module, params['packages']), retire=retired)
    result.update(extra)
    if params.get('stages') is not None:
        stages = stage_results(module, view, params['stages'])
        if 'ansible_facts' in stages:
            result.setdefault('ansible_facts', {}).update(stages.pop('ansible_facts'))
        result.update(stages)
    return result


def stage_results(module, view, stages):
    """stages_in_sync, stages_read and stages_why of the ``stages`` option (module_utils/stage_sync.py, imported
    only here: without ``stages`` the call compiles none of the stage code); with the block_tuning stage in sync and
    its facts asked for, ansible_facts.iotune_readahead of the same read."""
    from ansible_collections.iotune.storage.plugins.module_utils import stage_sync  # pylint: disable=import-outside-toplevel
    try:
        in_sync, read, why = stage_sync.check(module, view, stages)
    except stage_sync.xfs_call.FsRefusal as e:
        problem = 'xfs: %s' % e
        raise PreflightFailure('preflight refused the plan (nothing was changed): %s' % problem, problems=[problem])
    result = {'stages_in_sync': in_sync, 'stages_read': read, 'stages_why': why}
    if 'block_tuning' in in_sync:
        facts = read['block_tuning']['results'][0].get('ansible_facts')
        if facts:
            result['ansible_facts'] = facts
    return result


def os_facts(module, view):
    """{'os_family': ...} from os-release for the families the collection knows; ansible-core's distribution facts
    otherwise (imported only then: that import is the biggest part of this module's payload)."""
    known = os_release.family(view.read)
    if known is not None:
        return {'os_family': known}
    from ansible.module_utils.facts.system.distribution import Distribution  # pylint: disable=import-outside-toplevel
    return Distribution(module=module).get_distribution_facts()


def retire_reads(module, view, options):
    """What each retire of ``options`` (the ``retire`` option) would do, by retire_array's own code in check mode;
    a refusal of any raises PreflightFailure, before the first change of the run. [] without retires."""
    if not options or not options['arrays']:
        return []
    conf = mdadm.conf_path(os_release.family(view.read), options['mdadm_conf'])
    bins = {'systemctl': module.get_bin_path('systemctl')}
    reads, problems = [], []
    for entry in options['arrays']:
        params = dict(entry, conf_path=conf, rebuild_marker=options['rebuild_marker'], fstab=module.params['fstab'],
                      keep_services=options['keep_services'])
        try:
            result = retire.ArrayRetire(params, view, module.run_command, bins, check_mode=True).call()
        except retire.RetireError as e:
            problems.extend(e.data.get('problems') or [str(e)])
            continue
        result.pop('diff', None)
        reads.append(result)
    if problems:
        raise PreflightFailure('preflight refused the plan (nothing was changed): %s' % '; '.join(problems),
                               problems=problems)
    return reads


def dropped_holds(view, keep, release, mounts=None, retiring=()):
    """Problems: the holds an earlier run wrote on a mount point that is mounted now and that this plan drops: the
    unit is not in ``keep`` (the plan's services), or, with ``mounts`` ({unit: [mount points]}, what the plan holds
    each unit for), the plan holds it elsewhere only; ``release`` (iotune_release_holds) lets a unit go. The xfs role
    rewrites or removes such a drop-in: after a boot without that filesystem the unit would start on the empty
    directory below it."""
    wanted = set(io_observe.unit_name(u) for u in list(keep) + list(mounts or {}))
    released = set(io_observe.unit_name(u) for u in release)
    planned = {}
    for unit, points in (mounts or {}).items():
        planned.setdefault(io_observe.unit_name(unit), set()).update(p.rstrip('/') or '/' for p in points)
    mounted = set(mount[2] for mount in view.mounts())
    top = view.path(mount_holds.DIR)
    problems = []
    for entry in sorted(os.listdir(top)) if os.path.isdir(top) else []:
        unit = entry[:-2]
        if not entry.endswith('.d') or unit in released:
            continue
        path = mount_holds.path(unit)
        text = view.read(path)
        if text is None:
            continue
        live = [where for where in mount_holds.held_mounts(text) if (where.rstrip('/') or '/') in mounted
                and (where.rstrip('/') or '/') not in retiring]
        if unit in wanted and mounts is not None:
            live = [where for where in live if (where.rstrip('/') or '/') not in planned.get(unit, ())]
        elif unit in wanted:
            live = []
        if live:
            problems.append('the plan drops the mount hold of %s on %s (%s), which is mounted now: without it %s can '
                            'start on the empty directory after a boot without that filesystem; keep its array and '
                            'the unit in iotune_arrays, or give iotune_release_holds: [%s]'
                            % (unit, ', '.join(live), path, unit, unit))
    return problems


def checked_arrays(preflight, module):
    """The arrays' report of ``preflight.run()``, the tuning plan checked first; every problem raises."""
    params = module.params
    tuning_problems = []
    if params['tuning'] is not None:
        tuning_problems = check_tuning(params['tuning'], preflight.view, module.get_bin_path, module.run_command,
                                       module.warn)
    try:
        arrays = preflight.run()
        if tuning_problems:
            raise PreflightError([], arrays)
    except (PreflightError, ds.DeviceError) as failure:
        problems = getattr(failure, 'problems', [str(failure)]) + tuning_problems
        raise PreflightFailure('preflight refused the plan (nothing was changed): %s' % '; '.join(problems),
                               problems=problems, arrays=getattr(failure, 'arrays', []),
                               selections=preflight.selections)
    return arrays


def check_tuning(tuning, host, get_bin_path, run_command, warn):
    """The problems of a tuning plan on this host (udev_block_tuning validate_only, the same code)."""
    spec = dict(devices=bt.devices_option(), **bt.tuned_options())
    checked = ArgumentSpecValidator(spec).validate(tuning)
    if checked.error_messages:
        return ['tuning: %s' % message for message in checked.error_messages]
    params = checked.validated_parameters
    try:
        plan = bt.host_plan(params['devices'], host, allow_unmatched=bt.VALIDATE_UNMATCHED)
    except bt.TuningError as e:
        return [str(e)]
    for warning in plan['warnings']:
        warn(warning)
    info, conflicts = tuned.readahead_state(
        plan['expected'], get_bin_path, run_command, os.path.join('/', tuned.TUNED_ETC),
        tuple(os.path.join('/', d) for d in tuned.TUNED_DIRS))
    if conflicts and params['tuned'] == 'fail':
        return [tuned.readahead_refusal(info, conflicts, params['tuned_profile'])]
    return []


def missing_packages(module, names):
    """Names dpkg-query does not show as `install ok installed`; None without dpkg-query."""
    dpkg_query = module.get_bin_path('dpkg-query')
    if dpkg_query is None:
        return None
    if not names:
        return []
    # rc is 1 when a name is unknown to dpkg: its line is missing, the others are still printed
    dummy, out, dummy2 = module.run_command(dpkg.query_argv(names, dpkg_query))
    return dpkg.missing(names, out)


def unknown_units(module, names):
    """The units of ``names`` whose LoadState is not-found; None without systemctl or when it cannot answer."""
    systemctl = module.get_bin_path('systemctl')
    if systemctl is None:
        return None
    if not names:
        return []
    rc, out, dummy = module.run_command([systemctl, 'show', '--property=Id,LoadState', '--'] + list(names))
    return units_not_found(names, out) if rc == 0 else None


def units_not_found(names, out):
    """``systemctl show --property=Id,LoadState -- NAMES`` prints one block per name, in order, separated by a blank
    line; Id is the unit's full name (cassandra -> cassandra.service)."""
    blocks = systemd_show.blocks(out)
    if len(blocks) != len(names):
        return None
    return [name for name, block in zip(names, blocks) if block.get('LoadState') == 'not-found']
