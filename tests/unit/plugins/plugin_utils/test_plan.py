# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The tune plan: every input validated on the controller, nothing coerced silently."""

from __future__ import annotations

import copy
import os

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.tune_plan import tune_plan
from ansible_collections.iotune.storage.plugins.module_utils import mount_holds
from ansible_collections.iotune.storage.plugins.plugin_utils.plan import (
    PlanError, build_plan, normalise_mountpoint, strict_int)

PROFILES = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'roles', 'profile', 'vars', 'profiles')


def profile_data(name='cassandra'):
    with open(os.path.join(PROFILES, name + '.yml')) as f:
        return yaml.safe_load(f)['profile_data']


def arrays(**changes):
    entry = {'name': 'data', 'devices': ['/dev/disk/by-id/virtio-a', '/dev/disk/by-id/virtio-b'],
             'mountpoint': '/var/lib/cassandra'}
    entry.update(changes)
    return [entry]


def problems(overrides=None, arrays_=None, profile='cassandra'):
    with pytest.raises(PlanError) as e:
        build_plan(profile, profile_data(profile), overrides or {}, arrays() if arrays_ is None else arrays_)
    return str(e.value)


# --- the plan ---------------------------------------------------------------------------------

def test_plan_of_the_readme_example():
    plan = build_plan('cassandra', profile_data(), {}, arrays(chunk_kb=256))
    assert plan['raid0_arrays'] == [{'name': 'data', 'devices': ['/dev/disk/by-id/virtio-a', '/dev/disk/by-id/virtio-b'],
                                     'chunk_kb': 256, 'wipe_devices': [], 'allow_shared_disk': [],
                                     'allow_single_device': False, 'ephemeral': False}]
    fs = plan['xfs_filesystems'][0]
    assert fs['device'] == '/dev/md/data' and fs['label'] == 'data' and fs['mountpoint'] == '/var/lib/cassandra'
    assert fs['mount_options'] == ['noatime'] and fs['allow_data'] is False
    # owner/group/mode only when asked for (a re-run must not reset a database's ownership)
    assert 'owner' not in fs and 'group' not in fs and 'mode' not in fs
    assert plan['block_tuning_devices'][0] == {'md_name': 'data', 'read_ahead_kb': 8, 'nomerges': 2}
    assert [d['device'] for d in plan['block_tuning_devices'][1:]] == arrays()[0]['devices']
    assert plan['fio_verify'][0]['directory'] == '/var/lib/cassandra'
    assert plan['preflight_arrays'][0]['chunk_kb'] == 256


def test_profile_defaults_and_overrides():
    plan = build_plan('cassandra', profile_data(), {'array': {'read_ahead_kb': 16}, 'raid_chunk_kb': '64'}, arrays())
    assert plan['profile']['array']['read_ahead_kb'] == 16
    assert plan['raid0_arrays'][0]['chunk_kb'] == 64          # digits in a string (-e) are a number
    assert plan['profile']['members']['read_ahead_kb'] == 8   # untouched by the override


def test_owner_group_mode_and_services_pass_through():
    plan = build_plan('cassandra', profile_data(), {}, arrays(owner='cassandra', group='cassandra', mode='0750',
                                                              services=['cassandra', 'jmx-exporter.service']))
    fs = plan['xfs_filesystems'][0]
    assert (fs['owner'], fs['group'], fs['mode']) == ('cassandra', 'cassandra', '0750')
    assert fs['services'] == ['cassandra.service', 'jmx-exporter.service']


def test_wipe_opt_in_allows_data_on_the_array():
    plan = build_plan('cassandra', profile_data(), {}, arrays(wipe_devices=['/dev/disk/by-id/virtio-a']))
    assert plan['xfs_filesystems'][0]['allow_data'] is True


def test_extra_tuning_is_appended_first():
    extra = [{'kernel': 'rbd*', 'read_ahead_kb': 4096}]
    plan = build_plan('cassandra', profile_data(), {}, arrays(), extra)
    assert plan['block_tuning_devices'][0] == extra[0]


@pytest.mark.parametrize('given, wanted', [
    ('/data/', '/data'), ('//data', '/data'), ('/data/./x', '/data/x'),
    ('/var/lib/cassandra//', '/var/lib/cassandra'),
])
def test_mountpoints_are_normalised(given, wanted):
    assert normalise_mountpoint(given) == (wanted, None)
    plan = build_plan('cassandra', profile_data(), {}, arrays(mountpoint=given))
    assert plan['xfs_filesystems'][0]['mountpoint'] == wanted


# --- refusals: each names the key -------------------------------------------------------------

@pytest.mark.parametrize('overrides, expected', [
    ({'array': {'read_ahead_kb': '16k'}}, "array.read_ahead_kb must be a whole number of KiB, got '16k'"),
    ({'members': {'read_ahead_kb': 'abc'}}, "members.read_ahead_kb must be a whole number of KiB, got 'abc'"),
    ({'array': {'read_ahead_kb': -1}}, 'array.read_ahead_kb must be >= 0'),
    ({'array': {'read_ahead_kb': True}}, 'array.read_ahead_kb must be an integer'),
    ({'readahead_kb': 16}, 'iotune_profile_overrides: unknown key readahead_kb'),
    ({'raid_chunk': 64}, 'iotune_profile_overrides: unknown key raid_chunk'),
    ({'array': {'readahead': 16}}, 'unknown key array.readahead'),
    ({'raid_chunk_kb': 0}, 'raid_chunk_kb must be >= 4, got 0'),
    ({'raid_chunk_kb': 96}, 'raid_chunk_kb must be a power of two'),
    ({'members': {'scheduler_by_class': {'nvme': 5}}}, "scheduler_by_class.nvme must be a scheduler name, got 5"),
    ({'members': {'scheduler_by_class': {'floppy': 'none'}}}, "unknown device class 'floppy'"),
    ({'mount_options': 'noatime'}, 'mount_options must be a list of strings'),
    ({'fio_verify_thresholds': {'nojob': {}}}, 'fio_verify_thresholds for unknown jobs: nojob'),
])
def test_profile_refusals(overrides, expected):
    assert expected in problems(overrides)


def test_custom_profile_names_every_missing_key():
    msg = problems(profile='custom')
    assert 'raid_chunk_kb, array.read_ahead_kb, members.read_ahead_kb' in msg


@pytest.mark.parametrize('changes, expected', [
    ({'chunk_kb': 0}, 'chunk_kb must be >= 4, got 0'),
    ({'chunk_kb': '256k'}, "chunk_kb must be a whole number of KiB, got '256k'"),
    ({'chunk_kb': 100}, 'chunk_kb must be a power of two'),
    ({'chunk_kb': 524288, 'devices': ['/dev/vdb', '/dev/vdc', '/dev/vdd', '/dev/vde']},
     'mkfs.xfs refuses a stripe width of 2 GiB or more'),
    ({'name': '.'}, "name '.' must be 1-32"),
    ({'name': '..'}, "name '..' must be 1-32"),
    ({'name': 'data\n'}, "name 'data\\n' must be 1-32"),
    ({'name': 'a' * 33}, 'must be 1-32'),
    ({'name': 'da ta'}, 'must be 1-32'),
    ({'label': 'thirteen_char'}, "label 'thirteen_char' must be 1-12"),
    ({'mount_options': ['noatime', 'nobarrier']}, 'nobarrier is refused: removed from XFS in Linux 4.19'),
    ({'mount_options': ['noatime,nodiratime']}, 'is not one mount option'),
    ({'mount_options': ['noauto']}, 'noauto is refused'),
    ({'mountpoint': '/'}, 'the root directory'),
    ({'mountpoint': '/var/'}, '/var is a system directory'),
    ({'mountpoint': '/usr/./'}, '/usr is a system directory'),
    ({'mountpoint': '/data/../etc'}, 'mountpoint must not contain ..'),
    ({'mountpoint': '/etc/'}, '/etc is a system directory'),
    ({'mountpoint': 'data'}, 'must be an absolute path'),
    ({'mountpoint': '/da ta'}, 'white space'),
    ({'devices': ['/dev/vdb']}, 'allow_single_device: true'),
    ({'devices': ['/dev/vdb', '/dev/vdb']}, 'devices are not unique'),
    ({'devices': ['vdb', '/dev/vdc']}, 'devices must be /dev paths: vdb'),
    ({'devices': '/dev/vdb'}, 'devices must be a list of strings'),
    ({'wipe_devices': ['/dev/vdz']}, 'wipe_devices not in devices: /dev/vdz'),
    ({'allow_shared_disk': ['/dev/vdz']}, 'allow_shared_disk not in devices: /dev/vdz'),
    ({'mode': 750}, "mode 750 must be a quoted octal string"),
    ({'owner': 'bad user'}, "owner 'bad user' is not a user/group name"),
    ({'services': ['cassandra.socket']}, 'is a .socket unit'),
    ({'services': ['-x']}, 'is not a systemd unit name'),
    ({'allow_nonempty_mountpoint': 'yes'}, 'allow_nonempty_mountpoint must be true or false'),
    ({'ephemeral': 'yes'}, "ephemeral must be true or false, got 'yes'"),
    ({'ephemeral': 1}, 'ephemeral must be true or false, got 1'),
    ({'readahead_kb': 8}, "unknown key 'readahead_kb'"),
    ({'mountpoint': None}, 'mountpoint is required'),
    ({'move_from': 'old'}, 'move_from must be an absolute path'),
    ({'mountpoint': '/$HOME'}, "mountpoint must be a literal path without $ or ~"),
    ({'mountpoint': '/~root/data'}, "mountpoint must be a literal path without $ or ~"),
    ({'mountpoint': '/srv/data/../../etc'}, 'mountpoint must not contain ..'),
    ({'move_from': '/srv/${X}'}, 'move_from must be a literal path'),
    ({'move_from': '/var/lib/cassandra/'}, 'move_from /var/lib/cassandra is the mountpoint itself'),
    ({'move_from': '/usr'}, 'move_from /usr is a system directory'),
])
def test_array_refusals(changes, expected):
    msg = problems(arrays_=arrays(**changes))
    assert expected in msg
    assert msg.startswith("iotune_arrays entry '")


def test_move_from_reaches_the_preflight_and_the_xfs_stage():
    plan = build_plan('cassandra', profile_data(), {}, arrays(move_from='/srv//old/'))
    assert plan['preflight_arrays'][0]['move_from'] == '/srv/old'
    assert plan['xfs_filesystems'][0]['move_from'] == '/srv/old'
    assert build_plan('cassandra', profile_data(), {}, arrays())['preflight_arrays'][0]['move_from'] is None


def test_single_device_allowed_when_asked():
    plan = build_plan('cassandra', profile_data(), {}, arrays(devices=['/dev/vdb'], allow_single_device=True))
    assert plan['raid0_arrays'][0]['allow_single_device'] is True


def test_ephemeral_arrays_are_planned_only_when_asked():
    assert build_plan('cassandra', profile_data(), {}, arrays())['ephemeral_arrays'] == []
    assert build_plan('cassandra', profile_data(), {}, arrays(ephemeral=False))['ephemeral_arrays'] == []
    plan = build_plan('cassandra', profile_data(), {}, arrays(ephemeral=True, chunk_kb=256, owner='cassandra',
                                                              mode='0750'))
    assert plan['ephemeral_arrays'] == [{
        'name': 'data', 'devices': ['/dev/disk/by-id/virtio-a', '/dev/disk/by-id/virtio-b'], 'chunk_kb': 256,
        'allow_single_device': False, 'label': 'data', 'mountpoint': '/var/lib/cassandra',
        'mount_options': ['noatime'], 'owner': 'cassandra', 'group': None, 'mode': '0750',
        'services': ['cassandra.service'], 'mkfs_discard': False}]     # cassandra's mkfs: {discard: false}
    assert 'members' not in plan['ephemeral_arrays'][0]     # plain paths: nothing to resolve at boot
    # the raid0 role sees the same array as without ephemeral, marked (no initramfs rebuild for its ARRAY line alone)
    plain = build_plan('cassandra', profile_data(), {}, arrays(chunk_kb=256))['raid0_arrays']
    assert plan['raid0_arrays'] == [dict(plain[0], ephemeral=True)] and plain[0]['ephemeral'] is False


def test_across_arrays():
    two = arrays() + [{'name': 'data', 'devices': ['/dev/disk/by-id/virtio-a', '/dev/vdx'], 'mountpoint': '/var/lib/cassandra/'}]
    msg = problems(arrays_=two)
    assert 'array names must be unique across arrays: data' in msg
    assert 'mount points must be unique across arrays: /var/lib/cassandra' in msg
    assert 'a device can be a member of one array only: /dev/disk/by-id/virtio-a (in data, data)' in msg


def test_nested_mount_points_are_refused():
    two = arrays() + [{'name': 'logs', 'devices': ['/dev/vdx', '/dev/vdy'], 'mountpoint': '/var/lib/cassandra/commitlog'}]
    assert 'lies inside /var/lib/cassandra' in problems(arrays_=two)


def test_a_broken_profile_is_reported_before_the_arrays_are_judged_against_it():
    msg = problems({'readahead_kb': 1}, arrays(name='.'))
    assert 'unknown key readahead_kb' in msg and "name '.'" not in msg


def test_all_array_problems_listed_together():
    msg = problems(arrays_=arrays(name='..', label='x' * 13, chunk_kb=0, mountpoint='/'))
    for part in ("name '..'", 'label', 'chunk_kb must be >= 4', 'the root directory'):
        assert part in msg


def test_strict_int():
    assert strict_int('  16 ', 'x') == 16
    for bad in ('16k', '', 1.5, None, False, '0x10'):
        with pytest.raises(ValueError):
            strict_int(bad, 'x')


def test_filter_raises_ansible_error_and_changes_no_input():
    given = arrays(name='.')
    before = copy.deepcopy(given)
    with pytest.raises(AnsibleFilterError, match='nothing was changed'):
        tune_plan(profile_data(), 'cassandra', {}, given)
    assert given == before


# every profile file but custom (whose required values are left for the user)
SHIPPED = sorted(f[:-4] for f in os.listdir(PROFILES) if f.endswith('.yml') and f != 'custom.yml')


def test_the_shipped_profiles_are_found():
    assert {'cassandra', 'mongodb', 'streaming'} <= set(SHIPPED)


@pytest.mark.parametrize('name', SHIPPED + ['custom'])
def test_every_profile_file_has_its_docs_section(name):
    """docs/profiles.md describes each profile under its own heading (a new profile file needs its section)."""
    with open(os.path.join(PROFILES, '..', '..', '..', '..', 'docs', 'profiles.md')) as f:
        assert '\n## %s\n' % name in f.read()


@pytest.mark.parametrize('name', SHIPPED)
def test_every_shipped_profile_plans(name):
    plan = build_plan(name, profile_data(name), {}, arrays(), mongodb_version='7.0')
    assert plan['raid0_arrays'][0]['chunk_kb'] == profile_data(name)['raid_chunk_kb']


def test_an_ephemeral_array_by_selector_keeps_the_selector_for_the_boot():
    given = arrays(devices=[{'instance_store': 'all', 'count': 2}], ephemeral=True)
    resolved = {'data': {'devices': ['/dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWS1',
                                     '/dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWS2']}}
    entry = build_plan('cassandra', profile_data(), {}, given, resolved=resolved)['ephemeral_arrays'][0]
    assert entry['devices'] == resolved['data']['devices']
    assert entry['members'] == [{'instance_store': 'all', 'count': 2}]


@pytest.mark.parametrize('overrides, hint', [
    ({'readahead_kb': 16}, 'readahead_kb (did you mean array.read_ahead_kb or members.read_ahead_kb?)'),
    ({'raid_chunk': 64}, 'raid_chunk (did you mean raid_chunk_kb?)'),
    ({'array': {'readahead': 16}}, 'array.readahead (did you mean array.read_ahead_kb?)'),
    ({'kernel': {'sysctls': {}}}, 'kernel.sysctls (did you mean kernel.sysctl or kernel.extra_sysctl?)'),
    ({'zzz': 1}, 'unknown key zzz (known: '),            # nothing close: no guess
])
def test_an_unknown_override_names_the_closest_keys(overrides, hint):
    assert hint in problems(overrides)


@pytest.mark.parametrize('key, hint', [
    ('mount_point', "'mount_point' (did you mean mountpoint?)"),
    ('chunk', "'chunk' (did you mean chunk_kb?)"),
    ('wipe_device', "'wipe_device' (did you mean wipe_devices?)"),
    ('xyz', "unknown key 'xyz' (known: "),
])
def test_an_unknown_array_key_names_the_closest_keys(key, hint):
    assert hint in problems(arrays_=arrays(**{key: 1}))


# ---- fio_verify_jobs: checked in the plan the way the fio module checks them ----------------------------------

@pytest.mark.parametrize('job, message', [
    ({'name': 'j', 'rw': 'randwrite'}, "fio_verify_jobs 'j': value of rw must be one of: randread, read"),
    ({'name': 'j', 'iodepth': 'deep'}, "fio_verify_jobs 'j': argument 'iodepth' is of type"),
    ({'name': 'j', 'extra': {'filename': '/dev/sda'}}, "extra option 'filename' is not allowed"),
    ({'name': 'j', 'extra': {'--directory': '/'}}, "extra option '--directory' is not allowed"),
    ({'name': 'j', 'extra': {'exec_prerun': 'rm -rf /'}}, "extra option 'exec_prerun' is not allowed"),
    ({'name': 'j', 'io_depth': 16}, "fio_verify_jobs 'j': unknown key 'io_depth' (did you mean iodepth?)"),
    ({'name': 'j', 'directory': '/srv'}, "unknown key 'directory'"),
])
def test_a_bad_fio_job_is_refused_by_the_plan(job, message):
    assert message in problems({'fio_verify_jobs': [job], 'fio_verify_thresholds': {}})


def test_the_plan_checks_the_job_keys_the_role_passes():
    """FIO_VERIFY_JOB_KEYS is exactly what roles/fio_verify passes from a job (fio_verify_job.KEY)."""
    import re
    from ansible_collections.iotune.storage.plugins.plugin_utils import plan
    with open(os.path.join(PROFILES, '..', '..', '..', 'fio_verify', 'tasks', 'main.yml')) as f:
        passed = set(re.findall(r'fio_verify_job\.([a-z_]+)', f.read()))
    assert passed == set(plan.FIO_VERIFY_JOB_KEYS)


def test_release_holds_are_unit_names():
    assert build_plan('cassandra', profile_data(), {}, arrays())['release_holds'] == []
    plan = build_plan('cassandra', profile_data(), {}, arrays(), release_holds=['kafka', 'mongod.service'])
    assert plan['release_holds'] == ['kafka.service', 'mongod.service']
    with pytest.raises(PlanError) as e:
        build_plan('cassandra', profile_data(), {}, arrays(mountpoint='/'), release_holds='kafka')
    # every problem at once: the array's and the opt-in's
    assert any('/ is the root directory' in p for p in e.value.problems), e.value.problems
    assert any(p.startswith('iotune_release_holds') for p in e.value.problems), e.value.problems


def test_mount_holds_name_each_unit_with_its_mount_points():
    two = arrays() + [{'name': 'logs', 'devices': ['/dev/disk/by-id/virtio-c', '/dev/disk/by-id/virtio-d'],
                       'mountpoint': '/srv/logs', 'services': ['cassandra', 'kafka']}]
    plan = build_plan('cassandra', profile_data(), {}, two)
    assert plan['mount_holds'] == {'cassandra.service': ['/var/lib/cassandra', '/srv/logs'],
                                   'kafka.service': ['/srv/logs']}
    assert build_plan('cassandra', profile_data(), {}, [])['mount_holds'] == {}


def test_a_move_accounts_for_the_old_mount_point_of_its_services():
    # move_from: the xfs role moves the holds with the filesystem; the preflight must not call them dropped
    plan = build_plan('cassandra', profile_data(), {}, arrays(mountpoint='/srv/cassandra', move_from='/var/lib/cassandra',
                                                              services=['cassandra']))
    assert plan['mount_holds'] == {'cassandra.service': ['/srv/cassandra', '/var/lib/cassandra']}
    # the drop-in the xfs role writes names the new path only
    assert [mount_holds.held_mounts(f['content']) for f in mount_holds.files(plan['xfs_filesystems'])] == [
        ['/srv/cassandra']]
