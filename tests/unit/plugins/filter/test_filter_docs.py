# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every filter has its own documentation page (ansible-doc -t filter iotune.storage.NAME).

ansible-doc shows the DOCUMENTATION of the .py file for every filter of that file, and a YAML sidecar
(plugins/filter/NAME.yml) only when the .py has none: a file with several filters keeps its docs in one
sidecar per filter.
"""

from __future__ import annotations

import glob
import importlib
import json
import os
import subprocess
import sys

import pytest

# the collection as Python imports it (build/collections/... or ansible-test's copy), not this file's path
_PACKAGE = importlib.import_module('ansible_collections.iotune.storage.plugins.filter')
FILTER_DIR = os.path.dirname(os.path.abspath(_PACKAGE.__file__)) if getattr(_PACKAGE, '__file__', None) \
    else list(_PACKAGE.__path__)[0]
COLLECTIONS_ROOT = os.path.abspath(os.path.join(FILTER_DIR, '..', '..', '..', '..', '..'))


def filter_names():
    names = {}
    for path in sorted(glob.glob(os.path.join(FILTER_DIR, '*.py'))):
        stem = os.path.splitext(os.path.basename(path))[0]
        if stem == '__init__':
            continue
        module = importlib.import_module('ansible_collections.iotune.storage.plugins.filter.%s' % stem)
        for name in module.FilterModule().filters():
            names[name] = stem
    return names


def ansible_doc(names):
    """{fqcn: page} of every name; a name ansible-doc cannot document maps to its error text."""
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=COLLECTIONS_ROOT, ANSIBLE_NOCOLOR='1')
    ansible_doc_bin = os.path.join(os.path.dirname(sys.executable), 'ansible-doc')
    argv = [ansible_doc_bin if os.path.exists(ansible_doc_bin) else 'ansible-doc', '-t', 'filter', '--json']

    def run(some):
        return subprocess.run(argv + ['iotune.storage.%s' % name for name in some], env=env, check=False,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    # one ansible-doc for all of them (each start of ansible-doc costs about half a second, twice per CI run)
    proc = run(names)
    if proc.returncode == 0:
        pages = json.loads(proc.stdout)
        if all('iotune.storage.%s' % name in pages for name in names):
            return pages
    # something failed: one call per name, so that each failure names its filter
    pages = {}
    for name in names:
        proc = run([name])
        if proc.returncode == 0:
            pages.update(json.loads(proc.stdout))
        else:
            pages['iotune.storage.%s' % name] = proc.stderr.strip() or 'ansible-doc exit %d' % proc.returncode
    return pages


@pytest.fixture(scope='module')
def docs():
    names = filter_names()
    assert len(names) >= 7, names
    return names, ansible_doc(sorted(names))


def test_every_filter_has_its_own_page(docs):
    names, pages = docs
    for name, stem in names.items():
        page = pages.get('iotune.storage.%s' % name)
        assert isinstance(page, dict), 'ansible-doc has no page for iotune.storage.%s: %s' % (name, page)
        doc = page['doc']
        assert doc['name'] == name, 'iotune.storage.%s shows the documentation of %s' % (name, doc['name'])
        assert doc['short_description']
        assert page.get('examples'), 'iotune.storage.%s has no EXAMPLES' % name
        assert page.get('return', {}).get('_value'), 'iotune.storage.%s has no RETURN _value' % name


def test_multi_filter_files_keep_docs_in_sidecars(docs):
    names, pages = docs
    by_file = {}
    for name, stem in names.items():
        by_file.setdefault(stem, []).append(name)
    for stem, in_file in by_file.items():
        for name in in_file:
            page = pages['iotune.storage.%s' % name]
            assert isinstance(page, dict), page
            source = os.path.basename(page['doc']['filename'])
            if len(in_file) > 1 or stem != name:
                assert source == '%s.yml' % name, '%s is documented in %s, not its own sidecar' % (name, source)
            else:
                assert source in ('%s.py' % name, '%s.yml' % name)


def test_no_sidecar_without_a_filter():
    names = filter_names()
    for path in glob.glob(os.path.join(FILTER_DIR, '*.yml')):
        stem = os.path.splitext(os.path.basename(path))[0]
        assert stem in names, '%s documents a filter that no FilterModule provides' % os.path.basename(path)
