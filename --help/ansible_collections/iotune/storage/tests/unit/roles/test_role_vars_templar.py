# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The role vars that call the filters of issue 24, rendered by Ansible's own templar (lazy variables, the
collection's filters by their full names, the template lookups of the ephemeral role): the files the ephemeral role
writes, enables and removes, the states of the roles' files from the tune role's read, the xfs role's old mount
points and what makes a tune stage's read stale. Every case renders in one other interpreter (render_role_vars.py)."""

from __future__ import annotations

import hashlib

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.files import pattern_matches
from ansible_collections.iotune.storage.tests.unit.roles import templar


def render_all(cases):
    """[{name: value}] of each case ``(role, names, vars)``: the role's variables ``names`` (expressions) with
    ``vars`` set, as a task would see them (an error as {'error': text})."""
    return templar.render_requests({'role': role, 'names': names, 'vars': variables} for role, names, variables in cases)


# --- ephemeral ---------------------------------------------------------------------------------------------------
DATA = {'name': 'data', 'devices': ['/dev/disk/by-id/nvme-a', '/dev/disk/by-id/nvme-b'], 'chunk_kb': 256,
        'label': 'data', 'mountpoint': '/var/lib/cassandra', 'services': ['cassandra.service']}
ONE = {'ephemeral_arrays': [DATA], 'ephemeral_mount_units': {'stdout': 'var-lib-cassandra.mount\n'}}
PROGRAM = '/usr/local/lib/iotune-storage/iotune-ephemeral'
SPEC = '/etc/iotune-storage/ephemeral/data.json'
UNIT = '/etc/systemd/system/iotune-ephemeral-data.service'
LINK = '/etc/systemd/system/local-fs.target.wants/iotune-ephemeral-data.service'
DROPIN = '/etc/systemd/system/cassandra.service.d/iotune-storage-ephemeral.conf'
SYNC = ['ephemeral_found_files', 'ephemeral_found', 'ephemeral_to_write', 'ephemeral_to_enable', 'ephemeral_stale']
ROLES = ('kernel', 'metrics', 'xfs')


def state(path, content=None, mode='0644', kind='file'):
    s = {'path': path, 'mode': mode, 'pw_name': 'root', 'gr_name': 'root', 'uid': 0, 'gid': 0,
         'isreg': kind == 'file', 'isdir': kind == 'dir', 'islnk': kind == 'link'}
    if kind == 'file':
        s['checksum'] = hashlib.sha1((content or '').encode('utf-8')).hexdigest()
    return s


@pytest.fixture(scope='module')
def first():
    """The files of one array as the role writes them, and the patterns each role reads."""
    got = render_all([('ephemeral', ['ephemeral_files', 'ephemeral_file_globs'], ONE)]
                     + [(role, ['%s_file_globs' % role], {}) for role in ROLES])
    files = got[0]['ephemeral_files']
    states = [state(f['dest'], f['content'], f.get('mode', '0644')) for f in files] + [state(LINK, kind='link')]
    globs = dict((role, got[index + 1]['%s_file_globs' % role]) for index, role in enumerate(ROLES))
    globs['ephemeral'] = got[0]['ephemeral_file_globs']
    return {'files': files, 'states': states, 'globs': globs}


def as_read(globs, states):
    """storage_preflight's files result for the patterns ``globs``."""
    return dict((g, [s for s in states if pattern_matches(g, s['path'])]) for g in globs)


DIFFERS = {'owner': (SPEC, {'pw_name': 'cassandra', 'uid': 1000}),  # a file owned by another user
           'mode': (PROGRAM, {'mode': '0644'}),                      # a mode difference
           'content': (DROPIN, {'checksum': '0' * 40}),              # another content
           'group': (UNIT, {'gr_name': 'adm', 'gid': 4})}            # another group


def cases(first):  # pylint: disable=redefined-outer-name
    globs, states = first['globs'], first['states']
    read = as_read(globs['ephemeral'], states)
    lacking = dict((g, v) for g, v in read.items() if g != '/etc/iotune-storage/ephemeral/*.json')
    odd = [state('/etc/systemd/system/iotune-ephemeral-old.service', kind='dir'), state(PROGRAM, kind='link')]
    found = {}
    found['none'] = ('ephemeral', SYNC + ['ephemeral_files'], {'ephemeral_files_read': as_read(globs['ephemeral'], [])})
    found['no arrays'] = ('ephemeral', SYNC, {'ephemeral_files_read': read})
    found['as written'] = ('ephemeral', SYNC, dict(ONE, ephemeral_files_read=read))
    for name, (path, changes) in DIFFERS.items():
        changed = [dict(s, **changes) if s['path'] == path else s for s in states]
        found[name] = ('ephemeral', SYNC, dict(ONE, ephemeral_files_read=as_read(globs['ephemeral'], changed)))
    found['lacking'] = ('ephemeral', SYNC, dict(
        ONE, ephemeral_files_read=lacking,
        ephemeral_found_units={'files': [s for s in states if s['path'].startswith('/etc/systemd/')]},
        ephemeral_found_lib={'files': [s for s in states if s['path'] == PROGRAM]}))
    found['odd'] = ('ephemeral', SYNC, dict(ONE, ephemeral_files_read=as_read(
        globs['ephemeral'], [s for s in states if s['path'] != PROGRAM] + odd)))
    for role in ROLES:
        full = dict((g, [state(g.replace('*', 'x'))]) for g in globs[role])
        name = '%s_found_files' % role
        found[role + ' full'] = (role, [name], {'%s_files_read' % role: full})
        found[role + ' lacking'] = (role, [name], {'%s_files_read' % role: dict(list(full.items())[:-1])})
        found[role + ' default'] = (role, [name], {})
    found['xfs_stale'] = ('xfs', ['xfs_stale'], {'xfs_filesystems': [], 'xfs_created': {'results': [
        {'uuid': 'u1', 'fstab_elsewhere': ['/old'], 'mounted_elsewhere': ['/old', '/older']},
        {'skipped': True}, {'uuid': 'u2', 'fstab_elsewhere': [], 'mounted_elsewhere': []}]}})
    stale = ['tune_stale_after_raid0', 'tune_stale_after_xfs', 'tune_stale_after_block_tuning']
    found['tune installs'] = ('tune', stale, {'raid0_install_packages': True,
                                              'profile_preflight_result': {'packages_missing': None},
                                              'xfs_mounted': {'results': [{'changed': False}, {'changed': True}]}})
    found['tune nothing'] = ('tune', stale, {'raid0_install_packages': False, 'profile_preflight_result': {'skipped': True}})
    return found


@pytest.fixture(scope='module')
def rendered(first):  # pylint: disable=redefined-outer-name
    found = cases(first)
    return dict(zip(found, render_all(list(found.values()))))


def test_the_files_of_one_array(first):  # pylint: disable=redefined-outer-name
    files = first['files']
    assert [f['dest'] for f in files] == [PROGRAM, SPEC, UNIT, DROPIN]
    assert files[0]['mode'] == '0755' and files[0]['content'].startswith('#!/usr/bin/python3\n')
    assert '"mount_unit": "var-lib-cassandra.mount"' in files[1]['content'] and files[1]['content'].endswith('}\n')
    assert 'Before=var-lib-cassandra.mount shutdown.target\n' in files[2]['content']
    assert files[3]['content'].endswith('Requires=iotune-ephemeral-data.service\nAfter=iotune-ephemeral-data.service\n')


def test_no_arrays_and_nothing_found_nothing_to_do(rendered):  # pylint: disable=redefined-outer-name
    assert rendered['none'] == {'ephemeral_found_files': [], 'ephemeral_found': [], 'ephemeral_to_write': [],
                                'ephemeral_to_enable': [], 'ephemeral_stale': [], 'ephemeral_files': []}


def test_no_arrays_any_more_everything_of_the_earlier_run_is_stale(rendered):  # pylint: disable=redefined-outer-name
    got = rendered['no arrays']
    assert got['ephemeral_to_write'] == [] and got['ephemeral_to_enable'] == []
    # the boot program goes with its directory (a task of its own)
    assert got['ephemeral_stale'] == [UNIT, LINK, DROPIN, SPEC]


def test_files_as_written_nothing_to_write_enable_or_remove(first, rendered):  # pylint: disable=redefined-outer-name
    got = rendered['as written']
    assert sorted(s['path'] for s in got['ephemeral_found_files']) == sorted(s['path'] for s in first['states'])
    assert (got['ephemeral_to_write'], got['ephemeral_to_enable'], got['ephemeral_stale']) == ([], [], [])


@pytest.mark.parametrize('name', sorted(DIFFERS))
def test_the_one_file_that_differs_is_written(first, rendered, name):  # pylint: disable=redefined-outer-name
    path = DIFFERS[name][0]
    assert rendered[name]['ephemeral_to_write'] == [f for f in first['files'] if f['dest'] == path]
    assert rendered[name]['ephemeral_stale'] == [] and rendered[name]['ephemeral_to_enable'] == []


def test_a_read_that_lacks_a_glob_leaves_it_to_the_finds(first, rendered):  # pylint: disable=redefined-outer-name
    got = rendered['lacking']
    assert got['ephemeral_found_files'] is None
    assert [s['path'] for s in got['ephemeral_found']] == [UNIT, DROPIN, LINK, PROGRAM]
    # the spec was not among what the finds found: written
    assert [f['dest'] for f in got['ephemeral_to_write']] == [SPEC] and got['ephemeral_to_enable'] == []


def test_the_read_keeps_what_the_finds_would_find(rendered):  # pylint: disable=redefined-outer-name
    """A directory under the unit patterns and a link under the lib patterns are not what the role wrote."""
    got = rendered['odd']
    assert [s['path'] for s in got['ephemeral_found_files']] == [UNIT, LINK, DROPIN, SPEC]
    assert [f['dest'] for f in got['ephemeral_to_write']] == [PROGRAM] and got['ephemeral_stale'] == []


# --- kernel, metrics, xfs: the states of their files from the tune role's read ---------------------------------
@pytest.mark.parametrize('role', ROLES)
def test_found_files_from_a_read_that_holds_every_glob_else_null(first, rendered, role):  # pylint: disable=redefined-outer-name
    name = '%s_found_files' % role
    assert rendered[role + ' full'][name] == [state(g.replace('*', 'x')) for g in first['globs'][role]]
    assert rendered[role + ' lacking'][name] is None
    assert rendered[role + ' default'][name] is None   # the default {}: the role reads them itself


def test_xfs_stale_the_old_mount_points_of_each_filesystem(rendered):  # pylint: disable=redefined-outer-name
    assert rendered['xfs_stale'] == {'xfs_stale': [['u1', '/old'], ['u1', '/older']]}


# --- tune: what changed the host before each stage ---------------------------------------------------------------
def test_tune_stale_after_each_stage(rendered):  # pylint: disable=redefined-outer-name
    installs, xfs = 'the raid0 stage installs packages in this run', 'the xfs stage changed the host in this run'
    assert rendered['tune installs'] == {'tune_stale_after_raid0': [installs],
                                         'tune_stale_after_xfs': [installs, xfs],
                                         'tune_stale_after_block_tuning': [installs, xfs]}
    assert rendered['tune nothing'] == {'tune_stale_after_raid0': [], 'tune_stale_after_xfs': [],
                                        'tune_stale_after_block_tuning': []}
