# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Execution environment check (development only): no container is built.

    check_ee.py TARBALL WORKDIR

1. installs the tarball (no dependencies) under WORKDIR and runs `ansible-builder introspect` on it:
   the collection's meta/execution-environment.yml must bring its requirements.txt and bindep.txt;
2. writes an EE definition (version 3) that installs the tarball and runs `ansible-builder create`:
   the build context must be complete (Containerfile, the collection's tarball, the galaxy requirements).
ansible-builder and ansible-galaxy are taken from PATH.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import yaml

EXPECT_PYTHON = ['matplotlib']
EXPECT_SYSTEM = ['openssh-client']


def run(argv):
    print('+ %s' % ' '.join(argv))
    return subprocess.run(argv, check=True, stdout=subprocess.PIPE, universal_newlines=True).stdout


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    tarball, work = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    coll = os.path.join(work, 'collections')
    run(['ansible-galaxy', 'collection', 'install', '--no-deps', '--force', '-p', coll, tarball])
    deps = yaml.safe_load(run(['ansible-builder', 'introspect', coll]).split('---', 1)[1]) or {}
    errors = []
    for kind, expected in (('python', EXPECT_PYTHON), ('system', EXPECT_SYSTEM)):
        got = ' '.join(deps.get(kind) or [])
        errors += ['introspect: %s requirement %s missing (got: %s)' % (kind, e, got or 'nothing')
                   for e in expected if e not in got]

    shutil.copy(tarball, os.path.join(work, 'iotune-storage.tar.gz'))
    definition = {
        'version': 3,
        'images': {'base_image': {'name': 'quay.io/ansible/awx-ee:latest'}},
        'dependencies': {
            'ansible_core': {'package_pip': 'ansible-core>=2.19.0'},
            'ansible_runner': {'package_pip': 'ansible-runner'},
            # the galaxy stage runs in /build, where _build/ of the context is copied
            'galaxy': {'collections': [{'name': 'collections/iotune-storage.tar.gz', 'type': 'file'}]},
        },
        'additional_build_files': [{'src': 'iotune-storage.tar.gz', 'dest': 'collections'}],
    }
    with open(os.path.join(work, 'execution-environment.yml'), 'w') as f:
        yaml.safe_dump(definition, f)
    context = os.path.join(work, 'context')
    run(['ansible-builder', 'create', '-f', os.path.join(work, 'execution-environment.yml'), '-c', context,
         '--output-filename', 'Containerfile'])
    for rel in ('Containerfile', '_build/requirements.yml', '_build/collections/iotune-storage.tar.gz'):
        if not os.path.exists(os.path.join(context, rel)):
            errors.append('create: build context has no %s' % rel)
    for line in errors:
        print('ee: %s' % line)
    if errors:
        return 1
    print('ee: introspect finds %s / %s; ansible-builder create wrote a complete context in %s'
          % (', '.join(EXPECT_PYTHON), ', '.join(EXPECT_SYSTEM), context))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
