# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Safety checks for block devices that are about to be written (mdadm --create, mkfs, wipefs).

Everything here only *reads*, through the module's BlockHost (module_utils/host.py, passed in as
``view``): /proc/self/mountinfo, /proc/swaps, /sys/class/block, the output of ``blkid -p`` /
``wipefs --no-act --json`` and the first, second and last MiB of the device itself.
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

import os

from ansible_collections.iotune.storage.plugins.module_utils.host import DeviceError
from ansible_collections.iotune.storage.plugins.module_utils.host import parse_export  # noqa: F401 pylint: disable=unused-import

__metaclass__ = type


MIB = 1024 * 1024

WIPE_HINT = 'add it to wipe_devices to allow wiping'
DATA_HINT = 'add it to wipe_devices to allow overwriting it'
SHARED_HINT = 'add it to allow_shared_disk to use it anyway'


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


# where a disk's hardware identity is read, in this order: the SCSI or NVMe world-wide id of the namespace or LUN
# (VPD page 0x83, NGUID/EUI-64/UUID, or the kernel's vendor-serial-model-nsid form), then virtio's serial. Never the
# NVMe controller's serial (device/serial): the namespaces of one controller share it.
IDENTITY_ATTRS = ('wwid', 'device/wwid', 'serial')


# the world-wide ids that are unique by definition: NAA (SCSI, SAN arrays, iSCSI targets), EUI-64, NVMe NGUID/UUID,
# and the kernel's NVMe fallback (vendor id, serial, model, namespace id). Not a T10 vendor id: hypervisors without
# a per-disk id report only their vendor and product there ("t10.VMware  Virtual disk"), the same on every disk.
UNIQUE_WWID_TYPES = ('naa.', 'eui.', 'uuid.', 'nvme.')


def _usable(attr, identity):
    """Whether an identity names one disk: a world-wide id of a type unique by definition, or a virtio serial;
    not empty, not only zeros after its type prefix (eui.0000000000000000, as drives with bogus namespace
    identifiers report)."""
    if not identity:
        return False
    if attr != 'serial' and not identity.startswith(UNIQUE_WWID_TYPES):
        return False
    value = identity.split('.', 1)[1] if attr != 'serial' else identity
    return bool(value.strip(' 0-:'))


def hardware_identity(view, dev):
    """What the hardware says this disk (or partition) is: its world-wide id or serial, with the partition number
    for a partition; None when it says nothing usable. Two devices with one identity and one size are two paths
    to one disk (a SAN LUN seen through two HBAs without dm-multipath)."""
    parent = view.parent_disk(dev.kname)
    disk = parent or dev.kname
    for attr in IDENTITY_ATTRS:
        value = view.sys_read(disk, attr)
        if _usable(attr, value):
            name = attr.rsplit('/', maxsplit=1)[-1]
            if parent:
                return '%s %s, partition %s' % (name, value, view.sys_read(dev.kname, 'partition'))
            return '%s %s' % (name, value)
    return None


def resolve_all(view, paths):
    """Resolve a list of paths; returns (devices, errors). Two paths to one disk is an error: the same kernel
    device, or two kernel devices of one size whose hardware reports one identity."""
    devices = []
    errors = []
    seen = {}
    identities = {}
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
        identity = hardware_identity(view, dev)
        twin = identities.get((identity, dev.size_bytes)) if identity else None
        if twin is not None:
            errors.append('%s and %s are two paths to one disk (both report %s): a RAID0 over both would write '
                          'the same blocks twice; use its multipath device (dm-multipath) or list it once'
                          % (twin.label, dev.label, identity))
            continue
        if identity:
            identities[(identity, dev.size_bytes)] = dev
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
            reasons.append('%sheld by %s' % (what(kname, 'partition /dev/%s '),
                                             ', '.join(holder_text(view, h) for h in holders)))
    return reasons


# device-mapper targets by the prefix of their dm/uuid (set by the tool that made the map)
_DM_KINDS = (('LVM-', 'LVM logical volume'), ('CRYPT-', 'dm-crypt mapping'), ('mpath-', 'dm-multipath map'))


def holder_text(view, kname):
    """Who a holder is, for a refusal: 'an active md array (/dev/md127)', 'LVM logical volume vg-lv (/dev/dm-0)'
    (a device-mapper map named by its dm/name and, from its dm/uuid prefix, the tool that made it)."""
    if kname.startswith('md'):
        return 'an active md array (/dev/%s)' % kname
    name = view.sys_read(kname, 'dm/name')
    if name is None:
        return 'another device (/dev/%s)' % kname
    uuid = view.sys_read(kname, 'dm/uuid', '')
    kind = next((text for prefix, text in _DM_KINDS if uuid.startswith(prefix)), 'device-mapper device')
    return '%s %s (/dev/%s)' % (kind, name, kname)


def member_usage(view, dev):
    """Reasons why a device is in use as a member of something the kernel has open although the device itself
    is neither mounted nor held: a device of a mounted multi-device btrfs (mounted from another device; the
    kernel lists the filesystem under /sys/fs/btrfs/<fsid> only while it is mounted), a member of an imported
    ZFS pool (/proc/spl/kstat/zfs/<pool>). Read from the device's signature (blkid, probed once per device)."""
    probe = view.blkid_probe(dev.resolved)
    kind = probe.get('TYPE')
    if kind == 'btrfs' and probe.get('UUID') and os.path.isdir(view.path('/sys/fs/btrfs/%s' % probe['UUID'])):
        return ['a device of the mounted btrfs filesystem %s (mounted from another of its devices)' % probe['UUID']]
    if kind == 'zfs_member' and probe.get('LABEL') and \
            os.path.isdir(view.path('/proc/spl/kstat/zfs/%s' % probe['LABEL'])):
        return ['a member of the imported ZFS pool %s' % probe['LABEL']]
    return []


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
        if not in_use:
            try:
                in_use = member_usage(view, dev)
            except DeviceError as e:
                refusals.append('refusing %s: cannot probe it: %s' % (dev.label, e))
                continue
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
