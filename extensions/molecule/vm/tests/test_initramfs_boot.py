# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The side_effect reboot booted the guest's own /boot through its bootloader, ran the initramfs the
collection built, and that initramfs assembled the array under its name.

prepare_boot_probe.yml installs an initramfs-tools hook that stamps each initramfs built from then on
with an id (logged in BUILDS) and a local-bottom script that, inside the booted initramfs, copies
that id, the ARRAY lines of the initramfs's own mdadm.conf and the md arrays present at that point
to PROBE under /run. A boot of anything else (qemu -kernel with the image's initrd, an initramfs built
before the collection ran, one built without the ARRAY line) fails at least one test here; the
negative control is in docs/testing.md.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from conftest import initramfs_file

PROBE = '/run/iotune-initramfs'
BUILDS = '/var/lib/iotune-probe/initramfs-builds'
REBOOT_SUM = '/var/tmp/iotune-probe/reboot.sha256'      # written by side_effect.yml before its reboot
CRASHES = '/var/tmp/iotune-probe/crashes.json'           # prepare_crashes.yml's record (crash_chain.py)
NAME = 'data'
# mdadm --detail: "Name : data" or "Name : <homehost>:data  (local to host ...)"
NAME_RE = re.compile(r'^\s*Name : (?:[^:\s]+:)?%s(?:\s|$)' % NAME, re.M)


@pytest.fixture(scope='module')
def rebooted(host):
    if not host.file(REBOOT_SUM).exists:
        pytest.skip('the reboot side effect did not run (%s missing)' % REBOOT_SUM)
    btime = int(re.search(r'^btime (\d+)$', host.file('/proc/stat').content_string, re.M).group(1))
    assert host.file(REBOOT_SUM).mtime.timestamp() < btime, 'the host did not reboot after side_effect'
    return True


def probe(host, name):
    f = host.file(os.path.join(PROBE, name))
    assert f.exists, ('%s missing: the boot did not run an initramfs built with the probe hook '
                      '(qemu -kernel with the image\'s initrd, or one built before prepare)' % f.path)
    return f.content_string


def test_booted_through_the_guests_bootloader(host, rebooted):
    # GRUB's `linux` command passes BOOT_IMAGE; qemu's -kernel does not
    cmdline = host.file('/proc/cmdline').content_string
    assert 'BOOT_IMAGE=/vmlinuz ' in cmdline, cmdline
    assert 'console=ttyS0' in cmdline.split()
    assert re.search(r'(^|\s)root=UUID=[0-9a-f-]{36}(\s|$)', cmdline), cmdline


def test_booted_initramfs_is_the_last_one_the_guest_built(host, rebooted):
    booted = probe(host, 'id').strip()
    kernel = host.check_output('uname -r')
    builds = [line.split() for line in host.file(BUILDS).content_string.splitlines() if line.strip()]
    ours = [b for b in builds if b[1] == kernel]
    assert ours, 'no initramfs was built in the guest for %s: %s' % (kernel, builds)
    # the newest build for the running kernel is what booted
    assert booted == ours[-1][0], 'booted %s, builds %s' % (booted, ours)
    # ... and it is the file the next boot reads from /boot
    image = '/boot/initrd.img-%s' % kernel
    if host.package('dracut').is_installed:
        assert host.check_output('lsinitrd -f etc/iotune-initramfs-id %s', image).strip() == booted
        return
    stamped = initramfs_file(host, image, 'etc/iotune-initramfs-id')
    assert stamped, 'no probe id in %s' % image
    assert stamped.strip() == booted


def test_converge_built_the_initramfs_once(host, rebooted):
    """The first converge and the idempotence run built one initramfs, after mdadm.conf had the lines.

    The package installs defer their initramfs triggers (roles/raid0); without that, initramfs-tools
    builds once for mdadm and once for mdadm.conf, and dracut once more after a deferred install.
    After crashed runs (prepare_crashes.yml) the converge builds once when a rebuild was owed as it started
    (prepare_build_count.yml noted it: the raid0 role's marker, or dpkg's initramfs work left by a crash during its
    trigger, which the generator alone would have followed with a second build at fio's install), and never
    when a crashed run had finished its rebuild before it crashed.
    """
    before = host.file('/var/tmp/iotune-probe/builds-before-converge').content_string.splitlines()
    at_reboot = host.file('/var/tmp/iotune-probe/builds-at-reboot').content_string.splitlines()
    assert at_reboot[:len(before)] == before
    built = [line.split() for line in at_reboot[len(before):] if line.strip()]
    kernel = host.check_output('uname -r')
    crashed = host.file(CRASHES).exists and json.loads(host.file(CRASHES).content_string)
    owed = host.file('/var/tmp/iotune-probe/rebuild-before-converge').content_string.strip() == 'owed'
    expected = [kernel] if owed or not crashed else []
    assert [b[1] for b in built] == expected, 'initramfs builds during converge: %s (crashed runs before it: %s, ' \
        'a rebuild owed as it started: %s)' % (built, [c['point'] for c in crashed or []], owed)


def test_booted_initramfs_had_the_array_line(host, rebooted):
    lines = probe(host, 'array-lines').splitlines()
    assert [ln for ln in lines if re.search(r'^ARRAY /dev/md/%s .*name=\S*:?%s(\s|$)' % (NAME, NAME), ln)], lines
    # exactly the host's ARRAY lines, i.e. built from the mdadm.conf the collection wrote (Debian's hook
    # writes its own mkconf lines, formatted differently, into an initramfs whose source has none)
    conf = [ln for ln in host.file('/etc/mdadm/mdadm.conf').content_string.splitlines() if ln.startswith('ARRAY')]
    assert lines == conf


def test_initramfs_assembled_the_array_under_its_name(host, rebooted):
    if host.package('dracut').is_installed:
        # dracut assembles md arrays in the initramfs only with rd.md.uuid= or rd.auto=1 on the kernel
        # command line (its host-only mode adds rd.md.uuid for a root on md): a data array is assembled
        # after the switch to the real root, by mdadm's udev rules with /etc/mdadm/mdadm.conf
        assert not re.search(r'^md\d+ : active', probe(host, 'mdstat'), re.M), probe(host, 'mdstat')
        assert NAME_RE.search(host.check_output('mdadm --detail /dev/md/%s', NAME))
        return
    dev_md = probe(host, 'dev-md')
    m = re.search(r'\s%s -> \.\./(md\d+)$' % NAME, dev_md, re.M)
    assert m, 'the initramfs had no /dev/md/%s:\n%s\nmdstat:\n%s' % (NAME, dev_md, probe(host, 'mdstat'))
    assert re.search(r'^%s : active raid0( \S+\[\d\]){4}' % m.group(1), probe(host, 'mdstat'), re.M), \
        probe(host, 'mdstat')
    assert NAME_RE.search(probe(host, 'mdadm-detail')), probe(host, 'mdadm-detail')
    # the running system kept that array (same md device), under the same name
    assert host.check_output('readlink -f /dev/md/%s', NAME) == '/dev/' + m.group(1)
    assert NAME_RE.search(host.check_output('mdadm --detail /dev/md/%s', NAME))
