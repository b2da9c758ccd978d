# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The input battery (issue 23): bad and tricky tune variables, one table, each case its own test id.

Every case goes through the filter the profile role calls (``tune_plan`` with the profile file's data, the overrides,
the arrays, the extra tuning, the MongoDB version and the ``iotune_*`` names set). Cases that only the host can
decide (aliases, signatures, data, partitions of a disk in use, mount points) then run the storage_preflight logic
on the fake host of the unit tests. Outcomes (docs/safety.md, "The input battery"):

- ``refused``: the run stops before any change, and the message names the culprit (``expect`` is a substring);
- ``accepted``: a valid but tricky input passes, and the value in the plan is the one given (``expect`` is
  (path in the plan, value));
- ``coerced``: a documented normalisation; ``expect`` is (path in the plan, what the input becomes).

A case marked xfail(strict) is a gap of the current code: it asserts what should happen, fails today, and fails
loudly (XPASS) once the code is fixed, so that the mark is removed with the fix.
"""

from __future__ import annotations

import os

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.tune_plan import tune_plan
from ansible_collections.iotune.storage.plugins.module_utils.preflight import Preflight, PreflightError

PROFILES = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'roles', 'profile', 'vars', 'profiles')
REFUSED_PREFIX = 'invalid tune variables (nothing was changed): '

A = '/dev/disk/by-id/virtio-volA'    # /dev/vdb on the fake host
B = '/dev/disk/by-id/virtio-volB'    # /dev/vdc
C = '/dev/disk/by-id/virtio-volC'    # /dev/vdd
D = '/dev/disk/by-id/virtio-volD'    # /dev/vde
MP = '/var/lib/cassandra'
DEFAULT = object()


def _profile(name):
    with open(os.path.join(PROFILES, name + '.yml')) as f:
        return yaml.safe_load(f)['profile_data']


def arr(name='data', devices=(A, B), mountpoint=MP, **keys):
    """One iotune_arrays entry; a key given as DEFAULT... is left out, any other value is taken as written."""
    entry = {'name': name, 'devices': list(devices) if isinstance(devices, tuple) else devices, 'mountpoint': mountpoint}
    entry.update(keys)
    return dict((k, v) for k, v in entry.items() if v is not DEFAULT)


# --- the fake host of the host cases (tests/unit/plugins/modules/test_storage_preflight.py) -----------------------

def _md127(h, members):
    """The array data running on ``members`` as md127 (slaves and holders linked both ways)."""
    h.disk('md127', '9:127', size_bytes=2 << 30)
    h.md_link('data', 'md127')
    os.makedirs(os.path.join(h.root, 'sys/class/block/md127/slaves'), exist_ok=True)
    for s in members:
        os.symlink('../../%s' % s, os.path.join(h.root, 'sys/class/block/md127/slaves', s))
        os.symlink('../../md127', os.path.join(h.root, 'sys/class/block', s, 'holders', 'md127'))


def _converged(h, mountpoint=MP):
    """The array data running on vdb+vdc as md127, its XFS UUID=aaaa-bbbb mounted on ``mountpoint`` and in fstab."""
    _md127(h, ('vdb', 'vdc'))
    h.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0, 'TYPE=xfs\nUUID=aaaa-bbbb\n')
    h.mount('9:127', mountpoint)
    os.makedirs(os.path.join(h.root, mountpoint.lstrip('/'), 'data'))
    h.write('etc/fstab', h.read('etc/fstab') + 'UUID=aaaa-bbbb %s xfs noatime,nofail 0 0\n' % mountpoint)


def _signature(h, dev='/dev/vdb', export='TYPE=ext4\nUUID=1234\n'):
    h.on(['blkid', '-p', '-o', 'export', dev], 0, export)


def _data(h, kname='vdc', offset=1 << 20):
    h.content(kname, {offset: b'\x53\xef'})


def _root_disk(h):
    """vda: the root disk (vda1 mounted on /), vda2 an empty partition; vdg a free disk of vda2's size."""
    h.disk('vda', '254:0', size_bytes=8 << 30, partitions={'vda1': '254:1', 'vda2': '254:2'})
    h.disk('vdg', '254:112', size_bytes=4 << 30)
    h.write('proc/self/mountinfo', '22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n')


def _nonempty(h):
    os.makedirs(os.path.join(h.root, 'var/lib/cassandra/commitlog'))
    h.write('var/lib/cassandra/old.db', 'x')


def _fstab(h):
    h.write('etc/fstab', h.read('etc/fstab') + 'UUID=0000-1111 /var/lib/cassandra/ ext4 defaults 0 2\n')
    h.dev_link('disk/by-uuid/0000-1111', '../../vdh')


def _mounted_other(h):
    h.disk('vdh', '254:128')
    h.mount('254:128', MP)


def _running_elsewhere(h):
    _md127(h, ('vdb', 'vdd'))


def _bigger(h):
    h.disk('vdf', '254:96', size_bytes=1 << 31)


# --- the table ------------------------------------------------------------------------------------------------------

def case(cid, cls, outcome, expect=None, profile='cassandra', arrays=DEFAULT, overrides=None, extra=None,
         mongodb_version=None, variables=(), host=None, xfail=None):
    """One row: ``variables`` are the iotune_* names set besides those the other inputs imply."""
    if arrays is DEFAULT:
        arrays = [arr()]
    row = dict(cls=cls, outcome=outcome, expect=expect, profile=profile, arrays=arrays, overrides=overrides,
               extra=extra, mongodb_version=mongodb_version, variables=list(variables), host=host)
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(row, id='%s-%s' % (cls, cid), marks=marks)


def refused(cid, cls, expect, **kw):
    return case(cid, cls, 'refused', expect, **kw)


def accepted(cid, cls, path=None, value=None, **kw):
    return case(cid, cls, 'accepted', None if path is None else (path, value), **kw)


def coerced(cid, cls, path, value, **kw):
    return case(cid, cls, 'coerced', (path, value), **kw)


FS = ('xfs_filesystems', 0)
RAID = ('raid0_arrays', 0)
SYSCTL = ('kernel', 'sysctl')
THP = ('kernel', 'thp')

CASES = [
    # --- array names ---------------------------------------------------------------------------------------------
    refused('dot', 'name', "name '.' must be", arrays=[arr('.')]),
    refused('dotdot', 'name', "name '..' must be", arrays=[arr('..')]),
    refused('newline', 'name', "name 'data\\n' must be", arrays=[arr('data\n')]),
    refused('slash', 'name', "name 'data/x' must be", arrays=[arr('data/x')]),
    refused('space', 'name', "name 'my data' must be", arrays=[arr('my data')]),
    refused('33-chars', 'name', "name '%s' must be" % ('a' * 33), arrays=[arr('a' * 33)]),
    refused('non-ascii', 'name', u"name 'd\xe4ta' must be", arrays=[arr(u'd\xe4ta')]),
    refused('empty', 'name', 'name is required', arrays=[arr('')]),
    refused('missing', 'name', 'iotune_arrays[0]: name is required', arrays=[arr(name=DEFAULT)]),
    refused('duplicate', 'name', 'array names must be unique across arrays: data',
            arrays=[arr(), arr(devices=(C, D), mountpoint='/srv/b', label='b')]),
    accepted('32-chars', 'name', RAID + ('name',), 'b' * 32, arrays=[arr('b' * 32, label='b')]),
    accepted('dots-dashes', 'name', RAID + ('name',), 'db-1.data_x', arrays=[arr('db-1.data_x', label='db1')]),
    accepted('md0', 'name', RAID + ('name',), 'md0', arrays=[arr('md0')]),

    # --- devices -------------------------------------------------------------------------------------------------
    refused('empty-list', 'devices', 'devices is required', arrays=[arr(devices=[])]),
    refused('string', 'devices', "devices must be a list of strings (/dev paths) or member selectors, got '/dev/vdb'",
            arrays=[arr(devices='/dev/vdb')]),
    refused('not-dev', 'devices', 'devices must be /dev paths: vdb', arrays=[arr(devices=['vdb', '/dev/vdc'])]),
    refused('relative-dev', 'devices', 'devices must be /dev paths: dev/vdb', arrays=[arr(devices=['dev/vdb', B])]),
    refused('twice', 'devices', 'devices are not unique: /dev/vdb, /dev/vdb', arrays=[arr(devices=['/dev/vdb'] * 2)]),
    refused('int', 'devices', 'devices: 5 is neither a /dev path', arrays=[arr(devices=[5, B])]),
    refused('null-item', 'devices', 'devices: None is neither a /dev path', arrays=[arr(devices=[None, B])]),
    refused('single', 'devices', 'a RAID0 of one device', arrays=[arr(devices=[A])]),
    refused('two-arrays', 'devices', 'a device can be a member of one array only: %s (in data, logs)' % B,
            arrays=[arr(), arr('logs', (B, C), '/srv/logs')]),
    refused('newline-path', 'devices', "devices must be /dev paths: '/dev/vdb\\n'", arrays=[arr(devices=['/dev/vdb\n', B])]),
    accepted('single-opt-in', 'devices', RAID + ('devices',), [A], arrays=[arr(devices=[A], allow_single_device=True)]),
    accepted('four', 'devices', RAID + ('devices',), [A, B, C, D], arrays=[arr(devices=(A, B, C, D))]),
    refused('alias-same-array', 'devices', '%s and /dev/vdb are the same device' % A,
            arrays=[arr(devices=[A, '/dev/vdb'])], host=lambda h: None),
    refused('alias-two-arrays', 'devices', '%s and /dev/vdb are the same device' % A,
            arrays=[arr(), arr('logs', ('/dev/vdb', C), '/srv/logs')], host=lambda h: None),
    refused('missing-on-host', 'devices', '/dev/vdz does not exist', arrays=[arr(devices=[A, '/dev/vdz'])],
            host=lambda h: None),
    refused('trailing-space', 'devices', "/dev/vdb  does not exist", arrays=[arr(devices=['/dev/vdb ', B])], host=lambda h: None),
    refused('dotdot-path', 'devices', '/dev/../etc/passwd does not exist', arrays=[arr(devices=['/dev/../etc/passwd', B])],
            host=lambda h: None),
    refused('sizes-differ', 'devices', 'member sizes differ too much', arrays=[arr(devices=[A, '/dev/vdf'])],
            host=_bigger),
    refused('running-on-others', 'devices', '/dev/md/data already runs on /dev/vdb, /dev/vdd', host=_running_elsewhere),

    # --- member selectors ----------------------------------------------------------------------------------------
    refused('ebs-bad-id', 'selector', "ebs_volume_id 'vol-xyz' is not an EBS volume id",
            arrays=[arr(devices=[{'ebs_volume_id': 'vol-xyz'}, {'ebs_volume_id': 'vol-0123456789abcdef0'}])]),
    refused('ebs-int', 'selector', 'ebs_volume_id 123 is not an EBS volume id',
            arrays=[arr(devices=[{'ebs_volume_id': 123}, B])]),
    coerced('ebs-without-dash', 'selector', RAID + ('devices', 0), {'ebs_volume_id': 'vol-0123456789abcdef0'},
            arrays=[arr(devices=[{'ebs_volume_id': 'vol0123456789abcdef0'}, B])]),
    refused('instance-store-yes', 'selector', 'instance_store takes the value all',
            arrays=[arr(devices=[{'instance_store': True}])]),
    refused('instance-store-some', 'selector', "instance_store takes the value all (every instance-store disk), got 'some'",
            arrays=[arr(devices=[{'instance_store': 'some'}])]),
    refused('instance-store-count-0', 'selector', 'instance_store count must be a whole number >= 1, got 0',
            arrays=[arr(devices=[{'instance_store': 'all', 'count': 0}])]),
    refused('instance-store-count-1', 'selector', 'a RAID0 of one device',
            arrays=[arr(devices=[{'instance_store': 'all', 'count': 1}])]),
    refused('instance-store-count-str', 'selector', "instance_store count must be a whole number >= 1, got '2'",
            arrays=[arr(devices=[{'instance_store': 'all', 'count': '2'}])]),
    accepted('instance-store-all', 'selector', RAID + ('devices',), [{'instance_store': 'all', 'count': None}],
             arrays=[arr(devices=[{'instance_store': 'all'}])]),
    refused('azure-lun-negative', 'selector', 'azure_lun must be a whole number 0..', arrays=[arr(devices=[{'azure_lun': -1}, B])]),
    refused('azure-lun-64', 'selector', 'azure_lun must be a whole number 0..63, got 64',
            arrays=[arr(devices=[{'azure_lun': 64}, B])]),
    refused('azure-lun-float', 'selector', 'azure_lun must be a whole number 0..63, got 1.5',
            arrays=[arr(devices=[{'azure_lun': 1.5}, B])]),
    refused('azure-lun-bool', 'selector', 'azure_lun must be a whole number 0..63, got True',
            arrays=[arr(devices=[{'azure_lun': True}, B])]),
    coerced('azure-lun-string', 'selector', RAID + ('devices', 0), {'azure_lun': 2},
            arrays=[arr(devices=[{'azure_lun': '2'}, {'azure_lun': 3}])]),
    refused('azure-lun-same-twice', 'selector', 'devices are not unique',
            arrays=[arr(devices=[{'azure_lun': '1'}, {'azure_lun': 1}])]),
    refused('gcp-string', 'selector', "gcp_local_ssd must be a whole number", arrays=[arr(devices=[{'gcp_local_ssd': 'x'}, B])]),
    refused('unknown-key', 'selector', 'unknown key ebs in member selector', arrays=[arr(devices=[{'ebs': 'vol-1'}, B])]),
    refused('typo-key', 'selector', 'unknown key azure_lan (did you mean azure_lun?)',
            arrays=[arr(devices=[{'azure_lan': 1}, B])]),
    refused('two-keys', 'selector', 'a member selector needs exactly one of',
            arrays=[arr(devices=[{'azure_lun': 1, 'gcp_local_ssd': 1}, B])]),
    refused('empty', 'selector', 'a member selector needs exactly one of', arrays=[arr(devices=[{}, B])]),
    refused('count-misplaced', 'selector', 'count goes with instance_store only',
            arrays=[arr(devices=[{'azure_lun': 1, 'count': 2}, B])]),
    refused('wipe-not-member', 'selector', 'wipe_devices not in devices: azure_lun=3',
            arrays=[arr(devices=[{'azure_lun': 1}, {'azure_lun': 2}], wipe_devices=[{'azure_lun': 3}])]),

    # --- chunk ---------------------------------------------------------------------------------------------------
    refused('zero', 'chunk', 'chunk_kb must be >= 4, got 0', arrays=[arr(chunk_kb=0)]),
    refused('two', 'chunk', 'chunk_kb must be >= 4, got 2', arrays=[arr(chunk_kb=2)]),
    refused('negative', 'chunk', 'chunk_kb must be >= 4, got -4', arrays=[arr(chunk_kb=-4)]),
    refused('96', 'chunk', 'chunk_kb must be a power of two >= 4 KiB, got 96', arrays=[arr(chunk_kb=96)]),
    refused('256k', 'chunk', "chunk_kb must be a whole number of KiB, got '256k'", arrays=[arr(chunk_kb='256k')]),
    refused('hex', 'chunk', "chunk_kb must be a whole number of KiB, got '0x40'", arrays=[arr(chunk_kb='0x40')]),
    refused('float', 'chunk', 'chunk_kb must be a whole number of KiB, got 64.0', arrays=[arr(chunk_kb=64.0)]),
    refused('bool', 'chunk', 'chunk_kb must be an integer, got True', arrays=[arr(chunk_kb=True)]),
    refused('stripe-2gib', 'chunk', 'chunk_kb 524288 x 4 devices', arrays=[arr(devices=(A, B, C, D), chunk_kb=524288)]),
    refused('profile-zero', 'chunk', "raid_chunk_kb must be >= 4, got 0", overrides={'raid_chunk_kb': 0}),
    refused('profile-96', 'chunk', 'raid_chunk_kb must be a power of two', overrides={'raid_chunk_kb': 96}),
    coerced('string-digits', 'chunk', RAID + ('chunk_kb',), 64, arrays=[arr(chunk_kb='64')]),
    coerced('profile-string-digits', 'chunk', RAID + ('chunk_kb',), 64, overrides={'raid_chunk_kb': ' 64 '}),
    accepted('null-is-profile-default', 'chunk', RAID + ('chunk_kb',), 256, arrays=[arr(chunk_kb=None)]),
    accepted('4', 'chunk', RAID + ('chunk_kb',), 4, arrays=[arr(chunk_kb=4)]),

    # --- readahead (profile overrides) ---------------------------------------------------------------------------
    refused('16k', 'readahead', "array.read_ahead_kb must be a whole number of KiB, got '16k'",
            overrides={'array': {'read_ahead_kb': '16k'}}),
    refused('abc', 'readahead', "members.read_ahead_kb must be a whole number of KiB, got 'abc'",
            overrides={'members': {'read_ahead_kb': 'abc'}}),
    refused('negative', 'readahead', 'array.read_ahead_kb must be >= 0', overrides={'array': {'read_ahead_kb': -1}}),
    refused('bool', 'readahead', 'array.read_ahead_kb must be an integer, got True',
            overrides={'array': {'read_ahead_kb': True}}),
    refused('float', 'readahead', 'array.read_ahead_kb must be a whole number of KiB, got 16.0',
            overrides={'array': {'read_ahead_kb': 16.0}}),
    refused('over-1gib', 'readahead', 'array.read_ahead_kb must be at most 1048576 KiB',
            overrides={'array': {'read_ahead_kb': 1048577}}),
    refused('null', 'readahead', 'members.read_ahead_kb not set', overrides={'members': {'read_ahead_kb': None}}),
    refused('custom-unset', 'readahead', 'array.read_ahead_kb, members.read_ahead_kb', profile='custom'),
    coerced('string-digits', 'readahead', ('profile', 'array', 'read_ahead_kb'), 32,
            overrides={'array': {'read_ahead_kb': '32'}}),
    accepted('zero', 'readahead', ('profile', 'members', 'read_ahead_kb'), 0, overrides={'members': {'read_ahead_kb': 0}}),

    # --- labels --------------------------------------------------------------------------------------------------
    refused('13-chars', 'label', "label 'cassandradata' must be 1-12", arrays=[arr(label='cassandradata')]),
    refused('space', 'label', "label 'my data' must be", arrays=[arr(label='my data')]),
    refused('empty', 'label', "label '' must be", arrays=[arr(label='')]),
    refused('int', 'label', 'label 123 must be', arrays=[arr(label=123)]),
    refused('slash', 'label', "label 'a/b' must be", arrays=[arr(label='a/b')]),
    refused('duplicate', 'label', 'labels must be unique across arrays: same',
            arrays=[arr(label='same'), arr('logs', (C, D), '/srv/logs', label='same')]),
    accepted('12-chars', 'label', FS + ('label',), 'cassandra_01', arrays=[arr(label='cassandra_01')]),
    accepted('plus', 'label', FS + ('label',), 'db+1', arrays=[arr(label='db+1')]),
    coerced('from-long-name', 'label', FS + ('label',), 'cassandra_co', arrays=[arr('cassandra_commitlog')]),
    refused('derived-twice', 'label', 'cassandra_da (arrays cassandra_data1, cassandra_data2; derived from the first 12 '
            'characters of the name of cassandra_data1, cassandra_data2: give each array its own label)',
            arrays=[arr('cassandra_data1'), arr('cassandra_data2', (C, D), '/srv/logs')]),

    # --- mount points --------------------------------------------------------------------------------------------
    refused('root', 'mountpoint', '/ is the root directory', arrays=[arr(mountpoint='/')]),
    refused('var', 'mountpoint', '/var is a system directory', arrays=[arr(mountpoint='/var')]),
    refused('var-lib', 'mountpoint', '/var/lib is a system directory', arrays=[arr(mountpoint='/var/lib')]),
    refused('usr-local', 'mountpoint', '/usr/local is a system directory', arrays=[arr(mountpoint='/usr/local')]),
    refused('home', 'mountpoint', '/home is a system directory', arrays=[arr(mountpoint='/home')]),
    refused('boot-efi', 'mountpoint', '/boot/efi is a system directory', arrays=[arr(mountpoint='/boot/efi')]),
    refused('var-trailing-slash', 'mountpoint', '/var is a system directory', arrays=[arr(mountpoint='/var/')]),
    refused('var-double-slash', 'mountpoint', '/var/lib is a system directory', arrays=[arr(mountpoint='/var//lib')]),
    refused('dot-var', 'mountpoint', '/var is a system directory', arrays=[arr(mountpoint='/./var')]),
    refused('relative', 'mountpoint', "mountpoint must be an absolute path, got 'data'", arrays=[arr(mountpoint='data')]),
    refused('int', 'mountpoint', 'mountpoint must be an absolute path, got 123', arrays=[arr(mountpoint=123)]),
    refused('dollar', 'mountpoint', "mountpoint must be a literal path without $ or ~", arrays=[arr(mountpoint='/$HOME/db')]),
    refused('tilde', 'mountpoint', "got '~/db'", arrays=[arr(mountpoint='~/db')]),
    refused('tilde-inside', 'mountpoint', "got '/data/~db'", arrays=[arr(mountpoint='/data/~db')]),
    refused('dotdot', 'mountpoint', "mountpoint must not contain .. (write the path it means), got '/data/../etc'",
            arrays=[arr(mountpoint='/data/../etc')]),
    refused('space', 'mountpoint', "mountpoint must not contain white space", arrays=[arr(mountpoint='/data db')]),
    refused('nested', 'mountpoint', 'mount point /data/logs lies inside /data',
            arrays=[arr(mountpoint='/data'), arr('logs', (C, D), '/data/logs')]),
    refused('nested-after-normalising', 'mountpoint', 'mount point /data/logs lies inside /data',
            arrays=[arr(mountpoint='/data/'), arr('logs', (C, D), '//data//logs/')]),
    refused('same-in-two', 'mountpoint', 'mount points must be unique across arrays: /data',
            arrays=[arr(mountpoint='/data'), arr('logs', (C, D), '/data/')]),
    refused('move-from-itself', 'mountpoint', 'move_from /data is the mountpoint itself',
            arrays=[arr(mountpoint='/data', move_from='/data/')]),
    refused('move-from-relative', 'mountpoint', "move_from must be an absolute path, got 'old'",
            arrays=[arr(mountpoint='/data', move_from='old')]),
    refused('proc', 'mountpoint', '/proc/db is below /proc, a filesystem of the kernel', arrays=[arr(mountpoint='/proc/db')]),
    refused('sys', 'mountpoint', '/sys/data is below /sys, a filesystem of the kernel', arrays=[arr(mountpoint='/sys/data')]),
    coerced('trailing-slash', 'mountpoint', FS + ('mountpoint',), '/var/lib/cassandra', arrays=[arr(mountpoint=MP + '/')]),
    coerced('double-slash', 'mountpoint', FS + ('mountpoint',), '/data', arrays=[arr(mountpoint='//data')]),
    coerced('dot-component', 'mountpoint', FS + ('mountpoint',), '/data/x', arrays=[arr(mountpoint='/data/./x')]),
    accepted('prefix-not-nested', 'mountpoint', ('xfs_filesystems', 1, 'mountpoint'), '/data2',
             arrays=[arr(mountpoint='/data'), arr('logs', (C, D), '/data2')]),
    accepted('below-system-dir', 'mountpoint', FS + ('mountpoint',), '/var/lib/mysql', arrays=[arr(mountpoint='/var/lib/mysql')]),
    refused('non-empty', 'mountpoint', '/var/lib/cassandra is not empty (2 entries: commitlog, old.db)', host=_nonempty),
    refused('is-a-file', 'mountpoint', 'exists and is not a directory', host=lambda h: h.write('var/lib/cassandra', 'x')),
    refused('foreign-fstab', 'mountpoint', '/etc/fstab line 2 gives /var/lib/cassandra to UUID=0000-1111', host=_fstab),
    refused('mounted-from-other', 'mountpoint', 'is already mounted from /dev/x (254:128)', host=_mounted_other),
    refused('converged-moved', 'mountpoint', 'its filesystem is on /var/lib/cassandra (mounted there, /etc/fstab line 2), '
            'not on the planned mountpoint /var/lib/casandra', arrays=[arr(mountpoint='/var/lib/casandra')], host=_converged),
    refused('converged-wrong-move-from', 'mountpoint', 'or set move_from: /var/lib/cassandra on the array',
            arrays=[arr(mountpoint='/srv/new', move_from='/srv/old')], host=_converged),
    accepted('non-empty-opt-in', 'mountpoint', FS + ('mountpoint',), MP, arrays=[arr(allow_nonempty_mountpoint=True)],
             host=_nonempty),
    accepted('converged-same', 'mountpoint', FS + ('mountpoint',), MP, host=_converged),

    # --- mount options -------------------------------------------------------------------------------------------
    refused('nobarrier', 'mount_options', 'nobarrier is refused: removed from XFS', arrays=[arr(mount_options=['nobarrier'])]),
    refused('barrier', 'mount_options', 'barrier is refused', arrays=[arr(mount_options=['barrier'])]),
    refused('noauto', 'mount_options', 'noauto is refused', arrays=[arr(mount_options=['noatime', 'noauto'])]),
    refused('defaults', 'mount_options', 'defaults is refused', arrays=[arr(mount_options=['defaults'])]),
    refused('comma', 'mount_options', "'noatime,nodiratime' is not one mount option",
            arrays=[arr(mount_options=['noatime,nodiratime'])]),
    refused('space', 'mount_options', "'noatime ' is not one mount option", arrays=[arr(mount_options=['noatime '])]),
    refused('empty', 'mount_options', "'' is not one mount option", arrays=[arr(mount_options=[''])]),
    refused('typo', 'mount_options', 'noatme is not an XFS or mount(8) option (did you mean noatime',
            arrays=[arr(mount_options=['noatme'])]),
    refused('case', 'mount_options', 'Noatime is not an XFS or mount(8) option', arrays=[arr(mount_options=['Noatime'])]),
    refused('needs-value', 'mount_options', 'logbsize needs a value', arrays=[arr(mount_options=['logbsize'])]),
    refused('value-on-flag', 'mount_options', 'noatime=1 takes no value', arrays=[arr(mount_options=['noatime=1'])]),
    refused('bare-x', 'mount_options', 'x- is not an XFS or mount(8) option', arrays=[arr(mount_options=['x-'])]),
    refused('string', 'mount_options', "mount_options must be a list of strings, got 'noatime'",
            arrays=[arr(mount_options='noatime')]),
    refused('null-item', 'mount_options', 'mount_options must be a list of strings, got [None]',
            arrays=[arr(mount_options=[None])]),
    refused('profile-string', 'mount_options', "mount_options must be a list of strings, got 'noatime'",
            overrides={'mount_options': 'noatime'}),
    refused('norecovery', 'mount_options', 'norecovery is refused: XFS mounts with it only read-only',
            arrays=[arr(mount_options=['noatime', 'norecovery'])]),
    refused('sunit-alone', 'mount_options', 'sunit needs swidth too (XFS takes them together)',
            arrays=[arr(mount_options=['sunit=128'])]),
    refused('swidth-alone', 'mount_options', 'swidth needs sunit too (XFS takes them together)',
            arrays=[arr(mount_options=['noatime', 'swidth=512'])]),
    accepted('sunit-and-swidth', 'mount_options', FS + ('mount_options',), ['sunit=512', 'swidth=2048'],
             arrays=[arr(mount_options=['sunit=512', 'swidth=2048'])]),
    accepted('x-systemd', 'mount_options', FS + ('mount_options',), ['noatime', 'x-systemd.device-timeout=10s'],
             arrays=[arr(mount_options=['noatime', 'x-systemd.device-timeout=10s'])]),
    accepted('xfs-own', 'mount_options', FS + ('mount_options',), ['noatime', 'inode64', 'logbsize=256k', 'nodiscard'],
             arrays=[arr(mount_options=['noatime', 'inode64', 'logbsize=256k', 'nodiscard'])]),
    # online discard only through the profile's discard policy (discard_by_class), never as a raw option
    refused('discard-raw', 'mount_options', "discard is refused: online discard comes only from the profile's discard "
            'policy', arrays=[arr(mount_options=['noatime', 'discard'])]),
    accepted('nofail', 'mount_options', FS + ('mount_options',), ['nofail'], arrays=[arr(mount_options=['nofail'])]),

    # --- services ------------------------------------------------------------------------------------------------
    refused('socket', 'services', 'services: cassandra.socket is a .socket unit', arrays=[arr(services=['cassandra.socket'])]),
    refused('target', 'services', 'services: db.target is a .target unit', arrays=[arr(services=['db.target'])]),
    refused('space', 'services', "services: 'my db' is not a systemd unit name", arrays=[arr(services=['my db'])]),
    refused('dash', 'services', "services: '-x' is not a systemd unit name", arrays=[arr(services=['-x'])]),
    refused('string', 'services', "services must be a list of strings, got 'cassandra'", arrays=[arr(services='cassandra')]),
    refused('int', 'services', 'services must be a list of strings, got [5]', arrays=[arr(services=[5])]),
    refused('profile-string', 'services', "services must be a list of strings, got 'mongod'", overrides={'services': 'mongod'}),
    coerced('suffix-added', 'services', FS + ('services',), ['cassandra.service', 'jmx@1.service'],
            arrays=[arr(services=['cassandra', 'jmx@1'])]),
    accepted('none', 'services', FS + ('services',), [], arrays=[arr(services=[])]),

    # --- owner, group, mode --------------------------------------------------------------------------------------
    refused('mode-750-int', 'ownership', "mode 750 must be a quoted octal string", arrays=[arr(mode=750)]),
    refused('mode-0750-yaml-octal', 'ownership', "mode 488 must be a quoted octal string", arrays=[arr(mode=0o750)]),
    refused('mode-symbolic', 'ownership', "mode 'u=rwx' must be", arrays=[arr(mode='u=rwx')]),
    refused('mode-sticky', 'ownership', "mode '1777' must be", arrays=[arr(mode='1777')]),
    refused('mode-8', 'ownership', "mode '0758' must be", arrays=[arr(mode='0758')]),
    refused('owner-negative', 'ownership', 'owner -1 is not a user/group name or id', arrays=[arr(owner=-1)]),
    refused('owner-bool', 'ownership', 'owner True is not a user/group name or id', arrays=[arr(owner=True)]),
    refused('owner-shell', 'ownership', "owner 'root;rm' is not", arrays=[arr(owner='root;rm')]),
    refused('group-space', 'ownership', "group 'my group' is not", arrays=[arr(group='my group')]),
    refused('owner-33-chars', 'ownership', "owner '%s' is not" % ('u' * 33), arrays=[arr(owner='u' * 33)]),
    accepted('mode-quoted', 'ownership', FS + ('mode',), '0750', arrays=[arr(mode='0750')]),
    accepted('mode-3-digits', 'ownership', FS + ('mode',), '750', arrays=[arr(mode='750')]),
    accepted('owner-name', 'ownership', FS + ('owner',), 'mongodb', arrays=[arr(owner='mongodb', group='mongodb')]),
    coerced('owner-int', 'ownership', FS + ('owner',), '999', arrays=[arr(owner=999)]),

    # --- opt-ins -------------------------------------------------------------------------------------------------
    refused('wipe-not-member', 'opt_in', 'wipe_devices not in devices: %s' % C, arrays=[arr(wipe_devices=[C])]),
    refused('wipe-alias', 'opt_in', 'wipe_devices not in devices: /dev/vdb', arrays=[arr(wipe_devices=['/dev/vdb'])]),
    refused('wipe-string', 'opt_in', "wipe_devices must be a list, got '%s'" % A, arrays=[arr(wipe_devices=A)]),
    refused('wipe-true', 'opt_in', 'wipe_devices must be a list, got True', arrays=[arr(wipe_devices=True)]),
    refused('shared-not-member', 'opt_in', 'allow_shared_disk not in devices: /dev/vda2',
            arrays=[arr(allow_shared_disk=['/dev/vda2'])]),
    refused('single-string-yes', 'opt_in', "allow_single_device must be true or false, got 'yes'",
            arrays=[arr(devices=[A], allow_single_device='yes')]),
    refused('single-int', 'opt_in', 'allow_single_device must be true or false, got 1',
            arrays=[arr(devices=[A], allow_single_device=1)]),
    refused('nonempty-string', 'opt_in', "allow_nonempty_mountpoint must be true or false, got 'true'",
            arrays=[arr(allow_nonempty_mountpoint='true')]),
    refused('ephemeral-string', 'opt_in', "ephemeral must be true or false, got 'no'", arrays=[arr(ephemeral='no')]),
    refused('signature', 'opt_in', 'refusing %s (/dev/vdb): ext4 filesystem signature' % A, host=_signature),
    refused('data', 'opt_in', 'refusing %s (/dev/vdc): non-zero data' % B, host=_data),
    refused('other-md-superblock', 'opt_in', 'md RAID superblock signature',
            host=lambda h: _signature(h, export='TYPE=linux_raid_member\nLABEL=any:other\n')),
    refused('partition-of-root-disk', 'opt_in', 'refusing /dev/vda2: it is a partition of /dev/vda, which is in use',
            arrays=[arr(devices=['/dev/vda2', '/dev/vdg'])], host=_root_disk),
    refused('mounted-member', 'opt_in', 'refusing %s (/dev/vdb): mounted on /srv/old' % A, arrays=[arr(wipe_devices=[A])],
            host=lambda h: h.mount('254:16', '/srv/old')),
    refused('swap-member', 'opt_in', 'refusing %s (/dev/vdb): in use as swap' % A, arrays=[arr(wipe_devices=[A])], host=lambda h: h.swap('/dev/vdb')),
    accepted('wipe-signature', 'opt_in', FS + ('allow_data',), True, arrays=[arr(wipe_devices=[A])], host=_signature),
    accepted('wipe-data', 'opt_in', RAID + ('wipe_devices',), [B], arrays=[arr(wipe_devices=[B])], host=_data),
    accepted('shared-disk', 'opt_in', RAID + ('allow_shared_disk',), ['/dev/vda2'],
             arrays=[arr(devices=['/dev/vda2', '/dev/vdg'], allow_shared_disk=['/dev/vda2'])], host=_root_disk),

    # --- profile overrides ---------------------------------------------------------------------------------------
    refused('unknown-readahead_kb', 'overrides', 'unknown key readahead_kb (did you mean', overrides={'readahead_kb': 16}),
    refused('unknown-raid_chunk', 'overrides', 'unknown key raid_chunk', overrides={'raid_chunk': 64}),
    refused('unknown-nested', 'overrides', 'unknown key array.readahead', overrides={'array': {'readahead': 16}}),
    refused('unknown-kernel-key', 'overrides', 'unknown key kernel.sysctls', overrides={'kernel': {'sysctls': {}}}),
    refused('unknown-thp-key', 'overrides', 'unknown key kernel.thp.enable', overrides={'kernel': {'thp': {'enable': 'never'}}}),
    refused('not-a-dict', 'overrides', "iotune_profile_overrides must be a dict, got 'raid_chunk_kb=64'",
            overrides='raid_chunk_kb=64'),
    refused('list', 'overrides', "iotune_profile_overrides must be a dict, got ['raid_chunk_kb']", overrides=['raid_chunk_kb']),
    refused('empty-list', 'overrides', 'iotune_profile_overrides must be a dict, got []', overrides=[]),
    refused('section-not-dict', 'overrides', 'array.read_ahead_kb not set', overrides={'array': 16}),
    refused('scheduler-int', 'overrides', 'scheduler_by_class.nvme must be a scheduler name, got 5',
            overrides={'members': {'scheduler_by_class': {'nvme': 5}}}),
    refused('scheduler-empty', 'overrides', "scheduler_by_class.ssd must be a scheduler name, got ''",
            overrides={'members': {'scheduler_by_class': {'ssd': ''}}}),
    refused('scheduler-null', 'overrides', 'scheduler_by_class.hdd must be a scheduler name, got None',
            overrides={'members': {'scheduler_by_class': {'hdd': None}}}),
    refused('scheduler-class', 'overrides', "unknown device class 'floppy'",
            overrides={'members': {'scheduler_by_class': {'floppy': 'none'}}}),
    refused('scheduler-null-key', 'overrides', 'unknown device class None',
            overrides={'members': {'scheduler_by_class': {None: 'none'}}}),
    refused('scheduler-string', 'overrides', 'members.scheduler_by_class must be a dict',
            overrides={'members': {'scheduler_by_class': 'none'}}),
    refused('thresholds-unknown-job', 'overrides', 'fio_verify_thresholds for unknown jobs: nojob',
            overrides={'fio_verify_thresholds': {'nojob': {}}}),
    refused('kernel-not-dict', 'overrides', "kernel must be a dict with thp and sysctl, got 'never'",
            overrides={'kernel': 'never'}),
    accepted('description', 'overrides', ('profile', 'description'), 'mine', overrides={'description': 'mine'}),

    # --- kernel sysctl -------------------------------------------------------------------------------------------
    refused('not-allowed', 'sysctl', 'kernel.sysctl: kernel.sched_migration_cost_ns is not one of the sysctls',
            overrides={'kernel': {'sysctl': {'kernel.sched_migration_cost_ns': 5000000}}}),
    refused('typo', 'sysctl', 'vm.swapiness is not one of the sysctls database vendors ask for (did you mean vm.swappiness',
            overrides={'kernel': {'sysctl': {'vm.swapiness': 1}}}),
    refused('upper-case', 'sysctl', "'VM.Swappiness' is not a sysctl name", overrides={'kernel': {'sysctl': {'VM.Swappiness': 1}}}),
    refused('glob', 'sysctl', "'vm.*' is not a sysctl name", overrides={'kernel': {'sysctl': {'vm.*': 1}}}),
    refused('action', 'sysctl', 'vm.drop_caches is an action, not a setting', overrides={'kernel': {'sysctl': {'vm.drop_caches': 3}}}),
    refused('action-extra', 'sysctl', 'net.ipv4.route.flush is an action',
            overrides={'kernel': {'extra_sysctl': {'net.ipv4.route.flush': 1}}}),
    refused('extra-typo', 'sysctl', 'vm.swappines looks like a typo of vm.swappiness',
            overrides={'kernel': {'extra_sysctl': {'vm.swappines': 1}}}),
    refused('extra-duplicates-sysctl', 'sysctl', 'extra_sysctl: vm.swappiness is a kernel.sysctl setting',
            overrides={'kernel': {'extra_sysctl': {'vm.swappiness': 5}}}),
    refused('slash-and-dot', 'sysctl', 'vm.swappiness is given twice (as vm.swappiness and vm/swappiness)',
            overrides={'kernel': {'sysctl': {'vm/swappiness': 10}}}),
    refused('range-high', 'sysctl', 'kernel.sysctl.vm.swappiness must be <= 200, got 201',
            overrides={'kernel': {'sysctl': {'vm.swappiness': 201}}}),
    refused('range-low', 'sysctl', 'vm.swappiness must be >= 0, got -1', overrides={'kernel': {'sysctl': {'vm.swappiness': -1}}}),
    refused('max-map-count-low', 'sysctl', 'vm.max_map_count must be >= 65530, got 1000',
            overrides={'kernel': {'sysctl': {'vm.max_map_count': 1000}}}),
    refused('dirty-bytes-low', 'sysctl', 'vm.dirty_bytes must be >= 8192, got 4096',
            overrides={'kernel': {'sysctl': {'vm.dirty_bytes': 4096}}}),
    refused('value-string', 'sysctl', "vm.swappiness must be an integer, got '1k'", overrides={'kernel': {'sysctl': {'vm.swappiness': '1k'}}}),
    refused('value-float', 'sysctl', 'vm.swappiness must be an integer, got 0.5', overrides={'kernel': {'sysctl': {'vm.swappiness': 0.5}}}),
    refused('value-bool', 'sysctl', 'vm.swappiness must be an integer, got True', overrides={'kernel': {'sysctl': {'vm.swappiness': True}}}),
    refused('value-null', 'sysctl', 'vm.swappiness must be an integer, got None', overrides={'kernel': {'sysctl': {'vm.swappiness': None}}}),
    refused('pair-exclusive', 'sysctl', 'set vm.dirty_bytes or vm.dirty_ratio, not both',
            overrides={'kernel': {'sysctl': {'vm.dirty_bytes': 1 << 28, 'vm.dirty_ratio': 10}}}),
    refused('pair-order', 'sysctl', 'vm.dirty_background_ratio (20) must be below vm.dirty_ratio (10)',
            overrides={'kernel': {'sysctl': {'vm.dirty_background_ratio': 20, 'vm.dirty_ratio': 10}}}),
    refused('not-dict', 'sysctl', "kernel.sysctl must be a dict, got ['vm.swappiness=1']",
            overrides={'kernel': {'sysctl': ['vm.swappiness=1']}}),
    coerced('string-digits', 'sysctl', SYSCTL + ('vm.swappiness',), 10, overrides={'kernel': {'sysctl': {'vm.swappiness': '10'}}}),
    accepted('extra-own', 'sysctl', SYSCTL + ('kernel.numa_balancing_scan_delay_ms',), 1000,
             overrides={'kernel': {'extra_sysctl': {'kernel.numa_balancing_scan_delay_ms': 1000}}}),
    accepted('slash-form', 'sysctl', SYSCTL + ('fs.nr_open',), 1048576, overrides={'kernel': {'sysctl': {'fs/nr_open': 1048576}}}),

    # --- THP -----------------------------------------------------------------------------------------------------
    refused('enabled-bad', 'thp', "kernel.thp.enabled: 'sometimes' is not one of always, madvise, never",
            overrides={'kernel': {'thp': {'enabled': 'sometimes'}}}),
    refused('enabled-yaml-no', 'thp', 'kernel.thp.enabled: False is not one of', overrides={'kernel': {'thp': {'enabled': False}}}),
    refused('defrag-bad', 'thp', "kernel.thp.defrag: 'defer-madvise' is not one of",
            overrides={'kernel': {'thp': {'defrag': 'defer-madvise'}}}),
    refused('ptes-512', 'thp', 'khugepaged_max_ptes_none must be <= 511', overrides={'kernel': {'thp': {'khugepaged_max_ptes_none': 512}}}),
    refused('ptes-string', 'thp', "khugepaged_max_ptes_none must be an integer, got 'all'",
            overrides={'kernel': {'thp': {'khugepaged_max_ptes_none': 'all'}}}),
    refused('not-dict', 'thp', "kernel.thp must be a dict, got 'never'", overrides={'kernel': {'thp': 'never'}}),
    accepted('never', 'thp', THP + ('enabled',), 'never', overrides={'kernel': {'thp': {'enabled': 'never'}}}),
    accepted('mongodb-own-thp', 'thp', THP, {'enabled': 'madvise'}, profile='mongodb', arrays=[arr(mountpoint='/var/lib/mongodb')],
             overrides={'kernel': {'by_mongodb_version': [], 'thp': {'enabled': 'madvise'}}}),

    # --- MongoDB version -----------------------------------------------------------------------------------------
    refused('missing', 'mongodb_version', 'set iotune_mongodb_version', profile='mongodb',
            arrays=[arr(mountpoint='/var/lib/mongodb')]),
    refused('float', 'mongodb_version', 'iotune_mongodb_version must be a quoted version string', profile='mongodb',
            arrays=[arr(mountpoint='/var/lib/mongodb')], mongodb_version=8.0),
    refused('float-7.10', 'mongodb_version', 'got 7.1', profile='mongodb', arrays=[arr(mountpoint='/var/lib/mongodb')],
            mongodb_version=7.1),
    refused('int', 'mongodb_version', 'iotune_mongodb_version must be a quoted version string', profile='mongodb',
            arrays=[arr(mountpoint='/var/lib/mongodb')], mongodb_version=8),
    refused('latest', 'mongodb_version', "got 'latest'", profile='mongodb', arrays=[arr(mountpoint='/var/lib/mongodb')],
            mongodb_version='latest'),
    refused('v-prefix', 'mongodb_version', "got 'v8.0'", profile='mongodb', arrays=[arr(mountpoint='/var/lib/mongodb')],
            mongodb_version='v8.0'),
    refused('empty', 'mongodb_version', 'set iotune_mongodb_version', profile='mongodb',
            arrays=[arr(mountpoint='/var/lib/mongodb')], mongodb_version=''),
    accepted('8.0', 'mongodb_version', THP + ('enabled',), 'always', profile='mongodb',
             arrays=[arr(mountpoint='/var/lib/mongodb')], mongodb_version='8.0'),
    accepted('7.0.12', 'mongodb_version', THP + ('enabled',), 'never', profile='mongodb',
             arrays=[arr(mountpoint='/var/lib/mongodb')], mongodb_version='7.0.12'),
    accepted('10.0', 'mongodb_version', THP + ('enabled',), 'always', profile='mongodb',
             arrays=[arr(mountpoint='/var/lib/mongodb')], mongodb_version='10.0'),
    coerced('spaces', 'mongodb_version', ('kernel', 'mongodb_version'), '8.0', profile='mongodb',
            arrays=[arr(mountpoint='/var/lib/mongodb')], mongodb_version=' 8.0 '),
    accepted('major-only', 'mongodb_version', THP + ('enabled',), 'always', profile='mongodb',
             arrays=[arr(mountpoint='/var/lib/mongodb')], mongodb_version='8'),

    # --- fio_verify_jobs -----------------------------------------------------------------------------------------
    refused('filename', 'fio_verify_jobs', "fio_verify_jobs 'j': unknown key 'filename'",
            profile='streaming', overrides={'fio_verify_jobs': [{'name': 'j', 'filename': '/dev/vdb'}]}),
    refused('directory', 'fio_verify_jobs', "fio_verify_jobs 'j': unknown key 'directory'",
            profile='streaming', overrides={'fio_verify_jobs': [{'name': 'j', 'directory': '/'}]}),
    refused('extra-filename', 'fio_verify_jobs', "extra option 'filename' is not allowed",
            profile='streaming', overrides={'fio_verify_jobs': [{'name': 'j', 'extra': {'filename': '/dev/md/data'}}]}),
    refused('extra-rw', 'fio_verify_jobs', "extra option 'rw' is not allowed",
            profile='streaming', overrides={'fio_verify_jobs': [{'name': 'j', 'extra': {'rw': 'write'}}]}),
    refused('extra-readwrite', 'fio_verify_jobs', "extra option 'readwrite' is not allowed",
            profile='streaming', overrides={'fio_verify_jobs': [{'name': 'j', 'extra': {'readwrite': 'randrw'}}]}),
    refused('rw-write', 'fio_verify_jobs', "fio_verify_jobs 'j': value of rw must be one of: randread, read, got: write",
            profile='streaming', overrides={'fio_verify_jobs': [{'name': 'j', 'rw': 'write'}]}),
    refused('rw-randrw', 'fio_verify_jobs', 'got: randrw',
            profile='streaming', overrides={'fio_verify_jobs': [{'name': 'j', 'rw': 'randrw'}]}),
    refused('unknown-key', 'fio_verify_jobs', "unknown key 'blocksize'",
            profile='streaming', overrides={'fio_verify_jobs': [{'name': 'j', 'blocksize': '4k'}]}),
    refused('typo-key', 'fio_verify_jobs', "unknown key 'iodepht' (did you mean iodepth?)",
            profile='streaming', overrides={'fio_verify_jobs': [{'name': 'j', 'iodepht': 4}]}),
    refused('no-name', 'fio_verify_jobs', 'fio_verify_jobs must be a list of dicts with a name',
            profile='streaming', overrides={'fio_verify_jobs': [{'rw': 'read'}]}),
    refused('duplicate-names', 'fio_verify_jobs', 'fio_verify_jobs names are not unique: j, j',
            profile='streaming', overrides={'fio_verify_jobs': [{'name': 'j'}, {'name': 'j'}]}),
    refused('iodepth-string', 'fio_verify_jobs', "argument 'iodepth' is of type str",
            profile='streaming', overrides={'fio_verify_jobs': [{'name': 'j', 'iodepth': 'deep'}]}),
    refused('extra-newline', 'fio_verify_jobs', "extra option 'zonemode': the value must not contain a line break",
            profile='streaming', overrides={'fio_verify_jobs': [{'name': 'j', 'extra': {'zonemode': 'none\nfilename=/dev/vdb'}}]}),
    accepted('read-job', 'fio_verify_jobs', ('fio_verify', 0, 'jobs', 0, 'rw'), 'read', profile='streaming',
             overrides={'fio_verify_jobs': [{'name': 'seq', 'rw': 'read', 'bs': '1m'}], 'fio_verify_thresholds': {}}),
    accepted('own-jobs-over-a-profile', 'fio_verify_jobs', ('profile', 'fio_verify_thresholds'), {},
             overrides={'fio_verify_jobs': [{'name': 'seq', 'rw': 'read', 'bs': '1m'}], 'fio_verify_thresholds': {}}),
    accepted('own-jobs-without-thresholds', 'fio_verify_jobs', ('profile', 'fio_verify_thresholds'), {},
             overrides={'fio_verify_jobs': [{'name': 'seq', 'rw': 'read', 'bs': '1m'}]}),
    refused('own-jobs-stray-threshold', 'fio_verify_jobs', 'fio_verify_thresholds for unknown jobs: mmap_rand4k',
            overrides={'fio_verify_jobs': [{'name': 'seq', 'rw': 'read', 'bs': '1m'}],
                       'fio_verify_thresholds': {'mmap_rand4k': {'read_amplification_max': 2.5}}}),

    # --- iotune_* variables --------------------------------------------------------------------------------------
    refused('iotune_array', 'variables', 'unknown variable iotune_array (did you mean iotune_arrays?)', variables=['iotune_array']),
    refused('iotune_profle', 'variables', 'iotune_profle (did you mean iotune_profile?)', variables=['iotune_profle']),
    refused('iotune_mongodb_versions', 'variables', 'iotune_mongodb_versions (did you mean iotune_mongodb_version?)',
            variables=['iotune_mongodb_versions']),
    refused('iotune_Arrays', 'variables', 'unknown variable iotune_Arrays', variables=['iotune_Arrays']),
    refused('iotune_mine', 'variables', 'unknown variable iotune_mine', variables=['iotune_mine']),
    refused('two-and-a-plan-problem', 'variables', 'unknown variables iotune_arays (did you mean iotune_arrays?), iotune_verfy',
            variables=['iotune_arays', 'iotune_verfy'], arrays=[arr('.')]),
    accepted('run-variable', 'variables', ('profile', 'raid_chunk_kb'), 256, variables=['iotune_plan', 'iotune_readahead']),
    accepted('other-prefix', 'variables', ('profile', 'raid_chunk_kb'), 256, variables=['IOTUNE_arrays', 'iotunearrays', 'my_iotune_x']),

    # --- YAML and -e pitfalls ------------------------------------------------------------------------------------
    refused('name-int', 'yaml', 'name 2024 must be', arrays=[arr(2024)]),
    refused('name-yes', 'yaml', 'name True must be', arrays=[arr(True)]),
    refused('arrays-json-string-from-e', 'yaml', "iotune_arrays must be a list, got '[{",
            arrays='[{"name": "data", "devices": ["/dev/vdb", "/dev/vdc"], "mountpoint": "/srv/a"}]'),
    refused('array-entry-null', 'yaml', 'iotune_arrays[0] must be a dict, got None', arrays=[None]),
    refused('array-entry-string', 'yaml', "iotune_arrays[0] must be a dict, got 'data'", arrays=['data']),
    refused('unknown-array-key', 'yaml', "unknown key 'mount_point' (did you mean mountpoint?)",
            arrays=[arr(mountpoint=DEFAULT, mount_point=MP)]),
    refused('unknown-array-key-chunk', 'yaml', "unknown key 'chunk' (did you mean chunk_kb?)", arrays=[arr(chunk=64)]),
    refused('unknown-array-key-wipe', 'yaml', "unknown key 'wipe_device' (did you mean wipe_devices?)",
            arrays=[arr(wipe_device=[A])]),
    refused('single-yes-string-from-e', 'yaml', "allow_single_device must be true or false, got 'True'",
            arrays=[arr(devices=[A], allow_single_device='True')]),
    refused('label-float', 'yaml', 'label 1000.0 must be', arrays=[arr(label=1e3)]),
    refused('device-null', 'yaml', 'devices: None is neither', arrays=[arr(devices=['/dev/vdb', None])]),
    refused('extra-tuning-string', 'yaml', 'iotune_block_tuning_extra_devices must be a list of dicts', extra='rbd*'),
    refused('extra-tuning-strings', 'yaml', "iotune_block_tuning_extra_devices must be a list of dicts, got ['rbd*']",
            extra=['rbd*']),
    coerced('chunk-from-e', 'yaml', RAID + ('chunk_kb',), 128, arrays=[arr(chunk_kb='128')]),
    coerced('owner-uid', 'yaml', FS + ('group',), '1000', arrays=[arr(group=1000)]),
    accepted('arrays-null', 'yaml', ('raid0_arrays',), [], arrays=None),
    accepted('name-no-string', 'yaml', RAID + ('name',), 'no', arrays=[arr('no')]),
]


# --- the runner -----------------------------------------------------------------------------------------------------

def _get(plan, path):
    value = plan
    for part in path:
        value = value[part]
    return value


def _variables(row):
    names = ['iotune_profile', 'iotune_arrays']
    for var, key in (('iotune_profile_overrides', 'overrides'), ('iotune_block_tuning_extra_devices', 'extra'),
                     ('iotune_mongodb_version', 'mongodb_version')):
        if row[key] is not None:
            names.append(var)
    return names + row['variables']


def _plan(row):
    """The plan, made the way roles/profile/tasks/main.yml makes it."""
    return tune_plan(_profile(row['profile']), profile=row['profile'], overrides=row['overrides'], arrays=row['arrays'],
                     extra_tuning=row['extra'], mongodb_version=row['mongodb_version'], variables=_variables(row))


def _preflight(fake_host, row, plan):
    """storage_preflight's checks of the plan on the fake host (vdb..vde, by-id links virtio-volA..D)."""
    for i, kname in enumerate(['vdb', 'vdc', 'vdd', 'vde']):
        fake_host.disk(kname, '254:%d' % (16 * (i + 1)), by_id='virtio-vol%s' % 'ABCD'[i])
    fake_host.write('etc/fstab', 'LABEL=rootfs / ext4 errors=remount-ro 0 1\n')
    row['host'](fake_host)
    return Preflight({'arrays': plan['preflight_arrays'], 'fstab': '/etc/fstab'}, fake_host.view()).run()


@pytest.mark.parametrize('row', CASES)
def test_input(row, fake_host):
    if row['outcome'] == 'refused' and row['host'] is None:
        with pytest.raises(AnsibleFilterError) as e:
            _plan(row)
        message = str(e.value)
        assert message.startswith(REFUSED_PREFIX), message
        assert row['expect'] in message, message
        return
    plan = _plan(row)
    if row['host'] is not None:
        if row['outcome'] == 'refused':
            with pytest.raises(PreflightError) as e:
                _preflight(fake_host, row, plan)
            message = '; '.join(e.value.problems)
            assert row['expect'] in message, message
            return
        _preflight(fake_host, row, plan)
    if row['expect'] is not None:
        path, value = row['expect']
        assert _get(plan, path) == value


def test_the_battery_is_large_enough_and_each_refusal_names_something():
    ids = [p.id for p in CASES]
    assert len(ids) == len(set(ids)) and len(ids) >= 150, len(ids)
    for p in CASES:
        row = p.values[0]
        assert row['outcome'] in ('refused', 'accepted', 'coerced')
        if row['outcome'] != 'accepted':
            assert row['expect'], p.id
