# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Values first planned after the snapshot (issue 29's leftover): a device added to the plan later, or a sysctl a
later profile sets, is recorded by the run that first plans it, before it changes it, in the additions file beside
the snapshot; the snapshot itself is never rewritten, an addition is never changed, and a restore puts them back too."""

from __future__ import annotations

import json
import os
import stat

from ansible_collections.iotune.storage.plugins.module_utils import original_state as orig
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.test_original_state import (
    FILES,
    PLAN,
    Commands,
    build,
    kernel_write,
    tune,
)

THIRD = {'ebs_volume_id': 'vol-0123456789abcdef3', 'read_ahead_kb': 8, 'scheduler_by_class': {'nvme': 'none'}}
EXTRA = 'kernel.pid_max'


def call(host, path, devices=None, sysctl=(), state='recorded', check_mode=False, now=1772359200):
    params = {'state': state, 'path': str(path), 'devices': PLAN if devices is None else devices,
              'sysctl': list(sysctl), 'files': FILES}
    return orig.OriginalState(params, host.view(), root=host.root, run=Commands(), systemctl='systemctl',
                              udevadm='udevadm', check_mode=check_mode, now=now, write=kernel_write)


def recorded_with_a_third_disk(tmp_path):
    """Three EBS volumes, the plan of the first two recorded; the third one's readahead set by its owner (4096) and a
    kernel.pid_max of the host's own."""
    host, kernel = build(tmp_path / 'host', volumes=(1, 2, 3), readahead=('128', '128', '4096'))
    kernel.write('proc/sys/kernel/pid_max', '99999\n')
    path = tmp_path / 'state' / 'original-state.json'
    assert call(host, path).call()['recorded'] is True
    return host, kernel, path


def read(path):
    with open(str(path)) as f:
        return f.read()


def test_a_device_and_a_sysctl_planned_later_are_recorded_once_beside_the_snapshot(tmp_path):
    host, dummy, path = recorded_with_a_third_disk(tmp_path)
    snapshot_text = read(path)
    result = call(host, path, devices=PLAN + [THIRD], sysctl=[EXTRA]).call()
    assert result['changed'] is True and result['recorded'] is False
    added = result['added']
    assert [d['kname'] for d in added['devices']] == ['nvme3n1']
    assert added['devices'][0]['queue']['read_ahead_kb'] == '4096'
    assert added['sysctl'] == {EXTRA: '99999'} and added['created_later'] == []
    extra = orig.additions_path(str(path))
    assert extra.endswith('/original-state-additions.json')
    assert stat.S_IMODE(os.stat(extra).st_mode) == 0o600
    assert read(path) == snapshot_text                                   # the snapshot is never rewritten
    shown = result['original_state']['additions']
    assert shown == [{'recorded_at': '2026-03-01T10:00:00Z', 'devices': [added['devices'][0]['identity']],
                      'created_later': [], 'sysctl': [EXTRA]}]
    # the next run finds them recorded: nothing new, the file as it was (an addition is never changed)
    before = read(extra)
    host.write('sys/block/nvme3n1/queue/read_ahead_kb', '8\n')          # tuned by that run since
    again = call(host, path, devices=PLAN + [THIRD], sysctl=[EXTRA], now=1772400000).call()
    assert again['changed'] is False and again['added'] is None and read(extra) == before


def test_nothing_new_writes_no_additions_file(tmp_path):
    """Negative control: the plan the snapshot was recorded with adds nothing."""
    host, dummy, path = recorded_with_a_third_disk(tmp_path)
    result = call(host, path).call()
    assert result['changed'] is False and result['added'] is None
    assert not os.path.exists(orig.additions_path(str(path)))
    assert result['original_state']['additions'] == []


def test_check_mode_says_what_it_would_record_and_writes_nothing(tmp_path):
    host, dummy, path = recorded_with_a_third_disk(tmp_path)
    result = call(host, path, devices=PLAN + [THIRD], check_mode=True).call()
    assert result['changed'] is True and [d['kname'] for d in result['added']['devices']] == ['nvme3n1']
    assert not os.path.exists(orig.additions_path(str(path)))


def test_a_restore_puts_back_the_values_recorded_later_too(tmp_path):
    host, kernel, path = recorded_with_a_third_disk(tmp_path)
    call(host, path, devices=PLAN + [THIRD], sysctl=[EXTRA]).call()
    tune(host, kernel)
    host.write('sys/block/nvme3n1/queue/read_ahead_kb', '8\n')
    kernel.write('proc/sys/kernel/pid_max', '4194304\n')
    result = call(host, path, state='restored').call()
    assert result['changed'] is True
    assert host.read('sys/block/nvme3n1/queue/read_ahead_kb').strip() == '4096'
    assert host.read('proc/sys/kernel/pid_max').strip() == '99999'
    assert host.read('sys/block/nvme1n1/queue/read_ahead_kb').strip() == '128'
    assert call(host, path, state='restored').call()['changed'] is False


def test_without_the_additions_a_restore_leaves_the_later_device_tuned(tmp_path):
    """Negative control of the above (the gap this closes): the snapshot alone does not know the third disk."""
    host, kernel, path = recorded_with_a_third_disk(tmp_path)
    tune(host, kernel)
    host.write('sys/block/nvme3n1/queue/read_ahead_kb', '8\n')
    call(host, path, state='restored').call()
    assert host.read('sys/block/nvme3n1/queue/read_ahead_kb').strip() == '8'


def test_an_unreadable_additions_file_is_kept_and_the_snapshot_still_restored(tmp_path):
    host, kernel, path = recorded_with_a_third_disk(tmp_path)
    extra = orig.additions_path(str(path))
    with open(extra, 'w') as f:
        f.write('{torn')
    one = call(host, path, devices=PLAN + [THIRD])
    assert one.call()['changed'] is False and read(extra) == '{torn'
    assert any('is not JSON' in w and 'not recorded' in w for w in one.warnings), one.warnings
    tune(host, kernel)
    restore = call(host, path, state='restored')
    assert restore.call()['changed'] is True
    assert host.read('sys/block/nvme1n1/queue/read_ahead_kb').strip() == '128'
    assert any('only the snapshot is restored' in w for w in restore.warnings), restore.warnings


def test_an_array_made_later_is_not_recorded_as_a_device_of_its_own(tmp_path):
    """The snapshot lists the planned array as made later (it did not exist then): once made, its identity is known,
    and its readahead is the collection's doing, not an original value to record."""
    host, dummy, path = recorded_with_a_third_disk(tmp_path)
    with open(str(path)) as f:
        assert [d['selector'] for d in json.load(f)['created_later']] == ['md_name=data']
    made, dummy = build(tmp_path / 'made', volumes=(1, 2, 3), readahead=('8', '8', '4096'), md=True)
    result = call(made, path).call()
    assert result['changed'] is False and result['added'] is None
    # negative control: a snapshot that did not plan the array would take it as new
    other = tmp_path / 'other' / 'original-state.json'
    call(host, other, devices=PLAN[1:]).call()
    added = call(made, other).call()['added']
    assert [(d['kname'], d['identities']) for d in added['devices']] == [
        ('md0', ['md-uuid:a0021927:0e4f10bf:2c47dc72:ca0b352e', 'md-name:data'])]
