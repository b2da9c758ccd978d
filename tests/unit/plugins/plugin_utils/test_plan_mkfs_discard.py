# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan's side of the mkfs options and the discard policy (issue 27): validated before any change, passed to the
xfs stage's calls and to the audit only when the profile sets them, and docs/profiles.md's table equal to the files."""

from __future__ import annotations

import os
import re

import pytest
import yaml

from ansible_collections.iotune.storage.plugins.filter.storage_audit_spec import storage_audit_arguments
from ansible_collections.iotune.storage.plugins.plugin_utils import stages
from ansible_collections.iotune.storage.plugins.plugin_utils.plan import PlanError, build_plan, validate_profile

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..')
PROFILES = os.path.join(ROOT, 'roles', 'profile', 'vars', 'profiles')
ARRAYS = [{'name': 'data', 'devices': ['/dev/disk/by-id/virtio-a', '/dev/disk/by-id/virtio-b'],
           'mountpoint': '/var/lib/db'}]
CUSTOM = {'raid_chunk_kb': 64, 'array': {'read_ahead_kb': 128},
          'members': {'read_ahead_kb': 128, 'scheduler_by_class': {'nvme': 'none'}}, 'mount_options': ['noatime'],
          'fio_verify_jobs': [{'name': 'rand4k', 'rw': 'randread', 'bs': '4k'}], 'fio_verify_thresholds': {}}


def profile_data(name):
    with open(os.path.join(PROFILES, name + '.yml')) as f:
        return yaml.safe_load(f)['profile_data']


def plan(name='cassandra', overrides=None):
    return build_plan(name, profile_data(name), overrides or {}, ARRAYS, mongodb_version='7.0')


def problems(name='cassandra', overrides=None):
    with pytest.raises(PlanError) as e:
        plan(name, overrides)
    return str(e.value)


def test_the_profile_values_reach_the_filesystem_entries_and_the_calls():
    fs = plan()['xfs_filesystems'][0]
    assert fs['mkfs_discard'] is False
    assert fs['discard_by_class']['hdd'] == 'none' and fs['discard_by_class']['instance_store'] == 'fstrim_timer'
    call = stages.xfs_calls({'filesystems': [fs], 'mount_options': ['noatime'], 'device_timeout': '90s'})[0]
    assert call['mkfs_discard'] is False and call['discard_by_class'] == fs['discard_by_class']
    # the planned members ride along: check mode predicts the policy from them before the array exists
    assert fs['members'] == ARRAYS[0]['devices'] and call['members'] == ARRAYS[0]['devices']
    # the preflight's calls (planned_raid0, before the raid0 stage) and the role's (raid0_results) carry the same
    # members, so a stage in sync is still skipped (issue 31)
    early = stages.xfs_calls({'filesystems': [fs], 'mount_options': ['noatime'], 'device_timeout': '90s',
                              'planned_raid0': {'arrays': plan()['raid0_arrays'], 'chunk_kb': 256, 'homehost': 'any'}})
    late = stages.xfs_calls({'filesystems': [fs], 'mount_options': ['noatime'], 'device_timeout': '90s',
                             'stripes': {'data': {'level': 'raid0', 'chunk_kb': 256, 'raid_disks': 2,
                                                  'members': ['/dev/vdb', '/dev/vdc']}}})
    assert early == late


def test_a_profile_that_sets_nothing_changes_no_call():
    fs = plan('custom', CUSTOM)['xfs_filesystems'][0]
    assert 'mkfs_discard' not in fs and 'discard_by_class' not in fs
    call = stages.xfs_calls({'filesystems': [fs], 'mount_options': ['noatime'], 'device_timeout': '90s'})[0]
    assert 'mkfs_discard' not in call and 'discard_by_class' not in call and 'members' not in call
    assert storage_audit_arguments(plan('custom', CUSTOM), 'r', 's')['fstrim_timer'] is False
    assert storage_audit_arguments(plan(), 'r', 's')['fstrim_timer'] is True


def test_overrides_are_validated_before_any_change():
    assert "mkfs.discard must be true or false, got 'no'" in problems(overrides={'mkfs': {'discard': 'no'}})
    assert ("discard_by_class.nvme must be one of none, fstrim_timer, online, got 'trim'"
            in problems(overrides={'discard_by_class': {'nvme': 'trim'}}))
    assert 'unknown key discard_by_clas (did you mean discard_by_class' in problems(
        overrides={'discard_by_clas': {'nvme': 'online'}})
    assert 'unknown key mkfs.sector_size' in problems(overrides={'mkfs': {'sector_size': 4096}})
    # an override that is valid is taken (negative control of the refusals above)
    fs = plan(overrides={'discard_by_class': {'nvme': 'online'}, 'mkfs': {'discard': True}})['xfs_filesystems'][0]
    assert fs['discard_by_class']['nvme'] == 'online' and fs['mkfs_discard'] is True


def test_raw_discard_in_an_arrays_mount_options_is_refused():
    arrays = [dict(ARRAYS[0], mount_options=['noatime', 'discard'])]
    with pytest.raises(PlanError, match='discard_by_class'):
        build_plan('cassandra', profile_data('cassandra'), {}, arrays)


def test_the_docs_table_is_the_profiles():
    """docs/profiles.md "Filesystem": one row per profile with its mkfs.discard and its policy per class."""
    with open(os.path.join(ROOT, 'docs', 'profiles.md')) as f:
        text = f.read()
    section = text.split('## Filesystem', 1)[1].split('\n## ', 1)[0]
    rows = dict((m.group(1), (m.group(2), m.group(3))) for m in re.finditer(
        r'^\| `([a-z_]+)` \| `mkfs\.discard: (\w+)` \| `(\{[^`]*\})` \|', section, re.M))
    seen = 0
    for name in sorted(os.listdir(PROFILES)):
        if name == 'custom.yml':
            continue
        profile = validate_profile(name[:-4], profile_data(name[:-4]), {})
        assert name[:-4] in rows, name
        discard, by_class = rows[name[:-4]]
        assert discard == str(profile['mkfs'].get('discard')).lower()
        assert yaml.safe_load(by_class) == profile['discard_by_class']
        seen += 1
    assert seen == 4


def test_the_ephemeral_array_carries_the_profiles_mkfs_discard():
    """The boot re-creation of an instance-store array formats with the profile's mkfs options (mkfs.xfs -K)."""
    ephemeral = [dict(ARRAYS[0], ephemeral=True)]
    entry = build_plan('cassandra', profile_data('cassandra'), {}, ephemeral, mongodb_version='7.0')['ephemeral_arrays'][0]
    assert entry['mkfs_discard'] is False
    # negative control: a profile that sets no mkfs options leaves the entry as before (mkfs.xfs's own default)
    custom = build_plan('custom', profile_data('custom'), CUSTOM, ephemeral, mongodb_version='7.0')['ephemeral_arrays'][0]
    assert 'mkfs_discard' not in custom
