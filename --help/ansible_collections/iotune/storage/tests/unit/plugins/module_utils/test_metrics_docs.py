# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""docs/metrics.md: every metric the collector writes is documented, and the example alert rules are valid and fire on
the collector's own output of a drifted host (promtool check rules / test rules; skipped without promtool, which
Debian's prometheus package provides and tools/setup-host installs)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
import yaml

from ansible_collections.iotune.storage.plugins.module_utils import audit as host_audit
from ansible_collections.iotune.storage.plugins.module_utils import drift
from ansible_collections.iotune.storage.plugins.module_utils import textfile_metrics as metrics
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.audit import ARRAYS, RULES, tuned_host, tuning

DOC = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'docs', 'metrics.md')
PLAN = {
    'profile': {'description': 'Cassandra data volume', 'array': {'read_ahead_kb': 8}},
    'raid0_arrays': [{'name': 'data', 'chunk_kb': 256, 'ephemeral': False}],
    'xfs_filesystems': [{'device': '/dev/md/data', 'mountpoint': '/var/lib/cassandra', 'mount_options': ['noatime']}],
}
needs_promtool = pytest.mark.skipif(shutil.which('promtool') is None, reason='promtool is not installed (Debian '
                                    'package prometheus; tools/setup-host installs it)')


def doc_text():
    with open(DOC) as f:
        return f.read()


def alert_rules():
    section = doc_text().split('## Example alert rules', 1)[1]
    return re.search(r'```yaml\n(.*?)```', section, re.S).group(1)


def test_every_family_is_documented():
    text = doc_text()
    for name, dummy in metrics.FAMILIES:
        assert '`%s%s`' % (metrics.PREFIX, name) in text, name


def test_the_rules_are_yaml_with_the_documented_alerts():
    rules = yaml.safe_load(alert_rules())['groups'][0]['rules']
    assert [r['alert'] for r in rules] == ['StorageReadaheadDrift', 'StorageArrayNotActive', 'StorageMountMissing',
                                           'StorageDrift', 'StorageMetricsCollectorNotRunning',
                                           'StorageMetricsCollectorFailing']
    assert 'time() - iotune_storage_collector_last_run_timestamp_seconds' in rules[4]['expr']


def drifted_samples(fake_host):
    """The series of a host whose array readahead was set by hand, with a faulty member and the mount gone."""
    h = tuned_host(fake_host)
    h.write('sys/block/md127/queue/read_ahead_kb', '4096\n')
    h.write('sys/block/md127/md/dev-vdc/state', 'faulty\n')
    h.mountinfo = [line for line in h.mountinfo if '/var/lib/cassandra' not in line]
    h._write_mountinfo()
    facts = host_audit.gather(h.view(), ARRAYS, tuning(h), RULES)
    result = drift.compare(facts, PLAN)
    text = metrics.render(result, facts, 1764000000.0, 0.5, spec_mtime=1763990000.0)
    return [line for line in text.splitlines() if not line.startswith('#')], len(result['items'])


@needs_promtool
def test_promtool_checks_the_rules(tmp_path):
    path = tmp_path / 'rules.yml'
    path.write_text(alert_rules())
    proc = subprocess.run(['promtool', 'check', 'rules', str(path)], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, check=False)
    assert proc.returncode == 0, proc.stdout


@needs_promtool
def test_the_alerts_fire_on_the_collector_output_of_a_drifted_host(fake_host, tmp_path):
    lines, items = drifted_samples(fake_host)
    series = []
    for line in lines:
        name_labels, value = line.rsplit(' ', 1)
        if '{' in name_labels:
            name_labels = name_labels[:-1] + ',instance="db1"}'
        else:
            name_labels += '{instance="db1"}'
        series.append({'series': name_labels, 'values': '%sx90' % value})
    (tmp_path / 'rules.yml').write_text(alert_rules())
    tests = {'rule_files': ['rules.yml'], 'evaluation_interval': '1m', 'tests': [{
        'interval': '1m', 'input_series': series,
        'alert_rule_test': [
            {'eval_time': '20m', 'alertname': 'StorageReadaheadDrift', 'exp_alerts': [{
                'exp_labels': {'severity': 'warning', 'instance': 'db1', 'device': 'md127'},
                'exp_annotations': {'summary': "db1 md127: readahead 4MiB, not the profile's"}}]},
            {'eval_time': '10m', 'alertname': 'StorageArrayNotActive', 'exp_alerts': [{
                'exp_labels': {'severity': 'critical', 'instance': 'db1', 'array': 'data', 'state': 'degraded'},
                'exp_annotations': {'summary': 'db1 array data is degraded'}}]},
            {'eval_time': '10m', 'alertname': 'StorageMountMissing', 'exp_alerts': [{
                'exp_labels': {'severity': 'critical', 'instance': 'db1', 'mountpoint': '/var/lib/cassandra'},
                'exp_annotations': {'summary': 'db1: the planned filesystem is not mounted at /var/lib/cassandra'}}]},
            {'eval_time': '70m', 'alertname': 'StorageDrift', 'exp_alerts': [{
                'exp_labels': {'severity': 'warning', 'instance': 'db1'},
                'exp_annotations': {'summary': 'db1: %d deviation(s) from the storage plan (run the audit for the '
                                               'report)' % items}}]},
            {'eval_time': '20m', 'alertname': 'StorageMetricsCollectorFailing', 'exp_alerts': []},
        ]}]}
    (tmp_path / 'tests.yml').write_text(yaml.safe_dump(tests))
    proc = subprocess.run(['promtool', 'test', 'rules', 'tests.yml'], cwd=str(tmp_path), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, check=False)
    assert proc.returncode == 0, proc.stdout
