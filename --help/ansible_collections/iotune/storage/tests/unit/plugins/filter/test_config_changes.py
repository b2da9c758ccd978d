# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""config_changes: bad input is an error, not a silent "nothing to write" and it gives the
answer of the config_files module in check mode."""

from __future__ import annotations

import os

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.iotune.storage.plugins.filter.config_changes import config_changes
from ansible_collections.iotune.storage.plugins.module_utils import files as fileutil
from ansible_collections.iotune.storage.plugins.modules import config_files

STATE = {'path': '/etc/x.conf', 'checksum': '3f786850e387550fdab836ed7e6dc881de23001b', 'mode': '0644',
         'pw_name': 'root', 'gr_name': 'root', 'uid': 0, 'gid': 0, 'isreg': True, 'islnk': False, 'isdir': False}


def test_equal_files_need_no_call_and_a_difference_names_the_path():
    assert config_changes([{'path': '/etc/x.conf', 'content': 'a\n'}], [STATE]) == []
    assert config_changes([{'path': '/etc/x.conf', 'content': 'b\n'}], [STATE]) == ['/etc/x.conf']
    assert config_changes([], [STATE], remove_unlisted=['/etc/*.conf']) == ['/etc/x.conf']


@pytest.mark.parametrize('wanted, found, unlisted', [
    (None, [], []), ([{'content': 'a'}], [], []), ([], {'path': '/x'}, []), ([], [], '/etc/*.conf')])
def test_bad_input_is_refused(wanted, found, unlisted):
    with pytest.raises(AnsibleFilterError, match='config_changes'):
        config_changes(wanted, found, remove_unlisted=unlisted)


# The snapshot the preflight reads and the filter config_changes judge: they must give the module's answer,
# or a role would skip a write the module would make.
def predicted(files, remove_unlisted=()):
    read = fileutil.snapshot([f['path'] for f in files] + list(remove_unlisted))
    found = [state for states in read.values() for state in states]
    return config_changes([dict(f) for f in files], found, remove_unlisted=list(remove_unlisted))


def scenario(tmp_path, name):  # noqa: C901 -- one branch per scenario
    """One host state and the wanted files (the module's defaults: owner and group root)."""
    path, other = tmp_path / 'a.d' / 'x.conf', tmp_path / 'b.d' / 'x.conf'
    path.parent.mkdir()
    other.parent.mkdir()
    path.write_text('a\n')
    os.chmod(path, 0o644)
    files = [dict(path=str(path), content='a\n', state='present', mode='0644', owner='root', group='root')]
    if name == 'content':
        path.write_text('old\n')
    elif name == 'mode':
        os.chmod(path, 0o600)
    elif name == 'owner':
        os.chown(path, 1, 0)
    elif name == 'group':
        os.chown(path, 0, 1)
    elif name == 'missing':
        path.unlink()
    elif name == 'absent':
        files[0]['state'] = 'absent'
    elif name == 'unlisted':
        other.write_text('a\n')
    elif name == 'link':
        target = tmp_path / 'target'
        target.write_text('a\n')
        path.unlink()
        path.symlink_to(target)
    elif name == 'numeric_owner':
        files[0]['owner'], files[0]['group'] = '0', '0'
    return files


@pytest.mark.skipif(os.getuid() != 0, reason='changes owners')
@pytest.mark.parametrize('name, differs', [('same', False), ('numeric_owner', False), ('content', True),
                                           ('mode', True), ('owner', True), ('group', True), ('missing', True),
                                           ('absent', True), ('unlisted', True)])
def test_the_snapshot_predicts_what_the_module_changes(tmp_path, name, differs):
    files = scenario(tmp_path, name)
    pattern = str(tmp_path / '*.d' / 'x.conf')
    expected, dummy = config_files.ConfigFiles([dict(f) for f in files], check_mode=True, remove_unlisted=[pattern]).converge()
    assert predicted(files, [pattern]) == expected
    assert bool(expected) is differs


@pytest.mark.skipif(os.getuid() != 0, reason='the wanted owner is root')
def test_a_symlink_makes_the_call_run_even_when_the_module_would_find_nothing(tmp_path):
    # the module follows the link and finds the content; the snapshot does not judge links (the safe side)
    files = scenario(tmp_path, 'link')
    os.chmod(str(tmp_path / 'target'), 0o644)
    expected, dummy = config_files.ConfigFiles([dict(f) for f in files], check_mode=True).converge()
    assert expected == [] and predicted(files) == [files[0]['path']]
