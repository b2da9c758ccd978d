# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a filter used by the roles' conditions imports on the controller.

Ansible imports a filter plugin in each forked worker that templates it, and its collection loader compiles every
collection file it imports from source (no bytecode): the preflight's module_utils graph (about twenty files) behind
a small helper was compiled again for most tasks of a tune run (docs/testing.md). The filters below must stay clear
of it; each runs in a fresh interpreter, as a worker sees the collection."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# the collection as Python imports it (build/collections/... or ansible-test's copy), as the docs test finds it
from ansible_collections.iotune.storage.tests.unit.plugins.filter.test_filter_docs import COLLECTIONS_ROOT

PREFLIGHT = 'ansible_collections.iotune.storage.plugins.module_utils.preflight'

PROBE = """
import json, sys
from ansible.plugins.loader import init_plugin_loader
init_plugin_loader([sys.argv[1]])
__import__('ansible_collections.iotune.storage.plugins.' + sys.argv[2])
print(json.dumps(sorted(m for m in sys.modules if m.startswith('ansible_collections.iotune.'))))
"""


def imported_by(name):
    """The collection's modules in sys.modules after importing plugins.NAME (filter.any_true, modules.X)."""
    out = subprocess.run([sys.executable, '-B', '-c', PROBE, COLLECTIONS_ROOT, name], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    return json.loads(out)


@pytest.mark.parametrize('name', ['any_true', 'packages_missing', 'package_argv'])
def test_the_roles_filters_do_not_import_the_preflight(name):
    modules = imported_by('filter.' + name)
    assert 'ansible_collections.iotune.storage.plugins.filter.' + name in modules      # the probe saw the import
    assert PREFLIGHT not in modules, modules


def test_the_probe_sees_the_preflight_where_it_is_imported():
    """Negative control: the preflight module's own import shows it."""
    assert PREFLIGHT in imported_by('modules.storage_preflight')
