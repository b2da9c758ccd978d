# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""plugin_utils/file_sync.py (issue 24): the states of a role's files from a caller's read (filter
files_read_states), and which files of a copy loop differ (filter copy_changes, by module_utils/files.py's rule)."""

from __future__ import annotations

import hashlib
import os

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.config_changes import config_changes
from ansible_collections.iotune.storage.plugins.filter.copy_changes import copy_changes
from ansible_collections.iotune.storage.plugins.filter.files_read_states import files_read_states
from ansible_collections.iotune.storage.plugins.module_utils import files as fileutil
from ansible_collections.iotune.storage.plugins.plugin_utils import file_sync


def state(path, content='', mode='0644', owner='root', group='root', kind='file'):
    """A file state as ansible.builtin.find and storage_preflight's files return it (checksum: regular files)."""
    s = {'path': path, 'mode': mode, 'pw_name': owner, 'gr_name': group, 'uid': 0 if owner == 'root' else 1000,
         'gid': 0 if group == 'root' else 1000, 'isreg': kind == 'file', 'isdir': kind == 'dir', 'islnk': kind == 'link'}
    if kind == 'file':
        s['checksum'] = hashlib.sha1(content.encode('utf-8')).hexdigest()
    return s


SYSCTL, THP = '/etc/sysctl.d/90-iotune.conf', '/etc/systemd/system/iotune-thp.service'


# --- read_states -----------------------------------------------------------------------------------------------
def test_the_states_of_every_pattern_in_the_order_of_the_patterns():
    read = {THP: [state(THP)], SYSCTL: [state(SYSCTL)], '/other': [state('/other')]}
    assert file_sync.read_states(read, [SYSCTL, THP]) == [state(SYSCTL), state(THP)]
    assert file_sync.read_states(read, [THP]) == [state(THP)]
    assert file_sync.read_states(read, []) == []


@pytest.mark.parametrize('read', [{}, {SYSCTL: [state(SYSCTL)]}, None, [state(SYSCTL), state(THP)], 'x'])
def test_null_when_the_read_lacks_a_pattern_or_is_no_read(read):
    # {}: the tune role made no read; one pattern missing: the role reads its files itself
    assert file_sync.read_states(read, [SYSCTL, THP]) is None
    assert files_read_states(read, [SYSCTL, THP]) is None


def test_a_pattern_that_matched_nothing_or_null_gives_no_state():
    # flattened as Ansible's flatten did in the roles' Jinja: a null entry is nothing, nested lists are flattened
    read = {SYSCTL: [], THP: None, '/x/*': [[state('/x/a')], state('/x/b')]}
    assert file_sync.read_states(read, [SYSCTL, THP, '/x/*']) == [state('/x/a'), state('/x/b')]


UNITS = ['/etc/systemd/system/iotune-ephemeral-*.service', '/etc/systemd/system/*/iotune-ephemeral-*.service']
LIB = ['/usr/local/lib/iotune-storage/iotune-ephemeral', '/etc/iotune-storage/ephemeral/*.json']


def typed_read():
    unit, link = state('/etc/systemd/system/iotune-ephemeral-a.service'), state(
        '/etc/systemd/system/local-fs.target.wants/iotune-ephemeral-a.service', kind='link')
    return {UNITS[0]: [unit, state('/etc/systemd/system/iotune-ephemeral-d.service', kind='dir')],
            UNITS[1]: [link, state('/etc/systemd/system/x/iotune-ephemeral-y.service', kind='dir')],
            LIB[0]: [state(LIB[0], kind='link')],
            LIB[1]: [state('/etc/iotune-storage/ephemeral/a.json'), state('/etc/iotune-storage/ephemeral/b.json', kind='dir')]}


def test_file_types_keep_the_states_the_find_would_find():
    read = typed_read()
    found = file_sync.read_states(read, UNITS + LIB, file_types={'not_directory': UNITS, 'file': LIB})
    # units and links but no directory; of the lib patterns regular files only (not the link, not the directory)
    assert [s['path'] for s in found] == ['/etc/systemd/system/iotune-ephemeral-a.service',
                                          '/etc/systemd/system/local-fs.target.wants/iotune-ephemeral-a.service',
                                          '/etc/iotune-storage/ephemeral/a.json']
    # a pattern without a type keeps everything
    assert len(file_sync.read_states(read, UNITS + LIB, file_types={'file': LIB})) == 5
    assert len(file_sync.read_states(read, UNITS + LIB, file_types={'any': UNITS + LIB})) == 7


def test_unique_drops_a_state_two_patterns_read():
    same = state('/etc/iotune-storage/iotune-ephemeral')
    read = {'/etc/iotune-storage/iotune-ephemeral': [same], '/etc/iotune-storage/*': [same, state('/etc/iotune-storage/a.json')]}
    patterns = ['/etc/iotune-storage/iotune-ephemeral', '/etc/iotune-storage/*']
    assert [s['path'] for s in file_sync.read_states(read, patterns, unique=True)] == [
        '/etc/iotune-storage/iotune-ephemeral', '/etc/iotune-storage/a.json']
    assert len(file_sync.read_states(read, patterns)) == 3


def test_a_typed_state_without_its_type_or_an_unknown_type_is_an_error():
    read = {LIB[0]: [{'path': LIB[0], 'mode': '0644'}]}
    with pytest.raises(KeyError):
        file_sync.read_states(read, LIB[:1], file_types={'file': LIB[:1]})
    with pytest.raises(AnsibleFilterError, match='not a file state with isreg and isdir'):
        files_read_states(read, LIB[:1], file_types={'file': LIB[:1]})
    with pytest.raises(AnsibleFilterError, match="unknown file type 'link'"):
        files_read_states(read, LIB[:1], file_types={'link': LIB[:1]})


@pytest.mark.parametrize('globs, file_types', [('/etc/x', None), ([1], None), ([SYSCTL], ['file']),
                                               ([SYSCTL], {'file': SYSCTL})])
def test_bad_arguments_are_refused(globs, file_types):
    with pytest.raises(AnsibleFilterError, match='files_read_states'):
        files_read_states({SYSCTL: []}, globs, file_types=file_types)


# --- copy_changes ----------------------------------------------------------------------------------------------
PROGRAM = {'dest': '/usr/local/lib/iotune-storage/iotune-ephemeral', 'mode': '0755', 'content': '#!/usr/bin/python3\n'}
SPEC = {'dest': '/etc/iotune-storage/ephemeral/data.json', 'content': '{}\n'}
WANTED = [PROGRAM, SPEC]


def as_found(entries, **changes):
    return [dict(state(e['dest'], e['content'], e.get('mode', '0644')), **changes) for e in entries]


def test_files_as_wanted_need_no_write():
    assert file_sync.copy_changes(WANTED, as_found(WANTED)) == []
    assert copy_changes(WANTED, as_found(WANTED) + [state('/etc/other')]) == []


@pytest.mark.parametrize('found, written', [
    ([], WANTED),                                                            # nothing there yet
    (as_found([PROGRAM]), [SPEC]),                                            # one missing
    (as_found([PROGRAM, dict(SPEC, content='{"old": 1}\n')]), [SPEC]),        # content (sha1)
    (as_found([dict(PROGRAM, mode='0644'), SPEC]), [PROGRAM]),               # mode
    (as_found([PROGRAM, dict(SPEC, mode='0600')]), [SPEC]),                  # mode, the default 0644 wanted
    (as_found([PROGRAM]) + as_found([SPEC], pw_name='cassandra', uid=1000), [SPEC]),  # another user's file
    (as_found([PROGRAM]) + as_found([SPEC], gr_name='adm', gid=4), [SPEC]),   # another group
    (as_found([PROGRAM]) + [state(SPEC['dest'], kind='link')], [SPEC]),      # a symlink (no checksum)
    (as_found([PROGRAM]) + [state(SPEC['dest'], kind='dir')], [SPEC]),       # a directory
    ([dict(s, checksum=None) for s in as_found(WANTED)], WANTED),            # read without checksums
])
def test_a_file_that_differs_is_written_and_only_that_one(found, written):
    assert copy_changes(WANTED, found) == written


def test_the_same_rule_as_config_changes():
    """copy_changes is config_changes (module_utils/files.pending_changes) for entries keyed by dest: they agree on
    every difference (content, mode, owner, group, type), so the ephemeral role and config_files judge alike."""
    variants = [{}, {'mode': '0600'}, {'pw_name': 'nobody', 'uid': 65534}, {'gr_name': 'adm', 'gid': 4},
                {'checksum': '0' * 40}, {'isreg': False}]
    for changes in variants:
        for index in range(len(WANTED)):
            found = as_found(WANTED)
            found[index].update(changes)
            as_config = [{'path': e['dest'], 'content': e['content'], 'mode': e.get('mode')} for e in WANTED]
            assert [e['dest'] for e in copy_changes(WANTED, found)] == config_changes(as_config, found), changes


@pytest.mark.skipif(os.getuid() != 0, reason='changes owners')
def test_real_files_read_by_the_snapshot(tmp_path):
    wanted = [{'dest': str(tmp_path / 'prog'), 'mode': '0755', 'content': 'a\n'},
              {'dest': str(tmp_path / 'spec.json'), 'content': 'b\n'}]
    for entry in wanted:
        fileutil.write_text(entry['dest'], entry['content'], mode=int(entry.get('mode', '0644'), 8))

    def found():
        return [s for states in fileutil.snapshot([str(tmp_path / '*')]).values() for s in states]
    assert copy_changes(wanted, found()) == []
    os.chown(wanted[1]['dest'], 1000, 0)
    assert copy_changes(wanted, found()) == [wanted[1]]
    os.chown(wanted[1]['dest'], 0, 0)
    os.chmod(wanted[0]['dest'], 0o644)
    assert copy_changes(wanted, found()) == [wanted[0]]


@pytest.mark.parametrize('files, found', [(None, []), ([{'content': 'x'}], []), ([SPEC], [{'mode': '0644'}]),
                                          ([SPEC], {'path': '/x'})])
def test_copy_changes_refuses_bad_input(files, found):
    with pytest.raises(AnsibleFilterError, match='copy_changes'):
        copy_changes(files, found)


def test_a_state_without_a_mode_is_an_error():
    with pytest.raises(AnsibleFilterError, match='copy_changes: a file state lacks'):
        copy_changes([SPEC], [{'path': SPEC['dest'], 'checksum': state('', SPEC['content'])['checksum'], 'isreg': True}])
