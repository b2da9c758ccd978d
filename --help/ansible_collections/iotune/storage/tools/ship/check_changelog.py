# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Preview the next release's changelog in a temporary copy and check the fragment conventions.

    check_changelog.py WORKDIR          (antsibull-changelog and ansible-doc from PATH)

- `antsibull-changelog release` runs on a copy of the git-tracked files under
  WORKDIR/ansible_collections/iotune/storage (the checkout is not touched);
- every module, filter, role and playbook that the release adds is listed exactly once in the
  generated changelog.yaml and CHANGELOG.rst (modules and filters are found by antsibull-changelog,
  roles and playbooks come from the `add object.*` sections of the fragments);
- no prose fragment announces a new module, filter, role or playbook (antsibull-changelog lists them);
- fragments about the lab, molecule, make targets or tools/ are `trivial`.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys

import yaml

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
ANNOUNCE = re.compile(r'\bnew (module|filter|role|playbook|plugin)s?\b', re.IGNORECASE)
DEV_TOOLING = re.compile(r'tools/|molecule|``make |lab VM|ansible-test|requirements-dev', re.IGNORECASE)
PROSE_SECTIONS = ('release_summary', 'major_changes', 'minor_changes', 'breaking_changes',
                  'deprecated_features', 'removed_features', 'security_fixes', 'bugfixes', 'known_issues')


def released_versions():
    with open(os.path.join(TOP, 'changelogs', 'changelog.yaml')) as f:
        return set((yaml.safe_load(f) or {}).get('releases') or {})


def collection_objects():
    """What the collection has: modules, filters (FilterModule keys), roles, playbooks."""
    found = {'module': set(), 'filter': set(), 'role': set(), 'playbook': set()}
    for path in glob.glob(os.path.join(TOP, 'plugins', 'modules', '*.py')):
        found['module'].add(os.path.basename(path)[:-3])
    for path in glob.glob(os.path.join(TOP, 'plugins', 'filter', '*.py')):
        with open(path) as f:
            text = f.read()
        body = text[text.index('def filters(self):'):]
        found['filter'].update(re.findall(r"'([a-z_0-9]+)':", body))
    for path in glob.glob(os.path.join(TOP, 'roles', '*', 'tasks', 'main.yml')):
        found['role'].add(path.split(os.sep)[-3])
    for path in glob.glob(os.path.join(TOP, 'playbooks', '*.yml')):
        found['playbook'].add(os.path.basename(path)[:-4])
    return found


def fragment_problems():
    problems = []
    for path in sorted(glob.glob(os.path.join(TOP, 'changelogs', 'fragments', '*.y*ml'))):
        name = os.path.basename(path)
        with open(path) as f:
            data = yaml.safe_load(f) or {}
        for section in PROSE_SECTIONS:
            entries = data.get(section) or []
            for entry in [entries] if isinstance(entries, str) else entries:
                if ANNOUNCE.search(entry):
                    problems.append('%s (%s) announces a new object; antsibull-changelog lists it: %.90s'
                                    % (name, section, entry))
                if section != 'release_summary' and DEV_TOOLING.search(entry):
                    problems.append('%s (%s) is about development tooling: make it trivial: %.90s'
                                    % (name, section, entry))
    return problems


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    work = os.path.abspath(argv[1])
    shutil.rmtree(work, ignore_errors=True)
    copy = os.path.join(work, 'ansible_collections', 'iotune', 'storage')
    os.makedirs(copy)
    files = subprocess.run(['git', 'ls-files', '-co', '--exclude-standard', '-z'], cwd=TOP, check=True,
                           stdout=subprocess.PIPE).stdout.decode().split('\0')
    for rel in filter(None, files):
        src = os.path.join(TOP, rel)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(copy, rel)), exist_ok=True)
            shutil.copy2(src, os.path.join(copy, rel))
    with open(os.path.join(TOP, 'galaxy.yml')) as f:
        version = yaml.safe_load(f)['version']
    problems = fragment_problems()
    if version in released_versions():
        print('changelog: %s is already released; nothing to preview' % version)
        return 1 if problems else 0
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=work)
    subprocess.run(['antsibull-changelog', 'release', '--version', version, '--date', '2000-01-01'],
                   cwd=copy, env=env, check=True)
    with open(os.path.join(copy, 'changelogs', 'changelog.yaml')) as f:
        release = yaml.safe_load(f)['releases'][version]
    with open(os.path.join(copy, 'CHANGELOG.rst')) as f:
        rst = f.read()
    listed = {'module': [m['name'] for m in release.get('modules') or []],
              'filter': [p['name'] for p in (release.get('plugins') or {}).get('filter') or []],
              'role': [o['name'] for o in (release.get('objects') or {}).get('role') or []],
              'playbook': [o['name'] for o in (release.get('objects') or {}).get('playbook') or []]}
    have = collection_objects()
    # the RST's new-object lists by kind (a role and a playbook may share a name)
    sections = {}
    heading = {'New Modules': 'module', 'Filter': 'filter', 'New Roles': 'role', 'New Playbooks': 'playbook'}
    parts = re.split(r'^([A-Z][A-Za-z ]+)\n[-~=^]+$', rst, flags=re.MULTILINE)
    for title, text in zip(parts[1::2], parts[2::2]):
        if title.strip() in heading:
            sections[heading[title.strip()]] = sections.get(heading[title.strip()], '') + text
    first_release = not released_versions()
    for kind, names in listed.items():
        for name in sorted(set(names)):
            if names.count(name) != 1:
                problems.append('%s %s is listed %d times' % (kind, name, names.count(name)))
            if name not in have[kind]:
                problems.append('%s %s is listed but the collection has no such %s' % (kind, name, kind))
            count = len(re.findall(r'^- iotune\.storage\.%s - ' % re.escape(name), sections.get(kind, ''),
                                   re.MULTILINE))
            if count != 1:
                problems.append('%s %s appears %d times in the CHANGELOG.rst new-object lists' % (kind, name, count))
        if first_release:
            for name in sorted(have[kind] - set(names)):
                problems.append('%s %s is new in %s but not in the changelog (version_added, or an '
                                '"add object.%s" fragment entry)' % (kind, name, version, kind))
    for kind, names in sorted(listed.items()):
        print('changelog: %s new %s(s): %s' % (len(names), kind, ', '.join(sorted(names))))
    for line in problems:
        print('changelog: ERROR: %s' % line)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
