# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os
import re

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import fio_report as fr
from ansible_collections.iotune.storage.plugins.module_utils.fio_report import FioReportError
from ansible_collections.iotune.storage.plugins.module_utils.sysfs_block import read_block_stat

FIXTURES = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'fio')


def fixture_text(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return f.read()


def fixture(name):
    return fr.load_fio_json(fixture_text(name))


# ---- sizes -----------------------------------------------------------------------------------------

@pytest.mark.parametrize('value, expected', [
    (4096, 4096), ('4k', 4096), ('4K', 4096), ('512m', 512 * 1024 ** 2), ('1g', 1024 ** 3),
    ('1GiB', 1024 ** 3), ('2G', 2 * 1024 ** 3), ('1.5m', 1572864), ('100', 100), (None, None),
])
def test_parse_size(value, expected):
    assert fr.parse_size(value) == expected


@pytest.mark.parametrize('value', ['10%', '1g-2g', 'lots', '', -1, True])
def test_parse_size_refuses(value):
    with pytest.raises(FioReportError):
        fr.parse_size(value)


def test_auto_size_clamps_and_reuses_existing():
    gib = 1024 ** 3
    assert fr.auto_size(100 * gib) == gib                   # capped at 1 GiB
    assert fr.auto_size(100 * 1024 ** 2) == 64 * 1024 ** 2  # floor 64 MiB
    assert fr.auto_size(1000 * 1024 ** 2) == 250 * 1024 ** 2
    assert fr.auto_size(1001 * 1024 ** 2 + 7) % (1024 ** 2) == 0
    assert fr.auto_size(100 * gib, existing_bytes=123456789) == 123456789


# ---- fio JSON (captured fio 3.33 on this project's host, XFS on a loop device) ------------------------

def test_fio_333_mmap_summary():
    data = fixture('fio-3.33-mmap-randread-4k.json')
    s = fr.summarize_fio(data)
    assert s['fio_version'] == 'fio-3.33'
    assert s['io_bytes'] == 8388608
    assert s['iops'] == pytest.approx(21333.333, rel=1e-6)
    assert s['runtime_ms'] == 96
    # no lat_percentiles in this run: completion latency is used, ns -> us
    assert s['latency_source'] == 'clat_ns'
    assert s['p50_us'] == pytest.approx(1.896)
    assert s['p99_us'] == pytest.approx(1482.752)
    assert s['p99_9_us'] == pytest.approx(2867.2)
    # fio 3.33 has no read_sectors in disk_util: no cross-check value
    assert 'read_sectors' not in data['disk_util'][0]
    assert fr.disk_util_read_bytes(data, 'loop0') is None


def test_fio_333_total_latency_preferred_when_present():
    s = fr.summarize_fio(fixture('fio-3.33-psync-randread-4k-latpct.json'))
    assert s['latency_source'] == 'lat_ns'
    assert s['p50_us'] == pytest.approx(30.848)
    assert s['p95_us'] == pytest.approx(38.656)
    assert s['p99_us'] == pytest.approx(146.432)
    assert s['p99_9_us'] == pytest.approx(2736.128)


def test_fio_333_two_jobs_are_summed():
    data = fixture('fio-3.33-libaio-seqread-1m-2jobs.json')
    jobs = data['jobs']
    s = fr.summarize_fio(data)
    assert len(s['jobs']) == 2
    assert s['io_bytes'] == jobs[0]['read']['io_bytes'] + jobs[1]['read']['io_bytes']
    assert s['bw_bytes'] == jobs[0]['read']['bw_bytes'] + jobs[1]['read']['bw_bytes']
    assert s['iops'] == pytest.approx(jobs[0]['read']['iops'] + jobs[1]['read']['iops'], rel=1e-6)
    assert s['runtime_ms'] == max(jobs[0]['read']['runtime'], jobs[1]['read']['runtime'])
    worst = max(j['read']['clat_ns']['percentile']['99.000000'] for j in jobs) / 1000.0
    assert s['p99_us'] == pytest.approx(worst)


def test_handwritten_336_format_disk_util_read_sectors():
    data = fixture('handwritten-fio-3.36-format-md0-disk-util-read-sectors.json')
    assert fr.disk_util_read_bytes(data, 'md0') == 262144 * 512
    assert fr.disk_util_read_bytes(data, 'vdb') == 65536 * 512
    assert fr.disk_util_read_bytes(data, 'sda') is None


def test_load_skips_warnings_before_json():
    text = 'fio: this platform does not support something\n' + fixture_text('fio-3.33-mmap-randread-4k.json')
    assert fr.load_fio_json(text)['jobs'][0]['jobname'] == 'mmap_rand4k'


@pytest.mark.parametrize('text', ['', 'fio: file not found\n', '{"jobs": []}', '{broken'])
def test_load_refuses_garbage(text):
    with pytest.raises(FioReportError):
        fr.load_fio_json(text)


def test_job_error_is_reported():
    data = fixture('fio-3.33-mmap-randread-4k.json')
    data['jobs'][0]['error'] = 5
    with pytest.raises(FioReportError, match='error 5'):
        fr.summarize_fio(data)


# ---- stat deltas and amplification with fake sysfs stat files ------------------------------------------

def write_stat(sys_root, name, read_ios, read_merges, read_sectors):
    d = sys_root / 'class' / 'block' / name
    d.mkdir(parents=True, exist_ok=True)
    # 17 fields like a current kernel; only the read side matters here
    (d / 'stat').write_text('%8d %8d %8d %8d %8d %8d %8d %8d %8d %8d %8d 0 0 0 0 0 0\n'
                            % (read_ios, read_merges, read_sectors, 10, 5, 0, 40, 3, 0, 20, 13))


def test_amplification_from_fake_sysfs(tmp_path):
    data = fixture('fio-3.33-mmap-randread-4k.json')      # 8 MiB read by the application
    write_stat(tmp_path, 'md0', 1000, 0, 2000)
    write_stat(tmp_path, 'vdb', 500, 1, 1000)
    write_stat(tmp_path, 'vdc', 500, 2, 1000)
    before = read_block_stat('md0', str(tmp_path))
    mb = dict((m, read_block_stat(m, str(tmp_path))) for m in ('vdb', 'vdc'))
    # the device read 16 MiB (32768 sectors) in 512 requests: 2x amplification, 32 KiB requests
    write_stat(tmp_path, 'md0', 1512, 0, 2000 + 32768)
    write_stat(tmp_path, 'vdb', 756, 3, 1000 + 16384)
    write_stat(tmp_path, 'vdc', 756, 2, 1000 + 16384)
    after = read_block_stat('md0', str(tmp_path))
    ma = dict((m, read_block_stat(m, str(tmp_path))) for m in ('vdb', 'vdc'))
    r = fr.build_run_result(data, 'md0', before, after, mb, ma)
    assert r['device'] == 'md0'
    assert r['device_read_bytes'] == 16 * 1024 ** 2
    assert r['device_read_ios'] == 512
    assert r['device_read_merges'] == 0
    assert r['avg_request_kb'] == 32.0
    assert r['read_amplification'] == 2.0
    assert r['device_bw_bytes'] == int(16 * 1024 ** 2 * 1000 / 96)
    assert r['members']['vdb'] == {
        'device_read_bytes': 8 * 1024 ** 2, 'device_read_ios': 256, 'device_read_merges': 2,
        'avg_request_kb': 32.0, 'device_bw_bytes': int(8 * 1024 ** 2 * 1000 / 96)}
    assert r['members']['vdc']['device_read_merges'] == 0
    assert r['fio_disk_util_read_bytes'] is None


def test_no_device_reads_means_no_request_size():
    d = fr.device_numbers({'read_ios': 0, 'read_merges': 0, 'read_sectors': 0}, 1000)
    assert d['avg_request_kb'] is None
    assert d['device_bw_bytes'] == 0
    assert fr.read_amplification(0, 4096) == 0.0
    assert fr.read_amplification(4096, 0) is None


def test_counter_going_backwards_is_an_error():
    with pytest.raises(FioReportError, match='backwards'):
        fr.stat_delta({'read_ios': 10, 'read_merges': 0, 'read_sectors': 80},
                      {'read_ios': 2, 'read_merges': 0, 'read_sectors': 16})


# ---- repeats: median, noise, thresholds, verdicts ------------------------------------------------

def run(iops, amp, p99=100.0):
    return {'iops': iops, 'read_amplification': amp, 'p99_us': p99, 'device': 'md0',
            'members': {'vdb': {'device_read_bytes': int(amp * 100)}}}


def test_median_and_noise():
    assert fr.median([3, 1, 2]) == 2
    assert fr.median([4, 1, 2, 3]) == 2.5
    assert fr.median([None, 5]) == 5
    assert fr.median([]) is None
    assert fr.noise([90, 100, 110]) == 0.2
    assert fr.noise([7]) == 0.0
    assert fr.noise([0, 0]) == 0.0
    assert fr.noise([None]) is None


def test_aggregate_runs_flags_noise():
    agg = fr.aggregate_runs([run(1000, 1.0), run(1100, 1.0), run(900, 1.02)], noise_max=0.25)
    assert agg['iops'] == 1000
    assert agg['read_amplification'] == 1.0
    assert agg['noise']['iops'] == 0.2
    assert agg['noisy'] is False
    assert agg['repeat'] == 3
    assert agg['members']['vdb']['device_read_bytes'] == 100
    noisy = fr.aggregate_runs([run(1000, 1.0), run(2000, 1.0), run(900, 1.0)], noise_max=0.2)
    assert noisy['noisy'] is True
    assert noisy['noise']['iops'] == 1.1


def test_thresholds_and_verdicts():
    agg = fr.aggregate_runs([run(1000, 3.0), run(1010, 3.1), run(990, 2.9)])
    passed, checks = fr.check_thresholds(agg, {'read_amplification_max': 2.0, 'iops_min': 500}, 0.2)
    assert passed is False
    by = dict((c['name'], c) for c in checks)
    assert by['read_amplification_max']['passed'] is False
    assert by['read_amplification_max']['value'] == 3.0
    assert by['read_amplification_max']['trusted'] is True
    assert by['iops_min']['passed'] is True
    assert fr.verdict(checks, 0.2) == 'fail'
    ok, checks = fr.check_thresholds(agg, {'read_amplification_max': 3.5}, 0.2)
    assert ok and fr.verdict(checks, 0.2) == 'pass'
    assert fr.check_thresholds(agg, {}) == (True, [])


def test_noisy_miss_is_not_trusted():
    agg = fr.aggregate_runs([run(100, 1.0), run(1000, 1.0), run(500, 1.0)])
    passed, checks = fr.check_thresholds(agg, {'iops_min': 800, 'read_amplification_max': 2}, 0.2)
    assert not passed
    assert fr.verdict(checks, 0.2) == 'noisy'
    line = fr.summary_line('rand8k', agg, 'noisy')
    assert line.startswith('rand8k') and line.rstrip().endswith('noisy')


def test_unmeasured_metric_fails_its_threshold():
    passed, checks = fr.check_thresholds({'p99_us': None}, {'p99_us_max': 10})
    assert not passed and checks[0]['value'] is None


@pytest.mark.parametrize('thresholds, match', [
    ({'read_amplification': 2}, '_max or _min'),
    ({'speed_max': 2}, 'unknown metric'),
    ({'iops_min': 'many'}, 'not a number'),
])
def test_bad_thresholds(thresholds, match):
    with pytest.raises(FioReportError, match=match):
        fr.check_thresholds({}, thresholds)


def test_summary_line_columns():
    agg = fr.aggregate_runs([dict(run(21333.3, 24.15, 1482.75), bw_bytes=87381333, avg_request_kb=116.0)])
    line = fr.summary_line('mmap_rand4k', agg, 'fail')
    assert line.split() == ['mmap_rand4k', '21333', '83.3MiB/s', '24.15x', '1483us', '116.0k', '0%', 'fail']
    assert len(fr.SUMMARY_HEADER.split()) == 8


def test_job_file_sections():
    text = '; comment\n[global]\nioengine=mmap\n\n[a]\nrw=randread\nsize=64m\n# x\n[b]\ndirect\n'
    sections = fr.count_job_file_sections(text)
    assert [s for s, _o in sections] == ['global', 'a', 'b']
    assert sections[1][1] == {'rw': 'randread', 'size': '64m'}
    assert sections[2][1] == {'direct': ''}
    with pytest.raises(FioReportError):
        fr.count_job_file_sections('rw=read\n')


# fio-VERSION-IOENGINE-PATTERN-BS[-Njobs...].json: captured from that fio; handwritten-fio-VERSION-...: written by hand
CAPTURED = re.compile(r'^fio-(?P<version>[0-9.]+)-(?P<ioengine>[a-z_0-9]+)-(?P<rw>seqread|randread)-(?P<bs>[0-9]+[kmg])\b')
HANDWRITTEN = re.compile(r'^handwritten-fio-(?P<version>[0-9.]+)-')
PATTERN_RW = {'seqread': 'read', 'randread': 'randread'}


def test_fixture_files_are_fio_reports_as_named():
    """Every file of fixtures/fio is a fio report the module reads (load_fio_json, summarize_fio: jobs, no job
    error, bytes read), from the fio version its name gives; a captured one ran the ioengine, pattern, block size
    and number of jobs its name gives."""
    names = sorted(os.listdir(FIXTURES))
    assert len(names) >= 4, names
    for name in names:
        data = fixture(name)
        totals = fr.summarize_fio(data)
        assert totals['io_bytes'] > 0 and totals['iops'] > 0, name
        named = CAPTURED.match(name) or HANDWRITTEN.match(name)
        assert named, '%s: neither fio-VERSION-IOENGINE-PATTERN-BS nor handwritten-fio-VERSION-' % name
        assert data['fio version'] == 'fio-' + named.group('version'), name
        if named.re is CAPTURED:
            jobs = re.search(r'-([0-9]+)jobs\b', name)
            assert len(data['jobs']) == (int(jobs.group(1)) if jobs else 1), name
            expected = (named.group('ioengine'), PATTERN_RW[named.group('rw')], named.group('bs'))
            for job in data['jobs']:
                options = job['job options']
                assert (options['ioengine'], options['rw'], options['bs']) == expected, name
