# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: ephemeral_files
short_description: Every file the ephemeral role writes, with its content
version_added: 0.1.0
description:
  - Builds the files of the P(iotune.storage.ephemeral#role) role from its arrays and their layout (the filter
    P(iotune.storage.ephemeral_layout#filter)), in this order; the boot program, then per array its JSON spec and its boot unit,
    then the drop-in of each service.
  - The role renders the two templates, which a filter cannot, and passes their text (O(program), O(units)); the
    specs and the drop-ins are made here. Logic in C(plugins/plugin_utils/ephemeral_files.py); the options field of
    the fstab line is that of C(plugins/module_utils/fstab.py) (as the filter P(iotune.storage.fstab_options#filter)).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The role's C(ephemeral_arrays).
    type: list
    elements: dict
    required: true
  layout:
    description: The result of P(iotune.storage.ephemeral_layout#filter) for the same arrays, with the mount units.
    type: dict
    required: true
  lib_dir:
    description: The directory of the boot program (C(ephemeral_lib_dir)).
    type: path
    required: true
  spec_dir:
    description: The directory of the specs (C(ephemeral_spec_dir)).
    type: path
    required: true
  settings:
    description: What every spec holds the same, C(metadata), C(homehost), C(device_timeout), C(conf_path) and
      C(device_wait) (an integer).
    type: dict
    required: true
  program:
    description: The text of the boot program; V(null) without arrays (it is not written then).
    type: str
  units:
    description: The text of the boot unit of each array, in the order of the arrays.
    type: list
    elements: str
    required: true
"""

EXAMPLES = r"""
- name: The files of the ephemeral role (as roles/ephemeral/vars/main.yml builds them)
  ansible.builtin.debug:
    msg: >-
      {{ ephemeral_arrays | iotune.storage.ephemeral_files(layout=ephemeral_layout, lib_dir=ephemeral_lib_dir,
         spec_dir=ephemeral_spec_dir, program=ephemeral_program, units=ephemeral_unit_texts,
         settings={'metadata': '1.2', 'homehost': 'any', 'device_timeout': '90s', 'conf_path': '/etc/mdadm/mdadm.conf',
                   'device_wait': 90}) }}
"""

RETURN = r"""
_value:
  description: One entry per file, C(dest) and C(content), and C(mode) (V(0755)) for the boot program only.
  type: list
  elements: dict
"""

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.collections import is_sequence

from ansible_collections.iotune.storage.plugins.module_utils import fstab
from ansible_collections.iotune.storage.plugins.plugin_utils import ephemeral_files as ephemeral

SETTINGS = ('metadata', 'homehost', 'device_timeout', 'conf_path', 'device_wait')


def ephemeral_files(arrays, layout, lib_dir, spec_dir, settings, units, program=None):
    if not is_sequence(arrays) or not all(isinstance(a, dict) for a in arrays):
        raise AnsibleFilterError('ephemeral_files expects a list of arrays, got %r' % (arrays,))
    if not isinstance(layout, dict) or 'mount_unit_of' not in layout or 'dropins' not in layout:
        raise AnsibleFilterError('ephemeral_files: layout must be the result of ephemeral_layout, got %r' % (layout,))
    if not isinstance(settings, dict) or any(k not in settings for k in SETTINGS):
        raise AnsibleFilterError('ephemeral_files: settings must hold %s, got %r' % (', '.join(SETTINGS), settings))
    if not isinstance(settings['device_wait'], int):
        raise AnsibleFilterError('ephemeral_files: device_wait must be an integer, got %r' % (settings['device_wait'],))
    if not is_sequence(units) or len(units) != len(arrays):
        raise AnsibleFilterError('ephemeral_files: units must be the text of one unit per array, got %r' % (units,))
    if arrays and not isinstance(program, str):
        raise AnsibleFilterError('ephemeral_files: program must be the text of the boot program, got %r' % (program,))
    try:
        return ephemeral.files(arrays, layout, lib_dir, spec_dir, settings, program, units)
    except fstab.OptionsError as e:
        raise AnsibleFilterError('ephemeral_files: %s' % e)
    except KeyError as e:
        raise AnsibleFilterError('ephemeral_files: an array lacks %s, or its mount point has no mount unit' % e)


class FilterModule(object):
    def filters(self):
        return {'ephemeral_files': ephemeral_files}
