# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""initramfs_facts on a fake EL 9 host (tools answered from fixtures/initramfs, reconstructed for EL 9)."""

from __future__ import annotations

import functools
import os
import stat

import pytest

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.iotune.storage.plugins.module_utils import initramfs
from ansible_collections.iotune.storage.plugins.module_utils.retire import ignore_line
from ansible_collections.iotune.storage.plugins.modules import initramfs_facts
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import fixture as raw_fixture
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.module_run import run_module as run_main

KERNEL = '5.14.0-427.13.1.el9_4.x86_64'
EXTRA = 'ARRAY /dev/md/late metadata=1.2 UUID=0badc0de:0badc0de:0badc0de:0badc0de name=any:late'
# a host with a retired array (issue 29): the planned array's line and the line a retire without zero_superblocks left
RETIRE_UUID = '0badc0de:11112222:33334444:55556666'
RETIRE_PLANNED = 'ARRAY /dev/md/data metadata=1.2 UUID=a0021927:0e4f10bf:2c47dc72:ca0b352e name=lab:data'
RETIRE_IGNORE = ignore_line(RETIRE_UUID)


def fixture(name):
    return ''.join(line for line in raw_fixture('initramfs', name).splitlines(True) if not line.startswith('## '))


def write(path, content='', mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(content)
    if mode:
        os.chmod(path, os.stat(path).st_mode | mode)
    return path


@pytest.fixture
def el9(tmp_path, monkeypatch):
    """Fake EL 9 host; returns the list of argv the module ran and the host's mdadm.conf path."""
    boot, sbin = str(tmp_path / 'boot'), str(tmp_path / 'sbin')
    write(os.path.join(boot, 'vmlinuz-' + KERNEL))
    write(os.path.join(boot, 'initramfs-%s.img' % KERNEL))
    for tool in ('dracut', 'lsinitrd'):
        write(os.path.join(sbin, tool), '#!/bin/sh\n', stat.S_IXUSR)
    conf = write(str(tmp_path / 'etc' / 'mdadm.conf'), fixture('el9-mdadm.conf'))
    calls = []

    def run_command(self, argv, **kwargs):
        calls.append(list(argv))
        tool = os.path.basename(argv[0])
        if tool == 'dracut':
            return 0, fixture('el9-print-cmdline.txt'), ''
        if '-f' in argv:
            return 0, fixture('el9-mdadm.conf'), ''
        return 0, fixture('el9-lsinitrd.txt'), ''

    monkeypatch.setattr(AnsibleModule, 'run_command', run_command)
    monkeypatch.setattr(initramfs_facts, 'gather',
                        functools.partial(initramfs_facts.gather, boot_dir=boot, bin_dirs=(sbin,)))
    return dict(calls=calls, conf=conf, image=os.path.join(boot, 'initramfs-%s.img' % KERNEL))


def run_module(capsys, args):
    return run_main(initramfs_facts, args, capsys)


def test_el9_in_sync_in_check_mode(el9, capsys):
    code, out = run_module(capsys, {'mdadm_conf': el9['conf'], '_ansible_check_mode': True})
    assert code == 0 and out['changed'] is False and not out.get('warnings')
    fact = out['ansible_facts']['iotune_initramfs']
    assert fact['generator'] == 'dracut' and fact['kernel'] == KERNEL and fact['image'] == el9['image']
    assert fact['conf_path'] == 'etc/mdadm.conf' and len(fact['array_lines']) == 3
    assert fact['host_conf'] == el9['conf'] and fact['host_array_lines'] == fact['array_lines']
    assert fact['in_sync'] is True and fact['missing_array_lines'] == [] and fact['missing_uuids'] == []
    assert fact['rd_md_uuids'] is None and fact['error'] is None
    assert fact['running_kernel'] == os.uname().release
    assert [c[1] for c in el9['calls'] if os.path.basename(c[0]) == 'lsinitrd'] == ['-f']


def test_a_line_missing_from_the_image(el9, capsys):
    with open(el9['conf'], 'a') as f:
        f.write(EXTRA.replace(' ', '  ', 1) + '\n')
    fact = run_module(capsys, {'mdadm_conf': el9['conf']})[1]['ansible_facts']['iotune_initramfs']
    assert fact['in_sync'] is False
    assert fact['missing_array_lines'] == [EXTRA.replace(' ', '  ', 1)]
    assert fact['missing_uuids'] == ['0badc0de:0badc0de:0badc0de:0badc0de']


def test_an_image_line_the_host_dropped_is_not_in_sync(el9, capsys):
    with open(el9['conf'], 'w') as f:
        f.write(''.join(line for line in fixture('el9-mdadm.conf').splitlines(True) if '/dev/md/data' not in line))
    fact = run_module(capsys, {'mdadm_conf': el9['conf']})[1]['ansible_facts']['iotune_initramfs']
    assert fact['missing_array_lines'] == [] and fact['in_sync'] is False


def test_missing_host_conf_has_no_lines(el9, capsys, tmp_path):
    fact = run_module(capsys, {'mdadm_conf': str(tmp_path / 'nope.conf')})[1]['ansible_facts']['iotune_initramfs']
    assert fact['host_array_lines'] == [] and fact['in_sync'] is False


def test_print_cmdline(el9, capsys):
    fact = run_module(capsys, {'mdadm_conf': el9['conf'], 'print_cmdline': True})[1]['ansible_facts']['iotune_initramfs']
    assert fact['rd_md_uuids'] == ['6c1b8d2f:1a4b5e3c:0d9f8a71:2b3c4d5e', '5b0a7c1e:0f3a4d2b:9c8e7f60:1a2b3c4d']
    assert el9['calls'][-1][1:] == ['--print-cmdline']


def test_unreadable_image_warns_and_does_not_fail(el9, capsys):
    code, out = run_module(capsys, {'mdadm_conf': el9['conf'], 'kernel': '5.14.0-1.el9.x86_64'})
    assert code == 0 and out['changed'] is False
    fact = out['ansible_facts']['iotune_initramfs']
    assert fact['image'] is None and 'initramfs-5.14.0-1.el9.x86_64.img' in fact['error']
    assert fact['in_sync'] is False and el9['calls'] == []
    # ansible-core 2.19 serialises warnings as WarningSummary objects, older cores as strings
    texts = [w if isinstance(w, str) else w['event']['msg'] for w in out['warnings']]
    assert any('initramfs not read' in w for w in texts), texts


@pytest.mark.parametrize('kernel', ['../../etc', '', ' 6.1', '..'])
def test_kernel_that_is_not_a_version_fails(el9, capsys, kernel):
    code, out = run_module(capsys, {'kernel': kernel})
    assert code == 1 and out['failed'] and 'kernel must be a kernel version' in out['msg']
    assert el9['calls'] == []


def test_the_ignore_line_of_a_retired_array_is_compared_like_any_other():
    host_lines = initramfs.parse_array_lines('HOMEHOST <system>\n%s\n%s\n' % (RETIRE_PLANNED, RETIRE_IGNORE))
    # rebuilt after the retire: in step
    assert initramfs_facts.compare(list(host_lines), host_lines) == ([], [], True)
    # not rebuilt yet: the image lacks the line that keeps the array from being assembled at boot (the rebuild the
    # retire owes), and has the retired array's own line
    old = 'ARRAY /dev/md/data2 metadata=1.2 UUID=%s name=lab:data2' % RETIRE_UUID
    missing, missing_uuids, in_sync = initramfs_facts.compare([RETIRE_PLANNED, old], host_lines)
    assert missing == [RETIRE_IGNORE] and missing_uuids == [] and not in_sync
    # the ignore line's UUID is parsed as the retired array's, its device is not taken for /dev/md/NAME
    parsed = initramfs.parse_array_line(RETIRE_IGNORE)
    assert parsed['uuid'] == RETIRE_UUID and parsed['device'] == '<ignore>' and parsed['name'] is None
