# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/fstab.py: the one reader of /etc/fstab (preflight, audit, the ephemeral boot program)."""

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import fstab


def test_entries_decode_normalise_and_number_every_line():
    text = '# c\n\nUUID=1 /data\\040x/ xfs noatime,nofail 0 0\n/dev/sda1 none swap sw 0 0\n/dev/x //b\n'
    assert [(e['number'], e['source'], e['mountpoint'], e['fstype'], e['options']) for e in fstab.entries(text)] == [
        (3, 'UUID=1', '/data x', 'xfs', ['noatime', 'nofail']),
        (4, '/dev/sda1', 'none', 'swap', ['sw']),
        (5, '/dev/x', '/b', None, []),
    ]
    assert fstab.entries(None) == []


@pytest.mark.parametrize('field, decoded', [('/a\\040b', '/a b'), ('/a\\011b', '/a\tb'), ('/a\\134b', '/a\\b'), ('/a', '/a')])
def test_unescape(field, decoded):
    assert fstab.unescape(field) == decoded


@pytest.mark.parametrize('before, after', [
    ('UUID=old /data xfs noatime 0 0\n', 'UUID=new /data xfs noatime 0 0\n'),
    ('# c\nUUID=old\t/data/  xfs noatime 0 0\n', '# c\nUUID=new\t/data/  xfs noatime 0 0\n'),
    ('UUID=new /data xfs noatime 0 0\n', 'UUID=new /data xfs noatime 0 0\n'),
    ('UUID=x / ext4 defaults 0 1\n', 'UUID=x / ext4 defaults 0 1\nUUID=new /data xfs noatime,nofail 0 0\n'),
    ('# UUID=old /data xfs noatime 0 0\n', '# UUID=old /data xfs noatime 0 0\nUUID=new /data xfs noatime,nofail 0 0\n'),
    ('', 'UUID=new /data xfs noatime,nofail 0 0\n'),
])
def test_set_uuid(before, after):
    assert fstab.set_uuid(before, '/data', 'new', 'noatime,nofail') == after


@pytest.mark.parametrize('text, message', [
    ('LABEL=data /data xfs noatime 0 0\n', 'mounts LABEL=data, not a UUID'),
    ('UUID=a /data xfs noatime 0 0\nUUID=b /data/ xfs noatime 0 0\n', 'has 2 lines for /data'),
])
def test_lines_it_did_not_write_are_left_alone(text, message):
    with pytest.raises(fstab.LineError) as e:
        fstab.set_uuid(text, '/data', 'new', 'noatime')
    assert message in str(e.value)
