# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations


class ModuleDocFragment(object):
    """Shared attribute documentation of the iotune.storage modules.

    A module extends iotune.storage.attributes (check_mode, diff_mode) plus .platform and, when it
    returns facts, .facts; its own DOCUMENTATION then gives only C(support) and C(details).
    """

    # check_mode and diff_mode (every module)
    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying target.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check mode), when in diff mode.
"""

    # every module: Linux hosts (sysfs, /proc, udev, md)
    PLATFORM = r"""
options: {}
attributes:
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: posix
    details: Linux only; it reads C(/sys) and C(/proc).
"""

    # modules that return ansible_facts
    FACTS = r"""
options: {}
attributes:
  facts:
    description: Action returns an C(ansible_facts) dictionary that will update existing host facts.
"""

    # read-only modules (with the base fragment): nothing to predict, nothing to diff
    READ_ONLY = r"""
options: {}
attributes:
  check_mode:
    support: full
    details: Reads only; runs the same way in check mode.
  diff_mode:
    support: none
    details: Reports no diff; it changes nothing.
"""
