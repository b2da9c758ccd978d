# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The filters storage_audit_arguments (the audit role) and storage_metrics_spec (the metrics role): one source of
what a host is read and compared with."""

from __future__ import annotations

import copy
import json
import os

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.storage_audit_spec import (
    storage_audit_arguments,
    storage_metrics_spec,
)
from ansible_collections.iotune.storage.plugins.module_utils import audit as host_audit
from ansible_collections.iotune.storage.plugins.module_utils import drift
from ansible_collections.iotune.storage.plugins.module_utils.textfile_metrics import AUDIT_KEYS, read_spec
from ansible_collections.iotune.storage.plugins.plugin_utils.plan import build_plan
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.audit import ARRAYS, RULES, tuned_host, tuning

PROFILES = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'roles', 'profile', 'vars', 'profiles')
SYSCTL_FILE = '/etc/sysctl.d/90-iotune-storage.conf'


def plan_of(profile='cassandra', **entry):
    with open(os.path.join(PROFILES, profile + '.yml')) as f:
        data = yaml.safe_load(f)['profile_data']
    arrays = [dict(ARRAYS[0], chunk_kb=256, **entry)]
    return build_plan(profile, data, {}, arrays, mongodb_version='7.0' if profile == 'mongodb' else None)


def test_the_audit_arguments_are_what_the_audit_role_passed_before():
    """roles/audit built them in Jinja: the arrays' name, devices and mountpoint, the plan's tuning and kernel."""
    plan = plan_of(services=['cassandra'])
    args = storage_audit_arguments(plan, rules_file=RULES, sysctl_file=SYSCTL_FILE)
    assert args == {
        'arrays': [{'name': 'data', 'devices': ARRAYS[0]['devices'], 'mountpoint': '/var/lib/cassandra'}],
        'tuning': plan['block_tuning_devices'], 'sysctl': plan['kernel']['sysctl'], 'thp': plan['kernel']['thp'],
        # and the CPU governor and clocksource (issue 27)
        'cpu_clock': {'cpu_governor': 'performance'},
        'rules_file': RULES, 'sysctl_file': SYSCTL_FILE, 'mdadm_conf': None, 'initramfs': True,
        # and whether fstrim.timer is read: the profile's discard policy (issue 27, mkfs and discard)
        'fstrim_timer': True,
        # and the limits per service (issue 27), which the audit role did not pass before
        'limits': {'cassandra.service': {'LimitAS': 'infinity', 'LimitMEMLOCK': 'infinity', 'LimitNOFILE': '100000',
                                         'LimitNPROC': '32768'}}}
    assert sorted(args) == sorted(AUDIT_KEYS)
    assert storage_audit_arguments(plan, RULES, SYSCTL_FILE, mdadm_conf='', initramfs=False)['initramfs'] is False
    assert storage_audit_arguments(plan, RULES, SYSCTL_FILE, mdadm_conf='/etc/mdadm.conf')['mdadm_conf'] == '/etc/mdadm.conf'


@pytest.mark.parametrize('value', [None, [], {'profile': {}}])
def test_anything_but_a_plan_is_refused(value):
    with pytest.raises(AnsibleFilterError, match='must be the tune plan'):
        storage_audit_arguments(value, RULES, SYSCTL_FILE)


@pytest.mark.parametrize('profile', ['cassandra', 'mongodb'])
def test_the_metrics_spec_carries_the_audit_arguments_and_the_compared_plan(profile):
    plan = plan_of(profile)
    spec = storage_metrics_spec(plan, RULES, SYSCTL_FILE, mdadm_conf=None, initramfs=True)
    assert spec['schema_version'] == 1
    assert spec['audit'] == storage_audit_arguments(plan, RULES, SYSCTL_FILE)
    assert spec['plan'] == drift.compared_plan(plan)
    assert json.loads(json.dumps(spec)) == spec


def test_the_spec_file_is_one_the_program_reads(tmp_path):
    path = tmp_path / 'metrics.json'
    path.write_text(json.dumps(storage_metrics_spec(plan_of(), RULES, SYSCTL_FILE), indent=2, sort_keys=True))
    spec, mtime = read_spec(str(path))
    assert spec['audit']['rules_file'] == RULES and mtime > 0


@pytest.mark.parametrize('change', ['none', 'readahead', 'mount'])
def test_the_compared_plan_gives_the_verdict_of_the_whole_plan(fake_host, change):
    h = tuned_host(fake_host)
    if change == 'readahead':
        h.write('sys/block/md127/queue/read_ahead_kb', '4096\n')
    elif change == 'mount':
        h.mountinfo[-1] = h.mountinfo[-1].replace('rw,noatime', 'rw,relatime')
        h._write_mountinfo()
    plan = plan_of()
    facts = host_audit.gather(h.view(), ARRAYS, tuning(h), RULES)
    whole = drift.compare(copy.deepcopy(facts), plan, 'db1')
    assert drift.compare(copy.deepcopy(facts), drift.compared_plan(plan), 'db1') == whole
    assert (whole['verdict'] == 'ok') == (change == 'none'), whole['items']
