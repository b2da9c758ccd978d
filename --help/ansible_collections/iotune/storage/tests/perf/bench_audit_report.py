# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Benchmark (not a test) of the fleet audit report on the controller, for 500 synthetic hosts.

1. In-process, best of N: compare() of 500 hosts' storage_audit facts with their plan (one host in 7 with
   raised readahead, in 11 without rules file, in 13 with a stale ARRAY line, in 17 with a lost member,
   in 23 unreachable; tests/unit/plugins/fixtures/audit.py), the fleet document, and each rendering
   (JSON, Markdown, HTML) with its size.
2. --playbook: the report the way the playbook makes it, in ansible-playbook: 500 inventory hosts with a
   local connection each get their audit_result (set_fact from a file), then the role's report tasks
   (tasks_from=report, run_once) build the document from hostvars and write the three files. Prints the
   wall time of the whole run and of the report tasks alone (ansible.posix.profile_tasks).

Run from the repository root:
  PYTHONPATH=build/collections .venv/bin/python tests/perf/bench_audit_report.py [--runs 5] [--playbook]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from ansible_collections.iotune.storage.plugins.filter.storage_audit import storage_audit_fleet
from ansible_collections.iotune.storage.plugins.plugin_utils import audit
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.audit import synthetic_results

HOSTS = 500
HERE = os.path.dirname(os.path.abspath(__file__))
COLLECTIONS = os.path.abspath(os.path.join(HERE, '..', '..', 'build', 'collections'))


def best_of(func, runs):
    best, result = None, None
    for dummy in range(runs):
        start = time.perf_counter()
        result = func()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None or elapsed < best else best
    return best, result


PLAYBOOK = """
- name: Results of {n} synthetic hosts
  hosts: all
  gather_facts: false
  tasks:
    - name: Load the host's result
      ansible.builtin.set_fact:
        audit_result: "{{{{ (lookup('ansible.builtin.file', results_file) | from_json)[inventory_hostname] }}}}"

- name: Report
  hosts: all
  gather_facts: false
  tasks:
    - name: Report
      ansible.builtin.include_role:
        name: iotune.storage.audit
        tasks_from: report
      run_once: true
"""


def playbook_run(tmp):
    results = synthetic_results(HOSTS)
    with open(os.path.join(tmp, 'results.json'), 'w') as f:
        json.dump(results, f)
    with open(os.path.join(tmp, 'inventory.yml'), 'w') as f:
        f.write('all:\n  vars:\n    ansible_connection: local\n    ansible_python_interpreter: %s\n'
                '    results_file: %s\n    audit_report_dir: %s\n  hosts:\n'
                % (sys.executable, os.path.join(tmp, 'results.json'), os.path.join(tmp, 'reports')))
        for host in sorted(results):
            f.write('    %s: {}\n' % host)
    with open(os.path.join(tmp, 'bench.yml'), 'w') as f:
        f.write(PLAYBOOK.format(n=HOSTS))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=COLLECTIONS, ANSIBLE_NOCOLOR='1', ANSIBLE_FORKS='10',
               ANSIBLE_CALLBACKS_ENABLED='ansible.posix.profile_tasks', ANSIBLE_HOST_KEY_CHECKING='false')
    bindir = os.path.dirname(sys.executable)
    start = time.perf_counter()
    proc = subprocess.run([os.path.join(bindir, 'ansible-playbook'), '-i', os.path.join(tmp, 'inventory.yml'),
                           os.path.join(tmp, 'bench.yml')], env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(proc.stdout[-3000:] + proc.stderr[-3000:])
    report_tasks = 0.0
    for line in proc.stdout.splitlines():
        m = re.match(r'^iotune\.storage\.audit : (.+?) -+ (\d+\.\d+)s$', line.strip())
        if m:
            report_tasks += float(m.group(2))
    with open(os.path.join(tmp, 'reports', 'storage_audit.json')) as f:
        counts = json.load(f)['counts']
    return wall, report_tasks, counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=5)
    parser.add_argument('--playbook', action='store_true', help='also time the report in ansible-playbook')
    args = parser.parse_args()

    compare_time, results = best_of(lambda: synthetic_results(HOSTS), args.runs)
    fleet_time, doc = best_of(lambda: storage_audit_fleet(results, generated_at='2026-11-24T00:00:00Z'), args.runs)
    print('python %s, %d hosts, best of %d runs' % (sys.version.split()[0], HOSTS, args.runs))
    print('counts: %s' % json.dumps(doc['counts'], sort_keys=True))
    print('facts built + compare(): %.0f ms; fleet document: %.1f ms' % (compare_time * 1000, fleet_time * 1000))
    total = compare_time + fleet_time
    for fmt in ('json', 'markdown', 'html'):
        seconds, text = best_of(lambda: audit.render(doc, fmt), args.runs)
        total += seconds
        print('render %-8s %7.1f ms  %8d bytes' % (fmt, seconds * 1000, len(text)))
    print('in-process total: %.2f s' % total)
    if args.playbook:
        tmp = tempfile.mkdtemp(prefix='bench_audit_report_')
        try:
            wall, report_tasks, counts = playbook_run(tmp)
        finally:
            shutil.rmtree(tmp)
        print('ansible-playbook, %d local hosts: %.1f s wall (set_fact per host + report); report tasks %.1f s'
              % (HOSTS, wall, report_tasks))
        print('  counts in the written JSON: %s' % json.dumps(counts, sort_keys=True))


if __name__ == '__main__':
    main()
