# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The wiring of iotune_retire_md_arrays in the profile and tune roles (issue 29), the task expressions as the task
files have them, rendered by Ansible's own templar: the preflight reads the retires with the services the plan keeps,
and not at all with iotune_restore (a retire's refusal must not stop a restore); the tune role's retire_array call
keeps the limits drop-ins of the plan's services and does not run with iotune_restore."""

from __future__ import annotations

import os

import yaml

from ansible_collections.iotune.storage.tests.unit.roles import templar

OMIT = '__omit_place_holder__test'
PLAN = {'retire_arrays': [{'name': 'data2', 'confirm_name': 'data2', 'confirm_uuid': 'a0021927:0e4f10bf:2c47dc72:ca0b352e',
                           'zero_superblocks': False, 'services': ['old.service']}],
        'services': ['cassandra.service'], 'restore': False}


def task(role, module):
    with open(os.path.join(templar.ROOT, 'roles', role, 'tasks', 'main.yml')) as f:
        tasks = yaml.safe_load(f)
    # the first call of the module (the profile role's second storage_preflight call reads no retires)
    found = [t for t in tasks if module in t][:1]
    assert len(found) == 1, (role, module)
    return found[0]


def expression(text):
    text = text.strip()
    assert text.startswith('{{') and text.endswith('}}'), text
    return text[2:-2]


def test_the_preflight_reads_the_retires_with_the_kept_services_and_not_on_a_restore():
    retire = expression(task('profile', 'iotune.storage.storage_preflight')['iotune.storage.storage_preflight']['retire'])
    cases = []
    for restore, checks in ((False, True), (True, True), (False, False)):
        variables = {'omit': OMIT, 'iotune_plan': dict(PLAN, restore=restore), 'profile_host_checks': checks,
                     'profile_mdadm_conf': '/etc/mdadm/mdadm.conf',
                     'profile_rebuild_marker': '/var/lib/iotune-storage/initramfs-rebuild-pending'}
        cases.append(('profile', {'retire': retire}, variables, {}))
    tuned, restored, unchecked = [out[retire] for out in templar.render_all(cases)]
    assert tuned == {'arrays': PLAN['retire_arrays'], 'mdadm_conf': '/etc/mdadm/mdadm.conf',
                     'rebuild_marker': '/var/lib/iotune-storage/initramfs-rebuild-pending',
                     'keep_services': ['cassandra.service']}
    assert restored == OMIT and unchecked == OMIT


def test_the_tune_role_s_retire_keeps_the_plan_s_services_and_skips_a_restore():
    call = task('tune', 'iotune.storage.retire_array')
    assert call['iotune.storage.retire_array']['keep_services'].replace(' ', '') == '{{iotune_plan.services}}'
    assert call['when'] == 'not iotune_plan.restore'
    # before the raid0 stage, whose one rebuild covers the ARRAY lines it changed
    with open(os.path.join(templar.ROOT, 'roles', 'tune', 'tasks', 'main.yml')) as f:
        names = [t.get('name') for t in yaml.safe_load(f)]
    assert names.index(call['name']) < names.index('Build the RAID0 arrays')
