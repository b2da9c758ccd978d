# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The health_gate module and its probes (module_utils/health_probe.py): real probes on this machine (a TCP port
opened by the test, commands that exist everywhere), and the attempts over fake probes."""

from __future__ import annotations

import socket
import sys

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import health_gate, health_probe
from ansible_collections.iotune.storage.plugins.modules import health_gate as health_gate_module
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.module_run import run_module as run_main


def run_module(capsys, args):
    check = args.pop("_ansible_check_mode", False)
    return run_main(health_gate_module, args, capsys, check_mode=check)


@pytest.fixture
def listening():
    """A port on 127.0.0.1 that accepts connections, for the test's duration."""
    server = socket.socket()
    server.bind(('127.0.0.1', 0))
    server.listen(4)
    try:
        yield server.getsockname()[1]
    finally:
        server.close()


def closed_port():
    probe = socket.socket()
    probe.bind(('127.0.0.1', 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


def test_healthy_gate_passes_in_one_attempt(capsys, listening):
    code, out = run_module(capsys, {'gate': {'tcp_ports': [listening],
                                             'command': {'argv': [sys.executable, '-c', 'print("healthy")'],
                                                         'stdout_regex': '^healthy$'}},
                                    'moment': 'before', 'host_label': 'db1'})
    assert code == 0 and not out['changed'] and out['healthy'] and out['attempts'] == 1, out
    assert out['reason'].startswith('health gate passed on db1 before the change'), out['reason']


def test_unhealthy_gate_fails_naming_the_host_the_moment_and_each_check(capsys, listening):
    port = closed_port()
    code, out = run_module(capsys, {'gate': {'tcp_ports': [listening, port], 'retries': 1, 'delay': 0,
                                             'command': {'argv': [sys.executable, '-c', 'print("degraded")'],
                                                         'stdout_regex': '^healthy$'}},
                                    'moment': 'after', 'host_label': 'db2'})
    assert code == 1 and out['failed'] is True and out['attempts'] == 2, out
    msg = out['msg']
    assert msg.startswith('health gate failed on db2 after the change: '), msg
    assert 'tcp port %d' % port in msg and "does not match '^healthy$'" in msg and 'after 2 attempts' in msg, msg
    assert 'tcp port %d:' % listening not in msg      # the check that passed is not named as failed


def test_check_mode_runs_the_checks(capsys):
    code, out = run_module(capsys, {'gate': {'command': {'argv': ['false']}, 'retries': 0},
                                    '_ansible_check_mode': True})
    assert code == 1 and 'exit status 1' in out['msg'], out


@pytest.mark.parametrize('gate, message', [
    ({'tcp_port': [22]}, "gate: unknown key 'tcp_port' (did you mean tcp_ports"),
    ({'command': {'argv': 'nodetool status'}}, 'gate.command.argv must be a list of strings'),
    ({}, 'gate has no check'),
])
def test_a_bad_gate_fails_before_any_check(capsys, gate, message):
    code, out = run_module(capsys, {'gate': gate})
    assert code == 1 and message in out['msg'], out
    assert 'attempts' not in out


def test_a_command_that_hangs_is_a_failed_check():
    rc, stdout, stderr = health_probe.command_probe([sys.executable, '-c', 'import time; time.sleep(5)'], 0.5)
    assert rc is None and 'timed out' in stderr
    rc, stdout, stderr = health_probe.command_probe(['/nonexistent/db-health'], 1)
    assert rc is None and stderr


def test_attempts_until_healthy_with_the_delay_between(monkeypatch):
    gate = health_gate.validate_gate({'tcp_ports': [7000], 'retries': 5, 'delay': 3})
    answers = iter([(False, 'refused'), (False, 'refused'), (True, None)])
    slept = []
    probes = {'tcp': lambda host, port, timeout: next(answers)}
    found = health_probe.run_gate(gate, probes, sleep=slept.append, clock=lambda: 0)
    assert found['healthy'] and found['attempts'] == 3 and slept == [3, 3], found


def test_the_retries_bound_the_attempts():
    gate = health_gate.validate_gate({'http': 'http://127.0.0.1:9/health', 'retries': 2, 'delay': 1})
    calls = []
    probes = {'http': lambda url, timeout, validate: calls.append(url) or (503, 'starting')}
    found = health_probe.run_gate(gate, probes, host='db3', when='before', sleep=lambda s: None, clock=lambda: 0)
    assert not found['healthy'] and len(calls) == 3 and found['attempts'] == 3
    assert 'status 503 (expected 200)' in found['reason'] and found['reason'].endswith('(after 3 attempts in 0 s)')
