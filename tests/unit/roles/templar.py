# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Role variables and expressions rendered by Ansible's own templar (render_role_vars.py, in a subprocess), for the
tests that compare a role's old Jinja with the filter that replaced it (test_role_*_templar.py)."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys

_PACKAGE = importlib.import_module('ansible_collections.iotune.storage')
ROOT = os.path.dirname(os.path.abspath(_PACKAGE.__file__)) if getattr(_PACKAGE, '__file__', None) \
    else list(_PACKAGE.__path__)[0]
HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'render_role_vars.py')
# The variable naming a directory of this test session's renderings (tests/unit/conftest.py makes it and removes it): ansible-test runs
# each test in a process forked for it (its ansible_forked plugin), so a module-scoped fixture or a module's memo
# renders again for every test; the files keep one rendering of the same request for the whole session.
CACHE_ENV = 'IOTUNE_UNIT_RENDER_CACHE'


def render_requests(cases):
    """[{name: value}] of each case {'role', 'names', 'vars'[, 'templates']}: the role's variables or expressions
    ``names`` with its defaults and vars, ``vars`` set and ``templates`` as task-level vars (an error as
    {'error': text})."""
    request = {'collections_root': os.path.abspath(os.path.join(ROOT, '..', '..', '..')),
               'roles_dir': os.path.join(ROOT, 'roles'), 'cases': list(cases)}
    text = json.dumps(request, sort_keys=True)
    cache = os.environ.get(CACHE_ENV)
    path = os.path.join(cache, hashlib.sha256(text.encode()).hexdigest() + '.json') if cache else None
    if path and os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    proc = subprocess.run([sys.executable, HELPER], input=text, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, check=False)
    assert proc.returncode == 0, proc.stderr
    if path:
        partial = '%s.%d' % (path, os.getpid())
        with open(partial, 'w') as f:
            f.write(proc.stdout)
        os.replace(partial, path)  # whole or not at all: another worker may read it now
    return json.loads(proc.stdout)


def render_all(cases):
    """render_requests of cases ``(role, names, vars, templates)``, ``names`` a dict of label to expression."""
    return render_requests({'role': role, 'names': list(names.values()), 'vars': variables, 'templates': templates}
                           for role, names, variables, templates in cases)
