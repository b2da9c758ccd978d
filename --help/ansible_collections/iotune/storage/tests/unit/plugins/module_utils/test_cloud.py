# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/cloud.py: selector syntax, cloud identity of a disk, and selectors resolved on fake hosts
shaped like each cloud's guest (the source of each shape is named at its builder)."""

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import cloud
from ansible_collections.iotune.storage.plugins.module_utils import sysfs_block as sb

GIB = 1 << 30


# ---------------------------------------------------------------------------------------------
# fake hosts


def nvme(host, kname, majmin, controller, model, serial, nsid=1, by_id=(), links=()):
    """An NVMe namespace: device/ is its controller (model, serial), ``nsid`` an attribute of the namespace."""
    host.add_disk(kname, majmin, size_sectors=GIB // 512, device={'model': model, 'serial': serial},
                  device_link=controller, attrs={'nsid': str(nsid)}, node=True)
    for link in by_id:
        host.dev_link('disk/by-id/' + link, '../../' + kname)
    for link in links:
        host.dev_link(link, '../' * link.count('/') + kname)


def scsi(host, kname, majmin, address, vendor, model, by_id=(), links=(), vmbus=None, serial=None):
    """A SCSI disk whose device/ is the SCSI device H:C:T:L, below a VMBus device when ``vmbus`` is given."""
    parent = '' if vmbus is None else 'VMBUS:01/%s/host%s/target%s:0:0/' % (vmbus, address.split(':')[0],
                                                                            address.split(':')[0])
    host.add_disk(kname, majmin, size_sectors=GIB // 512, device={'vendor': vendor, 'model': model},
                  device_link=parent + address, node=True)
    if vmbus is not None:
        host.write('sys/devices/platform/VMBUS:01/%s/device_id' % vmbus, vmbus + '\n')
    if serial:
        host.udev_db(majmin, {'ID_SERIAL_SHORT': serial})
    for link in by_id:
        host.dev_link('disk/by-id/' + link, '../../' + kname)
    for link in links:
        host.dev_link(link, '../' * link.count('/') + kname)


def aws_nitro(host):
    """EC2 Nitro: EBS volumes and instance store are NVMe controllers; udev's 60-persistent-storage names
    them nvme-<model>_<serial> (plus a _1 namespace link); amazon-ec2-utils' 70-ec2-nvme-devices.rules
    only adds the requested /dev/sdX names. Serial of EBS = volume id without the dash (AWS "Amazon EBS
    and NVMe" user guide); instance store model "Amazon EC2 NVMe Instance Storage"."""
    for i, vol in enumerate(('vol0123456789abcdef0', 'vol0123456789abcdef1', 'vol0123456789abcdef2')):
        name = 'nvme%dn1' % i
        nvme(host, name, '259:%d' % i, 'nvme%d' % i, 'Amazon Elastic Block Store', vol,
             by_id=('nvme-Amazon_Elastic_Block_Store_%s' % vol, 'nvme-Amazon_Elastic_Block_Store_%s_1' % vol,
                    'nvme-nvme.1d0f-%d' % i))
    host.mount('259:0', '/', 'xfs', '/dev/nvme0n1')
    for i in (3, 4):
        serial = 'AWS2E0E1B0C%dF4A00000' % i
        nvme(host, 'nvme%dn1' % i, '259:%d' % (10 + i), 'nvme%d' % i, 'Amazon EC2 NVMe Instance Storage', serial,
             by_id=('nvme-Amazon_EC2_NVMe_Instance_Storage_%s' % serial,
                    'nvme-Amazon_EC2_NVMe_Instance_Storage_%s_1' % serial))
    return host


AZ_DATA = '{f8b3781b-1e82-4818-a1c3-63d806ec15bb}'


def azure_scsi(host, links=True):
    """Azure SCSI (Gen1): OS disk on VMBus device_id {00000000-0000-...}, resource disk {00000000-0001-...},
    data disks on {f8b3781b-1e82-4818-a1c3-63d806ec15bb} with the LUN as the SCSI address' last field;
    WALinuxAgent's 66-azure-storage.rules link /dev/disk/azure/scsi1/lunN, azure-vm-utils'
    udev/80-azure-disk.rules /dev/disk/azure/data/by-lun/N. ``links=False``: an image without either."""
    scsi(host, 'sda', '8:0', '0:0:0:0', 'Msft', 'Virtual Disk', vmbus='{00000000-0000-8899-0000-000000000000}',
         by_id=('scsi-36002248000000000000000000000000a',),
         links=('disk/azure/root',) if links else ())
    scsi(host, 'sdb', '8:16', '1:0:1:0', 'Msft', 'Virtual Disk', vmbus='{00000000-0001-8899-0000-000000000000}',
         by_id=('scsi-36002248000000000000000000000000b',), links=('disk/azure/resource',) if links else ())
    for kname, majmin, lun in (('sdc', '8:32', 0), ('sdd', '8:48', 2)):
        scsi(host, kname, majmin, '3:0:0:%d' % lun, 'Msft', 'Virtual Disk', vmbus=AZ_DATA,
             by_id=('scsi-3600224800000000000000000000000%d0' % lun,),
             links=('disk/azure/scsi1/lun%d' % lun, 'disk/azure/data/by-lun/%d' % lun) if links else ())
    host.mount('8:1', '/', 'ext4', '/dev/sda1')
    return host


def azure_nvme(host):
    """Azure NVMe sizes (azure-vm-utils udev/80-azure-disk.rules): remote disks are namespaces of one
    controller "MSFT NVMe Accelerator v1.0", namespace 1 the OS disk, namespace N the data disk of LUN N-2
    (link /dev/disk/azure/data/by-lun/N-2); local disks "Microsoft NVMe Direct Disk v2" (links below
    /dev/disk/azure/local)."""
    model = 'MSFT NVMe Accelerator v1.0'
    nvme(host, 'nvme0n1', '259:0', 'nvme0', model, 'SN-remote', nsid=1, by_id=('nvme-MSFT_NVMe_Accelerator_v1.0_SN-remote',),
         links=('disk/azure/os',))
    nvme(host, 'nvme0n2', '259:1', 'nvme0', model, 'SN-remote', nsid=2,
         by_id=('nvme-MSFT_NVMe_Accelerator_v1.0_SN-remote_2',), links=('disk/azure/data/by-lun/0',))
    nvme(host, 'nvme0n3', '259:2', 'nvme0', model, 'SN-remote', nsid=3,
         by_id=('nvme-MSFT_NVMe_Accelerator_v1.0_SN-remote_3',))          # no azure-vm-utils: LUN from nsid
    for i in (1, 2):
        serial = 'ab%02dcdef' % i
        nvme(host, 'nvme%dn1' % i, '259:%d' % (10 + i), 'nvme%d' % i, 'Microsoft NVMe Direct Disk v2', serial,
             by_id=('nvme-Microsoft_NVMe_Direct_Disk_v2_%s' % serial,),
             links=('disk/azure/local/by-serial/%s' % serial,))
    return host


def gcp(host):
    """GCP (guest-configs src/lib/udev/rules.d/65-gce-disk-naming.rules): NVMe local SSDs have model
    "nvme_card", namespace N is local SSD N-1 (by-id google-local-nvme-ssd-N-1); a PD on NVMe has model
    "nvme_card-pd"; SCSI local SSDs have vendor Google, model EphemeralDisk, serial local-ssd-N
    (by-id scsi-0Google_EphemeralDisk_local-ssd-N and google-local-ssd-N)."""
    nvme(host, 'nvme0n1', '259:0', 'nvme0', 'nvme_card-pd', 'boot', by_id=('google-persistent-disk-0',))
    nvme(host, 'nvme1n1', '259:1', 'nvme1', 'nvme_card', '', nsid=1,
         by_id=('google-local-nvme-ssd-0', 'nvme-nvme_card_1'))
    nvme(host, 'nvme1n2', '259:2', 'nvme1', 'nvme_card', '', nsid=2,
         by_id=('nvme-nvme_card_2',))                                     # no link: index from the nsid
    scsi(host, 'sdb', '8:16', '0:0:2:0', 'Google', 'EphemeralDisk', serial='local-ssd-5',
         by_id=('scsi-0Google_EphemeralDisk_local-ssd-5',))
    return host


def resolved(host, selector):
    return cloud.resolve(host.view(), cloud.parse_selector(selector))


# ---------------------------------------------------------------------------------------------
# syntax


@pytest.mark.parametrize('given, expected', [
    ({'ebs_volume_id': 'vol0123456789abcdef0'}, {'ebs_volume_id': 'vol-0123456789abcdef0'}),
    ({'ebs_volume_id': 'vol-0123456789abcdef0'}, {'ebs_volume_id': 'vol-0123456789abcdef0'}),
    ({'azure_lun': 2}, {'azure_lun': 2}),
    ({'azure_lun': '2'}, {'azure_lun': 2}),
    ({'gcp_local_ssd': 0}, {'gcp_local_ssd': 0}),
    ({'instance_store': 'all'}, {'instance_store': 'all', 'count': None}),
    ({'instance_store': 'all', 'count': 4}, {'instance_store': 'all', 'count': 4}),
])
def test_selectors_are_normalised(given, expected):
    assert cloud.parse_selector(given) == expected


@pytest.mark.parametrize('given, words', [
    ({'ebs_volume_id': 'vol-xyz'}, 'is not an EBS volume id'),
    ({'ebs_volume_id': 12}, 'is not an EBS volume id'),
    ({'azure_lun': -1}, 'azure_lun must be a whole number 0..63'),
    ({'azure_lun': 64}, 'azure_lun must be a whole number 0..63, got 64'),
    ({'azure_lun': True}, 'azure_lun must be a whole number'),
    ({'gcp_local_ssd': 'first'}, 'gcp_local_ssd must be a whole number'),
    ({'instance_store': True}, 'instance_store takes the value all'),
    ({'instance_store': 'all', 'count': 0}, 'count must be a whole number >= 1'),
    ({'azure_lun': 1, 'count': 2}, 'count goes with instance_store only'),
    ({'azure_lun': 1, 'gcp_local_ssd': 1}, 'exactly one of'),
    ({'ebs_volume': 'vol-0123456789abcdef0'}, "unknown key ebs_volume"),
    ({}, 'exactly one of'),
    ('vol-0123456789abcdef0', 'must be a dict'),
])
def test_bad_selectors_are_named(given, words):
    with pytest.raises(cloud.SelectorError, match=words.replace('(', r'\(').replace('.', r'\.')):
        cloud.parse_selector(given)


def test_describe():
    assert cloud.describe({'ebs_volume_id': 'vol-0123456789abcdef0'}) == 'ebs_volume_id=vol-0123456789abcdef0'
    assert cloud.describe({'instance_store': 'all', 'count': 2}) == 'instance_store=all (count 2)'
    assert cloud.describe({'instance_store': 'all', 'count': None}) == 'instance_store=all'


# ---------------------------------------------------------------------------------------------
# identity (the cloud fact of readahead_facts)


def facts(host):
    found, dummy = sb.collect_block_devices(**host.roots)
    return dict((name, info['cloud']) for name, info in found.items())


def test_aws_identity(fake_host):
    got = facts(aws_nitro(fake_host))
    assert got['nvme1n1'] == {'provider': 'aws', 'ebs_volume_id': 'vol-0123456789abcdef1', 'instance_store': False}
    assert got['nvme3n1'] == {'provider': 'aws', 'ebs_volume_id': None, 'instance_store': True}


def test_azure_scsi_identity_from_links_and_from_vmbus(fake_host, tmp_path):
    got = facts(azure_scsi(fake_host))
    assert got['sdd'] == {'provider': 'azure', 'lun': 2, 'scsi_address': '3:0:0:2', 'disk_type': 'data',
                          'azure_links': ['data/by-lun/2', 'scsi1/lun2'], 'instance_store': False}
    assert got['sda']['disk_type'] == 'os' and got['sdb']['disk_type'] == 'resource'
    # the same host without Azure's udev rules: the VMBus device_id tells the same
    from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import FakeHost
    bare = facts(azure_scsi(FakeHost(tmp_path / 'bare'), links=False))
    assert bare['sdd']['disk_type'] == 'data' and bare['sdd']['lun'] == 2 and bare['sdd']['azure_links'] == []
    assert bare['sdc']['lun'] == 0 and bare['sda']['disk_type'] == 'os' and bare['sdb']['disk_type'] == 'resource'


def test_azure_nvme_identity(fake_host):
    got = facts(azure_nvme(fake_host))
    assert got['nvme0n1']['disk_type'] == 'os' and got['nvme0n1']['lun'] is None
    assert got['nvme0n2'] == {'provider': 'azure', 'lun': 0, 'scsi_address': None, 'disk_type': 'data',
                              'azure_links': ['data/by-lun/0'], 'instance_store': False, 'nvme_nsid': 2}
    assert got['nvme0n3']['lun'] == 1 and got['nvme0n3']['disk_type'] == 'data'
    assert got['nvme1n1']['disk_type'] == 'local' and got['nvme1n1']['instance_store'] is True


def test_gcp_identity(fake_host):
    got = facts(gcp(fake_host))
    assert got['nvme0n1'] == {'provider': 'gcp', 'local_ssd': None, 'instance_store': False, 'interface': 'nvme'}
    assert got['nvme1n1'] == {'provider': 'gcp', 'local_ssd': 0, 'instance_store': True, 'interface': 'nvme'}
    assert got['nvme1n2']['local_ssd'] == 1
    assert got['sdb'] == {'provider': 'gcp', 'local_ssd': 5, 'instance_store': True, 'interface': 'scsi'}


# ---------------------------------------------------------------------------------------------
# resolution


def test_ebs_volume_id_resolves_to_the_ebs_by_id_link(fake_host):
    aws_nitro(fake_host)
    assert resolved(fake_host, {'ebs_volume_id': 'vol-0123456789abcdef2'}) == [
        ('nvme2n1', '/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef2')]
    assert resolved(fake_host, {'ebs_volume_id': 'vol0123456789abcdef1'})[0][0] == 'nvme1n1'


def test_ebs_volume_id_matches_the_serial_whatever_the_model(fake_host):
    # the lab: qemu's NVMe model, serials like EBS volume ids (tools/iotune_lab/disks.py)
    nvme(fake_host, 'nvme0n1', '259:0', 'nvme0', 'QEMU NVMe Ctrl', 'vol0123456789abcdef7',
         by_id=('nvme-QEMU_NVMe_Ctrl_vol0123456789abcdef7', 'nvme-QEMU_NVMe_Ctrl_vol0123456789abcdef7_1',
                'nvme-nvme.1b36-766f6c30-51454d55-00000001'))
    assert resolved(fake_host, {'ebs_volume_id': 'vol-0123456789abcdef7'}) == [
        ('nvme0n1', '/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_vol0123456789abcdef7')]


def test_the_hidden_path_of_a_multipath_nvme_namespace_is_not_a_second_disk(fake_host):
    # native NVMe multipath (qemu 10's controllers, dual-port drives): the kernel adds nvme0c0n1, a hidden path
    # without a device node whose controller has the same serial; only the head nvme0n1 is a disk to use
    nvme(fake_host, 'nvme0n1', '259:0', 'nvme-subsys0', 'QEMU NVMe Ctrl', 'vol0123456789abcdef7',
         by_id=('nvme-QEMU_NVMe_Ctrl_vol0123456789abcdef7',))
    fake_host.add_disk('nvme0c0n1', '259:1', size_sectors=GIB // 512, device={'model': 'QEMU NVMe Ctrl',
                                                                              'serial': 'vol0123456789abcdef7'},
                       device_link='nvme0', attrs={'nsid': '1', 'hidden': '1'})
    assert resolved(fake_host, {'ebs_volume_id': 'vol-0123456789abcdef7'}) == [
        ('nvme0n1', '/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_vol0123456789abcdef7')]
    assert 'nvme0c0n1' not in fake_host.view().inventory().order
    # a disk whose hidden attribute says 0 is a disk like any other
    fake_host.write('sys/block/nvme0c0n1/hidden', '0\n')
    with pytest.raises(cloud.SelectorError, match='matches 2 disks'):
        resolved(fake_host, {'ebs_volume_id': 'vol-0123456789abcdef7'})


def test_unknown_volume_names_the_selector_and_what_is_there(fake_host):
    aws_nitro(fake_host)
    with pytest.raises(cloud.SelectorError) as e:
        resolved(fake_host, {'ebs_volume_id': 'vol-0123456789abcdef9'})
    assert str(e.value).startswith('ebs_volume_id=vol-0123456789abcdef9 matches no disk on this host')
    assert 'ebs_volume_id=vol-0123456789abcdef1' in str(e.value)


def test_one_serial_on_two_disks_is_refused(fake_host):
    for i in (0, 1):
        nvme(fake_host, 'nvme%dn1' % i, '259:%d' % i, 'nvme%d' % i, 'Amazon Elastic Block Store',
             'vol0123456789abcdef0', by_id=('nvme-x%d' % i,))
    with pytest.raises(cloud.SelectorError, match='matches 2 disks .*/dev/nvme0n1, /dev/nvme1n1.*exactly one'):
        resolved(fake_host, {'ebs_volume_id': 'vol-0123456789abcdef0'})


def test_instance_store_all_with_and_without_count(fake_host):
    aws_nitro(fake_host)
    expected = [('nvme3n1', '/dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWS2E0E1B0C3F4A00000'),
                ('nvme4n1', '/dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWS2E0E1B0C4F4A00000')]
    assert resolved(fake_host, {'instance_store': 'all'}) == expected
    assert resolved(fake_host, {'instance_store': 'all', 'count': 2}) == expected
    with pytest.raises(cloud.SelectorError, match=r'instance_store=all \(count 4\) matches 2 disks .*, not 4'):
        resolved(fake_host, {'instance_store': 'all', 'count': 4})


def test_instance_store_order_is_the_stable_paths_not_the_probe_order(fake_host):
    """SCSI disks are probed in parallel: local SSD 1 may be sda at one boot and sdb at the next (seen in the
    lab's CI). The members come in the natural order of their stable paths, whatever the kernel names."""
    for kname, majmin, index in (('sda', '8:0', 10), ('sdb', '8:16', 1), ('sdc', '8:32', 2)):
        scsi(fake_host, kname, majmin, '0:0:%d:0' % index, 'Google', 'EphemeralDisk', serial='local-ssd-%d' % index,
             by_id=('scsi-0Google_EphemeralDisk_local-ssd-%d' % index,))
    assert resolved(fake_host, {'instance_store': 'all'}) == [
        ('sdb', '/dev/disk/by-id/scsi-0Google_EphemeralDisk_local-ssd-1'),
        ('sdc', '/dev/disk/by-id/scsi-0Google_EphemeralDisk_local-ssd-2'),
        ('sda', '/dev/disk/by-id/scsi-0Google_EphemeralDisk_local-ssd-10')]


def test_instance_store_on_a_host_without_any(fake_host):
    azure_scsi(fake_host)
    with pytest.raises(cloud.SelectorError, match='instance_store=all matches no disk'):
        resolved(fake_host, {'instance_store': 'all'})


def test_azure_lun_scsi_prefers_the_azure_link(fake_host):
    azure_scsi(fake_host)
    assert resolved(fake_host, {'azure_lun': 2}) == [('sdd', '/dev/disk/azure/data/by-lun/2')]
    assert resolved(fake_host, {'azure_lun': 0}) == [('sdc', '/dev/disk/azure/data/by-lun/0')]
    # the OS disk is LUN 0 of another controller: never a data disk
    with pytest.raises(cloud.SelectorError, match='azure_lun=1 matches no disk'):
        resolved(fake_host, {'azure_lun': 1})


def test_azure_lun_scsi_without_azure_rules_uses_vmbus_and_by_id(fake_host):
    azure_scsi(fake_host, links=False)
    assert resolved(fake_host, {'azure_lun': 2}) == [('sdd', '/dev/disk/by-id/scsi-360022480000000000000000000000020')]


def test_azure_lun_nvme(fake_host):
    azure_nvme(fake_host)
    assert resolved(fake_host, {'azure_lun': 0}) == [('nvme0n2', '/dev/disk/azure/data/by-lun/0')]
    assert resolved(fake_host, {'azure_lun': 1}) == [('nvme0n3', '/dev/disk/by-id/nvme-MSFT_NVMe_Accelerator_v1.0_SN-remote_3')]
    assert [k for k, dummy in resolved(fake_host, {'instance_store': 'all'})] == ['nvme1n1', 'nvme2n1']


def test_nvme_namespace_link_wins_over_the_bare_link_another_namespace_may_hold(fake_host):
    """udev gives the bare nvme-<model>_<serial> link of a multi-namespace controller to the namespace with
    the last event: here namespace 3 holds it too, and only the _3 link names namespace 3 alone."""
    model = 'MSFT NVMe Accelerator v1.0'
    nvme(fake_host, 'nvme0n1', '259:0', 'nvme0', model, 'SN-remote', nsid=1, by_id=())
    nvme(fake_host, 'nvme0n3', '259:2', 'nvme0', model, 'SN-remote', nsid=3,
         by_id=('nvme-MSFT_NVMe_Accelerator_v1.0_SN-remote', 'nvme-MSFT_NVMe_Accelerator_v1.0_SN-remote_3'))
    assert resolved(fake_host, {'azure_lun': 1}) == [('nvme0n3', '/dev/disk/by-id/nvme-MSFT_NVMe_Accelerator_v1.0_SN-remote_3')]


def test_a_single_namespace_controller_keeps_its_bare_link(fake_host):
    """EBS volumes and instance stores are one namespace per controller: the bare link is theirs alone."""
    nvme(fake_host, 'nvme1n1', '259:1', 'nvme1', 'Amazon EC2 NVMe Instance Storage', 'AWS1A',
         by_id=('nvme-Amazon_EC2_NVMe_Instance_Storage_AWS1A', 'nvme-Amazon_EC2_NVMe_Instance_Storage_AWS1A_1'))
    assert resolved(fake_host, {'instance_store': 'all'}) == [
        ('nvme1n1', '/dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWS1A')]


def test_gcp_local_ssd_namespace_1_without_google_rules_gets_its_namespace_link(fake_host):
    nvme(fake_host, 'nvme1n1', '259:1', 'nvme1', 'nvme_card', '', nsid=1, by_id=('nvme-nvme_card', 'nvme-nvme_card_1'))
    nvme(fake_host, 'nvme1n2', '259:2', 'nvme1', 'nvme_card', '', nsid=2, by_id=('nvme-nvme_card_2',))
    assert resolved(fake_host, {'gcp_local_ssd': 0}) == [('nvme1n1', '/dev/disk/by-id/nvme-nvme_card_1')]


def test_gcp_local_ssd(fake_host):
    gcp(fake_host)
    assert resolved(fake_host, {'gcp_local_ssd': 0}) == [('nvme1n1', '/dev/disk/by-id/google-local-nvme-ssd-0')]
    assert resolved(fake_host, {'gcp_local_ssd': 1}) == [('nvme1n2', '/dev/disk/by-id/nvme-nvme_card_2')]
    assert resolved(fake_host, {'gcp_local_ssd': 5}) == [('sdb', '/dev/disk/by-id/scsi-0Google_EphemeralDisk_local-ssd-5')]
    assert [k for k, dummy in resolved(fake_host, {'instance_store': 'all'})] == ['nvme1n1', 'nvme1n2', 'sdb']


def test_a_matched_disk_without_a_by_id_link_is_refused(fake_host):
    nvme(fake_host, 'nvme0n1', '259:0', 'nvme0', 'Amazon EC2 NVMe Instance Storage', 'AWS1')
    with pytest.raises(cloud.SelectorError, match='instance_store=all matches /dev/nvme0n1, which has no /dev/disk/by-id'):
        resolved(fake_host, {'instance_store': 'all'})
