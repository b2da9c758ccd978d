# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: report_dir
short_description: The controller directory the collection writes its reports to
version_added: 0.1.0
description:
  - Returns its input (C(iotune_report_dir)) when it is given, else C(iotune-reports) under the directory
    C(ansible-playbook) was started from (C($PWD), else the current directory).
  - One home for that default, shared by the tune, audit, fio_verify and readahead_sweep roles and the facts
    playbook (each host's reports go to a directory of its name below it).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: C(iotune_report_dir), or null (C(iotune_report_dir | default(none))) for the default.
    type: path
    required: true
"""

EXAMPLES = r"""
- name: Where the reports go
  ansible.builtin.set_fact:
    my_report_dir: "{{ iotune_report_dir | default(none) | iotune.storage.report_dir }}"
"""

RETURN = r"""
_value:
  description: An absolute or relative path on the controller.
  type: path
"""

import os

from ansible.errors import AnsibleFilterError

DEFAULT_NAME = 'iotune-reports'


def report_dir(value, cwd=None):
    """``value`` when given, else iotune-reports under ``cwd`` ($PWD, else the current directory)."""
    if value is not None and not isinstance(value, str):
        raise AnsibleFilterError('report_dir: iotune_report_dir must be a path, got %r' % (value,))
    if value:
        return value
    return os.path.join(cwd or os.environ.get('PWD') or os.getcwd(), DEFAULT_NAME)


class FilterModule(object):
    def filters(self):
        return {'report_dir': report_dir}
