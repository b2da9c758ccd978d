# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Are the versions the collection declares the versions its tests run on? (development only)

    check_versions.py --python DEV_VENV_PYTHON [--vermin VERMIN]

- meta/runtime.yml requires_ansible: its floor X.Y is the ansible-core minor of the development venv
  (where `make sanity`, units, lint and molecule run); when the collection has sanity ignore files (it has none
  now), tests/sanity/ignore-X.Y.txt is one of them;
  every role's min_ansible_version is X.Y;
- galaxy.yml dependencies: each lower bound is not above the version installed in the development
  venv (the one molecule runs against) and has the same major version (a lower major is not tested);
- target-side code (plugins/modules, plugins/module_utils) uses nothing newer than the oldest target
  Python of ansible-core X.Y (TARGET_PYTHON), controller-side code (filters, plugin_utils, roles' files)
  nothing newer than its oldest controller Python (CONTROLLER_PYTHON); checked with vermin, and
  vermin is shown to refuse the code for an older Python (so the check can fail).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys

import yaml

# Oldest Pythons of each ansible-core minor (ansible-core's support matrix).
SUPPORT = {
    '2.19': {'target': '3.8', 'controller': '3.11'},
    '2.20': {'target': '3.9', 'controller': '3.12'},
}
TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


def version_tuple(text):
    return tuple(int(p) for p in re.findall(r'\d+', text)[:3])


def load(rel):
    with open(os.path.join(TOP, rel)) as f:
        return yaml.safe_load(f)


def venv_versions(python):
    code = ('import json, ansible.release, importlib\n'
            'out = {"ansible-core": ansible.release.__version__}\n'
            'import ansible_collections, os\n'
            'base = os.path.dirname(ansible_collections.__file__) if ansible_collections.__file__ else '
            'list(ansible_collections.__path__)[0]\n'
            'for name in ("community.general", "ansible.posix"):\n'
            '    p = os.path.join(base, *name.split("."), "MANIFEST.json")\n'
            '    if os.path.exists(p):\n'
            '        out[name] = json.load(open(p))["collection_info"]["version"]\n'
            'print(json.dumps(out))\n')
    return json.loads(subprocess.check_output([python, '-c', code], universal_newlines=True))


def vermin(binary, target, paths):
    argv = [binary, '-t=%s-' % target, '--violations', '--no-tips', '--no-parse-comments'] + paths
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                          check=False)
    return proc.returncode, proc.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--python', required=True)
    parser.add_argument('--vermin', default='vermin')
    args = parser.parse_args()
    errors, notes = [], []

    installed = venv_versions(args.python)
    floor_text = load('meta/runtime.yml')['requires_ansible']
    match = re.match(r'^>=\s*(\d+)\.(\d+)\.(\d+)$', floor_text.strip())
    if not match:
        errors.append('requires_ansible %r is not a plain ">=X.Y.Z" floor' % floor_text)
        floor = None
    else:
        floor = '%s.%s' % match.group(1, 2)
        tested = '.'.join(installed['ansible-core'].split('.')[:2])
        if floor != tested:
            errors.append('requires_ansible floor %s, but the tests run on ansible-core %s' % (floor, installed['ansible-core']))
        ignores = glob.glob(os.path.join(TOP, 'tests/sanity/ignore-*.txt'))
        if ignores and not os.path.exists(os.path.join(TOP, 'tests/sanity/ignore-%s.txt' % floor)):
            errors.append('sanity ignore files %s, but none for the floor %s'
                          % (', '.join(sorted(os.path.basename(i) for i in ignores)), floor))
        notes.append('ansible-core floor %s = tested %s' % (floor, installed['ansible-core']))
        for meta in sorted(glob.glob(os.path.join(TOP, 'roles/*/meta/main.yml'))):
            with open(meta) as f:
                got = str((yaml.safe_load(f).get('galaxy_info') or {}).get('min_ansible_version'))
            if got != floor:
                errors.append('%s: min_ansible_version %s, requires_ansible floor %s'
                              % (os.path.relpath(meta, TOP), got, floor))

    for name, spec in sorted((load('galaxy.yml').get('dependencies') or {}).items()):
        m = re.match(r'^>=\s*([\d.]+)$', str(spec).strip())
        if not m:
            errors.append('dependency %s: %r is not a plain ">=X.Y.Z" floor' % (name, spec))
            continue
        have = installed.get(name)
        if have is None:
            errors.append('dependency %s is not installed in the development venv: its floor is untested' % name)
            continue
        low, got = version_tuple(m.group(1)), version_tuple(have)
        if low > got or low[0] != got[0]:
            errors.append('dependency %s >= %s, but the tests run with %s (same major, not above, please)'
                          % (name, m.group(1), have))
        notes.append('%s floor %s, tested %s' % (name, m.group(1), have))

    if floor in SUPPORT:
        sides = (
            ('target', SUPPORT[floor]['target'], ['plugins/modules', 'plugins/module_utils']),
            ('controller', SUPPORT[floor]['controller'],
             ['plugins/filter', 'plugins/plugin_utils'] + sorted(glob.glob(os.path.join(TOP, 'roles/*/files/*.py')))),
        )
        for side, target, paths in sides:
            paths = [os.path.join(TOP, p) for p in paths if os.path.exists(os.path.join(TOP, p))]
            rc, out = vermin(args.vermin, target, paths)
            if rc != 0:
                errors.append('%s code needs a Python newer than %s:\n%s' % (side, target, out))
            else:
                notes.append('%s code compiles for Python %s+ (vermin)' % (side, target))
        # the check can fail: module code is not Python 3.6 code (from __future__ import annotations)
        rc, dummy = vermin(args.vermin, '3.6', [os.path.join(TOP, 'plugins/modules')])
        if rc == 0:
            errors.append('vermin accepted the modules for Python 3.6: the compile check proves nothing')
    elif floor:
        errors.append('no support matrix for ansible-core %s in %s' % (floor, __file__))

    for line in notes:
        print('versions: %s' % line)
    for line in errors:
        print('versions: ERROR: %s' % line)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
