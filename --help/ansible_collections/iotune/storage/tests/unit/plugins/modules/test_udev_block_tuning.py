# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import block_tuning as bt
from ansible_collections.iotune.storage.plugins.module_utils import tuned
from ansible_collections.iotune.storage.plugins.module_utils import udev_tuning
from ansible_collections.iotune.storage.plugins.modules import udev_block_tuning as mod
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.module_run import run_module

BY_CLASS = {'nvme': 'none', 'virtual': 'none', 'ssd': 'mq-deadline', 'hdd': 'mq-deadline'}


def build(host):
    """The standard host plus two virtio-blk disks."""
    # two virtio-blk disks of a lab VM: serial only in sysfs, no ID_SERIAL_SHORT
    for idx, name in ((0, 'vdb'), (1, 'vdc')):
        host.add_disk(name, '254:%d' % (16 * (idx + 1)),
                      queue={'scheduler': '[mq-deadline] none', 'rotational': '1', 'read_ahead_kb': '128',
                             'max_hw_sectors_kb': '2560'},
                      attrs={'serial': 'lab-disk-%d' % idx})
        host.dev_link('disk/by-id/virtio-lab-disk-%d' % idx, '../../' + name)
    return host


@pytest.fixture
def host(standard_host, tmp_path, monkeypatch):
    h = build(standard_host)
    monkeypatch.setattr(mod, 'HOST_ROOT', h.root)
    monkeypatch.setattr(udev_tuning, 'MODULES_ROOT', str(tmp_path / 'nomodules'))
    monkeypatch.setattr(udev_tuning, 'CONTAINER_ROOT', str(tmp_path / 'noroot'))
    monkeypatch.setattr(udev_tuning, 'TUNED_ETC', str(tmp_path / 'etc' / 'tuned'))
    monkeypatch.setattr(udev_tuning, 'TUNED_DIRS', (str(tmp_path / 'etc' / 'tuned'), str(tmp_path / 'usr' / 'lib' / 'tuned')))
    os.makedirs(str(tmp_path / 'etc' / 'udev' / 'rules.d'))
    h.rules = str(tmp_path / 'etc' / 'udev' / 'rules.d' / '66-iotune-storage.rules')
    return h


def plan_for(host, entries, allow_unmatched=False):
    devices = bt.collect_devices(host.view())
    return bt.plan(entries, devices, host.view(), allow_unmatched=allow_unmatched)


# ---------------------------------------------------------------------------------------------
# entry validation (host independent)


def test_sectors_convert_exactly():
    settings, warnings = bt.normalize_entry({'md_name': 'data', 'read_ahead_sectors': 32})
    assert settings == {'read_ahead_kb': 16} and warnings == []


@pytest.mark.parametrize('entry, message', [
    ({'md_name': 'd', 'read_ahead_sectors': 33}, 'read_ahead_sectors 33 is odd'),
    ({'md_name': 'd', 'read_ahead_sectors': 32, 'read_ahead_kb': 16}, 'not both'),
    ({'md_name': 'd', 'read_ahead_kb': 2097152}, 'out of range 0..1048576'),
    ({'md_name': 'd', 'read_ahead_kb': -1}, 'out of range'),
    ({'kernel': 'sd*', 'scheduler': 'noop'}, "use 'none' instead"),
    ({'kernel': 'sd*', 'scheduler': 'cfq'}, 'mq-deadline'),
    ({'kernel': 'sd*'}, 'no setting given'),
    ({'kernel': 'sd*', 'serial': 'x', 'read_ahead_kb': 8}, 'exactly one selector'),
    ({'read_ahead_kb': 8}, 'exactly one selector'),
    ({'kernel': 'sd*', 'nr_requests': 0}, 'nr_requests must be 4..2048'),
    ({'md_uuid': 'not-a-uuid', 'read_ahead_kb': 8}, None),
])
def test_entry_errors(entry, message):
    if message is None:
        with pytest.raises(bt.TuningError, match='not an md array UUID'):
            bt.normalize_md_uuid(entry['md_uuid'])
        return
    with pytest.raises(bt.TuningError) as exc:
        bt.normalize_entry(entry)
    assert message in str(exc.value)


def test_deadline_alias_and_page_warning():
    settings, warnings = bt.normalize_entry({'kernel': 'sd*', 'scheduler': 'deadline', 'read_ahead_kb': 6})
    assert settings['scheduler'] == 'mq-deadline'
    assert warnings and 'rounds it down to 4 KiB' in warnings[0]


def test_ebs_and_uuid_normalisation():
    assert bt.normalize_ebs_volume_id('vol-0123456789abcdef1') == 'vol0123456789abcdef1'
    assert bt.normalize_ebs_volume_id('vol0123456789abcdef1') == 'vol0123456789abcdef1'
    with pytest.raises(bt.TuningError):
        bt.normalize_ebs_volume_id('vol-xyz')
    assert bt.normalize_md_uuid('A0021927-0E4F-10BF-2C47-DC72CA0B352E') == 'a0021927:0e4f10bf:2c47dc72:ca0b352e'


# ---------------------------------------------------------------------------------------------
# resolution and validation against the fake host


def test_device_classes(host):
    devices = bt.collect_devices(host.view())
    assert devices['nvme1n1']['class'] == 'nvme'
    assert devices['vdb']['class'] == 'virtual'
    assert devices['sdb']['class'] == 'virtual'    # Msft Virtual Disk
    assert devices['rbd0']['class'] == 'virtual'
    assert devices['sda']['class'] == 'hdd'        # rotational=1 in the fixture
    assert devices['md0']['class'] is None


def test_md_name_uuid_and_ebs_resolution(host):
    pl = plan_for(host, [
        {'md_name': 'data', 'read_ahead_kb': 8},
        {'ebs_volume_id': 'vol-0123456789abcdef1', 'scheduler': 'none', 'read_ahead_kb': 8},
        {'device': os.path.join(host.dev, 'disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef2_1'),
         'scheduler_by_class': BY_CLASS, 'read_ahead_kb': 8},
    ])
    assert pl['expected'] == {'md0': {'read_ahead_kb': 8},
                              'nvme1n1': {'scheduler': 'none', 'read_ahead_kb': 8},
                              'nvme2n1': {'scheduler': 'none', 'read_ahead_kb': 8}}
    text = bt.render_rules(pl['rules'], '66-iotune-storage.rules')
    assert 'ENV{MD_NAME}=="data|*:data", TEST=="queue/read_ahead_kb", ATTR{queue/read_ahead_kb}="8"' in text
    assert 'KERNEL=="nvme*", ENV{ID_SERIAL_SHORT}=="vol0123456789abcdef1"' in text
    # by-id link of an NVMe device without udev data: rendered on the sysfs serial, never a kernel name
    assert 'ATTRS{serial}=="vol0123456789abcdef2", TEST=="queue/scheduler", ATTR{queue/scheduler}="none"' in text
    assert 'nvme2n1' not in text and 'ENV{ID_SERIAL}==' not in text
    # md has no scheduler: never rendered for it
    assert not any('MD_NAME' in line and 'scheduler' in line for line in text.splitlines())


def test_md_uuid_in_kernel_form_matches(host):
    pl = plan_for(host, [{'md_uuid': 'FFFFFFFF-0E4F-10BF-2C47-DC72CA0B352E', 'read_ahead_kb': 16}])
    assert list(pl['expected']) == ['md0']
    text = bt.render_rules(pl['rules'], 'x.rules')
    assert 'ENV{MD_UUID}=="ffffffff:0e4f10bf:2c47dc72:ca0b352e"' in text


def test_rules_file_structure(host):
    pl = plan_for(host, [{'serial': 'lab-disk-0', 'scheduler': 'none', 'nr_requests': 64, 'read_ahead_kb': 8}])
    text = bt.render_rules(pl['rules'], '66-iotune-storage.rules')
    lines = text.splitlines()
    assert lines[0] == '# 66-iotune-storage.rules'
    assert 'Managed by Ansible' in lines[1]
    assert 'KERNEL=="md*", TEST!="md/array_state", GOTO="iotune_storage_end"' in lines
    assert 'KERNEL=="md*", ATTR{md/array_state}=="clear*|inactive", GOTO="iotune_storage_end"' in lines
    assert lines[-1] == 'LABEL="iotune_storage_end"'
    rules = [line for line in lines if 'ATTR{queue/' in line]
    # two match variants (ID_SERIAL_SHORT, sysfs serial) x three attributes; scheduler before nr_requests
    assert len(rules) == 6
    assert all(r.startswith('ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", ') for r in rules)
    assert rules[0].endswith('TEST=="queue/scheduler", ATTR{queue/scheduler}="none"')
    assert rules[1].endswith('TEST=="queue/nr_requests", ATTR{queue/nr_requests}="64"')
    assert 'ENV{ID_SERIAL_SHORT}!="?*", ATTRS{serial}=="lab-disk-0"' in rules[3]
    assert pl['expected'] == {'vdb': {'scheduler': 'none', 'nr_requests': 64, 'read_ahead_kb': 8}}


def test_by_class_resolves_per_device(host):
    pl = plan_for(host, [{'device': os.path.join(host.dev, 'disk/by-id/ata-Samsung_SSD_860_S3Z9NB0K123456A'),
                          'scheduler_by_class': BY_CLASS},
                         {'device': os.path.join(host.dev, 'disk/by-id/virtio-lab-disk-1'),
                          'scheduler_by_class': BY_CLASS}])
    assert pl['expected']['sda'] == {'scheduler': 'mq-deadline'}
    assert pl['expected']['vdc'] == {'scheduler': 'none'}
    text = bt.render_rules(pl['rules'], 'x.rules')
    assert 'ENV{ID_SERIAL_SHORT}=="S3Z9NB0K123456A", TEST=="queue/scheduler", ATTR{queue/scheduler}="mq-deadline"' in text
    assert 'ATTRS{serial}=="lab-disk-1", TEST=="queue/scheduler", ATTR{queue/scheduler}="none"' in text


@pytest.mark.parametrize('entries, message', [
    ([{'ebs_volume_id': 'vol-0123456789abcdef1', 'scheduler': 'bfq'}],
     "scheduler 'bfq' is not offered by device nvme1n1 (available: none mq-deadline kyber)"),
    ([{'md_name': 'data', 'scheduler': 'none'}], 'md arrays have no I/O scheduler'),
    ([{'device': 'MDDATA', 'scheduler': 'none'}], 'device md0 has no configurable I/O scheduler'),
    ([{'kernel': 'md0', 'scheduler': 'none'}], 'device md0 has no configurable I/O scheduler'),
    ([{'kernel': 'dm-*', 'scheduler': 'none'}], 'device dm-0 has no configurable I/O scheduler'),
    ([{'md_name': 'nosuch', 'read_ahead_kb': 8}], 'md_name=nosuch: selector matches no block device'),
    ([{'serial': 'nope', 'read_ahead_kb': 8}], 'serial=nope: selector matches no block device'),
    ([{'serial': 'lab-disk-0', 'max_sectors_kb': 4096}],
     'max_sectors_kb 4096 exceeds the hardware limit of device vdb (max_hw_sectors_kb 2560)'),
    ([{'serial': 'lab-disk-0', 'read_ahead_kb': 8}, {'kernel': 'vd*', 'read_ahead_kb': 16}],
     'device vdb is selected by serial=lab-disk-0 and kernel=vd* with different read_ahead_kb (8 vs 16)'),
])
def test_plan_errors(host, entries, message):
    for entry in entries:
        if entry.get('device') == 'MDDATA':
            entry['device'] = os.path.join(host.dev, 'md/data')
    with pytest.raises(bt.TuningError) as exc:
        plan_for(host, entries)
    assert message in str(exc.value)


def test_partition_is_rejected_with_parent(host):
    with pytest.raises(bt.TuningError) as exc:
        plan_for(host, [{'device': os.path.join(host.dev, 'disk/by-id/ata-Samsung_SSD_860_S3Z9NB0K123456A-part1'),
                         'read_ahead_kb': 8}])
    assert 'sda1 is a partition' in str(exc.value) and 'whole disk sda' in str(exc.value)


def test_unmatched_allowed_in_check_mode(host):
    pl = plan_for(host, [{'md_name': 'future', 'read_ahead_kb': 8}], allow_unmatched=True)
    assert pl['unmatched'] == ['md_name=future'] and pl['expected'] == {}
    # the rule for a named array can be rendered before the array exists
    assert 'ENV{MD_NAME}=="future|*:future"' in bt.render_rules(pl['rules'], 'x.rules')


# ---------------------------------------------------------------------------------------------
# tuned


def write_tuned(root, name, text):
    path = os.path.join(str(root), name, 'tuned.conf')
    os.makedirs(os.path.dirname(path))
    with open(path, 'w') as f:
        f.write(text)


def test_tuned_chain(tmp_path):
    lib = tmp_path / 'lib'
    etc = tmp_path / 'etc'
    write_tuned(lib, 'throughput-performance', '[main]\nsummary=x\n[disk]\nreadahead=>4096\n')
    write_tuned(lib, 'virtual-guest', '[main]\ninclude=throughput-performance\n[vm]\ntransparent_hugepages=never\n')
    write_tuned(lib, 'balanced', '[main]\nsummary=y\n[cpu]\ngovernor=conservative\n')
    override = tuned.DISK_OVERRIDE_TEMPLATE.format(parent='virtual-guest', rules_file='r', readahead='>4096')
    write_tuned(etc, 'iotune-storage', override)
    dirs = (str(etc), str(lib))
    ra = tuned.tuned_readahead('virtual-guest', dirs)
    assert ra == ('>4096', 'throughput-performance')
    assert tuned.tuned_conflicts(ra, {'md0': {'read_ahead_kb': 8}, 'vdb': {'scheduler': 'none'}}) == [('md0', 8, 4096)]
    # '>' only raises: a larger value of ours survives
    assert tuned.tuned_conflicts(ra, {'md0': {'read_ahead_kb': 8192}}) == []
    assert tuned.tuned_readahead('balanced', dirs) is None
    assert tuned.tuned_readahead('iotune-storage', dirs) is None
    assert tuned.tuned_conflicts(('8192 s', 'p'), {'md0': {'read_ahead_kb': 8}}) == [('md0', 8, 4096)]


# ---------------------------------------------------------------------------------------------
# the module


class FakeUdev(object):
    """Stands in for udevadm (and systemctl/tuned-adm); applies the planned values on trigger."""

    def __init__(self, host, values=None, broken=False):
        self.host = host
        self.calls = []
        self.values = values or {}
        self.broken = broken

    def __call__(self, module_self, argv, **kwargs):
        self.calls.append(list(argv))
        if argv[1:2] == ['trigger'] and not self.broken:
            for arg in argv:
                if arg.startswith('--sysname-match='):
                    name = arg.split('=', 1)[1]
                    for attr, value in self.values.get(name, {}).items():
                        path = os.path.join(self.host.sys, 'block', name, 'queue', attr)
                        if attr == 'scheduler':
                            with open(path) as f:
                                names = f.read().replace('[', '').replace(']', '').split()
                            value = ' '.join('[%s]' % n if n == value else n for n in names)
                        with open(path, 'w') as f:
                            f.write(value + '\n')
        return 0, '', ''

    def udevadm_calls(self):
        return [c[1:] for c in self.calls if c[0].endswith('udevadm')]


def run(capsys, monkeypatch, fake, args, check=False, diff=False):
    def run_command(self, argv, **kw):
        return fake(self, argv, **kw)
    monkeypatch.setattr(mod.AnsibleModule, 'run_command', run_command)
    monkeypatch.setattr(mod.AnsibleModule, 'get_bin_path',
                        lambda self, name, required=False, opt_dirs=None: '/usr/bin/' + name
                        if name in ('udevadm', 'systemctl') or (name == 'tuned-adm' and fake.values.get('_tuned'))
                        else None)
    return run_module(mod, args, capsys, check_mode=check, diff=diff)


ENTRIES = [
    {'md_name': 'data', 'read_ahead_kb': 8},
    {'serial': 'lab-disk-0', 'scheduler_by_class': BY_CLASS, 'read_ahead_kb': 8},
    {'device': 'VIRTIO1', 'scheduler_by_class': BY_CLASS, 'read_ahead_kb': 8},
]
APPLIED = {'md0': {'read_ahead_kb': '8'}, 'vdb': {'scheduler': 'none', 'read_ahead_kb': '8'},
           'vdc': {'scheduler': 'none', 'read_ahead_kb': '8'}}


def entries(host):
    out = []
    for e in ENTRIES:
        e = dict(e)
        if e.get('device') == 'VIRTIO1':
            e['device'] = os.path.join(host.dev, 'disk/by-id/virtio-lab-disk-1')
        out.append(e)
    return out


def test_check_mode_predicts_and_changes_nothing(host, capsys, monkeypatch):
    fake = FakeUdev(host, APPLIED)
    code, out = run(capsys, monkeypatch, fake, {'devices': entries(host), 'rules_file': host.rules},
                    check=True, diff=True)
    assert code == 0 and out['changed'] is True and out['rules_changed'] is True
    assert out['triggered'] == ['md0', 'vdb', 'vdc']
    assert out['diff']['before'] == '' and 'ATTR{queue/read_ahead_kb}="8"' in out['diff']['after']
    assert not os.path.exists(host.rules)
    assert fake.udevadm_calls() == []
    with open(os.path.join(host.sys, 'block', 'md0', 'queue', 'read_ahead_kb')) as f:
        assert f.read().strip() == '16'


def test_apply_then_idempotent(host, capsys, monkeypatch):
    fake = FakeUdev(host, APPLIED)
    args = {'devices': entries(host), 'rules_file': host.rules}
    code, out = run(capsys, monkeypatch, fake, args)
    assert code == 0, out
    assert out['changed'] is True and out['reloaded'] is True
    assert oct(os.stat(host.rules).st_mode & 0o777) == '0o644'
    assert fake.udevadm_calls() == [
        ['control', '--reload'],
        ['trigger', '--action=change', '--subsystem-match=block', '--sysname-match=md0', '--sysname-match=vdb',
         '--sysname-match=vdc'],
        ['settle', '--timeout=60'],
    ]
    assert out['devices']['md0']['before']['read_ahead_kb'] == '16'
    assert out['devices']['md0']['after']['read_ahead_kb'] == '8'
    assert out['readahead_changed'] == ['md0', 'vdb', 'vdc']

    fake2 = FakeUdev(host, APPLIED)
    code, out = run(capsys, monkeypatch, fake2, args)
    assert code == 0 and out['changed'] is False and out['reloaded'] is False and out['triggered'] == []
    assert fake2.udevadm_calls() == []


def test_one_host_scan_per_call(host, capsys, monkeypatch, inventory_scans):
    args = {'devices': entries(host), 'rules_file': host.rules}
    code, out = run(capsys, monkeypatch, FakeUdev(host, APPLIED), args)
    assert code == 0, out
    assert inventory_scans == [host.sys]


def test_facts_as_after_the_call_from_one_scan_when_nothing_changed(host, capsys, monkeypatch, inventory_scans):
    """facts: true returns readahead_facts' facts in the same call (the tune summary needs no call of its own)."""
    from ansible_collections.iotune.storage.plugins.module_utils.host import BlockHost
    args = {'devices': entries(host), 'rules_file': host.rules, 'facts': True}
    code, out = run(capsys, monkeypatch, FakeUdev(host, APPLIED), args)
    assert code == 0, out
    facts = out['ansible_facts']['iotune_readahead']
    # the values udev wrote, not those of the scan the plan was made from: a second scan after the trigger
    assert inventory_scans == [host.sys, host.sys]
    assert facts == json.loads(json.dumps(BlockHost(root=host.root).block_facts()[0]))
    assert [facts[name]['read_ahead_kb'] for name in ('md0', 'vdb', 'vdc')] == [8, 8, 8]
    del inventory_scans[:]
    code, out = run(capsys, monkeypatch, FakeUdev(host, APPLIED), args)
    assert code == 0 and out['changed'] is False and out['ansible_facts']['iotune_readahead'] == facts
    assert inventory_scans == [host.sys]
    code, out = run(capsys, monkeypatch, FakeUdev(host, APPLIED), dict(args, facts=False))
    assert 'ansible_facts' not in out


def test_drift_triggers_only_the_drifting_device(host, capsys, monkeypatch):
    fake = FakeUdev(host, APPLIED)
    args = {'devices': entries(host), 'rules_file': host.rules}
    run(capsys, monkeypatch, fake, args)
    with open(os.path.join(host.sys, 'block', 'vdc', 'queue', 'read_ahead_kb'), 'w') as f:
        f.write('4096\n')
    fake2 = FakeUdev(host, APPLIED)
    code, out = run(capsys, monkeypatch, fake2, args)
    assert code == 0 and out['changed'] is True and out['rules_changed'] is False
    assert fake2.udevadm_calls() == [
        ['trigger', '--action=change', '--subsystem-match=block', '--sysname-match=vdc'],
        ['settle', '--timeout=60'],
    ]


def test_live_mismatch_fails_naming_device(host, capsys, monkeypatch):
    fake = FakeUdev(host, APPLIED, broken=True)
    code, out = run(capsys, monkeypatch, fake, {'devices': entries(host), 'rules_file': host.rules})
    assert code == 1
    assert 'md0 (md_name=data): read_ahead_kb expected 8, live 16' in out['msg']
    assert 'vdb (serial=lab-disk-0): scheduler expected none, live mq-deadline' in out['msg']


def test_bad_input_fails_before_any_change(host, capsys, monkeypatch):
    fake = FakeUdev(host, APPLIED)
    bad = entries(host) + [{'serial': 'lab-disk-0', 'scheduler': 'noop'}]
    code, out = run(capsys, monkeypatch, fake, {'devices': bad, 'rules_file': host.rules})
    assert code == 1 and "scheduler 'noop' is a legacy" in out['msg']
    assert not os.path.exists(host.rules) and fake.calls == []


def test_both_units_rejected_by_argument_spec(host, capsys, monkeypatch):
    fake = FakeUdev(host, APPLIED)
    both = {'md_name': 'data', 'read_ahead_kb': 8, 'read_ahead_sectors': 16}
    code, out = run(capsys, monkeypatch, fake, {'devices': [both], 'rules_file': host.rules})
    assert code == 1 and 'mutually exclusive' in out['msg']


def test_container_fails(host, capsys, monkeypatch, tmp_path):
    croot = tmp_path / 'croot'
    os.makedirs(str(croot / 'run' / 'systemd'))
    (croot / 'run' / 'systemd' / 'container').write_text('podman\n')
    monkeypatch.setattr(udev_tuning, 'CONTAINER_ROOT', str(croot))
    code, out = run(capsys, monkeypatch, FakeUdev(host), {'devices': entries(host), 'rules_file': host.rules})
    assert code == 1 and "container 'podman'" in out['msg']
    code, out = run(capsys, monkeypatch, FakeUdev(host), {'devices': entries(host), 'rules_file': host.rules,
                                                          'container': 'skip'})
    assert code == 0 and out['skipped'] is True and out['changed'] is False


def test_tuned_conflict_fails_or_overrides(host, capsys, monkeypatch, tmp_path):
    write_tuned(tmp_path / 'usr' / 'lib' / 'tuned', 'throughput-performance', '[disk]\nreadahead=>4096\n')
    (tmp_path / 'etc' / 'tuned').mkdir(parents=True, exist_ok=True)
    (tmp_path / 'etc' / 'tuned' / 'active_profile').write_text('throughput-performance\n')
    values = dict(APPLIED, _tuned=True)
    code, out = run(capsys, monkeypatch, FakeUdev(host, values), {'devices': entries(host), 'rules_file': host.rules})
    assert code == 1
    assert "tuned is active with profile 'throughput-performance'" in out['msg']
    assert 'md0 wants 8 KiB, tuned sets 4096 KiB' in out['msg']
    assert not os.path.exists(host.rules)

    fake = FakeUdev(host, values)
    code, out = run(capsys, monkeypatch, fake, {'devices': entries(host), 'rules_file': host.rules,
                                                'tuned': 'override'})
    assert code == 0 and out['tuned']['override'] is True
    conf = (tmp_path / 'etc' / 'tuned' / 'iotune-storage' / 'tuned.conf').read_text()
    assert 'include=throughput-performance' in conf and 'enabled=false' in conf
    assert ['/usr/bin/tuned-adm', 'profile', 'iotune-storage'] in fake.calls


def test_absent_removes_and_reloads(host, capsys, monkeypatch):
    run(capsys, monkeypatch, FakeUdev(host, APPLIED), {'devices': entries(host), 'rules_file': host.rules})
    fake = FakeUdev(host)
    code, out = run(capsys, monkeypatch, fake, {'state': 'absent', 'rules_file': host.rules})
    assert code == 0 and out['changed'] is True and not os.path.exists(host.rules)
    assert fake.udevadm_calls() == [['control', '--reload']]


def test_validate_only(host, capsys, monkeypatch):
    fake = FakeUdev(host, APPLIED)
    args = {'devices': [{'md_name': 'future', 'read_ahead_kb': 8}] + entries(host), 'rules_file': host.rules,
            'validate_only': True}
    code, out = run(capsys, monkeypatch, fake, args)
    assert code == 0 and out['changed'] is False and out['unmatched'] == ['md_name=future']
    assert not os.path.exists(host.rules) and fake.udevadm_calls() == []
    # a member that does not exist is an error even in validate_only
    args['devices'].append({'device': os.path.join(host.dev, 'disk/by-id/virtio-missing'), 'read_ahead_kb': 8})
    code, out = run(capsys, monkeypatch, fake, args)
    assert code == 1 and 'virtio-missing: selector matches no block device' in out['msg']


def test_scheduler_loadable_as_module(host, tmp_path):
    mods = tmp_path / 'modules'
    mods.mkdir()
    (mods / 'modules.alias').write_text('alias bfq-iosched bfq\nalias kyber-iosched kyber_iosched\nalias pci:v* x\n')
    loadable = bt.loadable_schedulers(str(mods))
    assert loadable == {'bfq', 'kyber'}
    devices = bt.collect_devices(host.view())
    # vdb lists only "[mq-deadline] none": bfq is accepted because the kernel can load it on write
    pl = bt.plan([{'serial': 'lab-disk-0', 'scheduler': 'bfq'}], devices, host.view(), loadable=loadable)
    assert pl['expected']['vdb'] == {'scheduler': 'bfq'}
    with pytest.raises(bt.TuningError, match="scheduler 'bfq' is not offered by device vdb"):
        bt.plan([{'serial': 'lab-disk-0', 'scheduler': 'bfq'}], devices, host.view())
