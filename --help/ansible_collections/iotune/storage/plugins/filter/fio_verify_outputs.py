# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: fio_verify_outputs
short_description: What the fio_verify role writes and shows from its report
version_added: 0.1.0
description:
  - From the report of P(iotune.storage.fio_verify_report#filter) - the dict of the report file (the report with the
    host and the run's settings), the summary lines (the device, the repeat count and the verdict, the table, the page
    cache note) and the results per directory a host keeps (this directory's report without its C(jobs) and
    C(table), added to O(by_directory)). Logic in C(plugins/plugin_utils/role_reports.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The report (C(fio_verify_results)).
    type: dict
    required: true
  host:
    description: The host (C(inventory_hostname)).
    type: str
    required: true
  directory:
    description: The measured directory.
    type: str
    required: true
  repeat:
    description: Runs per job.
    type: int
    required: true
  noise_max:
    description: The noise limit of the run.
    type: raw
    required: true
  threshold_action:
    description: What a missed threshold does.
    type: str
    required: true
  by_directory:
    description: The results per directory kept so far (C(fio_verify_results_by_directory)); none, empty.
    type: dict
"""

EXAMPLES = r"""
- name: Show the summary
  ansible.builtin.debug:
    msg: >-
      {{ (fio_verify_results | iotune.storage.fio_verify_outputs(host=inventory_hostname, directory=fio_verify_directory,
          repeat=fio_verify_repeat, noise_max=fio_verify_noise_max, threshold_action=fio_verify_threshold_action)).summary }}
"""

RETURN = r"""
_value:
  description: The outputs.
  type: dict
  contains:
    document:
      description: The report file's dict (the report with C(host), C(repeat), C(noise_max), C(threshold_action)).
      type: dict
    summary: {description: The lines the role shows., type: list, elements: str}
    by_directory: {description: O(by_directory) with this directory's results., type: dict}
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import role_reports


def fio_verify_outputs(results, host, directory, repeat, noise_max, threshold_action, by_directory=None):
    if not isinstance(results, dict):
        raise AnsibleFilterError('fio_verify_outputs expects the report of fio_verify_report')
    return role_reports.fio_outputs(results, host, directory, repeat, noise_max, threshold_action, by_directory)


class FilterModule(object):
    def filters(self):
        return {'fio_verify_outputs': fio_verify_outputs}
