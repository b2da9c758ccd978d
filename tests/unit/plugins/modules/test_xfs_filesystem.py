# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.iotune.storage.plugins.modules import xfs_filesystem as mod
from ansible_collections.iotune.storage.plugins.module_utils import xfs_call
from ansible_collections.iotune.storage.plugins.module_utils import xfs_format
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import fixture
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.module_run import on_fake_host, run_module

BINS = {'mkfs.xfs': '/sbin/mkfs.xfs', 'xfs_info': '/sbin/xfs_info', 'udevadm': None}
MKFS = ['/sbin/mkfs.xfs', '-L', 'data', '-d', 'su=256k,sw=4', '/dev/md127']


@pytest.fixture
def host(fake_host):
    h = fake_host
    h.disk('md127', '9:127', size_bytes=4 << 30)
    h.md_link('data', 'md127')
    h.md_sysfs('md127', 'raid0', 262144, 4)
    return h


def fs(host, check_mode=False, bins=None, **params):
    p = {'device': '/dev/md/data', 'label': 'data', 'su_kb': None, 'sw': None}
    p.update(params)
    warnings = []
    view = host.view()
    obj = xfs_call.XfsFilesystem(p, view, host.run, BINS if bins is None else bins, check_mode=check_mode,
                                 warn=warnings.append)
    return obj, warnings


def after_mkfs(host):
    def side_effect(argv):
        host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0, 'UUID=0b7e-11\nTYPE=xfs\nLABEL=data\n')
        return 0, 'meta-data=...', ''
    return side_effect


def test_creates_aligned_from_md_sysfs(host):
    host.on(MKFS, after_mkfs(host))
    host.on(['/sbin/xfs_info', '/dev/md127'], 0, fixture('xfs', 'xfs_info_md_su256k_sw4.txt'))
    res = fs(host)[0].apply()
    assert host.ran(['/sbin/mkfs.xfs']) == [MKFS]
    assert res['created'] and res['uuid'] == '0b7e-11'
    assert res['expected'] == {'su_kb': 256, 'sw': 4, 'source': 'md'}
    assert res['geometry']['sunit_blocks'] == 64 and res['geometry']['swidth_blocks'] == 256


def test_blkid_probes_once_before_and_once_after_mkfs(host):
    host.on(MKFS, after_mkfs(host))
    host.on(['/sbin/xfs_info', '/dev/md127'], 0, fixture('xfs', 'xfs_info_md_su256k_sw4.txt'))
    fs(host)[0].apply()
    blkid = ['blkid', '-p', '-o', 'export', '/dev/md127']
    assert host.ran(['blkid']) == [blkid, blkid]
    assert host.calls.index(MKFS) == host.calls.index(blkid) + 2      # the signature check, wipefs, mkfs


def test_existing_xfs_is_probed_once(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0, 'UUID=0b7e-11\nTYPE=xfs\nLABEL=data\n')
    host.on(['/sbin/xfs_info', '/dev/md127'], 0, fixture('xfs', 'xfs_info_md_su256k_sw4.txt'))
    fs(host)[0].apply()
    assert len(host.ran(['blkid'])) == 1


def test_created_but_misaligned_fails(host):
    host.on(MKFS, after_mkfs(host))
    host.on(['/sbin/xfs_info', '/dev/md127'], 0, fixture('xfs', 'xfs_info_su64k_sw4.txt'))
    with pytest.raises(mod.FsError, match='geometry does not match the stripe: stripe unit is 64 KiB'):
        fs(host)[0].apply()


def test_existing_matching_xfs_left_alone(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0, 'UUID=0b7e-11\nTYPE=xfs\nLABEL=data\n')
    host.on(['/sbin/xfs_info', '/dev/md127'], 0, fixture('xfs', 'xfs_info_md_su256k_sw4.txt'))
    res = fs(host)[0].apply()
    assert not res['created'] and res['uuid'] == '0b7e-11'
    assert host.ran(['/sbin/mkfs.xfs']) == []


def test_existing_xfs_wrong_label_or_geometry_fails(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0, 'UUID=0b7e-11\nTYPE=xfs\nLABEL=old\n')
    with pytest.raises(mod.FsError, match="labelled 'old', wanted 'data'"):
        fs(host)[0].apply()
    host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0, 'UUID=0b7e-11\nTYPE=xfs\nLABEL=data\n')
    host.on(['/sbin/xfs_info', '/dev/md127'], 0, fixture('xfs', 'xfs_info_su64k_sw4.txt'))
    with pytest.raises(mod.FsError, match='not aligned to the stripe'):
        fs(host)[0].apply()
    assert host.ran(['/sbin/mkfs.xfs']) == []


@pytest.mark.parametrize('probe, reason', [
    ('TYPE=ext4\nUUID=e\n', 'ext4 filesystem signature'),
    ('TYPE=LVM2_member\nUUID=l\n', 'LVM2 physical volume signature'),
    ('PTTYPE=gpt\n', 'gpt partition table'),
])
def test_other_signatures_refused(host, probe, reason):
    host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0, probe)
    with pytest.raises(mod.FsError) as e:
        fs(host)[0].apply()
    assert 'refusing /dev/md/data (/dev/md127): ' + reason in str(e.value)
    assert host.ran(['/sbin/mkfs.xfs']) == []


def test_explicit_stripe_wins(host):
    argv = ['/sbin/mkfs.xfs', '-L', 'data', '-d', 'su=64k,sw=4', '/dev/md127']
    host.on(argv, after_mkfs(host))
    host.on(['/sbin/xfs_info', '/dev/md127'], 0, fixture('xfs', 'xfs_info_su64k_sw4.txt'))
    res = fs(host, su_kb=64, sw=4)[0].apply()
    assert res['expected']['source'] == 'parameters' and res['created']


def test_check_mode_fresh_host(fake_host):
    host = fake_host
    obj, warnings = fs(host, check_mode=True, bins={'mkfs.xfs': None, 'xfs_info': None, 'udevadm': None})
    res = obj.apply()
    assert res['created'] and res['uuid'] is None
    assert 'does not exist yet' in warnings[0]
    assert host.calls == []


def test_check_mode_blank_device_changes_nothing(host):
    res = fs(host, check_mode=True)[0].apply()
    assert res['created'] and res['cmd'] == MKFS
    assert host.ran(['/sbin/mkfs.xfs']) == []


def test_missing_device_fails_outside_check_mode(fake_host):
    with pytest.raises(mod.FsError, match='/dev/md/data does not exist'):
        fs(fake_host)[0].apply()


def test_label_too_long(host):
    with pytest.raises(mod.FsError, match='at most 12 characters'):
        fs(host, label='a' * 13)[0].apply()


def test_array_with_data_but_no_signature_is_refused(host):
    # an array over members that held a filesystem: blkid sees nothing at 0, but the content is not zero
    host.content('md127', {(1 << 20) + 0x438: b'\x53\xef'}, size_bytes=4 << 30)
    with pytest.raises(mod.FsError) as e:
        fs(host)[0].apply()
    assert ('refusing /dev/md/data (/dev/md127): non-zero data at offset 1 MiB (first non-zero byte at 0x100438; '
            'no signature recognised: a filesystem whose partition table was lost?); set allow_data: true') in str(e.value)
    assert host.ran(['/sbin/mkfs.xfs']) == []


def test_allow_data_makes_the_filesystem_over_data(host):
    host.content('md127', {(1 << 20) + 0x438: b'\x53\xef'}, size_bytes=4 << 30)
    host.on(MKFS, after_mkfs(host))
    host.on(['/sbin/xfs_info', '/dev/md127'], 0, fixture('xfs', 'xfs_info_md_su256k_sw4.txt'))
    res = fs(host, allow_data=True)[0].apply()
    assert res['created'] and host.ran(['/sbin/mkfs.xfs']) == [MKFS]


def test_allow_data_never_overrides_a_signature_or_use(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0, 'TYPE=ext4\nUUID=e\n')
    with pytest.raises(mod.FsError, match='ext4 filesystem signature'):
        fs(host, allow_data=True)[0].apply()
    host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 2, '')
    host.mount('9:127', '/srv')
    with pytest.raises(mod.FsError, match='mounted on /srv'):
        fs(host, allow_data=True)[0].apply()
    assert host.ran(['/sbin/mkfs.xfs']) == []


def test_failed_wipefs_probe_is_refused(host):
    host.on(['wipefs', '--no-act', '--json', '/dev/md127'], 1, '', 'wipefs: error: /dev/md127: probing initialization failed')
    with pytest.raises(mod.FsError, match='cannot probe it: wipefs --no-act /dev/md127 failed'):
        fs(host)[0].apply()
    assert host.ran(['/sbin/mkfs.xfs']) == []


def test_partition_of_a_disk_in_use(fake_host):
    host = fake_host
    host.disk('vdk', '254:160', partitions={'vdk1': '254:161', 'vdk2': '254:162'})
    host.mount('254:161', '/mnt/iotune-busy')
    with pytest.raises(mod.FsError, match=r'refusing /dev/vdk2: it is a partition of /dev/vdk, which is in use: mounted on '
                       r'/mnt/iotune-busy \(partition /dev/vdk1\); set allow_shared_disk: true'):
        fs(host, device='/dev/vdk2')[0].apply()
    res = fs(host, check_mode=True, device='/dev/vdk2', allow_shared_disk=True)[0].apply()
    assert res['created'] and host.ran(['/sbin/mkfs.xfs']) == []


def test_where_to_mount_reads_the_mount_point_and_fstab_in_the_same_call(host):
    """The xfs role's mount step needs no stat and no slurp: the module reports both (one round trip)."""
    host.write('etc/fstab', '# c\nUUID=0b7e-11 /srv/old\\040data xfs noatime 0 0\nUUID=0b7e-11 /var/lib/cassandra/ xfs noatime 0 0\n'
                            'UUID=other /srv/x xfs defaults 0 0\n')
    os.makedirs(os.path.join(host.root, 'var/lib/cassandra'))
    view = host.view()
    found = xfs_call.where_to_mount(view, {'uuid': '0b7e-11'}, '/var/lib/cassandra', '/etc/fstab')
    assert found == {'mountpoint_exists': True, 'fstab_elsewhere': ['/srv/old data'], 'mounted_elsewhere': [],
                     'mounted_here': False, 'mounted_as_planned': False}
    # check mode before the filesystem exists: no UUID, nothing elsewhere; a missing mount point
    assert xfs_call.where_to_mount(view, {'uuid': None}, '/srv/new', '/etc/fstab') == {
        'mountpoint_exists': False, 'fstab_elsewhere': [], 'mounted_elsewhere': [], 'mounted_here': False,
        'mounted_as_planned': False}
    assert xfs_call.where_to_mount(view, {'uuid': '0b7e-11'}, None, '/etc/fstab') == {
        'mountpoint_exists': None, 'fstab_elsewhere': [], 'mounted_elsewhere': [], 'mounted_here': False,
        'mounted_as_planned': False}


def test_mounted_here_with_another_fstab_line_is_not_as_planned(host):
    """The role remounts (not mounts) a filesystem mounted on its mount point whose fstab line it rewrites: the
    module tells the two apart (mounted_here), whatever the line says."""
    host.write('etc/fstab', 'UUID=0b7e-11 /var/lib/cassandra xfs %s 0 2\n' % OPTS)
    host.mount('9:127', '/var/lib/cassandra')
    found = xfs_call.where_to_mount(host.view(), {'uuid': '0b7e-11'}, '/var/lib/cassandra', '/etc/fstab',
                                    device='/dev/md/data', options=OPTS)
    assert found['mounted_here'] and not found['mounted_as_planned'], found
    # the planned line: as planned; not mounted: neither
    host.write('etc/fstab', 'UUID=0b7e-11 /var/lib/cassandra xfs %s 0 0\n' % OPTS)
    found = xfs_call.where_to_mount(host.view(), {'uuid': '0b7e-11'}, '/var/lib/cassandra', '/etc/fstab',
                                    device='/dev/md/data', options=OPTS)
    assert found['mounted_here'] and found['mounted_as_planned'], found
    found = xfs_call.where_to_mount(host.view(), {'uuid': '0b7e-11'}, '/srv/elsewhere', '/etc/fstab',
                                    device='/dev/md/data', options=OPTS)
    assert not found['mounted_here'] and not found['mounted_as_planned'], found


def test_a_filesystem_on_another_path_is_never_moved_without_move_from(host):
    # day two: the array's filesystem lives on /var/lib/cassandra; the entry says /var/lib/casandra (a typo)
    host.write('etc/fstab', 'UUID=0b7e-11 /var/lib/cassandra xfs %s 0 0\n' % OPTS)
    host.mount('9:127', '/var/lib/cassandra')
    found = xfs_call.where_to_mount(host.view(), {'uuid': '0b7e-11'}, '/var/lib/casandra', '/etc/fstab',
                                    device='/dev/md/data', options=OPTS)
    assert found['fstab_elsewhere'] == ['/var/lib/cassandra'] and found['mounted_elsewhere'] == ['/var/lib/cassandra']
    assert xfs_call.move_refusal(found, '/var/lib/casandra', None) == (
        'its filesystem is on /var/lib/cassandra (fstab: /var/lib/cassandra; mounted: /var/lib/cassandra), not on '
        'the planned mountpoint /var/lib/casandra; a run never moves a filesystem that holds data: correct '
        'mountpoint (a typo?), or set move_from: /var/lib/cassandra to move it')
    assert 'move_from: /var/lib/cassandra' in xfs_call.move_refusal(found, '/var/lib/casandra', '/srv/other')
    assert xfs_call.move_refusal(found, '/var/lib/casandra', '/var/lib/cassandra') is None
    # mounted by hand on a second path as well: move_from names one of two, still refused
    host.mount('9:127', '/mnt/copy')
    found = xfs_call.where_to_mount(host.view(), {'uuid': '0b7e-11'}, '/srv/new', '/etc/fstab', device='/dev/md/data')
    assert found['mounted_elsewhere'] == ['/mnt/copy', '/var/lib/cassandra']
    assert xfs_call.move_refusal(found, '/srv/new', '/var/lib/cassandra') is not None
    # a bind mount of a directory inside the filesystem is not "elsewhere"
    host.mount('9:127', '/var/lib/kubelet/pods/1/volumes/data', root='/data')
    found = xfs_call.where_to_mount(host.view(), {'uuid': '0b7e-11'}, '/srv/new', '/etc/fstab', device='/dev/md/data')
    assert found['mounted_elsewhere'] == ['/mnt/copy', '/var/lib/cassandra']
    # nothing elsewhere: nothing to refuse
    assert xfs_call.move_refusal({'fstab_elsewhere': [], 'mounted_elsewhere': []}, '/srv/new', None) is None


OPTS = 'noatime,nofail,x-systemd.device-timeout=90s'


@pytest.mark.parametrize('fstab, mounted, expected', [
    # the line the xfs role's mount task writes, and the array mounted there: no mount call needed
    ('UUID=0b7e-11 /var/lib/cassandra xfs %s 0 0\n' % OPTS, True, True),
    # negative controls: each difference means the mount task must run
    ('UUID=0b7e-11 /var/lib/cassandra xfs %s 0 0\n' % OPTS, False, False),                 # not mounted
    ('UUID=0b7e-11 /var/lib/cassandra xfs noatime,nofail 0 0\n', True, False),              # other options
    ('UUID=0b7e-11 /var/lib/cassandra xfs %s 0 2\n' % OPTS, True, False),                   # fsck pass
    ('UUID=0b7e-11 /var/lib/cassandra xfs %s\n' % OPTS, True, False),                       # fields missing
    ('UUID=other /var/lib/cassandra xfs %s 0 0\n' % OPTS, True, False),                     # another filesystem
    ('/dev/md/data /var/lib/cassandra xfs %s 0 0\n' % OPTS, True, False),                   # not by UUID
    ('UUID=0b7e-11 /var/lib/cassandra ext4 %s 0 0\n' % OPTS, True, False),                  # another type
    ('UUID=0b7e-11 /var/lib/cassandra xfs %s 0 0\nUUID=0b7e-11 /var/lib/cassandra xfs %s 0 0\n' % (OPTS, OPTS),
     True, False),                                                                           # two lines
    ('# UUID=0b7e-11 /var/lib/cassandra xfs %s 0 0\n' % OPTS, True, False),                 # commented out
])
def test_mounted_as_planned_only_for_the_exact_line_and_a_live_mount(host, fstab, mounted, expected):
    host.write('etc/fstab', fstab)
    os.makedirs(os.path.join(host.root, 'var/lib/cassandra'))
    if mounted:
        host.mount('9:127', '/var/lib/cassandra')
    found = xfs_call.where_to_mount(host.view(), {'uuid': '0b7e-11'}, '/var/lib/cassandra/', '/etc/fstab',
                                    device='/dev/md/data', options=OPTS)
    assert found['mounted_as_planned'] is expected


def test_mounted_as_planned_needs_this_device_mounted_there(host):
    host.disk('vdz', '254:400')
    host.write('etc/fstab', 'UUID=0b7e-11 /var/lib/cassandra xfs %s 0 0\n' % OPTS)
    host.mount('254:400', '/var/lib/cassandra')         # something else is mounted there
    assert xfs_call.where_to_mount(host.view(), {'uuid': '0b7e-11'}, '/var/lib/cassandra', '/etc/fstab',
                                   device='/dev/md/data', options=OPTS)['mounted_as_planned'] is False
    assert xfs_call.where_to_mount(host.view(), {'uuid': '0b7e-11'}, '/var/lib/cassandra', '/etc/fstab',
                                   device='/dev/md/data', options=None)['mounted_as_planned'] is False


# ---- main(): the argument spec, exit_json and fail_json, run the way Ansible runs the module ---------------

@pytest.fixture
def main_on_host(host, monkeypatch):
    on_fake_host(monkeypatch, mod, host, dict(BINS, blkid='blkid', wipefs='wipefs'))
    host.write('etc/fstab', 'LABEL=rootfs / ext4 errors=remount-ro 0 1\n')
    return host


def test_main_creates_aligned_and_reports_where_to_mount(main_on_host, capsys):
    main_on_host.on(MKFS, after_mkfs(main_on_host))
    main_on_host.on(['/sbin/xfs_info', '/dev/md127'], 0, fixture('xfs', 'xfs_info_md_su256k_sw4.txt'))
    code, result = run_module(mod, {'device': '/dev/md/data', 'label': 'data', 'mountpoint': '/var/lib/cassandra',
                                    'mount_options': 'noatime,nofail,x-systemd.device-timeout=90s'}, capsys, diff=True)
    assert code == 0 and result['changed'] is True, result
    assert result['uuid'] == '0b7e-11' and result['expected']['su_kb'] == 256
    assert result['mountpoint_exists'] is False and result['mounted_as_planned'] is False
    # the diff shows the mkfs command line it ran and the options of the fstab line (no discard policy: none shown)
    assert result['diff'] == {'before': {}, 'after': {'fstype': 'xfs', 'label': 'data', 'su_kb': 256, 'sw': 4,
                                                      'mkfs': '/sbin/mkfs.xfs -L data -d su=256k,sw=4 /dev/md127',
                                                      'mount_options': 'noatime,nofail,x-systemd.device-timeout=90s'}}
    assert result['discard'] == {'policy': None, 'why': 'the plan sets no discard policy', 'classes': {},
                                 'fstrim_timer': False}


def test_main_check_mode_runs_no_mkfs(main_on_host, capsys):
    code, result = run_module(mod, {'device': '/dev/md/data', 'label': 'data'}, capsys, check_mode=True)
    assert code == 0 and result['changed'] is True, result
    assert main_on_host.ran(['/sbin/mkfs.xfs']) == []


def test_main_fails_on_a_signature(main_on_host, capsys):
    main_on_host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0, 'UUID=1\nTYPE=ext4\n')
    code, result = run_module(mod, {'device': '/dev/md/data', 'label': 'data'}, capsys)
    assert code == 1 and result['failed'] is True and 'ext4' in result['msg'], result['msg']
    assert result['device'] == '/dev/md/data' and main_on_host.ran(['/sbin/mkfs.xfs']) == []


@pytest.mark.parametrize('args, fragment', [
    ({'device': '/dev/md/data', 'su_kb': 256}, 'parameters are required together: su_kb, sw'),
    ({'device': '/dev/md/data', 'move_from': '/srv/old'}, 'move_from needs mountpoint'),
    ({'label': 'data'}, 'missing required arguments: device'),
])
def test_main_argument_spec_refuses(main_on_host, capsys, args, fragment):
    code, result = run_module(mod, args, capsys)
    assert code == 1 and fragment in result['msg'], result['msg']
    assert main_on_host.calls == []


# --- mkfs_marker: an interrupted mkfs of this module is made again, nothing else (issue 23, crash safety) ---------
MD_UUID = '112f3710-0d6b-a5f6-cd81-8acf309422ef'
HALF_MADE = 'e4e59f52-e8a9-40a4-a3b4-d1a0d117547c'
NEW = '0b7e0000-0000-4000-8000-000000000011'


@pytest.fixture
def marked(host, tmp_path, monkeypatch):
    """md127 with its kernel UUID; mkfs.xfs given NEW as the filesystem UUID; the marker's path."""
    host.write('sys/class/block/md127/md/uuid', MD_UUID + '\n')
    monkeypatch.setattr(xfs_format.uuid_mod, 'uuid4', lambda: NEW)
    host.on(['/sbin/xfs_info', '/dev/md127'], 0, fixture('xfs', 'xfs_info_md_su256k_sw4.txt'))
    return tmp_path / 'state' / 'mkfs-pending'


def half_made(host, in_progress=True):
    """An XFS superblock at 0 whose sb_inprogress byte (offset 126) says mkfs did not finish."""
    host.content('md127', {0: b'XFSB', 126: b'\x01' if in_progress else b'\x00', 4096 * 16: b'\x01'}, size_bytes=4 << 30)
    host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0, 'UUID=%s\nTYPE=xfs\nLABEL=data\n' % HALF_MADE)


def mkfs_with(force):
    tail = ['-L', 'data', '-d', 'su=256k,sw=4', '-m', 'uuid=%s' % NEW, '/dev/md127']
    return ['/sbin/mkfs.xfs'] + (['-f'] if force else []) + tail


def test_the_marker_names_the_array_and_the_new_uuid_while_mkfs_runs(host, marked):
    seen = []

    def mkfs(argv):
        seen.append(json.loads(marked.read_text()))
        return after_mkfs(host)(argv)
    host.on(mkfs_with(force=False), mkfs)
    res = fs(host, mkfs_marker=str(marked))[0].apply()
    assert res['created'] and host.ran(['/sbin/mkfs.xfs']) == [mkfs_with(force=False)]
    assert seen == [{'device': '/dev/md127', 'md_uuid': MD_UUID, 'fs_uuid': NEW}]
    assert not marked.exists()                      # removed once mkfs finished


def test_an_interrupted_mkfs_of_this_array_is_made_again(host, marked):
    half_made(host)
    marked.parent.mkdir()
    marked.write_text(json.dumps({'device': '/dev/md126', 'md_uuid': MD_UUID, 'fs_uuid': HALF_MADE}))
    check, dummy = fs(host, check_mode=True, mkfs_marker=str(marked))
    assert check.apply()['created'] and host.ran(['/sbin/mkfs.xfs']) == [] and marked.exists()
    host.on(mkfs_with(force=True), after_mkfs(host))
    res = fs(host, mkfs_marker=str(marked))[0].apply()
    assert res['created'] and host.ran(['/sbin/mkfs.xfs']) == [mkfs_with(force=True)]
    assert not marked.exists()


def test_blocks_written_before_the_superblock_are_made_again_with_the_marker_only(host, marked):
    host.content('md127', {4096 * 16: b'\x01'}, size_bytes=4 << 30)      # no signature, not blank
    with pytest.raises(mod.FsError) as e:
        fs(host, mkfs_marker=str(marked))[0].apply()
    assert 'non-zero data' in str(e.value) and host.ran(['/sbin/mkfs.xfs']) == []
    marked.parent.mkdir()
    marked.write_text(json.dumps({'device': '/dev/md127', 'md_uuid': MD_UUID, 'fs_uuid': HALF_MADE}))
    host.on(mkfs_with(force=True), after_mkfs(host))
    assert fs(host, mkfs_marker=str(marked))[0].apply()['created']


@pytest.mark.parametrize('marker', [None, {'md_uuid': 'another-array', 'fs_uuid': HALF_MADE},
                                    {'md_uuid': MD_UUID, 'fs_uuid': 'another-filesystem'}])
def test_a_half_made_xfs_the_marker_does_not_name_is_refused_before_any_change(host, marked, marker):
    # an xfs_admin or xfs_repair of a filesystem with data may leave sb_inprogress too: never made again
    half_made(host)
    if marker is not None:
        marked.parent.mkdir()
        marked.write_text(json.dumps(marker))
    with pytest.raises(mod.FsError) as e:
        fs(host, mkfs_marker=str(marked))[0].apply()
    assert ('holds an XFS filesystem (UUID %s) whose superblock says an offline operation did not finish '
            '(sb_inprogress)' % HALF_MADE) in str(e.value)
    assert host.ran(['/sbin/mkfs.xfs']) == []


def test_a_complete_xfs_left_by_a_crash_after_mkfs_is_kept_and_its_marker_goes(host, marked):
    half_made(host, in_progress=False)
    marked.parent.mkdir()
    marked.write_text(json.dumps({'device': '/dev/md127', 'md_uuid': MD_UUID, 'fs_uuid': HALF_MADE}))
    res = fs(host, mkfs_marker=str(marked))[0].apply()
    assert not res['created'] and res['uuid'] == HALF_MADE and host.ran(['/sbin/mkfs.xfs']) == []
    assert not marked.exists()


def test_the_marker_never_covers_another_signature_on_its_array(host, marked):
    # the array of the marker, but something else made a filesystem on it since: refused, never made again
    host.content('md127', {0x438: b'\x53\xef'}, size_bytes=4 << 30)
    host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0, 'UUID=2c6c-e4\nTYPE=ext4\n')
    marked.parent.mkdir()
    marked.write_text(json.dumps({'device': '/dev/md127', 'md_uuid': MD_UUID, 'fs_uuid': HALF_MADE}))
    with pytest.raises(mod.FsError) as e:
        fs(host, mkfs_marker=str(marked))[0].apply()
    assert 'ext4' in str(e.value) and host.ran(['/sbin/mkfs.xfs']) == []
    assert marked.exists()
