# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""iotune.storage.initramfs_facts on the guest: it names the generator, kernel and image that boot next and
returns the ARRAY lines inside that image, which must be the ARRAY lines of the host's mdadm.conf after
converge; each fact is checked against the guest's own tools (sort -V, lsinitrd / unmkinitramfs, mdadm).

Controls in the scenario: an mdadm.conf with one more ARRAY line than the image (a line added after the
last rebuild) is reported as missing and not in sync (initramfs-tools guests: on dracut a second read of
the image costs minutes under TCG); a kernel without an image is an error, not a failure.
The negative control against a real stale initramfs is in docs/testing.md.
"""

from __future__ import annotations

import re

import pytest

from conftest import initramfs_file

EXTRA = 'ARRAY /dev/md/late metadata=1.2 UUID=0badc0de:0badc0de:0badc0de:0badc0de name=any:late'


def array_lines(text):
    return [' '.join(line.split()) for line in text.splitlines() if re.match(r'^ARRAY\s', line)]


def facts(host, **args):
    result = host.ansible('iotune.storage.initramfs_facts',
                          ' '.join('%s=%s' % kv for kv in sorted(args.items())), check=True)
    assert not result.get('failed'), result
    assert result.get('changed') is False, result
    return result['ansible_facts']['iotune_initramfs']


@pytest.fixture(scope='module')
def dracut(host):
    return host.package('dracut').is_installed


@pytest.fixture(scope='module')
def fact(host):
    # one read of the image for the whole file: under TCG lsinitrd needs about a minute per pass.
    # print_cmdline is left to the unit tests (captured on the trixie VM): it adds a dracut run of ~1 min.
    return facts(host)


def test_generator_kernel_and_image_are_the_next_boots(host, fact, dracut):
    assert fact['error'] is None, fact
    assert fact['generator'] == ('dracut' if dracut else 'initramfs-tools')
    newest = host.check_output('ls -1 /boot | sed -n "s/^vmlinuz-//p" | grep -v "^0-rescue" | sort -V | tail -n 1')
    assert fact['kernel'] == newest
    assert fact['running_kernel'] == host.check_output('uname -r')
    # Debian names the image initrd.img-VERSION with either generator
    assert fact['image'] == '/boot/initrd.img-%s' % newest and host.file(fact['image']).is_file


def test_array_lines_are_the_image_copy_of_mdadm_conf(host, fact, dracut):
    uuid = re.search(r'^MD_UUID=(\S+)$', host.check_output('mdadm --detail --export /dev/md/data'), re.M).group(1)
    conf = array_lines(host.file('/etc/mdadm/mdadm.conf').content_string)
    assert 'ARRAY /dev/md/data metadata=1.2 UUID=%s name=any:data' % uuid in conf
    assert fact['host_conf'] == '/etc/mdadm/mdadm.conf' and fact['host_array_lines'] == conf
    assert [' '.join(line.split()) for line in fact['array_lines']] == conf
    assert fact['in_sync'] is True and fact['missing_array_lines'] == [] and fact['missing_uuids'] == []
    # the image read independently says the same
    if dracut:
        assert fact['conf_path'] == 'etc/mdadm.conf'
        inside = host.check_output('lsinitrd -f %s %s', fact['conf_path'], fact['image'])
    else:
        assert fact['conf_path'] == 'etc/mdadm/mdadm.conf'
        inside = initramfs_file(host, fact['image'], fact['conf_path'])
    assert array_lines(inside) == conf


def test_a_line_added_after_the_rebuild_is_missing(host, dracut):
    # control: the host's mdadm.conf plus one ARRAY line, compared with the same image. It reads the image
    # again: 5 s with unmkinitramfs, about two minutes with lsinitrd under TCG, so it runs on
    # initramfs-tools guests only (the comparison is the same code for both generators; unit-tested)
    if dracut:
        pytest.skip('dracut guest: a second lsinitrd read costs minutes under TCG; run on the initramfs-tools image')
    tmp = host.check_output('mktemp')
    try:
        host.check_output('cp /etc/mdadm/mdadm.conf %s && echo %s >> %s', tmp, EXTRA, tmp)
        fact = facts(host, mdadm_conf=tmp)
    finally:
        host.run('rm -f %s', tmp)
    assert fact['error'] is None and fact['in_sync'] is False
    assert fact['missing_array_lines'] == [EXTRA]
    assert fact['missing_uuids'] == ['0badc0de:0badc0de:0badc0de:0badc0de']


def test_a_kernel_without_image_is_reported_not_failed(host):
    fact = facts(host, kernel='0.0.0-none')
    assert fact['image'] is None and 'initrd.img-0.0.0-none' in fact['error']
    assert fact['array_lines'] == [] and fact['in_sync'] is False
