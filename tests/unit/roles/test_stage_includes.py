# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The roles' included task files (docs/architecture.md): each include names a file of its role, has a condition (it
exists to be skipped as one task), and applies the tag ``always`` to its tasks, so that the tags that let the include
run (the caller's, say ``--tags iotune_kernel``) let its tasks run too: tasks of a dynamic include do not inherit the
include's tags, and without ``apply`` a run with ``--tags`` would run the include and none of its tasks."""

from __future__ import annotations

import glob
import os

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))


def tasks_of(path):
    """Every task of a task file, those inside blocks included."""
    with open(path) as f:
        todo = list(yaml.safe_load(f) or [])
    while todo:
        task = todo.pop(0)
        for key in ('block', 'rescue', 'always'):
            todo.extend(task.get(key) or [])
        yield task


def includes():
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, 'roles', '*', 'tasks', '*.yml'))):
        for task in tasks_of(path):
            for action in ('ansible.builtin.include_tasks', 'ansible.builtin.include_role'):
                if action in task:
                    found.append((path, action, task))
    return found


def test_each_include_is_conditional_and_applies_always():
    found = includes()
    assert len(found) >= 10, found          # the stage roles' includes are all seen (not a vacuous pass)
    for path, action, task in found:
        args = task[action]
        where = '%s: %s' % (os.path.relpath(path, ROOT), task.get('name'))
        assert task.get('when'), where
        if action == 'ansible.builtin.include_tasks':
            assert os.path.isfile(os.path.join(os.path.dirname(path), args['file'])), where
            assert args.get('apply', {}).get('tags') == ['always'], where


def test_every_task_file_of_a_role_is_used():
    # an included file nobody includes would be dead code (and a task the VM tests look for by name never run); a file
    # is used when a task file of its role includes or imports it, or when it is an entry point (tasks_from) of the role
    texts = ''
    for path in glob.glob(os.path.join(ROOT, 'roles', '*', '*', '*.yml')) + glob.glob(os.path.join(ROOT, 'playbooks', '*.yml')):
        with open(path) as f:
            texts += f.read()
    for tasks_dir in sorted(glob.glob(os.path.join(ROOT, 'roles', '*', 'tasks'))):
        used = {'main.yml'}
        for name in os.listdir(tasks_dir):
            for task in tasks_of(os.path.join(tasks_dir, name)):
                for action in ('ansible.builtin.include_tasks', 'ansible.builtin.import_tasks'):
                    if action in task:
                        value = task[action]
                        used.add(value['file'] if isinstance(value, dict) else value)
        used.update(name for name in os.listdir(tasks_dir) if 'tasks_from: %s\n' % name[:-4] in texts)
        unused = set(os.listdir(tasks_dir)) - used
        assert not unused, (tasks_dir, unused)
