# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: ephemeral_layout
short_description: What the ephemeral role installs for its arrays, named from the arrays alone
version_added: 0.1.0
description:
  - Takes the arrays of the P(iotune.storage.ephemeral#role) role and returns the names of everything it manages
    for them (the boot unit of each array, the drop-in of each service, every path it keeps, and the mount unit of
    each mount point). Anything else it finds with its names is stale.
  - No template is rendered and no file read; the filters P(iotune.storage.ephemeral_files#filter) and
    P(iotune.storage.ephemeral_sync#filter) take the result. Logic in C(plugins/plugin_utils/ephemeral_files.py).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The role's C(ephemeral_arrays) (C(name), C(mountpoint), C(services)).
    type: list
    elements: dict
    required: true
  spec_dir:
    description: The directory of the JSON specs (C(ephemeral_spec_dir)).
    type: path
    required: true
  dropin_name:
    description: The file name of the drop-ins (C(ephemeral_dropin_name)).
    type: str
    required: true
  mount_units:
    description: The mount unit names, one per array in order, separated by white space (the output of
      C(systemd-escape --path --suffix=mount) of the mount points); V('') before it ran.
    type: str
    default: ''
"""

EXAMPLES = r"""
- name: The boot units and drop-ins of one array
  ansible.builtin.debug:
    msg: >-
      {{ [{'name': 'data', 'mountpoint': '/var/lib/cassandra', 'services': ['cassandra.service']}]
         | iotune.storage.ephemeral_layout(spec_dir='/etc/iotune-storage/ephemeral',
                                           dropin_name='iotune-storage-ephemeral.conf',
                                           mount_units='var-lib-cassandra.mount') }}
  # units: [iotune-ephemeral-data.service]; services: {cassandra.service: [iotune-ephemeral-data.service]}
  # paths: the unit, /etc/iotune-storage/ephemeral/data.json, the drop-in, the local-fs.target.wants link
"""

RETURN = r"""
_value:
  description: The layout.
  type: dict
  contains:
    units:
      description: The boot unit of each array (C(iotune-ephemeral-NAME.service)), in the order of the arrays.
      type: list
      elements: str
    services:
      description: The boot units of the arrays of each service, by service, in the order the services first appear.
      type: dict
    paths:
      description: Every file the role manages now (units, specs, drop-ins, C(local-fs.target.wants) links).
      type: list
      elements: path
    dropins:
      description: The drop-in of each service (C(dest), C(content)), C(Requires=) and C(After=) its boot units.
      type: list
      elements: dict
    mount_unit_of:
      description: The mount unit of each mount point, from O(mount_units).
      type: dict
"""

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.collections import is_sequence

from ansible_collections.iotune.storage.plugins.plugin_utils import ephemeral_files


def ephemeral_layout(arrays, spec_dir, dropin_name, mount_units=''):
    if not is_sequence(arrays) or not all(isinstance(a, dict) for a in arrays):
        raise AnsibleFilterError('ephemeral_layout expects a list of arrays, got %r' % (arrays,))
    if not isinstance(mount_units, str):
        raise AnsibleFilterError('ephemeral_layout: mount_units must be a string, got %r' % (mount_units,))
    try:
        return ephemeral_files.layout(arrays, spec_dir, dropin_name, mount_units)
    except KeyError as e:
        raise AnsibleFilterError('ephemeral_layout: an array lacks %s' % e)
    except TypeError as e:
        raise AnsibleFilterError('ephemeral_layout: the services of an array must be a list (%s)' % e)


class FilterModule(object):
    def filters(self):
        return {'ephemeral_layout': ephemeral_layout}
