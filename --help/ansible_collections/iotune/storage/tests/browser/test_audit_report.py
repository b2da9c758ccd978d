# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The audit's HTML report in a real browser (Debian's chromium, headless; `make browser-test`).

A synthetic fleet is rendered, loaded from a file:// URL with no network, screenshotted (kept in
tests/output/browser/ as the test's artifact) and its DOM dumped after the page's script ran: the table
sorted by the #sort= address must come out in that order (also by the observed reads of the hosts' observe
windows), and the script must not fail. A fleet of 500 hosts loaded with #only=action (issue 30) must lead with
the drift by kind and show only the rows and details of the hosts that need action.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess

import pytest

from ansible_collections.iotune.storage.plugins.filter.storage_audit import storage_audit_fleet
from ansible_collections.iotune.storage.plugins.plugin_utils import audit
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.audit import synthetic_results

HERE = os.path.dirname(os.path.abspath(__file__))
ARTIFACTS = os.path.join(HERE, '..', 'output', 'browser')
CHROMIUM = shutil.which('chromium') or shutil.which('chromium-browser')
pytestmark = pytest.mark.skipif(CHROMIUM is None and not os.environ.get("IOTUNE_REQUIRE_BROWSER"),
                                reason='chromium is not installed (make browser)')


def chromium(*args):
    argv = [CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
            '--no-first-run', '--disable-extensions', '--proxy-server=127.0.0.1:9', '--hide-scrollbars'] + list(args)
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=180, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def render_fleet(hosts, name):
    """(fleet document, path of its HTML page) of a synthetic fleet of ``hosts`` hosts, written as ARTIFACTS/name."""
    os.makedirs(ARTIFACTS, exist_ok=True)
    doc = storage_audit_fleet(synthetic_results(hosts, observed=True), generated_at='2026-11-24T02:00:00Z')
    path = os.path.abspath(os.path.join(ARTIFACTS, name))
    with open(path, 'w', encoding='utf-8') as f:
        f.write(audit.render(doc, 'html'))
    return doc, path


@pytest.fixture(scope='module')
def page():
    return render_fleet(40, 'storage_audit.html')


def rows(dom):
    return re.findall(r'<tr class="v-(\w+)" data-host="([^"]+)"', dom)


def test_screenshot(page):
    doc, path = page
    shot = os.path.abspath(os.path.join(ARTIFACTS, 'storage_audit.png'))
    if os.path.exists(shot):
        os.unlink(shot)
    chromium('--screenshot=%s' % shot, '--window-size=1100,1400', 'file://' + path)
    with open(shot, 'rb') as f:
        header = f.read(24)
    assert header[:8] == b'\x89PNG\r\n\x1a\n'
    assert struct.unpack('>II', header[16:24]) == (1100, 1400)
    assert os.path.getsize(shot) > 20000  # a blank page compresses to a few KiB


def test_sorting_runs_in_the_browser(page):
    doc, path = page
    before = rows(chromium('--dump-dom', 'file://' + path).stdout)
    assert [h for dummy, h in before] == sorted(h['host'] for h in doc['hosts'])
    dom = chromium('--dump-dom', 'file://' + path + '#sort=verdict:asc').stdout
    after = rows(dom)
    ranks = [audit.VERDICT_RANK[v] for v, dummy in after]
    assert ranks == sorted(ranks) and ranks[0] < ranks[-1], after
    assert 'data-sorted="1:asc"' in dom and 'class="sorted-asc"' in dom
    dom = chromium('--dump-dom', 'file://' + path + '#sort=host:desc').stdout
    assert [h for dummy, h in rows(dom)] == sorted((h['host'] for h in doc['hosts']), reverse=True)
    assert len(after) == doc['counts']['total'] == 40


def test_sorting_by_the_observed_reads(page):
    """The observed column (iotune_observe_seconds): wasting reads first, then too little I/O, no waste, none."""
    doc, path = page
    dom = chromium('--dump-dom', 'file://' + path + '#sort=observed:asc').stdout
    order = [h for dummy, h in rows(dom)]
    status = dict((h['host'], h['observed']['status'] if h.get('observed') else None) for h in doc['hosts'])
    ranks = [audit.OBSERVED_RANK.get(status[h], 9) for h in order]
    assert ranks == sorted(ranks) and ranks[0] == 0 and ranks[-1] == 9, list(zip(order, ranks))
    assert 'data-sorted="5:asc"' in dom and dom.count('class="observed-devices"') == 39


@pytest.fixture(scope='module')
def fleet500():
    return render_fleet(500, 'storage_audit_500.html')


def shown(dom):
    """{host: hidden?} of the hosts table's rows and [(verdict, hidden?)] of the hosts' details, as the DOM holds them."""
    table = dict((h, bool(hidden)) for dummy, h, hidden in
                 re.findall(r'<tr class="v-(\w+)" data-host="([^"]+)" data-verdict="\w+"( hidden="")?>', dom))
    details = [(v, bool(hidden)) for v, hidden in
               re.findall(r'<details (?:open )?id="host-[^"]+" data-verdict="(\w+)"( hidden="")?>', dom)]
    return table, details


def test_only_action_leads_with_the_drift_and_hides_the_ok_hosts(fleet500):
    doc, path = fleet500
    verdict = dict((h['host'], h['verdict']) for h in doc['hosts'])
    assert doc['counts']['total'] == 500 and 0 < doc['counts']['ok'] < 500
    dom = chromium('--dump-dom', 'file://' + path + '#only=action').stdout
    assert dom.index('id="drift-summary"') < dom.index('id="readahead-chart"') < dom.index('<table id="hosts"')
    kinds = audit.drift_kinds(doc)
    first = dom.index('<span class="kind">%s</span>' % kinds[0][0])
    assert first < dom.index('<span class="kind">%s</span>' % kinds[-1][0]) < dom.index('<table id="hosts"')
    table, details = shown(dom)
    assert len(table) == 500 and len(details) == 500
    assert sorted(h for h, hidden in table.items() if hidden) == sorted(h for h, v in verdict.items() if v == 'ok')
    assert all(not hidden for h, hidden in table.items() if verdict[h] != 'ok')
    assert all(hidden == (v == 'ok') for v, hidden in details)
    assert 'data-only="action"' in dom
    # the column shows what drifted without opening the host
    assert dom.count('<ul class="drifted">') == 500 - doc['counts']['ok']
    # without the address nothing is hidden; combined with #sort= both apply
    table, details = shown(chromium('--dump-dom', 'file://' + path).stdout)
    assert not any(table.values()) and not any(hidden for dummy, hidden in details)
    dom = chromium('--dump-dom', 'file://' + path + '#sort=verdict:desc&only=action').stdout
    order = [h for dummy, h in rows(dom)]
    ranks = [audit.VERDICT_RANK[verdict[h]] for h in order]
    assert ranks == sorted(ranks, reverse=True) and 'data-sorted="1:desc"' in dom, ranks[:20]
    table, dummy = shown(dom)
    assert sorted(h for h, hidden in table.items() if hidden) == sorted(h for h, v in verdict.items() if v == 'ok')


def test_screenshot_of_only_action(fleet500):
    dummy, path = fleet500
    shot = os.path.abspath(os.path.join(ARTIFACTS, 'storage_audit_500.png'))
    if os.path.exists(shot):
        os.unlink(shot)
    chromium('--screenshot=%s' % shot, '--window-size=1300,1500', 'file://' + path + '#only=action')
    with open(shot, 'rb') as f:
        header = f.read(24)
    assert header[:8] == b'\x89PNG\r\n\x1a\n'
    assert struct.unpack('>II', header[16:24]) == (1300, 1500)
    assert os.path.getsize(shot) > 20000
