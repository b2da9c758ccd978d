# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import sysfs_block as sb


@pytest.fixture
def host(standard_host):
    return standard_host


@pytest.fixture
def facts(host):
    result, warnings = sb.collect_block_devices(include_loop=True, include_ram=True,
                                                page_size=4096, **host.roots)
    assert warnings == []
    return result


# --------------------------------------------------------------------------- helpers

def test_device_for_path_longest_mount_wins(host):
    roots = dict(proc_root=host.proc, sys_root=host.sys)
    assert sb.device_for_path('/var/lib/cassandra/data/ks', **roots) == 'dm-0'
    assert sb.device_for_path('/var/lib/cassandra', **roots) == 'dm-0'
    assert sb.device_for_path('/var/lib/cassandra2', **roots) == 'sda2'
    assert sb.device_for_path('/boot/grub', **roots) == 'sda1'   # partitions stay partitions
    assert sb.device_for_path('/', **roots) == 'sda2'


def test_device_for_path_shadowed_mount_and_escapes(host):
    host.mount('9:0', '/data\\040dir', 'xfs', '/dev/md0')
    host.mount('8:16', '/boot', 'xfs', '/dev/sdb')      # mounted over /boot later
    roots = dict(proc_root=host.proc, sys_root=host.sys)
    assert sb.device_for_path('/data dir/x', **roots) == 'md0'
    assert sb.device_for_path('/boot/x', **roots) == 'sdb'


def test_device_for_path_not_a_block_device(host):
    with pytest.raises(sb.SysfsBlockError, match='tmpfs.*not a block device'):
        sb.device_for_path('/dev/shm/x', proc_root=host.proc, sys_root=host.sys)


def test_device_for_path_anonymous_dev_falls_back_to_source(host):
    host.mount('0:45', '/btr', 'btrfs', '/dev/sdb')
    assert sb.device_for_path('/btr/sub', proc_root=host.proc, sys_root=host.sys) == 'sdb'


def test_device_for_path_no_mountinfo(tmp_path):
    with pytest.raises(sb.SysfsBlockError, match='cannot read'):
        sb.device_for_path('/', proc_root=str(tmp_path), sys_root=str(tmp_path))


def test_read_block_stat_full_and_short(host):
    st = sb.read_block_stat('sda', sys_root=host.sys)
    assert st['read_ios'] == 1 and st['read_merges'] == 2 and st['read_sectors'] == 3
    assert st['read_ticks'] == 4 and st['write_ios'] == 5 and st['write_sectors'] == 7
    assert st['in_flight'] == 0 and st['io_ticks'] == 9 and st['time_in_queue'] == 10
    assert st['flush_ticks'] == 0
    assert list(st) == list(sb.BLOCK_STAT_FIELDS)
    # partitions live under /sys/class/block too; an 11-field (old kernel) stat
    part = sb.read_block_stat('sda1', sys_root=host.sys)
    assert part['read_sectors'] == 88 and part['write_sectors'] == 176
    assert part['discard_ios'] is None and part['flush_ticks'] is None


def test_read_block_stat_errors(host):
    with pytest.raises(sb.SysfsBlockError, match='no such block device'):
        sb.read_block_stat('sdzz', sys_root=host.sys)
    host.write('sys/block/sdb/stat', '1 2 x\n')
    with pytest.raises(sb.SysfsBlockError, match='malformed'):
        sb.read_block_stat('sdb', sys_root=host.sys)
    host.write('sys/block/sdb/stat', '1 2 3\n')
    with pytest.raises(sb.SysfsBlockError, match='3 fields'):
        sb.read_block_stat('sdb', sys_root=host.sys)


@pytest.mark.parametrize('text, expected', [
    ('[none] mq-deadline kyber bfq', ('none', ['none', 'mq-deadline', 'kyber', 'bfq'])),
    ('none [mq-deadline] kyber bfq', ('mq-deadline', ['none', 'mq-deadline', 'kyber', 'bfq'])),
    ('[none]', ('none', ['none'])),
    ('none', (None, None)),        # legacy bio-based: not configurable
    ('', (None, None)),
    (None, (None, None)),
])
def test_parse_scheduler(text, expected):
    assert sb.parse_scheduler(text) == expected


@pytest.mark.parametrize('io_opt, page, expected', [
    (0, 4096, 128), (None, 4096, 128), (65536, 4096, 128), (131072, 4096, 256),
    (2097152, 4096, 4096), (1048576 * 3, 4096, 6144), (100000, 4096, 192),  # 200000 B -> 48 pages
    (262144, 65536, 512),
])
def test_kernel_default(io_opt, page, expected):
    assert sb.kernel_default_read_ahead_kb(io_opt, page) == expected


def test_normalize_md_uuid():
    assert sb.normalize_md_uuid('a0021927-0e4f-10bf-2c47-dc72ca0b352e') == 'a0021927:0e4f10bf:2c47dc72:ca0b352e'
    assert sb.normalize_md_uuid('A0021927:0E4F10BF:2C47DC72:CA0B352E') == 'a0021927:0e4f10bf:2c47dc72:ca0b352e'
    assert sb.normalize_md_uuid('not-a-uuid') == 'not-a-uuid'
    assert sb.normalize_md_uuid('') is None


@pytest.mark.parametrize('name, expected', [
    ('sda', 'disk'), ('vdb', 'disk'), ('xvdf', 'disk'), ('mmcblk0', 'disk'), ('nvme0n1', 'nvme'),
    ('md0', 'md'), ('md127', 'md'), ('dm-3', 'dm'), ('loop12', 'loop'), ('zram0', 'ram'),
    ('ram15', 'ram'), ('rbd0', 'rbd'), ('sr0', 'other'), ('nbd0', 'other'), ('mdx', 'other'),
])
def test_classify(name, expected):
    assert sb.classify(name) == expected


def test_mountinfo_parsing_optional_fields():
    text = ('36 35 98:0 /mnt1 /mnt/a\\040b rw,noatime master:1 shared:2 - ext3 /dev/root rw\n'
            'garbage line\n'
            '37 35 8:1 / /x rw - xfs /dev/sda1 rw\n')
    mounts = sb.parse_mountinfo(text)
    assert [m['mountpoint'] for m in mounts] == ['/mnt/a b', '/x']
    assert mounts[0]['fstype'] == 'ext3' and mounts[0]['source'] == '/dev/root'
    assert mounts[0]['maj_min'] == '98:0' and mounts[0]['root'] == '/mnt1'


# --------------------------------------------------------------------------- inventory

def test_every_device_has_exactly_the_contract_keys(facts):
    keys = {
        'name', 'path', 'type', 'maj_min', 'removable', 'size_bytes', 'read_ahead_kb',
        'read_ahead_sectors', 'readahead_shared_with', 'scheduler', 'schedulers_available',
        'rotational', 'logical_block_size', 'physical_block_size', 'minimum_io_size',
        'optimal_io_size', 'max_sectors_kb', 'nr_requests', 'kernel_default_read_ahead_kb',
        'read_ahead_drift_kb', 'holders', 'slaves', 'parent', 'md', 'dm', 'model', 'vendor',
        'serial', 'wwn', 'by_id', 'cloud', 'mounts',
    }
    for name, dev in facts.items():
        assert set(dev) == keys, name
        assert dev['name'] == name and dev['path'] == '/dev/' + name
        assert dev['type'] in sb.DEVICE_TYPES


def test_sata_disk(facts):
    sda = facts['sda']
    assert sda['type'] == 'disk' and sda['maj_min'] == '8:0'
    assert sda['removable'] is False and sda['size_bytes'] == 976773168 * 512
    assert sda['read_ahead_kb'] == 128 and sda['read_ahead_sectors'] == 256
    assert sda['readahead_shared_with'] is None and sda['parent'] is None
    assert sda['scheduler'] == 'mq-deadline'
    assert sda['schedulers_available'] == ['none', 'mq-deadline', 'kyber', 'bfq']
    assert sda['rotational'] is True
    assert (sda['logical_block_size'], sda['physical_block_size']) == (512, 4096)
    assert (sda['minimum_io_size'], sda['optimal_io_size']) == (4096, 0)
    assert (sda['max_sectors_kb'], sda['nr_requests']) == (512, 64)
    assert sda['kernel_default_read_ahead_kb'] == 128 and sda['read_ahead_drift_kb'] == 0
    assert sda['model'] == 'Samsung SSD 860' and sda['vendor'] == 'ATA'   # stripped
    assert sda['serial'] == 'S3Z9NB0K123456A'                             # udev fallback
    assert sda['wwn'] == '0x5002538e40a1b2c3'
    assert sda['by_id'] == ['/dev/disk/by-id/ata-Samsung_SSD_860_S3Z9NB0K123456A',
                            '/dev/disk/by-id/wwn-0x5002538e40a1b2c3']
    assert sda['cloud'] is None and sda['md'] is None and sda['dm'] is None
    assert sda['holders'] == [] and sda['slaves'] == []
    assert sda['mounts'] == [
        {'mountpoint': '/boot', 'fstype': 'ext4', 'source': '/dev/sda1', 'partition': 'sda1'},
        {'mountpoint': '/', 'fstype': 'xfs', 'source': '/dev/sda2', 'partition': 'sda2'},
        {'mountpoint': '/srv/bind', 'fstype': 'xfs', 'source': '/dev/sda2', 'partition': 'sda2'},
    ]


def test_partition_shares_parent_readahead(host):
    host.write('sys/block/sda/queue/read_ahead_kb', '64\n')
    facts, dummy = sb.collect_block_devices(page_size=4096, **host.roots)
    part = facts['sda1']
    assert part['type'] == 'partition' and part['parent'] == 'sda'
    assert part['readahead_shared_with'] == 'sda'
    assert part['read_ahead_kb'] == 64 and part['read_ahead_sectors'] == 128
    assert part['read_ahead_drift_kb'] == -64
    assert part['scheduler'] == 'mq-deadline' and part['rotational'] is True
    assert part['maj_min'] == '8:1' and part['size_bytes'] == 1048576 * 512
    assert part['removable'] is False
    assert part['serial'] == 'S3Z9NB0K123456A'
    assert part['by_id'] == ['/dev/disk/by-id/ata-Samsung_SSD_860_S3Z9NB0K123456A-part1']
    assert part['mounts'] == [{'mountpoint': '/boot', 'fstype': 'ext4', 'source': '/dev/sda1',
                               'partition': 'sda1'}]
    assert facts['sda2']['read_ahead_kb'] == 64


def test_nvme_ebs(facts):
    nv = facts['nvme1n1']
    assert nv['type'] == 'nvme' and nv['model'] == 'Amazon Elastic Block Store'
    assert nv['serial'] == 'vol0123456789abcdef1'
    assert nv['cloud'] == {'provider': 'aws', 'ebs_volume_id': 'vol-0123456789abcdef1',
                           'instance_store': False}
    assert nv['wwn'] == 'nvme.1d0f-766f6c30313233-416d617a6f6e-00000001'
    assert nv['scheduler'] == 'none' and nv['schedulers_available'] == ['none', 'mq-deadline', 'kyber']
    assert nv['holders'] == ['md0'] and nv['nr_requests'] == 1023
    assert nv['by_id'][0] == '/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef1'


def test_md_over_two_members(facts):
    md = facts['md0']
    assert md['type'] == 'md'
    assert md['slaves'] == ['nvme1n1', 'nvme2n1'] and md['holders'] == ['dm-0']
    assert md['scheduler'] is None and md['schedulers_available'] is None
    assert md['nr_requests'] is None
    assert md['read_ahead_kb'] == 16 and md['read_ahead_sectors'] == 32
    # 2 x io_opt (1 MiB) = 2048 KiB
    assert md['kernel_default_read_ahead_kb'] == 2048 and md['read_ahead_drift_kb'] == -2032
    # sysfs md/uuid wins over the (different) udev MD_UUID, converted to mdadm's form
    assert md['md'] == {'level': 'raid0', 'chunk_kb': 512, 'raid_disks': 2, 'array_state': 'clean',
                        'metadata_version': '1.2', 'uuid': 'a0021927:0e4f10bf:2c47dc72:ca0b352e',
                        'name': 'db1:data', 'devname': 'data'}
    assert md['mounts'] == []


def test_md_uuid_from_udev_when_sysfs_lacks_it(host):
    os.remove(os.path.join(host.sys, 'block', 'md0', 'md', 'uuid'))
    facts, dummy = sb.collect_block_devices(devices=['md0'], **host.roots)
    assert facts['md0']['md']['uuid'] == 'ffffffff:0e4f10bf:2c47dc72:ca0b352e'


def test_md_identity_from_dev_links_only(facts):
    md = facts['md127']['md']
    assert md['uuid'] == '11111111:22222222:33333333:44444444'
    assert md['devname'] == 'logs' and md['name'] == 'logs'
    assert md['array_state'] == 'inactive' and md['chunk_kb'] == 64 and md['raid_disks'] == 4


def test_dm_over_md_with_legacy_none_scheduler(facts):
    dm = facts['dm-0']
    assert dm['type'] == 'dm' and dm['dm'] == {'name': 'vg0-data', 'uuid': 'LVM-abcdef'}
    assert dm['slaves'] == ['md0'] and dm['holders'] == []
    assert dm['scheduler'] is None and dm['schedulers_available'] is None
    assert dm['read_ahead_kb'] == 4096 and dm['read_ahead_drift_kb'] == 2048
    assert dm['mounts'] == [{'mountpoint': '/var/lib/cassandra', 'fstype': 'xfs',
                             'source': '/dev/mapper/vg0-data', 'partition': None}]


def test_azure_disk(facts):
    assert facts['sdb']['cloud'] == {'provider': 'azure', 'lun': 2, 'scsi_address': '3:0:0:2',
                                     'azure_links': ['scsi1/lun2'], 'disk_type': 'data',
                                     'instance_store': False}
    assert facts['sdb']['vendor'] == 'Msft' and facts['sdb']['model'] == 'Virtual Disk'


def test_ceph_rbd(facts):
    rbd = facts['rbd0']
    assert rbd['type'] == 'rbd'
    assert rbd['cloud'] == {'provider': 'ceph_rbd', 'pool': 'rbd', 'pool_ns': None,
                            'image': 'vol1', 'snap': None}
    assert rbd['kernel_default_read_ahead_kb'] == 128   # 2 x 64 KiB = the floor


def test_missing_and_unreadable_attributes(facts):
    sdc = facts['sdc']
    assert sdc['read_ahead_kb'] is None and sdc['read_ahead_sectors'] is None
    assert sdc['read_ahead_drift_kb'] is None
    assert sdc['rotational'] is None and sdc['optimal_io_size'] is None
    assert sdc['kernel_default_read_ahead_kb'] == 128
    assert sdc['model'] is None and sdc['serial'] is None and sdc['by_id'] == []


def test_ram_devices_have_no_scheduler(facts):
    for name in ('zram0', 'ram0'):
        assert facts[name]['type'] == 'ram'
        assert facts[name]['scheduler'] is None and facts[name]['nr_requests'] is None


def test_loop_devices(facts):
    assert facts['loop0']['type'] == 'loop' and facts['loop0']['read_ahead_kb'] == 2560
    assert facts['loop0']['rotational'] is True
    assert facts['loop0p1']['readahead_shared_with'] == 'loop0'
    assert facts['loop0p1']['read_ahead_kb'] == 2560
    assert 'loop1' not in facts          # no backing file: noise
    assert facts['sr0']['type'] == 'other' and facts['sr0']['removable'] is True


# --------------------------------------------------------------------------- selection

def _names(host, **kwargs):
    facts, warnings = sb.collect_block_devices(**dict(host.roots, **kwargs))
    return sorted(facts), warnings


def test_default_selection_skips_loop_and_ram(host):
    names, dummy = _names(host)
    assert names == ['dm-0', 'md0', 'md127', 'nvme1n1', 'nvme2n1', 'rbd0', 'sda', 'sda1', 'sda2',
                     'sdb', 'sdc', 'sr0']


def test_globs_and_explicit_names(host):
    assert _names(host, devices=['nvme*n1', 'md*'])[0] == ['md0', 'md127', 'nvme1n1', 'nvme2n1']
    assert _names(host, devices=['sd[ab]'])[0] == ['sda', 'sdb']
    assert _names(host, devices=['/dev/sda1'])[0] == ['sda1']
    # explicit names override include_loop / include_ram and the unattached-loop filter
    assert _names(host, devices=['loop1', 'zram0'])[0] == ['loop1', 'zram0']
    # globs do not
    assert _names(host, devices=['loop*'])[0] == []
    assert _names(host, devices=['loop*'], include_loop=True)[0] == ['loop0', 'loop0p1']


def test_glob_matching_nothing_warns(host):
    names, warnings = _names(host, devices=['xvd*', 'sda'])
    assert names == ['sda']
    assert warnings == ["devices: pattern 'xvd*' matched no block device"]


@pytest.mark.parametrize('bad, message', [
    (['sdz'], "no block device named 'sdz'"),
    (['sd[a'], 'unclosed'),
    (['sd[]'], 'empty character class'),
    (['sda]'], 'without'),
    (['/dev/md/data'], 'not a kernel device name'),
    (['sd a'], 'not a kernel device name'),
    ([''], 'empty'),
])
def test_bad_selection(host, bad, message):
    with pytest.raises(sb.SysfsBlockError, match=message):
        sb.collect_block_devices(devices=bad, **host.roots)


def test_empty_sys_block_fails(tmp_path):
    with pytest.raises(sb.SysfsBlockError, match='no block devices found'):
        sb.collect_block_devices(sys_root=str(tmp_path))


# --------------------------------------------------------------------------- every device against its files

def _sysfs_text(path):
    """A sysfs file's text read here with a plain open (not by sysfs_block); None when it cannot be read (missing,
    or a directory like sdc's read_ahead_kb)."""
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def test_every_device_matches_its_sysfs_files(host):
    """Every whole device of the host's sys/block against its own files: readahead, scheduler, available
    schedulers, major:minor. (It compared the machine's real /sys/block; the standard fake host has the layouts a
    kernel shows: SATA with partitions, NVMe, md and dm without a settable scheduler, loop, zram, ram, sr0, rbd,
    and sdc whose read_ahead_kb cannot be read.)"""
    block = os.path.join(host.sys, 'block')
    names = sorted(os.listdir(block))
    assert len(names) >= 10, names
    facts, dummy = sb.collect_block_devices(devices=names, **host.roots)
    assert sorted(n for n, d in facts.items() if d['type'] != 'partition') == names
    for name in names:
        q = os.path.join(block, name, 'queue')
        text = _sysfs_text(os.path.join(q, 'read_ahead_kb'))
        kb = None if text is None else int(text)
        assert facts[name]['read_ahead_kb'] == kb, name
        assert facts[name]['read_ahead_sectors'] == (None if kb is None else 2 * kb), name
        raw = (_sysfs_text(os.path.join(q, 'scheduler')) or '').split()
        current = [s[1:-1] for s in raw if s.startswith('[')]
        assert facts[name]['scheduler'] == (current[0] if current else None), name
        assert facts[name]['schedulers_available'] == ([s.strip('[]') for s in raw] if current else None), name
        assert facts[name]['maj_min'] == _sysfs_text(os.path.join(block, name, 'dev')).strip(), name
