# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: config_files_absent
short_description: The M(iotune.storage.config_files) entries that remove files
version_added: 0.1.0
description:
  - One entry C({path, state=absent}) per path, in their order - what a role that is turned off gives
    M(iotune.storage.config_files) to remove what it installed. Logic in C(plugins/plugin_utils/role_reports.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The paths.
    type: list
    elements: str
    required: true
"""

EXAMPLES = r"""
- name: Remove the metrics files
  iotune.storage.config_files:
    files: "{{ metrics_file_globs | iotune.storage.config_files_absent }}"
"""

RETURN = r"""
_value:
  description: The entries, C(path) and C(state) V(absent).
  type: list
  elements: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import role_reports


def config_files_absent(paths):
    if not isinstance(paths, (list, tuple)):
        raise AnsibleFilterError('config_files_absent expects a list of paths, got %r' % (paths,))
    return role_reports.absent_entries(paths)


class FilterModule(object):
    def filters(self):
        return {'config_files_absent': config_files_absent}
