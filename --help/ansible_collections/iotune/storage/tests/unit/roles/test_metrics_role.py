# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""roles/metrics: the module_utils its program carries are exactly what textfile_metrics imports, byte for byte, the
program runs them with an isolated interpreter, and the units call it with the role's paths."""

from __future__ import annotations

import ast
import os
import re
import sys

import yaml
from jinja2.nativetypes import NativeEnvironment

from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.program_bundle import (
    MODULE_UTILS, ROOT, assert_carries_byte_for_byte, closure, run_script, template_environment)

ROLE = os.path.join(ROOT, 'roles', 'metrics')


def role_vars():
    with open(os.path.join(ROLE, 'vars', 'main.yml')) as f:
        return yaml.safe_load(f)


def role_defaults():
    with open(os.path.join(ROLE, 'defaults', 'main.yml')) as f:
        return yaml.safe_load(f)


def test_the_program_carries_every_module_util_the_collector_imports_and_no_more():
    assert sorted(role_vars()['metrics_module_utils']) == sorted(closure('textfile_metrics'))


def test_no_carried_module_util_imports_ansible_or_plugin_utils():
    for name in role_vars()['metrics_module_utils']:
        with open(os.path.join(MODULE_UTILS, name + '.py')) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else [
                a.name for a in node.names] if isinstance(node, ast.Import) else []
            for imported in names:
                assert imported.split('.')[0] != 'ansible' and 'plugin_utils' not in imported, (name, imported)


def environment():
    return template_environment(os.path.join(ROLE, 'templates'))


def render(template, **variables):
    """A template of the role with its vars and defaults (the paths resolved as Ansible would)."""
    env, lookup = environment()
    values = dict(role_defaults(), **role_vars())
    values.update(metrics_python=sys.executable, metrics_module_utils_dir=MODULE_UTILS, ansible_managed='Ansible managed',
                  metrics_prom_path=values['metrics_textfile_dir'] + '/iotune_storage.prom')
    values.update(variables)
    return env.get_template(template).render(lookup=lookup, **values)


def test_the_program_runs_isolated_and_carries_the_module_utils_byte_for_byte(tmp_path):
    script = tmp_path / 'iotune-storage-metrics'
    text = render('iotune-storage-metrics.j2')
    script.write_text(text)
    assert text.startswith('#!%s\n' % sys.executable)
    proc = run_script(script, '--help')
    assert proc.returncode == 0 and 'usage: iotune-storage-metrics' in proc.stdout, proc.stderr
    out = tmp_path / 'textfile' / 'iotune_storage.prom'
    proc = run_script(script, '--spec', str(tmp_path / 'none.json'), '--output', str(out))
    assert proc.returncode == 1 and 'reading the host failed' in proc.stderr
    assert 'iotune_storage_collector_up 0\n' in out.read_text()
    assert_carries_byte_for_byte(text, role_vars()['metrics_module_utils'], tmp_path, 'drift')


def test_the_service_runs_the_program_with_the_role_paths_and_the_timer_repeats_it():
    values = dict(role_defaults(), **role_vars())
    service = render('iotune-storage-metrics.service.j2')
    exec_start = re.search(r'^ExecStart=(.*)$', service, re.M).group(1).split()
    assert exec_start == [sys.executable, '-I', '-B', values['metrics_program'], '--spec', values['metrics_spec_path'],
                          '--output', '/var/lib/prometheus/node-exporter/iotune_storage.prom',
                          '--cache', values['metrics_cache_path']]
    assert re.search(r'^Type=oneshot$', service, re.M) and '[Install]' not in service
    timer = render('iotune-storage-metrics.timer.j2', metrics_interval='2min')
    assert re.search(r'^OnUnitActiveSec=2min$', timer, re.M) and re.search(r'^WantedBy=timers.target$', timer, re.M)


def evaluate(expression, **context):
    return NativeEnvironment().from_string(expression).render(**context)


def test_disabling_removes_every_file_an_enabled_role_leaves():
    """metrics_file_globs (what metrics_enabled: false removes, and what the tune role's preflight reads) is every
    file the role writes, the .prom file and the initramfs cache."""
    values = role_vars()
    ctx = dict((k, values[k]) for k in ('metrics_unit', 'metrics_program', 'metrics_spec_path', 'metrics_cache_path'))
    ctx['metrics_textfile_dir'] = role_defaults()['metrics_textfile_dir']
    ctx['metrics_unit_paths'] = [evaluate(path, **ctx) for path in values['metrics_unit_paths']]
    ctx['metrics_prom_path'] = evaluate(values['metrics_prom_path'], **ctx)
    written = [evaluate(entry['path'], **ctx) for entry in values['metrics_files']]
    assert written == ['/usr/local/sbin/iotune-storage-metrics', '/etc/iotune-storage/metrics.json',
                       '/etc/systemd/system/iotune-storage-metrics.service',
                       '/etc/systemd/system/iotune-storage-metrics.timer']
    assert evaluate(values['metrics_file_globs'], **ctx) == written + [
        '/var/lib/prometheus/node-exporter/iotune_storage.prom', '/var/cache/iotune-storage/metrics-initramfs.json']
