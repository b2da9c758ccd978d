# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations


class ModuleDocFragment(object):
    """The storage_preflight module's option ``stages``: the check-mode read of the tune role's later stages
    (module_utils/stage_sync.py).

    Only storage_preflight extends it: it lives here so that plugins/modules/storage_preflight.py stays under the
    house limit of 400 lines (issue 24); ansible-doc shows the option on the module's page as before.
    """

    DOCUMENTATION = r"""
options:
  stages:
    description:
      - The later stages of the P(iotune.storage.tune#role) role, each with the exact options of the module calls it
        would make (one dict per call). Each call is run here, in check mode and read-only, by the same code as its
        module (module_utils/stage_sync.py), its options checked by that module's argument spec; RV(stages_in_sync)
        names the stages whose every call would return C(changed=false) with no warning and no failure, and after
        which the role would do nothing more. A role skips its module call only when its stage is in sync and the
        options it would pass are exactly those of RV(stages_read) (the tune role; a re-run on a converged host
        makes this one call of the collection's modules).
      - Not in sync, with a reason in RV(stages_why), is also every read that failed; the stage then calls its
        module as before. One failure is a refusal of the whole call instead, before any change of the run - a plan
        the host cannot carry out whatever the earlier stages do (an xfs call whose discard policy needs
        C(fstrim.timer), which systemd does not know on this host).
    type: dict
    suboptions:
      raid0:
        description:
          - The options of each M(iotune.storage.mdadm_array) call, without C(conf_path), which this call sets as the
            raid0 role does (O(stages.mdadm_conf), or the distribution family's path read from C(/etc/os-release)).
        type: list
        elements: dict
      mdadm_conf:
        description: The raid0 role's C(raid0_mdadm_conf) (V(null) = the distribution family's path).
        type: str
      xfs:
        description: The options of each M(iotune.storage.xfs_filesystem) call. In sync also means that the
          mount point exists, the fstab line is the planned one, the filesystem is mounted there and nowhere else,
          and, for the discard policy C(fstrim_timer), that C(fstrim.timer) is enabled and active.
        type: list
        elements: dict
      block_tuning:
        description:
          - The options of the M(iotune.storage.udev_block_tuning) call. With C(facts), and the stage in sync, this
            call returns C(ansible_facts.iotune_readahead) of the same read.
        type: list
        elements: dict
      kernel:
        description: The options of the M(iotune.storage.kernel_settings) read (C(mode=report)). In sync also means
          that its C(thp_unit), when given, is enabled.
        type: list
        elements: dict
"""
