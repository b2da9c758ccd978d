# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Small values the ephemeral, metrics, fio_verify, xfs and tune roles computed in Jinja (issue 24): a command's
argv from a list's items (filter argv_with), the directories the ephemeral role creates (ephemeral_directories),
the found files under some directories (paths_under), the changed destinations of a copy loop (changed_dests), a
caller's file read or what the finds found (files_found), whether two lists share a value (overlaps), whether any
item has a true field (any_true), a loop's results by a field of their item (results_by). The values are those of
the Jinja they replace (tests/unit/roles/test_role_values_templar.py renders both)."""

from __future__ import annotations

import os

from ansible_collections.iotune.storage.plugins.plugin_utils.role_tasks import unique

# where the ephemeral role links the boot units it enables
WANTS_DIR = '/etc/systemd/system/local-fs.target.wants'


def _field(item, path):
    """The field at the dotted ``path`` of ``item`` (dicts), None when a key is missing."""
    value = item
    for key in path.split('.'):
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def argv_with(items, words, attribute):
    """The fixed ``words``, then the ``attribute`` of each item."""
    return list(words) + [item[attribute] for item in items]


def ephemeral_directories(to_write, to_enable):
    """The directories of the files to write (their ``dest``), and the wants directory when units are enabled."""
    directories = [os.path.dirname(entry['dest']) for entry in to_write]
    return unique(directories + ([WANTS_DIR] if to_enable else []))


def paths_under(files, directories):
    """The ``path`` of the files (find's or files_read_states' entries) under one of ``directories``."""
    prefixes = tuple(directory + '/' for directory in directories)
    return [entry['path'] for entry in files if entry['path'].startswith(prefixes)]


def changed_dests(results, prefix=''):
    """The ``item.dest`` of the changed results of a loop, those that begin with ``prefix``."""
    dests = [_field(result, 'item.dest') for result in results if result.get('changed')]
    return [dest for dest in dests if dest is not None and dest.startswith(prefix)]


def files_found(read, finds, key='files', paths=False):
    """The caller's ``read`` when it holds the files (not None; their paths with ``paths``), else the ``key`` lists
    of the ``finds`` (registered results; one that did not run adds nothing) one after the other."""
    if read is not None:
        return [entry['path'] for entry in read] if paths else read
    found = []
    for find in finds:
        found.extend((find or {}).get(key) or [])
    return found


def overlaps(values, others):
    """Whether a value of ``values`` is one of ``others``."""
    return any(value in others for value in values)


def any_true(items, path):
    """Whether the field at the dotted ``path`` of an item is true (an item without it: false)."""
    return any(bool(_field(item, path)) for item in items)


def results_by(results, attribute):
    """{the ``attribute`` of a result's item: the result} of a loop's results (a later item wins a repeat)."""
    return dict((result['item'][attribute], result) for result in results)
