# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Safety checks for block devices that are about to be written (mdadm --create, mkfs, wipefs).

Everything here only *reads*: /proc/self/mountinfo, /proc/swaps, /sys/class/block, the output
of ``blkid -p`` / ``wipefs --no-act --json`` and the first, second and last MiB of the device itself.
The callers decide what to do with the findings.

A device is *in use* when it (or one of its partitions) is mounted, is listed in /proc/swaps or has
holders (an active md array, device-mapper/LVM, ...). An in-use device is never touched, not even
when the user opted in to wiping it. A device that merely *carries a signature* (any filesystem,
LVM2 PV, md superblock, partition table, ...) is refused unless the user explicitly listed it in
the opt-in list (``wipe_devices``). A device without any signature whose first MiB, the MiB at
offset 1 MiB (2048 sectors, where partitions usually start) or last MiB holds non-zero bytes is
refused as well (a filesystem whose partition table was lost looks blank to blkid and wipefs).
A partition whose parent disk or sibling partitions are in use is refused unless the user listed it
(``allow_shared_disk``).
"""

from __future__ import annotations

import json
import os
import stat

from ansible_collections.iotune.storage.plugins.module_utils.sysfs_block import parse_mountinfo

__metaclass__ = type


MIB = 1024 * 1024
READ_BUFFER = 64 * 1024

WIPE_HINT = 'add it to wipe_devices to allow wiping'
DATA_HINT = 'add it to wipe_devices to allow overwriting it'
SHARED_HINT = 'add it to allow_shared_disk to use it anyway'


class DeviceError(Exception):
    """A device argument cannot be used at all (missing path, not a block device, ...)."""


def describe(given, resolved):
    """'given (resolved)' when they differ, else just the path."""
    if given and resolved and given != resolved:
        return '%s (%s)' % (given, resolved)
    return given or resolved


class BlockDevice:
    """A block device named by the user, resolved to its kernel node."""

    def __init__(self, given, resolved, kname, majmin, size_bytes):
        self.given = given
        self.resolved = resolved
        self.kname = kname
        self.majmin = majmin
        self.size_bytes = size_bytes

    @property
    def label(self):
        return describe(self.given, self.resolved)

    def __repr__(self):
        return 'BlockDevice(%r -> %r, %s)' % (self.given, self.resolved, self.majmin)


class SystemView:
    """Read-only view of the running system; every path is relative to ``root`` for tests."""

    def __init__(self, run_command=None, root='/', blkid='blkid', wipefs='wipefs', block_numbers=None):
        self.root = root
        self._run = run_command
        self.blkid = blkid
        self.wipefs = wipefs
        self._block_numbers = block_numbers or self._stat_block_numbers

    # --- paths -------------------------------------------------------------------------------
    def path(self, absolute):
        if self.root in ('', '/'):
            return absolute
        return os.path.join(self.root, absolute.lstrip('/'))

    def _read(self, absolute, default=None):
        try:
            with open(self.path(absolute), 'r') as f:
                return f.read()
        except (IOError, OSError):
            return default

    def realpath(self, given):
        """Resolve symlinks (``/dev/disk/by-id/...``) inside ``root``."""
        full = os.path.realpath(self.path(given))
        if self.root in ('', '/'):
            return full
        root = os.path.realpath(self.root)
        if full.startswith(root):
            return '/' + os.path.relpath(full, root).lstrip('./') if full != root else '/'
        return full

    def block_majmin(self, resolved):
        """(major, minor) of a block special file, or None when it is not one."""
        return self._block_numbers(resolved)

    def _stat_block_numbers(self, resolved):
        try:
            st = os.stat(self.path(resolved))
        except OSError:
            return None
        if not stat.S_ISBLK(st.st_mode):
            return None
        return os.major(st.st_rdev), os.minor(st.st_rdev)

    def exists(self, given):
        return os.path.lexists(self.path(given)) and os.path.exists(self.path(given))

    # --- sysfs ---------------------------------------------------------------------------------
    def kname_for(self, majmin):
        link = self.path('/sys/dev/block/%d:%d' % majmin)
        if not os.path.exists(link):
            return None
        return os.path.basename(os.path.realpath(link))

    def sys_block(self, kname, attr=None):
        base = '/sys/class/block/%s' % kname
        return base if attr is None else '%s/%s' % (base, attr)

    def sys_read(self, kname, attr, default=None):
        value = self._read(self.sys_block(kname, attr))
        return default if value is None else value.strip()

    def size_bytes(self, kname):
        sectors = self.sys_read(kname, 'size')
        try:
            return int(sectors) * 512
        except (TypeError, ValueError):
            return None

    def partitions(self, kname):
        """Kernel names of the partitions of a whole disk."""
        base = self.path(self.sys_block(kname))
        result = []
        try:
            entries = sorted(os.listdir(base))
        except OSError:
            return result
        for entry in entries:
            if entry.startswith(kname) and os.path.exists(os.path.join(base, entry, 'partition')):
                result.append(entry)
        return result

    def holders(self, kname):
        base = self.path(self.sys_block(kname, 'holders'))
        try:
            return sorted(os.listdir(base))
        except OSError:
            return []

    def slaves(self, kname):
        base = self.path(self.sys_block(kname, 'slaves'))
        try:
            return sorted(os.listdir(base))
        except OSError:
            return []

    def parent_disk(self, kname):
        """Kernel name of the whole disk a partition belongs to; None for a whole disk.

        A partition has a ``partition`` attribute; its sysfs directory sits inside the disk's one.
        """
        if self._read(self.sys_block(kname, 'partition')) is None:
            return None
        real = os.path.realpath(self.path(self.sys_block(kname)))
        parent = os.path.basename(os.path.dirname(real))
        return parent or None

    def majmin_of(self, kname):
        value = self.sys_read(kname, 'dev')
        if not value or ':' not in value:
            return None
        major, minor = value.split(':', 1)
        return int(major), int(minor)

    # --- /proc ---------------------------------------------------------------------------------
    def mounts(self):
        """List of (major, minor, mountpoint, source) from /proc/self/mountinfo."""
        result = []
        for mount in parse_mountinfo(self._read('/proc/self/mountinfo', '')):
            major, dummy, minor = mount['maj_min'].partition(':')
            try:
                result.append((int(major), int(minor), mount['mountpoint'], mount['source'] or ''))
            except ValueError:
                continue
        return result

    def mounted_majmins(self):
        """{(major, minor): [mountpoint, ...]} of every mount, also for filesystems (btrfs, ...) that show
        an anonymous device number: their source (``/dev/...``) is resolved too."""
        result = {}
        for major, minor, mountpoint, source in self.mounts():
            keys = [(major, minor)]
            if major == 0 and source.startswith('/dev/') and self.exists(source):
                mm = self.block_majmin(self.realpath(source))
                if mm:
                    keys.append(mm)
            for key in keys:
                points = result.setdefault(key, [])
                if mountpoint not in points:
                    points.append(mountpoint)
        return result

    def swaps(self):
        """Resolved paths listed in /proc/swaps."""
        result = []
        lines = (self._read('/proc/swaps', '') or '').splitlines()
        for line in lines[1:]:
            fields = line.split()
            if fields:
                result.append(fields[0].replace('\\040', ' '))
        return result

    # --- content ---------------------------------------------------------------------------------
    def device_size(self, resolved):
        """Size in bytes from seeking to the end (used when sysfs has no size)."""
        with open(self.path(resolved), 'rb') as f:
            return f.seek(0, os.SEEK_END)

    def first_nonzero(self, resolved, offset, length):
        """Absolute offset of the first non-zero byte in [offset, offset+length), or None.

        Reads in small buffers and stops at the first non-zero byte.
        """
        with open(self.path(resolved), 'rb') as f:
            f.seek(offset)
            pos = offset
            end = offset + length
            while pos < end:
                chunk = f.read(min(READ_BUFFER, end - pos))
                if not chunk:
                    return None
                stripped = chunk.lstrip(b'\x00')
                if stripped:
                    return pos + len(chunk) - len(stripped)
                pos += len(chunk)
        return None

    # --- probing tools -------------------------------------------------------------------------
    def run(self, argv):
        if self._run is None:
            raise DeviceError('no command runner available to run %s' % argv[0])
        return self._run(argv)

    def blkid_probe(self, resolved):
        """``blkid -p -o export``: dict of the probed values; {} when nothing was found.

        Exit code 2 means 'nothing found'. Any other failure raises DeviceError, because not
        being able to look at a device must never be mistaken for an empty device.
        """
        rc, out, err = self.run([self.blkid, '-p', '-o', 'export', resolved])
        if rc == 2:
            return {}
        if rc != 0:
            raise DeviceError('blkid -p %s failed (rc=%s): %s' % (resolved, rc, (err or out).strip()))
        return parse_export(out)

    def wipefs_signatures(self, resolved):
        """All signatures ``wipefs --no-act --json`` sees (list of dicts; empty output = none).

        A failure (rc != 0) or output that is not the expected JSON raises DeviceError, like a
        failed blkid: a device that cannot be probed is never taken for a blank one.
        """
        rc, out, err = self.run([self.wipefs, '--no-act', '--json', resolved])
        if rc != 0:
            raise DeviceError('wipefs --no-act %s failed (rc=%s): %s' % (resolved, rc, (err or out).strip()))
        if not out.strip():
            return []
        try:
            data = json.loads(out)
        except ValueError:
            data = None
        if not isinstance(data, dict) or not isinstance(data.get('signatures', []), list):
            raise DeviceError('wipefs --no-act --json %s printed output that is not its JSON: %r'
                              % (resolved, out.strip()[:200]))
        return data.get('signatures') or []


def parse_export(text):
    """Parse KEY=value lines (blkid -o export, mdadm --export)."""
    result = {}
    for line in (text or '').splitlines():
        line = line.strip()
        if not line or '=' not in line:
            continue
        key, value = line.split('=', 1)
        result[key.strip()] = value.strip()
    return result


def resolve(view, given):
    """Resolve one user-given path; raises DeviceError with the reason."""
    if not given or not str(given).startswith('/'):
        raise DeviceError('%r is not an absolute device path' % (given,))
    if not view.exists(given):
        raise DeviceError('%s does not exist' % given)
    resolved = view.realpath(given)
    majmin = view.block_majmin(resolved)
    if majmin is None:
        raise DeviceError('%s is not a block device' % describe(given, resolved))
    kname = view.kname_for(majmin) or os.path.basename(resolved)
    return BlockDevice(given, resolved, kname, majmin, view.size_bytes(kname))


def resolve_all(view, paths):
    """Resolve a list of paths; returns (devices, errors). Two paths to one disk is an error."""
    devices = []
    errors = []
    seen = {}
    for given in paths:
        try:
            dev = resolve(view, given)
        except DeviceError as e:
            errors.append(str(e))
            continue
        if dev.majmin in seen:
            errors.append('%s and %s are the same device (%s); list each device once'
                          % (seen[dev.majmin].given, given, dev.resolved))
            continue
        seen[dev.majmin] = dev
        devices.append(dev)
    return devices, errors


def usage(view, dev):
    """Reasons why a device is in use (mounted, swap, held), for the disk and its partitions."""
    nodes = [(dev.kname, dev.majmin)] + [(k, view.majmin_of(k)) for k in view.partitions(dev.kname)]
    return nodes_usage(view, nodes, dev.kname)


def nodes_usage(view, nodes, main):
    """Reasons why any of ``nodes`` [(kname, (major, minor))] is in use; others than ``main`` are named."""
    reasons = []

    def what(kname, fmt):
        return '' if kname == main else fmt % kname

    mounted = view.mounted_majmins()
    for kname, mm in nodes:
        for mountpoint in mounted.get(mm, []) if mm else []:
            reasons.append('mounted on %s%s' % (mountpoint, what(kname, ' (partition /dev/%s)')))
    swap_paths = set()
    for path in view.swaps():
        swap_paths.add(view.realpath(path) if path.startswith('/') else path)
    for kname, dummy in nodes:
        if '/dev/%s' % kname in swap_paths:
            reasons.append('in use as swap%s' % what(kname, ' (partition /dev/%s)'))
    for kname, dummy in nodes:
        holders = view.holders(kname)
        if holders:
            kind = 'an active md array' if any(h.startswith('md') for h in holders) else 'another device'
            reasons.append('%sheld by %s (%s)' % (what(kname, 'partition /dev/%s '), kind,
                                                  ', '.join('/dev/%s' % h for h in holders)))
    return reasons


def shared_disk_usage(view, dev):
    """(parent kname, reasons) when ``dev`` is a partition whose disk or sibling partitions are in use.

    Returns (None, []) for a whole disk. The partition itself is not looked at here (see usage()).
    """
    parent = view.parent_disk(dev.kname)
    if not parent:
        return None, []
    nodes = [(parent, view.majmin_of(parent))]
    nodes += [(k, view.majmin_of(k)) for k in view.partitions(parent) if k != dev.kname]
    return parent, nodes_usage(view, nodes, parent)


# what non-zero bytes without a signature may be, by region
_HINTS = {
    'first': 'no signature recognised: unknown or damaged data',
    'second': 'no signature recognised: a filesystem whose partition table was lost?',
    'last': 'no signature recognised: metadata at the end of the device (md 1.0 superblock, backup GPT)?',
}


def content_regions(size):
    """[(kind, offset, length)] of the first MiB, the MiB at 1 MiB and the last MiB, clipped to ``size``.

    Small devices (< 3 MiB) are read as far as they go without reading a byte twice.
    """
    regions = [('first', 0, min(MIB, size))]
    if size > MIB:
        regions.append(('second', MIB, min(2 * MIB, size) - MIB))
    if size > 2 * MIB:
        start = max(2 * MIB, size - MIB)
        regions.append(('last', start, size - start))
    return [r for r in regions if r[2] > 0]


def content_findings(view, dev):
    """Descriptions of the regions that hold non-zero bytes (empty list = reads as zeros).

    Raises DeviceError when the device cannot be read (never taken for a blank device).
    """
    try:
        size = dev.size_bytes if dev.size_bytes else view.device_size(dev.resolved)
        found = []
        for kind, offset, length in content_regions(size or 0):
            at = view.first_nonzero(dev.resolved, offset, length)
            if at is None:
                continue
            where = {'first': 'in the first MiB', 'second': 'at offset 1 MiB', 'last': 'in the last MiB'}[kind]
            found.append('non-zero data %s (first non-zero byte at %#x; %s)' % (where, at, _HINTS[kind]))
        return found
    except (IOError, OSError) as e:
        raise DeviceError('cannot read its content: %s' % e)


def signatures(view, dev):
    """Human readable descriptions of every signature found on a device (empty = blank)."""
    found = []
    probe = view.blkid_probe(dev.resolved)
    wipefs = view.wipefs_signatures(dev.resolved)
    kinds = set()
    if probe.get('TYPE'):
        kind = probe['TYPE']
        kinds.add(kind)
        details = []
        for key in ('UUID', 'LABEL', 'PART_ENTRY_TYPE'):
            if probe.get(key):
                details.append('%s %s' % (key, probe[key]))
        found.append(signature_text(kind, details))
    if probe.get('PTTYPE'):
        kinds.add(probe['PTTYPE'])
        details = ['PTUUID %s' % probe['PTUUID']] if probe.get('PTUUID') else []
        found.append('%s partition table%s' % (probe['PTTYPE'], ' (%s)' % ', '.join(details) if details else ''))
    for sig in wipefs or []:
        kind = sig.get('type') or 'unknown'
        if kind in kinds or (kind == 'PMBR' and 'gpt' in kinds):
            continue
        kinds.add(kind)
        details = ['offset %s' % sig['offset']] if sig.get('offset') else []
        if sig.get('uuid'):
            details.append('UUID %s' % sig['uuid'])
        found.append(signature_text(kind, details))
    for part in view.partitions(dev.kname):
        found.append('partition /dev/%s' % part)
    return found


_KIND_NAMES = {
    'linux_raid_member': 'md RAID superblock',
    'LVM2_member': 'LVM2 physical volume',
    'swap': 'swap',
    'crypto_LUKS': 'LUKS',
}


def signature_text(kind, details):
    name = _KIND_NAMES.get(kind, '%s filesystem' % kind if kind not in ('PMBR',) else 'protective MBR')
    text = '%s signature' % name
    if details:
        text += ' (%s)' % ', '.join(details)
    return text


def check_writable(view, devices, allowed_to_wipe, allowed_data=None, allowed_shared=frozenset()):
    """Check devices before an operation that destroys their content.

    ``allowed_to_wipe`` is a set of (major, minor) the user opted in to wipe.
    ``allowed_data``: (major, minor) whose non-zero content without a signature may be overwritten;
    defaults to ``allowed_to_wipe`` (opting in to wiping a device covers its content). It never
    covers a signature or a device in use.
    ``allowed_shared``: (major, minor) of partitions that may be used although their parent disk or a
    sibling partition is in use (``allow_shared_disk``).
    Returns (refusals, to_wipe): a list of messages and the devices that need ``wipefs -a``
    (those with a signature; non-zero data without one needs no wipefs).
    """
    if allowed_data is None:
        allowed_data = allowed_to_wipe
    refusals = []
    to_wipe = []
    for dev in devices:
        in_use = usage(view, dev)
        if in_use:
            refusals.append('refusing %s: %s; it is in use and will not be touched (not even with wipe_devices)'
                            % (dev.label, '; '.join(in_use)))
            continue
        if dev.majmin not in allowed_shared:
            parent, shared = shared_disk_usage(view, dev)
            if shared:
                refusals.append('refusing %s: it is a partition of /dev/%s, which is in use: %s; %s'
                                % (dev.label, parent, '; '.join(shared), SHARED_HINT))
                continue
        try:
            found = signatures(view, dev)
            data = [] if found or dev.majmin in allowed_data else content_findings(view, dev)
        except DeviceError as e:
            refusals.append('refusing %s: cannot probe it: %s' % (dev.label, e))
            continue
        if data:
            refusals.append('refusing %s: %s; %s' % (dev.label, '; '.join(data), DATA_HINT))
            continue
        if not found:
            continue
        if dev.majmin in allowed_to_wipe:
            to_wipe.append(dev)
            continue
        refusals.append('refusing %s: %s; %s' % (dev.label, '; '.join(found), WIPE_HINT))
    return refusals, to_wipe


def size_mismatch(devices, tolerance=0.01):
    """Message when member sizes differ by more than ``tolerance`` (fraction), else None."""
    sized = [d for d in devices if d.size_bytes]
    if len(sized) < 2:
        return None
    small = min(sized, key=lambda d: d.size_bytes)
    large = max(sized, key=lambda d: d.size_bytes)
    if large.size_bytes - small.size_bytes > tolerance * large.size_bytes:
        return ('member sizes differ too much: %s has %d bytes, %s has %d bytes; RAID0 members must '
                'have (nearly) the same size' % (small.label, small.size_bytes, large.label, large.size_bytes))
    return None
