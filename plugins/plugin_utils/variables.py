# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one home of the collection's ``iotune_*`` variable names.

A variable whose name starts with ``iotune_`` belongs to this collection. One that is not a name below is a typo of
a documented one (``iotune_array:`` for ``iotune_arrays:``, ``iotune_profle: mongodb``): without this check the run
goes on with the defaults, tuned for another workload or with no arrays at all, and nothing says so.
tests/unit/plugins/plugin_utils/test_variables.py keeps these lists equal to the roles' argument specs and to every
``iotune_*`` name the playbooks, roles and docs use.
"""

from __future__ import annotations

from ansible_collections.iotune.storage.plugins.module_utils.rules import did_you_mean

# set by the user: the roles' argument specs (roles/profile, roles/tune; the tune role's own) and the playbooks
USER_VARIABLES = frozenset((
    # roles/profile and roles/tune (meta/argument_specs.yml)
    'iotune_profile', 'iotune_arrays', 'iotune_profile_overrides', 'iotune_mongodb_version',
    'iotune_block_tuning_extra_devices', 'iotune_verify',
    'iotune_observe_seconds', 'iotune_observe_unit', 'iotune_observe_min_major_faults', 'iotune_release_holds',
    'iotune_metrics', 'iotune_health_gate', 'iotune_restart_policy', 'iotune_restore', 'iotune_retire_md_arrays',
    # playbooks/tune.yml, audit.yml, facts.yml (docs/tune.md, docs/audit.md, docs/facts.md)
    'iotune_hosts', 'iotune_serial', 'iotune_max_fail_percentage', 'iotune_report_dir',
    'iotune_audit_fail_on_drift',
    'iotune_facts_hosts', 'iotune_facts_threshold_kb', 'iotune_facts_database_paths',
    'iotune_facts_system_mounts', 'iotune_facts_system_mount_prefixes', 'iotune_facts_fail_on_flagged',
    'iotune_facts_devices', 'iotune_facts_include_loop', 'iotune_facts_data_directories',
))

# set by the collection while it runs: the plan of the profile role, the facts its modules return (a module's
# ansible_facts.iotune_X is also the variable iotune_X), and the facts playbook's own steps
RUN_VARIABLES = frozenset((
    'iotune_plan', 'iotune_plan_profile', 'iotune_plan_raid0_arrays', 'iotune_plan_xfs_filesystems',
    'iotune_plan_block_tuning_devices', 'iotune_plan_fio_verify', 'iotune_plan_kernel',
    'iotune_plan_ephemeral_arrays',
    'iotune_readahead', 'iotune_initramfs',
    'iotune_facts_rows', 'iotune_facts_data_found',
))

KNOWN_VARIABLES = USER_VARIABLES | RUN_VARIABLES
PREFIX = 'iotune_'


def unknown_variables(names):
    """The messages for every name of ``names`` that starts with ``iotune_`` and is not one of the collection's,
    sorted, each with its did-you-mean (compared with the variables a user sets)."""
    candidates = sorted(USER_VARIABLES)
    return ['%s%s' % (name, did_you_mean(name, candidates))
            for name in sorted(set(str(n) for n in names or ()))
            if name.startswith(PREFIX) and name not in KNOWN_VARIABLES]


def variables_problem(names):
    """One message naming every unknown ``iotune_*`` variable, or None."""
    unknown = unknown_variables(names)
    if not unknown:
        return None
    return ('unknown variable%s %s: a variable whose name starts with iotune_ belongs to this collection, and '
            'these are none of its own (a typo runs with the defaults instead; rename a variable of your own)'
            % ('s' if len(unknown) > 1 else '', ', '.join(unknown)))
