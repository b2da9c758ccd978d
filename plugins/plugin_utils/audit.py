# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The fleet audit on the controller: one host's observations against its plan, and the fleet report.

``compare(facts, plan)`` takes what the storage_audit module read on a host (module_utils/audit.py)
and the host's plan (plan.build_plan, the same plan tune works from) and returns the host's verdict
(``ok`` or ``drift``) with one item per deviation: the comparison of module_utils/drift.py (the one the host's
metrics collector runs), and the audit's observe window. ``fleet(hosts)`` puts every host's result (or its
``unreachable``/``error`` state) into the report document (schema below, docs/audit.md); ``markdown``
and ``html`` render that document. Pure Python, no I/O.
"""

from __future__ import annotations

import html as html_lib
import json
import re
from urllib.parse import quote

# the comparison lives in module_utils/drift.py (the host's metrics collector runs it too); its names stay here
from ansible_collections.iotune.storage.plugins.module_utils import drift
from ansible_collections.iotune.storage.plugins.module_utils.drift import (  # noqa: F401 pylint: disable=unused-import
    ATTR_AREA,
    FACTS_SCHEMA_VERSIONS,
    PLACEHOLDER,
    _HOST_SPECIFIC,
    _array_lines,
    _array_readahead,
    _arrays,
    _item,
    _kernel,
    _members,
    _mount_and_fstab,
    _tuned,
    _tuning,
    _unresolved,
    array_state,
    configured_readahead,
    drift_kind,
    normalise,
)
from ansible_collections.iotune.storage.plugins.plugin_utils import observe

SCHEMA = 'iotune.storage/audit'
SCHEMA_VERSION = 1
VERDICTS = ('ok', 'drift', 'unreachable', 'error')


def _observed(result, arrays, devices):
    """(observed, items, notes) of the audit's io_observe window (docs/observe.md, "The audit"): None when no window
    ran; an ``observed`` item per host or device whose reads say the readahead is wasting reads; too little I/O to
    judge is a note, never drift."""
    window, problem = observe.audit_window(result)
    if problem:
        return None, [_item('audit', 'host', 'could not be read: %s' % problem)], []
    if window is None:
        return None, [], []
    observed = observe.waste(window, configured_readahead(arrays, devices))
    items = [_item('observed', f['subject'], f['message']) for f in observed.pop('findings')]
    notes = ['observed: %s' % n for n in observed['notes']]
    if observed['verdict'] != 'measured':
        notes.insert(0, 'observed: %s' % observed['verdict_reason'])
    return observed, items, notes


def compare(facts, plan, host=None, unresolved=None, observed=None):
    """The verdict of one host: {'host', 'verdict', 'profile', 'items', 'notes', 'arrays', 'devices', 'observed'}.

    The comparison is module_utils/drift.py's (the host's metrics collector runs the same); this adds the observe
    window. ``unresolved``: the member selectors the host could not resolve (each becomes a ``member`` item).
    ``observed``: the registered io_observe result of the audit's window (iotune_observe_seconds), or None."""
    result = drift.compare(facts, plan, host, unresolved=unresolved)
    window, observed_items, observed_notes = _observed(observed, result['arrays'], result['devices'])
    result['items'].extend(observed_items)
    result['notes'].extend(observed_notes)
    result['observed'] = window
    result['verdict'] = 'drift' if result['items'] else 'ok'
    return result


def host_entry(host, result=None, plan=None, unreachable=None, error=None):
    """One host of the fleet: compared, or unreachable / error with the reason."""
    if unreachable:
        return {'host': host, 'verdict': 'unreachable', 'profile': None, 'items': [], 'notes': [],
                'arrays': [], 'devices': [], 'observed': None,
                'error': unreachable if isinstance(unreachable, str) else 'unreachable'}
    if error or result is None:
        return {'host': host, 'verdict': 'error', 'profile': None, 'items': [], 'notes': [], 'arrays': [],
                'devices': [], 'observed': None, 'error': error or 'no audit result'}
    entry = compare(result, plan or {}, host)
    return entry


def fleet(entries, generated_at=None, run=None):
    """The report document (schema SCHEMA, version SCHEMA_VERSION) of host entries, sorted by host name."""
    hosts = sorted(entries, key=lambda e: str(e['host']))
    counts = dict((v, 0) for v in VERDICTS)
    for entry in hosts:
        counts[entry['verdict']] += 1
    counts['total'] = len(hosts)
    return {'schema': SCHEMA, 'schema_version': SCHEMA_VERSION, 'generated_at': generated_at, 'run': run or {},
            'counts': counts, 'hosts': hosts, 'original_state': original_states(hosts)}


def original_states(hosts):
    """The snapshots of the hosts' original state, for one line of the reports: {'recorded': [hosts], 'none':
    [hosts], 'unreadable': [hosts]} of the hosts the audit read (unreachable and error hosts are in none)."""
    out = {'recorded': [], 'none': [], 'unreadable': []}
    for host in hosts:
        held = host.get('original_state')
        if not isinstance(held, dict):
            continue
        out['unreadable' if held.get('error') else 'recorded' if held.get('recorded') else 'none'].append(host['host'])
    return out


def original_state_line(doc):
    """``original state recorded on 2 of 3 host(s); none on db3`` (None when no host was read for it)."""
    found = doc.get('original_state') or {}
    read = sum(len(found.get(k) or []) for k in ('recorded', 'none', 'unreadable'))
    if not read:
        return None
    line = 'original state recorded on %d of %d host(s)' % (len(found['recorded']), read)
    if found['none']:
        line += '; none on %s' % ', '.join(str(h) for h in found['none'])
    if found['unreadable']:
        line += '; unreadable on %s' % ', '.join(str(h) for h in found['unreadable'])
    return line


def original_state_words(held):
    """A host's snapshot in words: ``recorded 2026-03-01T10:00:00Z by 0.1.0 (3 devices, 12 queue, ...) in PATH``."""
    if not isinstance(held, dict):
        return 'not read'
    if held.get('error'):
        return held['error']
    if not held.get('recorded'):
        return 'none recorded (%s)' % held.get('path')
    counts = ', '.join('%d %s' % (n, kind) for kind, n in sorted((held.get('counts') or {}).items()))
    return 'recorded %s by %s (%s) in %s' % (held.get('recorded_at'), held.get('version'), counts or 'no values',
                                             held.get('path'))


def readahead_histogram(doc):
    """[(read_ahead_kb, number of arrays)] of the live readahead of every array in the fleet, by value."""
    counts = {}
    for host in doc['hosts']:
        for array in host.get('arrays') or []:
            value = array.get('read_ahead_kb')
            if value is not None:
                counts[value] = counts.get(value, 0) + 1
    return sorted(counts.items())


# ---------------------------------------------------------------------------------------------
# the fleet's drift by kind (the HTML report leads with it; drift_kind and normalise are drift.py's)


def _error_kind(host):
    """The kind of an unreachable host (one group for all) or of an error host (its normalised first line)."""
    if host['verdict'] == 'unreachable':
        return 'unreachable: the audit could not reach the host'
    text = (str(host.get('error') or 'no audit result').strip().splitlines() or ['no audit result'])[0]
    name = str(host['host'])
    if name:
        text = re.sub(r'(?<![\w.-])%s(?![\w-])' % re.escape(name), PLACEHOLDER, text)
    text = normalise(text)
    return 'error: %s' % (text if len(text) <= 160 else text[:159] + PLACEHOLDER)


def drift_kinds(doc):
    """[(kind, [host, ...])] of the fleet document: every kind of deviation with the hosts that have it (each host
    once, in the document's order), most hosts first (then errors, unreachable, drift; then by text). Unreachable
    and error hosts are kinds of their own; ok hosts are in none."""
    hosts_of = {}
    rank_of = {}
    for host in doc['hosts']:
        if host['verdict'] == 'ok':
            continue
        if host['verdict'] in ('unreachable', 'error'):
            kinds = [_error_kind(host)]
        else:
            kinds = [drift_kind(item) for item in host['items']]
        for kind in kinds:
            names = hosts_of.setdefault(kind, [])
            if host['host'] not in names:
                names.append(host['host'])
            rank_of.setdefault(kind, VERDICT_RANK.get(host['verdict'], 9))
    return [(kind, hosts_of[kind])
            for kind in sorted(hosts_of, key=lambda k: (-len(hosts_of[k]), rank_of[k], k))]


# ---------------------------------------------------------------------------------------------
# rendering


def _cell(text):
    return str(text).replace('|', '\\|').replace('\n', ' ')


def markdown(doc):
    """The report as Markdown: counts, one table row per host, then the items of each drifting host."""
    c = doc['counts']
    out = ['# Storage audit', '',
           'Generated %s. %d host(s): %d ok, %d drift, %d unreachable, %d error.'
           % (doc.get('generated_at') or '-', c['total'], c['ok'], c['drift'], c['unreachable'], c['error']), '']
    if original_state_line(doc):
        out += [original_state_line(doc) + '.', '']
    out += ['| Host | Verdict | Items | Arrays | Array readahead (KiB) | Observed reads |', '|---|---|---|---|---|---|']
    for host in doc['hosts']:
        arrays = ', '.join('%s %s' % (a['name'], a['state']) for a in host['arrays']) or '-'
        ra = ', '.join('%s' % a['read_ahead_kb'] for a in host['arrays'] if a.get('read_ahead_kb') is not None) or '-'
        out.append('| %s | %s | %d | %s | %s | %s |' % (_cell(host['host']), host['verdict'], len(host['items']),
                                                        _cell(arrays), ra, _cell(observed_words(host))))
    for host in doc['hosts']:
        if host['verdict'] == 'ok' and not host['notes']:
            continue
        out += ['', '## %s: %s' % (host['host'], host['verdict']), '']
        if host.get('error'):
            out.append('- %s' % host['error'])
        for item in host['items']:
            out.append('- **%s** %s: %s' % (item['area'], item['subject'], item['message']))
        for note in host['notes']:
            out.append('- note: %s' % note)
        if host.get('original_state'):
            out.append('- original state: %s' % original_state_words(host['original_state']))
        seen = host.get('observed')
        if seen:
            out.append('- observed for %s s: %s' % (observe.whole(seen['seconds']), observed_words(host)))
            for dev in seen['devices']:
                out.append('  - %s: readahead %s, %s reads, average read %s KiB: %s'
                           % (dev['device'], _readahead_words(dev['read_ahead_kb']), dev['reads'],
                              '-' if dev['avg_read_kib'] is None else dev['avg_read_kib'], dev['status']))
    return '\n'.join(out) + '\n'


# ---------------------------------------------------------------------------------------------
# the observed reads (iotune_observe_seconds): words and sort keys shared by the renderings

OBSERVED_RANK = {observe.WASTING: 0, observe.TOO_LITTLE: 1, observe.NO_WASTE: 2}


def observed_words(host):
    """``readahead wasting reads, 512 KiB per major fault`` / ``too little I/O to judge`` / ``not observed``."""
    seen = host.get('observed')
    if not seen:
        return 'not observed'
    figures = seen['host']
    per_fault = figures.get('device_read_kib_per_major_fault')
    if seen['status'] == observe.TOO_LITTLE:
        return seen['status']
    return '%s, %s' % (seen['status'], 'device read %s KiB per major fault' % per_fault
                       if figures.get('basis') == 'device read bytes per major fault' and per_fault is not None
                       else 'average read %s KiB' % figures.get('avg_read_kib'))


def _status_class(status):
    """The CSS class of an observed status: o-readahead-wasting-reads, o-too-little-IO-to-judge, o-no-waste-seen."""
    return 'o-' + ''.join(c if c.isalnum() else '-' for c in status.replace('/', ''))


def _readahead_words(ra):
    """``live 4096 / profile 8 KiB`` of a configured read_ahead_kb, ``-`` when the audit does not know it."""
    if not ra:
        return '-'
    return 'live %s / profile %s KiB' % (ra.get('live'), '-' if ra.get('profile') is None else ra.get('profile'))


CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em;margin:0 0 .3em}
.counts span{display:inline-block;margin-right:1em;padding:.15em .6em;border-radius:3px}
.v-ok{background:#d9f2d9}.v-drift{background:#ffe0b3}.v-unreachable{background:#f2d9d9}.v-error{background:#f2b3b3}
table{border-collapse:collapse;margin:1em 0;min-width:40em}
th,td{border:1px solid #bbb;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#eee;cursor:pointer;user-select:none}
th.sorted-asc::after{content:" \\25B2"}th.sorted-desc::after{content:" \\25BC"}
details{margin:.4em 0}summary{cursor:pointer;font-weight:600}
li.area{margin:.1em 0}code{background:#f4f4f4;padding:0 .2em}
svg text{font-size:11px}
.o-readahead-wasting-reads{background:#ffe0b3}.o-too-little-IO-to-judge{background:#eee;font-style:italic}
[hidden]{display:none!important}
h2{font-size:1.15em;margin:1em 0 .3em}
#drift-summary ol{margin:.2em 0;padding-left:1.6em}#drift-summary li{margin:.2em 0}
#drift-summary .kind{font-weight:600}#drift-summary li b{white-space:nowrap}#drift-summary .k-unreachable,#drift-summary .k-error{color:#8a1f1f}
#drift-summary details{display:inline}#drift-summary details summary{display:inline;font-weight:400;color:#245d99}
#drift-summary details[open] summary{display:none}
.filter{margin:1em 0 0}.filter label{cursor:pointer}
ul.drifted{margin:0;padding-left:1.1em;font-size:.92em}ul.drifted li.more{list-style:none;font-style:italic}
"""

JS = """
(function(){
  var table=document.getElementById('hosts');
  function key(td){var v=td.getAttribute('data-sort');if(v===null)v=td.textContent;
    var n=parseFloat(v);return isNaN(n)||String(n)!==v.trim()?v.toLowerCase():n;}
  function sortBy(col,dir){
    var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);
    rows.sort(function(a,b){var x=key(a.cells[col]),y=key(b.cells[col]);
      if(typeof x!==typeof y){x=String(x);y=String(y);}
      return (x<y?-1:x>y?1:0)*(dir==='desc'?-1:1);});
    rows.forEach(function(r){body.appendChild(r);});
    Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,i){
      th.className=i===col?'sorted-'+dir:'';});
    table.setAttribute('data-sorted',col+':'+dir);
  }
  Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,i){
    th.addEventListener('click',function(){
      sortBy(i,th.className==='sorted-asc'?'desc':'asc');});});
  var m=/sort=(\\w+)(?::(asc|desc))?/.exec(location.hash);
  if(m){Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,i){
    if(th.getAttribute('data-key')===m[1])sortBy(i,m[2]||'asc');});}
  var box=document.getElementById('only-action');
  function only(on){
    Array.prototype.forEach.call(table.tBodies[0].rows,function(r){
      r.hidden=on&&r.getAttribute('data-verdict')==='ok';});
    Array.prototype.forEach.call(document.querySelectorAll('details[data-verdict]'),function(d){
      d.hidden=on&&d.getAttribute('data-verdict')==='ok';});
    box.checked=on;table.setAttribute('data-only',on?'action':'all');
  }
  box.addEventListener('change',function(){
    only(box.checked);
    var s=/sort=\\w+(?::(?:asc|desc))?/.exec(location.hash),parts=[];
    if(s)parts.push(s[0]);if(box.checked)parts.push('only=action');
    try{history.replaceState(null,'',location.href.split('#')[0]+(parts.length?'#'+parts.join('&'):''));}catch(err){}
  });
  only(/(?:^#|&)only=action(?:&|$)/.test(location.hash));
  function openTarget(){
    var id;try{id=decodeURIComponent(location.hash.slice(1));}catch(err){return;}
    var d=id.indexOf('host-')===0?document.getElementById(id):null;
    if(d&&d.tagName==='DETAILS'){d.hidden=false;d.open=true;}
  }
  window.addEventListener('hashchange',openTarget);openTarget();
})();
"""

VERDICT_RANK = {'error': 0, 'unreachable': 1, 'drift': 2, 'ok': 3}


def _chart(doc, width=480, bar_height=18):
    bars = readahead_histogram(doc)
    if not bars:
        return '<p>No array readahead to chart.</p>'
    most = max(count for dummy, count in bars)
    height = bar_height * len(bars) + 24
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" id="readahead-chart" width="%d" height="%d" role="img" '
             'aria-label="arrays per live readahead value">' % (width, height)]
    for index, (value, count) in enumerate(bars):
        y = index * bar_height + 4
        length = max(1, int((width - 170) * count / most))
        parts.append('<text x="70" y="%d" text-anchor="end">%s KiB</text>' % (y + 12, value))
        parts.append('<rect x="76" y="%d" width="%d" height="%d" fill="#4a7fb5"><title>%s KiB: %d array(s)</title>'
                     '</rect>' % (y, length, bar_height - 4, value, count))
        parts.append('<text x="%d" y="%d">%d</text>' % (80 + length, y + 12, count))
    parts.append('<text x="76" y="%d">arrays per live readahead (KiB)</text></svg>' % (height - 4))
    return ''.join(parts)


SUMMARY_HOSTS = 8  # host links shown per kind before "+N more"
DRIFTED_ITEMS = 3  # items shown per host in the column "What drifted" before "+N more"
DRIFTED_CHARS = 110  # a longer item is cut there in that column (the whole text is its title)


def _host_link(name):
    e = html_lib.escape
    return '<a href="#host-%s">%s</a>' % (e(quote(str(name), safe='')), e(str(name)))


def _plural(count, word):
    return '%d %s%s' % (count, word, '' if count == 1 else 's')


def _drift_summary(doc):
    """The fleet's drift by kind (drift_kinds), most hosts first, each host a link to its details."""
    e = html_lib.escape
    kinds = drift_kinds(doc)
    if not kinds:
        return ('<section id="drift-summary"><h2>Drift by kind</h2><p>No drift: every host is as planned.</p>'
                '</section>')
    needing = doc['counts']['total'] - doc['counts']['ok']
    out = ['<section id="drift-summary"><h2>Drift by kind</h2><p>%s of %s need action; %s of deviation:</p><ol>'
           % (_plural(needing, 'host'), _plural(doc['counts']['total'], 'host'), _plural(len(kinds), 'kind'))]
    for kind, hosts in kinds:
        group = kind.split(':', 1)[0] if kind.startswith(('unreachable:', 'error:')) else 'drift'
        links = ', '.join(_host_link(h) for h in hosts[:SUMMARY_HOSTS])
        if len(hosts) > SUMMARY_HOSTS:
            links += ', <details><summary>+%d more</summary>%s</details>' % (
                len(hosts) - SUMMARY_HOSTS, ', '.join(_host_link(h) for h in hosts[SUMMARY_HOSTS:]))
        out.append('<li class="k-%s" data-hosts="%d"><span class="kind">%s</span> &mdash; <b>%s</b>: %s</li>'
                   % (group, len(hosts), e(kind), _plural(len(hosts), 'host'), links))
    out.append('</ol></section>')
    return ''.join(out)


def _drifted_cell(host):
    """The column "What drifted": a host's first items (area: message), ``+N more``; the error of an error or
    unreachable host; ``-`` when ok. Its sort key is the kind of the first item, so sorting groups alike hosts."""
    e = html_lib.escape
    if host['verdict'] in ('unreachable', 'error'):
        texts, key = [str(host.get('error') or host['verdict'])], _error_kind(host)
    elif host['items']:
        texts, key = ['%s: %s' % (i['area'], i['message']) for i in host['items']], drift_kind(host['items'][0])
    else:
        return '<td data-sort="~">-</td>'
    lines = []
    for text in texts[:DRIFTED_ITEMS]:
        short = text if len(text) <= DRIFTED_CHARS else text[:DRIFTED_CHARS - 1] + PLACEHOLDER
        lines.append('<li title="%s">%s</li>' % (e(text), e(short)) if short != text else '<li>%s</li>' % e(text))
    if len(texts) > DRIFTED_ITEMS:
        lines.append('<li class="more">+%d more</li>' % (len(texts) - DRIFTED_ITEMS))
    return '<td data-sort="%s"><ul class="drifted">%s</ul></td>' % (e(key), ''.join(lines))


def html(doc):
    """The report as one self-contained HTML page: inline CSS and JS; the counts, the drift by kind, a chart, a
    sortable table that can hide the ok hosts (``#only=action``), details."""
    e = html_lib.escape
    c = doc['counts']
    rows = [_host_row(host) for host in doc['hosts']]
    details = [_host_details(host, open_drift=len(doc['hosts']) <= 50) for host in doc['hosts']]
    return ''.join([
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Storage audit</title>',
        '<style>%s</style></head><body>' % CSS,
        '<h1>Storage audit</h1><p>Generated %s (schema %s v%d).</p>'
        % (e(str(doc.get('generated_at') or '-')), e(doc['schema']), doc['schema_version']),
        '<p class="counts">%s</p>' % ''.join('<span class="v-%s" id="count-%s">%s: %d</span>' % (v, v, v, c[v])
                                             for v in VERDICTS),
        '<p class="original-state">%s</p>' % e(original_state_line(doc)) if original_state_line(doc) else '',
        _drift_summary(doc),
        _chart(doc),
        '<p class="filter"><label><input type="checkbox" id="only-action"> only hosts that need action (%d of %d; '
        'address <code>#only=action</code>)</label></p>' % (c['total'] - c['ok'], c['total']),
        '<table id="hosts"><thead><tr><th data-key="host">Host</th><th data-key="verdict">Verdict</th>'
        '<th data-key="items">Items</th><th data-key="arrays">Arrays</th>'
        '<th data-key="readahead">Array readahead (KiB)</th><th data-key="observed">Observed reads</th>'
        '<th data-key="drifted">What drifted</th></tr></thead>'
        '<tbody>',
        ''.join(rows), '</tbody></table>', ''.join(details),
        '<script>%s</script></body></html>\n' % JS])


def _host_row(host):
    """A host's row of the sortable hosts table."""
    e = html_lib.escape
    arrays = ', '.join('%s %s' % (a['name'], a['state']) for a in host['arrays']) or '-'
    ras = [a['read_ahead_kb'] for a in host['arrays'] if a.get('read_ahead_kb') is not None]
    seen = host.get('observed')
    return ('<tr class="v-%s" data-host="%s" data-verdict="%s"><td>%s</td><td data-sort="%d">%s</td><td>%d</td>'
            '<td>%s</td><td data-sort="%s">%s</td><td data-sort="%d" class="%s">%s</td>%s</tr>'
            % (e(host['verdict']), e(str(host['host'])), e(host['verdict']), e(str(host['host'])),
               VERDICT_RANK.get(host['verdict'], 9), e(host['verdict']), len(host['items']), e(arrays),
               max(ras) if ras else -1, e(', '.join(str(r) for r in ras)) or '-',
               OBSERVED_RANK.get(seen['status'], 8) if seen else 9,
               _status_class(seen['status']) if seen else 'o-none', e(observed_words(host)),
               _drifted_cell(host)))


def _host_details(host, open_drift):
    """A host's details: its items, notes, devices and observed reads; open when it is not ok and ``open_drift``
    (the fleet is small enough)."""
    e = html_lib.escape
    lines = ['<details%s id="host-%s" data-verdict="%s"><summary class="v-%s">%s: %s (%d item(s))</summary>'
             % (' open' if host['verdict'] != 'ok' and open_drift else '', e(str(host['host'])),
                e(host['verdict']), e(host['verdict']), e(str(host['host'])), e(host['verdict']),
                len(host['items']))]
    if host.get('error'):
        lines.append('<p>%s</p>' % e(host['error']))
    if host['items']:
        lines.append('<ul>' + ''.join('<li class="area"><code>%s</code> %s: %s</li>'
                                      % (e(i['area']), e(str(i['subject'])), e(i['message']))
                                      for i in host['items']) + '</ul>')
    if host['notes']:
        lines.append('<ul>' + ''.join('<li>note: %s</li>' % e(n) for n in host['notes']) + '</ul>')
    if host.get('original_state'):
        lines.append('<p>original state: %s</p>' % e(original_state_words(host['original_state'])))
    if host['devices']:
        lines.append(_devices_table(host['devices']))
    lines.append(_observed_html(host.get('observed')))
    lines.append('</details>')
    return ''.join(lines)


def _devices_table(devices):
    """A host's devices: readahead, scheduler and the other queue settings, live / profile / rules."""
    e = html_lib.escape
    lines = ['<table class="devices"><tr><th>Device</th><th>Readahead live / profile / rules</th>'
             '<th>Scheduler live / profile / rules</th><th>Queue live / profile / rules</th></tr>']
    for dev in devices:
        cells = []
        for attr in ('read_ahead_kb', 'scheduler'):
            v = dev.get(attr)
            cells.append('-' if not v else '%s / %s / %s' % (v['live'], v['profile'], v['rules']))
        queue = ['%s %s / %s / %s' % (attr, v['live'], v['profile'], v['rules']) for attr, v in sorted(dev.items())
                 if attr not in ('read_ahead_kb', 'scheduler') and isinstance(v, dict) and 'profile' in v]
        cells.append(', '.join(queue) or '-')
        lines.append('<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>'
                     % (e(dev['device']), e(cells[0]), e(cells[1]), e(cells[2])))
    lines.append('</table>')
    return ''.join(lines)


def _observed_html(seen):
    """The observed reads of one host beside the configured readahead of each device (empty without a window)."""
    if not seen:
        return ''
    e = html_lib.escape
    figures = seen['host']
    lines = ['<div class="observed"><p><b>Observed reads</b> (%s s, %s): <span class="%s">%s</span>; device read '
             'bytes per major fault %s (%s major faults), average read %s KiB over %s reads; threshold %s KiB</p>'
             % (e(observe.whole(seen['seconds'])), e(str(seen['verdict_reason'])), _status_class(seen['status']),
                e(seen['status']),
                '-' if figures.get('device_read_kib_per_major_fault') is None
                else e('%s KiB' % figures['device_read_kib_per_major_fault']),
                e(str(figures.get('major_faults'))), e(str(figures.get('avg_read_kib'))), e(str(figures.get('reads'))),
                e(str(seen['threshold_kib'])))]
    lines.append('<table class="observed-devices"><tr><th>Device</th><th>Readahead live / profile (configured)</th>'
                 '<th>Reads</th><th>Average read (KiB)</th><th>Observed</th></tr>')
    for dev in seen['devices']:
        lines.append('<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class="%s">%s</td></tr>'
                     % (e(dev['device']), e(_readahead_words(dev['read_ahead_kb'])), e(str(dev['reads'])),
                        e('-' if dev['avg_read_kib'] is None else str(dev['avg_read_kib'])),
                        _status_class(dev['status']), e(dev['status'])))
    lines.append('</table></div>')
    return ''.join(lines)


def summary(doc):
    """Short text: the counts, then one line per host that is not ok with its items (or its error)."""
    c = doc['counts']
    lines = ['%d host(s): %d ok, %d drift, %d unreachable, %d error'
             % (c['total'], c['ok'], c['drift'], c['unreachable'], c['error'])]
    if original_state_line(doc):
        lines.append(original_state_line(doc))
    for host in doc['hosts']:
        if host['verdict'] != 'ok':
            what = '; '.join('%s %s' % (i['subject'], i['message']) for i in host['items']) or host.get('error') or ''
            lines.append('%s: %s: %s' % (host['host'], host['verdict'], what))
    return '\n'.join(lines) + '\n'


def render(doc, fmt):
    if fmt == 'summary':
        return summary(doc)
    if fmt == 'json':
        return json.dumps(doc, indent=2, sort_keys=True) + '\n'
    if fmt == 'markdown':
        return markdown(doc)
    if fmt == 'html':
        return html(doc)
    raise ValueError('format must be json, markdown, html or summary, got %r' % (fmt,))


# --- the audit role's tasks (issue 24) ---------------------------------------------------------------------------
# the file name of each report format the role writes (audit_report_formats)
REPORT_FILES = {'json': 'storage_audit.json', 'markdown': 'storage_audit.md', 'html': 'storage_audit.html'}


def host_result(read, plan, host=None, unresolved=None, observed=None, device_timeout=None):
    """A host's audit_result from its registered storage_audit call ``read``: {'unreachable': msg} when the host
    could not be reached (the task ignores unreachable hosts), else compare() of its facts (with the fstab lines'
    ``device_timeout``, drift.with_device_timeout)."""
    if read.get('unreachable'):
        return {'unreachable': read.get('msg', 'unreachable')}
    return compare(read['audit'], drift.with_device_timeout(plan or {}, device_timeout), host, unresolved=unresolved,
                   observed=observed)


def failed_result(failed):
    """A host's audit_result after a failed task (``failed``: ansible_failed_result): unreachable or error, with
    its message."""
    return {('unreachable' if failed.get('unreachable') else 'error'): failed.get('msg') or 'the audit failed'}


def report_messages(doc, report_dir):
    """What the audit role prints and names after the fleet report ``doc``: the summary's lines and where the
    reports are, each host that is not ok as host=verdict, the file name of each format."""
    not_ok = [h for h in doc['hosts'] if h.get('verdict') != 'ok']
    return {'summary': render(doc, 'summary').splitlines() + ['reports in %s' % report_dir],
            'not_ok': ', '.join('%s=%s' % (h['host'], h['verdict']) for h in not_ok),
            'files': dict(REPORT_FILES)}
