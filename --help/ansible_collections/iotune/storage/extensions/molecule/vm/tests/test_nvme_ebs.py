# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""NVMe data disks like the clouds give (runs only when the lab disks are NVMe: IOTUNE_LAB_DISK_BUS=nvme).

The lab gives each data disk its own NVMe controller whose serial looks like an EBS volume id without
the dash (vol + 17 hex digits). qemu 7.2 cannot set the NVMe model, so the by-id name is
nvme-QEMU_NVMe_Ctrl_<serial> rather than EC2's nvme-Amazon_Elastic_Block_Store_<serial>; selectors
that match the serial (ebs_volume_id, serial) take the same udev path as on EC2.

On these runs the converge chooses the members by cloud identity (group_vars/all.yml, docs/cloud.md):
array `data` from {ebs_volume_id: vol-...} selectors. The two disks the lab marks as instance store (SCSI,
a GCP local SSD's identity; docs/lab.md) are resolved here by {instance_store: all}; the array `scratch`
on them is built and power-cycled blank by test_zya_ephemeral.py, and refused in test_zz_degraded_boot.py's boot.
"""

from __future__ import annotations

import json
import os
import re

import pytest
import yaml

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
        if not disk.get('attached', True) or disk['bus'] != 'nvme':
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


# --- members chosen by cloud identity --------------------------------------------------------------

SCRATCH = '/srv/scratch'
GROUP_VARS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'inventory', 'group_vars', 'all.yml')


@pytest.fixture(scope='module')
def instance_store(lab_disks):
    disks = [d for d in lab_disks if d.get('instance_store')]
    assert len(disks) == 2, 'create.yml gives nvme runs 2 instance-store disks (--instance-store 2)'
    return disks


def slaves(host, array):
    return sorted(host.check_output('ls /sys/block/%s/slaves', kname(host, '/dev/md/' + array)).split())


def test_the_converge_chooses_the_members_by_cloud_identity():
    # testinfra sees only the lab's inventory, not the scenario's group_vars: read them
    with open(GROUP_VARS) as f:
        converge = yaml.safe_load(f)
    data = converge['vm_array_data']['devices']         # a template: selectors from the serials on nvme runs
    assert '"ebs_volume_id": "vol-' in data and 'if vm_nvme_run' in data
    assert converge['vm_array_scratch']['devices'] == [{'instance_store': 'all', 'count': 2}]


def test_data_runs_on_the_volumes_its_selectors_name(host, lab_disks):
    arrays = [{'name': 'data', 'devices': [{'ebs_volume_id': 'vol-' + d['serial'][3:]} for d in lab_disks[0:4]],
               'mountpoint': '/var/lib/cassandra'}]
    result = _preflight(host, arrays)
    assert 'problems' not in result, result.get('msg')
    assert result['resolved']['data']['devices'] == [d['by_id'] for d in lab_disks[0:4]]
    # "running": the array runs on exactly the resolved members
    assert result['arrays'][0]['state'] == 'running'
    assert slaves(host, 'data') == sorted(kname(host, d['by_id']) for d in lab_disks[0:4])


def test_facts_report_the_instance_store_identity(host, instance_store):
    facts = host.ansible('iotune.storage.readahead_facts', check=False)['ansible_facts']['iotune_readahead']
    for disk in instance_store:
        cloud = facts[kname(host, disk['by_id'])]['cloud']
        assert cloud == {'provider': 'gcp', 'local_ssd': int(disk['serial'].rsplit('-', 1)[1]),
                         'instance_store': True, 'interface': 'scsi'}, (disk, cloud)
    for name, dev in facts.items():
        if name.startswith('nvme'):
            assert dev['cloud'] is None or not dev['cloud'].get('instance_store'), (name, dev['cloud'])


def _preflight(host, arrays):
    """The module in check mode; testinfra keeps a failed module's result without its `failed` key, so a
    refusal is told by `problems` (returned on failure only)."""
    return host.ansible('iotune.storage.storage_preflight', json.dumps({'arrays': arrays}), check=True)


def test_preflight_shows_the_resolution_in_check_mode(host, lab_disks, instance_store):
    result = _preflight(host, [{'name': 'scratch', 'devices': [{'instance_store': 'all'}],
                                'mountpoint': SCRATCH}])
    assert 'problems' not in result, result.get('msg')
    assert result['resolved']['scratch']['devices'] == [d['by_id'] for d in instance_store]
    assert result['selections'] == [{'array': 'scratch', 'selector': 'instance_store=all',
                                     'devices': [{'path': d['by_id'], 'kname': kname(host, d['by_id'])}
                                                 for d in instance_store]}]
    # scratch is not built by the converge yet (group_vars/all.yml): blank, checked, would be created
    built = host.file('/dev/md/scratch').exists
    assert result['arrays'][0]['state'] == ('running' if built else 'create'), result['arrays']


def test_a_selector_naming_a_member_of_another_array_is_refused_by_name(host, lab_disks):
    volume = 'vol-' + lab_disks[0]['serial'][3:]
    result = _preflight(host, [{'name': 'other', 'devices': [{'ebs_volume_id': volume}], 'mountpoint': '/srv/other'}])
    assert len(result['problems']) == 1
    assert ("array 'other': ebs_volume_id=%s names %s" % (volume, lab_disks[0]['by_id'])) in result['msg']
    assert 'which is in use' in result['msg'] and 'held by an active md array' in result['msg']
    assert not host.file('/dev/md/other').exists


def test_an_unknown_volume_is_refused_by_name(host, lab_disks):
    result = _preflight(host, [{'name': 'other', 'devices': [{'ebs_volume_id': 'vol-0123456789abcdef0'}],
                                'mountpoint': '/srv/other'}])
    assert len(result['problems']) == 1
    assert "ebs_volume_id=vol-0123456789abcdef0 matches no disk on this host" in result['msg']
