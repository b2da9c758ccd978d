# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: ephemeral_sync
short_description: Which boot units the ephemeral role enables and which files of an earlier run it removes
version_added: 0.1.0
description:
  - Compares the files the P(iotune.storage.ephemeral#role) role found (its two find tasks, or the caller's read)
    with its layout (the filter P(iotune.storage.ephemeral_layout#filter)).
  - Which files to write is the filter P(iotune.storage.copy_changes#filter). Logic in
    C(plugins/plugin_utils/ephemeral_files.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The file states found (each with its C(path)).
    type: list
    elements: dict
    required: true
  layout:
    description: The result of P(iotune.storage.ephemeral_layout#filter).
    type: dict
    required: true
  spec_dir:
    description: The directory of the specs (C(ephemeral_spec_dir)).
    type: path
    required: true
"""

EXAMPLES = r"""
- name: Enable the boot units that lack their link
  ansible.builtin.file:
    src: "/etc/systemd/system/{{ item }}"
    dest: "/etc/systemd/system/local-fs.target.wants/{{ item }}"
    state: link
  loop: "{{ (ephemeral_found | iotune.storage.ephemeral_sync(ephemeral_layout, spec_dir=ephemeral_spec_dir)).to_enable }}"
"""

RETURN = r"""
_value:
  description: What to enable and what to remove.
  type: dict
  contains:
    to_enable:
      description: The boot units without their link in C(/etc/systemd/system/local-fs.target.wants), in order.
      type: list
      elements: str
    stale:
      description: The paths found under C(/etc/systemd/system/) or the spec directory that the layout does not
        name (units, wants links, specs and drop-ins of arrays that are no longer ephemeral), in the order found.
      type: list
      elements: path
"""

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.collections import is_sequence

from ansible_collections.iotune.storage.plugins.plugin_utils import ephemeral_files


def ephemeral_sync(found, layout, spec_dir):
    if not is_sequence(found) or not all(isinstance(f, dict) and 'path' in f for f in found):
        raise AnsibleFilterError('ephemeral_sync: the input must be the file states found (dicts with a path), got %r'
                                 % (found,))
    if not isinstance(layout, dict) or 'units' not in layout or 'paths' not in layout:
        raise AnsibleFilterError('ephemeral_sync: layout must be the result of ephemeral_layout, got %r' % (layout,))
    return ephemeral_files.sync(found, layout, spec_dir)


class FilterModule(object):
    def filters(self):
        return {'ephemeral_sync': ephemeral_sync}
