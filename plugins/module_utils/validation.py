# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The value rules shared by the modules and the controller-side plan (plugin_utils/plan.py).

Each rule is one predicate; the callers word the message in their own terms (the option name the user
wrote). Pure functions: no host access, importable on the controller.
"""

from __future__ import annotations

# sysfs read_ahead_kb is parsed as an unsigned int; anything above 1 GiB is treated as a units
# mistake (e.g. a sector count written as KiB) rather than a wish.
READ_AHEAD_MAX_KB = 1048576

CHUNK_MIN_KB = 4


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def valid_chunk_kb(value):
    """True for an md chunk / XFS stripe unit in KiB: a power of two and at least 4."""
    return _is_int(value) and value >= CHUNK_MIN_KB and not value & (value - 1)


def valid_read_ahead_kb(value):
    """True for a readahead in KiB the tuning accepts: 0..READ_AHEAD_MAX_KB."""
    return _is_int(value) and 0 <= value <= READ_AHEAD_MAX_KB
