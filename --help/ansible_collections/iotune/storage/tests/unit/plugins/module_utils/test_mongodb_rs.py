# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""rs.status() parsing, lag and verdict (issue 28). Fixtures: fixtures/health/rs_status_*.json, the replSetGetStatus
document (https://www.mongodb.com/docs/upcoming/reference/command/replSetGetStatus/) as mongosh --quiet --eval
'EJSON.stringify(rs.status())' prints it (https://www.mongodb.com/docs/mongodb-shell/reference/options/);
fixtures/health/README.md says what each holds."""

from __future__ import annotations

import datetime
import json

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import mongodb_rs
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import fixture

DB1, DB2, DB3 = 'db1.example.net:27017', 'db2.example.net:27017', 'db3.example.net:27017'


def status(name):
    return mongodb_rs.parse_rs_status(fixture('health', name))


def test_healthy_set_members_primary_and_lag():
    found = status('rs_status_healthy.json')
    assert found['set'] == 'rs0' and found['primary'] == DB1 and found['primaries'] == [DB1]
    assert [(m['name'], m['state'], m['state_str'], m['health']) for m in found['members']] == [
        (DB1, 1, 'PRIMARY', 1), (DB2, 2, 'SECONDARY', 1), (DB3, 2, 'SECONDARY', 1)]
    assert found['members'][0]['self'] is True and found['members'][1]['self'] is False
    assert found['members'][0]['optime_date'] == datetime.datetime(2026, 11, 20, 10, 15, 29,
                                                                   tzinfo=datetime.timezone.utc)
    assert found['date'] == datetime.datetime(2026, 11, 20, 10, 15, 30, 120000, tzinfo=datetime.timezone.utc)
    assert found['lag'] == {DB2: 2.0, DB3: 0.0}
    verdict = mongodb_rs.rs_verdict(found, max_lag_seconds=10)
    assert verdict == {'healthy': True, 'problems': [],
                       'reason': 'replica set rs0: PRIMARY %s, 2 secondaries within 10 s (largest lag 2 s)' % DB1}


def test_lagging_secondary_is_named_with_its_lag():
    found = status('rs_status_lagging_secondary.json')
    assert found['lag'] == {DB2: 1.0, DB3: 45.0}
    verdict = mongodb_rs.rs_verdict(found, max_lag_seconds=10)
    assert verdict['healthy'] is False
    assert verdict['problems'] == ['secondary %s lags the primary by 45 s (at most 10 s)' % DB3]
    assert mongodb_rs.rs_verdict(found, max_lag_seconds=60)['healthy'] is True
    # a delayed secondary is not held to the lag
    assert mongodb_rs.rs_verdict(found, max_lag_seconds=10, lag_exempt=[DB3])['healthy'] is True


def test_no_primary():
    found = status('rs_status_no_primary.json')
    assert found['primary'] is None and found['primaries'] == [] and found['lag'] == {}
    unreachable = found['members'][2]
    assert (unreachable['health'], unreachable['state'], unreachable['state_str']) == (0, 8, '(not reachable/healthy)')
    verdict = mongodb_rs.rs_verdict(found)
    assert verdict['problems'] == ['no PRIMARY', 'member %s ((not reachable/healthy), health 0)' % DB3]
    assert verdict['reason'].startswith('replica set rs0: no PRIMARY; member %s' % DB3)


def test_recovering_member():
    found = status('rs_status_recovering.json')
    assert found['primary'] == DB1
    assert found['lag'] == {DB2: 0.0}      # lag is a SECONDARY's only
    verdict = mongodb_rs.rs_verdict(found)
    assert verdict['healthy'] is False
    assert verdict['problems'] == ['member %s (RECOVERING, health 1)' % DB3]


def test_arbiter_serves_without_lag():
    found = status('rs_status_psa_arbiter.json')
    assert found['lag'] == {DB2: 3.0}
    assert found['members'][2]['optime_date'] is None
    assert mongodb_rs.rs_verdict(found, max_lag_seconds=5)['healthy'] is True


def test_two_primaries_are_not_one():
    document = json.loads(fixture('health', 'rs_status_healthy.json'))
    document['members'][1]['stateStr'] = 'PRIMARY'
    found = mongodb_rs.parse_rs_status(json.dumps(document))
    assert found['primary'] is None and found['primaries'] == [DB1, DB2]
    assert mongodb_rs.rs_verdict(found)['problems'] == ['2 members report PRIMARY: %s, %s' % (DB1, DB2)]


def test_secondary_without_optime_has_unknown_lag():
    document = json.loads(fixture('health', 'rs_status_healthy.json'))
    del document['members'][2]['optimeDate']
    found = mongodb_rs.parse_rs_status(json.dumps(document))
    assert found['lag'][DB3] is None
    assert mongodb_rs.rs_verdict(found)['problems'] == ['secondary %s: lag unknown (no optimeDate)' % DB3]


@pytest.mark.parametrize('value, expected', [
    ({'$date': '2026-11-20T10:15:29Z'}, datetime.datetime(2026, 11, 20, 10, 15, 29, tzinfo=datetime.timezone.utc)),
    ({'$date': {'$numberLong': '1795169729000'}}, datetime.datetime(2026, 11, 20, 10, 15, 29,
                                                                    tzinfo=datetime.timezone.utc)),
    ({'$date': 1795169729000}, datetime.datetime(2026, 11, 20, 10, 15, 29, tzinfo=datetime.timezone.utc)),
    ('2026-11-20T10:15:29.500Z', datetime.datetime(2026, 11, 20, 10, 15, 29, 500000, tzinfo=datetime.timezone.utc)),
    ('2026-11-20T11:15:29+01:00', datetime.datetime(2026, 11, 20, 10, 15, 29, tzinfo=datetime.timezone.utc)),
    ('not a date', None),
    (None, None),
    (True, None),
])
def test_dates_relaxed_canonical_and_plain(value, expected):
    assert mongodb_rs.parse_date(value) == expected


def test_text_mongosh_prints_before_the_document_is_skipped():
    text = 'Current Mongosh Log ID: 0123456789abcdef01234567\n' + fixture('health', 'rs_status_healthy.json')
    assert mongodb_rs.parse_rs_status(text)['primary'] == DB1


@pytest.mark.parametrize('text, message', [
    ('MongoServerError: no replset config has been received', 'holds no document'),
    ('{"set": "rs0", "date": ISODate("2026-11-20T10:15:30Z"), "members": []}', 'legacy mongo shell'),
    ('{"ok": 0, "errmsg": "not running with --replSet", "code": 76, "codeName": "NoReplicationEnabled"}',
     'failed: not running with --replSet'),
    ('{"set": "rs0", "ok": 1}', 'no members list'),
    ('{"members": [{"health": 1}], "ok": 1}', 'member without a name'),
    ('[1, 2]', 'holds no document'),
])
def test_outputs_that_are_not_a_status_are_refused(text, message):
    with pytest.raises(mongodb_rs.RsStatusError, match=message):
        mongodb_rs.parse_rs_status(text)
