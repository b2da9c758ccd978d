# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Lab VM checks for the raid0 and xfs roles (cassandra profile) and the refusals.

Assumes: array ``data`` on lab_disks[0:4], chunk 256 KiB, XFS label ``data`` on /var/lib/cassandra;
lab_disks[4:9] prepared by prepare_refusals.yml (XFS + probe file, LVM2 PV, GPT, ext4 at 1 MiB behind a lost
partition table + probe file, two partitions of which the first is mounted on /mnt/iotune-busy).
Reboot checks need side_effect.yml: it writes reboot-probe.bin on the array plus its checksum, then reboots.
"""

from __future__ import annotations

import re

import pytest

from conftest import initramfs_file

try:
    from testinfra.modules.ansible import AnsibleException
except ImportError:  # pragma: no cover - only when testinfra is missing
    AnsibleException = Exception

MOUNTPOINT = '/var/lib/cassandra'
MD = '/dev/md/data'
CHUNK_KB = 256
PROBE_DIR = '/var/tmp/iotune-probe'
# written by side_effect.yml right before it reboots the VM
REBOOT_FILE = MOUNTPOINT + '/reboot-probe.bin'
REBOOT_SUM = PROBE_DIR + '/reboot.sha256'


@pytest.fixture(scope='module')
def lab_disks(host):
    return host.ansible.get_variables()['lab_disks']


def realpath(host, path):
    return host.check_output('readlink -f %s', path)


def detail_export(host):
    out = host.check_output('mdadm --detail --export %s', MD)
    return dict(line.split('=', 1) for line in out.splitlines() if '=' in line)


def test_array_is_raid0_over_the_first_four_disks(host, lab_disks):
    detail = host.check_output('mdadm --detail %s', MD)
    assert re.search(r'Raid Level : raid0$', detail, re.M)
    assert re.search(r'Raid Devices : 4$', detail, re.M)
    assert re.search(r'Chunk Size : %dK$' % CHUNK_KB, detail, re.M)
    members = sorted(re.findall(r'active sync\s+(/dev/\S+)$', detail, re.M))
    wanted = sorted(realpath(host, d['by_id']) for d in lab_disks[0:4])
    assert members == wanted
    # homehost "any" (mdadm's wildcard): the array is local on every host, see docs/raid0.md
    assert detail_export(host)['MD_NAME'] == 'any:data'


def test_xfs_is_aligned_to_the_stripe(host):
    info = host.check_output('xfs_info %s', MOUNTPOINT)
    data = info[info.index('data '):]
    bsize = int(re.search(r'bsize=(\d+)', data).group(1))
    sunit = int(re.search(r'sunit=(\d+)', data).group(1))
    swidth = int(re.search(r'swidth=(\d+)', data).group(1))
    assert sunit * bsize == CHUNK_KB * 1024          # su=256k
    assert swidth // sunit == 4 and swidth % sunit == 0   # sw=4
    assert host.check_output('blkid -o value -s LABEL %s', MD) == 'data'


def proc_mounts_options(host):
    """The options /proc/mounts shows for MOUNTPOINT (the mount's and XFS's own: sunit=, swidth=, discard)."""
    lines = [line.split() for line in host.file('/proc/mounts').content_string.splitlines()]
    ours = [fields for fields in lines if len(fields) > 3 and fields[1] == MOUNTPOINT]
    assert len(ours) == 1, ours
    return ours[0][3].split(',')


def test_mounted_stripe_is_the_arrays(host):
    """The audit's stripe comparison (area filesystem) reads these: 256 KiB x 4 members in 512-byte sectors."""
    options = proc_mounts_options(host)
    assert 'sunit=%d' % (CHUNK_KB * 2) in options and 'swidth=%d' % (CHUNK_KB * 2 * 4) in options, options


def test_discard_policy_is_the_weekly_timer(host):
    """cassandra's discard_by_class gives every class of the lab's members (virtual, nvme, ebs) fstrim_timer: no
    online discard on the mount nor in fstab, and fstrim.timer enabled and active (docs/xfs.md, "Discard")."""
    assert 'discard' not in proc_mounts_options(host)
    fstab = [line.split() for line in host.file('/etc/fstab').content_string.splitlines()
             if line.strip() and not line.lstrip().startswith('#')]
    assert [f[3] for f in fstab if len(f) > 3 and f[1] == MOUNTPOINT and 'discard' in f[3].split(',')] == []
    assert host.run('systemctl is-enabled fstrim.timer').stdout.strip() == 'enabled'
    assert host.run('systemctl is-active fstrim.timer').stdout.strip() == 'active'


def test_mounted_with_noatime_never_nobarrier(host):
    mp = host.mount_point(MOUNTPOINT)
    assert mp.exists
    assert mp.filesystem == 'xfs'
    assert 'noatime' in mp.options
    assert not any('barrier' in o for o in mp.options)
    assert realpath(host, mp.device) == realpath(host, MD)


def test_fstab_uses_uuid_nofail_and_device_timeout(host):
    uuid = host.check_output('blkid -o value -s UUID %s', MD)
    lines = [line.split() for line in host.file('/etc/fstab').content_string.splitlines()
             if line.strip() and not line.lstrip().startswith('#')]
    entries = [f for f in lines if len(f) > 1 and f[1] == MOUNTPOINT]
    assert len(entries) == 1
    src, dummy, fstype, opts = entries[0][:4]
    assert src == 'UUID=%s' % uuid
    assert fstype == 'xfs'
    options = opts.split(',')
    assert 'noatime' in options and 'nofail' in options
    assert any(o.startswith('x-systemd.device-timeout=') for o in options)
    assert 'nobarrier' not in options


def test_mdadm_conf_has_exactly_one_line_for_data(host):
    uuid = detail_export(host)['MD_UUID']
    conf = host.file('/etc/mdadm/mdadm.conf').content_string
    array_lines = [line for line in conf.splitlines() if line.startswith('ARRAY')]
    ours = [line for line in array_lines
            if '/dev/md/data ' in line or 'UUID=%s' % uuid in line or re.search(r'name=(\S+:)?data\b', line)]
    assert ours == ['ARRAY /dev/md/data metadata=1.2 UUID=%s name=any:data' % uuid]


def test_initramfs_contains_the_mdadm_conf(host):
    uuid = detail_export(host)['MD_UUID']
    kernel = host.check_output('uname -r')
    image = '/boot/initrd.img-%s' % kernel
    if host.package('dracut').is_installed:
        # dracut's mdraid module (mdadmconf=yes) copies /etc/mdadm/mdadm.conf to etc/mdadm.conf
        assert re.search(r'\setc/mdadm\.conf$', host.check_output('lsinitrd %s', image), re.M)
        content = host.check_output('lsinitrd -f etc/mdadm.conf %s', image)
        assert 'ARRAY /dev/md/data metadata=1.2 UUID=%s name=any:data' % uuid in content
        return
    content = initramfs_file(host, image, 'etc/mdadm/mdadm.conf')
    assert content, 'no etc/mdadm/mdadm.conf in %s' % image
    assert 'ARRAY /dev/md/data metadata=1.2 UUID=%s name=any:data' % uuid in content


def test_no_package_trigger_left_pending(host):
    """The raid0 role installs mdadm and xfsprogs with their triggers deferred (one initramfs build after
    mdadm.conf holds the ARRAY lines); it must process them, leaving no package half-configured."""
    status = host.check_output("dpkg-query --show --showformat='${Package} ${Status}\\n'")
    assert [line for line in status.splitlines() if 'trigger' in line or 'half' in line] == []
    assert host.run('dpkg --audit').stdout.strip() == ''


def test_array_and_data_survive_reboot(host):
    if not host.file(REBOOT_SUM).exists:
        pytest.skip('the reboot side effect did not run (%s missing)' % REBOOT_SUM)
    btime = int(re.search(r'^btime (\d+)$', host.file('/proc/stat').content_string, re.M).group(1))
    assert host.file(REBOOT_SUM).mtime.timestamp() < btime, 'the host did not reboot after the probe was written'
    assert host.file(MD).exists
    assert host.mount_point(MOUNTPOINT).exists
    assert realpath(host, host.mount_point(MOUNTPOINT).device) == realpath(host, MD)
    assert detail_export(host)['MD_DEVNAME'] == 'data'
    wanted = host.file(REBOOT_SUM).content_string.split()[0]
    assert host.check_output('sha256sum %s', REBOOT_FILE).split()[0] == wanted


def run_failing_module(host, module, args, check=False):
    """Run a module (for real unless ``check``); return its result whether testinfra raised AnsibleException or not.

    (pytest-testinfra 10.2 with ansible-core 2.19 returns the result of a module that called
    fail_json without a ``failed`` key, so no exception is raised: accept both.)
    """
    try:
        result = host.ansible(module, args, check=check)
    except AnsibleException as e:
        result = e.result
    assert not result.get('changed'), result
    assert result.get('msg'), result
    return result


REFUSALS = [
    (4, r'xfs filesystem signature'),
    (5, r'LVM2 physical volume signature'),
    (6, r'gpt partition table'),
]


@pytest.mark.parametrize('index, reason', REFUSALS, ids=['xfs', 'lvm2', 'gpt'])
def test_mdadm_array_refuses_disks_with_data(host, lab_disks, index, reason):
    disk = lab_disks[index]
    resolved = realpath(host, disk['by_id'])
    result = run_failing_module(host, 'iotune.storage.mdadm_array',
                                'name=refuse%d devices=%s allow_single_device=true' % (index, disk['by_id']))
    msg = result['msg']
    assert result.get('refusals'), result
    assert 'refusing %s (%s): ' % (disk['by_id'], resolved) in msg
    assert re.search(reason, msg), msg
    assert 'wipe_devices' in msg
    assert not host.file('/dev/md/refuse%d' % index).exists


@pytest.mark.parametrize('index, reason', REFUSALS[1:], ids=['lvm2', 'gpt'])
def test_xfs_filesystem_refuses_disks_with_data(host, lab_disks, index, reason):
    disk = lab_disks[index]
    result = run_failing_module(host, 'iotune.storage.xfs_filesystem', 'device=%s label=refuse' % disk['by_id'])
    assert 'not creating XFS' in result['msg']
    assert disk['by_id'] in result['msg'] and re.search(reason, result['msg'])
    assert not result.get('uuid')


def test_refused_disks_are_untouched(host, lab_disks):
    xfs_disk, lvm_disk, gpt_disk = lab_disks[4:7]
    wanted = host.file('%s/%s.sha256' % (PROBE_DIR, xfs_disk['serial'])).content_string.split()[0]
    tmp = host.check_output('mktemp -d')
    try:
        host.check_output('mount -o ro %s %s', xfs_disk['by_id'], tmp)
        try:
            assert host.check_output('sha256sum %s/probe.bin', tmp).split()[0] == wanted
        finally:
            host.run('umount %s', tmp)
    finally:
        host.run('rmdir %s', tmp)
    assert host.check_output('blkid -p -o value -s TYPE %s', lvm_disk['by_id']) == 'LVM2_member'
    assert host.check_output('blkid -p -o value -s PTTYPE %s', gpt_disk['by_id']) == 'gpt'


LOSTPT_OFFSET = str(1024 * 1024)   # where the ext4 of lab_disks[7] starts (its partition table is gone)
BUSY_MOUNT = '/mnt/iotune-busy'


def test_lost_partition_table_disk_looks_blank(host, lab_disks):
    disk = lab_disks[7]
    assert host.run('blkid -p %s', disk['by_id']).rc == 2
    assert host.check_output('wipefs --no-act %s', disk['by_id']) == ''


def test_mdadm_array_refuses_data_without_a_signature(host, lab_disks):
    disk = lab_disks[7]
    resolved = realpath(host, disk['by_id'])
    result = run_failing_module(host, 'iotune.storage.mdadm_array',
                                'name=refuse7 devices=%s allow_single_device=true' % disk['by_id'])
    msg = result['msg']
    assert 'refusing %s (%s): ' % (disk['by_id'], resolved) in msg
    assert 'non-zero data at offset 1 MiB (first non-zero byte at 0x' in msg, msg
    assert 'a filesystem whose partition table was lost?' in msg and 'wipe_devices' in msg
    assert not host.file('/dev/md/refuse7').exists


def test_xfs_filesystem_refuses_data_without_a_signature(host, lab_disks):
    disk = lab_disks[7]
    result = run_failing_module(host, 'iotune.storage.xfs_filesystem', 'device=%s label=refuse' % disk['by_id'])
    assert 'not creating XFS' in result['msg'] and 'non-zero data at offset 1 MiB' in result['msg']
    assert 'allow_data' in result['msg']


def test_ext4_behind_the_lost_partition_table_is_untouched(host, lab_disks):
    disk = lab_disks[7]
    wanted = host.file('%s/%s.sha256' % (PROBE_DIR, disk['serial'])).content_string.split()[0]
    loop = host.check_output('losetup -r -o %s --show -f %s', LOSTPT_OFFSET, disk['by_id'])
    try:
        assert host.check_output('blkid -p -o value -s TYPE %s', loop) == 'ext4'
        tmp = host.check_output('mktemp -d')
        try:
            host.check_output('mount -o ro,noload %s %s', loop, tmp)
            try:
                assert host.check_output('sha256sum %s/probe.bin', tmp).split()[0] == wanted
            finally:
                host.run('umount %s', tmp)
        finally:
            host.run('rmdir %s', tmp)
    finally:
        host.run('losetup -d %s', loop)


def test_mdadm_array_refuses_a_partition_of_a_disk_in_use(host, busy_disk):
    part = busy_disk['by_id'] + '-part2'
    result = run_failing_module(host, 'iotune.storage.mdadm_array',
                                'name=refuse8 devices=%s allow_single_device=true' % part)
    msg = result['msg']
    assert 'refusing %s (%s): it is a partition of %s, which is in use: mounted on %s (partition %s)' % (
        part, realpath(host, part), realpath(host, busy_disk['by_id']), BUSY_MOUNT,
        realpath(host, busy_disk['by_id'] + '-part1')) in msg, msg
    assert 'allow_shared_disk' in msg
    assert not host.file('/dev/md/refuse8').exists


def test_allow_shared_disk_lifts_that_refusal(host, busy_disk):
    part = busy_disk['by_id'] + '-part2'
    result = host.ansible('iotune.storage.mdadm_array',
                          'name=refuse8 devices=%s allow_single_device=true allow_shared_disk=%s' % (part, part),
                          check=True)
    assert not result.get('failed') and result.get('created') and result.get('changed'), result
    assert not host.file('/dev/md/refuse8').exists
    # still no signature on the partition (blkid -p lists only its PART_ENTRY_* values)
    assert not re.search(r'^TYPE=', host.check_output('blkid -p -o export %s', part), re.M)


def test_single_device_array_needs_allow_single_device(host, busy_disk):
    part = busy_disk['by_id'] + '-part2'
    result = run_failing_module(host, 'iotune.storage.mdadm_array',
                                'name=refuse8 devices=%s allow_shared_disk=%s' % (part, part), check=True)
    assert 'single device' in result['msg'] and 'allow_single_device' in result['msg'], result
