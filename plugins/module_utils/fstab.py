# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""/etc/fstab, read in one place (storage_preflight, the audit, the ephemeral boot program).

fstab(5): fields are separated by blanks, ``#`` starts a comment line, and a blank inside a field is
written as an octal escape (``\\040`` for a space, ``\\011`` for a tab, ``\\134`` for a backslash).
"""

from __future__ import annotations

import os
import re

_OCTAL = re.compile(r'\\([0-7]{3})')


# The options every fstab line the collection writes carries: the boot never waits for (nor fails on) a
# missing array, and its mount unit gives up on the device after the timeout (x-systemd.device-timeout=).
BOOT_SAFE_OPTIONS = ('nofail',)
# the options of an array whose entry names none (the xfs role's xfs_mount_options default, the ephemeral role)
DEFAULT_MOUNT_OPTIONS = ('noatime',)
# the x-systemd.device-timeout= of the fstab lines when the caller names none: xfs_device_timeout and
# ephemeral_device_timeout default to it (test_rule_agreement.py), the audit and the metrics collector take it
DEVICE_TIMEOUT_DEFAULT = '90s'


class OptionsError(ValueError):
    """Mount options or a device timeout that cannot go into an fstab line."""


def line_options(mount_options, device_timeout):
    """The options field of the fstab line the xfs and ephemeral roles write: ``mount_options`` (None: the
    default), then ``nofail`` and ``x-systemd.device-timeout=``, each option once, in that order. Raises
    OptionsError for anything else than a list of options (or None), and a timeout with a comma or a blank."""
    if mount_options is not None and (isinstance(mount_options, str) or not isinstance(mount_options, (list, tuple))):
        raise OptionsError('expects a list of mount options or null, got %r' % (mount_options,))
    # systemd reads the time span (90s, 2min, infinity); the fstab field only needs it free of commas and blanks
    if not str(device_timeout) or re.search(r'[\s,]', str(device_timeout)):
        raise OptionsError('device_timeout %r is not a time span such as 90s (no commas or blanks in an fstab option)'
                           % (device_timeout,))
    wanted = list(DEFAULT_MOUNT_OPTIONS if mount_options is None else mount_options)
    wanted += list(BOOT_SAFE_OPTIONS) + ['x-systemd.device-timeout=%s' % device_timeout]
    out = []
    for option in wanted:
        if option not in out:
            out.append(option)
    return ','.join(out)


def with_discard(options, policy):
    """The options field ``options`` (line_options()) of a filesystem whose discard policy (xfs.discard_policy) is
    ``policy``: with ``discard`` before the options every line carries when the policy is online, unchanged
    otherwise. The one rule of where the policy's mount option goes: the xfs_filesystem module (the fstab line it
    compares and the xfs role writes) and the audit call it."""
    if policy != 'online' or not options:
        return options
    fields = options.split(',')
    if 'discard' in fields:
        return options
    fixed = [i for i, option in enumerate(fields)
             if option in BOOT_SAFE_OPTIONS or option.startswith('x-systemd.device-timeout=')]
    at = fixed[0] if fixed else len(fields)
    return ','.join(fields[:at] + ['discard'] + fields[at:])


def unescape(field):
    """A field with its octal escapes decoded (``/data\\040x`` -> ``/data x``)."""
    return _OCTAL.sub(lambda m: chr(int(m.group(1), 8)), field)


def normalise_mountpoint(path):
    """``/data/`` and ``//data`` are ``/data``; ``none`` (swap) stays as it is."""
    if path.startswith('/'):
        return os.path.normpath('/' + path.lstrip('/'))
    return path


def entries(text):
    """The active lines: [{'number', 'line', 'source', 'mountpoint', 'fstype', 'options'}].

    ``number`` counts from 1 over every line of the file; ``mountpoint`` is unescaped and normalised;
    ``options`` is a list (empty when the field is missing).
    """
    out = []
    for number, raw in enumerate((text or '').splitlines(), 1):
        fields = raw.split()
        if len(fields) < 2 or fields[0].startswith('#'):
            continue
        out.append({'number': number, 'line': raw.strip(), 'source': fields[0],
                    'mountpoint': normalise_mountpoint(unescape(fields[1])),
                    'fstype': fields[2] if len(fields) > 2 else None,
                    'options': fields[3].split(',') if len(fields) > 3 else []})
    return out


class LineError(ValueError):
    """The fstab line of a mount point is not one this collection may rewrite."""


def xfs_line(uuid, mountpoint, options):
    """The fstab line the xfs role writes for a filesystem it made (``options``: line_options)."""
    return 'UUID=%s %s xfs %s 0 0' % (uuid, mountpoint, options)


def planned_line_problem(lines, mountpoint, uuid, options, path='/etc/fstab'):
    """Why the fstab ``lines`` (entries()) are not the one line the xfs role writes for ``mountpoint`` (xfs_line of
    ``uuid`` and ``options``), in words; None when they are. The one rule of "the fstab line is as planned":
    xfs_filesystem's mounted_as_planned, the preflight's stage check and the audit (module_utils/drift.py) call it.

    The line is compared field by field (blanks do not count), its mount point unescaped and normalised as
    entries() reads it; ``uuid`` None (not known) takes any ``UUID=`` source."""
    point = normalise_mountpoint(mountpoint)
    here = [line for line in lines if line['mountpoint'] == point]
    planned = xfs_line(uuid or '<filesystem UUID>', point, options)
    if not here:
        return 'no %s line mounts %s (the plan writes "%s")' % (path, point, planned)
    if len(here) > 1:
        return '%d %s lines mount %s (the plan writes one: "%s")' % (len(here), path, point, planned)
    fields = here[0]['line'].split()
    source_ok = fields[0].startswith('UUID=') if uuid is None else fields[0] == 'UUID=%s' % uuid
    if not source_ok or fields[2:] != ['xfs', options, '0', '0']:
        return 'the %s line of %s is "%s", the plan writes "%s"' % (path, point, ' '.join(fields), planned)
    return None


def set_uuid(text, mountpoint, uuid, options):
    """``text`` with the line of ``mountpoint`` mounting ``UUID=uuid`` (an XFS line with ``options`` is
    added when there is none).

    Only the first field of an existing ``UUID=`` line changes, blanks and the other fields are kept; a
    line that mounts the mount point from anything else (``LABEL=``, a path), or two lines for it, raise
    LineError: that is not the line the xfs role wrote.
    """
    lines = (text or '').splitlines()
    found = [e for e in entries(text) if e['mountpoint'] == normalise_mountpoint(mountpoint)]
    if len(found) > 1:
        raise LineError('/etc/fstab has %d lines for %s; it is left alone' % (len(found), mountpoint))
    if not found:
        lines.append(xfs_line(uuid, mountpoint, options))
    else:
        index, first = found[0]['number'] - 1, found[0]['source']
        if not first.startswith('UUID='):
            raise LineError('the fstab line of %s mounts %s, not a UUID; it is left alone' % (mountpoint, first))
        lines[index] = lines[index].replace(first, 'UUID=%s' % uuid, 1)
    return '\n'.join(lines) + '\n'
