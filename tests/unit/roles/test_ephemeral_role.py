# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""roles/ephemeral: the module_utils its entry script carries are exactly what the boot program imports,
byte for byte, and the script runs them with an isolated interpreter."""

from __future__ import annotations

import ast
import hashlib
import os
import subprocess
import sys

import yaml

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..')
MODULE_UTILS = os.path.join(ROOT, 'plugins', 'module_utils')
ROLE = os.path.join(ROOT, 'roles', 'ephemeral')
PREFIX = 'ansible_collections.iotune.storage.plugins.module_utils'


def imports_of(name):
    with open(os.path.join(MODULE_UTILS, name + '.py')) as f:
        tree = ast.parse(f.read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == PREFIX:
                found.update(alias.name for alias in node.names)
            elif node.module.startswith(PREFIX + '.'):
                found.add(node.module[len(PREFIX) + 1:])
        elif isinstance(node, ast.Import):
            found.update(a.name[len(PREFIX) + 1:] for a in node.names if a.name.startswith(PREFIX + '.'))
    return found


def closure(start):
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(imports_of(name))
    return seen


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
    import base64
    import jinja2

    def lookup(kind, path, rstrip=True):
        assert kind == 'ansible.builtin.file' and rstrip is False
        with open(path) as f:
            return f.read()
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(os.path.join(ROLE, 'templates')),
                             trim_blocks=True, keep_trailing_newline=True)
    env.filters['b64encode'] = lambda text: base64.b64encode(text.encode('utf-8')).decode('ascii')
    return env.get_template('iotune-ephemeral.j2').render(
        lookup=lookup, ansible_managed='Ansible managed', ephemeral_module_utils=role_list(), ephemeral_python=sys.executable,
        ephemeral_module_utils_dir=MODULE_UTILS)


def run_script(path, *args):
    return subprocess.run([sys.executable, '-I', '-B', str(path)] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, check=False)


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
    probe = tmp_path / 'probe.py'
    probe.write_text(render_entry_script().replace(
        "if __name__ == '__main__':\n    sys.exit(main())",
        "import hashlib\nfrom ansible_collections.iotune.storage.plugins.module_utils import device_safety\n"
        "print(type(device_safety.__spec__.loader).__name__)\n"
        "for name in sorted(SOURCES):\n"
        "    print(name, hashlib.sha1(base64.b64decode(SOURCES[name])).hexdigest())"))
    proc = run_script(probe)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == 'BundledModuleUtils'
    expected = []
    for name in sorted(role_list()):
        with open(os.path.join(MODULE_UTILS, name + '.py'), 'rb') as f:
            expected.append('%s %s' % (name, hashlib.sha1(f.read()).hexdigest()))
    assert lines[1:] == expected
