# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""plugin_utils/stages.py over registered results (issue 24): what changed the host before a tune stage (filter
stage_stale) and where the xfs role's filesystems are also mounted or in fstab (filter xfs_moved_mounts)."""

from __future__ import annotations

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.stage_stale import stage_stale
from ansible_collections.iotune.storage.plugins.filter.xfs_moved_mounts import xfs_moved_mounts
from ansible_collections.iotune.storage.plugins.plugin_utils import stages

CHANGED, UNCHANGED = {'changed': True}, {'changed': False}
RAID0 = 'the raid0 stage changed the host in this run'
PACKAGES = 'the raid0 stage installs packages in this run'
XFS = 'the xfs stage changed the host in this run'
BLOCK = 'the block_tuning stage changed the host in this run'


def reasons(results, packages_missing=(), install=True):
    return [stage_stale(results, after, install_packages=install,
                        packages_missing=None if packages_missing is None else list(packages_missing))
            for after in ('raid0', 'xfs', 'block_tuning')]


def test_nothing_changed_no_reason():
    assert reasons({}) == [[], [], []]
    assert reasons({'raid0': [{}], 'xfs': [{}, UNCHANGED, {'skipped': True}], 'block_tuning': [UNCHANGED]}) == [[], [], []]


def test_each_change_counts_for_the_later_stages_only():
    assert reasons({'raid0': [CHANGED]}) == [[RAID0], [RAID0], [RAID0]]
    assert reasons({'xfs': [UNCHANGED, {'results': [UNCHANGED, CHANGED]}]}) == [[], [XFS], [XFS]]
    assert reasons({'block_tuning': [CHANGED]}) == [[], [], [BLOCK]]
    assert reasons({'raid0': [CHANGED], 'xfs': [CHANGED], 'block_tuning': [CHANGED]}, packages_missing=None) == [
        [RAID0, PACKAGES], [RAID0, PACKAGES, XFS], [RAID0, PACKAGES, XFS, BLOCK]]


@pytest.mark.parametrize('install, missing, stale', [
    (True, [], False),            # the preflight found every package: the install changes nothing
    (True, ['xfsprogs'], True),
    (True, None, True),           # the preflight did not look
    ('yes', None, True), ('no', None, False), (False, None, False), (0, ['mdadm'], False),
])
def test_the_package_install_counts_unless_the_preflight_found_none_missing(install, missing, stale):
    assert reasons({}, packages_missing=missing, install=install)[0] == ([PACKAGES] if stale else [])


def test_stage_stale_refuses_an_unknown_stage_or_bad_results():
    with pytest.raises(AnsibleFilterError, match="unknown stage 'kernel'"):
        stage_stale({}, 'kernel')
    with pytest.raises(AnsibleFilterError, match='stage_stale expects'):
        stage_stale({'raid0': CHANGED}, 'raid0')
    with pytest.raises(AnsibleFilterError, match='packages_missing'):
        stage_stale({}, 'raid0', packages_missing='mdadm')
    with pytest.raises(AnsibleFilterError, match='changed'):   # the changed test's own refusal
        stage_stale({'raid0': ['changed']}, 'raid0')


def test_moved_mounts_one_pair_per_old_path_fstab_first():
    results = [{'uuid': 'u1', 'fstab_elsewhere': ['/old', '/b'], 'mounted_elsewhere': ['/b', '/c']},
               {'uuid': 'u2'},
               {'uuid': 'u3', 'mounted_elsewhere': ['/x', '/x']}]
    assert xfs_moved_mounts(results) == [['u1', '/old'], ['u1', '/b'], ['u1', '/c'], ['u3', '/x']]


def test_moved_mounts_skips_results_without_a_uuid():
    # a skipped call (the stage's skip, or no filesystem), no filesystem created in check mode
    results = [{'skipped': True, 'fstab_elsewhere': ['/a']}, {'uuid': '', 'fstab_elsewhere': ['/a']},
               {'uuid': None, 'mounted_elsewhere': ['/a']}]
    assert xfs_moved_mounts(results) == [] and xfs_moved_mounts([]) == []


def test_moved_mounts_counts_paths_that_differ_in_case_once_as_the_role_did():
    # Ansible's unique filter, which the role's Jinja used, compares strings without case
    assert stages.moved_mounts([{'uuid': 'u', 'fstab_elsewhere': ['/Data'], 'mounted_elsewhere': ['/data', '/d']}]) == [
        ['u', '/Data'], ['u', '/d']]


def test_moved_mounts_refuses_bad_results():
    with pytest.raises(AnsibleFilterError, match='xfs_moved_mounts expects'):
        xfs_moved_mounts({'results': []})
    with pytest.raises(AnsibleFilterError, match='must be lists'):
        xfs_moved_mounts([{'uuid': 'u', 'fstab_elsewhere': None}])
