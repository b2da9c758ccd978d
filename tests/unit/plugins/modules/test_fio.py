# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Tests of the fio module against a fake /sys + /proc tree and a fake fio (run_command)."""

from __future__ import annotations

import os
import pathlib

import pytest

from ansible.module_utils import basic

from ansible_collections.iotune.storage.plugins.module_utils import fio as fio_job, kernel_log, process_group
from ansible_collections.iotune.storage.plugins.modules import fio
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.module_run import run_module as run_main

FIXTURES = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'fio')
MMAP_JSON = 'fio-3.33-mmap-randread-4k.json'      # 8 MiB read by the application
MIB = 1024 ** 2


def stat_line(read_ios, read_merges, read_sectors):
    return '%d %d %d 7 3 0 24 1 0 9 8 0 0 0 0 0 0\n' % (read_ios, read_merges, read_sectors)


class FioHost(object):
    """The shared fake host (``fake_host``) with md9 (9:9) of members vdb, vdc mounted on ``mnt``, and a fake fio."""

    def __init__(self, host, read_ahead_kb=4096):
        self.host = host
        self.root = pathlib.Path(host.root)
        self.sys = pathlib.Path(host.sys)
        self.proc = pathlib.Path(host.proc)
        self.mnt = self.root / 'mnt'
        self.dir = self.mnt / 'data'
        self.dir.mkdir(parents=True)
        for idx, m in enumerate(('vdb', 'vdc')):
            host.add_disk(m, '254:%d' % (16 * (idx + 1)), stat=stat_line(50, 0, 400).strip())
        host.add_disk('md9', '9:9', queue={'read_ahead_kb': '%d' % read_ahead_kb}, slaves=('vdb', 'vdc'),
                      stat=stat_line(100, 0, 800).strip())
        host.write('proc/sys/vm/drop_caches', '')
        host.mount('9:9', os.path.realpath(str(self.mnt)), 'xfs', '/dev/md9')
        self.calls = []
        self.drops = 0
        self.ra_seen = []
        self.fail_measured = False
        self.crash = None
        self.timeouts = []
        host.write('proc/sys/kernel/tainted', '1\n')      # a proprietary module, nothing died
        self.device_sectors = 2 * 8 * MIB // 512     # device reads per run: 2x the 8 MiB fio reads

    def ra(self):
        return int(self.host.read('sys/class/block/md9/queue/read_ahead_kb'))

    def bump(self, name, ios, sectors):
        rel = 'sys/class/block/%s/stat' % name
        v = [int(x) for x in self.host.read(rel).split()]
        v[0] += ios
        v[2] += sectors
        self.host.write(rel, ' '.join(str(x) for x in v) + '\n')

    def run_command(self, argv, **kwargs):
        self.calls.append(list(argv))
        if '--create_only=1' in argv:
            assert '--readonly' not in argv
            fname = [a.split('=', 1)[1] for a in argv if a.startswith('--filename=')]
            if fname and not os.path.exists(fname[0]):
                with open(fname[0], 'wb') as f:
                    f.write(b'\0' * 4096)
            return 0, '{"jobs": []}', ''
        assert '--readonly' in argv
        self.ra_seen.append(self.ra())
        if self.fail_measured:
            return 1, '', 'fio: pretend failure'
        self.bump('md9', 512, self.device_sectors)
        self.bump('vdb', 256, self.device_sectors // 2)
        self.bump('vdc', 256, self.device_sectors // 2)
        with open(os.path.join(FIXTURES, MMAP_JSON)) as f:
            return 0, f.read(), ''

    def run_fio(self, argv, timeout, **kwargs):
        """process_group.run: the fake fio above; a crash as set in ``self.crash``."""
        self.timeouts.append(timeout)
        if self.crash and '--readonly' in argv:
            self.calls.append(list(argv))
            self.ra_seen.append(self.ra())
            if self.crash.get('oops'):
                self.host.write('proc/sys/kernel/tainted', '%d\n' % (kernel_log.TAINT_DIE | 1))
            return process_group.GroupResult(**self.crash['result'])
        rc, out, err = self.run_command(argv, **kwargs)
        return process_group.GroupResult(rc, out, err)


@pytest.fixture
def host(fake_host, monkeypatch):
    h = FioHost(fake_host)
    monkeypatch.setattr(fio, 'HOST_ROOT', str(h.root))
    real_mount_point_of = fio_job.mount_point_of
    fake_mnt = os.path.realpath(str(h.mnt))

    def mount_point_of(path):    # the fake mountinfo mounts ``mnt``; os.path.ismount cannot know that
        path = os.path.realpath(path)
        return fake_mnt if path == fake_mnt or path.startswith(fake_mnt + '/') else real_mount_point_of(path)
    monkeypatch.setattr(fio_job, 'mount_point_of', mount_point_of)
    monkeypatch.setattr(process_group, 'run', h.run_fio)
    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda self, name, required=False, opt_dirs=None: '/usr/bin/fio')

    def drop(self):
        h.drops += 1
    monkeypatch.setattr(fio_job.Measurer, 'drop_caches', drop)
    return h


def run_module(capsys, args, check_mode=False):
    return run_main(fio, args, capsys, check_mode=check_mode)[1]


def base_args(h, **kw):
    args = dict(directory=str(h.dir), name='mmap_rand4k', ioengine='mmap', size='1m',
                io_size='8m', free_space_margin='1m')
    args.update(kw)
    return args


def test_measures_amplification_and_cleans_up(host, capsys):
    r = run_module(capsys, base_args(host, repeat=3, thresholds={'read_amplification_max': 1.5}))
    assert r.get('failed') is not True, r
    assert r['changed'] is False
    assert r['device'] == 'md9'
    assert r['io_bytes'] == 8 * MIB
    assert r['device_read_bytes'] == 16 * MIB
    assert r['read_amplification'] == 2.0
    assert r['avg_request_kb'] == 32.0
    assert r['members']['vdb']['device_read_bytes'] == 8 * MIB
    assert r['repeat'] == 3 and len(r['runs']) == 3
    assert r['noise']['read_amplification'] == 0.0
    assert r['thresholds_passed'] is False and r['verdict'] == 'fail'
    assert r['fio_version'] == 'fio-3.33'
    # one layout, three cold measured runs
    layout = [c for c in host.calls if '--create_only=1' in c]
    measured = [c for c in host.calls if '--readonly' in c]
    assert len(layout) == 1 and len(measured) == 3
    assert host.drops == 3
    assert '--fadvise_hint=0' in measured[0] and '--ioengine=mmap' in measured[0]
    assert '--output-format=json' in measured[0]
    # the test file is removed (keep_file=false) and nothing else was created; the result says so
    assert os.listdir(str(host.dir)) == []
    assert r['test_files_removed'] is True


def test_direct_jobs_do_not_drop_caches(host, capsys):
    r = run_module(capsys, base_args(host, direct=True, ioengine='libaio', iodepth=8))
    assert r['iops'] > 0
    assert host.drops == 0
    assert '--direct=1' in r['cmd']


def test_keep_file(host, capsys):
    r = run_module(capsys, base_args(host, keep_file=True, test_file='iotune-fio.shared.dat'))
    assert os.listdir(str(host.dir)) == ['iotune-fio.shared.dat']
    assert 'test_files_removed' not in r
    # the next call on the kept file removes it (the fio_verify role's last job) and says so
    r = run_module(capsys, base_args(host, test_file='iotune-fio.shared.dat'))
    assert os.listdir(str(host.dir)) == [] and r['test_files_removed'] is True


def test_a_test_file_that_cannot_be_removed_is_reported(host, capsys, monkeypatch):
    def refuse(path):
        raise OSError(13, 'Permission denied', path)
    monkeypatch.setattr(os, 'unlink', refuse)
    r = run_module(capsys, base_args(host))
    assert r['test_files_removed'] is False
    assert len(os.listdir(str(host.dir))) == 1


def test_read_ahead_set_for_the_run_and_restored(host, capsys):
    r = run_module(capsys, base_args(host, read_ahead_kb=8))
    assert host.ra_seen == [8]          # the measured fio run saw the new value
    assert host.ra() == 4096            # and it was put back
    assert r['read_ahead'] == {'device': 'md9', 'previous': 4096, 'used': 8, 'restored': True}
    assert r['changed'] is False


def test_read_ahead_restored_when_fio_fails(host, capsys):
    host.fail_measured = True
    r = run_module(capsys, base_args(host, read_ahead_kb=16))
    assert r['failed'] is True
    assert 'pretend failure' in r['msg']
    assert host.ra_seen == [16]
    assert host.ra() == 4096
    assert os.listdir(str(host.dir)) == []


def test_failed_measurement_reports_the_state_when_it_failed(host, capsys, monkeypatch):
    real = host.run_command

    def garbage(argv, **kwargs):
        rc, out, err = real(argv, **kwargs)
        return (rc, 'not json', err) if '--readonly' in argv else (rc, out, err)
    monkeypatch.setattr(host, 'run_command', garbage)
    r = run_module(capsys, base_args(host, read_ahead_kb=16))
    assert r['failed'] is True and r['msg'].startswith('measurement failed: ')
    assert r['runs'] == [] and r['read_ahead']['used'] == 16
    assert r['read_ahead']['restored'] is False     # as it was when the run failed; restored afterwards
    assert host.ra() == 4096


def test_run_job_false_only_sets_read_ahead(host, capsys):
    r = run_module(capsys, dict(directory=str(host.dir), read_ahead_kb=64, run_job=False))
    assert r['changed'] is True and host.ra() == 64 and host.calls == []
    r = run_module(capsys, dict(directory=str(host.dir), read_ahead_kb=64, run_job=False))
    assert r['changed'] is False


def test_run_job_false_without_value_reports_current(host, capsys):
    r = run_module(capsys, dict(directory=str(host.dir), run_job=False))
    assert r['changed'] is False and host.calls == []
    assert r['read_ahead']['device'] == 'md9' and r['read_ahead']['previous'] == 4096


def test_check_mode_runs_nothing(host, capsys):
    r = run_module(capsys, base_args(host, read_ahead_kb=8, repeat=2), check_mode=True)
    assert r['changed'] is False
    assert host.calls == [] and host.drops == 0 and host.ra() == 4096
    assert '--readonly' in r['cmd'] and '--create_only=1' in r['layout_cmd']
    assert 'would' in r['msg']
    assert os.listdir(str(host.dir)) == []


def test_check_mode_missing_directory_is_not_an_error(host, capsys):
    r = run_module(capsys, dict(directory=str(host.root / 'nope')), check_mode=True)
    assert not r.get('failed') and 'does not exist' in r['msg']


def test_missing_directory_fails(host, capsys):
    r = run_module(capsys, dict(directory=str(host.root / 'nope')))
    assert r['failed'] and 'does not exist' in r['msg']


def test_expected_mount_mismatch_refused(host, capsys):
    r = run_module(capsys, base_args(host, expected_mount='/var/lib/cassandra'))
    assert r['failed'] and 'expected_mount' in r['msg']
    assert host.calls == []


def test_expected_mount_match(host, capsys):
    r = run_module(capsys, base_args(host, expected_mount=fio_job.mount_point_of(str(host.dir))))
    assert not r.get('failed'), r


def test_not_on_a_block_device_refused(host, capsys):
    (host.proc / 'self' / 'mountinfo').write_text(
        '40 1 0:33 / %s rw - tmpfs tmpfs rw\n' % os.path.realpath(str(host.mnt)))
    r = run_module(capsys, base_args(host))
    assert r['failed'] and 'refusing' in r['msg'] and host.calls == []


def test_not_enough_free_space_refused(host, capsys):
    st = os.statvfs(str(host.dir))
    free = st.f_bavail * st.f_frsize
    # twice what is free now: other processes (the CI's VM images beside it) change the free space between this
    # statvfs and the module's own, and a size of exactly `free` was refused or not by that race
    r = run_module(capsys, base_args(host, size=str(2 * free)))
    assert r['failed'] and 'not enough free space' in r['msg'] and host.calls == []


@pytest.mark.parametrize('extra', [{'filename': '/dev/sda'}, {'rw': 'write'}, {'readonly': 0}, {'directory': '/'}])
def test_dangerous_extra_refused(host, capsys, extra):
    r = run_module(capsys, base_args(host, extra=extra))
    assert r['failed'] and 'not allowed' in r['msg'] and host.calls == []


def test_extra_options_passed(host, capsys):
    r = run_module(capsys, base_args(host, extra={'norandommap': True, 'randrepeat': 0}))
    assert '--norandommap' in r['cmd'] and '--randrepeat=0' in r['cmd']


@pytest.mark.parametrize('args, match', [
    ({'name': '../x'}, 'plain job name'),
    ({'repeat': 0}, 'repeat'),
    ({'time_based': True}, 'runtime'),
    ({'size': '10%'}, 'cannot interpret size'),
    ({'thresholds': {'speed_max': 1}}, 'unknown metric'),
    ({'test_file': 'data.db'}, 'must be a base name'),
])
def test_bad_arguments(host, capsys, args, match):
    r = run_module(capsys, base_args(host, **args))
    assert r['failed'] and match in r['msg'], r['msg']


def test_job_file_refusals(host, capsys, tmp_path):
    job = tmp_path / 'bad.fio'
    job.write_text('[a]\nrw=randread\nfilename=/dev/md9\n')
    r = run_module(capsys, dict(directory=str(host.dir), job_file=str(job), size='1m', free_space_margin='1m'))
    assert r['failed'] and 'filename' in r['msg'] and host.calls == []
    job.write_text('[a]\nrw=randwrite\n')
    r = run_module(capsys, dict(directory=str(host.dir), job_file=str(job), size='1m', free_space_margin='1m'))
    assert r['failed'] and 'only read and randread' in r['msg']


def test_job_file_runs(host, capsys, tmp_path):
    job = tmp_path / 'ok.fio'
    job.write_text('[global]\nioengine=mmap\nfadvise_hint=0\n[mmap]\nrw=randread\nio_size=8m\n')
    r = run_module(capsys, dict(directory=str(host.dir), job_file=str(job), size='1m', free_space_margin='1m'))
    assert not r.get('failed'), r
    assert r['read_amplification'] == 2.0
    assert r['cmd'][-1].endswith('job.fio') and '--readonly' in r['cmd']
    assert host.drops == 1


def test_size_auto_uses_free_space(host, capsys):
    r = run_module(capsys, base_args(host, size='auto'))
    st = os.statvfs(str(host.dir))
    free = st.f_bavail * st.f_frsize
    from ansible_collections.iotune.storage.plugins.module_utils.fio_report import auto_size
    assert r['size_bytes'] == auto_size(free)
    assert '--size=%d' % r['size_bytes'] in r['cmd']


# ---- extra guard (issue 9): keys are option names, not option strings ---------------------------


@pytest.mark.parametrize('extra', [
    {'filename=/dev/sda': None}, {'--filename=/x': None}, {'FileName': '/x'}, {'filename /x': None},
    {'output-format': 'json'}, {'output_format': 'json'}, {'size': '100g'}, {'exec_prerun': 'rm -rf /'},
    {'ioengine': 'exec'}, {'write_bw_log': '/etc/x'}, {' directory=/': True},
])
def test_reserved_extra_keys_refused_in_any_spelling(host, capsys, extra):
    r = run_module(capsys, base_args(host, extra=extra))
    assert r['failed'] and 'not allowed' in r['msg'], r['msg']
    assert host.calls == []


@pytest.mark.parametrize('extra, match', [
    ({'norandommap x': None}, 'plain fio option name'),
    ({'random_distribution': 'zipf:1.2\nfilename=/dev/sda'}, 'line break'),
    ({'a;b': 1}, 'plain fio option name'),
])
def test_malformed_extra_refused(host, capsys, extra, match):
    r = run_module(capsys, base_args(host, extra=extra))
    assert r['failed'] and match in r['msg'], r['msg']
    assert host.calls == []


def test_plain_extra_options_reach_fio_once_dashed(host, capsys):
    extra = {'norandommap': None, '--randrepeat': 0, 'random_distribution': 'zipf:1.2', 'gtod_reduce': True,
             'stonewall': False}
    r = run_module(capsys, base_args(host, extra=extra))
    assert not r.get('failed'), r.get('msg')
    for option in ('--norandommap', '--randrepeat=0', '--random_distribution=zipf:1.2', '--gtod_reduce', '--stonewall=0'):
        assert option in r['cmd'], (option, r['cmd'])
    assert not [a for a in r['cmd'] if a.startswith('---')], r['cmd']


# ---- page cache: auto drops only on a filesystem without files ------------------------------------


def test_drop_caches_auto_on_an_empty_filesystem_drops(host, capsys):
    (host.mnt / 'lost+found').mkdir()
    (host.mnt / 'lost+found' / '#123').write_text('x')
    r = run_module(capsys, base_args(host, repeat=2, drop_caches='auto'))
    assert not r.get('failed'), r
    assert host.drops == 2
    pc = r['page_cache']
    assert pc['mode'] == 'auto' and pc['host_cache_dropped'] is True and pc['data_found'] is None
    assert pc['test_file_evicted'] is True
    assert 'holds no files' in pc['note']


def test_drop_caches_auto_with_files_keeps_the_host_cache(host, capsys):
    (host.mnt / 'data' / 'ks').mkdir()
    (host.mnt / 'data' / 'ks' / 'nb-1-big-Data.db').write_text('sstable')
    r = run_module(capsys, base_args(host, repeat=2, drop_caches='auto'))
    assert not r.get('failed'), r
    assert host.drops == 0
    pc = r['page_cache']
    assert pc['host_cache_dropped'] is False and pc['data_found'].endswith('nb-1-big-Data.db')
    assert pc['test_file_evicted'] is True
    assert 'not dropped' in pc['note'] and 'drop_caches=always' in pc['note']


def test_drop_caches_bool_and_never(host, capsys):
    (host.mnt / 'data' / 'file').write_text('x')
    r = run_module(capsys, base_args(host, drop_caches=True))
    assert host.drops == 1 and r['page_cache']['mode'] == 'always' and r['page_cache']['host_cache_dropped']
    r = run_module(capsys, base_args(host, drop_caches='never'))
    assert host.drops == 1 and r['page_cache']['host_cache_dropped'] is False
    r = run_module(capsys, base_args(host, drop_caches=False))
    assert host.drops == 1 and r['page_cache']['mode'] == 'never'
    calls = len(host.calls)
    r = run_module(capsys, base_args(host, drop_caches='sometimes'))
    assert r['failed'] and 'drop_caches must be' in r['msg'] and len(host.calls) == calls


def test_test_file_is_evicted_before_every_buffered_run(host, capsys, monkeypatch):
    seen = []
    monkeypatch.setattr(fio_job.Measurer, 'evict', lambda self, paths: seen.append(list(paths)) or True)
    run_module(capsys, base_args(host, repeat=3, drop_caches='never'))
    assert seen == [[str(host.dir / 'iotune-fio.mmap_rand4k.dat')]] * 3
    seen[:] = []
    r = run_module(capsys, base_args(host, direct=True, ioengine='libaio'))
    assert seen == [] and r['page_cache']['note'].startswith('direct I/O')


# ---- processes holding files on the filesystem ------------------------------------------------


def add_process(h, pid, comm, cwd='/', fds=(), maps=''):
    base = h.proc / str(pid)
    (base / 'fd').mkdir(parents=True)
    (base / 'comm').write_text(comm + '\n')
    (base / 'cwd').symlink_to(cwd)
    for i, target in enumerate(fds):
        (base / 'fd' / str(i)).symlink_to(target)
    (base / 'maps').write_text(maps)


def maps_line(path, dev):
    return '7f0000000000-7f0000100000 r--s 00000000 %02x:%02x 1234    %s\n' % (os.major(dev), os.minor(dev), path)


def test_process_with_an_open_file_is_named_and_refused(host, capsys):
    held = host.dir / 'commitlog.log'
    held.write_text('x')
    add_process(host, 4242, 'java', fds=['/dev/null', str(held)])
    add_process(host, 77, 'sshd', fds=['/dev/null'])
    r = run_module(capsys, base_args(host))
    assert r['failed'] and 'refusing' in r['msg']
    assert 'pid 4242 (java, fd %s)' % held in r['msg'] and 'sshd' not in r['msg']
    assert 'allow_open_files' in r['msg']
    assert r['open_files'] == [{'pid': 4242, 'comm': 'java', 'how': 'fd', 'path': str(held)}]
    assert host.calls == [] and host.drops == 0


def test_mmapped_file_and_cwd_count(host, capsys):
    dev = os.stat(str(host.mnt)).st_dev
    sstable = str(host.dir / 'nb-1-big-Data.db')
    add_process(host, 10, 'java', maps=maps_line('/usr/lib/libc.so.6', dev + 1) + maps_line(sstable + ' (deleted)', dev))
    add_process(host, 11, 'bash', cwd=str(host.dir))
    add_process(host, 12, 'cron', maps=maps_line(sstable, dev + 1))     # same path, other device: no
    r = run_module(capsys, base_args(host), check_mode=True)
    assert r['failed']
    assert r['open_files'] == [{'pid': 10, 'comm': 'java', 'how': 'mmap', 'path': sstable},
                               {'pid': 11, 'comm': 'bash', 'how': 'cwd', 'path': str(host.dir)}]


def test_allow_open_files_runs(host, capsys):
    add_process(host, 11, 'bash', cwd=str(host.dir))
    r = run_module(capsys, base_args(host, allow_open_files=True))
    assert not r.get('failed'), r
    assert r['open_files'][0]['pid'] == 11 and r['iops'] > 0


def test_readahead_only_calls_never_refuse(host, capsys):
    add_process(host, 11, 'bash', cwd=str(host.dir))
    r = run_module(capsys, dict(directory=str(host.dir), run_job=False))
    assert not r.get('failed'), r


def crash(rc=-6, err='free(): double free detected in tcache 2', timed_out=False, ended=(7221,), oops=False):
    return dict(oops=oops, result=dict(rc=rc, out='', err=err, timed_out=timed_out, ended=list(ended)))


def test_fio_killed_by_a_signal_is_reported_as_a_crash(host, capsys):
    host.crash = crash()
    r = run_module(capsys, base_args(host, read_ahead_kb=16, timeout=90))
    assert r['failed'] is True
    assert r['msg'].startswith('fio measured run died (killed by SIGABRT); its leftover processes 7221 were ended')
    assert 'double free' in r['msg'] and 'oopsed' not in r['msg']
    assert r['crash'] == dict(rc=-6, signal='SIGABRT', timed_out=False, workers_ended=[7221],
                              stderr='free(): double free detected in tcache 2', kernel_died=False, kernel_oops=[])
    assert host.timeouts == [90, 90]                   # the layout and the measured run, each bounded
    assert host.ra() == 4096 and os.listdir(str(host.dir)) == []     # restored, test file removed


def test_kernel_oops_during_the_run_is_named_and_the_test_file_left(host, capsys):
    host.host.write('dev/kmsg', '6,100,5000,-;md/raid0:md9: 2 disks\n'
                                '1,101,6000,-;BUG: unable to handle page fault for address: fffffffffffffec8\n'
                                ' SUBSYSTEM=xfs\n'
                                '4,102,6001,-;RIP: 0010:xfs_read_iomap_begin+0x2b/0x1e0 [xfs]\n'
                                '4,103,6002,-;general protection fault, probably for non-canonical address\n')
    host.crash = crash(oops=True)
    r = run_module(capsys, base_args(host, read_ahead_kb=16))
    assert r['failed'] is True
    assert r['crash']['kernel_died'] is True
    assert r['crash']['kernel_oops'] == ['BUG: unable to handle page fault for address: fffffffffffffec8',
                                         'general protection fault, probably for non-canonical address']
    assert 'the kernel oopsed during the run (taint flag D): BUG: unable to handle page fault' in r['msg']
    left = os.path.join(str(host.dir), 'iotune-fio.mmap_rand4k.dat')
    assert r['crash']['test_files_left'] == [left] and 'test files left in place: ' + left in r['msg']
    assert os.path.exists(left)                        # not unlinked on a broken filesystem
    assert host.ra() == 4096                           # readahead is a sysfs write: still restored


def test_a_kernel_that_oopsed_before_is_not_measured_on(host, capsys):
    host.host.write('proc/sys/kernel/tainted', '%d\n' % kernel_log.TAINT_DIE)
    host.host.write('dev/kmsg', '1,7,900,-;BUG: kernel NULL pointer dereference, address: 0000000000000008\n')
    for check_mode in (True, False):
        r = run_module(capsys, base_args(host), check_mode=check_mode)
        assert r['failed'] is True
        assert r['msg'] == ('refusing to measure %s: the kernel has oopsed since it booted (taint flag D): BUG: '
                            'kernel NULL pointer dereference, address: 0000000000000008. A measurement on it can '
                            'hang or crash; reboot the host first' % host.dir)
    assert host.calls == [] and os.listdir(str(host.dir)) == []


def test_only_the_oops_lines_logged_during_the_run_are_reported(host, capsys):
    host.host.write('proc/uptime', '100.50 180.00\n')              # the run starts 100.5 s after boot
    host.host.write('dev/kmsg', '4,90,99000000,-;BUG: Bad page state in process bash\n'
                                '1,91,101000000,-;BUG: unable to handle page fault for address: fffffffffffffec8\n')
    host.crash = crash(oops=True)
    r = run_module(capsys, base_args(host))
    assert r['crash']['kernel_oops'] == ['BUG: unable to handle page fault for address: fffffffffffffec8']


def test_a_crash_of_the_layout_names_the_planned_file(host, capsys, monkeypatch):
    real = host.run_fio

    def layout_dies(argv, timeout, **kw):
        if '--create_only=1' in argv:
            host.host.write('proc/sys/kernel/tainted', '%d\n' % kernel_log.TAINT_DIE)
            return process_group.GroupResult(-11, '', 'fio: pid=1 disappeared 11')
        return real(argv, timeout, **kw)
    monkeypatch.setattr(process_group, 'run', layout_dies)
    r = run_module(capsys, base_args(host))
    assert r['msg'].startswith('fio layout died (killed by SIGSEGV)')
    assert r['crash']['test_files_left'] == [os.path.join(str(host.dir), 'iotune-fio.mmap_rand4k.dat')]


def test_time_limit_ends_fio(host, capsys):
    host.crash = crash(rc=-15, err='', timed_out=True, ended=(7220, 7221))
    r = run_module(capsys, base_args(host, timeout=30))
    assert r['msg'].startswith('fio measured run did not finish within 30 s and was ended; '
                               'its leftover processes 7220, 7221 were ended')
    assert r['crash']['timed_out'] is True


def test_timeout_must_be_positive(host, capsys):
    r = run_module(capsys, base_args(host, timeout=0))
    assert r['failed'] is True and r['msg'] == 'timeout must be >= 1 (seconds)'
    assert host.calls == []
