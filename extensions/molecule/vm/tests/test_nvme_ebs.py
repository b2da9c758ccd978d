# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""NVMe data disks like the clouds give (runs only when the lab disks are NVMe: IOTUNE_LAB_DISK_BUS=nvme).

The lab gives each data disk its own NVMe controller whose serial looks like an EBS volume id without
the dash (vol + 17 hex digits). qemu 7.2 cannot set the NVMe model, so the by-id name is
nvme-QEMU_NVMe_Ctrl_<serial> rather than EC2's nvme-Amazon_Elastic_Block_Store_<serial>; selectors
that match the serial (ebs_volume_id, serial) take the same udev path as on EC2.
"""

from __future__ import annotations

import re

import pytest

EBS_RULES = '/etc/udev/rules.d/67-iotune-ebs-test.rules'     # written by prepare_boot_probe.yml
EBS_KB = 72


@pytest.fixture(scope='module')
def lab_disks(host):
    disks = host.ansible.get_variables()['lab_disks']
    if disks[0]['bus'] != 'nvme':
        pytest.skip('the lab disks are %s, not nvme' % disks[0]['bus'])
    return disks


def kname(host, path):
    return host.check_output('readlink -f %s', path).rsplit('/', 1)[1]


def test_by_id_names_are_nvme_namespaces_with_ebs_like_serials(host, lab_disks):
    for disk in lab_disks:
        if not disk.get('attached', True):
            continue
        assert re.fullmatch(r'vol[0-9a-f]{17}', disk['serial'])
        assert disk['by_id'] == '/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_' + disk['serial']
        name = kname(host, disk['by_id'])
        assert re.fullmatch(r'nvme\d+n1', name), (disk, name)
        assert host.file('/sys/block/%s/device/serial' % name).content_string.strip() == disk['serial']


def test_array_members_are_nvme_with_the_profiles_nvme_scheduler(host, lab_disks):
    slaves = sorted(host.check_output('ls /sys/block/%s/slaves', kname(host, '/dev/md/data')).split())
    assert slaves == sorted(kname(host, d['by_id']) for d in lab_disks[0:4])
    for name in slaves:
        sched = host.file('/sys/block/%s/queue/scheduler' % name).content_string
        assert '[none]' in sched, (name, sched)            # cassandra: scheduler_by_class nvme: none


def test_ebs_volume_id_selector_applied_at_boot(host, lab_disks):
    disk = lab_disks[10]
    rules = host.file(EBS_RULES)
    assert rules.exists, 'prepare_boot_probe.yml did not write %s' % EBS_RULES
    lines = [ln for ln in rules.content_string.splitlines() if 'read_ahead_kb' in ln]
    assert len(lines) == 1 and 'ENV{ID_SERIAL_SHORT}=="%s"' % disk['serial'] in lines[0], lines
    # the side_effect reboot came after the rules file: udev set the value at boot
    name = kname(host, disk['by_id'])
    assert host.file('/sys/block/%s/queue/read_ahead_kb' % name).content_string.strip() == str(EBS_KB)
    # and no other disk got it
    for other in lab_disks[0:10]:
        if other.get('attached', True):
            value = host.file('/sys/block/%s/queue/read_ahead_kb' % kname(host, other['by_id'])).content_string
            assert value.strip() != str(EBS_KB), other
