# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A MongoDB replica set's ``rs.status()``: its members, the primary, each secondary's lag, and the health gate's
verdict (issue 28).

The document is replSetGetStatus's (https://www.mongodb.com/docs/upcoming/reference/command/replSetGetStatus/,
rs.status() is its mongosh helper): ``members``, each with ``name``, ``health`` (1 up, 0 down), ``state`` and
``stateStr`` (PRIMARY, SECONDARY, RECOVERING, STARTUP2, ARBITER, DOWN, ROLLBACK, ...) and ``optimeDate``, the time
of the member's last applied operation as the heartbeats report it. A secondary's lag is the primary's optimeDate
minus its own (what rs.printSecondaryReplicationInfo() prints).

mongosh prints documents as JavaScript, not JSON; the preset asks for Extended JSON with EJSON.stringify
(https://www.mongodb.com/docs/mongodb-shell/reference/options/, --eval: "use EJSON.stringify()"). This module reads
JSON and relaxed or canonical Extended JSON dates ({"$date": "..."}, {"$date": {"$numberLong": "..."}}); the legacy
``mongo`` shell's ``ISODate(...)`` text is refused with a message saying so. Pure functions; standard library only.
"""

from __future__ import annotations

import datetime
import json

# members that serve as they should: data-bearing PRIMARY/SECONDARY, and an ARBITER (a PSA set's third vote; it holds
# no data and has no lag)
SERVING_STATES = ('PRIMARY', 'SECONDARY', 'ARBITER')
DEFAULT_MAX_LAG_SECONDS = 10


class RsStatusError(ValueError):
    pass


def _number(value):
    """An Extended JSON number ({"$numberLong": "5"}, {"$numberInt": "1"}, {"$numberDouble": "1.0"}) or a plain one."""
    if isinstance(value, dict) and len(value) == 1:
        key, inner = next(iter(value.items()))
        if key in ('$numberLong', '$numberInt', '$numberDouble'):
            try:
                return float(inner) if key == '$numberDouble' else int(inner)
            except (TypeError, ValueError):
                return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return None


def parse_date(value):
    """An aware UTC datetime from an rs.status() date: an ISO 8601 string, {"$date": ISO string | milliseconds |
    {"$numberLong": milliseconds}}, or milliseconds since the epoch; None when it is none of these."""
    if isinstance(value, dict) and set(value) == {'$date'}:
        value = value['$date']
    millis = _number(value)
    if millis is not None:
        return datetime.datetime.fromtimestamp(millis / 1000.0, tz=datetime.timezone.utc)
    if isinstance(value, str):
        text = value.strip()
        if text.endswith('Z'):
            text = text[:-1] + '+00:00'
        try:
            parsed = datetime.datetime.fromisoformat(text)
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.timezone.utc)
    return None


def _member(raw):
    if not isinstance(raw, dict) or 'name' not in raw:
        raise RsStatusError('rs.status(): a member without a name: %r' % (raw,))
    return {'name': raw['name'], 'id': _number(raw.get('_id')), 'health': _number(raw.get('health')),
            'state': _number(raw.get('state')), 'state_str': raw.get('stateStr'),
            'optime_date': parse_date(raw.get('optimeDate')), 'self': bool(raw.get('self', False))}


def load(text):
    """The rs.status() document of ``text`` (mongosh's output: JSON after any lines it printed before it)."""
    if not isinstance(text, str):
        raise RsStatusError('rs.status() output must be text, got %s' % type(text).__name__)
    start = text.find('{')
    if start < 0:
        raise RsStatusError('rs.status() output holds no document: %r' % text.strip()[:200])
    try:
        document = json.loads(text[start:])
    except ValueError as exc:
        hint = (' (the legacy mongo shell\'s ISODate()/NumberLong() text; run mongosh --eval '
                '"EJSON.stringify(rs.status())")' if 'ISODate(' in text or 'NumberLong(' in text else '')
        raise RsStatusError('rs.status() output is not JSON: %s%s' % (exc, hint))
    if not isinstance(document, dict):
        raise RsStatusError('rs.status() output is not a document: %r' % (document,))
    return document


def parse_rs_status(text):
    """{'set', 'date', 'members', 'primary', 'primaries', 'lag'} of an rs.status() output: the members (name, id,
    health, state, state_str, optime_date, self), the name of the primary (None when there is none; ``primaries``
    names all members reporting PRIMARY), and the lag in seconds of each SECONDARY behind the primary's optimeDate
    ({} without a primary; None for a secondary without an optimeDate). RsStatusError when the output is not an
    rs.status() document or reports an error (ok: 0)."""
    document = load(text)
    if _number(document.get('ok')) == 0:
        reason = document.get('errmsg') or document.get('codeName') or 'ok: 0'
        raise RsStatusError('rs.status() failed: %s' % reason)
    if not isinstance(document.get('members'), list):
        raise RsStatusError('rs.status() output has no members list')
    members = [_member(raw) for raw in document['members']]
    primaries = [m['name'] for m in members if m['state_str'] == 'PRIMARY']
    primary = primaries[0] if len(primaries) == 1 else None
    lag = {}
    if primary is not None:
        primary_date = [m for m in members if m['name'] == primary][0]['optime_date']
        for member in members:
            if member['state_str'] != 'SECONDARY':
                continue
            if primary_date is None or member['optime_date'] is None:
                lag[member['name']] = None
            else:
                lag[member['name']] = max(0.0, (primary_date - member['optime_date']).total_seconds())
    return {'set': document.get('set'), 'date': parse_date(document.get('date')), 'members': members,
            'primary': primary, 'primaries': primaries, 'lag': lag}


def _describe(member):
    return '%s (%s, health %s)' % (member['name'], member['state_str'], member['health'])


def rs_verdict(status, max_lag_seconds=DEFAULT_MAX_LAG_SECONDS, lag_exempt=()):
    """{'healthy', 'reason', 'problems'} of a parsed rs.status(): healthy when exactly one member is PRIMARY, every
    member is PRIMARY, SECONDARY or ARBITER with health 1, and no secondary lags the primary by more than
    ``max_lag_seconds`` (members named in ``lag_exempt``, e.g. a delayed secondary, are not held to it)."""
    problems = []
    if not status['primaries']:
        problems.append('no PRIMARY')
    elif len(status['primaries']) > 1:
        problems.append('%d members report PRIMARY: %s' % (len(status['primaries']), ', '.join(status['primaries'])))
    for member in status['members']:
        if member['state_str'] not in SERVING_STATES or member['health'] != 1:
            problems.append('member %s' % _describe(member))
    for name, seconds in sorted(status['lag'].items()):
        if name in lag_exempt:
            continue
        if seconds is None:
            problems.append('secondary %s: lag unknown (no optimeDate)' % name)
        elif seconds > max_lag_seconds:
            problems.append('secondary %s lags the primary by %g s (at most %g s)' % (name, seconds, max_lag_seconds))
    if problems:
        return {'healthy': False, 'problems': problems,
                'reason': 'replica set %s: %s' % (status.get('set'), '; '.join(problems))}
    lags = [s for n, s in status['lag'].items() if s is not None and n not in lag_exempt]
    return {'healthy': True, 'problems': [],
            'reason': 'replica set %s: PRIMARY %s, %d secondaries within %g s (largest lag %g s)' % (
                status.get('set'), status['primary'], len(status['lag']), max_lag_seconds, max(lags) if lags else 0)}
