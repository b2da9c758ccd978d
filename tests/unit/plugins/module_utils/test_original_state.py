# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The original state (issue 29): the snapshot's format, identity across kernel renames, written once and never torn,
the restore plan, check mode and an idempotent restore, on fake sysfs, /proc/sys and THP trees."""

from __future__ import annotations

import json
import os
import re
import stat

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import original_state as orig
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import FakeHost
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.kernel import fake_kernel

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))
VOL = 'vol0123456789abcdef%d'
RULES = '/etc/udev/rules.d/66-iotune-storage.rules'
SYSCTL_FILE = '/etc/sysctl.d/90-iotune-storage.conf'
THP_UNIT = '/etc/systemd/system/iotune-storage-thp.service'
FILES = [RULES, SYSCTL_FILE, THP_UNIT]
# the tune plan of one array 'data' of two EBS volumes (as plan.py makes it, members by volume id)
PLAN = [{'md_name': 'data', 'read_ahead_kb': 64}] + [
    {'ebs_volume_id': 'vol-0123456789abcdef%d' % n, 'read_ahead_kb': 8, 'scheduler_by_class': {'nvme': 'none'}}
    for n in (1, 2)]
SCHEDULERS = ('none', 'mq-deadline', 'kyber')


def build(root, volumes=(1, 2), readahead=('128', '128'), scheduler='mq-deadline', md=False, md_readahead='64'):
    """A host with the EBS volumes ``volumes`` as nvme1n1, nvme2n1 (in that order: (2, 1) is a kernel rename), the
    kernel's /proc/sys and THP (swappiness 60, THP always) and, with ``md``, the array data (md0) over them."""
    host = FakeHost(root)
    kernel = fake_kernel.FakeKernel(root)
    for index, (volume, ra) in enumerate(zip(volumes, readahead), 1):
        name = 'nvme%dn1' % index
        host.add_disk(name, '259:%d' % index, size_sectors=209715200,
                      queue={'scheduler': ' '.join('[%s]' % s if s == scheduler else s for s in SCHEDULERS),
                             'read_ahead_kb': ra, 'nr_requests': '1023', 'max_sectors_kb': '256'},
                      device={'model': 'Amazon Elastic Block Store              ', 'serial': VOL % volume},
                      # EBS gives every volume the same wwid: never an identity
                      attrs={'wwid': 'nvme.1d0f-766f6c30313233-416d617a6f6e-00000001'},
                      holders=['md0'] if md else ())
        host.udev_db('259:%d' % index, {'ID_SERIAL_SHORT': VOL % volume, 'DEVTYPE': 'disk'})
        host.dev_link('disk/by-id/nvme-Amazon_Elastic_Block_Store_%s' % (VOL % volume), '../../' + name)
    if md:
        host.add_disk('md0', '9:0', queue={'read_ahead_kb': md_readahead, 'optimal_io_size': '1048576'},
                      drop_queue=('scheduler', 'nr_requests'), slaves=['nvme1n1', 'nvme2n1'])
        for attr, value in (('level', 'raid0'), ('chunk_size', '524288'), ('raid_disks', '2'),
                            ('array_state', 'clean'), ('metadata_version', '1.2'),
                            ('uuid', 'a0021927-0e4f-10bf-2c47-dc72ca0b352e')):
            host.write('sys/block/md0/md/%s' % attr, value + '\n')
        host.udev_db('9:0', {'MD_NAME': 'db1:data', 'MD_DEVNAME': 'data', 'MD_UUID': 'a0021927:0e4f10bf:2c47dc72:ca0b352e'})
        host.dev_link('md/data', '../md0')
    return host, kernel


def kernel_write(path, value):
    """What the kernel does with a write: a scheduler or THP choice becomes the bracketed one of its list."""
    with open(path) as f:
        old = f.read()
    if '[' in old:
        choices = [c.strip('[]') for c in old.split()]
        assert value in choices, '%s: the kernel refuses %r' % (path, value)
        value = ' '.join('[%s]' % c if c == value else c for c in choices)
    with open(path, 'w') as f:
        f.write(value + '\n')


class Commands(object):
    def __init__(self):
        self.calls = []

    def __call__(self, argv):
        self.calls.append(list(argv))
        return 0, '', ''


def call(host, path, state='recorded', check_mode=False, files=None, commands=None, now=0):
    params = {'state': state, 'path': str(path), 'devices': PLAN, 'sysctl': [], 'files': FILES if files is None else files}
    return orig.OriginalState(params, host.view(), root=host.root, run=commands or Commands(), systemctl='systemctl',
                              udevadm='udevadm', check_mode=check_mode, now=now, write=kernel_write)


@pytest.fixture
def first(tmp_path):
    """A fresh host (no array yet, values as the cloud image leaves them) and where its snapshot goes."""
    host, kernel = build(tmp_path / 'host')
    return host, kernel, tmp_path / 'var' / 'lib' / 'iotune-storage' / 'original-state.json'


def tune(host, kernel):
    """What a tune run leaves: its files, the members at 8 KiB and none, swappiness 1, THP never."""
    kernel.write(RULES.lstrip('/'), '# rules\n')
    kernel.write(SYSCTL_FILE.lstrip('/'), 'vm.swappiness = 1\n')
    kernel.write(THP_UNIT.lstrip('/'), '[Service]\n')
    for name in ('nvme1n1', 'nvme2n1'):
        host.write('sys/block/%s/queue/read_ahead_kb' % name, '8\n')
        host.write('sys/block/%s/queue/scheduler' % name, '[none] mq-deadline kyber\n')
    kernel.set_vm('swappiness', 1)
    kernel.set_thp(enabled='never', defrag='never')


# --- the snapshot's format --------------------------------------------------------------------------------------


def test_snapshot_records_what_the_collection_will_change(first):
    host, dummy, path = first
    result = call(host, path, now=1772359200).call()
    assert result['changed'] is True and result['recorded'] is True
    with open(str(path)) as f:
        snapshot = json.load(f)
    assert snapshot == result['snapshot']
    assert snapshot['format'] == 1 and snapshot['collection'] == 'iotune.storage'
    assert snapshot['version'] == orig.COLLECTION_VERSION and snapshot['recorded_at'] == '2026-03-01T10:00:00Z'
    assert snapshot['tuned_before'] is False
    by_identity = dict((d['identity'], d) for d in snapshot['devices'])
    one = by_identity['cloud:ebs_volume_id=vol-0123456789abcdef1,provider=aws']
    assert one['queue'] == {'scheduler': 'mq-deadline', 'read_ahead_kb': '128', 'nr_requests': '1023',
                            'max_sectors_kb': '256', 'rotational': '0'}
    assert 'serial:vol0123456789abcdef1' in one['identities']
    # the array the run will create: no value yet, listed by name
    assert snapshot['created_later'] == [{'identities': ['md-name:data'], 'selector': 'md_name=data'}]
    assert snapshot['sysctl']['vm.swappiness'] == '60'
    assert snapshot['thp'] == {'enabled': 'always', 'defrag': 'madvise', 'khugepaged_max_ptes_none': '511'}
    assert snapshot['files'] == {RULES: None, SYSCTL_FILE: None, THP_UNIT: None}
    assert result['original_state']['files'] == {RULES: 'absent', SYSCTL_FILE: 'absent', THP_UNIT: 'absent'}


def test_no_kernel_name_is_an_identity_and_shared_keys_are_dropped(first):
    host, dummy, path = first
    snapshot = call(host, path).call()['snapshot']
    for device in snapshot['devices']:
        assert not any(re.search(r'\bnvme[0-9]n[0-9]\b', key) and not key.startswith('by-id:')
                       for key in device['identities'])
        # the wwid every EBS volume shares is not an identity of either
        assert not any(key.startswith('wwn:') for key in device['identities'])


def test_shared_keys_negative_control():
    """Without the uniqueness rule, the shared wwid would be the first identity of both volumes."""
    keys = {'a': ['wwn:x', 'serial:1'], 'b': ['wwn:x', 'serial:2']}
    assert orig.unique_identities(keys) == {'a': ['serial:1'], 'b': ['serial:2']}
    assert [k[0] for k in keys.values()] == ['wwn:x', 'wwn:x']


def test_a_file_that_was_there_is_recorded_with_content_and_mode(first):
    host, kernel, path = first
    kernel.write(SYSCTL_FILE.lstrip('/'), 'vm.swappiness = 10\n')
    os.chmod(os.path.join(host.root, SYSCTL_FILE.lstrip('/')), 0o640)
    call_ = call(host, path)
    snapshot = call_.call()['snapshot']
    assert snapshot['files'][SYSCTL_FILE]['content'] == 'vm.swappiness = 10\n'
    assert snapshot['files'][SYSCTL_FILE]['mode'] == '0640'
    assert snapshot['tuned_before'] is True and 'earlier run' in call_.warnings[0]


def test_version_is_galaxy_yml_s():
    with open(os.path.join(ROOT, 'galaxy.yml')) as f:
        version = re.search(r'^version:\s*(\S+)', f.read(), re.M).group(1)
    assert orig.COLLECTION_VERSION == version


# --- written once, root-only, never torn ------------------------------------------------------------------------


def test_root_only_and_never_overwritten(first):
    host, kernel, path = first
    call(host, path).call()
    assert stat.S_IMODE(os.stat(str(path)).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(str(path.parent)).st_mode) == 0o700
    with open(str(path)) as f:
        before = f.read()
    tune(host, kernel)                     # a later run sees tuned values: they must not replace the original
    again = call(host, path, now=1900000000).call()
    assert again['changed'] is False and again['recorded'] is False
    with open(str(path)) as f:
        assert f.read() == before
    assert again['snapshot']['sysctl']['vm.swappiness'] == '60'


def test_write_once_refuses_to_replace_even_in_a_race(tmp_path):
    path = str(tmp_path / 'd' / 'original-state.json')
    assert orig.write_once(path, {'format': 1, 'devices': [], 'n': 1}) is True
    assert orig.write_once(path, {'format': 1, 'devices': [], 'n': 2}) is False
    # the race: another run's file appears between the check and the link; the link fails, nothing is replaced
    other = str(tmp_path / 'e' / 'original-state.json')
    os.makedirs(os.path.dirname(other))

    def link_over(src, dest):
        with open(dest, 'w') as f:
            f.write('first')
        os.link(src, dest)
    assert orig.write_once(other, {'format': 1, 'devices': []}, replace=link_over) is False
    with open(other) as f:
        assert f.read() == 'first'
    assert [n for n in os.listdir(os.path.dirname(other)) if n.startswith(orig.TEMP_PREFIX)] == []
    with open(path) as f:
        assert json.load(f)['n'] == 1


def test_rename_would_overwrite_negative_control(tmp_path):
    """The replace step matters: os.replace (what an ordinary atomic write uses) overwrites the original."""
    path = str(tmp_path / 'original-state.json')
    with open(path, 'w') as f:
        f.write('first')
    from ansible_collections.iotune.storage.plugins.module_utils import files as fileutil
    fileutil.write_text(path, 'second', os.replace)
    with open(path) as f:
        assert f.read() == 'second'


def test_a_crash_while_writing_leaves_no_file_and_no_torn_one(first, monkeypatch):
    host, dummy, path = first

    class Crash(Exception):
        pass

    def crash(src, dest):
        raise Crash()          # the power goes after the temporary file was written and synced, before its name
    monkeypatch.setattr(orig, '_link_no_clobber', crash)
    with pytest.raises(Crash):
        orig.write_once(str(path), {'format': 1, 'devices': []}, replace=crash)
    assert not path.exists()
    # a crash that leaves the temporary file (no finally ran): the next call removes it and writes the whole file
    with open(str(path.parent / (orig.TEMP_PREFIX + 'abc')), 'w') as f:
        f.write('{"format": 1, "dev')
    monkeypatch.undo()
    result = call(host, path).call()
    assert result['recorded'] is True
    assert os.listdir(str(path.parent)) == ['original-state.json']
    with open(str(path)) as f:
        assert json.load(f)['format'] == 1


def test_an_unreadable_snapshot_is_kept_and_a_restore_fails(first):
    host, dummy, path = first
    os.makedirs(str(path.parent))
    with open(str(path), 'w') as f:
        f.write('{"format": 1, "dev')
    recorder = call(host, path)
    result = recorder.call()
    assert result['changed'] is False and 'never overwritten' in recorder.warnings[0]
    with open(str(path)) as f:
        assert f.read() == '{"format": 1, "dev'
    with pytest.raises(orig.OriginalStateError, match='not JSON'):
        call(host, path, state='restored').call()


def test_check_mode_reports_and_writes_nothing(first):
    host, dummy, path = first
    result = call(host, path, check_mode=True).call()
    assert result['changed'] is True and result['recorded'] is True
    assert result['snapshot']['sysctl']['vm.swappiness'] == '60'
    assert not path.exists() and not path.parent.exists()


# --- identity across kernel renames -----------------------------------------------------------------------------


def test_devices_are_found_by_identity_after_a_kernel_rename(tmp_path):
    host, dummy = build(tmp_path / 'one', readahead=('128', '256'))
    path = tmp_path / 'original-state.json'
    snapshot = call(host, path).call()['snapshot']
    # after a reboot the kernel named them the other way round; both tuned to 8 KiB
    renamed, dummy = build(tmp_path / 'two', volumes=(2, 1), readahead=('8', '8'), scheduler='none')
    plan = orig.restore_plan(snapshot, orig.live(renamed.view(), renamed.root, ['vm.swappiness'], FILES))
    readahead = dict((i['kname'], i['restore']) for i in plan['queue'] if i['key'] == 'read_ahead_kb')
    # vol...1 had 128 and is nvme2n1 now; vol...2 had 256 and is nvme1n1 now
    assert readahead == {'nvme2n1': '128', 'nvme1n1': '256'}
    assert plan['gone'] == []
    # negative control: by kernel name, each value would go to the other volume
    by_kname = dict((d['kname'], d['queue']['read_ahead_kb']) for d in snapshot['devices'])
    assert by_kname == {'nvme1n1': '128', 'nvme2n1': '256'} and by_kname != readahead


def test_a_device_that_is_gone_is_reported_not_an_error(tmp_path):
    host, dummy = build(tmp_path / 'one')
    snapshot = call(host, tmp_path / 's.json').call()['snapshot']
    smaller, dummy = build(tmp_path / 'two', volumes=(2,), readahead=('8',))
    plan = orig.restore_plan(snapshot, orig.live(smaller.view(), smaller.root, [], []))
    assert plan['gone'] == [{'identity': 'cloud:ebs_volume_id=vol-0123456789abcdef1,provider=aws', 'kname': 'nvme1n1'}]
    assert [(i['kname'], i['key'], i['restore']) for i in plan['queue'] if i['key'] == 'read_ahead_kb'] == \
        [('nvme1n1', 'read_ahead_kb', '128')]


# --- restore ------------------------------------------------------------------------------------------------------


def hand_changed(tmp_path):
    """The issue's case: values changed by hand before the first run (readahead 512 on a member, swappiness 30, THP
    always), recorded, then a tune run with the array made by it; returns (host, kernel, path, commands)."""
    host, kernel = build(tmp_path / 'host', readahead=('512', '128'))
    kernel.set_vm('swappiness', 30)
    kernel.set_thp(enabled='always')
    path = tmp_path / 'original-state.json'
    call(host, path).call()
    tuned, kernel = build(tmp_path / 'host2', readahead=('8', '8'), scheduler='none', md=True, md_readahead='64')
    tune(tuned, kernel)
    os.rename(str(path), str(tmp_path / 'keep.json'))
    return tuned, kernel, tmp_path / 'keep.json'


def test_restore_plan_puts_back_the_recorded_values(tmp_path):
    host, dummy, path = hand_changed(tmp_path)
    with open(str(path)) as f:
        snapshot = json.load(f)
    plan = orig.restore_plan(snapshot, orig.live(host.view(), host.root, sorted(snapshot['sysctl']), FILES))
    assert [(f['path'], f['action'], f['kind']) for f in plan['files']] == [
        (SYSCTL_FILE, 'remove', 'sysctl'), (THP_UNIT, 'remove', 'unit'), (RULES, 'remove', 'udev')]
    queue = sorted((i['kname'], i['key'], i['now'], i['restore']) for i in plan['queue'])
    assert queue == [('md0', 'read_ahead_kb', '64', '2048'),          # made later: the kernel's default for it
                     ('nvme1n1', 'read_ahead_kb', '8', '512'), ('nvme1n1', 'scheduler', 'none', 'mq-deadline'),
                     ('nvme2n1', 'read_ahead_kb', '8', '128'), ('nvme2n1', 'scheduler', 'none', 'mq-deadline')]
    assert plan['sysctl'] == [{'name': 'vm.swappiness', 'now': '1', 'restore': '30'}]
    assert plan['thp'] == [{'key': 'enabled', 'now': 'never', 'restore': 'always'},
                           {'key': 'defrag', 'now': 'never', 'restore': 'madvise'}]
    assert plan['changed'] is True


def test_restore_sets_the_values_live_and_a_second_restore_changes_nothing(tmp_path):
    host, dummy, path = hand_changed(tmp_path)
    commands = Commands()
    result = call(host, path, state='restored', commands=commands).call()
    assert result['changed'] is True
    assert host.read('sys/block/nvme1n1/queue/read_ahead_kb').strip() == '512'
    assert host.read('sys/block/nvme2n1/queue/scheduler').strip() == 'none [mq-deadline] kyber'
    assert host.read('proc/sys/vm/swappiness').strip() == '30'
    assert '[always]' in host.read('sys/kernel/mm/transparent_hugepage/enabled')
    for gone in FILES:
        assert not os.path.lexists(os.path.join(host.root, gone.lstrip('/')))
    # the unit disabled before its file went, systemd and udev reloaded before any value was set
    assert commands.calls == [['systemctl', 'disable', 'iotune-storage-thp.service'], ['systemctl', 'daemon-reload'],
                              ['udevadm', 'control', '--reload']]
    # the array, its members' holders and the md files are untouched
    assert host.read('sys/block/md0/md/array_state').strip() == 'clean'
    second = Commands()
    again = call(host, path, state='restored', commands=second).call()
    assert again['changed'] is False and second.calls == []
    assert again['diff'] == []


def test_restore_writes_back_a_file_that_was_there(tmp_path):
    host, kernel = build(tmp_path / 'host')
    kernel.write(SYSCTL_FILE.lstrip('/'), 'vm.swappiness = 10\n')
    path = tmp_path / 's.json'
    call(host, path).call()
    kernel.write(SYSCTL_FILE.lstrip('/'), 'vm.swappiness = 1\n')
    call(host, path, state='restored').call()
    assert host.read(SYSCTL_FILE.lstrip('/')) == 'vm.swappiness = 10\n'


def test_restore_in_check_mode_shows_and_changes_nothing(tmp_path):
    host, dummy, path = hand_changed(tmp_path)
    commands = Commands()
    result = call(host, path, state='restored', check_mode=True, commands=commands).call()
    assert result['changed'] is True and commands.calls == []
    assert host.read('sys/block/nvme1n1/queue/read_ahead_kb').strip() == '8'
    assert os.path.exists(os.path.join(host.root, RULES.lstrip('/')))
    headers = [(d['before_header'], d['after_header']) for d in result['diff']]
    assert headers == [(SYSCTL_FILE, '(removed)'), (THP_UNIT, '(removed)'), (RULES, '(removed)'),
                       ('live values', 'live values restored')]
    live_diff = result['diff'][-1]
    assert 'sysctl vm.swappiness = 1\n' in live_diff['before'] and 'sysctl vm.swappiness = 30\n' in live_diff['after']
    assert ('nvme1n1 (cloud:ebs_volume_id=vol-0123456789abcdef1,provider=aws) queue/read_ahead_kb: 512\n'
            in live_diff['after'])


def test_restore_refuses_while_tuned_runs_an_override_profile(tmp_path):
    host, kernel, path = hand_changed(tmp_path)
    kernel.tuned_active('iotune-storage-kernel')
    with pytest.raises(orig.OriginalStateError, match='tuned-adm profile'):
        call(host, path, state='restored').call()
    assert host.read('proc/sys/vm/swappiness').strip() == '1'


def test_restore_without_a_snapshot_fails(first):
    host, dummy, path = first
    with pytest.raises(orig.OriginalStateError, match='nothing to restore'):
        call(host, path, state='restored').call()


def test_a_value_the_kernel_does_not_take_fails_the_restore(tmp_path):
    host, dummy, path = hand_changed(tmp_path)

    def refusing(target, value):
        if target.endswith('swappiness'):
            raise OSError(22, 'Invalid argument')
        kernel_write(target, value)
    params = {'state': 'restored', 'path': str(path), 'devices': [], 'sysctl': [], 'files': []}
    restorer = orig.OriginalState(params, host.view(), root=host.root, run=Commands(), systemctl='systemctl',
                                  udevadm='udevadm', write=refusing)
    with pytest.raises(orig.OriginalStateError, match='swappiness'):
        restorer.call()


# --- a host with a retired array (iotune_retire_md_arrays, issue 29) --------------------------------------------------


def test_a_restore_after_a_retire_restores_the_members_and_reports_the_array_gone(tmp_path):
    """The snapshot was recorded while the array ran (its readahead by md UUID); the array was retired since (stopped,
    the members kept with their superblocks): the restore puts the members back, reports the array gone, and a
    second restore changes nothing."""
    host, dummy = build(tmp_path / 'host', md=True, md_readahead='128')
    path = tmp_path / 'original-state.json'
    snapshot = call(host, path).call()['snapshot']
    assert [d['identity'] for d in snapshot['devices']][0] == 'md-uuid:a0021927:0e4f10bf:2c47dc72:ca0b352e'
    retired, kernel = build(tmp_path / 'retired', readahead=('8', '8'), scheduler='none')
    tune(retired, kernel)
    restore = call(retired, path, state='restored')
    result = restore.call()
    assert result['changed'] is True
    assert result['restore']['gone'] == [{'identity': 'md-uuid:a0021927:0e4f10bf:2c47dc72:ca0b352e', 'kname': 'md0'}]
    assert restore.warnings[0].startswith('md-uuid:a0021927:0e4f10bf:2c47dc72:ca0b352e (was md0) is not on this host')
    assert retired.read('sys/block/nvme1n1/queue/read_ahead_kb').strip() == '128'
    assert call(retired, path, state='restored').call()['changed'] is False


def test_the_snapshot_is_recorded_on_a_host_whose_array_was_retired(tmp_path):
    """A first run whose plan has no array left (only the retire): the members of the stopped array are no device of
    the plan and nothing is recorded for them; the snapshot is valid and a restore of it changes no device."""
    host, dummy = build(tmp_path / 'host')
    path = tmp_path / 'original-state.json'
    params = {'state': 'recorded', 'path': str(path), 'devices': [], 'sysctl': [], 'files': FILES}
    result = orig.OriginalState(params, host.view(), root=host.root, run=Commands(), now=0).call()
    assert result['recorded'] is True and result['snapshot']['devices'] == []
    plan = orig.restore_plan(result['snapshot'], orig.live(host.view(), host.root, [], FILES))
    assert plan['queue'] == [] and plan['gone'] == []


def test_restore_plan_removes_a_file_of_the_collection_the_older_snapshot_does_not_name(tmp_path):
    """A snapshot recorded by an earlier release lacks a file a later release writes (the CPU governor and clocksource
    unit): it did not exist then, so the restore removes it; absent, it is no action (the negative control)."""
    host, dummy, path = hand_changed(tmp_path)
    with open(str(path)) as f:
        snapshot = json.load(f)
    del snapshot['files'][THP_UNIT]
    with open(os.path.join(host.root, THP_UNIT.lstrip('/')), 'w') as f:
        f.write('# Ansible managed (iotune.storage.kernel). Local edits are overwritten.\n[Service]\n')
    plan = orig.restore_plan(snapshot, orig.live(host.view(), host.root, sorted(snapshot['sysctl']), FILES))
    assert (THP_UNIT, 'remove', 'unit') in [(f['path'], f['action'], f['kind']) for f in plan['files']]
    os.unlink(os.path.join(host.root, THP_UNIT.lstrip('/')))
    plan = orig.restore_plan(snapshot, orig.live(host.view(), host.root, sorted(snapshot['sysctl']), FILES))
    assert THP_UNIT not in [f['path'] for f in plan['files']]


def test_a_file_not_in_the_snapshot_without_the_collections_header_stays(tmp_path):
    """A path the user pointed at a file of their own (no "(iotune.storage." header): never removed, warned about."""
    host, dummy, path = hand_changed(tmp_path)
    with open(str(path)) as f:
        snapshot = json.load(f)
    del snapshot['files'][THP_UNIT]
    with open(os.path.join(host.root, THP_UNIT.lstrip('/')), 'w') as f:
        f.write('[Unit]\nDescription=an own unit of the operator\n')
    plan = orig.restore_plan(snapshot, orig.live(host.view(), host.root, sorted(snapshot['sysctl']), FILES))
    assert THP_UNIT not in [f['path'] for f in plan['files']]
    assert orig.written_by_the_collection('# Managed by Ansible (iotune.storage.block_tuning). Local edits ...\n')
    assert not orig.written_by_the_collection('[Unit]\n')
