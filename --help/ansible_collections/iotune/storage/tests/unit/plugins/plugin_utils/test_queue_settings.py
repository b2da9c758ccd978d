# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 27, first part: the queue settings beyond readahead and the scheduler (nomerges, rq_affinity, nr_requests,
max_sectors_kb, io_timeout, write_cache) - one rule for the plan and udev_block_tuning, per member class (EBS and
instance store over nvme), rendered into the same rules file, checked live by the module, the preflight's stage
check and the audit alike. Each behaviour has a negative control beside it."""

from __future__ import annotations

import copy
import os

import pytest
import yaml

from ansible_collections.iotune.storage.plugins.module_utils import audit as host_audit
from ansible_collections.iotune.storage.plugins.module_utils import block_tuning as bt
from ansible_collections.iotune.storage.plugins.module_utils import drift, stage_sync
from ansible_collections.iotune.storage.plugins.module_utils import rules as r
from ansible_collections.iotune.storage.plugins.modules import udev_block_tuning as mod
from ansible_collections.iotune.storage.plugins.plugin_utils import plan
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures import audit as fixture
from ansible_collections.iotune.storage.tests.unit.plugins.modules.test_udev_block_tuning import (  # noqa: F401 pylint: disable=unused-import
    FakeUdev,
    host,
    run,
)
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.test_stage_sync import (
    Module,
    stages,
)
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.test_stage_sync import host as synced_host  # noqa: F401 pylint: disable=unused-import
from ansible_collections.iotune.storage.tests.unit.plugins.plugin_utils.test_rule_agreement import ROOT

EBS = 2147483000
QUEUE_FILES = {'nomerges': '0', 'rq_affinity': '1', 'io_timeout': '30000', 'write_cache': 'write back'}


def with_queue_files(h, names, files=None):
    for name in names:
        for attr, value in (files or QUEUE_FILES).items():
            h.write('sys/block/%s/queue/%s' % (name, attr), value + '\n')


@pytest.fixture
def cloud_host(host):
    """test_udev_block_tuning's host (EBS members nvme1n1, nvme2n1 of md0; virtio vdb, vdc) with the queue files,
    an EC2 instance-store disk and a lab NVMe disk whose serial is an EBS volume id (qemu cannot set the model)."""
    host.add_disk('nvme3n1', '259:3', queue={'scheduler': '[none] mq-deadline'},
                  device={'model': 'Amazon EC2 NVMe Instance Storage', 'serial': 'AWS1A2B3C4D5E6F7'})
    host.add_disk('nvme4n1', '259:4', queue={'scheduler': '[none] mq-deadline'},
                  device={'model': 'QEMU NVMe Ctrl', 'serial': 'vol0aaaaaaaaaaaaaaaa'})
    host.add_disk('nvme5n1', '259:5', queue={'scheduler': '[none] mq-deadline'},
                  device={'model': 'Samsung SSD 980 PRO', 'serial': 'S5GXNX0R123456'})
    with_queue_files(host, ('nvme1n1', 'nvme2n1', 'nvme3n1', 'nvme4n1', 'nvme5n1', 'vdb', 'vdc'))
    with_queue_files(host, ('md0',), {'nomerges': '0', 'write_cache': 'write back'})
    return host


def plan_for(h, entries, **kwargs):
    return bt.plan(entries, bt.collect_devices(h.view()), h.view(), **kwargs)


def refused(h, entries):
    with pytest.raises(bt.TuningError) as exc:
        plan_for(h, entries)
    return str(exc.value)


# ---------------------------------------------------------------------------------------------
# the rule (rules.py), the plan and the module


@pytest.mark.parametrize('key, value, ok', [
    ('nomerges', 2, True), ('nomerges', 0, True), ('nomerges', 3, False), ('nomerges', '2', 'coerced'),
    ('nomerges', True, 'coerced'), ('rq_affinity', 2, True), ('rq_affinity', -1, False),
    ('nr_requests', 4, True), ('nr_requests', 2048, True), ('nr_requests', 3, False), ('nr_requests', 2049, False),
    ('max_sectors_kb', 4, True), ('max_sectors_kb', 256, True), ('max_sectors_kb', 6, False),
    ('max_sectors_kb', 0, False), ('io_timeout', 30000, True), ('io_timeout', EBS, True),
    ('io_timeout', 4294967295, False), ('io_timeout', 30001, False), ('io_timeout', 0, False),
    ('write_cache', 'write through', True), ('write_cache', 'write back', True), ('write_cache', 'writeback', False),
    ('write_cache', 'none', False), ('nomerge', 2, False),
])
def test_one_rule_in_the_plan_and_the_module(key, value, ok):
    """ok 'coerced': a value Ansible's argument spec converts for the module (a string of digits, a boolean), which
    the plan refuses on purpose (nothing is coerced silently), as test_rule_agreement.py has it."""
    assert (r.queue_value_problem(key, value) is None) == (ok is True)
    # the plan: a profile override of the nvme members (write_cache is an array's opt-in instead)
    if key == 'write_cache':
        arrays = [{'name': 'data', 'devices': ['/dev/vdb', '/dev/vdc'], 'mountpoint': '/data', key: value}]
        plan_ok = _accepted(lambda: plan.build_plan('cassandra', cassandra(), {}, arrays))
    else:
        overrides = {'members': {'queue_by_class': {'ebs' if key == 'io_timeout' else 'nvme': {key: value}}}}
        plan_ok = _accepted(lambda: plan.validate_profile('cassandra', cassandra(), overrides))
    # the module: its argument spec (choices) and its validator
    entry = {'kernel': 'nvme*', key: value}
    module_ok = key in bt.SETTING_KEYS and _accepted(lambda: bt.normalize_entry(entry))
    assert (plan_ok, module_ok) == ((False, True) if ok == 'coerced' else (ok, ok))


def _accepted(call):
    try:
        call()
        return True
    except (plan.PlanError, bt.TuningError, ValueError):
        return False


def cassandra():
    with open(os.path.join(ROOT, 'roles', 'profile', 'vars', 'profiles', 'cassandra.yml')) as f:
        return yaml.safe_load(f)['profile_data']


def plan_problems(overrides=None, arrays=None):
    arrays = arrays or [{'name': 'data', 'devices': ['/dev/vdb', '/dev/vdc'], 'mountpoint': '/data'}]
    with pytest.raises(plan.PlanError) as exc:
        plan.build_plan('cassandra', cassandra(), overrides or {}, arrays)
    return str(exc.value)


def test_the_plan_names_misplaced_and_mistyped_queue_keys():
    found = plan_problems({'members': {'queue_by_class': {'nvme': {'io_timeout': 30000}}}})
    assert 'members.queue_by_class.nvme: io_timeout is for ebs members only, not nvme' in found
    found = plan_problems({'members': {'queue_by_class': {'nvme': {'nomerge': 2}}}})
    assert 'did you mean members.queue_by_class.nvme.nomerges' in found
    found = plan_problems({'members': {'queue_by_class': {'ebs_volume': {'nomerges': 2}}}})
    assert "unknown key members.queue_by_class.ebs_volume" in found
    found = plan_problems({'array': {'queue': {'rq_affinity': 2}}})
    assert "unknown key array.queue.rq_affinity" in found
    # the profile's own data is checked too (not only the overrides): a typo in a profile file is named
    data = cassandra()
    data['members']['queue_by_class']['nvm'] = {'nomerges': 2}
    with pytest.raises(plan.PlanError) as exc:
        plan.validate_profile('cassandra', data, {})
    assert "unknown member class 'nvm' (did you mean nvme?" in str(exc.value)
    found = plan_problems(arrays=[{'name': 'data', 'devices': ['/dev/vdb', '/dev/vdc'], 'mountpoint': '/data',
                                   'write_cache': 'writethrough'}])
    assert "iotune_arrays entry 'data': write_cache must be one of 'write back', 'write through'" in found


def test_the_plan_gives_the_array_and_its_members_their_queue_values():
    arrays = [{'name': 'data', 'devices': ['/dev/vdb', '/dev/vdc'], 'mountpoint': '/data'},
              {'name': 'gcp', 'devices': ['/dev/sdb', '/dev/sdc'], 'mountpoint': '/scratch', 'write_cache': 'write through'}]
    tuning = plan.build_plan('cassandra', cassandra(), {}, arrays)['block_tuning_devices']
    assert tuning[0] == {'md_name': 'data', 'read_ahead_kb': 8, 'nomerges': 2}
    by_class = {'nvme': {'nomerges': 2}, 'virtual': {'nomerges': 2}, 'ssd': {'nomerges': 2}, 'ebs': {'io_timeout': EBS}}
    assert tuning[1]['queue_by_class'] == by_class and 'write_cache' not in tuning[1]
    # the opt-in reaches the members of its own array only, never the array itself
    assert tuning[3] == {'md_name': 'gcp', 'read_ahead_kb': 8, 'nomerges': 2}
    assert [t.get('write_cache') for t in tuning[4:]] == ['write through', 'write through']
    # negative control: a profile without queue settings gives entries as before issue 27
    mongodb = plan.build_plan('custom', cassandra(), {'array': {'queue': None}, 'members': {'queue_by_class': None}},
                              arrays[:1])['block_tuning_devices']
    assert mongodb[0] == {'md_name': 'data', 'read_ahead_kb': 8} and 'queue_by_class' not in mongodb[1]


def test_every_profile_value_passes_the_rule_and_has_its_source_in_the_docs():
    with open(os.path.join(ROOT, 'docs', 'profiles.md')) as f:
        docs = f.read()
    directory = os.path.join(ROOT, 'roles', 'profile', 'vars', 'profiles')
    seen = 0
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name)) as f:
            data = yaml.safe_load(f)['profile_data']
        profile = plan.validate_profile(name[:-4], data, {}) if name != 'custom.yml' else None
        if profile is None:
            continue
        values = [('array', key, value) for key, value in profile['array']['queue'].items()]
        values += [(cls, key, value) for cls, settings in profile['members']['queue_by_class'].items()
                   for key, value in settings.items()]
        for where, key, value in values:
            seen += 1
            row = '| `%s` | `%s` | `%s` | `%s` |' % (name[:-4], where, key, value)
            assert row in docs, row
    assert seen >= 8


# ---------------------------------------------------------------------------------------------
# member classes on the host


def test_cloud_classes(cloud_host):
    devices = bt.collect_devices(cloud_host.view())
    found = dict((name, (devices[name]['class'], devices[name]['cloud_class']))
                 for name in ('nvme1n1', 'nvme3n1', 'nvme4n1', 'nvme5n1', 'vdb', 'md0'))
    assert found == {'nvme1n1': ('nvme', 'ebs'), 'nvme3n1': ('nvme', 'instance_store'),
                     'nvme4n1': ('nvme', 'ebs'), 'nvme5n1': ('nvme', None), 'vdb': ('virtual', None), 'md0': (None, None)}
    assert devices['md0']['queue_files'] >= {'nomerges', 'read_ahead_kb'}
    assert 'rq_affinity' not in devices['md0']['queue_files']


BY_CLASS = {'nvme': {'nomerges': 2}, 'virtual': {'nomerges': 1}, 'ebs': {'io_timeout': EBS}}


def test_each_member_gets_its_class_values_and_ebs_its_timeout(cloud_host):
    entries = [{'device': os.path.join(cloud_host.dev, 'disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef1'),
                'queue_by_class': BY_CLASS},
               {'serial': 'AWS1A2B3C4D5E6F7', 'queue_by_class': BY_CLASS},
               {'serial': 'lab-disk-0', 'queue_by_class': BY_CLASS},
               {'serial': 'S5GXNX0R123456', 'queue_by_class': BY_CLASS}]
    pl = plan_for(cloud_host, entries)
    assert pl['expected'] == {'nvme1n1': {'nomerges': 2, 'io_timeout': EBS}, 'nvme3n1': {'nomerges': 2},
                              'vdb': {'nomerges': 1}, 'nvme5n1': {'nomerges': 2}}
    text = bt.render_rules(pl['rules'], 'x.rules')
    timeouts = [line for line in text.splitlines() if 'io_timeout' in line]
    # the EBS volume's rule only, and guarded by the attribute's existence like every other line
    assert len(timeouts) == 1 and 'ENV{ID_SERIAL_SHORT}' not in timeouts[0] or 'vol0123456789abcdef1' in timeouts[0]
    assert all('TEST=="queue/io_timeout", ATTR{queue/io_timeout}="2147483000"' in line for line in timeouts)
    assert 'ATTR{queue/nomerges}="1"' in text and 'ATTR{queue/nomerges}="2"' in text


def test_a_glob_over_ebs_and_instance_store_is_split_when_their_values_differ(cloud_host):
    assert 'matches devices of different classes (nvme, nvme/ebs); split the selector' in refused(
        cloud_host, [{'kernel': 'nvme[34]n1', 'queue_by_class': BY_CLASS}])
    # negative control: without a cloud class's own values both are plain nvme members
    assert plan_for(cloud_host, [{'kernel': 'nvme[34]n1', 'queue_by_class': {'nvme': {'nomerges': 2}}}])['expected'] \
        == {'nvme3n1': {'nomerges': 2}, 'nvme4n1': {'nomerges': 2}}


def test_the_array_takes_what_its_queue_has(cloud_host):
    pl = plan_for(cloud_host, [{'kernel': 'md0', 'nomerges': 2, 'read_ahead_kb': 8}])
    assert pl['expected'] == {'md0': {'nomerges': 2, 'read_ahead_kb': 8}}
    assert 'KERNEL=="md0", TEST=="queue/nomerges", ATTR{queue/nomerges}="2"' in bt.render_rules(pl['rules'], 'x')
    assert 'md0 has no queue/rq_affinity (md and other bio-based devices have none; set it on the members)' in \
        refused(cloud_host, [{'kernel': 'md0', 'rq_affinity': 2}])
    # by-class values skip md like the scheduler does
    assert plan_for(cloud_host, [{'kernel': 'md0', 'queue_by_class': BY_CLASS, 'read_ahead_kb': 8}])['expected'] == \
        {'md0': {'read_ahead_kb': 8}}


@pytest.mark.parametrize('entry, message', [
    ({'kernel': 'nvme1n1', 'queue_by_class': {'nvme': {'io_timeout': 30000}}}, 'io_timeout is for ebs members only, not nvme'),
    ({'kernel': 'nvme1n1', 'queue_by_class': {'instance_store': {'io_timeout': 30000}}}, 'for ebs members only'),
    ({'kernel': 'nvme1n1', 'io_timeout': 4294967295}, 'reads back as another number'),
    ({'kernel': 'nvme1n1', 'nomerges': 2, 'queue_by_class': {'nvme': {'nomerges': 1}}},
     'nomerges is given for the entry and in queue_by_class.nvme'),
    ({'kernel': 'nvme1n1', 'queue_by_class': {'nvm': {'nomerges': 1}}}, "unknown member class 'nvm' (did you mean nvme?"),
    ({'kernel': 'nvme1n1', 'queue_by_class': {'nvme': {'nomerge': 1}}}, 'did you mean nomerges?'),
    ({'kernel': 'nvme1n1', 'queue_by_class': {'nvme': 2}}, 'queue_by_class.nvme must be a dict'),
    ({'kernel': 'nvme1n1', 'write_cache': 'off'}, "write_cache must be one of 'write back', 'write through'"),
    ({'kernel': 'sda', 'nomerges': 2}, 'sda has no queue/nomerges (not offered by this kernel or driver)'),
])
def test_refusals_name_the_entry_and_the_reason(cloud_host, entry, message):
    assert message in refused(cloud_host, [entry])


def test_two_selectors_must_not_disagree(cloud_host):
    assert 'with different nomerges (2 vs 1)' in refused(cloud_host, [
        {'kernel': 'vdb', 'nomerges': 2}, {'serial': 'lab-disk-0', 'queue_by_class': {'virtual': {'nomerges': 1}}}])


# ---------------------------------------------------------------------------------------------
# the module: --check --diff, apply and verify, drift


def module_entries(h):
    return [{'kernel': 'md0', 'read_ahead_kb': 8, 'nomerges': 2},
            {'device': os.path.join(h.dev, 'disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef1'),
             'queue_by_class': BY_CLASS},
            {'serial': 'lab-disk-0', 'queue_by_class': BY_CLASS, 'write_cache': 'write through'}]


APPLIED = {'md0': {'read_ahead_kb': '8', 'nomerges': '2'}, 'nvme1n1': {'nomerges': '2', 'io_timeout': str(EBS)},
           'vdb': {'nomerges': '1', 'write_cache': 'write through'}}


def test_check_diff_shows_the_new_rule_lines_and_changes_nothing(cloud_host, capsys, monkeypatch):
    fake = FakeUdev(cloud_host, APPLIED)
    code, out = run(capsys, monkeypatch, fake, {'devices': module_entries(cloud_host), 'rules_file': cloud_host.rules},
                    check=True, diff=True)
    assert code == 0 and out['changed'] is True, out
    after = out['diff']['after']
    for line in ('ATTR{queue/nomerges}="2"', 'ATTR{queue/io_timeout}="2147483000"', 'ATTR{queue/nomerges}="1"',
                 'TEST=="queue/write_cache", ATTR{queue/write_cache}="write through"'):
        assert line in after
    assert out['triggered'] == ['md0', 'nvme1n1', 'vdb']
    assert not os.path.exists(cloud_host.rules) and fake.udevadm_calls() == []


def test_apply_verify_and_a_value_changed_by_hand(cloud_host, capsys, monkeypatch):
    args = {'devices': module_entries(cloud_host), 'rules_file': cloud_host.rules}
    code, out = run(capsys, monkeypatch, FakeUdev(cloud_host, APPLIED), args)
    assert code == 0 and out['changed'] is True, out
    assert out['devices']['nvme1n1']['after']['io_timeout'] == str(EBS)
    assert out['readahead_changed'] == ['md0']          # a queue value is not a readahead change
    code, out = run(capsys, monkeypatch, FakeUdev(cloud_host, APPLIED), args)
    assert code == 0 and out['changed'] is False and out['triggered'] == []
    cloud_host.write('sys/block/vdb/queue/nomerges', '0\n')
    fake = FakeUdev(cloud_host, APPLIED)
    code, out = run(capsys, monkeypatch, fake, args)
    assert code == 0 and out['changed'] is True and out['rules_changed'] is False and out['triggered'] == ['vdb']
    # negative control: udev ignores a failed write; the read-back names it
    cloud_host.write('sys/block/vdb/queue/nomerges', '0\n')
    code, out = run(capsys, monkeypatch, FakeUdev(cloud_host, APPLIED, broken=True), args)
    assert code == 1 and 'vdb (serial=lab-disk-0): nomerges expected 1, live 0' in out['msg']


def test_the_documentation_lists_each_setting_as_the_argument_spec_takes_it():
    documented = yaml.safe_load(mod.DOCUMENTATION)['options']['devices']['suboptions']
    spec = bt.devices_option()['options']
    assert sorted(documented) == sorted(spec)
    for key, option in spec.items():
        assert (documented[key]['type'], documented[key].get('choices')) == (option['type'], option.get('choices')), key
    role = yaml.safe_load(open(os.path.join(ROOT, 'roles', 'block_tuning', 'meta', 'argument_specs.yml')))
    role_options = role['argument_specs']['main']['options']['block_tuning_devices']['options']
    for key, option in spec.items():
        assert (role_options[key]['type'], role_options[key].get('choices')) == (option['type'], option.get('choices'))


# ---------------------------------------------------------------------------------------------
# the preflight's stage check and the audit: one comparison


def nomerges_tuning(h):
    entries = copy.deepcopy(fixture.tuning(h))
    entries[0]['nomerges'] = 2
    for entry in entries[1:]:
        entry['queue_by_class'] = {'virtual': {'nomerges': 2}}
    return entries


@pytest.fixture
def nomerges_host(synced_host):
    """test_stage_sync's converged host, its array and members at nomerges 2 with the rules file that says so."""
    h = synced_host
    for name in ('vdb', 'vdc', 'md127'):
        h.write('sys/block/%s/queue/nomerges' % name, '2\n')
    view = h.view()
    pl = bt.plan(nomerges_tuning(h), bt.collect_devices(view), view, allow_unmatched=True)
    h.write(fixture.RULES.lstrip('/'), bt.render_rules(pl['rules'], os.path.basename(fixture.RULES)))
    return h


def stage_options(h):
    given = stages(h)
    given['block_tuning'][0]['devices'] = nomerges_tuning(h)
    return given


def audit_items(h):
    facts = host_audit.gather(h.view(), fixture.ARRAYS, nomerges_tuning(h), fixture.RULES)
    return [i for i in drift.compare(facts, fixture.DRIFT_PLAN)['items'] if i['area'] not in ('kernel',)]


def test_a_converged_host_is_in_sync_and_the_audit_finds_nothing(nomerges_host):
    in_sync, dummy, why = stage_sync.check(Module(nomerges_host), nomerges_host.view(), stage_options(nomerges_host))
    assert 'block_tuning' in in_sync and why == {}
    assert audit_items(nomerges_host) == []


@pytest.mark.parametrize('name', ['vdc', 'md127'])
def test_a_nomerges_changed_by_hand_is_drift_for_both(nomerges_host, name):
    nomerges_host.write('sys/block/%s/queue/nomerges' % name, '0\n')
    in_sync, dummy, why = stage_sync.check(Module(nomerges_host), nomerges_host.view(), stage_options(nomerges_host))
    assert 'block_tuning' not in in_sync and set(why) == {'block_tuning'}
    items = audit_items(nomerges_host)
    assert [(i['area'], i['message']) for i in items] == [('queue', 'nomerges live 0, profile 2')]
    assert items[0]['subject'].startswith(name + ' (')


def test_the_rules_file_without_the_line_is_drift_of_the_file(nomerges_host):
    path = os.path.join(nomerges_host.root, fixture.RULES.lstrip('/'))
    with open(path) as f:
        text = ''.join(line for line in f if 'queue/nomerges' not in line or 'md*' not in line)
    with open(path, 'w') as f:
        f.write(text)
    items = audit_items(nomerges_host)
    assert [i['area'] for i in items] == ['rules', 'rules']
    assert 'the rules file sets nomerges nothing, profile 2' in [i['message'] for i in items]
    # negative control: the same host with the whole file is clean (the test above)


def test_the_html_report_shows_the_queue_values(nomerges_host):
    from ansible_collections.iotune.storage.plugins.plugin_utils import audit as report
    nomerges_host.write('sys/block/vdc/queue/nomerges', '0\n')
    facts = host_audit.gather(nomerges_host.view(), fixture.ARRAYS, nomerges_tuning(nomerges_host), fixture.RULES)
    devices = drift.compare(facts, fixture.DRIFT_PLAN)['devices']
    html = report._devices_table(devices)  # pylint: disable=protected-access
    assert 'nomerges 0 / 2 / 2' in html and 'nomerges 2 / 2 / 2' in html
    assert '<th>Queue live / profile / rules</th>' in html
