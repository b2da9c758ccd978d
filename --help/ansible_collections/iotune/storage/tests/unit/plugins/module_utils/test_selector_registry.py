# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/cloud.py, the registry of member selectors: every class is registered and reachable through the
module's functions, unknown keys name the closest known one, and one table per class (syntax, identity, match,
preferred link). A class without its tables here fails test_every_class_has_its_tables."""

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import block_tuning as bt
from ansible_collections.iotune.storage.plugins.module_utils import cloud
from ansible_collections.iotune.storage.plugins.module_utils.cloud import (
    AzureLun,
    EbsVolumeId,
    GcpLocalSsd,
    InstanceStore,
    Selector,
    SelectorError,
)

VOL = 'vol-0123456789abcdef0'
SERIAL = 'vol0123456789abcdef0'
BY_ID = '/dev/disk/by-id/'
AZURE_DATA = '{f8b3781b-1e82-4818-a1c3-63d806ec15bb}'
AZURE_GEN2 = '{f8b3781a-1e82-4818-a1c3-63d806ec15bb}'


def all_subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from all_subclasses(sub)


# ---------------------------------------------------------------------------------------------
# the registry itself


def test_every_selector_class_is_registered_in_the_order_of_the_messages():
    defined = [sub for sub in all_subclasses(Selector) if sub.key]
    assert set(defined) == set(cloud.SELECTORS)
    assert cloud.SELECTORS == [EbsVolumeId, AzureLun, GcpLocalSsd, InstanceStore]
    assert cloud.SELECTOR_KEYS == ('ebs_volume_id', 'azure_lun', 'gcp_local_ssd', 'instance_store')


@pytest.mark.parametrize('kind', cloud.SELECTORS, ids=lambda kind: kind.key)
def test_every_registered_class_is_reachable(kind, monkeypatch):
    parsed = cloud.parse_selector(kind.example)
    assert cloud.parse_selector(parsed) == parsed
    assert cloud.kind_of(parsed) is kind
    assert cloud.describe(parsed) == kind.describe(parsed) and cloud.describe(parsed).startswith(kind.key + '=')
    assert cloud.single(parsed) is kind.single
    monkeypatch.setattr(kind, 'matches', classmethod(lambda cls, selector, info: ('matched by', cls)))
    assert cloud.matches(parsed, {}) == ('matched by', kind)
    monkeypatch.setattr(kind, 'link_rank', classmethod(lambda cls, link, selector: 0 if link.endswith('zz') else None))
    assert cloud.stable_path({'by_id': [BY_ID + 'wwn-0x1', BY_ID + 'wwn-0xzz']}, parsed) == BY_ID + 'wwn-0xzz'
    monkeypatch.setattr(kind, 'identify', classmethod(lambda cls, disk: {'provider': cls.key, 'name': disk.name}))
    assert cloud.identify('sdz') == {'provider': kind.key, 'name': 'sdz'}


def test_register_refuses_a_key_twice_or_none():
    before = list(cloud.SELECTORS)
    for attrs in ({'key': 'azure_lun'}, {'key': 'other', 'extra_keys': ('count',)}, {}):
        with pytest.raises(ValueError, match='missing or registered twice'):
            cloud.register(type('Twice', (Selector,), attrs))
    assert cloud.SELECTORS == before


@pytest.mark.parametrize('given, text', [
    ({'ebs_volume': VOL}, "unknown key ebs_volume (did you mean ebs_volume_id?) in member selector {'ebs_volume': '%s'} "
                          "(known: ebs_volume_id, azure_lun, gcp_local_ssd, instance_store, and count with instance_store)"
                          % VOL),
    ({'instancestore': 'all'}, 'unknown key instancestore (did you mean instance_store?) in member selector'),
    ({'gcp_local_sd': 1}, 'unknown key gcp_local_sd (did you mean gcp_local_ssd?) in member selector'),
    ({'instance_store': 'all', 'counts': 2}, 'unknown key counts (did you mean count?) in member selector'),
    ({'azure_lun': 1, 'zzz': 1, 'azure_lum': 2}, 'unknown keys azure_lum (did you mean azure_lun?), zzz in member selector'),
    ({'zzz': 1}, "unknown key zzz in member selector {'zzz': 1} (known: ebs_volume_id, azure_lun, gcp_local_ssd, "
                 "instance_store, and count with instance_store)"),
    ({7: 1}, 'unknown key 7 in member selector {7: 1} (known: '),
])
def test_unknown_keys_name_the_closest_known_one(given, text):
    with pytest.raises(SelectorError) as e:
        cloud.parse_selector(given)
    assert str(e.value).startswith(text)


@pytest.mark.parametrize('given, text', [
    ({'azure_lun': 1, 'count': 2}, "count goes with instance_store only, got {'azure_lun': 1, 'count': 2}"),
    ({'azure_lun': 1, 'gcp_local_ssd': 1}, 'a member selector needs exactly one of ebs_volume_id, azure_lun, '
                                           "gcp_local_ssd, instance_store, got {'azure_lun': 1, 'gcp_local_ssd': 1}"),
    ({'count': 2}, 'a member selector needs exactly one of ebs_volume_id, azure_lun, gcp_local_ssd, instance_store, '
                   "got {'count': 2}"),
    ([VOL], "a member selector must be a dict such as {ebs_volume_id: vol-0123...}, got ['%s']" % VOL),
])
def test_the_loop_refuses_what_no_class_decides(given, text):
    with pytest.raises(SelectorError) as e:
        cloud.parse_selector(given)
    assert str(e.value) == text


def test_no_class_no_match():
    assert cloud.kind_of({'count': 2}) is None
    assert cloud.matches({}, {'serial': SERIAL, 'cloud': {'instance_store': True}}) is False
    assert cloud.describe({'x': 1}) == "{'x': 1}"
    assert cloud.single({}) is True


# ---------------------------------------------------------------------------------------------
# one table per class: syntax (value -> normalised selector, or the exact message)

PARSE = {
    EbsVolumeId: [
        (VOL, {'ebs_volume_id': VOL}),
        (SERIAL, {'ebs_volume_id': VOL}),
        (' vol12345678 ', {'ebs_volume_id': 'vol-12345678'}),
        ('vol-nope', "ebs_volume_id 'vol-nope' is not an EBS volume id (vol-0123456789abcdef0)"),
        ('vol-0123456789ABCDEF0', "ebs_volume_id 'vol-0123456789ABCDEF0' is not an EBS volume id (vol-0123456789abcdef0)"),
        (12, 'ebs_volume_id 12 is not an EBS volume id (vol-0123456789abcdef0)'),
        (None, 'ebs_volume_id None is not an EBS volume id (vol-0123456789abcdef0)'),
    ],
    AzureLun: [
        (0, {'azure_lun': 0}),
        (63, {'azure_lun': 63}),
        ('07', {'azure_lun': 7}),
        (64, 'azure_lun must be a whole number 0..63, got 64'),
        (-1, 'azure_lun must be a whole number 0..63, got -1'),
        ('-1', "azure_lun must be a whole number 0..63, got '-1'"),
        (True, 'azure_lun must be a whole number 0..63, got True'),
        (1.0, 'azure_lun must be a whole number 0..63, got 1.0'),
    ],
    GcpLocalSsd: [
        (0, {'gcp_local_ssd': 0}),
        ('3', {'gcp_local_ssd': 3}),
        (99, 'gcp_local_ssd must be a whole number 0..63, got 99'),
        ('first', "gcp_local_ssd must be a whole number 0..63, got 'first'"),
        (None, 'gcp_local_ssd must be a whole number 0..63, got None'),
    ],
    InstanceStore: [
        ('all', {'instance_store': 'all', 'count': None}),
        (('all', 4), {'instance_store': 'all', 'count': 4}),
        (('all', None), {'instance_store': 'all', 'count': None}),
        ('yes', "instance_store takes the value all (every instance-store disk), got 'yes'"),
        (True, 'instance_store takes the value all (every instance-store disk), got True'),
        (('all', 0), 'instance_store count must be a whole number >= 1, got 0'),
        (('all', True), 'instance_store count must be a whole number >= 1, got True'),
        (('all', '2'), "instance_store count must be a whole number >= 1, got '2'"),
    ],
}


def as_selector(kind, value):
    """{key: value}; instance_store's (value, count) gives the count too."""
    if isinstance(value, tuple):
        return {kind.key: value[0], 'count': value[1]}
    return {kind.key: value}


@pytest.mark.parametrize('kind, value, expected', [(k, v, e) for k, rows in PARSE.items() for v, e in rows],
                         ids=lambda x: x.key if isinstance(x, type) else None)
def test_parse_table(kind, value, expected):
    given = as_selector(kind, value)
    if isinstance(expected, dict):
        assert kind.parse(given) == expected
        assert cloud.parse_selector(given) == expected
        return
    for parse in (kind.parse, cloud.parse_selector):
        with pytest.raises(SelectorError) as e:
            parse(given)
        assert str(e.value) == expected


DESCRIBE = [
    ({'ebs_volume_id': VOL}, 'ebs_volume_id=' + VOL),
    ({'azure_lun': 2}, 'azure_lun=2'),
    ({'gcp_local_ssd': 0}, 'gcp_local_ssd=0'),
    ({'instance_store': 'all', 'count': None}, 'instance_store=all'),
    ({'instance_store': 'all', 'count': 4}, 'instance_store=all (count 4)'),
]


@pytest.mark.parametrize('selector, text', DESCRIBE)
def test_describe_table(selector, text):
    assert cloud.describe(selector) == cloud.kind_of(selector).describe(selector) == text


# ---------------------------------------------------------------------------------------------
# identity: identify() arguments -> the cloud fact (the classes with a provider)

IDENTIFY = {
    EbsVolumeId: [
        ({'model': 'Amazon Elastic Block Store', 'serial': SERIAL},
         {'provider': 'aws', 'ebs_volume_id': VOL, 'instance_store': False}),
        ({'model': 'Amazon EC2 NVMe Instance Storage', 'serial': 'AWS1'},
         {'provider': 'aws', 'ebs_volume_id': None, 'instance_store': True}),
        ({'model': 'QEMU NVMe Ctrl', 'serial': SERIAL}, None),   # the lab's disks: matched by serial, no identity
    ],
    AzureLun: [
        ({'vendor': 'Msft', 'model': 'Virtual Disk', 'scsi_address': '1:0:0:3', 'vmbus_device_id': AZURE_DATA},
         {'provider': 'azure', 'lun': 3, 'scsi_address': '1:0:0:3', 'azure_links': [], 'disk_type': 'data',
          'instance_store': False}),
        ({'vendor': 'Msft', 'model': 'Virtual Disk', 'scsi_address': '0:0:0:1', 'vmbus_device_id': AZURE_GEN2},
         {'provider': 'azure', 'lun': 1, 'scsi_address': '0:0:0:1', 'azure_links': [], 'disk_type': 'resource',
          'instance_store': False}),
        ({'vendor': 'Msft', 'model': 'Virtual Disk', 'scsi_address': '3:0:0:0',
          'links': ['/dev/disk/azure/scsi1/lun5', '/dev/disk/azure/data/by-lun/5']},
         {'provider': 'azure', 'lun': 5, 'scsi_address': '3:0:0:0', 'azure_links': ['data/by-lun/5', 'scsi1/lun5'],
          'disk_type': 'data', 'instance_store': False}),
        ({'model': 'MSFT NVMe Accelerator v1.0', 'nsid': 4},
         {'provider': 'azure', 'lun': 2, 'scsi_address': None, 'azure_links': [], 'disk_type': 'data',
          'instance_store': False, 'nvme_nsid': 4}),
        ({'model': 'MSFT NVMe Accelerator v1.0', 'nsid': 1},
         {'provider': 'azure', 'lun': None, 'scsi_address': None, 'azure_links': [], 'disk_type': 'os',
          'instance_store': False, 'nvme_nsid': 1}),
        ({'model': 'Microsoft NVMe Direct Disk v2', 'nsid': 1},
         {'provider': 'azure', 'lun': None, 'scsi_address': None, 'azure_links': [], 'disk_type': 'local',
          'instance_store': True, 'nvme_nsid': 1}),
        ({'vendor': 'QEMU', 'model': 'Virtual Disk'}, None),
    ],
    GcpLocalSsd: [
        ({'model': 'nvme_card', 'nsid': 3}, {'provider': 'gcp', 'local_ssd': 2, 'instance_store': True,
                                             'interface': 'nvme'}),
        ({'model': 'nvme_card', 'nsid': 3, 'links': [BY_ID + 'google-local-nvme-ssd-7']},
         {'provider': 'gcp', 'local_ssd': 7, 'instance_store': True, 'interface': 'nvme'}),
        ({'vendor': 'Google', 'model': 'EphemeralDisk', 'serial': 'local-ssd-4'},
         {'provider': 'gcp', 'local_ssd': 4, 'instance_store': True, 'interface': 'scsi'}),
        ({'vendor': 'Google', 'model': 'PersistentDisk'}, {'provider': 'gcp', 'local_ssd': None, 'instance_store': False,
                                                           'interface': 'scsi'}),
        ({'model': 'nvme_card-pd'}, {'provider': 'gcp', 'local_ssd': None, 'instance_store': False, 'interface': 'nvme'}),
        ({'vendor': 'QEMU', 'model': 'EphemeralDisk'}, None),
    ],
}


@pytest.mark.parametrize('kind, given, expected', [(k, g, e) for k, rows in IDENTIFY.items() for g, e in rows],
                         ids=lambda x: x.key if isinstance(x, type) else None)
def test_identify_table(kind, given, expected):
    assert cloud.identify('disk', **given) == expected
    disk = cloud.Disk(**dict({'name': 'disk', 'model': None, 'vendor': None, 'serial': None, 'nsid': None,
                              'scsi_address': None, 'vmbus_device_id': None, 'links': []}, **given))
    assert kind.identify(disk) == expected
    assert all(other.identify(disk) is None for other in cloud.SELECTORS if other is not kind)


# ---------------------------------------------------------------------------------------------
# matching: (normalised selector, readahead_facts entry) -> bool

AWS_EBS = {'serial': SERIAL, 'cloud': {'provider': 'aws', 'ebs_volume_id': VOL, 'instance_store': False}}
AWS_STORE = {'serial': 'AWS1', 'cloud': {'provider': 'aws', 'ebs_volume_id': None, 'instance_store': True}}
AZURE_LUN_2 = {'serial': None, 'cloud': {'provider': 'azure', 'disk_type': 'data', 'lun': 2, 'instance_store': False}}
AZURE_OS = {'serial': None, 'cloud': {'provider': 'azure', 'disk_type': 'os', 'lun': 2, 'instance_store': False}}
AZURE_LOCAL = {'serial': None, 'cloud': {'provider': 'azure', 'disk_type': 'local', 'lun': None, 'instance_store': True}}
GCP_SSD_1 = {'serial': 'local-ssd-1', 'cloud': {'provider': 'gcp', 'local_ssd': 1, 'instance_store': True}}
GCP_PD = {'serial': 'pd', 'cloud': {'provider': 'gcp', 'local_ssd': None, 'instance_store': False}}
LAB_NVME = {'serial': SERIAL + '  ', 'cloud': None}   # qemu's NVMe with an EBS-like serial (padded)

MATCHES = {
    EbsVolumeId: [
        ({'ebs_volume_id': VOL}, AWS_EBS, True),
        ({'ebs_volume_id': VOL}, LAB_NVME, True),
        ({'ebs_volume_id': 'vol-0123456789abcdef1'}, AWS_EBS, False),
        ({'ebs_volume_id': VOL}, AWS_STORE, False),
        ({'ebs_volume_id': VOL}, {}, False),
    ],
    AzureLun: [
        ({'azure_lun': 2}, AZURE_LUN_2, True),
        ({'azure_lun': 3}, AZURE_LUN_2, False),
        ({'azure_lun': 2}, AZURE_OS, False),
        ({'azure_lun': 2}, {'cloud': {'provider': 'gcp', 'disk_type': 'data', 'lun': 2}}, False),
    ],
    GcpLocalSsd: [
        ({'gcp_local_ssd': 1}, GCP_SSD_1, True),
        ({'gcp_local_ssd': 0}, GCP_SSD_1, False),
        ({'gcp_local_ssd': 1}, {'cloud': {'provider': 'azure', 'local_ssd': 1}}, False),
        ({'gcp_local_ssd': 0}, GCP_PD, False),
    ],
    InstanceStore: [
        ({'instance_store': 'all', 'count': None}, AWS_STORE, True),
        ({'instance_store': 'all', 'count': None}, AZURE_LOCAL, True),
        ({'instance_store': 'all', 'count': 2}, GCP_SSD_1, True),
        ({'instance_store': 'all', 'count': None}, AWS_EBS, False),
        ({'instance_store': 'all', 'count': None}, GCP_PD, False),
        ({'instance_store': 'all', 'count': None}, LAB_NVME, False),
    ],
}


@pytest.mark.parametrize('kind, selector, info, expected',
                         [(k, s, i, e) for k, rows in MATCHES.items() for s, i, e in rows],
                         ids=lambda x: x.key if isinstance(x, type) else None)
def test_matches_table(kind, selector, info, expected):
    assert kind.matches(selector, info) is expected
    assert cloud.matches(selector, info) is expected


# ---------------------------------------------------------------------------------------------
# the stable path: (normalised selector, readahead_facts entry) -> the link chosen

EBS_LINKS = [BY_ID + 'nvme-Amazon_Elastic_Block_Store_%s_1' % SERIAL, BY_ID + 'nvme-nvme.1d0f-0',
             BY_ID + 'nvme-Amazon_Elastic_Block_Store_%s' % SERIAL]
LINKS = {
    EbsVolumeId: [
        ({'ebs_volume_id': VOL}, dict(AWS_EBS, by_id=EBS_LINKS), BY_ID + 'nvme-Amazon_Elastic_Block_Store_' + SERIAL),
        ({'ebs_volume_id': VOL}, dict(LAB_NVME, by_id=[BY_ID + 'nvme-QEMU_NVMe_Ctrl_' + SERIAL, BY_ID + 'wwn-0x1']),
         BY_ID + 'nvme-QEMU_NVMe_Ctrl_' + SERIAL),
    ],
    AzureLun: [
        ({'azure_lun': 2}, dict(AZURE_LUN_2, by_id=[BY_ID + 'scsi-3600'], cloud=dict(
            AZURE_LUN_2['cloud'], azure_links=['scsi1/lun2', 'data/by-lun/2'])), '/dev/disk/azure/data/by-lun/2'),
        ({'azure_lun': 2}, dict(AZURE_LUN_2, by_id=[BY_ID + 'scsi-3600'], cloud=dict(
            AZURE_LUN_2['cloud'], azure_links=['scsi1/lun2'])), '/dev/disk/azure/scsi1/lun2'),
        ({'azure_lun': 2}, dict(AZURE_LUN_2, by_id=[BY_ID + 'wwn-0x6', BY_ID + 'scsi-3600']), BY_ID + 'scsi-3600'),
    ],
    GcpLocalSsd: [
        ({'gcp_local_ssd': 1}, dict(GCP_SSD_1, by_id=[BY_ID + 'scsi-0Google_EphemeralDisk_local-ssd-1',
                                                      BY_ID + 'google-local-ssd-1']), BY_ID + 'google-local-ssd-1'),
    ],
    InstanceStore: [
        ({'instance_store': 'all', 'count': None}, dict(GCP_SSD_1, by_id=[BY_ID + 'scsi-0Google_EphemeralDisk_local-ssd-1',
                                                                          BY_ID + 'google-local-ssd-1']),
         BY_ID + 'google-local-ssd-1'),
        ({'instance_store': 'all', 'count': None}, dict(AWS_STORE, by_id=[BY_ID + 'nvme-Amazon_EC2_NVMe_Instance_Storage_AWS1_1',
                                                                          BY_ID + 'nvme-Amazon_EC2_NVMe_Instance_Storage_AWS1']),
         BY_ID + 'nvme-Amazon_EC2_NVMe_Instance_Storage_AWS1'),
    ],
}


@pytest.mark.parametrize('kind, selector, info, path', [(k, s, i, p) for k, rows in LINKS.items() for s, i, p in rows],
                         ids=lambda x: x.key if isinstance(x, type) else None)
def test_stable_path_table(kind, selector, info, path):
    assert cloud.kind_of(selector) is kind
    assert cloud.stable_path(info, selector) == path


def test_every_class_has_its_tables():
    for table in (PARSE, MATCHES, LINKS):
        assert set(table) == set(cloud.SELECTORS)
    assert set(IDENTIFY) == set(kind for kind in cloud.SELECTORS if kind.provider)
    assert set(cloud.kind_of(selector) for selector, dummy in DESCRIBE) == set(cloud.SELECTORS)


# ---------------------------------------------------------------------------------------------
# EbsVolumeId is the one home of the volume id: udev_block_tuning reads and matches it the same way


@pytest.mark.parametrize('value', [VOL, SERIAL, ' vol-12345678', 'vol-nope', 'vol-0123456789abcdef12'])
def test_block_tuning_reads_the_volume_id_with_the_registry(value):
    try:
        expected = EbsVolumeId.serial(value)
    except SelectorError as e:
        with pytest.raises(bt.TuningError) as raised:
            bt.normalize_ebs_volume_id(value)
        assert str(raised.value) == str(e)
        return
    assert bt.normalize_ebs_volume_id(value) == expected


def test_block_tuning_matches_the_serials_the_registry_matches():
    devices = {
        'nvme1n1': {'name': 'nvme1n1', 'id_serial_short': SERIAL, 'serial': None},
        'vdb': {'name': 'vdb', 'id_serial_short': None, 'serial': SERIAL},
        'nvme2n1': {'name': 'nvme2n1', 'id_serial_short': 'vol0123456789abcdef1', 'serial': None},
        'sda': {'name': 'sda', 'id_serial_short': None, 'serial': None},
    }
    for spelling in (VOL, SERIAL):
        assert [d['name'] for d in bt.resolve({'ebs_volume_id': spelling}, devices)] == ['nvme1n1', 'vdb']
        assert [n for n, d in devices.items()
                if EbsVolumeId.serial_matches(spelling, d['id_serial_short'], d['serial'])] == ['nvme1n1', 'vdb']
