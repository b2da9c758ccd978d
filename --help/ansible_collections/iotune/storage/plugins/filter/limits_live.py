# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: limits_live
short_description: Whether systemd uses the planned limits of the services whose limits drop-in a run wrote
version_added: 0.1.0
description:
  - The xfs role's live check of the limits drop-ins (docs/profiles.md, "Limits"). Given the planned limits per unit
    and the role's registered drop-in write, returns which units to read (those whose limits drop-in the run wrote;
    none in check mode, which wrote nothing), the C(systemctl show) command that reads them, and, given that
    command's registered result, the limits systemd does not report as planned.
  - The comparison is C(plugins/module_utils/service_limits.py)'s C(live_problems), the one the audit and the metrics
    collector use. A unit systemd does not know (not installed yet) is no problem; its drop-in applies once it is.
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The limits per unit (C(xfs_service_limits), the tune plan's C(limits)).
    type: dict
    required: true
  written:
    description: The registered result of the role's C(iotune.storage.config_files) call (its C(changed_paths)).
    type: raw
  shown:
    description: The registered result of the C(systemctl show) command (C(argv) of the first call); null before it ran.
    type: raw
  check_mode:
    description: C(ansible_check_mode); then nothing is read.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Read the services' limits as systemd reports them
  ansible.builtin.command:
    argv: "{{ (xfs_service_limits | iotune.storage.limits_live(written=xfs_dropins)).argv }}"
  when: (xfs_service_limits | iotune.storage.limits_live(written=xfs_dropins)).read
  register: xfs_limits_shown
- name: Fail on a limit systemd does not use
  ansible.builtin.assert:
    that: (xfs_service_limits | iotune.storage.limits_live(written=xfs_dropins, shown=xfs_limits_shown)).problems | length == 0
"""

RETURN = r"""
_value:
  description: What to read and what was found.
  type: dict
  contains:
    units:
      description: The units whose limits drop-in the run wrote and that have planned limits.
      type: list
      elements: str
    read:
      description: Whether to run C(argv).
      type: bool
    argv:
      description: C(systemctl show) of those units' limits (and their soft values and C(LoadState)).
      type: list
      elements: str
    problems:
      description: Each limit systemd does not report as planned (empty before C(shown) is given).
      type: list
      elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.module_utils import service_limits


def limits_live(limits, written=None, shown=None, check_mode=False):
    if not isinstance(limits, dict):
        raise AnsibleFilterError('limits_live expects the limits per unit, got %r' % (limits,))
    changed = (written or {}).get('changed_paths') or [] if isinstance(written, dict) else []
    units = sorted(set(u for u in (service_limits.unit_of(p) for p in changed) if u and limits.get(u)))
    wanted = {}
    for unit in units:
        wanted[unit], problems = service_limits.validate(limits[unit], 'limits of %s' % unit)
        if problems:
            raise AnsibleFilterError('limits_live: %s' % '; '.join(problems))
    result = {'units': units, 'read': bool(units) and not check_mode,
              'argv': service_limits.show_argv(wanted) if units else [], 'problems': []}
    if isinstance(shown, dict) and shown.get('stdout') is not None and result['read']:
        if shown.get('rc', 0) != 0:
            result['problems'] = ['systemctl show failed (%s): %s' % (shown.get('rc'), shown.get('stderr') or '')]
            return result
        try:
            blocks = service_limits.parse_show(shown['stdout'], units)
        except service_limits.LimitsError as e:
            result['problems'] = [str(e)]
            return result
        for unit in units:
            result['problems'].extend(service_limits.live_problems(unit, wanted[unit], blocks[unit]))
    return result


class FilterModule(object):
    def filters(self):
        return {'limits_live': limits_live}
