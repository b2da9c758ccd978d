# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Unknown iotune_* variables (issue 23): the check, and its list kept equal to what the collection uses."""

from __future__ import annotations

import os
import re

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.tune_plan import tune_plan
from ansible_collections.iotune.storage.plugins.plugin_utils import variables as v

TOP = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..')
PROFILES = os.path.join(TOP, 'roles', 'profile', 'vars', 'profiles')
# iotune_* words that are not variables: the tune role's tags, the udev rules' label, the lab's names
NOT_VARIABLES = {'iotune_raid', 'iotune_filesystem', 'iotune_tuning', 'iotune_kernel', 'iotune_facts',
                 'iotune_observe', 'iotune_storage_end', 'iotune_lab', 'iotune_probe', 'iotune_plan_'}
# the metrics collector's Prometheus metrics iotune_storage_* and their file iotune_storage.prom (docs/metrics.md)
METRIC_PREFIX = 'iotune_storage'
# the typos the documentation shows as examples of what the check refuses
TYPO_EXAMPLES = {'iotune_array', 'iotune_profle'}
WORD = re.compile(r'\biotune_[a-z0-9_]+')


def _profile(name='cassandra'):
    with open(os.path.join(PROFILES, name + '.yml')) as f:
        return yaml.safe_load(f)['profile_data']


def _words(*dirs, suffixes=('.yml', '.yaml', '.md', '.j2', '.py')):
    found = {}
    for d in dirs:
        path = os.path.join(TOP, d)
        walk = [(path, [], [''])] if os.path.isfile(path) else os.walk(path)
        for root, dummy, files in walk:
            for name in files:
                f = os.path.join(root, name)
                if f.endswith(suffixes) and '__pycache__' not in f:
                    with open(f, encoding='utf-8') as fh:
                        for word in WORD.findall(fh.read()):
                            found.setdefault(word, f)
    return found


@pytest.mark.parametrize('names, expected', [
    (['iotune_profle'], ['iotune_profle (did you mean iotune_profile?)']),
    (['iotune_array'], ['iotune_array (did you mean iotune_arrays?)']),
    (['iotune_profile_override', 'iotune_verfy'],
     ['iotune_profile_override (did you mean iotune_profile_overrides or iotune_profile?)',
      'iotune_verfy (did you mean iotune_verify?)']),
    (['iotune_zzz_mine'], ['iotune_zzz_mine']),
])
def test_unknown_variables_are_named_with_their_closest(names, expected):
    assert v.unknown_variables(names) == expected


@pytest.mark.parametrize('names', [[], None, ['iotune_profile', 'iotune_arrays', 'iotune_plan', 'iotune_readahead'],
                                   ['profile_preflight', 'ansible_host', 'iotunexyz'], sorted(v.KNOWN_VARIABLES)])
def test_known_and_foreign_names_pass(names):
    assert v.unknown_variables(names) == [] and v.variables_problem(names) is None


def test_the_plan_names_the_typo_with_its_own_problems():
    with pytest.raises(AnsibleFilterError) as e:
        tune_plan(_profile(), 'cassandra', arrays=[{'name': '.', 'devices': ['/dev/vdb', '/dev/vdc'],
                                                   'mountpoint': '/srv/a'}],
                  variables=['iotune_profile', 'iotune_arays'])
    text = str(e.value)
    assert text.startswith('invalid tune variables (nothing was changed): unknown variable iotune_arays '
                           '(did you mean iotune_arrays?)'), text
    assert "name '.' must be" in text      # every problem at once


def test_the_plan_passes_with_known_names_and_without_the_list():
    arrays = [{'name': 'data', 'devices': ['/dev/vdb', '/dev/vdc'], 'mountpoint': '/srv/a'}]
    with_names = tune_plan(_profile(), 'cassandra', arrays=arrays, variables=['iotune_profile', 'iotune_arrays'])
    assert with_names == tune_plan(_profile(), 'cassandra', arrays=arrays)
    with pytest.raises(AnsibleFilterError, match='unknown variable iotune_x'):
        tune_plan(_profile(), 'cassandra', arrays=arrays, variables=['iotune_x'])


def test_every_iotune_option_of_the_argument_specs_is_a_user_variable():
    options = set()
    for role in os.listdir(os.path.join(TOP, 'roles')):
        spec = os.path.join(TOP, 'roles', role, 'meta', 'argument_specs.yml')
        if os.path.exists(spec):
            with open(spec) as f:
                for entry in (yaml.safe_load(f).get('argument_specs') or {}).values():
                    options.update(k for k in entry.get('options', {}) if k.startswith('iotune_'))
    assert options and options <= v.USER_VARIABLES, sorted(options - v.USER_VARIABLES)


def test_every_iotune_name_the_collection_uses_is_known():
    """A variable the playbooks, roles, plugins or docs use that the list lacks would be refused as a typo."""
    used = _words('playbooks', 'roles', 'plugins', 'docs', 'README.md', 'extensions/molecule/vm/inventory')
    unknown = {w: f for w, f in used.items() if w not in v.KNOWN_VARIABLES | NOT_VARIABLES | TYPO_EXAMPLES
               and not w.startswith(METRIC_PREFIX)}
    assert unknown == {}


def test_every_user_variable_is_documented():
    documented = _words('docs', 'README.md', 'playbooks', 'roles')
    assert sorted(v.USER_VARIABLES - set(documented)) == []
