# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""roles/ephemeral: the module_utils its entry script carries are exactly what the boot program imports,
byte for byte, and the script runs them with an isolated interpreter."""

from __future__ import annotations

import ast
import os
import sys

import yaml

from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.program_bundle import (
    MODULE_UTILS, ROOT, assert_carries_byte_for_byte, closure, run_script, template_environment)

ROLE = os.path.join(ROOT, 'roles', 'ephemeral')


def role_list():
    with open(os.path.join(ROLE, 'vars', 'main.yml')) as f:
        return yaml.safe_load(f)['ephemeral_module_utils']


def test_the_role_copies_every_module_util_the_boot_program_imports_and_no_more():
    assert sorted(role_list()) == sorted(closure('ephemeral'))


def test_no_copied_module_util_imports_ansible():
    for name in role_list():
        with open(os.path.join(MODULE_UTILS, name + '.py')) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.module.split('.')[0] != 'ansible', '%s imports %s' % (name, node.module)
            elif isinstance(node, ast.Import):
                assert all(a.name.split('.')[0] != 'ansible' for a in node.names), name


def render_entry_script():
    """The entry script as the role renders it (ansible's lookup and b64encode stood in for)."""
    env, lookup = template_environment(os.path.join(ROLE, 'templates'))
    return env.get_template('iotune-ephemeral.j2').render(
        lookup=lookup, ansible_managed='Ansible managed', ephemeral_module_utils=role_list(), ephemeral_python=sys.executable,
        ephemeral_module_utils_dir=MODULE_UTILS)


def test_the_entry_script_carries_the_module_utils_byte_for_byte(tmp_path):
    """One file (one copy task under TCG costs seconds per file): it runs under python -I from anywhere, with
    no collection on sys.path, and the module code it runs is the collection's."""
    script = tmp_path / 'iotune-ephemeral'
    script.write_text(render_entry_script())
    assert script.read_text().startswith('#!%s\n' % sys.executable)
    proc = run_script(script)
    assert proc.returncode == 2, proc.stderr
    assert 'usage: iotune-ephemeral [--check] SPEC.json|NAME' in proc.stderr
    proc = run_script(script, str(tmp_path / 'none.json'))
    assert proc.returncode == 1 and 'cannot read the spec' in proc.stdout
    assert_carries_byte_for_byte(render_entry_script(), role_list(), tmp_path, 'device_safety')
