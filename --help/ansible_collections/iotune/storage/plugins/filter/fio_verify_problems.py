# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: fio_verify_problems
short_description: What is wrong with a fio_verify job set, by the tune plan's own check
version_added: 0.1.0
description:
  - Checks the fio_verify role's input the way the tune plan checks a profile's C(fio_verify_jobs) and
    C(fio_verify_thresholds) (C(plugins/plugin_utils/plan.py), C(fio_verify_problems), the one home of these
    checks) - the directory is set, every job as M(iotune.storage.fio) checks it (its argument spec and its refusals
    of C(extra)), job names unique, every key of the thresholds a job name.
  - The role fails on the first task, before it installs fio, when the list is not empty.
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: C(fio_verify_jobs), a list of dicts with a C(name).
    type: raw
    required: true
  thresholds:
    description: C(fio_verify_thresholds), a dict keyed by job name.
    type: raw
    required: true
  directory:
    description: C(fio_verify_directory).
    type: raw
    required: true
"""

EXAMPLES = r"""
- name: Check the job set
  ansible.builtin.assert:
    that: problems | length == 0
    fail_msg: "{{ problems | join('; ') }}"
  vars:
    problems: "{{ fio_verify_jobs | iotune.storage.fio_verify_problems(fio_verify_thresholds, fio_verify_directory) }}"
"""

RETURN = r"""
_value:
  description: One sentence per problem (empty when the job set is valid), each naming C(fio_verify_jobs),
    C(fio_verify_thresholds) or C(fio_verify_directory).
  type: list
  elements: str
"""

from ansible_collections.iotune.storage.plugins.plugin_utils import plan


def fio_verify_problems(jobs, thresholds, directory):
    problems = [] if isinstance(directory, str) and directory else ['fio_verify: fio_verify_directory must be set']
    return problems + plan.fio_verify_problems(jobs, thresholds, 'fio_verify')


class FilterModule(object):
    def filters(self):
        return {'fio_verify_problems': fio_verify_problems}
