#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

__metaclass__ = type

DOCUMENTATION = r"""
---
module: storage_preflight
short_description: Check every planned array against the host before anything changes
version_added: 0.1.0
description:
  - Read-only. Resolves every member device of every planned array once, then checks what only the
    host can tell, for all arrays together, and fails listing every problem before the first change.
  - "Member selectors (C({ebs_volume_id: vol-...}), C({azure_lun: N}), C({gcp_local_ssd: N}),
    C({instance_store: all, count: K})) are resolved first, each to the one stable C(/dev/disk/...) path of
    every disk it names (module_utils/cloud.py, docs/cloud.md). A selector that matches no disk, a single-disk
    selector that matches more than one, an C(instance_store) count that differs, or a matched disk that is
    in use (mounted, swap, held by anything but this array's own md device) is a problem naming the selector.
    RV(resolved) and RV(selections) give the result, also in check mode."
  - Devices. Two paths (in one array or in two) that are the same device (same major:minor); a missing
    path or one that is not a block device; members whose sizes differ by more than 1 %.
  - Arrays. An array C(/dev/md/NAME) that already runs is accepted only when its members are exactly
    the listed devices. Members that all carry this array's md superblock (an array that is not
    running) are left to M(iotune.storage.mdadm_array) to assemble. Every other member must be safe
    to write, by the same rules (the same code) as M(iotune.storage.mdadm_array), that is
    not in use, no signature, no non-zero data, not a partition of a disk in use, unless opted in with
    O(arrays[].wipe_devices) or O(arrays[].allow_shared_disk).
  - Mount points. A mount point already mounted from another device, or given to another device by
    C(/etc/fstab), is refused. An existing directory that is not empty is refused (the mount would hide
    its files, for example an old C(/var/lib/cassandra)) unless O(arrays[].allow_nonempty_mountpoint).
    An existing path that is not a directory is refused.
  - Day two. When the array exists and its filesystem is mounted, or given by C(/etc/fstab), somewhere
    other than O(arrays[].mountpoint) (a changed or mistyped mount point on a converged host), the plan
    is refused, naming both paths. A run never moves a filesystem that holds data unless
    O(arrays[].move_from) names the exact path it is on now; even then it is refused while a process
    holds files under that path (open files, working directory, memory maps).
author:
  - iotune.storage contributors (@iotune)
options:
  arrays:
    description:
      - The planned arrays (C(preflight_arrays) of the P(iotune.storage.tune_plan#filter) filter).
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: Array name (C(/dev/md/NAME)).
        type: str
        required: true
      devices:
        description: Member devices, any path to a block device, or member selectors (dicts, see above).
        type: list
        elements: raw
        required: true
      wipe_devices:
        description: Members the user opted in to wipe (signatures and data); paths or selectors of O(arrays[].devices).
        type: list
        elements: raw
        default: []
      allow_shared_disk:
        description: Partitions accepted as members although their disk has other partitions in use.
        type: list
        elements: raw
        default: []
      allow_single_device:
        description: Accepted for the plan's sake; the single-device rule is checked by the plan.
        type: bool
        default: false
      mountpoint:
        description: Normalised absolute mount point of the array's filesystem.
        type: path
        required: true
      allow_nonempty_mountpoint:
        description: Accept an existing mount point directory that holds files.
        type: bool
        default: false
      move_from:
        description:
          - The opt-in to move the array's existing filesystem to O(arrays[].mountpoint) from this path, where it
            is mounted (or given by C(/etc/fstab)) now. Without it, such a filesystem is never moved.
        type: str
      chunk_kb:
        description: Planned chunk size (reported, not checked here).
        type: int
      label:
        description: Planned filesystem label (reported, not checked here).
        type: str
  fstab:
    description: Path of the fstab file.
    type: path
    default: /etc/fstab
  resolve_only:
    description:
      - Only resolve the member selectors (and refuse the ones that match wrongly or name a disk in use); skip
        the other checks. The profile role uses it when C(profile_preflight) is off.
    type: bool
    default: false
  unresolved:
    description:
      - What to do with a member selector that cannot be resolved (matches no disk, more than one, or a disk
        in use) when O(resolve_only=true).
      - V(fail) refuses, naming the selector.
      - V(report) leaves that selector out of RV(resolved) and names it in RV(unresolved); the fleet audit
        uses it to report a detached cloud disk as drift.
      - Without O(resolve_only), every problem refuses.
    type: str
    choices: [fail, report]
    default: fail
  tuning:
    description:
      - The tuning plan to check against this host's devices in the same call, as
        M(iotune.storage.udev_block_tuning) does with O(iotune.storage.udev_block_tuning#module:validate_only=true)
        (the same code). Keys C(devices), entries of that module's O(iotune.storage.udev_block_tuning#module:devices)
        option, checked by the same argument spec, and C(tuned) (V(fail), the default, V(override) or V(ignore)).
      - md arrays that the same play creates may be missing; every other selector must match a device. With
        C(tuned=fail), an active tuned profile whose C([disk]) readahead would overwrite the values is a problem.
      - The profile role passes the plan's C(block_tuning_devices) here when no member selector needs resolving
        first (one round trip less).
    type: dict
  os_facts:
    description:
      - Also return the distribution facts (C(os_family), C(distribution), C(distribution_version), ...) as
        C(ansible_facts), computed by the same code as M(ansible.builtin.setup), so that the roles after the
        profile role need no C(setup) call of their own (one round trip less per run).
    type: bool
    default: false
  packages:
    description:
      - Packages whose installation state is read with C(dpkg-query) on hosts that have it (Debian family), in
        the same call; RV(packages_missing) lists those not installed. The tune role passes the packages of the
        raid0 stage, which then needs no C(dpkg-query) call of its own.
    type: list
    elements: str
    default: []
  files:
    description:
      - Shell patterns (C(glob)) of absolute paths; RV(files) returns, for each, the state of every existing path
        that matches (sha1, mode, owner), read in the same call.
      - The tune role passes the files its kernel, xfs and ephemeral stages keep (sysctl file, THP unit,
        drop-ins, boot units); a stage whose files all match what it would write needs no call of its own.
    type: list
    elements: str
  services:
    description:
      - systemd units that the arrays' mounts hold back (the tune plan's C(services)); RV(services_missing) lists
        those systemd does not know on this host, each also as a warning - a typo, or a database not installed
        yet (its drop-in is written anyway and takes effect once it is). Read with one C(systemctl show) call.
    type: list
    elements: str
    default: []
notes:
  - Runs C(blkid) and C(wipefs --no-act) with argument lists (C(dpkg-query) with O(packages), C(systemctl show)
    with O(services)); reads sysfs,
    C(/proc/self/mountinfo), C(/proc/swaps), the fstab file and the files of O(files); writes nothing.
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.platform
  - iotune.storage.attributes.read_only
  - iotune.storage.attributes.facts
attributes:
  facts:
    support: full
    details: With O(os_facts=true) only, the distribution facts of M(ansible.builtin.setup).
seealso:
  - module: iotune.storage.mdadm_array
  - module: iotune.storage.xfs_filesystem
"""

EXAMPLES = r"""
- name: Check the plan against the host (changes nothing)
  iotune.storage.storage_preflight:
    arrays:
      - name: data
        devices: [/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0,
                  /dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0fedcba9876543210]
        mountpoint: /var/lib/cassandra
"""

RETURN = r"""
arrays:
  description: What the host holds for each planned array.
  returned: success
  type: list
  elements: dict
  contains:
    name:
      description: Array name.
      type: str
    state:
      description: V(running) (the array runs on the listed members), V(assemble) (the members carry
        its superblock) or V(create) (blank members, checked).
      type: str
    members:
      description: Each member as given, resolved, with its kernel name and size.
      type: list
      elements: dict
    mountpoint:
      description:
        - The mount point and what is there now; C(elsewhere) lists the other paths the array's filesystem is
          mounted on or given by C(/etc/fstab) (where O(arrays[].move_from) would move it from).
      type: dict
  sample:
    - name: data
      state: create
      members: [{given: /dev/disk/by-id/virtio-a, resolved: /dev/vdb, kname: vdb, size_bytes: 1073741824}]
      mountpoint: {path: /var/lib/cassandra, exists: false, mounted_from: null, fstab_spec: null, elsewhere: []}
resolved:
  description:
    - By array name, C(devices), C(wipe_devices) and C(allow_shared_disk) with every selector replaced by
      the stable paths it resolved to (paths given as paths are kept). The input of the
      P(iotune.storage.tune_plan#filter) filter's C(resolved) option.
  returned: success
  type: dict
  sample: {data: {devices: [/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0],
                  wipe_devices: [], allow_shared_disk: []}}
selections:
  description: One entry per selector, C(array), C(selector) (as C(key=value)) and C(devices) (C(path), C(kname)).
  returned: always
  type: list
  elements: dict
  sample:
    - array: data
      selector: instance_store=all
      devices: [{path: /dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWS1, kname: nvme1n1}]
unresolved:
  description: With O(unresolved=report), each selector that could not be resolved, as C(array) and C(problem).
  returned: success
  type: list
  elements: dict
  sample:
    - array: data
      problem: 'ebs_volume_id=vol-0123456789abcdef0 matches no disk on this host (cloud disks seen: ...)'
tuning_checked:
  description: Whether O(tuning) was given and checked in this call (the profile role then needs no separate check).
  returned: success
  type: bool
packages_missing:
  description:
    - The names of O(packages) that C(dpkg-query) does not show as installed; V(null) on a host without
      C(dpkg-query) (the roles then install with the distribution's package module).
  returned: success
  type: list
  elements: str
  sample: [mdadm]
services_missing:
  description:
    - The units of O(services) that systemd does not know (C(LoadState=not-found)); V(null) on a host without
      C(systemctl) or where it cannot answer (a container without systemd).
  returned: success
  type: list
  elements: str
  sample: [cassandara.service]
files:
  description:
    - With O(files), by pattern, one entry per existing path that matches, sorted by path, with the keys of
      M(ansible.builtin.find)'s results C(path), C(checksum) (sha1, regular files only), C(mode), C(pw_name),
      C(gr_name), C(uid), C(gid), C(islnk), C(isreg) and C(isdir). V(null) without O(files).
  returned: success
  type: dict
  sample:
    /etc/sysctl.d/90-iotune-storage.conf:
      - {path: /etc/sysctl.d/90-iotune-storage.conf, checksum: 3f786850e387550fdab836ed7e6dc881de23001b,
         mode: '0644', pw_name: root, gr_name: root, uid: 0, gid: 0, islnk: false, isreg: true, isdir: false}
ansible_facts:
  description: With O(os_facts=true), the distribution facts, as M(ansible.builtin.setup) gathers them.
  returned: success and O(os_facts=true)
  type: dict
  sample: {os_family: Debian, distribution: Debian, distribution_major_version: '12'}
problems:
  description: Every problem found (the module fails when there is one).
  returned: failure
  type: list
  elements: str
"""

import copy
import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.facts.system.distribution import Distribution

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.iotune.storage.plugins.module_utils import block_tuning as bt
from ansible_collections.iotune.storage.plugins.module_utils import cloud
from ansible_collections.iotune.storage.plugins.module_utils import device_safety as ds
from ansible_collections.iotune.storage.plugins.module_utils import files as fileutil
from ansible_collections.iotune.storage.plugins.module_utils import fstab
from ansible_collections.iotune.storage.plugins.module_utils import holders
from ansible_collections.iotune.storage.plugins.module_utils import tuned
from ansible_collections.iotune.storage.plugins.module_utils.host import BlockHost


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


def main():
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
    module = AnsibleModule(
        argument_spec=dict(
            arrays=dict(type='list', elements='dict', required=True, options=array_spec),
            fstab=dict(type='path', default='/etc/fstab'),
            resolve_only=dict(type='bool', default=False),
            unresolved=dict(type='str', choices=['fail', 'report'], default='fail'),
            tuning=dict(type='dict'),
            os_facts=dict(type='bool', default=False),
            packages=dict(type='list', elements='str', default=[]),
            files=dict(type='list', elements='str'),
            services=dict(type='list', elements='str', default=[]),
        ),
        supports_check_mode=True,
    )
    view = BlockHost(run_command=module.run_command,
                     blkid=module.get_bin_path('blkid', required=True),
                     wipefs=module.get_bin_path('wipefs') or 'wipefs')
    preflight = Preflight(module.params, view)
    tuning_problems = []
    if module.params['tuning'] is not None:
        tuning_problems = check_tuning(module.params['tuning'], view, module.get_bin_path, module.run_command,
                                       module.warn)
    try:
        arrays = preflight.run()
        if tuning_problems:
            raise PreflightError([], arrays)
    except (PreflightError, ds.DeviceError) as failure:
        problems = getattr(failure, 'problems', [str(failure)]) + tuning_problems
        module.fail_json(msg='preflight refused the plan (nothing was changed): %s' % '; '.join(problems),
                         problems=problems, arrays=getattr(failure, 'arrays', []), selections=preflight.selections)
    extra = {'files': None}
    if module.params['files'] is not None:
        try:
            extra['files'] = fileutil.snapshot(module.params['files'])
        except (ValueError, IOError, OSError) as e:
            module.fail_json(msg='preflight could not read the files: %s' % e)
    if module.params['os_facts']:
        extra['ansible_facts'] = Distribution(module=module).get_distribution_facts()
    missing_services = unknown_units(module, module.params['services'])
    for unit in missing_services or []:
        module.warn('service %s is not known to systemd on this host: a typo, or not installed yet (the drop-in that '
                    'holds it until its mount is written anyway and takes effect once it is installed)' % unit)
    module.exit_json(changed=False, arrays=arrays, resolved=preflight.resolved, selections=preflight.selections,
                     services_missing=missing_services,
                     unresolved=preflight.unresolved if module.params['unresolved'] == 'report' else [],
                     tuning_checked=module.params['tuning'] is not None,
                     packages_missing=missing_packages(module, module.params['packages']), **extra)


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
    dummy, out, dummy2 = module.run_command([dpkg_query, '--show', '--showformat=${Package} ${Status}\n'] + names)
    return dpkg_missing(names, out)


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
    blocks = [dict(line.split('=', 1) for line in block.splitlines() if '=' in line)
              for block in out.strip().split('\n\n')] if out.strip() else []
    if len(blocks) != len(names):
        return None
    return [name for name, block in zip(names, blocks) if block.get('LoadState') == 'not-found']


def dpkg_missing(names, out):
    installed = set(line.split(' ', 1)[0] for line in out.splitlines() if line.endswith(' install ok installed'))
    return [name for name in names if name not in installed]


if __name__ == '__main__':
    main()
