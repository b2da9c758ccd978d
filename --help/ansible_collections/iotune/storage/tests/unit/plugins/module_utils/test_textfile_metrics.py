# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/textfile_metrics.py: the metrics of the comparison, parsed back; the atomic write, the initramfs
cache and the program on the fake host."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import audit as host_audit
from ansible_collections.iotune.storage.plugins.module_utils import drift
from ansible_collections.iotune.storage.plugins.module_utils import textfile_metrics as metrics
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.audit import ARRAYS, RULES, tuned_host, tuning

PLAN = {
    'profile': {'description': 'Cassandra data volume', 'array': {'read_ahead_kb': 8}},
    'raid0_arrays': [{'name': 'data', 'chunk_kb': 256, 'ephemeral': False}],
    'xfs_filesystems': [{'device': '/dev/md/data', 'mountpoint': '/var/lib/cassandra', 'mount_options': ['noatime']}],
}
NOW = 1764000000.25

# ---------------------------------------------------------------------------------------------
# a tiny parser of the text format: what promtool would refuse fails here too

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)')


def unescape(value):
    return re.sub(r'\\([\\"n])', lambda m: '\n' if m.group(1) == 'n' else m.group(1), value)


def parse(text):
    """[(name, {label: value}, float)], checking HELP and TYPE before each family and each series once."""
    assert text.endswith('\n')
    helps, types, samples, seen = {}, {}, [], set()
    for line in text.splitlines():
        if line.startswith('# HELP '):
            name, dummy, help_text = line[7:].partition(' ')
            assert name not in helps and help_text, line
            helps[name] = help_text
        elif line.startswith('# TYPE '):
            name, dummy, kind = line[7:].partition(' ')
            assert name in helps and name not in types and kind == 'gauge', line
            types[name] = kind
        else:
            m = SAMPLE.match(line)
            assert m, 'not a sample line: %r' % line
            name, body, value = m.groups()
            assert name in types, '%s has no # TYPE before its samples' % name
            labels, pos = {}, 0
            while body and pos < len(body):
                lm = LABEL.match(body, pos)
                assert lm, 'bad labels in %r' % line
                labels[lm.group(1)] = unescape(lm.group(2))
                pos = lm.end()
            key = (name, tuple(sorted(labels.items())))
            assert key not in seen, 'series twice: %r' % line
            seen.add(key)
            samples.append((name, labels, float(value)))
    for name in types:
        assert name.startswith('iotune_storage_') and re.match(r'^[a-z_]+$', name), name
    return samples


def value(samples, name, **labels):
    found = [v for n, lab, v in samples if n == 'iotune_storage_' + name
             and all(lab.get(k) == str(want) for k, want in labels.items())]
    assert len(found) == 1, (name, labels, found)
    return found[0]


def names(samples):
    return set(n for n, lab, v in samples)


def run(h):
    facts = host_audit.gather(h.view(), ARRAYS, tuning(h), RULES)
    result = drift.compare(facts, PLAN)
    return result, parse(metrics.render(result, facts, NOW, 0.5, spec_mtime=1763990000.0))


# ---------------------------------------------------------------------------------------------
# render


def test_a_healthy_host(fake_host):
    result, samples = run(tuned_host(fake_host))
    assert result['verdict'] == 'ok'
    assert value(samples, 'collector_up') == 1
    assert value(samples, 'collector_last_run_timestamp_seconds') == NOW
    assert value(samples, 'spec_timestamp_seconds') == 1763990000.0
    assert value(samples, 'drift_items') == 0 and 'iotune_storage_drift' not in names(samples)
    for device in ('md127', 'vdb', 'vdc'):
        assert value(samples, 'device_read_ahead_bytes', device=device) == 8192
        assert value(samples, 'device_read_ahead_wanted_bytes', device=device) == 8192
        assert value(samples, 'device_setting_ok', device=device, setting='read_ahead_kb') == 1
        assert value(samples, 'device_setting_persisted', device=device, setting='read_ahead_kb') == 1
    assert value(samples, 'device_scheduler_info', device='vdb', scheduler='none', wanted='none') == 1
    assert [lab['state'] for n, lab, v in samples if n == 'iotune_storage_array_state' and v == 1] == ['active']
    assert len([1 for n, lab, v in samples if n == 'iotune_storage_array_state']) == len(metrics.ARRAY_STATES)
    assert value(samples, 'array_members', array='data') == 2
    assert value(samples, 'array_members_planned', array='data') == 2
    assert value(samples, 'array_read_ahead_bytes', array='data') == 8192
    assert value(samples, 'mount_present', mountpoint='/var/lib/cassandra') == 1
    assert value(samples, 'udev_rules_ok') == 1
    assert value(samples, 'initramfs_checked') == 0


def test_a_drifted_host_readahead_by_hand_degraded_array_missing_mount(fake_host):
    h = tuned_host(fake_host)
    h.write('sys/block/md127/queue/read_ahead_kb', '4096\n')       # blockdev --setra 8192 by hand
    h.write('sys/block/md127/md/dev-vdc/state', 'faulty\n')        # one member out
    h.mountinfo = [line for line in h.mountinfo if '/var/lib/cassandra' not in line]
    h._write_mountinfo()
    result, samples = run(h)
    assert value(samples, 'drift_items') == len(result['items']) > 0
    assert value(samples, 'device_read_ahead_bytes', device='md127') == 4096 * 1024
    assert value(samples, 'device_read_ahead_wanted_bytes', device='md127') == 8192
    assert value(samples, 'device_setting_ok', device='md127', setting='read_ahead_kb') == 0
    assert value(samples, 'device_setting_persisted', device='md127', setting='read_ahead_kb') == 1
    assert value(samples, 'drift', area='readahead', subject='md127 (md_name=data)',
                 kind='readahead: read_ahead_kb live 4096, profile 8') == 1
    assert value(samples, 'array_state', array='data', state='degraded') == 1
    assert value(samples, 'array_state', array='data', state='active') == 0
    assert value(samples, 'array_members', array='data') == 1
    assert value(samples, 'array_members_planned', array='data') == 2
    assert value(samples, 'mount_present', mountpoint='/var/lib/cassandra') == 0
    kinds = [lab['kind'] for n, lab, v in samples if n == 'iotune_storage_drift']
    assert 'mount: nothing is mounted at /var/lib/cassandra' in kinds
    assert sorted(kinds) == sorted(set(drift.drift_kind(i) for i in result['items']))


def test_a_failed_read_writes_only_the_collector_metrics():
    samples = parse(metrics.render(None, None, NOW, 0.125, spec_mtime=None))
    assert names(samples) == {'iotune_storage_collector_up', 'iotune_storage_collector_last_run_timestamp_seconds',
                              'iotune_storage_collector_duration_seconds'}
    assert value(samples, 'collector_up') == 0 and value(samples, 'collector_duration_seconds') == 0.125


def test_label_values_are_escaped_and_the_same_kind_twice_is_one_series():
    facts = {'arrays': [], 'tuning': {}, 'kernel': None, 'initramfs': {}}
    subject = 'C:\\dir "quoted"\nnext line'
    item = {'area': 'tuning', 'subject': subject, 'message': 'the plan tunes %s, which matches nothing' % subject}
    other = dict(item, message='the plan tunes sdb, which matches nothing')
    third = dict(item, message='the plan tunes sdc, which matches nothing')
    result = {'items': [item, other, third], 'devices': [], 'arrays': []}
    text = metrics.render(result, facts, NOW, 0.0)
    assert '\\\\dir \\"quoted\\"\\nnext line' in text
    samples = parse(text)
    assert value(samples, 'drift', area='tuning', subject=subject, kind=drift.drift_kind(item)) == 1
    assert value(samples, 'drift', area='tuning', subject=subject,
                 kind='tuning: the plan tunes \u2026, which matches nothing') == 2
    assert value(samples, 'drift_items') == 3
    assert metrics.escape_label('a\\b"c\nd') == 'a\\\\b\\"c\\nd'
    assert metrics.escape_help('x\\y\nz') == 'x\\\\y\\nz'


def test_kernel_settings_compliance_follows_the_audit_items():
    facts = {'arrays': [], 'tuning': {}, 'initramfs': {'checked': True},
             'kernel': {'sysctl': {'vm.swappiness': {}, 'vm.dirty_ratio': {}}, 'thp': {'enabled': {}, 'defrag': {}}}}
    items = [{'area': 'kernel', 'subject': 'vm.swappiness', 'message': 'vm.swappiness: live 60, wanted 1'},
             {'area': 'kernel', 'subject': 'THP defrag', 'message': 'THP defrag: live always, wanted never'}]
    samples = parse(metrics.render({'items': items, 'devices': [], 'arrays': []}, facts, NOW, 0.0))
    assert value(samples, 'kernel_setting_ok', setting='vm.swappiness') == 0
    assert value(samples, 'kernel_setting_ok', setting='vm.dirty_ratio') == 1
    assert value(samples, 'kernel_setting_ok', setting='transparent_hugepage.defrag') == 0
    assert value(samples, 'kernel_setting_ok', setting='transparent_hugepage.enabled') == 1
    assert value(samples, 'initramfs_checked') == 1


def test_every_family_has_help_and_a_name_of_the_conventions():
    for name, help_text in metrics.FAMILIES:
        assert help_text and re.match(r'^[a-z]+(_[a-z]+)*$', name), name
        assert not re.search(r'_(kb|kib|ms|sec)(_|$)', name), name
    assert len(set(n for n, h in metrics.FAMILIES)) == len(metrics.FAMILIES)


@pytest.mark.skipif(shutil.which('promtool') is None,
                    reason='promtool is not installed (Debian package prometheus; tools/setup-host installs it)')
def test_promtool_accepts_the_output(fake_host):
    h = tuned_host(fake_host)
    h.write('sys/block/md127/queue/read_ahead_kb', '4096\n')
    facts = host_audit.gather(h.view(), ARRAYS, tuning(h), RULES)
    for text in (metrics.render(drift.compare(facts, PLAN), facts, NOW, 0.5, spec_mtime=NOW),
                 metrics.render(None, None, NOW, 0.5)):
        proc = subprocess.run(['promtool', 'check', 'metrics'], input=text, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True, check=False)
        assert proc.returncode == 0, proc.stdout


# ---------------------------------------------------------------------------------------------
# the atomic write


def test_the_prom_file_is_replaced_in_one_rename_with_mode_0644(tmp_path, monkeypatch):
    target = tmp_path / 'textfile' / 'iotune_storage.prom'
    renames = []
    real_replace = os.replace

    def watching_replace(src, dest):
        with open(src) as f:
            renames.append((os.path.dirname(src), os.path.basename(src), dest, f.read()))
        real_replace(src, dest)
    monkeypatch.setattr(os, 'replace', watching_replace)
    old_umask = os.umask(0o077)
    try:
        metrics.write_atomically(str(target), 'first\n')
        os.chmod(str(target), 0o600)
        metrics.write_atomically(str(target), 'second\n')
    finally:
        os.umask(old_umask)
    assert target.read_text() == 'second\n'
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [(d, dest, text) for d, name, dest, text in renames] == [
        (str(target.parent), str(target), 'first\n'), (str(target.parent), str(target), 'second\n')]
    assert all(not name.endswith('.prom') and name.startswith('.') for d, name, dest, text in renames)
    assert os.listdir(str(target.parent)) == ['iotune_storage.prom']


# ---------------------------------------------------------------------------------------------
# the initramfs cache


def boot_dir(tmp_path):
    boot = tmp_path / 'boot'
    boot.mkdir()
    (boot / 'vmlinuz-6.1.0-28-amd64').write_text('kernel')
    (boot / 'initrd.img-6.1.0-28-amd64').write_text('image')
    return boot


def test_the_initramfs_is_read_once_per_image_and_mdadm_conf(tmp_path):
    boot = boot_dir(tmp_path)
    conf = tmp_path / 'mdadm.conf'
    conf.write_text('ARRAY /dev/md/data UUID=a0021927:0e4f10bf:2c47dc72:ca0b352e\n')
    cache = str(tmp_path / 'cache' / 'initramfs.json')
    reads = []

    def read():
        reads.append(1)
        return {'checked': True, 'image': str(boot / 'initrd.img-6.1.0-28-amd64'), 'lines': [], 'error': None}

    def once():
        return metrics.cached_initramfs(read, metrics.initramfs_key(str(boot), str(conf)), cache)
    first = once()
    assert once() == first and len(reads) == 1                      # hit
    (boot / 'initrd.img-6.1.0-28-amd64').write_text('rebuilt image')  # update-initramfs
    once()
    assert len(reads) == 2
    os.utime(str(conf), ns=(1, 1))                                   # mdadm.conf changed
    once()
    once()
    assert len(reads) == 3
    (boot / 'vmlinuz-6.12.0-1-amd64').write_text('kernel')          # a newer kernel boots next
    (boot / 'initrd.img-6.12.0-1-amd64').write_text('image')
    assert metrics.initramfs_key(str(boot), str(conf))['image'].endswith('6.12.0-1-amd64')
    once()
    assert len(reads) == 4
    with open(cache) as f:
        assert json.load(f)['key']['image'].endswith('6.12.0-1-amd64')


def test_an_error_is_not_kept_and_no_image_means_no_cache(tmp_path):
    boot = boot_dir(tmp_path)
    cache = str(tmp_path / 'initramfs.json')
    reads = []

    def failing():
        reads.append(1)
        return {'checked': False, 'image': None, 'lines': [], 'error': 'unmkinitramfs is needed'}
    key = metrics.initramfs_key(str(boot), str(tmp_path / 'mdadm.conf'))
    metrics.cached_initramfs(failing, key, cache)
    metrics.cached_initramfs(failing, key, cache)
    assert len(reads) == 2 and not os.path.exists(cache)
    assert metrics.initramfs_key(str(tmp_path / 'empty')) is None


# ---------------------------------------------------------------------------------------------
# the program


def spec_of(h, **audit_changes):
    args = {'arrays': ARRAYS, 'tuning': tuning(h), 'rules_file': RULES, 'mdadm_conf': None, 'sysctl': {}, 'thp': {},
            'sysctl_file': '/etc/sysctl.d/90-iotune-storage.conf', 'initramfs': False}
    args.update(audit_changes)
    return {'schema_version': 1, 'audit': args, 'plan': PLAN}


def test_the_program_reads_the_host_and_writes_the_file(fake_host, tmp_path, monkeypatch, capsys):
    h = tuned_host(fake_host)
    monkeypatch.setattr(metrics, 'HOST_ROOT', h.root)
    monkeypatch.setattr(metrics, 'MODULES_ROOT', os.path.join(h.root, 'lib', 'modules'))
    spec = tmp_path / 'metrics.json'
    spec.write_text(json.dumps(spec_of(h)))
    os.utime(str(spec), (1763990000, 1763990000))
    out = tmp_path / 'textfile' / 'iotune_storage.prom'
    assert metrics.main(['--spec', str(spec), '--output', str(out), '--cache', str(tmp_path / 'c.json')]) == 0
    samples = parse(out.read_text())
    assert value(samples, 'collector_up') == 1 and value(samples, 'drift_items') == 0
    assert value(samples, 'spec_timestamp_seconds') == 1763990000
    assert capsys.readouterr().err == ''
    assert metrics.main(['--spec', str(spec)]) == 0                   # without --output: stdout
    assert parse(capsys.readouterr().out)


@pytest.mark.parametrize('content,reason', [
    (None, 'No such file'),
    ('{"schema_version": 1', 'is not JSON'),
    ('{"schema_version": 9, "audit": {}, "plan": {}}', 'not a metrics spec of schema version 1'),
    ('{"schema_version": 1, "audit": {"arrays": []}, "plan": {}}', 'audit lacks tuning, rules_file'),
])
def test_a_failed_read_still_writes_the_file_and_exits_1(tmp_path, capsys, content, reason):
    spec = tmp_path / 'metrics.json'
    if content is not None:
        spec.write_text(content)
    out = tmp_path / 'iotune_storage.prom'
    assert metrics.main(['--spec', str(spec), '--output', str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith('iotune-storage-metrics: reading the host failed: ') and reason in err, err
    samples = parse(out.read_text())
    assert value(samples, 'collector_up') == 0
    assert 'iotune_storage_drift_items' not in names(samples)


def test_a_failure_of_the_comparison_itself_is_collector_up_0(fake_host, tmp_path, monkeypatch, capsys):
    h = tuned_host(fake_host)
    monkeypatch.setattr(metrics, 'HOST_ROOT', h.root)

    def broken(*args, **kwargs):
        raise KeyError('arrays')
    monkeypatch.setattr(drift, 'compare', broken)
    spec = tmp_path / 'metrics.json'
    spec.write_text(json.dumps(spec_of(h)))
    out = tmp_path / 'iotune_storage.prom'
    assert metrics.main(['--spec', str(spec), '--output', str(out)]) == 1
    assert "KeyError: 'arrays'" in capsys.readouterr().err
    assert value(parse(out.read_text()), 'collector_up') == 0
