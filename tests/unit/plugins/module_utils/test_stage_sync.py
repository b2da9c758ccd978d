# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""storage_preflight's stages (module_utils/stage_sync.py): a converged fake host is in sync in every stage, and each
kind of drift makes its stage (only) not in sync, with a reason; through the module too, read-only."""

from __future__ import annotations

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import stage_sync
from ansible_collections.iotune.storage.plugins.module_utils import udev_tuning
from ansible_collections.iotune.storage.plugins.modules import storage_preflight as mod
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures import audit
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import fixture
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.kernel import fake_kernel
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.module_run import on_fake_host, run_module

MDADM = '/sbin/mdadm'
XFS_INFO = '/usr/sbin/xfs_info'
SYSTEMCTL = '/bin/systemctl'
BINS = {'mdadm': MDADM, 'xfs_info': XFS_INFO, 'systemctl': SYSTEMCTL, 'blkid': 'blkid', 'wipefs': 'wipefs',
        'mkfs.xfs': '/usr/sbin/mkfs.xfs', 'udevadm': '/bin/udevadm'}
SYSCTL_FILE = '/etc/sysctl.d/90-iotune-storage.conf'
THP_UNIT = 'iotune-storage-thp.service'
OPTIONS = 'noatime,nofail,x-systemd.device-timeout=90s'


class Module:
    """What stage_sync uses of the preflight's AnsibleModule, over the fake host."""

    def __init__(self, host, bins=None):
        self.host = host
        self.bins = BINS if bins is None else bins

    def get_bin_path(self, name, *args, **kwargs):
        return self.bins.get(name)

    def run_command(self, argv, **kwargs):
        return self.host.run(argv)


@pytest.fixture
def host(fake_host, monkeypatch, tmp_path):
    """audit.tuned_host (array, mount, fstab, mdadm.conf, rules) with what the modules read in check mode: mdadm's
    detail, blkid and xfs_info of the filesystem, the kernel settings, the THP unit enabled."""
    h = audit.tuned_host(fake_host)
    detail_export = fixture('mdadm', 'detail_export_raid0_4.txt')
    detail_export = (detail_export.replace('MD_DEVICES=4', 'MD_DEVICES=2').replace('223bf324:4839b32a:611abc08:26fcd6e8', audit.UUID)
                     .replace('MD_NAME=any:data', 'MD_NAME=lab:data'))
    detail_export = '\n'.join(line for line in detail_export.splitlines() if 'vdd' not in line and 'vde' not in line) + '\n'
    detail = fixture('mdadm', 'detail_raid0_4.txt')
    detail = (detail.replace('Raid Devices : 4', 'Raid Devices : 2').replace('Total Devices : 4', 'Total Devices : 2')
              .replace('223bf324:4839b32a:611abc08:26fcd6e8', audit.UUID).replace('any:data', 'lab:data'))
    detail = '\n'.join(line for line in detail.splitlines() if '/dev/vdd' not in line and '/dev/vde' not in line) + '\n'
    h.on([MDADM, '--detail', '--export', '/dev/md/data'], 0, detail_export)
    h.on([MDADM, '--detail', '/dev/md/data'], 0, detail)
    h.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0,
         'DEVNAME=/dev/md127\nUUID=%s\nBLOCK_SIZE=512\nTYPE=xfs\n' % audit.FS_UUID)
    h.on([XFS_INFO, '/dev/md127'], 0, fixture('xfs', 'xfs_info_md_su256k_sw4.txt').replace('swidth=256', 'swidth=128'))
    h.on([SYSTEMCTL, 'is-enabled', THP_UNIT], 0, 'enabled\n')
    kernel = fake_kernel.FakeKernel(h.root, vm={'swappiness': '1'}, thp={'enabled': 'never'})
    kernel.sysctl_file(SYSCTL_FILE.lstrip('/'), ['vm.swappiness = 1'])
    h.kernel = kernel
    h.write('etc/os-release', 'ID=debian\nVERSION_ID="12"\n')
    h.os_makedirs = None
    os.makedirs(os.path.join(h.root, 'var/lib/cassandra'), exist_ok=True)
    monkeypatch.setattr(udev_tuning, 'MODULES_ROOT', str(tmp_path / 'nomodules'))
    monkeypatch.setattr(udev_tuning, 'CONTAINER_ROOT', str(tmp_path / 'noroot'))
    monkeypatch.setattr(udev_tuning, 'TUNED_ETC', str(tmp_path / 'etc' / 'tuned'))
    monkeypatch.setattr(udev_tuning, 'TUNED_DIRS', (str(tmp_path / 'etc' / 'tuned'),))
    return h


def stages(h):
    """The options the tune role's stages would pass on this host (as the filter stage_calls makes them)."""
    return {
        'raid0': [{'name': 'data', 'state': 'present', 'devices': ['/dev/disk/by-id/virtio-vol1', '/dev/disk/by-id/virtio-vol2'],
                   'level': 0, 'chunk_kb': 256, 'metadata': '1.2', 'homehost': 'any', 'wipe_devices': [],
                   'allow_shared_disk': [], 'allow_single_device': False}],
        'mdadm_conf': os.path.join(h.root, 'etc/mdadm/mdadm.conf'),
        'xfs': [{'device': '/dev/md/data', 'su_kb': 256, 'sw': 2, 'allow_data': False, 'mountpoint': '/var/lib/cassandra',
                 'mount_options': OPTIONS}],
        'block_tuning': [{'devices': audit.tuning(h), 'rules_file': os.path.join(h.root, audit.RULES.lstrip('/')),
                          'state': 'present', 'tuned': 'fail', 'container': 'fail', 'settle_timeout': 60, 'facts': True}],
        'kernel': [{'sysctl': {'vm.swappiness': 1}, 'thp': {'enabled': 'never'}, 'sysctl_file': SYSCTL_FILE,
                    'mode': 'report', 'thp_unit': THP_UNIT}],
    }


def check(h, given=None, bins=None):
    return stage_sync.check(Module(h, bins), h.view(), stages(h) if given is None else given)


def not_in_sync(h, stage, given=None, bins=None):
    """The reason of ``stage``, which alone is not in sync."""
    in_sync, read, why = check(h, given, bins)
    assert stage not in in_sync
    assert in_sync == [s for s in stage_sync.STAGES if s != stage]
    assert set(why) == {stage}
    assert read[stage]['in_sync'] is False
    return why[stage]


def test_a_converged_host_is_in_sync_in_every_stage(host):
    in_sync, read, why = check(host)
    assert why == {}
    assert in_sync == ['raid0', 'xfs', 'block_tuning', 'kernel']
    assert read['raid0']['calls'][0]['conf_path'] == os.path.join(host.root, 'etc/mdadm/mdadm.conf')
    assert read['raid0']['results'][0]['changed'] is False and read['raid0']['results'][0]['chunk_kb'] == 256
    assert read['xfs']['results'][0]['mounted_as_planned'] is True
    assert read['block_tuning']['results'][0]['ansible_facts']['iotune_readahead']
    assert read['kernel']['results'][0]['thp_unit_enabled'] is True
    # read-only: no command but reads
    assert not [c for c in host.calls if '--create' in c or '--assemble' in c or 'trigger' in c or 'mkfs' in c[0]]


def test_the_mdadm_conf_path_comes_from_os_release_without_an_override(host):
    given = stages(host)
    del given['mdadm_conf']
    read = check(host, given)[1]
    assert read['raid0']['calls'][0]['conf_path'] == '/etc/mdadm/mdadm.conf'
    host.write('etc/os-release', 'ID=plan9\n')
    assert check(host, given)[2]['raid0'] == 'the distribution family is unknown (no mdadm.conf path)'


def test_array_line_missing_from_mdadm_conf(host):
    host.write('etc/mdadm/mdadm.conf', 'HOMEHOST <system>\n')
    assert 'no ARRAY line in %s for the running array (UUID=%s)' % (os.path.join(host.root, 'etc/mdadm/mdadm.conf'), audit.UUID) \
        == not_in_sync(host, 'raid0')


def test_a_rebuild_owed_by_an_interrupted_run_is_not_in_sync(host, tmp_path):
    # mdadm.conf is in step, but the run that changed it crashed before its initramfs rebuild finished
    given = stages(host)
    marker = tmp_path / 'initramfs-rebuild-pending'
    given['raid0'][0]['rebuild_marker'] = str(marker)
    assert check(host, given)[2] == {}                      # negative control: no marker, in sync
    marker.write_text('pending\n')
    assert not_in_sync(host, 'raid0', given) == ('an initramfs rebuild is owed (%s: mdadm.conf changed in a run that '
                                                 'did not finish its rebuild)' % marker)
    assert marker.exists()                                  # a check never writes or removes


def test_an_array_that_differs_is_a_failure_of_the_stage(host):
    given = stages(host)
    given['raid0'][0]['chunk_kb'] = 512
    assert not_in_sync(host, 'raid0', given).startswith('the module would fail: ')


def test_invalid_options_are_not_in_sync(host):
    given = stages(host)
    given['raid0'][0]['metadata'] = '0.9'
    assert 'invalid options' in not_in_sync(host, 'raid0', given)


def test_unmounted(host):
    host.mountinfo = [line for line in host.mountinfo if '/var/lib/cassandra' not in line]
    host._write_mountinfo()
    assert not_in_sync(host, 'xfs') == '/dev/md/data is not mounted on /var/lib/cassandra'


def test_fstab_options_changed(host):
    host.write('etc/fstab', 'UUID=%s /var/lib/cassandra xfs defaults,nofail 0 0\n' % audit.FS_UUID)
    why = not_in_sync(host, 'xfs')
    assert 'line of /var/lib/cassandra is "UUID=%s /var/lib/cassandra xfs defaults,nofail 0 0"' % audit.FS_UUID in why


def test_fstab_pass_field_changed(host):
    host.write('etc/fstab', 'UUID=%s /var/lib/cassandra xfs %s 0 2\n' % (audit.FS_UUID, OPTIONS))
    assert '%s 0 2"' % OPTIONS in not_in_sync(host, 'xfs')


def test_fstab_line_missing_and_mount_point_missing(host):
    host.write('etc/fstab', '')
    assert 'no /etc/fstab line mounts /var/lib/cassandra (the plan writes "UUID=' in not_in_sync(host, 'xfs')
    os.rmdir(os.path.join(host.root, 'var/lib/cassandra'))
    assert 'mount point /var/lib/cassandra does not exist' in not_in_sync(host, 'xfs')


def test_no_filesystem_yet(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 2, '')
    host.on(['wipefs', '--no-act', '--noheadings', '--parsable', '/dev/md127'], 0, '')
    why = check(host)[2]
    assert why['xfs'].startswith('no XFS filesystem on /dev/md/data yet') or why['xfs'].startswith('the module would fail')


@pytest.mark.parametrize('attr, value, reason', [
    ('read_ahead_kb', '128', 'vdb read_ahead_kb is 128, planned 8'),
    ('scheduler', 'none [mq-deadline]', 'vdb scheduler is mq-deadline, planned none'),
])
def test_readahead_or_scheduler_changed(host, attr, value, reason):
    host.write('sys/block/vdb/queue/%s' % attr, value + '\n')
    assert not_in_sync(host, 'block_tuning') == reason


def test_rules_file_edited(host):
    path = audit.RULES.lstrip('/')
    host.write(path, host.read(path) + '# edited by hand\n')
    assert 'differs from the plan' in not_in_sync(host, 'block_tuning')


def test_rules_file_lost(host):
    os.unlink(os.path.join(host.root, audit.RULES.lstrip('/')))
    assert 'differs from the plan' in not_in_sync(host, 'block_tuning')


def test_sysctl_changed(host):
    host.kernel.set_vm('swappiness', 60)
    assert 'vm.swappiness' in not_in_sync(host, 'kernel')


def test_thp_changed(host):
    host.kernel.set_thp(enabled='always')
    assert 'THP enabled' in not_in_sync(host, 'kernel')


def test_thp_unit_disabled(host):
    host.on([SYSTEMCTL, 'is-enabled', THP_UNIT], 1, 'disabled\n')
    assert not_in_sync(host, 'kernel') == '%s is not enabled' % THP_UNIT


def test_a_warning_is_not_in_sync(host):
    bins = dict(BINS, xfs_info=None)
    assert not_in_sync(host, 'xfs', bins=bins).startswith('warning: xfs_info is not installed')


def test_only_the_stages_given_are_read(host):
    in_sync, read, why = check(host, {'kernel': stages(host)['kernel']})
    assert in_sync == ['kernel'] and list(read) == ['kernel'] and why == {}
    assert not host.ran([MDADM])


# --- through the module -----------------------------------------------------------------------------------------
def preflight_args(h, given):
    return {'arrays': [dict(audit.ARRAYS[0], wipe_devices=[], allow_shared_disk=[])], 'stages': given}


def test_the_preflight_returns_the_stages_and_the_readahead_facts(host, monkeypatch, capsys):
    on_fake_host(monkeypatch, mod, host, BINS)
    rc, result = run_module(mod, preflight_args(host, stages(host)), capsys)
    assert rc == 0, result
    assert result['stages_in_sync'] == ['raid0', 'xfs', 'block_tuning', 'kernel'] and result['stages_why'] == {}
    assert result['ansible_facts']['iotune_readahead']['md127']
    assert result['changed'] is False


def test_the_preflight_names_a_drifted_stage_and_returns_no_facts_of_it(host, monkeypatch, capsys):
    host.write('sys/block/vdb/queue/read_ahead_kb', '128\n')
    on_fake_host(monkeypatch, mod, host, BINS)
    rc, result = run_module(mod, preflight_args(host, stages(host)), capsys, check_mode=True)
    assert rc == 0, result
    assert result['stages_in_sync'] == ['raid0', 'xfs', 'kernel']
    assert result['stages_why'] == {'block_tuning': 'vdb read_ahead_kb is 128, planned 8'}
    assert 'ansible_facts' not in result


def test_without_stages_the_preflight_imports_no_stage_code(host, monkeypatch, capsys):
    import sys
    for name in [n for n in sys.modules if n.endswith('module_utils.stage_sync')]:
        monkeypatch.delitem(sys.modules, name)
    on_fake_host(monkeypatch, mod, host, BINS)
    rc, result = run_module(mod, {'arrays': [dict(audit.ARRAYS[0])]}, capsys)
    assert rc == 0, result
    assert 'stages_in_sync' not in result
    assert not [n for n in sys.modules if n.endswith('module_utils.stage_sync')]


CPU_UNIT = 'iotune-storage-cpu-clock.service'


def with_cpu_clock(h, **cpu_clock):
    given = stages(h)
    given['kernel'] = [dict(given['kernel'][0], cpu_clock=cpu_clock, cpu_unit=CPU_UNIT)]
    return given


def test_a_setting_the_host_does_not_offer_is_in_sync(host):
    """The fake host has no cpufreq (as the lab guest): the governor is skipped, not a reason to call the stage."""
    host.on([SYSTEMCTL, 'is-enabled', CPU_UNIT], 0, 'enabled\n')
    in_sync, read, why = check(host, with_cpu_clock(host, cpu_governor='performance'))
    assert 'kernel' in in_sync and why == {}
    assert read['kernel']['results'][0]['not_offered'] == ['cpu_governor']


def test_the_cpu_clock_unit_disabled_or_a_governor_drifted(host):
    host.on([SYSTEMCTL, 'is-enabled', CPU_UNIT], 1, 'disabled\n')
    assert not_in_sync(host, 'kernel', with_cpu_clock(host, cpu_governor='performance')) == '%s is not enabled' % CPU_UNIT
    host.on([SYSTEMCTL, 'is-enabled', CPU_UNIT], 0, 'enabled\n')
    for number in (0, 1):
        host.kernel.write('sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor' % number, 'schedutil\n')
        host.kernel.write('sys/devices/system/cpu/cpu%d/cpufreq/scaling_available_governors' % number,
                          'performance schedutil\n')
    assert not_in_sync(host, 'kernel', with_cpu_clock(host, cpu_governor='performance')) == (
        'cpu_governor: live cpu0 schedutil, cpu1 schedutil, wanted performance')
    assert 'kernel' in check(host, with_cpu_clock(host, cpu_governor='schedutil'))[0]      # negative control


# --- a discard policy the host cannot carry out: refused by the preflight, before any change ---------------------

FSTRIM_SHOW = [SYSTEMCTL, 'show', '--property=LoadState,UnitFileState,ActiveState', '--', 'fstrim.timer']
BY_CLASS = {'virtual': 'fstrim_timer', 'nvme': 'fstrim_timer', 'hdd': 'none'}


def with_policy(h, by_class):
    given = stages(h)
    given['xfs'][0]['discard_by_class'] = dict(by_class)
    return given


def test_fstrim_timer_unknown_to_systemd_refuses_the_run_in_the_preflight(host, monkeypatch, capsys):
    """A host without util-linux's fstrim.timer: the xfs stage's enable task would fail after mkfs and the mount;
    the preflight refuses instead, naming the timer and the way out, and nothing is changed."""
    host.on(FSTRIM_SHOW, 0, 'LoadState=not-found\nUnitFileState=\nActiveState=inactive\n')
    on_fake_host(monkeypatch, mod, host, BINS)
    rc, result = run_module(mod, preflight_args(host, with_policy(host, BY_CLASS)), capsys)
    assert rc == 1 and result['failed'], result
    assert result['msg'].startswith('preflight refused the plan (nothing was changed): xfs: the discard policy '
                                    'fstrim_timer (vdb: virtual -> fstrim_timer')
    assert 'needs fstrim.timer, which systemd does not know on this host' in result['msg']
    assert 'set discard_by_class to none or online for virtual' in result['msg']
    # negative controls: the timer known (disabled) is a stage to call; a policy without the timer reads nothing
    host.on(FSTRIM_SHOW, 0, 'LoadState=loaded\nUnitFileState=disabled\nActiveState=inactive\n')
    rc, result = run_module(mod, preflight_args(host, with_policy(host, BY_CLASS)), capsys)
    assert rc == 0 and 'xfs' not in result['stages_in_sync'], result
    host.on(FSTRIM_SHOW, 0, 'LoadState=not-found\nUnitFileState=\nActiveState=inactive\n')
    rc, result = run_module(mod, preflight_args(host, with_policy(host, dict(BY_CLASS, virtual='none'))), capsys)
    assert rc == 0 and 'xfs' in result['stages_in_sync'], result


def test_fstrim_timer_disabled_by_hand_calls_the_xfs_stage_again(host):
    """The audit names a disabled timer as drift of the filesystem: the next tune run must put it back, so the xfs
    stage is not in sync (its enable task runs on the call's result); enabled and active, it is."""
    host.on(FSTRIM_SHOW, 0, 'LoadState=loaded\nUnitFileState=disabled\nActiveState=inactive\n')
    assert not_in_sync(host, 'xfs', with_policy(host, BY_CLASS), bins=BINS) == (
        'fstrim.timer is not enabled and active, the discard policy is fstrim_timer (vdb: virtual -> fstrim_timer, '
        'vdc: virtual -> fstrim_timer)')
    host.on(FSTRIM_SHOW, 0, 'LoadState=loaded\nUnitFileState=enabled\nActiveState=active\n')
    in_sync, dummy, why = check(host, with_policy(host, BY_CLASS), bins=BINS)
    assert 'xfs' in in_sync and why == {}
