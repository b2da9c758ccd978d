# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the host is read and compared with, from the tune plan: the storage_audit module's arguments (the audit
role) and the metrics collector's spec (the metrics role), made here once so that the two never disagree. Docs in
one sidecar per filter."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.module_utils import drift
from ansible_collections.iotune.storage.plugins.module_utils.textfile_metrics import SPEC_SCHEMA_VERSION

ARRAY_KEYS = ('name', 'devices', 'mountpoint')


def storage_audit_arguments(plan, rules_file, sysctl_file, mdadm_conf=None, initramfs=True):
    """{arrays, tuning, sysctl, thp, cpu_clock, limits, fstrim_timer, rules_file, sysctl_file, mdadm_conf, initramfs} of the
    storage_audit module."""
    if not isinstance(plan, dict) or 'preflight_arrays' not in plan or 'kernel' not in plan:
        raise AnsibleFilterError('storage_audit_arguments: the input must be the tune plan (iotune_plan)')
    return {
        'arrays': [dict((k, a[k]) for k in ARRAY_KEYS if k in a) for a in plan['preflight_arrays']],
        'tuning': list(plan.get('block_tuning_devices') or []),
        'sysctl': dict(plan['kernel'].get('sysctl') or {}),
        'thp': dict(plan['kernel'].get('thp') or {}),
        'cpu_clock': dict(plan['kernel'].get('cpu_clock') or {}),
        'limits': dict((unit, dict(values)) for unit, values in (plan.get('limits') or {}).items()),
        # fstrim.timer's state, read when a filesystem has a discard policy (drift.discard_policy)
        'fstrim_timer': any(fs.get('discard_by_class') for fs in plan.get('xfs_filesystems') or []),
        'rules_file': rules_file,
        'sysctl_file': sysctl_file,
        'mdadm_conf': mdadm_conf or None,
        'initramfs': bool(initramfs),
    }


def storage_metrics_spec(plan, rules_file, sysctl_file, mdadm_conf=None, initramfs=True, device_timeout=None):
    """The spec of the host's metrics collector: the audit's arguments and the part of the plan drift.compare reads
    (with the fstab lines' ``device_timeout``)."""
    arguments = storage_audit_arguments(plan, rules_file, sysctl_file, mdadm_conf=mdadm_conf, initramfs=initramfs)
    try:
        compared = drift.compared_plan(drift.with_device_timeout(plan, device_timeout))
    except (KeyError, TypeError, AttributeError) as e:
        raise AnsibleFilterError('storage_metrics_spec: the plan lacks %s' % e)
    return {'schema_version': SPEC_SCHEMA_VERSION, 'audit': arguments, 'plan': compared}


class FilterModule(object):
    def filters(self):
        return {'storage_audit_arguments': storage_audit_arguments, 'storage_metrics_spec': storage_metrics_spec}
