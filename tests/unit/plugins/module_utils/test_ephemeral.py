# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The boot program of ephemeral arrays (module_utils/ephemeral.py) against the fake host: its decisions."""

from __future__ import annotations

import io
import json
import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import ephemeral as eph
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import fixture

MDADM = '/sbin/mdadm'
MKFS = ['/sbin/mkfs.xfs', '-L', 'data', '-d', 'su=256k,sw=4', '/dev/md127']
UUID = '223bf324:4839b32a:611abc08:26fcd6e8'
DISKS = [('vdb', '254:16'), ('vdc', '254:32'), ('vdd', '254:48'), ('vde', '254:64')]
BY_ID = ['/dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWS%d' % i for i in range(4)]
CREATE = [MDADM, '--create', '/dev/md/data', '--run', '--level=0', '--raid-devices=4', '--chunk=256',
          '--metadata=1.2', '--name=data', '--homehost=any', '/dev/vdb', '/dev/vdc', '/dev/vdd', '/dev/vde']
BINS = {'mdadm': MDADM, 'mkfs.xfs': '/sbin/mkfs.xfs', 'xfs_info': '/sbin/xfs_info', 'udevadm': '/bin/udevadm',
        'blkid': 'blkid', 'wipefs': 'wipefs', 'blockdev': None, 'systemctl': '/bin/systemctl',
        'mount': '/bin/mount', 'umount': '/bin/umount'}
OLD_LINE = 'ARRAY /dev/md/data metadata=1.2 UUID=aaaaaaaa:bbbbbbbb:cccccccc:dddddddd name=any:data'
NEW_LINE = 'ARRAY /dev/md/data metadata=1.2 UUID=%s name=any:data' % UUID
FSTAB_OLD = ('UUID=11111111-2222-3333-4444-555555555555 / ext4 errors=remount-ro 0 1\n'
             'UUID=0ld0-fs /var/lib/cassandra xfs noatime,nofail,x-systemd.device-timeout=90s 0 0\n')
XFS_UUID = '0b7e1111-2222-3333-4444-555555555555'


@pytest.fixture
def host(fake_host, tmp_path):
    h = fake_host
    for i, (kname, mm) in enumerate(DISKS):
        h.disk(kname, mm, by_id='nvme-Amazon_EC2_NVMe_Instance_Storage_AWS%d' % i)
    h.etc = tmp_path / 'etc'
    h.etc.mkdir()
    (h.etc / 'mdadm.conf').write_text('HOMEHOST <system>\n%s\n' % OLD_LINE)
    (h.etc / 'fstab').write_text(FSTAB_OLD)
    h.on(['/bin/systemctl', 'daemon-reload'], 0)
    h.on(['/bin/systemctl', 'is-enabled', 'cassandra.service'], 0, 'enabled\n')
    h.on(['/bin/systemctl', 'is-enabled', 'other.service'], 1, 'disabled\n')
    h.on(['/bin/systemctl', 'start', '--no-block', 'var-lib-cassandra.mount', 'cassandra.service'], 0)
    return h


def spec(host, **kw):
    data = {'name': 'data', 'devices': BY_ID, 'chunk_kb': 256, 'metadata': '1.2', 'homehost': 'any',
            'label': 'data', 'mountpoint': '/var/lib/cassandra',
            'mount_options': 'noatime,nofail,x-systemd.device-timeout=90s',
            'conf_path': str(host.etc / 'mdadm.conf'), 'fstab': str(host.etc / 'fstab'), 'device_wait': 5,
            'mount_unit': 'var-lib-cassandra.mount', 'services': ['cassandra.service', 'other.service']}
    data.update(kw)
    path = host.etc / 'data.json'
    path.write_text(json.dumps(data))
    return str(path)


def running(host):
    host.disk('md127', '9:127', size_bytes=4 << 30)
    host.md_link('data', 'md127')
    host.md_sysfs('md127', 'raid0', 262144, 4)
    host.on([MDADM, '--detail', '--export', '/dev/md/data'], 0, fixture('mdadm', 'detail_export_raid0_4.txt'))
    host.on([MDADM, '--detail', '/dev/md/data'], 0, fixture('mdadm', 'detail_raid0_4.txt'))


def has_xfs(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0, 'UUID=%s\nTYPE=xfs\nLABEL=data\n' % XFS_UUID)
    host.on(['/sbin/xfs_info', '/dev/md127'], 0, fixture('xfs', 'xfs_info_md_su256k_sw4.txt'))


def blank_disks_create(host):
    host.on(CREATE, lambda argv: (running(host), (0, '', 'mdadm: array /dev/md/data started.\n'))[1])
    host.on(MKFS, lambda argv: (has_xfs(host), (0, 'meta-data=...', ''))[1])


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def bring_back(host, path, check_mode=False):
    out = io.StringIO()
    log = eph.Log('data', stream=out, journal=True)
    clock = Clock()
    rc = eph.bring_back(path, log, check_mode=check_mode, view=host.view(), run=host.run, bins=BINS,
                        sleep=clock.sleep, clock=clock)
    return rc, out.getvalue()


WRITES = ([MDADM, '--create'], [MDADM, '--assemble'], ['/sbin/mkfs.xfs'], ['wipefs', '--all'], ['/bin/mount'],
          ['/bin/systemctl'])


def writes(host):
    return [c for prefix in WRITES for c in host.ran(prefix)]


def test_every_member_blank_recreates_array_filesystem_conf_and_fstab(host):
    blank_disks_create(host)
    rc, out = bring_back(host, spec(host))
    assert rc == 0, out
    assert host.ran([MDADM, '--create']) == [CREATE]
    assert host.ran(['/sbin/mkfs.xfs']) == [MKFS]
    # each member was probed (blkid and wipefs) before the create; the new md device before mkfs
    for kname, dummy in DISKS:
        assert host.calls.index(['wipefs', '--no-act', '--json', '/dev/%s' % kname]) < host.calls.index(CREATE)
    assert host.calls.index(['wipefs', '--no-act', '--json', '/dev/md127']) < host.calls.index(MKFS)
    conf = (host.etc / 'mdadm.conf').read_text()
    assert NEW_LINE in conf.splitlines() and OLD_LINE not in conf and 'HOMEHOST <system>' in conf
    fstab = (host.etc / 'fstab').read_text().splitlines()
    assert fstab[1] == 'UUID=%s /var/lib/cassandra xfs noatime,nofail,x-systemd.device-timeout=90s 0 0' % XFS_UUID
    assert fstab[0] == FSTAB_OLD.splitlines()[0]
    # reloaded after the fstab change, then the mount and the enabled services (only) get start jobs
    assert host.ran(['/bin/systemctl']) == [
        ['/bin/systemctl', 'daemon-reload'], ['/bin/systemctl', 'is-enabled', 'cassandra.service'],
        ['/bin/systemctl', 'is-enabled', 'other.service'],
        ['/bin/systemctl', 'start', '--no-block', 'var-lib-cassandra.mount', 'cassandra.service']]
    assert host.calls.index(['/bin/systemctl', 'daemon-reload']) > host.calls.index(MKFS)
    assert '<6>array data: every member is blank' in out and 'filesystem created (UUID %s)' % XFS_UUID in out


def test_the_profiles_mkfs_discard_false_recreates_the_filesystem_with_minus_k(host):
    """mkfs: {discard: false} (the spec's mkfs_discard, as xfs_filesystem's option): mkfs.xfs -K at a re-creation."""
    nodiscard = MKFS[:1] + ['-K'] + MKFS[1:]
    host.on(CREATE, lambda argv: (running(host), (0, '', 'mdadm: array /dev/md/data started.\n'))[1])
    host.on(nodiscard, lambda argv: (has_xfs(host), (0, 'meta-data=...', ''))[1])
    rc, out = bring_back(host, spec(host, mkfs_discard=False))
    assert rc == 0, out
    assert host.ran(['/sbin/mkfs.xfs']) == [nodiscard]


def test_a_spec_with_mkfs_discard_true_or_without_it_discards(host):
    # negative control: only false adds -K (true, and a spec an earlier release wrote, keep mkfs.xfs's default)
    blank_disks_create(host)
    rc, out = bring_back(host, spec(host, mkfs_discard=True))
    assert rc == 0, out
    assert host.ran(['/sbin/mkfs.xfs']) == [MKFS]


def test_a_member_with_a_filesystem_is_refused_and_nothing_is_written(host):
    blank_disks_create(host)
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdd'], 0, 'UUID=5eed\nLABEL=probe\nTYPE=xfs\n')
    rc, out = bring_back(host, spec(host))
    assert rc == 1
    assert writes(host) == []
    assert (host.etc / 'fstab').read_text() == FSTAB_OLD
    assert OLD_LINE in (host.etc / 'mdadm.conf').read_text()
    assert ('<3>refusing to bring back array data: array data not created: refusing %s (/dev/vdd): xfs filesystem '
            'signature (UUID 5eed, LABEL probe). The boot program never wipes anything' % BY_ID[2]) in out
    assert 'wipe_devices' not in out


def test_a_member_with_data_but_no_signature_is_refused(host):
    blank_disks_create(host)
    host.content('vdc', {(1 << 20) + 0x438: b'\x53\xef'})
    rc, out = bring_back(host, spec(host))
    assert rc == 1 and writes(host) == []
    assert 'refusing %s (/dev/vdc): non-zero data at offset 1 MiB' % BY_ID[1] in out
    assert 'wipe_devices' not in out and 'The boot program never wipes anything' in out


def test_a_mounted_member_is_refused(host):
    blank_disks_create(host)
    host.mount('254:64', '/mnt/scratch')
    rc, out = bring_back(host, spec(host))
    assert rc == 1 and writes(host) == []
    assert 'refusing %s (/dev/vde): mounted on /mnt/scratch' % BY_ID[3] in out


def test_a_missing_member_is_waited_for_then_refused(host):
    blank_disks_create(host)
    os.unlink(os.path.join(host.dev, 'disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWS3'))
    rc, out = bring_back(host, spec(host, device_wait=5))
    assert rc == 1 and writes(host) == []
    assert '%s of array data is missing after 5s' % BY_ID[3] in out
    assert host.ran(['/bin/udevadm', 'settle'])


def test_members_of_other_sizes_are_refused(host, tmp_path):
    blank_disks_create(host)
    host.write('sys/class/block/vdb/size', '%d\n' % (4 << 21))
    rc, out = bring_back(host, spec(host))
    assert rc == 1 and writes(host) == []
    assert 'member sizes differ too much' in out


def test_an_ordinary_reboot_leaves_the_running_array_alone(host):
    running(host)
    has_xfs(host)
    for kname, mm in DISKS:
        host.write('sys/class/block/%s/holders/md127' % kname, '')
    (host.etc / 'mdadm.conf').write_text('%s\n' % NEW_LINE)
    (host.etc / 'fstab').write_text(FSTAB_OLD.replace('0ld0-fs', XFS_UUID))
    rc, out = bring_back(host, spec(host))
    assert rc == 0, out
    assert writes(host) == []
    assert (host.etc / 'mdadm.conf').read_text() == '%s\n' % NEW_LINE
    assert 'array data: running; filesystem present' in out and 'mdadm.conf unchanged; fstab unchanged' in out


def test_members_with_its_superblocks_are_assembled_not_created(host):
    for kname, dummy in DISKS:
        host.on([MDADM, '--examine', '--export', '/dev/%s' % kname], 0, fixture('mdadm', 'examine_export_vdb.txt'))
        role = fixture('mdadm', 'examine_vdb.txt').replace('Active device 0', 'Active device %d' % 'bcde'.index(kname[-1]))
        host.on([MDADM, '--examine', '/dev/%s' % kname], 0, role)
    assemble = [MDADM, '--assemble', '/dev/md/data', '--uuid=%s' % UUID, '/dev/vdb', '/dev/vdc', '/dev/vdd', '/dev/vde']
    host.on(assemble, lambda argv: (running(host), has_xfs(host), (0, '', ''))[2])
    rc, out = bring_back(host, spec(host))
    assert rc == 0, out
    assert host.ran([MDADM, '--assemble']) == [assemble]
    assert host.ran([MDADM, '--create']) == [] and host.ran(['/sbin/mkfs.xfs']) == []
    assert 'array data: assembled; filesystem present' in out
    assert (host.etc / 'fstab').read_text() == FSTAB_OLD and host.ran(['/bin/systemctl']) == []


def test_an_existing_array_without_its_filesystem_is_not_formatted(host):
    running(host)
    for kname, mm in DISKS:
        host.write('sys/class/block/%s/holders/md127' % kname, '')
    rc, out = bring_back(host, spec(host))
    assert rc == 1
    assert host.ran(['/sbin/mkfs.xfs']) == [] and host.ran(['/bin/systemctl']) == []
    assert 'was already there (not created now) but carries no XFS filesystem' in out
    assert (host.etc / 'fstab').read_text() == FSTAB_OLD


def test_an_existing_array_with_another_label_is_refused(host):
    running(host)
    host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0, 'UUID=1\nTYPE=xfs\nLABEL=other\n')
    for kname, mm in DISKS:
        host.write('sys/class/block/%s/holders/md127' % kname, '')
    rc, out = bring_back(host, spec(host))
    assert rc == 1 and writes(host) == []
    assert "labelled 'other', wanted 'data'" in out


def test_check_mode_predicts_and_writes_nothing(host):
    blank_disks_create(host)
    rc, out = bring_back(host, spec(host), check_mode=True)
    assert rc == 0, out
    assert writes(host) == []
    assert (host.etc / 'fstab').read_text() == FSTAB_OLD
    assert OLD_LINE in (host.etc / 'mdadm.conf').read_text()
    assert 'would create RAID0 /dev/md/data' in out and '(check mode: nothing written)' in out


def test_owner_and_mode_of_the_new_root_are_set_through_a_private_mount(host, tmp_path):
    blank_disks_create(host)
    host.on(['/bin/mount'], 0)
    mounts = []

    def mount(argv):
        mounts.append(argv)
        return 0, '', ''
    real_run = host.run

    def run(argv, **kw):
        if argv[0] in ('/bin/mount', '/bin/umount'):
            return mount(argv)
        return real_run(argv, **kw)
    bins = dict(BINS, mount_dir=str(tmp_path))
    path = spec(host, owner=str(os.getuid()), group=str(os.getgid()), mode='0750')
    stat_seen = []
    real_rmdir = os.rmdir

    def rmdir(p):
        stat_seen.append(oct(os.stat(p).st_mode & 0o777))
        real_rmdir(p)
    eph.os.rmdir = rmdir
    try:
        rc = eph.bring_back(path, eph.Log('data', stream=io.StringIO()), view=host.view(), run=run, bins=bins,
                            sleep=lambda s: None)
    finally:
        eph.os.rmdir = real_rmdir
    assert rc == 0
    assert [m[0] for m in mounts] == ['/bin/mount', '/bin/umount']
    assert mounts[0][:4] == ['/bin/mount', '-t', 'xfs', '/dev/md127'] and mounts[1][1] == mounts[0][4]
    assert stat_seen == ['0o750']


def test_an_unknown_owner_is_refused_before_anything_is_mounted(host):
    blank_disks_create(host)
    rc, out = bring_back(host, spec(host, owner='no-such-user-iotune'))
    assert rc == 1 and host.ran(['/bin/mount']) == []
    assert 'owner no-such-user-iotune does not exist on this host' in out


def test_a_bad_spec_is_refused(host):
    path = host.etc / 'bad.json'
    path.write_text(json.dumps({'name': 'data'}))
    rc, out = bring_back(host, str(path))
    assert rc == 1 and host.calls == []
    assert 'lacks devices, chunk_kb, label, mountpoint, mount_options, conf_path' in out


def test_main_reads_specs_by_name_and_returns_the_worst_code(monkeypatch, tmp_path):
    seen = []
    monkeypatch.setattr(eph, 'bring_back', lambda path, log, check_mode=False: seen.append((path, check_mode)) or
                        (1 if 'bad' in path else 0))
    assert eph.main(['--check', 'data', str(tmp_path / 'bad.json')]) == 1
    assert seen == [('/etc/iotune-storage/ephemeral/data.json', True), (str(tmp_path / 'bad.json'), True)]
    assert eph.main([]) == 2


# --- members by cloud selector: resolved again at boot ------------------------------------------------------

def aws_host(fake_host, tmp_path):
    from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.test_cloud import aws_nitro
    h = aws_nitro(fake_host)
    h.etc = tmp_path / 'etc'
    h.etc.mkdir()
    (h.etc / 'mdadm.conf').write_text('%s\n' % OLD_LINE)
    (h.etc / 'fstab').write_text(FSTAB_OLD)
    return h


OLD_STORE = ['/dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWSOLD%d' % i for i in (0, 1)]
NEW_STORE = ['/dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWS2E0E1B0C%dF4A00000' % i for i in (3, 4)]


def test_instance_store_selector_is_resolved_again_at_boot(fake_host, tmp_path):
    """After a stop/start an AWS instance store comes back on other disks with other serials: the by-id paths of
    the tune run are gone, the selector finds the new ones."""
    host = aws_host(fake_host, tmp_path)
    create = [MDADM, '--create', '/dev/md/data', '--run', '--level=0', '--raid-devices=2', '--chunk=256',
              '--metadata=1.2', '--name=data', '--homehost=any', '/dev/nvme3n1', '/dev/nvme4n1']
    host.on(create, 1, '', 'mdadm: stand-in failure')
    rc, out = bring_back(host, spec(host, devices=OLD_STORE, members=[{'instance_store': 'all', 'count': 2}]))
    assert host.ran([MDADM, '--create']) == [create]
    assert 'its member selectors resolve to %s (at the tune run: %s)' % (', '.join(NEW_STORE), ', '.join(OLD_STORE)) in out
    assert rc == 1 and 'mdadm --create /dev/md/data failed' in out


def test_a_selection_of_another_size_is_refused(fake_host, tmp_path):
    host = aws_host(fake_host, tmp_path)
    rc, out = bring_back(host, spec(host, devices=OLD_STORE + ['/dev/x'], members=[{'instance_store': 'all', 'count': None}]))
    assert rc == 1 and writes(host) == []
    assert 'now resolve to 2 disks' in out and 'the array has 3' in out
    # NVMe namespaces appear one by one: a short selection is waited for (then udev settled again) first
    assert len(host.ran(['/bin/udevadm', 'settle'])) == 2


def test_a_selector_that_matches_nothing_is_refused_after_the_wait(fake_host, tmp_path):
    host = aws_host(fake_host, tmp_path)
    rc, out = bring_back(host, spec(host, devices=['/dev/a', '/dev/b', '/dev/c'],
                                    members=[{'instance_store': 'all', 'count': 3}]))
    assert rc == 1 and writes(host) == []
    assert 'instance_store=all (count 3) matches 2 disks' in out and '(waited 5s)' in out


def test_an_fstab_line_it_did_not_write_is_left_alone(host):
    """module_utils/fstab.py refuses to rewrite a LABEL= line; the boot program reports it as a refusal."""
    blank_disks_create(host)
    text = FSTAB_OLD.splitlines()[0] + '\nLABEL=data /var/lib/cassandra xfs noatime 0 0\n'
    (host.etc / 'fstab').write_text(text)
    rc, out = bring_back(host, spec(host))
    assert rc == 1
    assert (host.etc / 'fstab').read_text() == text
    assert 'the fstab line of /var/lib/cassandra mounts LABEL=data, not a UUID; it is left alone' in out
