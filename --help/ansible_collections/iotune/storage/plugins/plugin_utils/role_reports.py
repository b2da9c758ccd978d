# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The values the readahead_sweep, fio_verify, metrics and stage roles built in Jinja (issue 24): the sweep's report
and its summary lines (filters readahead_sweep_report, readahead_sweep_summary), fio_verify's report file, summary
lines and results per directory (filter fio_verify_outputs), a stage's result whether its call ran or was skipped
(filter stage_result), the config_files entries that remove files (filter config_files_absent). The values are those
of the Jinja they replace (tests/unit/roles/test_role_reports_templar.py renders both)."""

from __future__ import annotations

# what the readahead sweep's recommendation says when noisy points lie inside the tolerance band
NOISY_NOTE = ' (noisy points inside the tolerance band: repeat the sweep)'


def _text(value):
    """A value as Jinja's ``~`` writes it."""
    return value if isinstance(value, str) else str(value)


def sweep_report(table, results, host, directory, before, job, repeat):
    """The sweep's table (readahead_sweep_table's dict) with the report's fields: the host, the directory, the device
    and its readahead before the sweep (``before``: the fio module's read, its ``read_ahead``), the job, the repeat
    count and the fio version of the first result."""
    report = dict(table)
    report.update({'host': host, 'directory': directory, 'device': before['read_ahead']['device'],
                   'previous_read_ahead_kb': before['read_ahead']['previous'], 'job': job, 'repeat': repeat,
                   'fio_version': results[0]['fio_version']})
    return report


def sweep_summary(report, host, directory):
    """The lines the role shows: the host, directory and device, the table, the recommendation."""
    recommendation = report['recommendation']
    head = '%s: %s on %s (read_ahead_kb was %s, restored)' % (
        _text(host), _text(directory), _text(report['device']), _text(report['previous_read_ahead_kb']))
    last = 'recommendation: ' + _text(recommendation['reason']) + (NOISY_NOTE if recommendation['noisy'] else '')
    return [head] + list(report['table']) + [last]


def fio_outputs(results, host, directory, repeat, noise_max, threshold_action, by_directory):
    """{document, summary, by_directory}: the report file's dict (the results with the host and the run's settings),
    the lines the role shows, and ``by_directory`` with this directory's results (without their jobs and table)."""
    document = dict(results)
    document.update({'host': host, 'repeat': repeat, 'noise_max': noise_max, 'threshold_action': threshold_action})
    head = '%s: %s on %s, median of %s runs, verdict %s' % (
        _text(host), _text(directory), _text(results['device']), _text(repeat), _text(results['verdict']))
    kept = dict(by_directory or {})
    kept[directory] = dict(results, jobs=[], table=[])
    return {'document': document, 'summary': [head] + list(results['table']) + [results['page_cache_note']],
            'by_directory': kept}


def stage_result(sync, called, first=False):
    """What a stage role keeps: its call's registered result, or, when stage_skip skipped the call, what the skipped
    task would have registered (``first``: its first result, for a call without a loop)."""
    if not sync['skip']:
        return called
    return sync['registered']['results'][0] if first else sync['registered']


def absent_entries(paths):
    """config_files entries that remove each of ``paths``."""
    return [{'path': path, 'state': 'absent'} for path in paths]
