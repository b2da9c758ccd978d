# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import functools
import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.host import BlockHost
from ansible_collections.iotune.storage.plugins.modules import readahead_facts
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.module_run import run_module as run_main


@pytest.fixture
def host(standard_host, monkeypatch):
    """Point the module at a fake host (roots are internals, not module options)."""
    fake = standard_host
    monkeypatch.setattr(readahead_facts, 'BlockHost', functools.partial(fake.view, page_size=4096))
    return fake


def run_module(capsys, args):
    return run_main(readahead_facts, args, capsys)


def test_default_run(host, capsys):
    code, out = run_module(capsys, {})
    assert code == 0 and out['changed'] is False
    facts = out['ansible_facts']['iotune_readahead']
    assert sorted(facts) == ['dm-0', 'md0', 'md127', 'nvme1n1', 'nvme2n1', 'rbd0', 'sda', 'sda1',
                             'sda2', 'sdb', 'sdc', 'sr0']
    assert facts['md0']['read_ahead_kb'] == 16 and facts['md0']['read_ahead_sectors'] == 32
    assert facts['md0']['md']['uuid'] == 'a0021927:0e4f10bf:2c47dc72:ca0b352e'
    assert facts['sda2']['readahead_shared_with'] == 'sda'
    assert facts['nvme2n1']['cloud']['ebs_volume_id'] == 'vol-0123456789abcdef2'
    assert 'warnings' not in out


def test_data_directories_found_in_the_same_call(host, capsys, tmp_path):
    data = tmp_path / 'var-lib-cassandra'
    data.mkdir()
    (tmp_path / 'a-file').write_text('x')
    os.symlink(str(data), str(tmp_path / 'link'))
    paths = [str(data), str(tmp_path / 'missing'), str(tmp_path / 'a-file'), str(tmp_path / 'link')]
    code, out = run_module(capsys, {'data_directories': paths})
    assert code == 0 and out['changed'] is False
    dev = os.stat(str(data)).st_dev
    # only directories, with st_dev; a symlinked data directory counts on its target's device (the facts playbook's
    # former ansible.builtin.stat loop, without follow, did not count it)
    assert out['data_directories'] == [{'path': str(data), 'dev': dev}, {'path': str(tmp_path / 'link'), 'dev': dev}]
    assert run_module(capsys, {})[1]['data_directories'] == []


def test_check_mode_and_options(host, capsys):
    code, out = run_module(capsys, {'_ansible_check_mode': True, 'include_loop': True,
                                    'include_ram': True, 'devices': ['loop*', 'z*']})
    assert code == 0 and out['changed'] is False
    assert sorted(out['ansible_facts']['iotune_readahead']) == ['loop0', 'loop0p1', 'zram0']


def test_warning_for_empty_glob(host, capsys):
    code, out = run_module(capsys, {'devices': ['xvd*', 'sdb']})
    assert code == 0
    assert sorted(out['ansible_facts']['iotune_readahead']) == ['sdb']
    # ansible-core 2.19 serialises warnings as WarningSummary objects, older cores as strings
    texts = [w if isinstance(w, str) else w['event']['msg'] for w in out['warnings']]
    assert texts == ["devices: pattern 'xvd*' matched no block device"]


@pytest.mark.parametrize('devices, message', [
    (['nvme9n1'], "no block device named 'nvme9n1'"),
    (['nvme[0-9n1'], 'bad glob'),
    (['/dev/disk/by-id/foo'], 'not a kernel device name'),
])
def test_failures(host, capsys, devices, message):
    code, out = run_module(capsys, {'devices': devices})
    assert code == 1 and out['failed'] is True
    assert message in out['msg']


def test_unknown_option_rejected(host, capsys):
    code, out = run_module(capsys, {'sys_root': '/tmp'})
    assert code == 1 and 'sys_root' in out['msg']


def test_the_module_own_block_host_reads_below_its_root(standard_host, monkeypatch, capsys):
    """The module's own BlockHost (not the fake's view: the machine's page size, its own device-number reads), only
    its root moved to the fake host: the same values as the fake's sys/block/*/queue/read_ahead_kb (it compared the
    machine's real /sys/block)."""
    monkeypatch.setattr(readahead_facts, 'BlockHost', functools.partial(BlockHost, root=standard_host.root))
    block = os.path.join(standard_host.sys, 'block')
    names = sorted(os.listdir(block))
    code, out = run_module(capsys, {'devices': names})
    assert code == 0, out
    facts = out['ansible_facts']['iotune_readahead']
    assert sorted(n for n, d in facts.items() if d['type'] != 'partition') == names
    for name in names:
        try:
            with open(os.path.join(block, name, 'queue', 'read_ahead_kb')) as f:
                expected = int(f.read())
        except OSError:     # sdc: its read_ahead_kb is a directory
            expected = None
        assert facts[name]['read_ahead_kb'] == expected, name
