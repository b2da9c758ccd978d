# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The OS family from os-release (module_utils/os_release.py), as the preflight returns it to the roles."""

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import os_release

DEBIAN_12 = '''PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
HOME_URL="https://www.debian.org/"
'''
UBUNTU = 'NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\nVERSION_ID="24.04"\n'
ROCKY = 'NAME="Rocky Linux"\nID="rocky"\nID_LIKE="rhel centos fedora"\n'
DERIVATIVE = "# a Debian derivative that names only its parent\nID=someos\nID_LIKE='debian'\n"
UNKNOWN = 'ID=haiku\n'


@pytest.mark.parametrize('text, expected', [
    (DEBIAN_12, 'Debian'), (UBUNTU, 'Debian'), (ROCKY, 'RedHat'), (DERIVATIVE, 'Debian'),
    ('ID=opensuse-leap\nID_LIKE="suse opensuse"\n', 'Suse'), ('ID=arch\n', 'Archlinux'), ('ID=alpine\n', 'Alpine'),
    ('ID=Debian\n', 'Debian'),
    (UNKNOWN, None), ('', None),
])
def test_family_from_id_or_id_like(text, expected):
    assert os_release.family({'/etc/os-release': text}.get) == expected


def test_usr_lib_is_read_when_etc_has_none():
    assert os_release.family({'/usr/lib/os-release': DEBIAN_12}.get) == 'Debian'
    # /etc/os-release wins, even when it names no known family
    assert os_release.family({'/etc/os-release': UNKNOWN, '/usr/lib/os-release': DEBIAN_12}.get) is None
    assert os_release.family({}.get) is None


def test_parse_strips_quotes_and_skips_comments():
    assert os_release.parse(DEBIAN_12)['PRETTY_NAME'] == 'Debian GNU/Linux 12 (bookworm)'
    assert os_release.parse(DERIVATIVE) == {'ID': 'someos', 'ID_LIKE': 'debian'}
