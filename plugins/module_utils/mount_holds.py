# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The mount holds: one systemd drop-in per service of an array, C(RequiresMountsFor=) its mount points, so that the
service starts only once its filesystems are mounted (and not at all when a mount fails).

One home for the drop-in's place, name and text: the xfs role writes what C(files()) returns (through the
C(mount_holds) filter), the preflight reads them back (C(held_mounts())) to refuse a plan that drops one."""

from __future__ import annotations

DIR = '/etc/systemd/system'
NAME = 'iotune-storage-mounts.conf'
# every drop-in of this collection, of any unit
GLOB = '%s/*.d/%s' % (DIR, NAME)
HEAD = ('# Managed by Ansible (iotune.storage.xfs): start only when the data filesystem is mounted.\n'
        '[Unit]\nRequiresMountsFor=')


def path(unit):
    """The drop-in of ``unit`` (a full unit name such as cassandra.service)."""
    return '%s/%s.d/%s' % (DIR, unit, NAME)


def by_unit(filesystems):
    """{unit: [mount points]}: what the filesystems hold each of their services for (``services`` of each entry),
    mount points in the order the filesystems give them; units in the order they first appear."""
    mounts = {}
    for fs in filesystems:
        for unit in fs.get('services') or []:
            mounts.setdefault(unit, []).append(fs['mountpoint'])
    return mounts


def accounted(filesystems):
    """{unit: [mount points]} a plan accounts for: what it holds each unit for (by_unit), and for a filesystem moved
    with ``move_from`` the old mount point too. The xfs role moves the hold with the filesystem (the drop-in then
    names the new path), and the preflight lets a filesystem move only while nobody uses it: its services' holds
    on the old path are moved, not dropped (storage_preflight's ``holds``)."""
    mounts = by_unit(filesystems)
    for fs in filesystems:
        if fs.get('move_from'):
            for unit in fs.get('services') or []:
                mounts[unit].append(fs['move_from'])
    return mounts


def files(filesystems):
    """[{path, content}]: the drop-in of each service named by the filesystems, with all its mount points.

    ``RequiresMountsFor=`` holds the service while a mount unit of the path exists (from the fstab line) and fails;
    ``AssertPathIsMountPoint=`` holds it also where there is none: a first run that crashed after it made the mount
    point and before the fstab line reached the disk (docs/safety.md, "Crash safety"), or an fstab line removed by
    hand. The xfs role writes the drop-ins before it makes the mount points."""
    return [{'path': path(unit), 'content': dropin_text(points)} for unit, points in by_unit(filesystems).items()]


def dropin_text(points):
    """The text of a drop-in that holds its unit for ``points`` (the xfs role's, and what a retire leaves of one that
    held a unit for a retired array's mount point and others too)."""
    return (HEAD + ' '.join(points) + '\n'
            + ''.join('AssertPathIsMountPoint=%s\n' % point for point in points))


def held_mounts(text):
    """The mount points a drop-in's text holds its unit for (every C(RequiresMountsFor=) line)."""
    return [where for line in text.splitlines() if line.strip().startswith('RequiresMountsFor=')
            for where in line.split('=', 1)[1].split()]
