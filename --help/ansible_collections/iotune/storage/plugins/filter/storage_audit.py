# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters of the fleet audit (logic in plugins/plugin_utils/audit.py); docs in one sidecar per filter."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import audit


def storage_audit_compare(facts, plan, host=None, unresolved=None, observed=None):
    try:
        return audit.compare(facts, plan or {}, host, unresolved=unresolved, observed=observed)
    except (ValueError, KeyError, TypeError) as e:
        raise AnsibleFilterError('storage_audit_compare: %s' % e)


def storage_audit_fleet(results, targets=None, generated_at=None, run=None):
    """``results``: {host: compare() result or {'error': msg}}; ``targets`` without a result are unreachable."""
    if not isinstance(results, dict):
        raise AnsibleFilterError('storage_audit_fleet: the input must be a dict of host name to result')
    entries = []
    for host in sorted(set(results) | set(targets or [])):
        result = results.get(host)
        if not result:
            entries.append(audit.host_entry(host, unreachable='no audit result (unreachable, or not reached)'))
        elif result.get('verdict') in audit.VERDICTS:
            entry = dict(result)
            entry['host'] = host
            entries.append(entry)
        elif result.get('unreachable'):
            entries.append(audit.host_entry(host, unreachable=str(result['unreachable'])))
        else:
            entries.append(audit.host_entry(host, error=str(result.get('error') or 'no audit result')))
    return audit.fleet(entries, generated_at=generated_at, run=run)


def storage_audit_render(doc, fmt='json'):
    try:
        return audit.render(doc, fmt)
    except (ValueError, KeyError, TypeError) as e:
        raise AnsibleFilterError('storage_audit_render: %s' % e)


def storage_audit_result(read, plan=None, host=None, unresolved=None, observed=None, failed=False, device_timeout=None):
    """``read``: the registered storage_audit call, or with ``failed`` the rescue's ansible_failed_result."""
    if not isinstance(read, dict):
        raise AnsibleFilterError('storage_audit_result: the input must be a registered result, got %r' % (read,))
    if failed:
        return audit.failed_result(read)
    try:
        return audit.host_result(read, plan, host=host, unresolved=unresolved, observed=observed,
                                 device_timeout=device_timeout)
    except (ValueError, KeyError, TypeError) as e:
        raise AnsibleFilterError('storage_audit_result: %s' % e)


def storage_audit_messages(doc, report_dir):
    try:
        return audit.report_messages(doc, report_dir)
    except (ValueError, KeyError, TypeError) as e:
        raise AnsibleFilterError('storage_audit_messages: %s' % e)


class FilterModule(object):
    def filters(self):
        return {'storage_audit_compare': storage_audit_compare, 'storage_audit_fleet': storage_audit_fleet,
                'storage_audit_render': storage_audit_render, 'storage_audit_result': storage_audit_result,
                'storage_audit_messages': storage_audit_messages}
