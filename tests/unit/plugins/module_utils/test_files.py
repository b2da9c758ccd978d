# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/files.py: the one atomic file writer."""

from __future__ import annotations

import os
import stat

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import files


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_new_file_gets_the_mode_and_its_directory(tmp_path):
    path = tmp_path / 'etc' / 'mdadm' / 'mdadm.conf'
    files.write_text(str(path), 'ARRAY x\n')
    assert path.read_text() == 'ARRAY x\n'
    assert mode(path) == 0o644
    assert mode(path.parent) == 0o755 & ~_umask()


def test_existing_file_keeps_its_mode_and_nothing_is_left_behind(tmp_path):
    path = tmp_path / 'rules'
    path.write_text('old\n')
    os.chmod(path, 0o600)
    files.write_text(str(path), 'new\n')
    assert path.read_text() == 'new\n'
    assert mode(path) == 0o600
    assert os.listdir(tmp_path) == ['rules']


def test_the_replace_callable_does_the_rename(tmp_path):
    """In a module run ``replace`` is AnsibleModule.atomic_move: it must be the one that renames."""
    calls = []

    def replace(src, dest):
        calls.append((os.path.dirname(src), os.path.basename(src).startswith('.x-'), dest))
        os.replace(src, dest)

    path = tmp_path / 'f'
    files.write_text(str(path), 'a', replace, prefix='.x-')
    assert calls == [(str(tmp_path), True, str(path))]


def test_a_failed_replace_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / 'f'
    path.write_text('old')

    def replace(src, dest):
        raise OSError('disk full')

    with pytest.raises(OSError):
        files.write_text(str(path), 'new', replace)
    assert path.read_text() == 'old'
    assert os.listdir(tmp_path) == ['f']


def _umask():
    current = os.umask(0)
    os.umask(current)
    return current


def test_snapshot_by_pattern_with_the_keys_of_find(tmp_path):
    (tmp_path / 'a.d').mkdir()
    conf = tmp_path / 'a.d' / 'x.conf'
    conf.write_text('a\n')
    os.chmod(conf, 0o640)
    (tmp_path / 'link.conf').symlink_to(conf)
    read = files.snapshot([str(tmp_path / '*.d' / 'x.conf'), str(tmp_path / '*.conf'), str(tmp_path / 'none')])
    assert read[str(tmp_path / 'none')] == []
    state, = read[str(tmp_path / '*.d' / 'x.conf')]
    assert state['path'] == str(conf) and state['mode'] == '0640' and state['isreg'] and not state['islnk']
    assert state['checksum'] == '3f786850e387550fdab836ed7e6dc881de23001b'  # sha1 of "a\n", as find gives it
    assert state['uid'] == os.getuid() and state['pw_name']
    link, = read[str(tmp_path / '*.conf')]
    assert link['islnk'] and 'checksum' not in link


@pytest.mark.parametrize('pattern, path, matches', [
    ('/etc/systemd/system/*.d/x.conf', '/etc/systemd/system/a.service.d/x.conf', True),
    ('/etc/systemd/system/*.d/x.conf', '/etc/systemd/system/a/b.d/x.conf', False),  # * stays in one part
    ('/etc/systemd/system/*.d/x.conf', '/etc/systemd/system/a.service.d/y.conf', False),
    ('/etc/x-[0-9].conf', '/etc/x-1.conf', True),
])
def test_pattern_matches_like_glob(pattern, path, matches):
    assert files.pattern_matches(pattern, path) is matches


def test_a_literal_path_with_glob_characters_is_read(tmp_path):
    odd = tmp_path / 'x[1].conf'
    odd.write_text('a\n')
    assert [s['path'] for s in files.snapshot([str(odd)])[str(odd)]] == [str(odd)]


def test_a_path_the_snapshot_did_not_read_counts_as_missing():
    wanted = [{'path': '/etc/x.conf', 'content': 'a\n'}]
    assert files.pending_changes(wanted, []) == ['/etc/x.conf']
    assert files.pending_changes([{'path': '/etc/x.conf', 'state': 'absent'}], []) == []


def test_remove_unlinks_and_syncs_the_directory_and_a_missing_file_is_no_error(tmp_path, monkeypatch):
    path = tmp_path / 'unit.d' / 'drop-in.conf'
    files.write_text(str(path), 'x\n')
    synced = []
    monkeypatch.setattr(files, '_fsync_directory', synced.append)
    assert files.remove(str(path)) is True and not path.exists()
    assert synced == [str(tmp_path / 'unit.d')]
    # negative control: nothing to remove, nothing synced
    assert files.remove(str(path)) is False and synced == [str(tmp_path / 'unit.d')]
