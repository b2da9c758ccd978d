# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The health gate of a rolling tune run (issue 28, docs/rolling.md, a draft): the description the user writes per
host group, validated into one normalized structure, the built-in presets, and the verdicts of the checks' results.

What the user writes (every key optional, at least one check)::

    preset: cassandra | scylla | mongodb_replica_set      # and that preset's options (PRESETS)
    tcp_ports: [9042]                                     # each must accept a TCP connection
    host: 10.0.1.11                                       # where tcp_ports and a relative check connect
    http: {url: http://127.0.0.1:8080/health, status: [200], body_contains: OK, validate_certs: true}
    command: {argv: [/usr/local/bin/healthy], rc: [0], stdout_contains: ..., stdout_regex: ...}
    retries: 30                                           # attempts after the first
    delay: 10                                             # seconds between attempts
    timeout: 10                                           # seconds one attempt of one check may take

``validate_gate`` refuses a bad description before any change (GateError naming the key, with "did you mean" for
an unknown one) and returns ``{'preset', 'checks', 'retries', 'delay', 'timeout'}``: ``checks`` is the ordered list
of the preset's checks and the user's, each a dict with ``kind`` (tcp, http, command) and ``name`` (what a failure
message calls it). ``command_verdict``, ``http_verdict``, ``tcp_verdict`` and ``gate_verdict`` judge what running
them returned.

Why module_utils and not plugin_utils: the checks are meant to run on the gated host (delegated to a cluster member
for the cluster's view) inside one module call that retries itself, rather than as an ``until:`` loop of Jinja with
one ssh round trip per attempt; a module can import only module_utils. The controller's plan (plugin_utils/plan.py)
can call ``validate_gate`` as it calls module_utils/rules.py today, so the same rules refuse a bad gate before the
first host is touched. Pure functions; no host access.
"""

from __future__ import annotations

import math
import re

from ansible_collections.iotune.storage.plugins.module_utils import mongodb_rs, nodetool
from ansible_collections.iotune.storage.plugins.module_utils.rules import did_you_mean

DEFAULT_RETRIES = 30
DEFAULT_DELAY = 10
DEFAULT_TIMEOUT = 10
COMMON_KEYS = ('preset', 'tcp_ports', 'host', 'http', 'command', 'retries', 'delay', 'timeout')
HTTP_KEYS = ('url', 'status', 'body_contains', 'validate_certs')
COMMAND_KEYS = ('argv', 'rc', 'stdout_contains', 'stdout_regex')
# the mongosh expression of the replica set preset: rs.status() as Extended JSON (mongosh prints JavaScript otherwise)
RS_STATUS_EVAL = 'EJSON.stringify(rs.status())'

# The presets and their options with defaults. cassandra/scylla: nodetool status with every node UN, and the CQL port
# open on the gated host, because a node shows UN before it serves CQL (scylla-ansible-roles #26, #100, PR #192;
# scylladb#18647 waits for all nodes UN). mongodb_replica_set: rs.status() with one PRIMARY, every member serving with
# health 1, no secondary lagging by more than max_lag_seconds (lag_exempt: members not held to it, e.g. delayed ones).
PRESETS = {
    'cassandra': {'nodetool_argv': ['nodetool'], 'cql_port': 9042},
    'scylla': {'nodetool_argv': ['nodetool'], 'cql_port': 9042},
    'mongodb_replica_set': {'mongosh_argv': ['mongosh'], 'max_lag_seconds': mongodb_rs.DEFAULT_MAX_LAG_SECONDS,
                            'lag_exempt': []},
}
PRESET_OPTION_KEYS = tuple(sorted(set(key for options in PRESETS.values() for key in options)))
ALL_KEYS = COMMON_KEYS + PRESET_OPTION_KEYS


class GateError(ValueError):
    pass


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _int(value, key, minimum=None, maximum=None):
    """``value`` as an int (an int, or a string of digits as templating gives it); GateError naming ``key``."""
    if isinstance(value, str) and re.fullmatch(r'\s*\d+\s*', value):
        value = int(value)
    if not _is_int(value):
        raise GateError('%s must be an integer, got %r' % (key, value))
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise GateError('%s must be %s..%s, got %d' % (key, minimum, '' if maximum is None else maximum, value))
    return value


def _seconds(value, key, minimum=0.0, strict=True):
    """``value`` as a number of seconds (> minimum, or >= with ``strict`` false); GateError naming ``key``."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            pass
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise GateError('%s must be a number of seconds, got %r' % (key, value))
    if value < minimum or (strict and value == minimum):
        raise GateError('%s must be %s %g seconds, got %r'
                        % (key, 'more than' if strict else 'at least', minimum, value))
    return value


def _bool(value, key):
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ('true', 'yes', 'on', '1', 'false', 'no', 'off', '0'):
        return value.strip().lower() in ('true', 'yes', 'on', '1')
    raise GateError('%s must be true or false, got %r' % (key, value))


def _text(value, key):
    if not isinstance(value, str) or not value.strip():
        raise GateError('%s must be a non-empty string, got %r' % (key, value))
    return value


def _argv(value, key):
    """A command as a list of strings (no shell: a single string is refused rather than split)."""
    if isinstance(value, str):
        raise GateError('%s must be a list of strings (the program and its arguments, no shell), got the string %r'
                        % (key, value))
    if not isinstance(value, list) or not value or not all(isinstance(a, str) and a for a in value):
        raise GateError('%s must be a non-empty list of non-empty strings, got %r' % (key, value))
    return list(value)


def _ints(value, key, minimum, maximum):
    """One int or a non-empty list of them, as a list."""
    values = value if isinstance(value, list) else [value]
    if not values:
        raise GateError('%s must not be empty' % key)
    return [_int(v, '%s[%d]' % (key, i) if isinstance(value, list) else key, minimum, maximum)
            for i, v in enumerate(values)]


def _unknown_keys(spec, known, where):
    for key in spec:
        if key not in known:
            raise GateError('%s: unknown key %r%s (known: %s)' % (where, key, did_you_mean(key, list(known)),
                                                                  ', '.join(known)))


def _mapping(value, where):
    if not isinstance(value, dict):
        raise GateError('%s must be a mapping, got %r' % (where, value))
    return value


# --- the checks -----------------------------------------------------------------------------------------------
def tcp_checks(ports, host, where):
    return [{'kind': 'tcp', 'name': 'tcp port %d' % port, 'host': host, 'port': port}
            for port in _ints(ports, '%s.tcp_ports' % where, 1, 65535)]


def http_check(spec, where):
    """The http check of ``spec`` (a mapping, or a URL string for {url: ...})."""
    where = '%s.http' % where
    if isinstance(spec, str):
        spec = {'url': spec}
    _unknown_keys(_mapping(spec, where), HTTP_KEYS, where)
    if 'url' not in spec:
        raise GateError('%s.url is required' % where)
    url = _text(spec['url'], '%s.url' % where)
    if not re.match(r'^https?://[^/\s]+', url):
        raise GateError('%s.url must be an http:// or https:// URL with a host, got %r' % (where, url))
    body = spec.get('body_contains')
    return {'kind': 'http', 'name': 'http %s' % url, 'url': url,
            'status': _ints(spec.get('status', 200), '%s.status' % where, 100, 599),
            'body_contains': None if body is None else _text(body, '%s.body_contains' % where),
            'validate_certs': _bool(spec.get('validate_certs', True), '%s.validate_certs' % where)}


def command_check(spec, where):
    """The command check of ``spec`` ({argv, rc, stdout_contains, stdout_regex})."""
    where = '%s.command' % where
    _unknown_keys(_mapping(spec, where), COMMAND_KEYS, where)
    if 'argv' not in spec:
        raise GateError('%s.argv is required' % where)
    argv = _argv(spec['argv'], '%s.argv' % where)
    regex = spec.get('stdout_regex')
    if regex is not None:
        _text(regex, '%s.stdout_regex' % where)
        try:
            re.compile(regex)
        except re.error as exc:
            raise GateError('%s.stdout_regex is not a regular expression: %s' % (where, exc))
    contains = spec.get('stdout_contains')
    return {'kind': 'command', 'name': 'command %s' % ' '.join(argv), 'argv': argv,
            'rc': _ints(spec.get('rc', 0), '%s.rc' % where, 0, 255),
            'stdout_contains': None if contains is None else _text(contains, '%s.stdout_contains' % where),
            'stdout_regex': regex, 'parser': None, 'parser_options': {}}


def preset_checks(preset, options, host, where):
    """The checks of a preset with its (validated) ``options``."""
    if preset in ('cassandra', 'scylla'):
        argv = options['nodetool_argv'] + ['status']
        return [{'kind': 'command', 'name': 'nodetool status (every node UN)', 'argv': argv, 'rc': [0],
                 'stdout_contains': None, 'stdout_regex': None, 'parser': 'nodetool_status', 'parser_options': {}},
                {'kind': 'tcp', 'name': 'CQL port %d' % options['cql_port'], 'host': host,
                 'port': options['cql_port']}]
    argv = options['mongosh_argv'] + ['--quiet', '--eval', RS_STATUS_EVAL]
    return [{'kind': 'command', 'name': 'rs.status() (one PRIMARY, members healthy, lag at most %g s)'
             % options['max_lag_seconds'], 'argv': argv, 'rc': [0], 'stdout_contains': None, 'stdout_regex': None,
             'parser': 'rs_status', 'parser_options': {'max_lag_seconds': options['max_lag_seconds'],
                                                       'lag_exempt': options['lag_exempt']}}]


def preset_options(spec, preset, where):
    """The options of ``preset`` from ``spec`` (its defaults for those not given); GateError for an option of
    another preset, or of a preset when none is chosen."""
    known = PRESETS.get(preset, {})
    for key in PRESET_OPTION_KEYS:
        if key in spec and key not in known:
            owners = [name for name in sorted(PRESETS) if key in PRESETS[name]]
            raise GateError('%s.%s is an option of preset %s, and this gate\'s preset is %s'
                            % (where, key, ' and '.join(owners), preset or 'not set'))
    options = dict((key, spec.get(key, default)) for key, default in known.items())
    for key in ('nodetool_argv', 'mongosh_argv'):
        if key in options:
            options[key] = _argv(options[key], '%s.%s' % (where, key))
    if 'cql_port' in options:
        options['cql_port'] = _int(options['cql_port'], '%s.cql_port' % where, 1, 65535)
    if 'max_lag_seconds' in options:
        options['max_lag_seconds'] = _seconds(options['max_lag_seconds'], '%s.max_lag_seconds' % where,
                                              strict=False)
    if 'lag_exempt' in options:
        exempt = options['lag_exempt']
        if not isinstance(exempt, list) or not all(isinstance(n, str) and n for n in exempt):
            raise GateError('%s.lag_exempt must be a list of member names (host:port), got %r' % (where, exempt))
    return options


def validate_gate(spec, where='health_gate'):
    """The normalized gate of the description ``spec`` (None: no gate, None returned); GateError naming the bad key
    (``where``: the variable's name, the prefix of every key in a message)."""
    if spec is None:
        return None
    _mapping(spec, where)
    _unknown_keys(spec, ALL_KEYS, where)
    preset = spec.get('preset')
    if preset is not None and preset not in PRESETS:
        raise GateError('%s.preset: unknown preset %r%s (known: %s)'
                        % (where, preset, did_you_mean(preset, sorted(PRESETS)), ', '.join(sorted(PRESETS))))
    host = spec.get('host')
    if host is not None:
        host = _text(host, '%s.host' % where)
    checks = []
    if preset is not None:
        checks.extend(preset_checks(preset, preset_options(spec, preset, where), host, where))
    else:
        preset_options(spec, None, where)
    if spec.get('tcp_ports') is not None:
        known_ports = [c['port'] for c in checks if c['kind'] == 'tcp']
        checks.extend(c for c in tcp_checks(spec['tcp_ports'], host, where) if c['port'] not in known_ports)
    if spec.get('http') is not None:
        checks.append(http_check(spec['http'], where))
    if spec.get('command') is not None:
        checks.append(command_check(spec['command'], where))
    if not checks:
        raise GateError('%s has no check: set preset (%s), tcp_ports, http or command'
                        % (where, ', '.join(sorted(PRESETS))))
    return {'preset': preset, 'checks': checks,
            'retries': _int(spec.get('retries', DEFAULT_RETRIES), '%s.retries' % where, 0),
            'delay': _seconds(spec.get('delay', DEFAULT_DELAY), '%s.delay' % where, strict=False),
            'timeout': _seconds(spec.get('timeout', DEFAULT_TIMEOUT), '%s.timeout' % where)}


def longest_wait(gate):
    """The most seconds a gate can take before it fails: every attempt of every check timing out, with the delays
    between the attempts."""
    attempts = gate['retries'] + 1
    return attempts * len(gate['checks']) * gate['timeout'] + gate['retries'] * gate['delay']


# --- the verdicts ---------------------------------------------------------------------------------------------
def _verdict(check, healthy, reason):
    return {'check': check['name'], 'healthy': bool(healthy), 'reason': reason}


def _last_line(text):
    lines = [line.strip() for line in (text or '').splitlines() if line.strip()]
    return lines[-1] if lines else ''


def parsed_verdict(check, stdout):
    """The verdict of a preset command's parser over its ``stdout`` (a parse error is a failed check)."""
    try:
        if check['parser'] == 'nodetool_status':
            found = nodetool.nodetool_verdict(nodetool.parse_nodetool_status(stdout))
        else:
            found = mongodb_rs.rs_verdict(mongodb_rs.parse_rs_status(stdout), **check['parser_options'])
    except (nodetool.NodetoolError, mongodb_rs.RsStatusError) as exc:
        return _verdict(check, False, str(exc))
    return _verdict(check, found['healthy'], found['reason'])


def command_verdict(check, rc, stdout, stderr=''):
    """Whether a command check passed: its exit status is one of ``rc``, its stdout holds ``stdout_contains`` and
    matches ``stdout_regex``, and a preset's parser finds it healthy."""
    if rc not in check['rc']:
        detail = _last_line(stderr) or _last_line(stdout)
        return _verdict(check, False, 'exit status %s (expected %s)%s' % (
            rc, ' or '.join(str(r) for r in check['rc']), ': %s' % detail if detail else ''))
    if check['stdout_contains'] is not None and check['stdout_contains'] not in (stdout or ''):
        return _verdict(check, False, 'output does not contain %r' % check['stdout_contains'])
    if check['stdout_regex'] is not None and not re.search(check['stdout_regex'], stdout or '', re.MULTILINE):
        return _verdict(check, False, 'output does not match %r' % check['stdout_regex'])
    if check['parser'] is not None:
        return parsed_verdict(check, stdout or '')
    return _verdict(check, True, 'exit status %s' % rc)


def http_verdict(check, status, body=''):
    """Whether an http check passed: the response status is one of ``status`` and the body holds ``body_contains``
    (``status`` None: no response, ``body`` then says why)."""
    if status is None:
        return _verdict(check, False, 'no response: %s' % (_last_line(body) or 'unknown error'))
    if status not in check['status']:
        return _verdict(check, False, 'status %s (expected %s)' % (status, ' or '.join(str(s) for s in check['status'])))
    if check['body_contains'] is not None and check['body_contains'] not in (body or ''):
        return _verdict(check, False, 'status %s, but the body does not contain %r' % (status, check['body_contains']))
    return _verdict(check, True, 'status %s' % status)


def tcp_verdict(check, connected, error=None):
    """Whether a tcp check passed (``connected``: the connection was accepted; ``error``: why not)."""
    where = '%s:%d' % (check['host'] or 'the gated host', check['port'])
    if connected:
        return _verdict(check, True, '%s accepts connections' % where)
    return _verdict(check, False, '%s refused or timed out%s' % (where, ': %s' % error if error else ''))


def gate_verdict(verdicts, host=None, when=None):
    """{'healthy', 'failed', 'reason'} of one attempt's check verdicts: healthy when every check passed; the reason
    names the host (``host``), the moment (``when``: 'before' or 'after' its change) and each failed check."""
    failed = [v for v in verdicts if not v['healthy']]
    where = ' '.join(part for part in ('on %s' % host if host else '', '%s the change' % when if when else '') if part)
    if not verdicts:
        return {'healthy': False, 'failed': [], 'reason': 'health gate %s: no check ran' % where if where else
                'health gate: no check ran'}
    if failed:
        return {'healthy': False, 'failed': [v['check'] for v in failed],
                'reason': 'health gate failed%s: %s' % (' ' + where if where else '',
                                                        '; '.join('%s: %s' % (v['check'], v['reason'])
                                                                  for v in failed))}
    return {'healthy': True, 'failed': [],
            'reason': 'health gate passed%s: %s' % (' ' + where if where else '',
                                                    '; '.join('%s: %s' % (v['check'], v['reason'])
                                                              for v in verdicts))}
