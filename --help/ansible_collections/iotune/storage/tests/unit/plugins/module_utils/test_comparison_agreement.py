# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The audit and the tune role's stage checks decide "matches" by the same code (issue 31).

On one fake host (test_stage_sync's: audit.tuned_host with what the modules read in check mode), with one kind of
drift at a time, the audit (module_utils/audit.py gather, module_utils/drift.py compare) reports drift in the areas
of a stage iff storage_preflight's stage check (module_utils/stage_sync.py) finds that stage not in sync. The homes of
each comparison: fstab.planned_line_problem, mdadm.conf_problems, block_tuning.live_matches, kernel_settings.problems.

``test_each_case_can_fail`` gives the audit side a predicate of its own for the case's comparison (the home replaced
in drift's view only) and shows that the agreement then breaks: every case decides something.
"""

from __future__ import annotations

import os
import types

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import audit as host_audit
from ansible_collections.iotune.storage.plugins.module_utils import drift
from ansible_collections.iotune.storage.plugins.module_utils import fstab
from ansible_collections.iotune.storage.plugins.module_utils import kernel_settings
from ansible_collections.iotune.storage.plugins.module_utils import mdadm
from ansible_collections.iotune.storage.plugins.module_utils import stage_sync
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures import audit as fixture
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.test_stage_sync import (  # noqa: F401 pylint: disable=unused-import
    SYSCTL_FILE,
    Module,
    host,
    stages,
)

PLAN = fixture.DRIFT_PLAN
# the audit's areas that each stage repairs
STAGE_AREAS = {'raid0': ('array', 'member', 'mdadm.conf'), 'xfs': ('fstab', 'mount'),
               'block_tuning': ('readahead', 'scheduler', 'queue', 'rules', 'tuning', 'tuned'), 'kernel': ('kernel',)}
FSTAB_LINE = 'UUID=%s /var/lib/cassandra xfs %%s 0 0\n' % fixture.FS_UUID
STALE = 'ARRAY /dev/md/data metadata=1.2 UUID=deadbeef:deadbeef:deadbeef:deadbeef name=lab:data\n'


def fstab_options(h, options):
    h.write('etc/fstab', FSTAB_LINE % options)


CASES = {
    'converged': (None, lambda h: None),
    'fstab line without an option': ('xfs', lambda h: fstab_options(h, 'nofail,x-systemd.device-timeout=90s')),
    'fstab line with an extra option': ('xfs', lambda h: fstab_options(h, fixture.OPTIONS + ',discard')),
    'fstab line with another device timeout': ('xfs', lambda h: fstab_options(
        h, fixture.OPTIONS.replace('=90s', '=30s'))),
    'stale ARRAY line': ('raid0', lambda h: h.write('etc/mdadm/mdadm.conf', h.read('etc/mdadm/mdadm.conf') + STALE)),
    'missing ARRAY line': ('raid0', lambda h: h.write('etc/mdadm/mdadm.conf', 'HOMEHOST <system>\n')),
    'ARRAY line of another md name': ('raid0', lambda h: h.write(
        'etc/mdadm/mdadm.conf', h.read('etc/mdadm/mdadm.conf').replace('name=lab:data', 'name=data'))),
    'readahead of the array': ('block_tuning', lambda h: h.write('sys/block/md127/queue/read_ahead_kb', '4096\n')),
    'readahead of a member': ('block_tuning', lambda h: h.write('sys/block/vdb/queue/read_ahead_kb', '128\n')),
    'scheduler of a member': ('block_tuning', lambda h: h.write('sys/block/vdc/queue/scheduler', 'none [mq-deadline]\n')),
    'sysctl': ('kernel', lambda h: h.kernel.set_vm('swappiness', 60)),
    'THP': ('kernel', lambda h: h.kernel.set_thp(enabled='always')),
}


def audit_items(h):
    """The audit's items of the host, by its one read and the comparison."""
    facts = host_audit.gather(h.view(), fixture.ARRAYS, fixture.tuning(h), fixture.RULES,
                              sysctl={'vm.swappiness': 1}, thp={'enabled': 'never'}, sysctl_file=SYSCTL_FILE)
    return drift.compare(facts, PLAN)['items']


def disagreements(h):
    """The stages on which the audit and the stage check disagree: {stage: (audit items, why not in sync)}."""
    in_sync, dummy, why = stage_sync.check(Module(h), h.view(), stages(h))
    items = audit_items(h)
    out = {}
    for stage in stage_sync.STAGES:
        mine = [i['message'] for i in items if i['area'] in STAGE_AREAS[stage]]
        if bool(mine) != (stage not in in_sync):
            out[stage] = (mine, why.get(stage))
    others = [i for i in items if not any(i['area'] in areas for areas in STAGE_AREAS.values())]
    if others:
        out['other'] = (others, None)
    return out


@pytest.mark.parametrize('case', sorted(CASES))
def test_the_audit_drifts_iff_the_stage_is_not_in_sync(host, case):
    stage, change = CASES[case]
    change(host)
    in_sync = stage_sync.check(Module(host), host.view(), stages(host))[0]
    assert in_sync == [s for s in stage_sync.STAGES if s != stage]
    assert disagreements(host) == {}
    assert bool(audit_items(host)) == (stage is not None)


def own_predicates(monkeypatch, stage):
    """The audit side with a predicate of its own for ``stage``'s comparison (its home, as drift sees it, replaced by
    one that finds everything in step)."""
    if stage == 'xfs':
        monkeypatch.setattr(drift, 'fstab', types.SimpleNamespace(
            **dict(vars(fstab), planned_line_problem=lambda *args, **kwargs: None)))
    elif stage == 'raid0':
        monkeypatch.setattr(drift, 'mdadm', types.SimpleNamespace(
            **dict(vars(mdadm), conf_problems=lambda *args, **kwargs: [])))
    elif stage == 'block_tuning':
        monkeypatch.setattr(drift, 'live_matches', lambda live, want: True)
        # the array's own readahead item (no tuning entry matched it) is not in this case
    elif stage == 'kernel':
        monkeypatch.setattr(drift, 'kernel_settings', types.SimpleNamespace(
            **dict(vars(kernel_settings), problems=lambda report: [])))


@pytest.mark.parametrize('case', sorted(c for c in CASES if CASES[c][0]))
def test_each_case_can_fail(host, monkeypatch, case):
    stage, change = CASES[case]
    change(host)
    own_predicates(monkeypatch, stage)
    assert stage in disagreements(host)


def test_the_device_timeout_of_the_plan_is_the_one_compared(host):
    fstab_options(host, fixture.OPTIONS.replace('=90s', '=30s'))
    facts = host_audit.gather(host.view(), fixture.ARRAYS, fixture.tuning(host), fixture.RULES)
    assert [i['area'] for i in drift.compare(facts, PLAN)['items']] == ['fstab']
    assert drift.compare(facts, drift.with_device_timeout(PLAN, '30s'))['items'] == []
    assert drift.compare(facts, drift.compared_plan(drift.with_device_timeout(PLAN, '30s')))['items'] == []


def test_the_mdadm_conf_read_is_the_whole_text(host):
    """A line mdadm_array would rewrite that is not an ARRAY line of the array's own (a second copy of it) is drift
    too: the audit reads the whole file, as the module does."""
    line = host.read('etc/mdadm/mdadm.conf').splitlines()[-1]
    host.write('etc/mdadm/mdadm.conf', host.read('etc/mdadm/mdadm.conf') + line + '\n')
    items = [(i['area'], i['message']) for i in audit_items(host)]
    assert items == [('mdadm.conf', 'several ARRAY lines for UUID=%s in mdadm.conf' % fixture.UUID)]
    assert disagreements(host) == {}
    assert os.path.exists(os.path.join(host.root, 'etc/mdadm/mdadm.conf'))


def test_the_array_line_of_an_array_that_is_not_active_is_judged_by_its_uuid(host):
    """A RAID0 that lost a member: udev forgets its md name, mdadm_array fails on it; its state is the item, not the
    name= of its ARRAY line."""
    host.write('sys/block/md127/md/array_state', 'broken\n')
    host.udev_db('9:127', {'DEVTYPE': 'disk', 'ID_FS_UUID': fixture.FS_UUID, 'ID_FS_TYPE': 'xfs'})
    items = [(i['area'], i['message']) for i in audit_items(host)]
    assert ('array', '/dev/md/data is broken (a member disappeared while it ran)') in items
    assert not [m for area, m in items if area == 'mdadm.conf'], items
