# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The observation report of the tune role (filter observe_report; issue 26, docs/observe.md).

The two io_observe windows (before the block-tuning stage, after the block-tuning and kernel stages) as the role
registered them, reduced to the module's own keys, and their comparison (module_utils/io_observe.compare, the one
home of the arithmetic and the verdict), for ``iotune-reports/<host>/observe.json`` and the summary line.
"""

from __future__ import annotations

from ansible_collections.iotune.storage.plugins.module_utils import io_observe

# what io_observe returns (its RETURN); the rest of a registered result (changed, invocation...) is Ansible's
WINDOW_KEYS = ('seconds', 'interval', 'samples', 'devices', 'host', 'processes', 'appeared', 'disappeared', 'notes',
               'verdict', 'verdict_reason', 'thresholds', 'spread', 'cost', 'unit')
CHECK_NOTE = 'check mode: nothing was tuned between the two windows, so they measure the same settings'


class ObserveReportError(Exception):
    """A window is not an io_observe result."""


def window_of(result, name):
    """The io_observe keys of a registered result; ObserveReportError for a skipped or failed task."""
    if not isinstance(result, dict) or result.get('skipped') or result.get('failed') or 'host' not in result:
        raise ObserveReportError('observe_report: the %s window is not an io_observe result (skipped or failed?): %s'
                                 % (name, _short(result)))
    return dict((key, result.get(key)) for key in WINDOW_KEYS)


def _short(value):
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + '...'


def report(before, after, check_mode=False, host=None):
    """{host, check_mode, note, before, after, comparison} of two registered io_observe results."""
    windows = {'before': window_of(before, 'before'), 'after': window_of(after, 'after')}
    return {
        'host': host,
        'check_mode': bool(check_mode),
        'note': CHECK_NOTE if check_mode else None,
        'before': windows['before'],
        'after': windows['after'],
        'comparison': io_observe.compare(windows['before'], windows['after']),
    }


def summary_line(observe_report):
    """The tune summary's sentence of an observation report; None without one."""
    if not isinstance(observe_report, dict) or 'comparison' not in observe_report:
        return None
    comparison = observe_report['comparison']
    verdict = '' if comparison['verdict'] == io_observe.TOO_LITTLE_TO_COMPARE else comparison['verdict'] + '; '
    return 'observed reads (%s s before and after the tuning): %s%s%s' % (
        _number(observe_report['before'].get('seconds')), verdict, comparison['summary'],
        ' (%s)' % CHECK_NOTE if observe_report.get('check_mode') else '')


def _number(value):
    return '%d' % round(value) if isinstance(value, (int, float)) else '?'
