# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
name: tune_plan
short_description: Validate the tune variables and plan every role's input from a workload profile
version_added: 0.1.0
description:
  - Takes the data of a profile file (C(roles/profile/vars/profiles/NAME.yml)), deep-merges
    O(overrides) over it and validates the result and every entry of O(arrays) on the controller,
    before anything on a host changes.
  - Every problem is reported at once, each naming the array and the key. Nothing is coerced
    silently; a string where a number belongs (C(16k)), a zero chunk, an unknown key (a typo such as
    C(readahead_kb)), an array name C(.), a label over 12 characters, C(nobarrier), a stripe that
    mkfs.xfs refuses, a system directory as mount point and one device in two arrays are errors.
  - What only the host can tell (aliases of one device, signatures, data, usage, mount point contents
    and fstab) is checked afterwards by M(iotune.storage.storage_preflight) from RV(_value.preflight_arrays).
author:
  - iotune.storage contributors (@iotune)
options:
  _input:
    description: The profile data (C(profile_data) of the profile file).
    type: dict
    required: true
  profile:
    description: The profile name, for messages.
    type: str
    required: true
  overrides:
    description: C(iotune_profile_overrides).
    type: dict
    default: {}
  arrays:
    description: C(iotune_arrays).
    type: list
    elements: dict
    default: []
  extra_tuning:
    description: C(iotune_block_tuning_extra_devices), appended to RV(_value.block_tuning_devices).
    type: list
    elements: dict
    default: []
  resolved:
    description:
      - The C(resolved) result of M(iotune.storage.storage_preflight), by array name the stable paths of
        C(devices), C(wipe_devices) and C(allow_shared_disk); the member selectors of O(arrays) are replaced by these stable paths before the
        plan is made. Without it, a plan with selectors has RV(_value.needs_resolution) true.
    type: dict
  mongodb_version:
    description:
      - C(iotune_mongodb_version), for example V(7.0) or V(8.0); selects the transparent huge pages settings
        of the mongodb profiles (MongoDB's advice changed with 8.0). Required where the profile's THP
        depends on it; the plan refuses to guess.
    type: str
  variables:
    description:
      - The names of the variables the host has that start with C(iotune_), for example
        C(lookup('ansible.builtin.varnames', '^iotune_', wantlist=True)).
      - One that is not a variable of this collection (a typo such as C(iotune_array) or C(iotune_profle), which
        would otherwise run with the defaults) is an error, with the closest names it may have meant.
    type: list
    elements: str
    version_added: 0.1.0
  release_holds:
    description:
      - C(iotune_release_holds), systemd units (a name without a suffix is a C(.service)) whose mount hold a run may
        remove although the filesystem it holds is mounted; returned as RV(_value.release_holds) for
        M(iotune.storage.storage_preflight)'s O(iotune.storage.storage_preflight#module:holds) check.
    type: list
    elements: str
  restore:
    description:
      - C(iotune_restore), V(true) to put the host's original state back (M(iotune.storage.original_state)) instead
        of tuning; a boolean or its words as C(-e) gives them (V(true), V(yes), V(on), V(1) and the opposites).
    type: raw
  retire:
    description:
      - C(iotune_retire_md_arrays), the arrays to retire, each C({name, confirm_name, confirm_uuid}) and optionally
        C(zero_superblocks) and C(services); returned as RV(_value.retire_arrays) (the UUID in mdadm's colon form, the
        units as unit names). An entry whose C(confirm_name) is not its C(name), whose C(confirm_uuid) is not an md
        UUID, or whose array is in O(arrays) too, is refused.
    type: list
    elements: dict
"""

EXAMPLES = r"""
- name: Plan
  ansible.builtin.set_fact:
    plan: >-
      {{ profile_file.profile_data | iotune.storage.tune_plan(profile=iotune_profile,
         overrides=iotune_profile_overrides, arrays=iotune_arrays) }}
"""

RETURN = r"""
_value:
  description: The plan.
  type: dict
  contains:
    profile:
      description: The merged and validated profile.
      type: dict
    raid0_arrays:
      description: Input of the P(iotune.storage.raid0#role) role.
      type: list
      elements: dict
    xfs_filesystems:
      description: Input of the P(iotune.storage.xfs#role) role.
      type: list
      elements: dict
    block_tuning_devices:
      description: Input of the P(iotune.storage.block_tuning#role) role.
      type: list
      elements: dict
    fio_verify:
      description: One entry per array for the P(iotune.storage.fio_verify#role) role.
      type: list
      elements: dict
    preflight_arrays:
      description: Input of M(iotune.storage.storage_preflight).
      type: list
      elements: dict
    needs_resolution:
      description: True when O(arrays) has member selectors that O(resolved) did not replace (see docs/cloud.md).
      type: bool
    services:
      description: The systemd units that the arrays' mounts hold back, sorted (M(iotune.storage.storage_preflight)
        names those the host does not know).
      type: list
      elements: str
    release_holds:
      description: O(release_holds) as unit names.
      type: list
      elements: str
    restore:
      description: O(restore) as a boolean.
      type: bool
    retire_arrays:
      description: O(retire), validated (M(iotune.storage.retire_array)'s options without the paths).
      type: list
      elements: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils.plan import PlanError, build_plan
from ansible_collections.iotune.storage.plugins.plugin_utils.variables import variables_problem


def tune_plan(profile_data, profile, overrides=None, arrays=None, extra_tuning=None, mongodb_version=None,
              resolved=None, variables=None, release_holds=None, restore=None, retire=None):
    # every problem at once: the unknown variables with the plan's own
    problems = [variables_problem(variables)]
    try:
        plan = build_plan(profile, profile_data, overrides, arrays or [], extra_tuning or [],
                          mongodb_version=mongodb_version, resolved=resolved, release_holds=release_holds,
                          restore=restore, retire=retire)
    except PlanError as e:
        problems.append(str(e))
    problems = [p for p in problems if p]
    if problems:
        raise AnsibleFilterError('invalid tune variables (nothing was changed): %s' % '; '.join(problems))
    return plan


class FilterModule(object):
    def filters(self):
        return {'tune_plan': tune_plan}
