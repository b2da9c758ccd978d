# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""plugin_utils/audit.py: the comparison with the plan, the fleet document and its renderings."""

from __future__ import annotations

import copy
import json
import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import audit as host_audit
from ansible_collections.iotune.storage.plugins.module_utils import drift
from ansible_collections.iotune.storage.plugins.plugin_utils import audit
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.audit import (
    ARRAYS,
    FS_UUID,
    OPTIONS,
    RULES,
    UUID,
    tuned_host,
    tuning,
)

PLAN = {
    'profile': {'description': 'Cassandra data volume'},
    'raid0_arrays': [{'name': 'data', 'devices': ARRAYS[0]['devices'], 'chunk_kb': 256}],
    'xfs_filesystems': [{'device': '/dev/md/data', 'mountpoint': '/var/lib/cassandra', 'mount_options': ['noatime']}],
}

PLANNED_LINE = 'UUID=%s /var/lib/cassandra xfs %s 0 0' % (FS_UUID, OPTIONS)


def facts_of(h, **kwargs):
    return host_audit.gather(h.view(), ARRAYS, tuning(h), RULES, **kwargs)


def messages(result):
    return [(i['area'], i['message']) for i in result['items']]


def test_tuned_host_is_ok(fake_host):
    result = audit.compare(facts_of(tuned_host(fake_host)), PLAN, 'db1')
    assert result['verdict'] == 'ok', result['items']
    assert result['arrays'] == [{'name': 'data', 'kname': 'md127', 'state': 'active', 'read_ahead_kb': 8, 'uuid': UUID}]
    assert result['notes'] == ['initramfs: not checked (initramfs=false)']


def test_the_four_drifts_of_the_issue_are_named(fake_host):
    """setra 4096 on the array, the rules file removed, a stale mdadm.conf line, a detached member."""
    h = tuned_host(fake_host)
    h.write('sys/block/md127/queue/read_ahead_kb', '4096\n')
    os.unlink(os.path.join(h.root, RULES.lstrip('/')))
    stale = 'ARRAY /dev/md/data metadata=1.2 UUID=deadbeef:deadbeef:deadbeef:deadbeef name=data'
    h.write('etc/mdadm/mdadm.conf', h.read('etc/mdadm/mdadm.conf') + stale + '\n')
    os.unlink(os.path.join(h.dev, 'disk', 'by-id', 'virtio-vol2'))
    h.write('sys/block/md127/md/array_state', 'broken\n')
    result = audit.compare(facts_of(h), PLAN, 'db1')
    found = messages(result)
    assert result['verdict'] == 'drift'
    assert ('readahead', 'read_ahead_kb live 4096, profile 8') in found
    assert any(a == 'rules' and 'is missing' in m for a, m in found)
    assert ('mdadm.conf', 'stale ARRAY line in mdadm.conf: %s (the running array is UUID=%s)' % (stale, UUID)) in found
    assert ('member', 'member /dev/disk/by-id/virtio-vol2 is missing (the path does not exist: detached or renamed)') in found
    assert ('array', '/dev/md/data is broken (a member disappeared while it ran)') in found
    assert result['arrays'][0]['state'] == 'broken'


@pytest.mark.parametrize('change,expected', [
    (lambda h: h.write('etc/fstab', ''),
     ('fstab', 'no /etc/fstab line mounts /var/lib/cassandra (the plan writes "%s")' % PLANNED_LINE)),
    (lambda h: h.write('etc/fstab', '/dev/md/data /var/lib/cassandra xfs noatime 0 0\n'),
     ('fstab', 'the /etc/fstab line of /var/lib/cassandra is "/dev/md/data /var/lib/cassandra xfs noatime 0 0", '
               'the plan writes "%s"' % PLANNED_LINE)),
    (lambda h: h.write('etc/fstab', h.read('etc/fstab').replace('nofail,', '')),
     ('fstab', 'the /etc/fstab line of /var/lib/cassandra is "%s", the plan writes "%s"'
      % (PLANNED_LINE.replace('nofail,', ''), PLANNED_LINE))),
    (lambda h: h.write('etc/mdadm/mdadm.conf', ''),
     ('mdadm.conf', 'no ARRAY line in mdadm.conf for the running array (UUID=%s)' % UUID)),
    (lambda h: os.unlink(os.path.join(h.root, 'etc/mdadm/mdadm.conf')),
     ('mdadm.conf', 'no mdadm.conf (/etc/mdadm/mdadm.conf)')),
    (lambda h: h.write('sys/block/vdb/queue/scheduler', 'none [mq-deadline]\n'),
     ('scheduler', 'scheduler live mq-deadline, profile none')),
    (lambda h: h.write('sys/block/md127/md/raid_disks', '3\n'), ('array', '/dev/md/data is degraded (2 of 3 members)')),
    (lambda h: h.write('sys/block/md127/md/array_state', 'inactive\n'), ('array', '/dev/md/data is inactive (not running)')),
    (lambda h: h.write('sys/block/md127/md/chunk_size', '524288\n'), ('array', 'chunk 512 KiB, the plan says 256 KiB')),
    (lambda h: h.write('sys/block/md127/md/dev-vdc/state', 'faulty\n'),
     ('member', 'member /dev/disk/by-id/virtio-vol2 (vdc) is faulty')),
])
def test_each_deviation(fake_host, change, expected):
    h = tuned_host(fake_host)
    change(h)
    result = audit.compare(facts_of(h), PLAN, 'db1')
    assert expected in messages(result)
    assert result['verdict'] == 'drift'


def test_mount_options_and_rules_content(fake_host):
    h = tuned_host(fake_host)
    h.mountinfo[-1] = h.mountinfo[-1].replace('rw,noatime', 'rw,relatime')
    h._write_mountinfo()
    path = RULES.lstrip('/')
    h.write(path, h.read(path).replace('ATTR{queue/read_ahead_kb}="8"', 'ATTR{queue/read_ahead_kb}="4096"', 1))
    found = messages(audit.compare(facts_of(h), PLAN, 'db1'))
    assert ('mount', 'mounted without noatime (live options rw,relatime)') in found
    assert ('rules', 'the udev rules file differs from what tune writes (1 line(s) missing, 1 other)') in found
    assert ('rules', 'the rules file sets read_ahead_kb 4096, profile 8') in found


def test_missing_array(fake_host):
    h = tuned_host(fake_host)
    facts = facts_of(h)
    facts['arrays'][0].update(kname=None, md=None, slaves=[], md_devices=[])
    found = messages(audit.compare(facts, PLAN))
    assert ('array', '/dev/md/data is not running (no such md device)') in found


def test_foreign_array_and_tuned_and_kernel(fake_host):
    h = tuned_host(fake_host)
    facts = facts_of(h)
    facts['arrays'][0]['members'][1]['foreign'] = [{'kname': 'md126', 'name': 'other:old', 'uuid': None}]
    facts['tuned'] = {'running': True, 'profiles': ['throughput-performance'], 'readahead': '>4096',
                      'conflicts': [{'device': 'md127', 'ours': 8, 'tuned': 4096}]}
    facts['kernel'] = {'drift': ['vm.swappiness: live 60, wanted 1'], 'conflicts': [], 'notes': ['a note']}
    result = audit.compare(facts, PLAN)
    found = messages(result)
    assert ('member', 'member /dev/disk/by-id/virtio-vol2 (vdc) belongs to another md array md126 (other:old)') in found
    assert ('tuned', 'tuned profile throughput-performance sets readahead 4096 KiB (profile 8 KiB)') in found
    assert ('kernel', 'vm.swappiness: live 60, wanted 1') in found
    assert 'a note' in result['notes']


def test_initramfs_lines(fake_host):
    h = tuned_host(fake_host)
    image = {'checked': True, 'image': '/boot/initrd.img', 'error': None, 'lines': []}
    found = messages(audit.compare(facts_of(h, read_initramfs=lambda: image), PLAN))
    assert ('initramfs', 'no ARRAY line in the initramfs that boots next for the running array (UUID=%s)' % UUID) in found
    image['lines'] = host_audit.parse_array_lines('ARRAY /dev/md/data metadata=1.2 UUID=%s name=lab:data\n' % UUID)
    result = audit.compare(facts_of(h, read_initramfs=lambda: image), PLAN)
    assert result['verdict'] == 'ok' and result['notes'] == []


def test_the_ignore_line_of_a_retired_array_is_no_drift(fake_host):
    """A retire without zero_superblocks leaves ARRAY <ignore> UUID=... in mdadm.conf and, once rebuilt, in the
    initramfs: neither a stale line of the planned array nor drift (negative control: a line of the planned name with
    that UUID is stale in both). The host-side comparison agrees (test_retired_array_checks.py)."""
    h = tuned_host(fake_host)
    retired = '0badc0de:11112222:33334444:55556666'
    planned = 'ARRAY /dev/md/data metadata=1.2 UUID=%s name=lab:data\n' % UUID
    for extra, expected in (('ARRAY <ignore> UUID=%s\n' % retired, []),
                            ('ARRAY /dev/md/data metadata=1.2 UUID=%s name=lab:data\n' % retired,
                             ['initramfs', 'mdadm.conf'])):
        h.write('etc/mdadm/mdadm.conf', 'HOMEHOST <system>\n' + planned + extra)
        image = {'checked': True, 'image': '/boot/initrd.img', 'error': None,
                 'lines': host_audit.parse_array_lines(planned + extra)}
        facts = facts_of(h, read_initramfs=lambda found=image: found)
        result = audit.compare(copy.deepcopy(facts), PLAN, 'db1')
        assert sorted(a for a, m in messages(result)) == expected, result['items']
        assert result == drift.compare(copy.deepcopy(facts), PLAN, 'db1')


def test_an_ephemeral_array_is_not_compared_with_the_initramfs(fake_host):
    """Its boot unit re-creates it in the real root after a stop/start (new UUID, no initramfs rebuild): an old or
    missing line in the initramfs is not drift; mdadm.conf is still compared (negative control: the same plan without
    ephemeral reports both)."""
    h = tuned_host(fake_host)
    old = 'ARRAY /dev/md/data metadata=1.2 UUID=deadbeef:deadbeef:deadbeef:deadbeef name=data\n'
    image = {'checked': True, 'image': '/boot/initrd.img', 'error': None, 'lines': host_audit.parse_array_lines(old)}
    ephemeral = copy.deepcopy(PLAN)
    ephemeral['raid0_arrays'][0]['ephemeral'] = True
    result = audit.compare(facts_of(h, read_initramfs=lambda: image), ephemeral)
    assert result['verdict'] == 'ok' and result['notes'] == [], result['items']
    found = messages(audit.compare(facts_of(h, read_initramfs=lambda: image), PLAN))
    assert [a for a, m in found] == ['initramfs', 'initramfs'], found
    h.write('etc/mdadm/mdadm.conf', h.read('etc/mdadm/mdadm.conf') + old)
    found = messages(audit.compare(facts_of(h, read_initramfs=lambda: image), ephemeral))
    assert found == [('mdadm.conf', 'stale ARRAY line in mdadm.conf: %s (the running array is UUID=%s)'
                      % (old.strip(), UUID))], found


def test_facts_of_another_schema_are_refused():
    with pytest.raises(ValueError, match='schema version 9'):
        audit.compare({'schema_version': 9}, PLAN)


def fleet_doc(fake_host):
    h = tuned_host(fake_host)
    ok = copy.deepcopy(facts_of(h))
    h.write('sys/block/md127/queue/read_ahead_kb', '4096\n')
    drift = facts_of(h)
    entries = [audit.host_entry('db2', drift, PLAN), audit.host_entry('db1', ok, PLAN),
               audit.host_entry('db3', unreachable='Failed to connect to the host via ssh'),
               audit.host_entry('db4', error='the module failed: boom <b>')]
    return audit.fleet(entries, generated_at='2026-11-24T02:00:00Z')


def test_fleet_document(fake_host):
    doc = fleet_doc(fake_host)
    assert doc['schema'] == 'iotune.storage/audit' and doc['schema_version'] == 1
    assert doc['counts'] == {'ok': 1, 'drift': 1, 'unreachable': 1, 'error': 1, 'total': 4}
    assert [h['host'] for h in doc['hosts']] == ['db1', 'db2', 'db3', 'db4']
    assert [h['verdict'] for h in doc['hosts']] == ['ok', 'drift', 'unreachable', 'error']
    assert audit.readahead_histogram(doc) == [(8, 1), (4096, 1)]
    assert json.loads(audit.render(doc, 'json')) == doc


def test_markdown_and_html(fake_host):
    doc = fleet_doc(fake_host)
    md = audit.render(doc, 'markdown')
    assert '| db2 | drift | 1 | data active | 4096 |' in md
    assert '- **readahead** md127 (md_name=data): read_ahead_kb live 4096, profile 8' in md
    assert '## db1: ok' in md and '- note: initramfs: not checked' in md
    page = audit.render(doc, 'html')
    assert page.startswith('<!DOCTYPE html>') and '<script>' in page and '<style>' in page
    assert 'http://' not in page.replace('http://www.w3.org/2000/svg', '') and 'https://' not in page
    assert 'boom &lt;b&gt;' in page and 'boom <b>' not in page
    assert page.count('<tr class="v-') == 4 and 'id="readahead-chart"' in page
    with pytest.raises(ValueError):
        audit.render(doc, 'pdf')


def test_summary(fake_host):
    text = audit.render(fleet_doc(fake_host), 'summary')
    assert text.splitlines()[0] == '4 host(s): 1 ok, 1 drift, 1 unreachable, 1 error'
    assert 'db2: drift: md127 (md_name=data) read_ahead_kb live 4096, profile 8' in text
    assert 'db3: unreachable: Failed to connect to the host via ssh' in text


def test_raid0_that_lost_a_member(fake_host):
    """What the lab VM shows after a member is unplugged: the kernel fails the array (broken), udev drops its
    entry and /dev/md/NAME, systemd unmounts it; the array is found through its members, its readahead
    compared with the profile directly."""
    h = tuned_host(fake_host)
    h.write('sys/block/md127/queue/read_ahead_kb', '2048\n')
    h.write('sys/block/md127/md/array_state', 'broken\n')
    os.unlink(os.path.join(h.udev, 'data', 'b9:127'))
    os.unlink(os.path.join(h.dev, 'md', 'data'))
    os.unlink(os.path.join(h.dev, 'disk', 'by-id', 'virtio-vol2'))
    h.mountinfo.pop()
    h._write_mountinfo()
    plan = dict(PLAN, profile={'description': 'x', 'array': {'read_ahead_kb': 8}})
    result = audit.compare(facts_of(h), plan)
    found = messages(result)
    assert result['arrays'][0]['kname'] == 'md127' and result['arrays'][0]['state'] == 'broken'
    assert ('readahead', 'read_ahead_kb live 2048, profile 8') in found
    assert ('member', 'member /dev/disk/by-id/virtio-vol2 is missing (the path does not exist: detached or renamed)') in found
    assert ('mount', 'nothing is mounted at /var/lib/cassandra') in found
    assert not any('another md array' in m for a, m in found), found
    assert ('tuning', 'the plan tunes md_name=data, which matches no block device') in found


def test_inactive_array_after_a_degraded_boot(fake_host):
    """After a boot without a member the array is inactive with md/uuid zeros and chunk_size 0 (lab): it is
    named inactive, and neither its chunk nor the ARRAY lines are compared against those zeros."""
    h = tuned_host(fake_host)
    h.write('sys/block/md127/md/array_state', 'inactive\n')
    h.write('sys/block/md127/md/uuid', '00000000-0000-0000-0000-000000000000\n')
    h.write('sys/block/md127/md/chunk_size', '0\n')
    h.udev_db('9:127', {'MD_DEVNAME': 'data', 'DEVTYPE': 'disk'})
    found = messages(audit.compare(facts_of(h), PLAN))
    assert ('array', '/dev/md/data is inactive (not running)') in found
    assert not [m for a, m in found if a in ('mdadm.conf', 'initramfs') or 'chunk' in m], found


def test_a_member_selector_that_matches_no_disk_is_drift(fake_host):
    """With selectors, the audit plans without a detached cloud disk (storage_preflight unresolved=report)
    and names it here; the host is drift, not an error."""
    problem = 'ebs_volume_id=vol-0123456789abcdef9 matches no disk on this host (cloud disks seen: none)'
    facts = facts_of(tuned_host(fake_host))
    result = audit.compare(facts, PLAN, 'db1', unresolved=[{'array': 'data', 'problem': problem}])
    assert result['verdict'] == 'drift'
    assert result['items'][0] == {'area': 'member', 'subject': '/dev/md/data', 'message': 'member selector ' + problem}
    with pytest.raises(ValueError):
        audit.compare(facts, PLAN, unresolved=['data'])
