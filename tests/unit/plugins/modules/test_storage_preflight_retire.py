# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""storage_preflight's ``retire`` option and the retire_array module, through main() on the fake host with two
arrays (tests/unit/plugins/module_utils/test_retire.py): every refusal of a retire comes from the preflight, before
the first change of a run; the holds a retire removes itself are not counted as dropped."""

from __future__ import annotations

import os

from ansible_collections.iotune.storage.plugins.module_utils import mount_holds
from ansible_collections.iotune.storage.plugins.module_utils import service_limits
from ansible_collections.iotune.storage.plugins.modules import retire_array as retire_mod
from ansible_collections.iotune.storage.plugins.modules import storage_preflight as preflight_mod
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.module_run import on_fake_host, run_module
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.test_retire import (
    CONF,
    MARKER,
    UUID,
    build,
    has_limits,
    limits,
    states,
)

BINS = {'blkid': 'blkid', 'systemctl': 'systemctl', 'mdadm': 'mdadm', 'umount': 'umount'}
ENTRY = {'name': 'data2', 'confirm_name': 'data2', 'confirm_uuid': UUID}
# the plan keeps data on /srv/data, held for both.service; data2 is not in it any more
HOLDS = {'keep': ['both.service'], 'mounts': {'both.service': ['/srv/data']}, 'release': []}


def preflight(monkeypatch, capsys, host, retire=None, keep_services=None, **kw):
    on_fake_host(monkeypatch, preflight_mod, host, BINS)
    # the fake host's files are read below its root (BlockHost.path)
    args = {'arrays': [], 'holds': HOLDS, 'fstab': '/etc/fstab'}
    if retire is not None:
        args['retire'] = {'arrays': retire, 'mdadm_conf': CONF, 'rebuild_marker': MARKER}
        if keep_services is not None:
            args['retire']['keep_services'] = keep_services
    args.update(kw)
    return run_module(preflight_mod, args, capsys)


def test_without_the_retire_the_plan_that_leaves_data2_out_is_refused(fake_host, monkeypatch, capsys):
    host = build(fake_host)
    rc, result = preflight(monkeypatch, capsys, host)
    assert rc == 1 and 'the plan drops the mount hold of both.service on /srv/data2' in result['msg']
    assert 'the plan drops the mount hold of stand-in.service on /srv/data2' in result['msg']


def test_with_the_retire_the_preflight_says_what_it_would_do(fake_host, monkeypatch, capsys):
    host = build(fake_host)
    rc, result = preflight(monkeypatch, capsys, host, retire=[ENTRY])
    assert rc == 0, result
    read = result['retire'][0]
    assert read['steps'] == ['holds', 'unmount', 'fstab', 'conf', 'stop'] and read['mountpoints'] == ['/srv/data2']
    assert 'diff' not in read
    assert not [c for c in host.calls if c[0] in ('umount', 'mdadm') or c[:2] == ['systemctl', 'daemon-reload']]


def test_a_refusal_of_the_retire_fails_the_preflight(fake_host, monkeypatch, capsys):
    host = build(fake_host)
    states(host, ['both.service', 'stand-in.service'], ['inactive', 'active'])
    rc, result = preflight(monkeypatch, capsys, host, retire=[dict(ENTRY, confirm_uuid=UUID.replace('a', 'b'))])
    assert rc == 1 and result['msg'].startswith('preflight refused the plan (nothing was changed)')
    assert "/dev/md/data2 runs as UUID %s, not %s" % (UUID, UUID.replace('a', 'b')) in result['problems'][0]
    rc, result = preflight(monkeypatch, capsys, host, retire=[ENTRY])
    assert rc == 1 and result['problems'] == ["retire 'data2': stand-in.service is running; stop it first (a retire "
                                              'never stops a service)']


def test_the_module_retires_then_changes_nothing(fake_host, monkeypatch, capsys):
    host = build(fake_host)
    on_fake_host(monkeypatch, retire_mod, host, BINS)
    args = dict(ENTRY, conf_path=CONF, rebuild_marker=MARKER)
    rc, checked = run_module(retire_mod, args, capsys, check_mode=True, diff=True)
    assert rc == 0 and checked['changed'] and len(checked['diff']) == 4
    assert os.path.exists(os.path.join(host.root, mount_holds.path('stand-in.service').lstrip('/')))
    rc, done = run_module(retire_mod, args, capsys)
    assert rc == 0 and done['changed'] and done['steps'] == checked['steps'] and 'diff' not in done
    assert done['rebuild_pending'] and done['conf_changed']
    rc, again = run_module(retire_mod, args, capsys)
    assert rc == 0 and not again['changed'] and again['state'] == 'retired'


def test_the_preflight_leaves_the_limits_of_the_kept_services_alone(fake_host, monkeypatch, capsys):
    host = build(fake_host)
    limits(host, 'stand-in.service', 'db.service')
    states(host, ['db.service', 'both.service', 'stand-in.service'], ['inactive'] * 3)
    rc, result = preflight(monkeypatch, capsys, host, retire=[dict(ENTRY, services=['db'])], keep_services=['db'])
    assert rc == 0, result
    assert result['retire'][0]['steps'][0] == 'limits'
    assert result['retire'][0]['done'][0] == 'limits drop-ins removed: %s' % service_limits.path('stand-in.service')
    assert has_limits(host, 'stand-in.service')          # check mode: nothing removed


def test_a_second_run_passes_the_preflight_while_the_listed_service_runs_again(fake_host, monkeypatch, capsys):
    host = build(fake_host)
    on_fake_host(monkeypatch, retire_mod, host, BINS)
    states(host, ['db.service', 'both.service', 'stand-in.service'], ['inactive'] * 3)
    rc, done = run_module(retire_mod, dict(ENTRY, services=['db'], conf_path=CONF, rebuild_marker=MARKER), capsys)
    assert rc == 0 and done['changed']
    states(host, ['db.service'], ['active'])
    # the plan without data2 and its holds: both.service held for /srv/data only now
    rc, result = preflight(monkeypatch, capsys, host, retire=[dict(ENTRY, services=['db'])])
    assert rc == 0, result
    assert result['retire'][0]['state'] == 'retired' and result['retire'][0]['steps'] == []
