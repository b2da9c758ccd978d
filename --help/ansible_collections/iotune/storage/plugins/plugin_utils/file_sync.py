# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the roles decide from file states read earlier in the run (issue 24).

``read_states`` takes the states of a role's patterns from a caller's read (storage_preflight's ``files``: {pattern:
[states]}), or None when that read lacks a pattern (the role then reads them itself). ``copy_changes`` tells which
entries of an ``ansible.builtin.copy`` loop differ from the states found, by the rule of the config_files module
(``module_utils/files.pending_changes``: sha1 of the content, mode, owner and group root).
"""

from __future__ import annotations

from collections.abc import Mapping

from ansible.plugins.filter.core import flatten

from ansible_collections.iotune.storage.plugins.module_utils import files as fileutil

# file_types of read_states: which states of a pattern count (the types of the ansible.builtin.find that reads them)
FILE_TYPES = {
    'any': lambda state: True,
    'file': lambda state: bool(state['isreg']),
    'not_directory': lambda state: not state['isdir'],
}


def read_states(read, globs, file_types=None, unique=False):
    """The states of ``globs`` in ``read``, pattern by pattern, or None unless ``read`` is a mapping that holds every
    pattern. ``file_types`` ({type: [patterns]}) keeps only the states of that type for those patterns; ``unique``
    drops a state listed twice (two patterns read the same file)."""
    if not isinstance(read, Mapping) or any(pattern not in read for pattern in globs):
        return None
    type_of = {}
    for file_type, patterns in (file_types or {}).items():
        if file_type not in FILE_TYPES:
            raise ValueError('unknown file type %r (one of %s)' % (file_type, ', '.join(sorted(FILE_TYPES))))
        type_of.update((pattern, file_type) for pattern in patterns)
    states = []
    for pattern in globs:
        keep = FILE_TYPES[type_of.get(pattern, 'any')]
        # flatten as the roles' Jinja did (a null entry is nothing)
        states.extend(state for state in flatten([read[pattern]]) if keep(state))
    if unique:
        states = [state for index, state in enumerate(states) if state not in states[:index]]
    return states


def copy_changes(files, found):
    """The entries of ``files`` ({dest, content, mode}, mode 0644 when absent) that ``found`` does not show as a
    regular file of that content (sha1) and mode, owned by root:root. ``found`` must have read every ``dest``."""
    changed = set(fileutil.pending_changes([{'path': f['dest'], 'content': f['content'], 'mode': f.get('mode')}
                                            for f in files], found))
    return [f for f in files if f['dest'] in changed]
