# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Lab VM checks of the fio verification (cassandra profile).

Assumes the converge of playbooks/tune.yml with the cassandra profile: array ``data`` on
lab_disks[0:4] mounted at /var/lib/cassandra, ``iotune_report_dir`` =
$MOLECULE_EPHEMERAL_DIRECTORY/reports (group_vars of the scenario), so the role wrote
<report_dir>/<host>/verify.json on the controller.

The untuned comparison is measured here with the fio module at md's computed default readahead
(max(2 x optimal_io_size, 128 KiB), what the kernel sets when the array starts); the module
restores the profile's value afterwards, which is checked too.
"""

from __future__ import annotations

import json
import os

import pytest

# the converge's fio report and the readahead comparison: the same on every entry of the vm matrix
pytestmark = pytest.mark.any_entry(0)

MOUNTPOINT = '/var/lib/cassandra'
PROFILE_READ_AHEAD_KB = 8
JOB = 'mmap_rand4k'


def _report_path(host):
    # same rule as the scenario's group_vars (iotune_report_dir) and the role default ($PWD/iotune-reports)
    if os.environ.get('IOTUNE_REPORT_DIR'):
        base = os.environ['IOTUNE_REPORT_DIR']
    elif os.environ.get('MOLECULE_EPHEMERAL_DIRECTORY'):
        base = os.path.join(os.environ['MOLECULE_EPHEMERAL_DIRECTORY'], 'reports')
    else:
        base = os.path.join(os.getcwd(), 'iotune-reports')
    return os.path.join(base, host.backend.host, 'verify.json')


@pytest.fixture(scope='module')
def report(host):
    path = _report_path(host)
    assert os.path.isfile(path), 'verify report missing on the controller: %s' % path
    with open(path) as f:
        return json.load(f)


@pytest.fixture(scope='module')
def threshold(report):
    job = [j for j in report['jobs'] if j['name'] == JOB]
    assert job, 'job %s not in the report (jobs: %s)' % (JOB, [j['name'] for j in report['jobs']])
    checks = [c for c in job[0]['result']['thresholds'] if c['name'] == 'read_amplification_max']
    assert checks, 'the cassandra profile must set %s.read_amplification_max' % JOB
    return checks[0]['limit']


def _md_device(host):
    real = host.check_output('findmnt -n -o SOURCE --target %s' % MOUNTPOINT)
    return os.path.basename(host.check_output('readlink -f %s' % real))


def _fio(host, **args):
    base = dict(directory=MOUNTPOINT, expected_mount=MOUNTPOINT, name='testinfra_mmap', ioengine='mmap',
                rw='randread', bs='4k', fadvise_hint='0', size='256m', io_size='8m', runtime=120)
    base.update(args)
    result = host.ansible('iotune.storage.fio', ' '.join('%s=%s' % kv for kv in sorted(base.items())),
                          check=False)
    assert not result.get('failed'), result.get('msg')
    return result


def test_the_converge_left_no_test_file(host, report):
    """The verification's last job removes the test file the jobs shared (keep_file false on the last one; the role's
    own removal task runs only when the module did not say it removed it): none is left under the mount point."""
    assert report['jobs'], report
    assert not host.run("ls -A %s | grep '^iotune-fio\\.'" % MOUNTPOINT).stdout.strip()


def test_report_exists_and_passed(report, threshold):
    assert report['directory'] == MOUNTPOINT
    assert report['verdict'] in ('pass', 'noisy'), report.get('missed')
    job = [j for j in report['jobs'] if j['name'] == JOB][0]
    result = job['result']
    assert result['repeat'] >= 1 and len(result['runs']) == result['repeat']
    assert result['io_bytes'] > 0 and result['device_read_bytes'] > 0
    assert result['read_amplification'] <= threshold, job['summary']


def test_profile_readahead_is_in_force(host):
    md = _md_device(host)
    assert int(host.file('/sys/block/%s/queue/read_ahead_kb' % md).content_string) == PROFILE_READ_AHEAD_KB


def test_untuned_default_amplifies_and_profile_does_not(host, threshold):
    md = _md_device(host)
    io_opt = int(host.file('/sys/block/%s/queue/optimal_io_size' % md).content_string)
    md_default_kb = max(2 * io_opt // 1024, 128)
    assert md_default_kb > PROFILE_READ_AHEAD_KB

    untuned = _fio(host, read_ahead_kb=md_default_kb, keep_file='true')
    tuned = _fio(host, read_ahead_kb=PROFILE_READ_AHEAD_KB)

    assert untuned['read_ahead']['used'] == md_default_kb
    assert untuned['read_ahead']['restored'] is True
    assert untuned['device'] == md
    assert untuned['read_amplification'] > threshold, untuned['summary']
    assert tuned['read_amplification'] <= threshold, tuned['summary']
    assert untuned['device_read_bytes'] > tuned['device_read_bytes']
    # the members saw the reads (md splits them over the stripe)
    assert sum(m['device_read_bytes'] for m in untuned['members'].values()) >= untuned['device_read_bytes'] * 0.9
    # the profile value is back, and the module left no test file behind
    assert int(host.file('/sys/block/%s/queue/read_ahead_kb' % md).content_string) == PROFILE_READ_AHEAD_KB
    assert not host.file(MOUNTPOINT + '/iotune-fio.testinfra_mmap.dat').exists
