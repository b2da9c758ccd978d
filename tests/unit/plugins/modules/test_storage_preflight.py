# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""storage_preflight: the whole plan checked against a fake host before anything changes."""

from __future__ import annotations

import os

import pytest

from ansible_collections.iotune.storage.plugins.modules import storage_preflight as mod
from ansible_collections.iotune.storage.plugins.module_utils import dpkg
from ansible_collections.iotune.storage.plugins.module_utils import preflight as pf
from ansible_collections.iotune.storage.plugins.module_utils.preflight import Preflight, PreflightError
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.module_run import on_fake_host, run_module, warning_texts


@pytest.fixture
def host(fake_host):
    h = fake_host
    for i, kname in enumerate(['vdb', 'vdc', 'vdd', 'vde']):
        h.disk(kname, '254:%d' % (16 * (i + 1)), by_id='virtio-vol%s' % 'ABCD'[i])
    h.write('etc/fstab', 'LABEL=rootfs / ext4 errors=remount-ro 0 1\n')
    return h


def array(name='data', devices=('/dev/disk/by-id/virtio-volA', '/dev/disk/by-id/virtio-volB'),
          mountpoint='/var/lib/cassandra', **kw):
    entry = {'name': name, 'devices': list(devices), 'wipe_devices': [], 'allow_shared_disk': [],
             'mountpoint': mountpoint, 'allow_nonempty_mountpoint': False}
    entry.update(kw)
    return entry


def run(host, *arrays):
    view = host.view()
    return Preflight({'arrays': list(arrays), 'fstab': '/etc/fstab'}, view).run()


def refused(host, *arrays):
    with pytest.raises(PreflightError) as e:
        run(host, *arrays)
    return e.value.problems


def test_blank_members_and_missing_mountpoint_pass(host):
    report = run(host, array())
    assert report[0]['state'] == 'create'
    assert [m['kname'] for m in report[0]['members']] == ['vdb', 'vdc']
    assert report[0]['mountpoint'] == {'path': '/var/lib/cassandra', 'exists': False, 'mounted_from': None,
                                       'fstab_spec': None, 'elsewhere': []}
    # read-only: only probes ran
    assert all(c[0].endswith(('blkid', 'wipefs')) for c in host.calls)
    assert all('--no-act' in c for c in host.calls if c[0].endswith('wipefs'))


def test_one_disk_in_two_arrays_through_two_aliases(host):
    problems = refused(host, array(), array('logs', ['/dev/vdb', '/dev/disk/by-id/virtio-volC'], '/srv/logs'))
    assert problems == ['/dev/disk/by-id/virtio-volA and /dev/vdb are the same device (/dev/vdb); list each device once']


def test_missing_device_is_named(host):
    assert refused(host, array(devices=['/dev/vdb', '/dev/vdz'])) == ['/dev/vdz does not exist']


def test_signature_on_a_member_of_the_second_array_fails_before_anything(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdd'], 0, 'TYPE=ext4\nUUID=1234\n')
    problems = refused(host, array(), array('logs', ['/dev/vdd', '/dev/vde'], '/srv/logs'))
    assert len(problems) == 1
    assert problems[0].startswith("array 'logs': refusing /dev/vdd: ext4 filesystem signature")


def test_wipe_opt_in_through_another_alias(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdb'], 0, 'TYPE=ext4\nUUID=1234\n')
    report = run(host, array(wipe_devices=['/dev/disk/by-id/virtio-volA']))
    assert report[0]['state'] == 'create'


def test_non_zero_data_without_signature_is_refused(host):
    with open(os.path.join(host.root, 'dev/vdc'), 'wb') as f:
        f.write(b'\0' * (1 << 20) + b'\x53\xef' + b'\0' * 100)
    problems = refused(host, array())
    assert len(problems) == 1 and 'refusing /dev/disk/by-id/virtio-volB (/dev/vdc)' in problems[0]
    assert 'non-zero data' in problems[0]


def test_size_mismatch(host):
    host.disk('vdf', '254:96', size_bytes=1 << 31)
    assert 'member sizes differ too much' in refused(host, array(devices=['/dev/vdb', '/dev/vdf']))[0]


def members_of_running_array(host, slaves=('vdb', 'vdc')):
    host.disk('md127', '9:127', size_bytes=2 << 30)
    host.md_link('data', 'md127')
    for s in slaves:
        os.makedirs(os.path.join(host.root, 'sys/class/block/md127/slaves'), exist_ok=True)
        os.symlink('../../%s' % s, os.path.join(host.root, 'sys/class/block/md127/slaves', s))
        os.symlink('../../md127', os.path.join(host.root, 'sys/class/block', s, 'holders', 'md127'))


def test_rerun_on_a_running_mounted_array(host):
    members_of_running_array(host)
    host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0, 'TYPE=xfs\nUUID=aaaa-bbbb\n')
    host.mount('9:127', '/var/lib/cassandra')
    os.makedirs(os.path.join(host.root, 'var/lib/cassandra/data'))
    host.write('etc/fstab', host.read('etc/fstab') + 'UUID=aaaa-bbbb /var/lib/cassandra xfs noatime,nofail 0 0\n')
    report = run(host, array())
    assert report[0]['state'] == 'running'
    assert report[0]['mountpoint']['mounted_from'] == '/dev/x'


def converged(host, fstab_at='/var/lib/cassandra', mounted_at='/var/lib/cassandra'):
    """The array `data` running on vdb+vdc, its XFS UUID=aaaa-bbbb in fstab and mounted (day two)."""
    members_of_running_array(host)
    host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0, 'TYPE=xfs\nUUID=aaaa-bbbb\n')
    if mounted_at:
        host.mount('9:127', mounted_at)
        os.makedirs(os.path.join(host.root, mounted_at.lstrip('/'), 'data'))
    if fstab_at:
        host.write('etc/fstab', host.read('etc/fstab') + 'UUID=aaaa-bbbb %s xfs noatime,nofail 0 0\n' % fstab_at)


def test_a_mistyped_mountpoint_on_a_converged_host_is_refused(host):
    converged(host)
    problems = refused(host, array(mountpoint='/var/lib/casandra'))
    assert problems == ["array 'data': its filesystem is on /var/lib/cassandra (mounted there, /etc/fstab line 2), "
                        "not on the planned mountpoint /var/lib/casandra; a run never moves a filesystem that holds "
                        "data: correct mountpoint (a typo?), or set move_from: /var/lib/cassandra on the array to "
                        "move it"]


@pytest.mark.parametrize('fstab_at, mounted_at, how', [
    ('/var/lib/cassandra', None, '/etc/fstab line 2'),       # the database stopped, the filesystem unmounted
    (None, '/var/lib/cassandra', 'mounted there'),           # mounted by hand, no fstab line
])
def test_the_move_is_refused_from_fstab_or_mounts_alone(host, fstab_at, mounted_at, how):
    converged(host, fstab_at, mounted_at)
    problems = refused(host, array(mountpoint='/srv/new'))
    assert problems[0].startswith("array 'data': its filesystem is on /var/lib/cassandra (%s), not on the "
                                  "planned mountpoint /srv/new" % how), problems


def test_move_from_another_path_is_still_refused(host):
    converged(host)
    problems = refused(host, array(mountpoint='/srv/new', move_from='/srv/old'))
    assert 'or set move_from: /var/lib/cassandra on the array' in problems[0]


def test_move_with_its_opt_in_passes_when_nobody_uses_the_files(host):
    converged(host)
    report = run(host, array(mountpoint='/srv/new', move_from='/var/lib/cassandra'))
    assert report[0]['state'] == 'running'
    assert report[0]['mountpoint']['elsewhere'] == ['/var/lib/cassandra']


def test_move_with_its_opt_in_is_refused_while_a_process_uses_the_files(host, monkeypatch):
    converged(host)
    seen = []

    def holders(proc_root, dev, scope, limit=20):
        seen.append((dev, scope))
        return [dict(pid=4242, comm='java', how='mmap', path='/var/lib/cassandra/data/nb-1-big-Data.db')], 0
    monkeypatch.setattr(pf.holders, 'file_holders', holders)
    problems = refused(host, array(mountpoint='/srv/new', move_from='/var/lib/cassandra'))
    assert problems == ["array 'data': move_from /var/lib/cassandra: 1 process(es) use files there: pid 4242 (java, "
                        "mmap /var/lib/cassandra/data/nb-1-big-Data.db); stop them before the filesystem is moved"]
    assert seen == [(os.makedev(9, 127), '/var/lib/cassandra')]


def test_the_same_mountpoint_needs_no_opt_in(host):
    converged(host)
    assert run(host, array())[0]['mountpoint']['elsewhere'] == []


def test_a_bind_mount_of_a_directory_inside_is_no_move(host):
    # a container runtime bind-mounts /var/lib/cassandra/data into a pod: the re-run is not refused
    converged(host)
    host.mount('9:127', '/var/lib/kubelet/pods/1/volumes/data', root='/data')
    assert run(host, array())[0]['mountpoint']['elsewhere'] == []


def test_running_array_on_other_members_is_refused(host):
    members_of_running_array(host, slaves=('vdb', 'vdd'))
    problems = refused(host, array())
    assert "/dev/md/data already runs on /dev/vdb, /dev/vdd, not on the listed devices" in problems[0]


def test_members_carrying_this_arrays_superblock_are_left_to_assemble(host):
    for dev in ('/dev/vdb', '/dev/vdc'):
        host.on(['blkid', '-p', '-o', 'export', dev], 0, 'TYPE=linux_raid_member\nLABEL=any:data\nUUID=1-2-3-4\n')
    assert run(host, array())[0]['state'] == 'assemble'


def test_superblock_of_another_array_is_refused(host):
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdb'], 0, 'TYPE=linux_raid_member\nLABEL=any:other\n')
    assert 'md RAID superblock signature' in refused(host, array())[0]


def test_partition_of_a_disk_in_use(host):
    host.disk('vda', '254:0', size_bytes=8 << 30, partitions={'vda1': '254:1', 'vda2': '254:2'})
    host.disk('vdg', '254:112', size_bytes=4 << 30)
    host.write('proc/self/mountinfo', '22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n')
    problems = refused(host, array(devices=['/dev/vda2', '/dev/vdg']))
    assert 'partition of /dev/vda' in problems[0] and 'mounted on /' in problems[0]
    assert run(host, array(devices=['/dev/vda2', '/dev/vdg'], allow_shared_disk=['/dev/vda2']))[0]['state'] == 'create'


# --- mount points -------------------------------------------------------------------------------

def test_non_empty_directory_is_refused_unless_allowed(host):
    os.makedirs(os.path.join(host.root, 'var/lib/cassandra/commitlog'))
    host.write('var/lib/cassandra/old.db', 'x')
    problems = refused(host, array())
    assert problems == ["array 'data': /var/lib/cassandra is not empty (2 entries: commitlog, old.db); mounting the "
                        "array there would hide them: move them away, or set allow_nonempty_mountpoint: true"]
    assert run(host, array(allow_nonempty_mountpoint=True))[0]['mountpoint']['exists'] is True


def test_empty_directory_passes(host):
    os.makedirs(os.path.join(host.root, 'var/lib/cassandra'))
    assert run(host, array())[0]['mountpoint']['exists'] is True


def test_mountpoint_that_is_a_file(host):
    host.write('var/lib/cassandra', 'x')
    assert 'exists and is not a directory' in refused(host, array())[0]


def test_foreign_fstab_line_is_refused(host):
    host.write('etc/fstab', host.read('etc/fstab') + '# old\nUUID=0000-1111 /var/lib/cassandra/ ext4 defaults 0 2\n')
    # the filesystem exists on this host: no hint
    host.dev_link('disk/by-uuid/0000-1111', '../../vdh')
    assert refused(host, array()) == ["array 'data': /etc/fstab line 3 gives /var/lib/cassandra to UUID=0000-1111; "
                                      "remove or change that line first (it is never rewritten)"]


def test_fstab_line_of_a_filesystem_that_is_gone_says_so(host):
    host.write('etc/fstab', host.read('etc/fstab') + 'UUID=0000-2222 /var/lib/cassandra xfs noatime,nofail 0 0\n')
    problem = refused(host, array())[0]
    assert problem.startswith("array 'data': /etc/fstab line 2 gives /var/lib/cassandra to UUID=0000-2222; "
                              "remove or change that line first (it is never rewritten); no filesystem with UUID "
                              "0000-2222 is on this host now (a detached disk, or an instance store that came back "
                              "blank after a stop/start)"), problem


def test_mountpoint_mounted_from_another_device(host):
    host.disk('vdh', '254:128')
    host.mount('254:128', '/var/lib/cassandra')
    problems = refused(host, array())
    assert 'is already mounted from /dev/x (254:128)' in problems[0]


def test_every_problem_is_listed(host):
    os.makedirs(os.path.join(host.root, 'srv/logs/x'))
    host.on(['blkid', '-p', '-o', 'export', '/dev/vdd'], 0, 'TYPE=ext4\n')
    problems = refused(host, array(devices=['/dev/vdb', '/dev/vdz']), array('logs', ['/dev/vdd', '/dev/vde'], '/srv/logs'))
    assert len(problems) == 3


DPKG_OUT = 'mdadm install ok installed\nxfsprogs deinstall ok config-files\n'


def test_dpkg_missing_counts_only_installed_packages():
    # xfsprogs removed (config files left) and a name dpkg does not know (no line) are both missing
    assert dpkg.missing(['mdadm', 'xfsprogs', 'fio'], DPKG_OUT) == ['xfsprogs', 'fio']
    assert dpkg.missing(['mdadm'], DPKG_OUT) == []


class FakeModule(object):
    def __init__(self, bins, out=''):
        self.bins, self.out, self.calls = bins, out, []

    def get_bin_path(self, name):
        return self.bins.get(name)

    def run_command(self, argv):
        self.calls.append(argv)
        return 1, self.out, 'dpkg-query: no packages found matching fio'


def test_missing_packages_in_the_same_call_and_none_without_dpkg():
    module = FakeModule({'dpkg-query': '/usr/bin/dpkg-query'}, DPKG_OUT)
    assert pf.missing_packages(module, ['mdadm', 'xfsprogs', 'fio']) == ['xfsprogs', 'fio']
    assert module.calls == [['/usr/bin/dpkg-query', '--show', r'--showformat=${Package} ${Status}\n',
                             'mdadm', 'xfsprogs', 'fio']]
    assert pf.missing_packages(module, []) == [] and len(module.calls) == 1
    # EL and other families: the roles install with the package module, as before
    assert pf.missing_packages(FakeModule({}), ['mdadm']) is None


def bins(name):
    return {'tuned-adm': '/usr/sbin/tuned-adm', 'systemctl': '/usr/bin/systemctl'}.get(name)


def test_tuning_plan_is_checked_in_the_same_call(standard_host):
    """storage_preflight's `tuning` is udev_block_tuning validate_only (the same code and argument spec)."""
    view, warnings = standard_host.view(), []

    def check(*entries):
        return pf.check_tuning({'devices': list(entries)}, view, lambda name: None, None, warnings.append)

    # the existing md array, and one that the same play creates (may be missing before it runs)
    assert check({'md_name': 'data', 'read_ahead_kb': 8}, {'md_name': 'later', 'read_ahead_kb': 8}) == []
    problems = check({'serial': 'no-such-disk', 'read_ahead_kb': 8})
    assert len(problems) == 1 and 'no-such-disk' in problems[0]
    assert 'mutually exclusive' in check({'md_name': 'data', 'read_ahead_kb': 8, 'read_ahead_sectors': 16})[0]
    assert "scheduler_by_class key 'floppy'" in check({'md_name': 'data', 'scheduler_by_class': {'floppy': 'none'}})[0]


def test_tuning_refuses_an_active_tuned_readahead(standard_host, monkeypatch, tmp_path):
    profile = tmp_path / 'usr' / 'lib' / 'tuned' / 'throughput-performance'
    profile.mkdir(parents=True)
    (profile / 'tuned.conf').write_text('[disk]\nreadahead=>4096\n')
    (tmp_path / 'etc' / 'tuned').mkdir(parents=True)
    (tmp_path / 'etc' / 'tuned' / 'active_profile').write_text('throughput-performance\n')
    monkeypatch.setattr(pf.tuned, 'TUNED_ETC', str(tmp_path / 'etc' / 'tuned'))
    monkeypatch.setattr(pf.tuned, 'TUNED_DIRS', (str(tmp_path / 'usr' / 'lib' / 'tuned'),))
    calls = []

    def run(argv):
        calls.append(argv)
        return 0, '', ''

    tuning = {'devices': [{'md_name': 'data', 'read_ahead_kb': 8}]}
    problems = pf.check_tuning(tuning, standard_host.view(), bins, run, None)
    assert calls == [['/usr/bin/systemctl', 'is-active', '--quiet', 'tuned.service']]
    assert len(problems) == 1 and "tuned is active with profile 'throughput-performance'" in problems[0]
    assert 'md0 wants 8 KiB, tuned sets 4096 KiB' in problems[0]
    # tuned=override: the block_tuning stage will install the override profile; nothing to refuse
    assert pf.check_tuning(dict(tuning, tuned='override'), standard_host.view(), bins, run, None) == []
    # negative control: tuned stopped
    assert pf.check_tuning(tuning, standard_host.view(), bins, lambda argv: (3, '', ''), None) == []


# ---- main(): the argument spec, exit_json and fail_json, run the way Ansible runs the module ---------------

DPKG_QUERY = '/usr/bin/dpkg-query'


@pytest.fixture
def main_on_host(host, monkeypatch):
    on_fake_host(monkeypatch, mod, host, {'blkid': 'blkid', 'wipefs': 'wipefs', 'dpkg-query': DPKG_QUERY})
    host.on([DPKG_QUERY, '--show', r'--showformat=${Package} ${Status}\n', 'mdadm', 'xfsprogs'], 0,
            'xfsprogs install ok installed\n')
    return host


def test_main_reports_the_plan_and_the_missing_packages(main_on_host, capsys):
    code, result = run_module(mod, {'arrays': [array()], 'packages': ['mdadm', 'xfsprogs']}, capsys, check_mode=True)
    assert code == 0 and result['changed'] is False, result
    assert result['arrays'][0]['state'] == 'create' and result['packages_missing'] == ['mdadm']
    assert result['tuning_checked'] is False and result['files'] is None
    assert all(c[0].endswith(('blkid', 'wipefs', 'dpkg-query')) for c in main_on_host.calls)


def test_main_fails_naming_every_problem_and_changes_nothing(main_on_host, capsys):
    code, result = run_module(mod, {'arrays': [array(devices=['/dev/vdb', '/dev/vdz'])]}, capsys)
    assert code == 1 and result['failed'] is True
    assert result['msg'] == 'preflight refused the plan (nothing was changed): /dev/vdz does not exist'
    assert result['problems'] == ['/dev/vdz does not exist']


@pytest.mark.parametrize('args, fragment', [
    ({'arrays': [{'name': 'data', 'devices': ['/dev/vdb']}]}, 'missing required arguments: mountpoint'),
    ({'arrays': [array()], 'unresolved': 'ignore'}, 'value of unresolved must be one of'),
    ({'arrays': [array(bogus=1)]}, 'bogus'),
])
def test_main_argument_spec_refuses(main_on_host, capsys, args, fragment):
    code, result = run_module(mod, args, capsys)
    assert code == 1 and fragment in result['msg'], result['msg']
    assert main_on_host.calls == []


# ---- services: units systemd does not know are named (a warning, not a refusal) ----------------------------

SYSTEMCTL = '/usr/bin/systemctl'
SHOW = [SYSTEMCTL, 'show', '--property=Id,LoadState', '--']


def test_units_not_found_in_systemctl_show_blocks():
    out = 'Id=cassandra.service\nLoadState=loaded\n\nId=cassandara.service\nLoadState=not-found\n'
    assert pf.units_not_found(['cassandra', 'cassandara'], out) == ['cassandara']
    assert pf.units_not_found(['cassandra', 'x'], 'Id=cassandra.service\nLoadState=loaded\n') is None  # not one each
    assert pf.units_not_found(['a'], '') is None


def test_main_warns_about_a_service_systemd_does_not_know(main_on_host, monkeypatch, capsys):
    host = main_on_host
    on_fake_host(monkeypatch, mod, host, {'blkid': 'blkid', 'wipefs': 'wipefs', 'systemctl': SYSTEMCTL})
    host.on(SHOW + ['cassandra.service', 'cassandara.service'], 0,
            'Id=cassandra.service\nLoadState=loaded\n\nId=cassandara.service\nLoadState=not-found\n')
    code, result = run_module(mod, {'arrays': [array()], 'services': ['cassandra.service', 'cassandara.service']},
                              capsys)
    assert code == 0 and result['services_missing'] == ['cassandara.service'], result
    assert any('service cassandara.service is not known to systemd' in w for w in warning_texts(result))


def test_main_without_systemctl_reports_null(main_on_host, capsys):
    code, result = run_module(mod, {'arrays': [array()], 'services': ['cassandra.service']}, capsys)
    assert code == 0 and result['services_missing'] is None and 'warnings' not in result


# ---- observe_unit: the unit of the observation windows must run, refused before any change ------------------------

def test_an_observe_unit_that_runs_passes(main_on_host, capsys):
    host = main_on_host
    host.write('sys/fs/cgroup/system.slice/cassandra.service/cgroup.procs', '4711\n')
    code, result = run_module(mod, {'arrays': [array()], 'observe_unit': 'cassandra'}, capsys)
    assert code == 0, result
    assert not [c for c in host.calls if 'systemctl' in c[0]]      # found at the usual place: no systemctl


def test_an_observe_unit_that_does_not_run_is_refused(main_on_host, monkeypatch, capsys):
    host = main_on_host
    on_fake_host(monkeypatch, mod, host, {'blkid': 'blkid', 'wipefs': 'wipefs', 'systemctl': SYSTEMCTL})
    host.on(['systemctl', 'show', '-p', 'ControlGroup', '--value', 'mongod.service'], out='\n')
    code, result = run_module(mod, {'arrays': [array()], 'observe_unit': 'mongod'}, capsys)
    assert code == 1, result
    assert result['msg'] == ('preflight refused the plan (nothing was changed): iotune_observe_unit: unit mongod.service: '
                             'no cgroup with processes found (is it running?)'), result['msg']


# ---- holds: a plan that drops the mount hold of a unit on a mounted filesystem is refused ---------------------------

DROPIN = 'etc/systemd/system/%s.d/iotune-storage-mounts.conf'
HELD = '# Managed by Ansible (iotune.storage.xfs): start only when the data filesystem is mounted.\n[Unit]\n' \
       'RequiresMountsFor=%s\n'


def holding(host, unit, *mounts):
    host.write(DROPIN % unit, HELD % ' '.join(mounts))


def test_dropped_holds_names_the_unit_the_mount_and_the_dropin(host):
    holding(host, 'cassandra.service', '/var/lib/cassandra')
    holding(host, 'kafka.service', '/srv/kafka')                 # not mounted: its hold may go
    host.mount('9:127', '/var/lib/cassandra')
    found = pf.dropped_holds(host.view(), keep=['iotune-standin.service'], release=[])
    assert found == ['the plan drops the mount hold of cassandra.service on /var/lib/cassandra '
                     '(/etc/systemd/system/cassandra.service.d/iotune-storage-mounts.conf), which is mounted now: '
                     'without it cassandra.service can start on the empty directory after a boot without that '
                     'filesystem; keep its array and the unit in iotune_arrays, or give iotune_release_holds: '
                     '[cassandra.service]'], found


def test_a_hold_the_plan_keeps_or_releases_is_no_problem(host):
    holding(host, 'cassandra.service', '/var/lib/cassandra')
    host.mount('9:127', '/var/lib/cassandra')
    assert pf.dropped_holds(host.view(), keep=['cassandra.service'], release=[]) == []
    assert pf.dropped_holds(host.view(), keep=['cassandra'], release=[]) == []         # as the plan names it
    assert pf.dropped_holds(host.view(), keep=[], release=['cassandra']) == []
    # another drop-in of the same unit (not this collection's) is not a hold of ours
    host.write('etc/systemd/system/mongod.service.d/override.conf', HELD % '/var/lib/cassandra')
    assert pf.dropped_holds(host.view(), keep=['cassandra'], release=[]) == []


def test_a_hold_moved_with_its_filesystem_is_no_problem(host):
    # move_from: /var/lib/cassandra -> /srv/cassandra; the plan's mount_holds account for the old path too
    holding(host, 'cassandra.service', '/var/lib/cassandra')
    host.mount('9:127', '/var/lib/cassandra')
    moved = {'cassandra.service': ['/srv/cassandra', '/var/lib/cassandra']}
    assert pf.dropped_holds(host.view(), keep=['cassandra'], release=[], mounts=moved) == []
    # negative control: without the move the plan holds the unit elsewhere only
    assert pf.dropped_holds(host.view(), keep=['cassandra'], release=[],
                            mounts={'cassandra.service': ['/srv/cassandra']})


def test_main_refuses_a_dropped_hold_before_any_change(main_on_host, capsys):
    # an array built by an earlier run, mounted on /srv/logs, left out of this plan with its service
    holding(main_on_host, 'iotune-standin.service', '/srv/logs')
    main_on_host.mount('9:126', '/srv/logs')
    code, result = run_module(mod, {'arrays': [array()], 'holds': {'keep': ['cassandra.service']}}, capsys)
    assert code == 1 and 'drops the mount hold of iotune-standin.service on /srv/logs' in result['msg'], result['msg']
    assert result['msg'].startswith('preflight refused the plan (nothing was changed): ')
    code, result = run_module(mod, {'arrays': [array()], 'holds': {'keep': ['cassandra.service'],
                                                                   'release': ['iotune-standin']}}, capsys)
    assert code == 0, result


def test_main_refuses_a_plan_without_arrays_that_drops_a_hold(main_on_host, capsys):
    # iotune_arrays: [] on a converged host: the xfs stage would remove every drop-in of this collection
    holding(main_on_host, 'cassandra.service', '/var/lib/cassandra')
    main_on_host.mount('9:127', '/var/lib/cassandra')
    code, result = run_module(mod, {'arrays': [], 'holds': {'keep': []}}, capsys)
    assert code == 1 and 'drops the mount hold of cassandra.service on /var/lib/cassandra' in result['msg'], result
    code, result = run_module(mod, {'arrays': [], 'holds': {'keep': [], 'release': ['cassandra']}}, capsys)
    assert code == 0 and result['changed'] is False, result


def test_main_returns_the_os_family_from_os_release(main_on_host, capsys, monkeypatch):
    main_on_host.write('etc/os-release', 'ID=debian\nVERSION_ID="12"\n')
    code, result = run_module(mod, {'arrays': [], 'os_facts': True}, capsys)
    assert code == 0 and result['ansible_facts'] == {'os_family': 'Debian'}, result
    # a family os-release does not name: ansible-core's distribution facts (imported only then)
    main_on_host.write('etc/os-release', 'ID=haiku\n')
    seen = []

    class FakeDistribution(object):
        def __init__(self, module):
            seen.append(module)

        def get_distribution_facts(self):
            return {'os_family': 'Haiku', 'distribution': 'Haiku'}

    from ansible.module_utils.facts.system import distribution  # pylint: disable=import-outside-toplevel
    monkeypatch.setattr(distribution, 'Distribution', FakeDistribution)
    code, result = run_module(mod, {'arrays': [], 'os_facts': True}, capsys)
    assert code == 0 and result['ansible_facts'] == {'os_family': 'Haiku', 'distribution': 'Haiku'}, result
    assert len(seen) == 1


def test_a_unit_the_plan_holds_elsewhere_only_loses_its_hold_on_the_mounted_filesystem(host):
    # the converged array data holds cassandra on /var/lib/cassandra; a plan of another array alone names the
    # profile's default service cassandra again, for /srv/other: the xfs stage would rewrite the drop-in
    holding(host, 'cassandra.service', '/var/lib/cassandra')
    host.mount('9:127', '/var/lib/cassandra')
    found = pf.dropped_holds(host.view(), keep=['cassandra.service'], release=[],
                             mounts={'cassandra.service': ['/srv/other']})
    assert len(found) == 1 and found[0].startswith(
        'the plan drops the mount hold of cassandra.service on /var/lib/cassandra '), found
    # the plan holds it on both: nothing dropped; released: nothing refused; the unit-level check alone misses it
    assert pf.dropped_holds(host.view(), keep=[], release=[],
                            mounts={'cassandra': ['/srv/other', '/var/lib/cassandra/']}) == []
    assert pf.dropped_holds(host.view(), keep=[], release=['cassandra'], mounts={'cassandra': ['/srv/other']}) == []
    assert pf.dropped_holds(host.view(), keep=['cassandra.service'], release=[]) == []


def test_main_refuses_a_hold_moved_to_another_mount_point(main_on_host, capsys):
    holding(main_on_host, 'cassandra.service', '/var/lib/cassandra')
    main_on_host.mount('9:127', '/var/lib/cassandra')
    holds = {'keep': ['cassandra.service'], 'mounts': {'cassandra.service': ['/srv/logs']}}
    code, result = run_module(mod, {'arrays': [array(mountpoint='/srv/logs')], 'holds': holds}, capsys)
    assert code == 1 and 'drops the mount hold of cassandra.service on /var/lib/cassandra' in result['msg'], result
