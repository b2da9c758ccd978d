# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""md identity, in one place: the array name without its ``homehost:`` prefix, its regexp and udev glob,
and the md UUID in mdadm's colon form.

It imports nothing else of the collection, so that every reader can use it (sysfs_block, block_tuning,
mdadm); the mdadm module utils re-export it and the ``iotune.storage.md_identity`` filter exposes it to Jinja.
"""

from __future__ import annotations

import re

__metaclass__ = type


def short_name(md_name):
    """Superblock name without the 'homehost:' prefix ('web1:data' -> 'data')."""
    if md_name is None:
        return None
    return md_name.split(':', 1)[1] if ':' in md_name else md_name


def name_matches(md_name, wanted):
    """True when a superblock/udev name (``data`` or ``host:data``) names the array ``wanted``."""
    return bool(md_name) and (md_name == wanted or short_name(md_name) == wanted)


def name_regexp(name):
    """Regular expression (unanchored) for a superblock name of array ``name`` with or without ``host:``."""
    return r'(?:[^\s:]*:)?' + re.escape(name)


def udev_name_glob(name):
    """udev glob for ENV{MD_NAME} of array ``name`` in both forms ('data|*:data')."""
    return '%s|*:%s' % (name, name)


def md_uuid_colon(uuid):
    """An md UUID in mdadm's colon form (4 groups of 8); blkid and the kernel print 8-4-4-4-12.

    Separators (``-``, ``:``, ``.``) are dropped; anything that is not then 32 hex digits is returned
    unchanged (None stays None).
    """
    if not uuid:
        return None
    flat = re.sub(r'[-:.\s]', '', uuid).lower()
    if len(flat) != 32 or any(c not in '0123456789abcdef' for c in flat):
        return uuid
    return ':'.join(flat[i:i + 8] for i in range(0, 32, 8))


def identity(name, uuid=None):
    """Every form of one array's identity: short name, device, name regexp, udev glob, colon UUID."""
    short = short_name(name)
    return {
        'name': short,
        'device': '/dev/md/%s' % short,
        'name_regexp': name_regexp(short),
        'udev_name_glob': udev_name_glob(short),
        'uuid': md_uuid_colon(uuid),
    }
