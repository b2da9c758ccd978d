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


# UnitFileState values of a unit that starts at boot
ENABLED_STATES = ('enabled', 'enabled-runtime')


def timer_state(run_command, unit, systemctl='systemctl'):
    """{'enabled', 'active', 'error'} of one unit: UnitFileState (not-found for a unit systemd does not know) and
    ActiveState as one ``systemctl show`` reports them; error (and None values) when it fails."""
    argv = [systemctl, 'show', '--property=LoadState,UnitFileState,ActiveState', '--', unit]
    rc, out, err = run_command(argv)
    found = blocks(out) if rc == 0 else []
    if len(found) != 1:
        return {'enabled': None, 'active': None,
                'error': '%s failed (rc=%s): %s' % (' '.join(argv), rc, (err or out or '').strip())}
    shown = found[0]
    enabled = 'not-found' if shown.get('LoadState') == 'not-found' else (shown.get('UnitFileState') or None)
    return {'enabled': enabled, 'active': shown.get('ActiveState') or None, 'error': None}
