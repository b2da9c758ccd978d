# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The limits drop-ins of the database services (module_utils/service_limits.py, issue 27): the value rule the plan
applies, the drop-in's text and its read back, systemd's report, and the one comparison the tune role's check, the
audit and the metrics collector share (each with a negative control)."""

from __future__ import annotations

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import audit, drift, service_limits as sl
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.audit import ARRAYS, RULES, tuned_host, tuning

PLANNED = {'cassandra.service': {'LimitNOFILE': '100000', 'LimitMEMLOCK': 'infinity', 'LimitNPROC': '4096:32768'}}
DROPIN = '/etc/systemd/system/cassandra.service.d/iotune-storage-limits.conf'


def show(load='loaded', **values):
    lines = ['LoadState=%s' % load] + ['%s=%s' % kv for kv in sorted(values.items())]
    return '\n'.join(lines) + '\n'


AS_PLANNED = show(LimitNOFILE='100000', LimitNOFILESoft='100000', LimitMEMLOCK='infinity',
                  LimitMEMLOCKSoft='infinity', LimitNPROC='32768', LimitNPROCSoft='4096')


@pytest.mark.parametrize('value, want', [
    (100000, '100000'), ('100000', '100000'), ('infinity', 'infinity'), ('unlimited', 'infinity'), (0, '0'),
    ('4096:32768', '4096:32768'), ('64000:64000', '64000'), ('1024:infinity', '1024:infinity'),
    (' infinity ', 'infinity'),
])
def test_values_systemd_reads_back_as_written(value, want):
    assert sl.value_problem('LimitNOFILE', value) is None
    assert sl.normalise(value) == want


@pytest.mark.parametrize('value', ['1G', '64k', -1, True, None, 1.5, '1:2:3', 'infinity:', ':5', '', [1], '01',
                                   str(2 ** 64)])
def test_a_value_systemd_would_convert_or_refuse_is_refused(value):
    assert 'is not a limit' in sl.value_problem('LimitNOFILE', value)


def test_soft_above_hard_is_refused():
    assert 'soft limit 200 is above the hard limit 100' in sl.value_problem('LimitNPROC', '200:100')
    assert 'soft limit infinity is above' in sl.value_problem('LimitNPROC', 'infinity:100')
    assert sl.value_problem('LimitNPROC', '100:infinity') is None   # negative control


def test_names_outside_the_allow_list_are_refused_with_the_closest():
    assert 'did you mean LimitNOFILE' in sl.value_problem('LimitNOFLE', 1)
    assert 'nice levels' in sl.value_problem('LimitNICE', 0)
    assert 'not a resource limit' in sl.value_problem('nofile', 1)
    assert sl.value_problem('LimitAS', 'infinity') is None          # negative control


def test_validate_collects_every_problem_and_skips_null():
    found, problems = sl.validate({'LimitNOFILE': 1000, 'LimitAS': None, 'LimitNOFLE': 1, 'LimitNPROC': '1k'}, 'w')
    assert found == {'LimitNOFILE': '1000'}
    assert len(problems) == 2 and all(p.startswith('w: ') for p in problems)
    assert sl.validate(None, 'w') == ({}, [])
    assert 'must be a dict' in sl.validate(['LimitNOFILE=1'], 'w')[1][0]


def test_dropin_text_path_and_read_back():
    files = sl.files(dict(PLANNED, **{'empty.service': {}}))
    assert [f['path'] for f in files] == [DROPIN]                  # a unit without settings gets no drop-in
    content = files[0]['content']
    assert '[Service]\nLimitMEMLOCK=infinity\nLimitNOFILE=100000\nLimitNPROC=4096:32768\n' in content
    assert sl.settings_in(content) == PLANNED['cassandra.service']
    assert sl.unit_of(DROPIN) == 'cassandra.service'
    assert sl.unit_of('/etc/systemd/system/cassandra.service.d/iotune-storage-mounts.conf') is None
    assert sl.unit_of('/etc/systemd/system/a/b.service.d/iotune-storage-limits.conf') is None
    # a [Unit] line or a comment is not a setting; the last line of a name wins
    assert sl.settings_in('[Unit]\nLimitNOFILE=1\n[Service]\n# LimitAS=1\nLimitNOFILE=2\nLimitNOFILE=3\n') == \
        {'LimitNOFILE': '3'}


def test_show_argv_asks_for_each_planned_limit_and_its_soft_value():
    argv = sl.show_argv(PLANNED)
    assert argv[:2] == ['systemctl', 'show'] and argv[-2:] == ['--', 'cassandra.service']
    props = argv[2].split('=', 1)[1].split(',')
    assert props == ['LoadState', 'LimitMEMLOCK', 'LimitMEMLOCKSoft', 'LimitNOFILE', 'LimitNOFILESoft',
                     'LimitNPROC', 'LimitNPROCSoft']


def test_live_limits_as_planned_and_not():
    shown = sl.parse_show(AS_PLANNED, ['cassandra.service'])['cassandra.service']
    assert sl.live_problems('cassandra.service', PLANNED['cassandra.service'], shown) == []
    # a drop-in not loaded (no daemon-reload) or beaten by a later one: the distribution's default
    stale = dict(shown, LimitNOFILE='524288', LimitNOFILESoft='1024')
    found = sl.live_problems('cassandra.service', PLANNED['cassandra.service'], stale)
    assert len(found) == 1 and 'LimitNOFILE is 1024:524288 for systemd, the plan says 100000' in found[0]
    # the kernel's RLIM_INFINITY as a number is infinity
    numeric = dict(shown, LimitMEMLOCK=sl.RLIM_INFINITY, LimitMEMLOCKSoft=sl.RLIM_INFINITY)
    assert sl.live_problems('cassandra.service', PLANNED['cassandra.service'], numeric) == []
    # a unit systemd does not know is not compared (its drop-in applies once it is installed)
    assert sl.live_problems('cassandra.service', PLANNED['cassandra.service'], {'LoadState': 'not-found'}) == []


def test_parse_show_refuses_blocks_that_do_not_match_the_units():
    with pytest.raises(sl.LimitsError):
        sl.parse_show(AS_PLANNED, ['a.service', 'b.service'])


def test_problems_name_a_missing_and_a_different_dropin_and_a_live_difference():
    good = {'dropins': {'cassandra.service': sl.text(PLANNED['cassandra.service'])},
            'live': sl.parse_show(AS_PLANNED, ['cassandra.service']), 'error': None}
    assert sl.problems(PLANNED, good) == []                        # negative control
    missing = dict(good, dropins={'cassandra.service': None})
    assert 'is missing' in sl.problems(PLANNED, missing)[0][1]
    edited = dict(good, dropins={'cassandra.service': sl.text(PLANNED['cassandra.service']).replace('100000', '4096')})
    found = sl.problems(PLANNED, edited)
    assert len(found) == 1
    unit, message = found[0]
    assert unit == 'cassandra.service' and 'differs' in message and 'LimitNOFILE=4096' in message
    live = dict(good, live={'cassandra.service': dict(good['live']['cassandra.service'], LimitNPROC='4096')})
    assert 'LimitNPROC is 4096 for systemd' in sl.problems(PLANNED, live)[0][1]


def test_gather_reads_the_dropins_below_the_root_and_asks_systemd_once(tmp_path):
    path = tmp_path / DROPIN.lstrip('/')
    path.parent.mkdir(parents=True)
    path.write_text(sl.text(PLANNED['cassandra.service']))
    calls = []

    def run(argv):
        calls.append(argv)
        return 0, AS_PLANNED, ''

    def read(where):
        full = os.path.join(str(tmp_path), where.lstrip('/'))
        if not os.path.exists(full):
            return None
        with open(full, encoding='utf-8') as f:
            return f.read()

    facts = sl.gather(read, run, PLANNED)
    assert calls == [sl.show_argv(PLANNED)] and facts['error'] is None
    assert sl.problems(PLANNED, facts) == []
    failed = sl.gather(read, lambda argv: (1, '', 'Failed to connect to bus'), PLANNED)
    assert 'Failed to connect to bus' in failed['error'] and failed['live'] == {}


def test_the_audit_reads_and_compares_them_as_the_tune_check_does(fake_host):
    h = tuned_host(fake_host)
    h.on(sl.show_argv(PLANNED), out=AS_PLANNED)
    plan = {'limits': PLANNED, 'raid0_arrays': [], 'xfs_filesystems': []}
    view = h.view()
    facts = audit.gather(view, ARRAYS, tuning(h), RULES, limits=PLANNED, run_command=h.run)
    assert facts['limits']['dropins'] == {'cassandra.service': None}
    items = [i for i in drift.compare(facts, plan)['items'] if i['area'] == 'limits']
    assert [i['subject'] for i in items] == ['cassandra.service'] and 'is missing' in items[0]['message']
    h.write(DROPIN.lstrip('/'), sl.text(PLANNED['cassandra.service']))
    facts = audit.gather(view, ARRAYS, tuning(h), RULES, limits=PLANNED, run_command=h.run)
    assert [i for i in drift.compare(facts, plan)['items'] if i['area'] == 'limits'] == []   # negative control
    # the metrics spec's part of the plan compares the same
    assert drift.compare(facts, drift.compared_plan(plan)) == drift.compare(facts, plan)
    # without limits in the plan nothing is read
    assert audit.gather(view, ARRAYS, tuning(h), RULES)['limits'] is None
