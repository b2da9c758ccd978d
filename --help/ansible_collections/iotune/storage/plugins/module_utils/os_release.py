# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The OS family of the host from os-release(5), for the roles' package and path choices.

ansible-core's Distribution facts need the package ``ansible.module_utils.facts``, whose import loads every
fact collector of every platform: in the preflight's module payload that was as much Python to compile as
``ansible.module_utils.basic`` itself (0.46 of 0.66 s on the development machine without bytecode, which a
module's payload never has), paid by every tune run. The families the collection supports are named by
os-release's ID or ID_LIKE; any other host gets ansible-core's answer (``family()`` returns None)."""

from __future__ import annotations

PATHS = ('/etc/os-release', '/usr/lib/os-release')

# os-release IDs by the os_family ansible-core gives them (ansible.module_utils.facts.system.distribution)
FAMILY_OF_ID = {}
for _family, _ids in (('Debian', ('debian', 'ubuntu', 'raspbian', 'linuxmint', 'pop', 'devuan', 'kali')),
                      ('RedHat', ('rhel', 'centos', 'fedora', 'rocky', 'almalinux', 'ol', 'amzn', 'cloudlinux',
                                  'virtuozzo')),
                      ('Suse', ('suse', 'opensuse', 'opensuse-leap', 'opensuse-tumbleweed', 'sles', 'sles_sap',
                                'sled')),
                      ('Archlinux', ('arch', 'manjaro')),
                      ('Alpine', ('alpine',))):
    for _id in _ids:
        FAMILY_OF_ID[_id] = _family


def parse(text):
    """{KEY: value} of an os-release file (shell-style assignments, quotes removed)."""
    found = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith('#') or '=' not in line:
            continue
        key, value = line.split('=', 1)
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in '"\'':
            value = value[1:-1]
        found[key.strip()] = value
    return found


def family(read):
    """The os_family of the host whose files ``read(path)`` returns (text, or None when missing); None when
    os-release names no family this module knows."""
    for path in PATHS:
        text = read(path)
        if text is None:
            continue
        fields = parse(text)
        for name in [fields.get('ID', '')] + fields.get('ID_LIKE', '').split():
            if name.lower() in FAMILY_OF_ID:
                return FAMILY_OF_ID[name.lower()]
        return None
    return None
