# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Renders role variables with Ansible's own templar, in an interpreter of its own (test_role_vars_templar.py runs
it): Ansible's collection loader must be installed before the collection is first imported, which a pytest process
has done already unless ansible-test runs it.

stdin: {collections_root, roles_dir, cases: [{role, names, vars, templates}]}; stdout: [{name: value or {'error': text}}].
"""

from __future__ import annotations

import json
import os
import sys


def trusted(value, trust):
    if isinstance(value, dict):
        return dict((k, trusted(v, trust)) for k, v in value.items())
    if isinstance(value, list):
        return [trusted(v, trust) for v in value]
    return trust(value) if isinstance(value, str) else value


def main():
    request = json.load(sys.stdin)
    # pylint: disable=import-outside-toplevel
    from ansible.utils.collection_loader._collection_finder import _AnsibleCollectionFinder
    _AnsibleCollectionFinder(paths=[request['collections_root']])._install()
    import yaml
    from ansible.parsing.dataloader import DataLoader
    from ansible.template import Templar, trust_as_template

    results = []
    for case in request['cases']:
        role_dir = os.path.join(request['roles_dir'], case['role'])
        variables = {}
        for kind in ('defaults', 'vars'):
            if not os.path.exists(os.path.join(role_dir, kind, 'main.yml')):
                continue  # a role without role vars (readahead_sweep)
            with open(os.path.join(role_dir, kind, 'main.yml')) as f:
                variables.update(yaml.safe_load(f) or {})
        variables = trusted(variables, trust_as_template)
        variables.update(role_path=role_dir, ansible_search_path=[role_dir], ansible_facts={'os_family': 'Debian'})
        variables.update(case['vars'])
        # task-level variables of the old Jinja (templates, as a task's vars: would be)
        variables.update(trusted(case.get('templates') or {}, trust_as_template))
        templar = Templar(loader=DataLoader(), variables=variables)
        out = {}
        for name in case['names']:
            try:
                out[name] = templar.template(trust_as_template('{{ %s }}' % name))
            except Exception as e:  # pylint: disable=broad-except
                out[name] = {'error': '%s: %s' % (type(e).__name__, e)}
        results.append(out)
    json.dump(results, sys.stdout, default=str)


if __name__ == '__main__':
    main()
