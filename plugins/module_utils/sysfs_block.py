# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Read-only helpers for Linux block devices from sysfs, /proc and /dev.

Every path is built from configurable roots (``sys_root``, ``proc_root``,
``dev_root``, ``udev_root``) so that unit tests can point them at fake trees.
Nothing here runs a subprocess or writes anything.
"""

from __future__ import annotations

import os

# Field names of /sys/class/block/<dev>/stat, in order
# (Documentation/block/stat.rst). Older kernels have 11 (< 4.18) or
# 15 (< 5.5) fields; missing trailing fields are reported as None.
BLOCK_STAT_FIELDS = (
    'read_ios', 'read_merges', 'read_sectors', 'read_ticks',
    'write_ios', 'write_merges', 'write_sectors', 'write_ticks',
    'in_flight', 'io_ticks', 'time_in_queue',
    'discard_ios', 'discard_merges', 'discard_sectors', 'discard_ticks',
    'flush_ios', 'flush_ticks',
)


class SysfsBlockError(Exception):
    """Raised when a block device cannot be found or read."""


def read_text(path):
    """Return the stripped text content of ``path`` or None if it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        data = os.read(fd, 65536)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data.decode('utf-8', 'replace').strip()


def read_int(path):
    """Return ``path`` parsed as an integer, or None (absent, unreadable, not a number)."""
    text = read_text(path)
    if text is None:
        return None
    try:
        return int(text.split()[0]) if text else None
    except ValueError:
        return None


def unescape_mountinfo(field):
    """Decode the octal escapes (``\\040`` for space, ...) used in /proc/*/mountinfo."""
    if '\\' not in field:
        return field
    out = []
    i = 0
    while i < len(field):
        if field[i] == '\\' and i + 3 < len(field) and field[i + 1:i + 4].isdigit():
            try:
                out.append(chr(int(field[i + 1:i + 4], 8)))
                i += 4
                continue
            except ValueError:
                pass
        out.append(field[i])
        i += 1
    return ''.join(out)


def parse_mountinfo(text):
    """Parse the text of /proc/self/mountinfo.

    Returns a list of dicts with ``maj_min``, ``root``, ``mountpoint``, ``fstype``,
    ``source`` and ``options`` in file order (later entries may shadow earlier ones).
    """
    mounts = []
    for line in (text or '').splitlines():
        fields = line.split()
        if len(fields) < 7 or '-' not in fields[6:]:
            continue
        sep = fields.index('-', 6)
        post = fields[sep + 1:]
        mounts.append({
            'maj_min': fields[2],
            'root': unescape_mountinfo(fields[3]),
            'mountpoint': unescape_mountinfo(fields[4]),
            'options': fields[5],
            'fstype': post[0] if post else None,
            'source': unescape_mountinfo(post[1]) if len(post) > 1 else None,
        })
    return mounts


def read_mountinfo(proc_root='/proc'):
    """Return the parsed /proc/self/mountinfo below ``proc_root`` (empty list if unreadable)."""
    try:
        with open(os.path.join(proc_root, 'self', 'mountinfo'), 'rb') as f:
            text = f.read().decode('utf-8', 'replace')
    except OSError:
        return []
    return parse_mountinfo(text)


def name_for_maj_min(maj_min, sys_root='/sys'):
    """Return the kernel name of block device ``MAJ:MIN`` via /sys/dev/block, or None."""
    link = os.path.join(sys_root, 'dev', 'block', maj_min)
    try:
        target = os.readlink(link)
    except OSError:
        # fake trees may use a directory instead of a symlink: read its uevent
        uevent = read_text(os.path.join(link, 'uevent'))
        if uevent:
            for line in uevent.splitlines():
                if line.startswith('DEVNAME='):
                    return line.split('=', 1)[1]
        return None
    return os.path.basename(target.rstrip('/'))


def _mount_for_path(path, mounts):
    """Return the mount entry (from parse_mountinfo) whose mount point holds ``path``."""
    best = None
    best_len = -1
    for mnt in mounts:
        mp = mnt['mountpoint']
        if mp == '/':
            matches = True
        else:
            matches = path == mp or path.startswith(mp.rstrip('/') + '/')
        # ">=": a later mount on the same mount point shadows the earlier one
        if matches and len(mp) >= best_len:
            best = mnt
            best_len = len(mp)
    return best


def device_for_path(path, proc_root='/proc', sys_root='/sys'):
    """Return the kernel name of the block device under the filesystem holding ``path``.

    The mount is found in ``proc_root``/self/mountinfo (longest mount point that
    contains the resolved ``path``), its MAJ:MIN is resolved through
    ``sys_root``/dev/block/MAJ:MIN. A partition stays a partition (``sda1``);
    an md or dm device is returned as ``md0``/``dm-0``. For filesystems with an
    anonymous device number (btrfs subvolumes...) the mount source ``/dev/NAME``
    is used when it names a block device known to sysfs.

    Raises SysfsBlockError when no block device backs the path (tmpfs, overlay...).
    """
    if not path:
        raise SysfsBlockError('device_for_path: empty path')
    real = os.path.realpath(os.path.abspath(path))
    mounts = read_mountinfo(proc_root)
    if not mounts:
        raise SysfsBlockError('cannot read %s' % os.path.join(proc_root, 'self', 'mountinfo'))
    mnt = _mount_for_path(real, mounts)
    if mnt is None:
        raise SysfsBlockError('no mount found for %s' % real)
    name = name_for_maj_min(mnt['maj_min'], sys_root)
    if name is None and mnt['source'] and mnt['source'].startswith('/dev/'):
        candidate = os.path.basename(mnt['source'])
        if os.path.isdir(os.path.join(sys_root, 'class', 'block', candidate)):
            name = candidate
    if name is None:
        raise SysfsBlockError(
            '%s is on %s (%s, device %s) which is not a block device'
            % (real, mnt['mountpoint'], mnt['fstype'], mnt['maj_min']))
    return name


def read_block_stat(name, sys_root='/sys'):
    """Return /sys/class/block/``name``/stat as a dict of named integer fields.

    Keys are BLOCK_STAT_FIELDS (read_ios, read_merges, read_sectors, read_ticks,
    write_ios, ...); sectors are 512-byte units whatever the device's block size.
    Fields that this kernel does not provide are None.
    Raises SysfsBlockError if the file is missing or malformed.
    """
    path = os.path.join(sys_root, 'class', 'block', name, 'stat')
    text = read_text(path)
    if text is None:
        raise SysfsBlockError('cannot read %s (no such block device %r?)' % (path, name))
    try:
        values = [int(v) for v in text.split()]
    except ValueError:
        raise SysfsBlockError('malformed %s: %r' % (path, text))
    if len(values) < 11:
        raise SysfsBlockError('malformed %s: %d fields, expected at least 11' % (path, len(values)))
    result = dict.fromkeys(BLOCK_STAT_FIELDS)
    result.update(zip(BLOCK_STAT_FIELDS, values))
    return result
