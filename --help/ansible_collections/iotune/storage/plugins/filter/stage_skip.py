# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: stage_skip
short_description: Whether a tune stage skips its module calls on the preflight's read
version_added: 0.1.0
description:
  - A stage skips only when M(iotune.storage.storage_preflight) found it in sync (C(stages_read)), nothing earlier in
    the run changed the host (O(stale) is empty) and the options of its calls (the input, from the filter
    P(iotune.storage.stage_calls#filter)) are exactly those the preflight checked. Any other case calls the module
    as before (C(plugins/plugin_utils/stages.py)).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The options of the stage's calls now.
    type: list
    elements: dict
    required: true
  read:
    description: The preflight's C(stages_read) of this stage; V(null) when it read none.
    type: dict
    required: true
  items:
    description: The loop items of the stage's task, one per call (they go into the C(item) of each result).
    type: list
    elements: raw
  stale:
    description: What changed the host earlier in this run (each makes the read stale); empty when nothing did.
    type: list
    elements: str
"""

EXAMPLES = r"""
- name: Decide on the kernel stage's read
  ansible.builtin.debug:
    msg: "{{ kernel_calls | iotune.storage.stage_skip(profile_preflight_result.stages_read.kernel | default(none)) }}"
"""

RETURN = r"""
_value:
  description:
    - C(skip) (bool), C(reason) (text for the task output) and C(registered), on a skip what the skipped task
      would have registered (C(changed) and the preflight's C(results), each with its C(item)), else V(null).
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils import stages


def stage_skip(calls_now, read, items=None, stale=None):
    if not isinstance(calls_now, list) or (read is not None and not isinstance(read, dict)):
        raise AnsibleFilterError('stage_skip expects a list of calls and the preflight read (a dict or null), got %r, %r'
                                 % (calls_now, read))
    return stages.skip(calls_now, read, items=items, stale=[s for s in stale or [] if s])


class FilterModule(object):
    def filters(self):
        return {'stage_skip': stage_skip}
