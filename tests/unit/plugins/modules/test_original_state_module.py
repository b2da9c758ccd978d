# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The original_state module through main(), as Ansible runs it: record, check mode, restore with --check --diff,
restore, and a second restore that changes nothing."""

from __future__ import annotations

import os

from ansible_collections.iotune.storage.plugins.module_utils import original_state as orig
from ansible_collections.iotune.storage.plugins.modules import original_state as mod
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.module_run import (
    on_fake_host,
    run_module,
    warning_texts,
)
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.test_original_state import (
    FILES,
    PLAN,
    build,
    kernel_write,
    tune,
)


def setup(tmp_path, monkeypatch):
    host, kernel = build(tmp_path / 'host', readahead=('512', '128'))
    monkeypatch.setattr(mod, 'HOST_ROOT', host.root)
    on_fake_host(monkeypatch, mod, host, {'systemctl': '/bin/systemctl', 'udevadm': '/bin/udevadm'})
    monkeypatch.setattr(mod, 'BlockHost', lambda **kwargs: host.view())
    # the fake sysfs takes a scheduler or THP choice as the kernel does (bracketed in its list)
    monkeypatch.setattr(orig, 'write_value', kernel_write)
    # fstrim.timer as Ubuntu ships it (enabled): recorded, and a restore leaves it
    host.on(['/bin/systemctl', 'show', '--property=LoadState,UnitFileState,ActiveState', '--', 'fstrim.timer'], 0,
            'LoadState=loaded\nUnitFileState=enabled\nActiveState=active\n')
    return host, kernel, str(tmp_path / 'state' / 'original-state.json')


def test_record_check_mode_then_record_then_never_again(tmp_path, monkeypatch, capsys):
    dummy, dummy2, path = setup(tmp_path, monkeypatch)
    args = {'path': path, 'devices': PLAN, 'files': FILES, 'sysctl': ['vm.vfs_cache_pressure']}
    rc, result = run_module(mod, args, capsys, check_mode=True)
    assert rc == 0 and result['changed'] is True and not os.path.exists(path)
    rc, result = run_module(mod, args, capsys)
    assert rc == 0 and result['changed'] is True and os.path.exists(path)
    assert result['original_state']['exists'] is True and len(result['original_state']['devices']) == 2
    rc, again = run_module(mod, args, capsys)
    assert rc == 0 and again['changed'] is False and again['snapshot'] == result['snapshot']


def test_bad_devices_fail_by_the_tuning_spec(tmp_path, monkeypatch, capsys):
    dummy, dummy2, path = setup(tmp_path, monkeypatch)
    rc, result = run_module(mod, {'path': path, 'devices': [{'md_name': 'data', 'read_ahead_kb': 'lots'}]}, capsys)
    assert rc == 1 and 'read_ahead_kb' in result['msg'] and not os.path.exists(path)


def test_restore_check_diff_then_restore_then_nothing(tmp_path, monkeypatch, capsys):
    host, kernel, path = setup(tmp_path, monkeypatch)
    rc, dummy = run_module(mod, {'path': path, 'devices': PLAN, 'files': FILES}, capsys)
    tune(host, kernel)
    for argv in (['/bin/systemctl', 'disable', 'iotune-storage-thp.service'], ['/bin/systemctl', 'daemon-reload']):
        host.on(argv)
    rc, checked = run_module(mod, {'path': path, 'state': 'restored'}, capsys, check_mode=True, diff=True)
    assert rc == 0 and checked['changed'] is True and len(checked['diff']) == 4
    assert host.read('sys/block/nvme1n1/queue/read_ahead_kb').strip() == '8'
    rc, result = run_module(mod, {'path': path, 'state': 'restored'}, capsys)
    assert rc == 0 and result['changed'] is True and 'diff' not in result
    assert host.read('sys/block/nvme1n1/queue/read_ahead_kb').strip() == '512'
    assert ['/bin/udevadm', 'control', '--reload'] in host.calls
    rc, again = run_module(mod, {'path': path, 'state': 'restored', 'files': FILES + ['/etc/other.conf']}, capsys)
    assert rc == 0 and again['changed'] is False and warning_texts(again) == []
