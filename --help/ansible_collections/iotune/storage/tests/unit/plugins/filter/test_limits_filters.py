# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The limits drop-ins through the xfs stage and the rolling restart (issue 27 with 28): the drop-ins written with
the mount holds (filter service_dropins), the live check after a write (filter limits_live), and a limits drop-in
written in a run as a limits change of exactly its unit (filter restart_decision), each with a negative control."""

from __future__ import annotations

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.limits_live import limits_live
from ansible_collections.iotune.storage.plugins.filter.restart_decision import restart_decision
from ansible_collections.iotune.storage.plugins.filter.service_dropins import service_dropins
from ansible_collections.iotune.storage.plugins.module_utils import mount_holds, service_limits
from ansible_collections.iotune.storage.plugins.plugin_utils import restart_decision as rd

LIMITS = {'cassandra.service': {'LimitNOFILE': '100000', 'LimitMEMLOCK': 'infinity'}}
FILESYSTEMS = [{'mountpoint': '/var/lib/cassandra', 'services': ['cassandra.service']}]
LIMITS_DROPIN = service_limits.path('cassandra.service')
HOLD_DROPIN = mount_holds.path('cassandra.service')
SHOWN = ('LoadState=loaded\nLimitMEMLOCK=infinity\nLimitMEMLOCKSoft=infinity\nLimitNOFILE=100000\n'
         'LimitNOFILESoft=100000\n')


def test_the_xfs_stage_writes_both_kinds_in_one_call_and_reads_both_globs():
    found = service_dropins(FILESYSTEMS, limits=LIMITS)
    assert [f['path'] for f in found['files']] == [HOLD_DROPIN, LIMITS_DROPIN]
    assert found['globs'] == [mount_holds.GLOB, service_limits.GLOB]
    # the globs do not depend on the input (the preflight reads them before the plan exists)
    assert service_dropins([])['globs'] == found['globs'] and service_dropins([])['files'] == []
    # without limits only the mount holds, as before
    assert service_dropins(FILESYSTEMS)['files'] == mount_holds.files(FILESYSTEMS)


@pytest.mark.parametrize('limits', [['x'], {'cassandra.service': {'LimitNOFLE': 1}}, {'': {'LimitNOFILE': 1}}])
def test_service_dropins_refuses_limits_the_plan_would_refuse(limits):
    with pytest.raises(AnsibleFilterError, match='service_dropins'):
        service_dropins(FILESYSTEMS, limits=limits)


def test_the_live_check_reads_only_the_units_whose_limits_dropin_was_written():
    written = {'changed': True, 'changed_paths': [HOLD_DROPIN, LIMITS_DROPIN]}
    found = limits_live(LIMITS, written=written)
    assert found['read'] and found['units'] == ['cassandra.service']
    assert found['argv'] == service_limits.show_argv(LIMITS) and found['problems'] == []
    # negative controls: a mount hold alone, nothing written, check mode
    assert not limits_live(LIMITS, written={'changed': True, 'changed_paths': [HOLD_DROPIN]})['read']
    assert not limits_live(LIMITS, written={'skipped': True})['read']
    assert not limits_live(LIMITS, written=written, check_mode=True)['read']
    # a removed drop-in of a unit the plan no longer names is not read
    gone = service_limits.path('old.service')
    assert limits_live(LIMITS, written={'changed': True, 'changed_paths': [gone]})['units'] == []


def test_the_live_check_names_a_limit_systemd_does_not_use():
    written = {'changed': True, 'changed_paths': [LIMITS_DROPIN]}
    assert limits_live(LIMITS, written=written, shown={'rc': 0, 'stdout': SHOWN})['problems'] == []
    stale = SHOWN.replace('LimitNOFILE=100000\nLimitNOFILESoft=100000', 'LimitNOFILE=524288\nLimitNOFILESoft=1024')
    problems = limits_live(LIMITS, written=written, shown={'rc': 0, 'stdout': stale})['problems']
    assert len(problems) == 1 and 'LimitNOFILE is 1024:524288 for systemd, the plan says 100000' in problems[0]
    assert 'systemctl show failed' in limits_live(LIMITS, written=written,
                                                  shown={'rc': 1, 'stdout': '', 'stderr': 'no bus'})['problems'][0]


def test_a_limits_dropin_is_a_limits_change_of_exactly_its_unit():
    written = {'changed': True, 'changed_paths': [HOLD_DROPIN, LIMITS_DROPIN, service_limits.path('other.service')]}
    assert rd.dropin_changes(written) == [
        {'class': 'mount_hold', 'what': 'RequiresMountsFor drop-ins', 'units': None},
        {'class': 'limits', 'what': 'limits drop-in of cassandra.service', 'units': ['cassandra.service']},
        {'class': 'limits', 'what': 'limits drop-in of other.service', 'units': ['other.service']}]
    assert rd.dropin_changes({'changed': True, 'changed_paths': [HOLD_DROPIN]}) == [
        {'class': 'mount_hold', 'what': 'RequiresMountsFor drop-ins', 'units': None}]
    # a result of an earlier config_files without changed_paths stays a mount hold change; unchanged is none
    assert [c['class'] for c in rd.dropin_changes({'changed': True})] == ['mount_hold']
    assert rd.dropin_changes({'changed': False, 'changed_paths': []}) == []
    assert rd.dropin_changes(None) == []


POLICY = {'restart': 'auto',
          'services': [{'unit': 'cassandra', 'kind': 'cassandra', 'drain': True}, {'unit': 'mongod', 'kind': 'mongodb'}]}


def test_the_rolling_restart_follows_a_limits_change_for_that_unit_only():
    found = restart_decision(POLICY, dropins={'changed': True, 'changed_paths': [LIMITS_DROPIN]})
    assert found['restarts'] == [{'unit': 'cassandra.service', 'drain': ['nodetool', 'drain']}]
    assert found['active_argv'] == ['systemctl', 'is-active', 'cassandra.service']
    assert any('limits (limits drop-in of cassandra.service)' in line for line in found['lines'])
    # negative control: the mount hold alone restarts nothing
    held = restart_decision(POLICY, dropins={'changed': True, 'changed_paths': [HOLD_DROPIN]})
    assert held['restarts'] == [] and not held['restart_needed']


def test_restart_never_keeps_it_owed_for_the_unit():
    found = restart_decision(dict(POLICY, restart='never'), dropins={'changed': True, 'changed_paths': [LIMITS_DROPIN]})
    assert found['restarts'] == [] and found['pending'] == ['cassandra.service']
    assert found['pending_entries'] == [{'unit': 'cassandra.service', 'reasons': [
        'limits (limits drop-in of cassandra.service): systemd applies Limit*= only to a process it starts']}]


def test_a_limits_change_of_a_unit_the_policy_does_not_list_is_reported_not_acted_on():
    found = restart_decision(POLICY, dropins={'changed': True,
                                              'changed_paths': [service_limits.path('standin.service')]})
    assert found['restarts'] == [] and found['unmanaged'][0]['class'] == 'limits'
    assert any(line.startswith('not restarted here: limits') and 'standin.service' in line for line in found['lines'])
