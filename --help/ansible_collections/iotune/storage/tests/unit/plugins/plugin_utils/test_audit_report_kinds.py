# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The HTML report leads with what is wrong (issue 30): the fleet's drift grouped by kind (audit.drift_kinds, the
normalisation of host-specific parts), the filter ``#only=action`` and the column ``What drifted``."""

from __future__ import annotations

import re

from ansible_collections.iotune.storage.plugins.filter.storage_audit import storage_audit_fleet
from ansible_collections.iotune.storage.plugins.plugin_utils import audit
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.audit import synthetic_results

P = audit.PLACEHOLDER


def entry(host, *items):
    """A compared host with ``items`` ((area, subject, message) each): drift with items, ok without."""
    return {'host': host, 'verdict': 'drift' if items else 'ok', 'profile': None, 'notes': [], 'arrays': [],
            'devices': [], 'observed': None, 'error': None,
            'items': [{'area': a, 'subject': s, 'message': m} for a, s, m in items]}


def test_normalise_replaces_the_host_specific_parts():
    assert audit.normalise('stale ARRAY line in mdadm.conf: ARRAY /dev/md/data metadata=1.2 UUID=1a2b3c4d:0e4f10bf:'
                           '2c47dc72:ca0b352e name=db3:data (the running array is UUID=deadbeef:0:0:0)') == \
        'stale ARRAY line in mdadm.conf: ARRAY /dev/md/data metadata=1.2 UUID=%s name=%s:data (the running array is ' \
        'UUID=%s)' % (P, P, P)
    assert audit.normalise('the fstab line mounts UUID=0b5f1c1e-8d36-4c1a-9d57-3d2f0f1e2a3b, the array holds UUID=x') \
        == 'the fstab line mounts UUID=%s, the array holds UUID=%s' % (P, P)
    assert audit.normalise('uuid 1a2b3c4d:0e4f10bf:2c47dc72:ca0b352e and 0b5f1c1e-8d36-4c1a-9d57-3d2f0f1e2a3b') == \
        'uuid %s and %s' % (P, P)
    assert audit.normalise('member /dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWS1F0 (nvme1n1) is not in '
                           'the array') == 'member /dev/disk/by-id/%s (%s) is not in the array' % (P, P)
    for kname in ('sdb', 'vdc', 'xvdf', 'nvme1n1', 'nvme0n1p2', 'md127', 'dm-3', 'sdaa1'):
        assert audit.normalise('/dev/md/data is mounted from /dev/%s, not from the array (%s)' % (kname, kname)) == \
            '/dev/md/data is mounted from /dev/%s, not from the array (%s)' % (P, P), kname
    # what is not a kernel name stays: md names, option names, numbers, hdd (a device class)
    kept = 'read_ahead_kb live 4096, profile 8 on /dev/md/data (md_name=data, class hdd, mdadm.conf, sdb_x, vdc.d)'
    assert audit.normalise(kept) == kept


def test_the_same_deviation_on_many_hosts_is_one_kind_most_hosts_first():
    doc = audit.fleet([
        entry('db1', ('readahead', 'md127 (md_name=data)', 'read_ahead_kb live 4096, profile 8')),
        entry('db2', ('array', '/dev/md/data', '/dev/md/data is degraded (3 of 4 members)'),
              ('member', '/dev/md/data', 'member /dev/disk/by-id/virtio-vol3 (vde) is not in the array')),
        entry('db3', ('readahead', 'md126 (md_name=data)', 'read_ahead_kb live 4096, profile 8'),
              ('member', '/dev/md/data', 'member /dev/disk/by-id/virtio-vol1 (vdc) is not in the array'),
              ('member', '/dev/md/data', 'member /dev/disk/by-id/virtio-vol2 (vdd) is not in the array')),
        entry('db4', ('array', '/dev/md/data', '/dev/md/data is degraded (3 of 4 members)'),
              ('readahead', 'md127 (md_name=data)', 'read_ahead_kb live 4096, profile 8')),
        entry('db5'),
    ])
    assert audit.drift_kinds(doc) == [
        ('readahead: read_ahead_kb live 4096, profile 8', ['db1', 'db3', 'db4']),
        ('array: /dev/md/data is degraded (3 of 4 members)', ['db2', 'db4']),
        ('member: member /dev/disk/by-id/%s (%s) is not in the array' % (P, P), ['db2', 'db3']),
    ]


def test_different_messages_stay_apart():
    doc = audit.fleet([
        entry('db1', ('readahead', 'md127 (md_name=data)', 'read_ahead_kb live 4096, profile 8')),
        entry('db2', ('readahead', 'md127 (md_name=data)', 'read_ahead_kb live 16384, profile 8')),
        entry('db3', ('scheduler', 'vdb (device=x)', 'scheduler live mq-deadline, profile none')),
        entry('db4', ('array', '/dev/md/data', '/dev/md/data is degraded (2 of 4 members)')),
        entry('db5', ('array', '/dev/md/data', '/dev/md/data is degraded (3 of 4 members)')),
        entry('db6', ('array', '/dev/md/logs', '/dev/md/logs is degraded (3 of 4 members)')),
        # the same message in another area is another kind
        entry('db7', ('initramfs', '/dev/md/data', 'several ARRAY lines for UUID=%s in x' % P)),
        entry('db8', ('mdadm.conf', '/dev/md/data', 'several ARRAY lines for UUID=%s in x' % P)),
    ])
    kinds = audit.drift_kinds(doc)
    assert len(kinds) == 8 and all(len(hosts) == 1 for dummy, hosts in kinds), kinds
    assert [hosts[0] for dummy, hosts in kinds] == ['db4', 'db5', 'db6', 'db7', 'db8', 'db2', 'db1', 'db3']


def test_unreachable_and_error_hosts_are_kinds_of_their_own():
    doc = audit.fleet([
        entry('db1', ('rules', '/etc/x.rules', 'the udev rules file /etc/x.rules is missing')),
        audit.host_entry('db2', unreachable='Failed to connect to the host via ssh: db2 port 22: refused'),
        audit.host_entry('db3', unreachable='Failed to connect to the host via ssh: timed out'),
        audit.host_entry('db4', error='the module failed on db4: no /sys/block/vdb'),
        audit.host_entry('db5', error='the module failed on db5: no /sys/block/sdc\ntraceback ...'),
        audit.host_entry('db6', error='plan: the profile cassandra needs 2 members'),
        entry('db7'),
    ])
    assert audit.drift_kinds(doc) == [
        ('error: the module failed on %s: no /sys/block/%s' % (P, P), ['db4', 'db5']),
        ('unreachable: the audit could not reach the host', ['db2', 'db3']),
        ('error: plan: the profile cassandra needs 2 members', ['db6']),
        ('rules: the udev rules file /etc/x.rules is missing', ['db1']),
    ]
    assert audit.drift_kinds(audit.fleet([entry('db1'), entry('db2')])) == []


def test_a_synthetic_fleet_groups_by_kind():
    doc = storage_audit_fleet(synthetic_results(100))
    kinds = dict(audit.drift_kinds(doc))
    drifted = [h['host'] for h in doc['hosts'] if h['verdict'] == 'drift']
    # every 13th host has a stale ARRAY line with its own running UUID: one kind
    stale = [k for k in kinds if k.startswith('mdadm.conf: stale ARRAY line')]
    assert stale == ['mdadm.conf: stale ARRAY line in mdadm.conf: ARRAY /dev/md/data metadata=1.2 UUID=%s name=data '
                     '(the running array is UUID=%s)' % (P, P)], stale
    assert kinds[stale[0]] == ['db%03d.example.net' % i for i in (13, 26, 39, 52, 65, 78, 91)]
    assert kinds['readahead: read_ahead_kb live 4096, profile 8'] == \
        ['db%03d.example.net' % i for i in range(7, 101, 7) if i % 23]
    assert kinds['unreachable: the audit could not reach the host'] == \
        ['db%03d.example.net' % i for i in range(23, 101, 23)]
    assert sorted(set(h for hosts in kinds.values() for h in hosts)) == \
        sorted(drifted + kinds['unreachable: the audit could not reach the host'])


def test_the_page_leads_with_the_drift_summary():
    doc = storage_audit_fleet(synthetic_results(100))
    page = audit.render(doc, 'html')
    counts, summary, chart, checkbox, table = (page.index('class="counts"'), page.index('id="drift-summary"'),
                                               page.index('id="readahead-chart"'), page.index('id="only-action"'),
                                               page.index('<table id="hosts">'))
    assert counts < summary < chart < checkbox < table
    section = page[summary:page.index('</section>', summary)]
    items = re.findall(r'<li class="k-(\w+)" data-hosts="(\d+)"><span class="kind">([^<]*)</span>', section)
    assert [int(n) for dummy, n, dummy in items] == sorted((int(n) for dummy, n, dummy in items), reverse=True)
    assert ('drift', '14', 'readahead: read_ahead_kb live 4096, profile 8') in items
    assert ('unreachable', '4', 'unreachable: the audit could not reach the host') in items
    # 14 hosts: 8 links, then the other 6 behind "+6 more"
    li = section[section.index('readahead: read_ahead_kb live 4096'):]
    li = li[:li.index('</li>')]
    assert li.count('<a href="#host-') == 14 and '<details><summary>+6 more</summary>' in li
    assert li.index('<a href="#host-db007.example.net">db007.example.net</a>') < li.index('+6 more')
    assert li.index('+6 more') < li.index('<a href="#host-db070.example.net">')
    assert '<th data-key="drifted">What drifted</th>' in page
    assert 'http://' not in page.replace('http://www.w3.org/2000/svg', '') and 'https://' not in page


def test_the_column_what_drifted():
    doc = audit.fleet([
        entry('db1', *[('member', '/dev/md/data', 'member /dev/disk/by-id/v%d (vd%s) is missing' % (i, 'bcde'[i]))
                       for i in range(4)] + [('rules', '/x', 'r' * 300)]),
        entry('db2', ('rules', '/x', 'r' * 300)),
        entry('db3'),
        audit.host_entry('db4', error='boom'),
    ])
    page = audit.render(doc, 'html')
    row = re.search(r'<tr class="v-drift" data-host="db1" data-verdict="drift">.*?</tr>', page).group(0)
    assert row.endswith('<td data-sort="member: member /dev/disk/by-id/%s (%s) is missing"><ul class="drifted">'
                        '<li>member: member /dev/disk/by-id/v0 (vdb) is missing</li>'
                        '<li>member: member /dev/disk/by-id/v1 (vdc) is missing</li>'
                        '<li>member: member /dev/disk/by-id/v2 (vdd) is missing</li>'
                        '<li class="more">+2 more</li></ul></td></tr>' % (P, P)), row
    row = re.search(r'<tr class="v-drift" data-host="db2".*?</tr>', page).group(0)
    long_text = 'rules: ' + 'r' * 300
    assert '<li title="%s">%s%s</li>' % (long_text, long_text[:audit.DRIFTED_CHARS - 1], P) in row
    assert re.search(r'<tr class="v-ok" data-host="db3" data-verdict="ok">.*<td data-sort="~">-</td></tr>', page)
    assert re.search(r'<tr class="v-error" data-host="db4" data-verdict="error">.*<li>boom</li></ul></td></tr>', page)
    assert '<details id="host-db3" data-verdict="ok">' in page


def test_everything_is_escaped():
    nasty = 'db<1>&"x\''
    doc = audit.fleet([
        entry(nasty, ('mount', '/srv/<a>', 'nothing is mounted at /srv/<a> & "b"')),
        audit.host_entry('e<2>', error='failed: <script>alert(1)</script> & "q"'),
        entry('ok<3>'),
    ])
    kinds = audit.drift_kinds(doc)
    assert kinds[1] == ('mount: nothing is mounted at /srv/<a> & "b"', [nasty]), kinds
    page = audit.render(doc, 'html')
    assert '<script>alert' not in page and '<a>' not in page and 'db<1>' not in page and 'ok<3>' not in page
    assert page.count('<script>') == 1
    assert '<span class="kind">mount: nothing is mounted at /srv/&lt;a&gt; &amp; &quot;b&quot;</span>' in page
    assert '<a href="#host-db%3C1%3E%26%22x%27">db&lt;1&gt;&amp;&quot;x&#x27;</a>' in page
    assert '<details open id="host-db&lt;1&gt;&amp;&quot;x&#x27;" data-verdict="drift">' in page
    assert '<tr class="v-drift" data-host="db&lt;1&gt;&amp;&quot;x&#x27;" data-verdict="drift">' in page
    assert 'error: failed: &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;' in page
    assert '<li>failed: &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;</li>' in page


def test_a_fleet_without_drift():
    page = audit.render(audit.fleet([entry('db1'), entry('db2')]), 'html')
    assert '<p>No drift: every host is as planned.</p>' in page and '(0 of 2;' in page
