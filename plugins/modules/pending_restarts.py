#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
module: pending_restarts
short_description: Record on the host which database services owe a restart after a tune run
version_added: 0.1.0
description:
  - With C(restart) V(never) in the restart policy (docs/rolling.md), a change that needs a restart (THP for MongoDB,
    a limits drop-in, a data directory newly mounted) leaves the running service on the old setting. This module
    keeps, on the host, which unit owes a restart, since when and why, so that the audit (M(iotune.storage.storage_audit))
    and the metrics collector report it until the restart is done.
  - A restart is owed by the process that ran when the change was made; the record keeps its systemd C(InvocationID).
    It is done, whoever restarted the unit, once the unit runs with another invocation or is not running. Each write
    drops the entries that are done and adds the units of O(pending) that are running; a unit already owed keeps its
    C(since) and gains the new reasons.
  - The file is JSON, root only (0600), replaced atomically (temporary file, fsync, rename, fsync of the directory).
    Logic in C(plugins/module_utils/restart_record.py).
author:
  - iotune.storage contributors (@iotune)
options:
  pending:
    description:
      - The units this run owes a restart of, each C(unit) and C(reasons) (the restart decision's change lines). A
        unit that is not running owes nothing (its next start uses the new settings) and is left out.
      - An empty list only drops the entries that are done.
    type: list
    elements: dict
    required: true
  path:
    description: The record's path.
    type: path
    default: /var/lib/iotune-storage/pending-restarts.json
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.platform
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
    details: The record's text before and after.
"""

EXAMPLES = r"""
- name: Keep the restarts this run did not make (restart policy never)
  iotune.storage.pending_restarts:
    pending:
      - unit: mongod.service
        reasons: ["thp (THP enabled always, profile never)"]
"""

RETURN = r"""
pending:
  description: The entries the record holds now (in check mode, would hold), each C(unit), C(invocation_id), C(since)
    (UTC, ISO 8601) and C(reasons).
  returned: always
  type: list
  elements: dict
path:
  description: The record's path.
  returned: always
  type: str
"""

import datetime

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.iotune.storage.plugins.module_utils import restart_record
from ansible_collections.iotune.storage.plugins.module_utils.module_call import result_or_fail


def validated(pending):
    """The O(pending) entries as {'unit', 'reasons'}; ValueError naming the bad one."""
    found = []
    for index, item in enumerate(pending):
        unit = item.get('unit')
        reasons = item.get('reasons') or []
        if not isinstance(unit, str) or not unit.strip() or any(c.isspace() for c in unit.strip()):
            raise ValueError('pending[%d].unit must be a unit name, got %r' % (index, unit))
        if not isinstance(reasons, list) or not all(isinstance(r, str) for r in reasons):
            raise ValueError('pending[%d].reasons must be a list of strings, got %r' % (index, reasons))
        unknown = sorted(set(item) - {'unit', 'reasons'})
        if unknown:
            raise ValueError('pending[%d]: unknown keys %s (known: unit, reasons)' % (index, ', '.join(unknown)))
        found.append({'unit': unit.strip(), 'reasons': reasons})
    return found


def now():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()


def update(module, path, pending):
    """(changed, record, before text, after text); writes unless in check mode."""
    before_record, error = restart_record.read(path)
    if error:
        raise ValueError('%s (remove it to start a new record)' % error)
    units = [e['unit'] for e in (before_record or {}).get('pending') or []] + [p['unit'] for p in pending]
    states = restart_record.unit_states(module.run_command, sorted(set(units)))
    record = restart_record.merged(before_record, pending, states, now())
    before = restart_record.text_of(before_record) if before_record is not None else ''
    after = restart_record.text_of(record)
    changed = before != after and (before_record is not None or bool(record['pending']))
    if changed and not module.check_mode:
        restart_record.write_atomic(path, after)
    return changed, record, before, after


def main():
    module = AnsibleModule(
        argument_spec=dict(
            pending=dict(type='list', elements='dict', required=True),
            path=dict(type='path', default=restart_record.PATH),
        ),
        supports_check_mode=True,
    )
    path = module.params['path']
    changed, record, before, after = result_or_fail(
        module, lambda: update(module, path, validated(module.params['pending'])), (ValueError, OSError),
        prefix='pending restarts: ', path=path)
    result = dict(changed=changed, pending=record['pending'], path=path)
    if module._diff and changed:
        result['diff'] = {'before': before, 'after': after, 'before_header': path, 'after_header': path}
    module.exit_json(**result)


if __name__ == '__main__':
    main()
