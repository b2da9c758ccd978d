# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""config_files: several small files in one call, only what differs is written."""

from __future__ import annotations

import os
import stat

import pytest

from ansible_collections.iotune.storage.plugins.modules import config_files as mod
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.module_run import run_module as run_main

UID, GID = os.getuid(), os.getgid()


def wanted(path, content='a\n', state='present', mode='0644', owner=str(UID), group=str(GID)):
    return dict(path=str(path), content=content, state=state, mode=mode, owner=owner, group=group)


def converge(*files, check_mode=False, remove_unlisted=()):
    return mod.ConfigFiles([dict(f) for f in files], check_mode=check_mode, remove_unlisted=remove_unlisted).converge()


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_writes_only_what_differs_and_a_second_run_changes_nothing(tmp_path):
    same, other, new = tmp_path / 'same.conf', tmp_path / 'other.conf', tmp_path / 'd' / 'new.conf'
    same.write_text('a\n')
    os.chmod(same, 0o644)
    other.write_text('old\n')
    os.chmod(other, 0o644)
    files = [wanted(same), wanted(other, 'b\n'), wanted(new, 'c\n')]
    changed, diffs = converge(*files)
    assert changed == [str(other), str(new)]
    assert [(d['before'], d['after']) for d in diffs] == [('old\n', 'b\n'), ('', 'c\n')]
    assert other.read_text() == 'b\n' and new.read_text() == 'c\n' and mode(new) == 0o644
    assert converge(*files) == ([], [])


def test_a_wrong_mode_alone_is_fixed_without_rewriting(tmp_path):
    path = tmp_path / 'f'
    path.write_text('a\n')
    os.chmod(path, 0o600)
    inode = os.stat(path).st_ino
    changed, dummy = converge(wanted(path))
    assert changed == [str(path)] and mode(path) == 0o644
    assert os.stat(path).st_ino == inode


def test_absent_removes_and_a_missing_file_is_no_change(tmp_path):
    path = tmp_path / 'gone.conf'
    path.write_text('x\n')
    assert converge(wanted(path, None, state='absent'))[0] == [str(path)]
    assert not path.exists()
    assert converge(wanted(path, None, state='absent')) == ([], [])


def test_remove_unlisted_removes_only_matching_files_not_listed(tmp_path):
    for unit in ('a', 'b', 'c'):
        (tmp_path / ('%s.service.d' % unit)).mkdir()
        (tmp_path / ('%s.service.d' % unit) / 'mounts.conf').write_text('x\n')
    (tmp_path / 'c.service.d' / 'other.conf').write_text('keep\n')
    pattern = str(tmp_path / '*.d' / 'mounts.conf')
    keep = tmp_path / 'a.service.d' / 'mounts.conf'
    changed, diffs = converge(wanted(keep, 'x\n'), remove_unlisted=[pattern], check_mode=True)
    assert changed == [str(tmp_path / 'b.service.d' / 'mounts.conf'), str(tmp_path / 'c.service.d' / 'mounts.conf')]
    assert (tmp_path / 'b.service.d' / 'mounts.conf').exists()
    changed, diffs = converge(wanted(keep, 'x\n'), remove_unlisted=[pattern])
    assert sorted(p.name for p in tmp_path.glob('*.d/*')) == ['mounts.conf', 'other.conf']
    assert keep.exists() and diffs[0]['after'] == ''
    assert converge(wanted(keep, 'x\n'), remove_unlisted=[pattern]) == ([], [])


def test_check_mode_predicts_and_touches_nothing(tmp_path):
    path, gone = tmp_path / 'f', tmp_path / 'g'
    path.write_text('old\n')
    gone.write_text('x\n')
    changed, diffs = converge(wanted(path, 'new\n'), wanted(tmp_path / 'n', 'n\n'), wanted(gone, None, state='absent'),
                              check_mode=True)
    assert changed == [str(path), str(tmp_path / 'n'), str(gone)]
    assert diffs[0]['after'] == 'new\n'
    assert path.read_text() == 'old\n' and not (tmp_path / 'n').exists() and gone.exists()


@pytest.mark.parametrize('bad, message', [
    (dict(path='relative.conf'), 'is not absolute'),
    (dict(content=None), 'has state present but no content'),
    (dict(mode='rw-r--r--'), 'is not an octal mode'),
    (dict(mode='17777'), 'out of range'),
    (dict(owner='no-such-user-iotune'), 'does not exist on the host'),
])
def test_bad_input_fails_before_any_file_is_written(tmp_path, bad, message):
    first = tmp_path / 'first.conf'
    files = [wanted(first), dict(wanted(tmp_path / 'second.conf'), **bad)]
    with pytest.raises(mod.ConfigError, match=message):
        converge(*files)
    assert not first.exists()


def test_a_relative_remove_unlisted_pattern_is_refused(tmp_path):
    with pytest.raises(mod.ConfigError, match='not an absolute path'):
        converge(wanted(tmp_path / 'f'), remove_unlisted=['*.conf'])
    assert not (tmp_path / 'f').exists()


def run_module(capsys, args):
    return run_main(mod, args, capsys)


def test_module_returns_changed_paths_and_diff(tmp_path, capsys):
    path = tmp_path / 'f.conf'
    args = {'files': [wanted(path, 'x\n')], '_ansible_diff': True}
    code, out = run_module(capsys, args)
    assert code == 0 and out['changed'] is True and out['changed_paths'] == [str(path)]
    assert out['diff'][0]['after'] == 'x\n' and path.read_text() == 'x\n'
    code, out = run_module(capsys, args)
    assert out['changed'] is False and out['changed_paths'] == []


def test_module_fails_with_the_message(tmp_path, capsys):
    code, out = run_module(capsys, {'files': [wanted(tmp_path / 'f', mode='x')]})
    assert code == 1 and 'is not an octal mode' in out['msg']


def test_the_snapshot_needs_absolute_patterns():
    from ansible_collections.iotune.storage.plugins.module_utils import files as fileutil
    with pytest.raises(ValueError, match='not an absolute path'):
        fileutil.snapshot(['etc/x'])
