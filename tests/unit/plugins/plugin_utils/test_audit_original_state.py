# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet report and the text summary carry one line for the snapshots of the hosts' original state."""

from __future__ import annotations

from ansible_collections.iotune.storage.plugins.plugin_utils import audit

HELD = {'path': '/var/lib/iotune-storage/original-state.json', 'recorded': True, 'error': None,
        'recorded_at': '2026-03-01T10:00:00Z', 'timestamp': 1772359200, 'version': '0.1.0',
        'counts': {'devices': 2, 'queue': 3, 'sysctl': 26}}


def entry(name, held):
    return {'host': name, 'verdict': 'ok', 'profile': None, 'items': [], 'notes': [], 'arrays': [], 'devices': [],
            'observed': None, 'error': None, 'original_state': held}


def doc():
    return audit.fleet([entry('db1', HELD), entry('db2', dict(HELD, recorded=False, counts={})),
                        audit.host_entry('db3', unreachable='ssh failed')])


def test_one_line_in_the_summary_and_the_reports():
    d = doc()
    assert d['original_state'] == {'recorded': ['db1'], 'none': ['db2'], 'unreadable': []}
    line = 'original state recorded on 1 of 2 host(s); none on db2'
    assert audit.summary(d).splitlines()[1] == line
    assert line + '.' in audit.markdown(d).splitlines()
    assert '<p class="original-state">%s</p>' % line in audit.html(d)
    # each host's details in HTML (Markdown details only hosts that are not ok)
    assert ('<p>original state: recorded 2026-03-01T10:00:00Z by 0.1.0 (2 devices, 3 queue, 26 sysctl) in '
            '/var/lib/iotune-storage/original-state.json</p>') in audit.html(d)
    assert '<p>original state: none recorded (/var/lib/iotune-storage/original-state.json)</p>' in audit.html(d)
    # shown, not drift: the verdicts are the hosts' own
    assert d['counts']['ok'] == 2 and d['counts']['drift'] == 0


def test_no_line_when_no_host_was_read_for_it():
    # negative control: hosts of an earlier module (no original_state) give the summary it gave
    d = audit.fleet([entry('db1', None)])
    assert audit.summary(d).splitlines() == ['1 host(s): 1 ok, 0 drift, 0 unreachable, 0 error']
    assert 'original state' not in audit.markdown(d) and 'original-state' not in audit.html(d)
