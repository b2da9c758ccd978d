# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: md_identity
short_description: The forms of an md array's identity (short name, device, name regexp, udev glob, UUID)
version_added: 0.1.0
description:
  - Takes an md array name, with or without the C(homehost:) prefix that mdadm records in the superblock,
    and returns every form the collection matches it in, from one place (the mdadm module utils).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: Array name (C(data)) or superblock name (C(host:data)).
    type: str
    required: true
  uuid:
    description: md UUID in any of mdadm's, blkid's or the kernel's forms.
    type: str
"""

EXAMPLES = r"""
- name: Find the readahead facts of array data
  ansible.builtin.set_fact:
    data_md: >-
      {{ ansible_facts.iotune_readahead.values() | selectattr('md') | selectattr('md.name', 'string')
         | selectattr('md.name', 'match', ('data' | iotune.storage.md_identity).name_regexp ~ '$') | list }}
"""

RETURN = r"""
_value:
  description: The identity.
  type: dict
  contains:
    name:
      description: Name without the C(homehost:) prefix.
      type: str
    device:
      description: C(/dev/md/NAME).
      type: str
    name_regexp:
      description: Unanchored regular expression of the superblock name in both forms.
      type: str
    udev_name_glob:
      description: udev glob of C(ENV{MD_NAME}) in both forms (C(data|*:data)).
      type: str
    uuid:
      description: O(uuid) in mdadm's colon form, or null.
      type: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.module_utils import mdadm
from ansible_collections.iotune.storage.plugins.module_utils.rules import valid_md_name


def md_identity(name, uuid=None):
    if not isinstance(name, str) or not valid_md_name(mdadm.short_name(name)):
        raise AnsibleFilterError('md_identity expects an md array name (1-32 letters, digits, ".", "_", "-"), '
                                 'got %r' % (name,))
    return mdadm.identity(name, uuid)


class FilterModule(object):
    def filters(self):
        return {'md_identity': md_identity}
