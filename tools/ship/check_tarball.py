# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check the content of the built collection tarball (development only, not shipped).

    check_tarball.py TARBALL            exit 1 and list every problem
    check_tarball.py --self-test        prove that the check catches a tarball with dev tooling

Fails when development tooling, lab image files or build output is in the tarball (galaxy.yml
build_ignore is the fix), or when something a user needs is missing (a README per role, the
execution environment files, the runtime metadata).
"""

from __future__ import annotations

import fnmatch
import io
import json
import sys
import tarfile
import tempfile

# Paths (or their first directory) that must never ship.
FORBIDDEN = [
    'tools', 'tools/*', 'extensions', 'extensions/*',
    '.collections', '.collections/*', '.ci', '.ci/*', '.lab', '.lab/*', '.venv', '.venv/*', 'build', 'build/*',
    'Makefile', 'constraints*.txt', 'requirements-dev.txt', 'requirements-ship.txt', '.ansible-lint',
    'ansible.cfg', '.gitignore', '.git', '.git/*', 'tests/output', 'tests/output/*', 'tests/perf',
    'tests/perf/*', 'iotune-reports', 'iotune-reports/*', 'docs/docsite/build', 'docs/docsite/build/*',
    '*.png', '*.tar.gz', '*.pyc', '*/__pycache__', '*/__pycache__/*', 'changelogs/.plugin-cache.yaml',
    '*/sshd_config*', '*/resolv.conf', '*/fstab',
]
REQUIRED = [
    'MANIFEST.json', 'FILES.json', 'README.md', 'COPYING', 'meta/runtime.yml',
    'meta/execution-environment.yml', 'requirements.txt', 'bindep.txt', 'changelogs/changelog.yaml',
]


def problems(names):
    names = [n.rstrip('/') for n in names]
    found = []
    for name in sorted(names):
        for pattern in FORBIDDEN:
            if fnmatch.fnmatchcase(name, pattern):
                found.append('ships development/build file %s (matches %s): add it to build_ignore'
                             % (name, pattern))
                break
    present = set(names)
    for name in REQUIRED:
        if name not in present:
            found.append('missing %s' % name)
    roles = sorted({n.split('/')[1] for n in names if n.startswith('roles/') and n.count('/') >= 2})
    for role in roles:
        if 'roles/%s/README.md' % role not in present:
            found.append('role %s has no README.md (galaxy-importer refuses the import)' % role)
    return found


def check(path):
    with tarfile.open(path, 'r:gz') as tar:
        return problems(tar.getnames())


def warnings(path):
    with tarfile.open(path, 'r:gz') as tar:
        info = json.load(tar.extractfile('MANIFEST.json'))['collection_info']
    return ['%s is a placeholder (%s): set the real URL before publishing' % (key, info[key])
            for key in ('repository', 'documentation', 'homepage', 'issues')
            if '.invalid' in (info.get(key) or '')]


def self_test():
    with tempfile.NamedTemporaryFile(suffix='.tar.gz') as tmp:
        with tarfile.open(tmp.name, 'w:gz') as tar:
            for name in ['README.md', 'tools/lab', 'extensions/molecule/vm/molecule.yml', 'roles/x/tasks/main.yml', 'docs/img/a.png']:
                info = tarfile.TarInfo(name)
                info.size = 1
                tar.addfile(info, io.BytesIO(b'x'))
        found = check(tmp.name)
    expected = ['tools/lab', 'extensions/molecule/vm/molecule.yml', 'docs/img/a.png', 'role x has no README.md', 'missing meta/runtime.yml']
    missed = [e for e in expected if not any(e in f for f in found)]
    if missed:
        print('self-test FAILED: not reported: %s' % ', '.join(missed))
        return 1
    print('self-test: a tarball with tools/, a molecule scenario, a PNG and a role without README is refused (%d problems)'
          % len(found))
    return 0


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    if len(argv) != 2:
        print(__doc__)
        return 2
    found = check(argv[1])
    for line in warnings(argv[1]):
        print('tarball: WARNING: %s' % line)
    for line in found:
        print('tarball: %s' % line)
    if found:
        return 1
    print('tarball: %s ships no development tooling and has what users need' % argv[1])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
