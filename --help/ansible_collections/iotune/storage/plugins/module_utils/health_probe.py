# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a health gate (module_utils/health_gate.py) on the host: each check once per attempt, attempts until every
check passes or the retries are spent (module health_gate, docs/rolling.md). The three probes are passed in, so that
the unit tests give fake ones: ``tcp(host, port, timeout) -> (connected, error)``, ``http(url, timeout,
validate_certs) -> (status or None, body or error)``, ``command(argv, timeout) -> (rc, stdout, stderr)``."""

from __future__ import annotations

import socket
import subprocess
import time

from ansible_collections.iotune.storage.plugins.module_utils import health_gate

LOCAL = '127.0.0.1'


def tcp_probe(host, port, timeout):
    try:
        with socket.create_connection((host or LOCAL, port), timeout=timeout):
            return True, None
    except (OSError, socket.timeout) as exc:
        return False, str(exc)


def command_probe(argv, timeout):
    try:
        done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                              check=False, universal_newlines=True)
    except subprocess.TimeoutExpired:
        return None, '', 'timed out after %g s' % timeout
    except OSError as exc:
        return None, '', str(exc)
    return done.returncode, done.stdout, done.stderr


def make_http_probe(open_url):
    """An http probe over ansible.module_utils.urls.open_url (the module passes it in)."""
    def http_probe(url, timeout, validate_certs):
        try:
            response = open_url(url, timeout=timeout, validate_certs=validate_certs, follow_redirects='safe')
            return response.getcode(), response.read(65536).decode('utf-8', 'replace')
        except Exception as exc:  # pylint: disable=broad-except
            status = getattr(exc, 'code', None)
            if isinstance(status, int):
                body = exc.read(65536).decode('utf-8', 'replace') if hasattr(exc, 'read') else ''
                return status, body
            return None, str(exc)
    return http_probe


def attempt(gate, probes):
    """The verdicts of one attempt of every check of ``gate``."""
    verdicts = []
    for check in gate['checks']:
        if check['kind'] == 'tcp':
            connected, error = probes['tcp'](check['host'], check['port'], gate['timeout'])
            verdicts.append(health_gate.tcp_verdict(check, connected, error))
        elif check['kind'] == 'http':
            status, body = probes['http'](check['url'], gate['timeout'], check['validate_certs'])
            verdicts.append(health_gate.http_verdict(check, status, body))
        else:
            rc, stdout, stderr = probes['command'](check['argv'], gate['timeout'])
            verdicts.append(health_gate.command_verdict(check, rc, stdout, stderr))
    return verdicts


def run_gate(gate, probes, host=None, when=None, sleep=time.sleep, clock=time.monotonic):
    """Attempts until the gate passes or ``retries`` more attempts failed: {'healthy', 'failed', 'reason',
    'attempts', 'seconds', 'checks'} (``checks``: the last attempt's verdicts)."""
    start = clock()
    tries = 0
    while True:
        tries += 1
        verdicts = attempt(gate, probes)
        found = health_gate.gate_verdict(verdicts, host=host, when=when)
        if found['healthy'] or tries > gate['retries']:
            break
        sleep(gate['delay'])
    found.update(attempts=tries, seconds=round(clock() - start, 1), checks=verdicts)
    if not found['healthy']:
        found['reason'] += ' (after %d attempt%s in %.0f s)' % (tries, '' if tries == 1 else 's', found['seconds'])
    return found
