# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one reader of ``systemctl show -- UNIT...`` output (the preflight's unit check, the limits' live check, the
record of the restarts owed)."""

from __future__ import annotations


def blocks(out):
    """[{property: value}] of ``systemctl show`` output for several units: one block per unit, in the order asked,
    separated by an empty line; values stripped. The caller checks the count against the units it asked for."""
    out = (out or '').strip()
    if not out:
        return []
    return [dict((key, value.strip()) for key, sep, value in (line.partition('=') for line in block.splitlines())
                 if sep)
            for block in out.split('\n\n')]
