# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The original state, continued (issue 29): the restore removes the limits drop-ins (naming the restart each unit
needs, not recorded in the record of restarts owed) and puts fstrim.timer back only when the snapshot says it was not
enabled."""

from __future__ import annotations

import json
import os

from ansible_collections.iotune.storage.plugins.module_utils import original_state as orig
from ansible_collections.iotune.storage.plugins.module_utils import restart_record
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.test_original_state import (
    FILES,
    PLAN,
    build,
    kernel_write,
    tune,
)

DROPIN = '/etc/systemd/system/cassandra.service.d/iotune-storage-limits.conf'
HOLD = '/etc/systemd/system/cassandra.service.d/iotune-storage-mounts.conf'
TIMER_SHOW = ['systemctl', 'show', '--property=LoadState,UnitFileState,ActiveState', '--', 'fstrim.timer']
UNIT_SHOW = restart_record.show_argv(['cassandra.service'])


class Systemd(object):
    """systemctl as far as these tests need it: fstrim.timer's state (changed by disable/stop) and cassandra's."""

    def __init__(self, enabled='disabled', active='inactive', fail_show=False):
        self.timer = {'UnitFileState': enabled, 'ActiveState': active}
        self.cassandra_active = True
        self.fail_show = fail_show
        self.calls = []

    def __call__(self, argv):
        self.calls.append(list(argv))
        if argv == TIMER_SHOW:
            if self.fail_show:
                return 1, '', 'Failed to connect to bus'
            return 0, 'LoadState=loaded\nUnitFileState=%(UnitFileState)s\nActiveState=%(ActiveState)s\n' % self.timer, ''
        if argv == UNIT_SHOW:
            return 0, 'Id=cassandra.service\nActiveState=%s\nInvocationID=%s\n' % (
                'active' if self.cassandra_active else 'inactive', 'abc' if self.cassandra_active else ''), ''
        if argv[1:] == ['disable', 'fstrim.timer']:
            self.timer['UnitFileState'] = 'disabled'
        if argv[1:] == ['stop', 'fstrim.timer']:
            self.timer['ActiveState'] = 'inactive'
        return 0, '', ''

    def changes(self):
        return [c for c in self.calls if c[1] not in ('show',)]


def call(host, path, systemd, state='recorded', check_mode=False, files=None, devices=None, sysctl=None):
    params = {'state': state, 'path': str(path), 'devices': PLAN if devices is None else devices,
              'sysctl': sysctl or [], 'files': FILES if files is None else files}
    return orig.OriginalState(params, host.view(), root=host.root, run=systemd, systemctl='systemctl',
                              udevadm='udevadm', check_mode=check_mode, now=1772359200, write=kernel_write)


def recorded_then_tuned(tmp_path, systemd, limits=True):
    """A host recorded with ``systemd``'s timer state, then tuned: the collection's files, a limits drop-in and the
    mount hold of cassandra, the timer enabled and active (the discard policy)."""
    host, kernel = build(tmp_path / 'host')
    path = tmp_path / 'state' / 'original-state.json'
    call(host, path, systemd).call()
    tune(host, kernel)
    if limits:
        kernel.write(DROPIN.lstrip('/'), '[Service]\nLimitNOFILE=100000\nLimitMEMLOCK=infinity\n')
    kernel.write(HOLD.lstrip('/'), '[Unit]\nRequiresMountsFor=/var/lib/cassandra\n')
    systemd.timer = {'UnitFileState': 'enabled', 'ActiveState': 'active'}
    return host, path


# --- fstrim.timer -------------------------------------------------------------------------------------------------


def test_the_snapshot_records_the_timer_state(tmp_path):
    host, dummy = build(tmp_path / 'host')
    result = call(host, tmp_path / 's.json', Systemd('disabled', 'inactive')).call()
    assert result['snapshot']['fstrim_timer'] == {'enabled': 'disabled', 'active': 'inactive', 'error': None}


def test_restore_disables_and_stops_a_timer_that_was_not_enabled(tmp_path):
    systemd = Systemd('disabled', 'inactive')
    host, path = recorded_then_tuned(tmp_path, systemd, limits=False)
    check = call(host, path, systemd, state='restored', check_mode=True).call()
    assert check['restore']['fstrim_timer']['commands'] == ['disable', 'stop']
    assert 'fstrim.timer: enabled, active\n' in check['diff'][-1]['before']
    assert 'fstrim.timer: disabled, inactive\n' in check['diff'][-1]['after']
    assert ['systemctl', 'disable', 'fstrim.timer'] not in systemd.calls
    call(host, path, systemd, state='restored').call()
    assert ['systemctl', 'disable', 'fstrim.timer'] in systemd.calls
    assert ['systemctl', 'stop', 'fstrim.timer'] in systemd.calls
    assert systemd.timer == {'UnitFileState': 'disabled', 'ActiveState': 'inactive'}
    again = call(host, path, systemd, state='restored').call()
    assert again['changed'] is False and again['restore']['fstrim_timer']['commands'] == []


def test_a_timer_that_was_enabled_is_left(tmp_path):
    # negative control: the distribution had it enabled (Ubuntu does): the restore never disables it
    systemd = Systemd('enabled', 'active')
    host, path = recorded_then_tuned(tmp_path, systemd, limits=False)
    result = call(host, path, systemd, state='restored').call()
    assert result['restore']['fstrim_timer']['commands'] == []
    assert 'left enabled' in result['restore']['fstrim_timer']['why']
    assert not [c for c in systemd.calls if c[1] in ('disable', 'stop') and c[2] == 'fstrim.timer']


def test_a_snapshot_without_the_key_leaves_the_timer_and_says_why(tmp_path):
    systemd = Systemd('disabled', 'inactive')
    host, path = recorded_then_tuned(tmp_path, systemd, limits=False)
    with open(str(path)) as f:
        old = json.load(f)
    del old['fstrim_timer']                       # what an earlier release wrote
    older = tmp_path / 'older.json'
    older.write_text(json.dumps(old))
    result = call(host, older, systemd, state='restored').call()
    timer = result['restore']['fstrim_timer']
    assert timer['commands'] == [] and 'before the collection recorded' in timer['why']
    assert not [c for c in systemd.calls if c[1] in ('disable', 'stop') and c[2] == 'fstrim.timer']


def test_a_timer_state_not_read_then_is_left(tmp_path):
    systemd = Systemd(fail_show=True)
    host, path = recorded_then_tuned(tmp_path, systemd, limits=False)
    systemd.fail_show = False
    timer = call(host, path, systemd, state='restored').call()['restore']['fstrim_timer']
    assert timer['commands'] == [] and 'could not be read when the snapshot was recorded' in timer['why']


# --- limits drop-ins ----------------------------------------------------------------------------------------------


def test_restore_removes_the_limits_dropins_reloads_and_names_the_restart(tmp_path):
    systemd = Systemd('enabled', 'active')
    host, path = recorded_then_tuned(tmp_path, systemd)
    check = call(host, path, systemd, state='restored', check_mode=True).call()
    assert [(f['path'], f['kind']) for f in check['restore']['files'] if f['kind'] == 'dropin'] == [(DROPIN, 'dropin')]
    assert (DROPIN, '(removed)') in [(d['before_header'], d['after_header']) for d in check['diff']]
    assert check['limits'] == ['cassandra.service: its limits drop-in %s (LimitMEMLOCK=infinity, LimitNOFILE=100000) '
                               'would be removed; the running process keeps them, the unit gets its own limits back '
                               'at its next restart' % DROPIN]
    assert os.path.exists(os.path.join(host.root, DROPIN.lstrip('/')))
    result = call(host, path, systemd, state='restored').call()
    assert not os.path.exists(os.path.join(host.root, DROPIN.lstrip('/')))
    # the mount hold belongs to the filesystem, which a restore keeps
    assert os.path.exists(os.path.join(host.root, HOLD.lstrip('/')))
    assert ['systemctl', 'daemon-reload'] in systemd.calls
    assert 'is removed' in result['limits'][0]
    # not kept in the record of restarts owed (a later tune run writing the drop-in again would leave it stale)
    assert not os.path.exists(os.path.join(host.root, restart_record.PATH.lstrip('/')))
    assert UNIT_SHOW not in systemd.calls


def test_without_dropins_no_reload_for_them(tmp_path):
    systemd = Systemd('enabled', 'active')
    host, path = recorded_then_tuned(tmp_path, systemd, limits=False)
    result = call(host, path, systemd, state='restored').call()
    assert result['limits'] == [] and result['restore']['limits'] == []
    # negative control of the reload: nothing of kind unit or dropin was removed here but the THP unit
    assert [f['kind'] for f in result['restore']['files']].count('dropin') == 0
