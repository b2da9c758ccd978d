# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: observe_report
short_description: The before and after windows of io_observe and their comparison
version_added: 0.1.0
description:
  - Takes two registered results of M(iotune.storage.io_observe), the window before a tuning change and the window
    after it, and returns the report the role P(iotune.storage.tune#role) writes to
    C(iotune-reports/<host>/observe.json) with C(iotune_observe_seconds).
  - C(comparison) has C(bytes_per_major_fault) and C(avg_read_kib) (each C(before), C(after) and C(ratio), before
    divided by after), C(basis) (the figure the verdict follows), C(verdict) (V(improved) at 2x or more less,
    V(no change) within 0.5 to 2x, V(worse), or V(too little I/O) when either window saw too little to judge, never a
    pass) and C(summary), one line such as C(device read bytes per major fault 512 KiB -> 8.2 KiB, 63x less; average
    read request 505 -> 8 KiB).
  - The arithmetic is the module's own (C(plugins/module_utils/io_observe.py)); docs/observe.md explains the figures.
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The registered result of the window before the change.
    type: dict
    required: true
  after:
    description: The registered result of the window after the change.
    type: dict
    required: true
  check_mode:
    description: C(ansible_check_mode). The report then says that nothing was tuned between the windows.
    type: bool
    default: false
  host:
    description: The host's name in the report (C(inventory_hostname)).
    type: str
"""

EXAMPLES = r"""
- name: Compare the two windows
  ansible.builtin.set_fact:
    observed: "{{ observe_before | iotune.storage.observe_report(observe_after, check_mode=ansible_check_mode,
                                                                 host=inventory_hostname) }}"

- name: Say it
  ansible.builtin.debug:
    msg: "{{ observed.comparison.verdict }}: {{ observed.comparison.summary }}"
"""

RETURN = r"""
_value:
  description:
    - C(host), C(check_mode), C(note) (null, or what a check run means), C(before) and C(after) (the io_observe
      result keys of each window) and C(comparison).
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import observe


def observe_report(before, after, check_mode=False, host=None):
    failure = None
    try:
        return observe.report(before, after, check_mode=check_mode, host=host)
    except observe.ObserveReportError as exc:
        failure = exc
    raise AnsibleFilterError(str(failure))


class FilterModule(object):
    def filters(self):
        return {'observe_report': observe_report}
