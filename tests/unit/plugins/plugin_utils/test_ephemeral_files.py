# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""plugin_utils/ephemeral_files.py (issue 24): what the ephemeral role installs for its arrays (filters
ephemeral_layout, ephemeral_files) and what it enables and removes of what it finds (ephemeral_sync)."""

from __future__ import annotations

import json

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.ephemeral_files import ephemeral_files
from ansible_collections.iotune.storage.plugins.filter.ephemeral_layout import ephemeral_layout
from ansible_collections.iotune.storage.plugins.filter.ephemeral_sync import ephemeral_sync
from ansible_collections.iotune.storage.plugins.plugin_utils import ephemeral_files as ephemeral

SPEC_DIR, LIB_DIR, DROPIN = '/etc/iotune-storage/ephemeral', '/usr/local/lib/iotune-storage', 'iotune-storage-ephemeral.conf'
DATA = {'name': 'data', 'devices': ['/dev/disk/by-id/nvme-a', '/dev/disk/by-id/nvme-b'], 'chunk_kb': 256,
        'label': 'data', 'mountpoint': '/var/lib/cassandra', 'services': ['cassandra.service']}
LOGS = {'name': 'logs', 'devices': ['/dev/disk/by-id/nvme-c'], 'chunk_kb': 64, 'label': 'logs',
        'mountpoint': '/var/log/cassandra', 'services': ['cassandra.service', 'other.service'],
        'allow_single_device': True, 'mount_options': ['noatime', 'nodiratime'], 'owner': 'cassandra',
        'group': 'cassandra', 'mode': '0750', 'members': [{'instance_store': 'all'}]}
SETTINGS = {'metadata': '1.2', 'homehost': 'any', 'device_timeout': '90s', 'conf_path': '/etc/mdadm/mdadm.conf',
            'device_wait': 90}
MOUNT_UNITS = 'var-lib-cassandra.mount var-log-cassandra.mount\n'


def layout(arrays, mount_units=MOUNT_UNITS):
    return ephemeral_layout(arrays, spec_dir=SPEC_DIR, dropin_name=DROPIN, mount_units=mount_units)


def test_no_arrays_nothing_to_install():
    assert layout([], mount_units='') == {'units': [], 'services': {}, 'paths': [], 'dropins': [], 'mount_unit_of': {}}
    assert ephemeral_files([], layout=layout([], ''), lib_dir=LIB_DIR, spec_dir=SPEC_DIR, settings=SETTINGS,
                           units=[], program=None) == []


def test_the_layout_of_two_arrays_that_share_a_service():
    got = layout([DATA, LOGS, dict(DATA, name='bare', mountpoint='/srv/bare', services=[])])
    units = ['iotune-ephemeral-data.service', 'iotune-ephemeral-logs.service', 'iotune-ephemeral-bare.service']
    assert got['units'] == units
    # in the order the services first appear, each with the units of its arrays in the order of the arrays
    assert list(got['services'].items()) == [('cassandra.service', units[:2]), ('other.service', units[1:2])]
    assert got['paths'] == (['/etc/systemd/system/' + u for u in units]
                            + [SPEC_DIR + '/data.json', SPEC_DIR + '/logs.json', SPEC_DIR + '/bare.json',
                               '/etc/systemd/system/cassandra.service.d/' + DROPIN,
                               '/etc/systemd/system/other.service.d/' + DROPIN]
                            + ['/etc/systemd/system/local-fs.target.wants/' + u for u in units])
    assert got['dropins'][0] == {
        'dest': '/etc/systemd/system/cassandra.service.d/' + DROPIN,
        'content': '# Managed by Ansible (iotune.storage.ephemeral): start only after the ephemeral array is back.\n'
                   '[Unit]\nRequires=iotune-ephemeral-data.service iotune-ephemeral-logs.service\n'
                   'After=iotune-ephemeral-data.service iotune-ephemeral-logs.service\n'}
    # systemd-escape printed fewer names than arrays: the mount points without one have none
    assert got['mount_unit_of'] == {'/var/lib/cassandra': 'var-lib-cassandra.mount',
                                    '/var/log/cassandra': 'var-log-cassandra.mount'}


def test_an_array_without_services_has_no_dropin_and_services_default_to_none():
    got = layout([dict((k, v) for k, v in DATA.items() if k != 'services')])
    assert got['services'] == {} and got['dropins'] == []


def build(arrays, **kwargs):
    args = dict(layout=layout(arrays), lib_dir=LIB_DIR, spec_dir=SPEC_DIR, settings=SETTINGS,
                units=['unit of %s\n' % a['name'] for a in arrays], program='#!/usr/bin/python3\n')
    args.update(kwargs)
    return ephemeral_files(arrays, **args)


def test_the_files_in_order_the_program_then_spec_and_unit_per_array_then_the_dropins():
    files = build([DATA, LOGS])
    assert [(f['dest'], f.get('mode')) for f in files] == [
        (LIB_DIR + '/iotune-ephemeral', '0755'),
        (SPEC_DIR + '/data.json', None), ('/etc/systemd/system/iotune-ephemeral-data.service', None),
        (SPEC_DIR + '/logs.json', None), ('/etc/systemd/system/iotune-ephemeral-logs.service', None),
        ('/etc/systemd/system/cassandra.service.d/' + DROPIN, None), ('/etc/systemd/system/other.service.d/' + DROPIN, None)]
    assert files[0]['content'] == '#!/usr/bin/python3\n' and files[2]['content'] == 'unit of data\n'
    assert list(files[0]) == ['dest', 'mode', 'content'] and list(files[1]) == ['dest', 'content']


def test_the_spec_text_as_the_boot_program_reads_it():
    spec = build([DATA])[1]['content']
    assert spec == '\n'.join([
        '{', '  "allow_single_device": false,', '  "chunk_kb": 256,', '  "conf_path": "/etc/mdadm/mdadm.conf",',
        '  "device_wait": 90,', '  "devices": [', '    "/dev/disk/by-id/nvme-a",', '    "/dev/disk/by-id/nvme-b"', '  ],',
        '  "fstab": "/etc/fstab",', '  "group": null,', '  "homehost": "any",', '  "label": "data",', '  "members": null,',
        '  "metadata": "1.2",', '  "mode": null,', '  "mount_options": "noatime,nofail,x-systemd.device-timeout=90s",',
        '  "mount_unit": "var-lib-cassandra.mount",', '  "mountpoint": "/var/lib/cassandra",', '  "name": "data",',
        '  "owner": null,', '  "services": [', '    "cassandra.service"', '  ]', '}', ''])
    logs = json.loads(build([DATA, LOGS])[3]['content'])
    assert logs['allow_single_device'] is True and logs['members'] == [{'instance_store': 'all'}]
    assert (logs['owner'], logs['group'], logs['mode']) == ('cassandra', 'cassandra', '0750')
    assert logs['mount_options'] == 'noatime,nodiratime,nofail,x-systemd.device-timeout=90s'
    assert json.loads(build([dict(DATA, services=[])])[1]['content'])['services'] == []


@pytest.mark.parametrize('kwargs, message', [
    ({'units': []}, 'one unit per array'),
    ({'program': None}, 'text of the boot program'),
    ({'settings': dict(SETTINGS, device_wait='90')}, 'device_wait must be an integer'),
    ({'settings': {'metadata': '1.2'}}, 'settings must hold'),
    ({'layout': {}}, 'result of ephemeral_layout'),
    ({'layout': layout([DATA], mount_units='')}, 'no mount unit'),
])
def test_ephemeral_files_refuses_what_it_cannot_build(kwargs, message):
    with pytest.raises(AnsibleFilterError, match=message):
        build([DATA], **kwargs)


def test_bad_mount_options_are_refused_as_fstab_options_refuses_them():
    with pytest.raises(AnsibleFilterError, match='ephemeral_files: .*mount options'):
        build([dict(DATA, mount_options='noatime')])


def test_bad_arrays_are_refused():
    with pytest.raises(AnsibleFilterError, match='ephemeral_layout expects a list'):
        layout({'name': 'data'})
    with pytest.raises(AnsibleFilterError, match="an array lacks 'mountpoint'"):
        layout([{'name': 'data'}])
    with pytest.raises(AnsibleFilterError, match='services of an array must be a list'):
        layout([dict(DATA, services=None)])


def found(*paths):
    return [{'path': p} for p in paths]


def test_sync_enables_the_units_without_their_link():
    lay = layout([DATA, LOGS])
    assert ephemeral.sync([], lay, SPEC_DIR)['to_enable'] == lay['units']
    linked = found('/etc/systemd/system/local-fs.target.wants/iotune-ephemeral-logs.service',
                   '/etc/systemd/system/multi-user.target.wants/iotune-ephemeral-data.service')
    assert ephemeral_sync(linked, lay, spec_dir=SPEC_DIR)['to_enable'] == ['iotune-ephemeral-data.service']


def test_sync_removes_what_no_array_needs_any_more_and_only_that():
    lay = layout([DATA])
    there = found(*lay['paths'])
    old = found('/etc/systemd/system/iotune-ephemeral-gone.service',
                '/etc/systemd/system/local-fs.target.wants/iotune-ephemeral-gone.service',
                SPEC_DIR + '/gone.json', '/etc/systemd/system/old.service.d/' + DROPIN)
    kept = found(LIB_DIR + '/iotune-ephemeral', '/etc/other/iotune-ephemeral-x.service')
    got = ephemeral_sync(there[:2] + old + kept + there[2:], lay, spec_dir=SPEC_DIR)
    assert got == {'to_enable': [], 'stale': [p['path'] for p in old]}
    # no array: everything under the unit directory and the spec directory goes (the program's removal is a task)
    assert ephemeral_sync(there + kept, layout([], ''), spec_dir=SPEC_DIR)['stale'] == [p['path'] for p in there]


def test_sync_refuses_states_without_a_path():
    with pytest.raises(AnsibleFilterError, match='ephemeral_sync'):
        ephemeral_sync([{'mode': '0644'}], layout([]), spec_dir=SPEC_DIR)
    with pytest.raises(AnsibleFilterError, match='result of ephemeral_layout'):
        ephemeral_sync([], {}, spec_dir=SPEC_DIR)


def test_the_spec_carries_mkfs_discard_only_when_the_plan_sets_it():
    assert json.loads(build([dict(DATA, mkfs_discard=False)])[1]['content'])['mkfs_discard'] is False
    assert json.loads(build([dict(DATA, mkfs_discard=True)])[1]['content'])['mkfs_discard'] is True
    # negative control: an entry without it writes the spec an earlier release wrote (no rewrite of its file)
    assert 'mkfs_discard' not in json.loads(build([DATA])[1]['content'])
