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

import fnmatch
import os

from ansible_collections.iotune.storage.plugins.module_utils import cloud
from ansible_collections.iotune.storage.plugins.module_utils.md_identity import md_uuid_colon

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
            # the filesystem's own options (XFS: sunit=, swidth=, discard)
            'super_options': post[2] if len(post) > 2 else '',
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


# ---------------------------------------------------------------------------
# Inventory of block devices (used by the readahead_facts module)
# ---------------------------------------------------------------------------

DEVICE_TYPES = ('disk', 'partition', 'md', 'dm', 'loop', 'nvme', 'ram', 'rbd', 'other')

# Kernel default readahead when a device reports no optimal I/O size
# (VM_READAHEAD_PAGES = SZ_128K / PAGE_SIZE).
KERNEL_MIN_READ_AHEAD_KB = 128

_QUEUE_INT_ATTRS = (
    ('logical_block_size', 'logical_block_size'),
    ('physical_block_size', 'physical_block_size'),
    ('minimum_io_size', 'minimum_io_size'),
    ('optimal_io_size', 'optimal_io_size'),
    ('max_sectors_kb', 'max_sectors_kb'),
    ('nr_requests', 'nr_requests'),
)

_GLOB_CHARS = frozenset('*?[')

# Identity/queue keys a partition takes over from its parent disk.
_INHERITED_FROM_PARENT = (
    'scheduler', 'schedulers_available', 'rotational', 'logical_block_size',
    'physical_block_size', 'minimum_io_size', 'optimal_io_size', 'max_sectors_kb',
    'nr_requests', 'kernel_default_read_ahead_kb', 'model', 'vendor', 'serial',
    'wwn', 'cloud',
)


def _is_digits(text):
    return bool(text) and text.isdigit()


def classify(name):
    """Return the device type for a whole (non-partition) block device kernel name."""
    if name.startswith('md') and _is_digits(name[2:]):
        return 'md'
    if name.startswith('dm-') and _is_digits(name[3:]):
        return 'dm'
    if name.startswith('loop') and _is_digits(name[4:]):
        return 'loop'
    if name.startswith('zram') and _is_digits(name[4:]):
        return 'ram'
    if name.startswith('ram') and _is_digits(name[3:]):
        return 'ram'
    if name.startswith('rbd') and _is_digits(name[3:]):
        return 'rbd'
    if name.startswith('nvme'):
        return 'nvme'
    for prefix in ('sd', 'vd', 'xvd', 'hd'):
        if name.startswith(prefix) and name[len(prefix):].isalpha():
            return 'disk'
    if name.startswith('mmcblk') and _is_digits(name[6:]):
        return 'disk'
    return 'other'


def parse_scheduler(text):
    """Parse queue/scheduler content.

    Returns (current, available). ``None, None`` when the file is absent, empty, or
    shows the legacy bracket-less ``none`` of bio-based devices on kernels < ~6.5
    (the scheduler cannot be set there).
    """
    if not text:
        return None, None
    names = text.split()
    current = None
    available = []
    for item in names:
        if item.startswith('[') and item.endswith(']'):
            item = item[1:-1]
            current = item
        available.append(item)
    if current is None:
        # "none" without brackets: not configurable (bio-based md/dm on old kernels)
        return None, None
    return current, available


def parse_udev_db(text):
    """Return the ``E:KEY=value`` properties of a udev database file as a dict."""
    props = {}
    for line in (text or '').splitlines():
        if line.startswith('E:') and '=' in line:
            key, value = line[2:].split('=', 1)
            props[key] = value
    return props


def normalize_md_uuid(value):
    """Return an md UUID in mdadm's colon form (``xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx``).

    Accepts the kernel's ``md/uuid`` form (8-4-4-4-12 with dashes) and mdadm's form.
    Anything that is not 32 hex digits is returned unchanged (md_identity.md_uuid_colon).
    """
    return md_uuid_colon(value.strip() if value else value)


def kernel_default_read_ahead_kb(optimal_io_size, page_size=4096):
    """Readahead the kernel (>= 5.10) gives a device: max(2 x io_opt, 128 KiB), in KiB.

    ``optimal_io_size`` is in bytes; the result is rounded down to whole pages like
    ``ra_pages = io_opt * 2 / PAGE_SIZE`` in the block layer.
    """
    io_opt = optimal_io_size or 0
    pages = (io_opt * 2) // page_size
    return max(pages * page_size // 1024, KERNEL_MIN_READ_AHEAD_KB)


def _none_if(value, empty):
    return None if value is None or value in empty else value


def _listdir(path):
    try:
        return os.listdir(path)
    except OSError:
        return []


def _link_map(directory, recursive=False):
    """Map kernel names to the sorted list of symlinks in ``directory`` pointing at them."""
    result = {}
    if recursive:
        walker = os.walk(directory)
    else:
        walker = [(directory, [], _listdir(directory))]
    for base, _dirs, files in walker:
        for entry in files:
            link = os.path.join(base, entry)
            try:
                target = os.readlink(link)
            except OSError:
                continue
            result.setdefault(os.path.basename(target), []).append(link)
    for links in result.values():
        links.sort()
    return result


def _rel_dev(link, dev_root):
    """Rewrite a link below ``dev_root`` to the /dev path the host sees."""
    return '/dev' + link[len(dev_root.rstrip('/')):] if link.startswith(dev_root) else link


def validate_patterns(patterns):
    """Validate the ``devices`` option; return a list of (pattern, is_glob).

    Accepts kernel names (``sda``), ``/dev/NAME`` (the prefix is dropped) and shell
    globs (``nvme*n1``, ``md*``, ``sd[a-c]``). Raises SysfsBlockError on anything else.
    """
    result = []
    for raw in patterns or []:
        if not isinstance(raw, str) or not raw.strip():
            raise SysfsBlockError('devices: empty or non-string entry %r' % (raw,))
        item = raw.strip()
        if item.startswith('/dev/'):
            item = item[5:]
        if '/' in item or any(c.isspace() for c in item):
            raise SysfsBlockError(
                "devices: %r is not a kernel device name or glob (use e.g. 'sda', 'nvme*n1', 'md*')" % raw)
        is_glob = any(c in _GLOB_CHARS for c in item)
        if is_glob:
            depth = 0
            i = 0
            while i < len(item):
                c = item[i]
                if c == '[':
                    if depth:
                        raise SysfsBlockError('devices: bad glob %r: nested "["' % raw)
                    depth = 1
                    # "[]...]" and "[!]...]": a "]" right after the opening is literal
                    j = i + 1
                    if j < len(item) and item[j] == '!':
                        j += 1
                    if j < len(item) and item[j] == ']':
                        raise SysfsBlockError('devices: bad glob %r: empty character class "[]"' % raw)
                    i = j
                    continue
                if c == ']' and depth:
                    depth = 0
                i += 1
            if depth:
                raise SysfsBlockError('devices: bad glob %r: unclosed "["' % raw)
        elif ']' in item:
            raise SysfsBlockError('devices: bad glob %r: "]" without "["' % raw)
        result.append((item, is_glob))
    return result


class BlockInventory(object):
    """Collects facts about the block devices below the given roots. Read-only."""

    def __init__(self, sys_root='/sys', proc_root='/proc', dev_root='/dev',
                 udev_root='/run/udev', page_size=None):
        self.sys_root = sys_root
        self.proc_root = proc_root
        self.dev_root = dev_root
        self.udev_root = udev_root
        if page_size is None:
            try:
                page_size = os.sysconf('SC_PAGE_SIZE')
            except (ValueError, OSError, AttributeError):
                page_size = 4096
        self.page_size = page_size
        self._cache = {}
        self._by_id = None
        self._dev_md = None
        self._azure = None
        self._mounts = None
        self.parents = {}      # name -> parent disk (None for whole devices)
        self.sysdirs = {}      # name -> sysfs directory
        self.order = []        # names in discovery order
        self.children = {}     # disk -> its partitions
        self._discover()

    # -- discovery -----------------------------------------------------------------

    def _discover(self):
        block = os.path.join(self.sys_root, 'block')
        disks = sorted(_listdir(block))
        for disk in disks:
            ddir = os.path.join(block, disk)
            if read_text(os.path.join(ddir, 'hidden')) == '1':
                # a path of a multipath NVMe namespace (nvme0c0n1): no device node, the I/O goes through the
                # namespace's head (nvme0n1), which carries the identity, the by-id links and the tuning
                continue
            self.parents[disk] = None
            self.sysdirs[disk] = ddir
            self.order.append(disk)
            self.children[disk] = []
            for entry in sorted(_listdir(ddir)):
                if entry.startswith(disk) and entry != disk and \
                        os.path.exists(os.path.join(ddir, entry, 'partition')):
                    self.parents[entry] = disk
                    self.sysdirs[entry] = os.path.join(ddir, entry)
                    self.order.append(entry)
                    self.children[disk].append(entry)

    def _dev_type(self, name):
        if self.parents.get(name):
            return 'partition'
        return classify(name)

    def is_unattached_loop(self, name):
        """True for a loop device (or its partition) without a backing file."""
        disk = self.parents.get(name) or name
        if classify(disk) != 'loop':
            return False
        return read_text(os.path.join(self.sysdirs[disk], 'loop', 'backing_file')) is None

    def select(self, patterns=None, include_loop=False, include_ram=False):
        """Return the selected kernel names (discovery order).

        Without patterns every device is selected. include_loop/include_ram filter
        loop and ram/zram devices selected by default or by glob; unattached loop
        devices are always skipped unless named explicitly. An exact name always
        selects its device and fails if there is none.
        """
        parsed = validate_patterns(patterns)
        explicit = set()
        globs = []
        for item, is_glob in parsed:
            if is_glob:
                globs.append(item)
            elif item in self.parents:
                explicit.add(item)
            else:
                known = ', '.join(self.order) or 'none'
                raise SysfsBlockError('devices: no block device named %r (known: %s)' % (item, known))
        selected = []
        for name in self.order:
            if name in explicit:
                selected.append(name)
                continue
            if parsed and not any(fnmatch.fnmatchcase(name, g) for g in globs):
                continue
            dtype = classify(self.parents.get(name) or name)
            if dtype == 'loop' and (not include_loop or self.is_unattached_loop(name)):
                continue
            if dtype == 'ram' and not include_ram:
                continue
            selected.append(name)
        self.unmatched_globs = [g for g in globs
                                if not any(fnmatch.fnmatchcase(n, g) for n in self.order)]
        return selected

    # -- lazily built maps ----------------------------------------------------------

    def _by_id_map(self):
        if self._by_id is None:
            raw = _link_map(os.path.join(self.dev_root, 'disk', 'by-id'))
            self._by_id = dict((k, [_rel_dev(link, self.dev_root) for link in v]) for k, v in raw.items())
        return self._by_id

    def _dev_md_map(self):
        if self._dev_md is None:
            self._dev_md = _link_map(os.path.join(self.dev_root, 'md'))
        return self._dev_md

    def _azure_map(self):
        if self._azure is None:
            base = os.path.join(self.dev_root, 'disk', 'azure')
            raw = _link_map(base, recursive=True)
            self._azure = dict((k, [os.path.relpath(link, base) for link in v]) for k, v in raw.items())
        return self._azure

    def _mount_map(self):
        if self._mounts is None:
            self._mounts = {}
            for mnt in read_mountinfo(self.proc_root):
                self._mounts.setdefault(mnt['maj_min'], []).append(mnt)
        return self._mounts

    # -- per device -----------------------------------------------------------------

    def _udev(self, maj_min):
        if not maj_min:
            return {}
        return parse_udev_db(read_text(os.path.join(self.udev_root, 'data', 'b' + maj_min)))

    def _mounts_of(self, name, maj_min, partition):
        result = []
        for mnt in self._mount_map().get(maj_min or '', []):
            result.append({
                'mountpoint': mnt['mountpoint'],
                'fstype': mnt['fstype'],
                'source': mnt['source'],
                'partition': partition,
            })
        return result

    def _md(self, sysdir, name, udev):
        mddir = os.path.join(sysdir, 'md')
        level = read_text(os.path.join(mddir, 'level'))
        array_state = read_text(os.path.join(mddir, 'array_state'))
        if level is None and array_state is None and not os.path.isdir(mddir):
            return None
        chunk = read_int(os.path.join(mddir, 'chunk_size'))
        uuid = normalize_md_uuid(read_text(os.path.join(mddir, 'uuid')) or udev.get('MD_UUID'))
        md_name = udev.get('MD_NAME')
        devname = udev.get('MD_DEVNAME')
        by_id = self._by_id_map().get(name, [])
        for link in by_id:
            base = os.path.basename(link)
            if uuid is None and base.startswith('md-uuid-'):
                uuid = normalize_md_uuid(base[len('md-uuid-'):])
            if md_name is None and base.startswith('md-name-'):
                md_name = base[len('md-name-'):]
        md_links = self._dev_md_map().get(name, [])
        if devname is None and md_links:
            devname = os.path.basename(md_links[0])
        if md_name is None and devname is not None:
            md_name = devname
        return {
            'level': level or None,
            'chunk_kb': chunk // 1024 if chunk is not None else None,
            'raid_disks': read_int(os.path.join(mddir, 'raid_disks')),
            'array_state': array_state or None,
            'metadata_version': read_text(os.path.join(mddir, 'metadata_version')) or None,
            'uuid': uuid,
            'name': md_name,
            'devname': devname,
        }

    def _vmbus_device_id(self, device_dir):
        """The ``device_id`` of the nearest parent of a SCSI disk's device that has one (Azure's VMBus)."""
        stop = os.path.realpath(os.path.join(self.sys_root, 'devices'))
        current = os.path.dirname(device_dir)
        for dummy in range(8):
            if not current.startswith(stop) or current == stop:
                return None
            value = read_text(os.path.join(current, 'device_id'))
            if value:
                return value
            current = os.path.dirname(current)
        return None

    def _cloud(self, name, dtype, sysdir, model, vendor, serial):
        """Cloud identity (module_utils/cloud.py) from sysfs and the disk's /dev links; rbd images here."""
        if dtype in ('nvme', 'disk'):
            address = None
            vmbus = None
            device_dir = os.path.realpath(os.path.join(sysdir, 'device'))
            target = os.path.basename(device_dir)
            parts = target.split(':')
            if len(parts) == 4 and all(p.isdigit() for p in parts):
                address = target
                vmbus = self._vmbus_device_id(device_dir)
            links = list(self._by_id_map().get(name, [])) + ['/dev/disk/azure/' + a for a in self._azure_map().get(name, [])]
            found = cloud.identify(name, model=model, vendor=vendor, serial=serial,
                                   nsid=cloud.nsid_of(name, read_text(os.path.join(sysdir, 'nsid'))),
                                   scsi_address=address, vmbus_device_id=vmbus, links=links)
            if found is not None:
                return found
        if dtype == 'rbd':
            rbddir = os.path.join(self.sys_root, 'bus', 'rbd', 'devices', name[3:])
            return {
                'provider': 'ceph_rbd',
                'pool': read_text(os.path.join(rbddir, 'pool')),
                'pool_ns': read_text(os.path.join(rbddir, 'pool_ns')) or None,
                'image': read_text(os.path.join(rbddir, 'name')),
                # the kernel shows "-" when the image head (no snapshot) is mapped
                'snap': _none_if(read_text(os.path.join(rbddir, 'current_snap')), ('', '-')),
            }
        return None

    def _partition_facts(self, info, parent):
        """A partition shares its disk's queue: the disk's queue facts, its own mounts."""
        pinfo = self.device(parent)
        for key in _INHERITED_FROM_PARENT:
            info[key] = pinfo[key]
        info['read_ahead_kb'] = pinfo['read_ahead_kb']
        if info['removable'] is None:
            info['removable'] = pinfo['removable']
        info['mounts'] = self._mounts_of(info['name'], info['maj_min'], info['name'])

    def _queue_facts(self, info, qdir):
        """readahead, scheduler, rotational and the queue limits of a whole device."""
        info['read_ahead_kb'] = read_int(os.path.join(qdir, 'read_ahead_kb'))
        current, available = parse_scheduler(read_text(os.path.join(qdir, 'scheduler')))
        info['scheduler'] = current
        info['schedulers_available'] = available
        rot = read_int(os.path.join(qdir, 'rotational'))
        info['rotational'] = bool(rot) if rot is not None else None
        for key, attr in _QUEUE_INT_ATTRS:
            info[key] = read_int(os.path.join(qdir, attr))
        info['kernel_default_read_ahead_kb'] = kernel_default_read_ahead_kb(info['optimal_io_size'], self.page_size)

    def _identity_facts(self, info, sysdir, udev):
        """model, vendor, serial, WWN, cloud identity, and the md or dm details of a whole device."""
        name, dtype = info['name'], info['type']
        devdir = os.path.join(sysdir, 'device')
        model = read_text(os.path.join(devdir, 'model')) or None
        vendor = read_text(os.path.join(devdir, 'vendor')) or None
        wwid = read_text(os.path.join(sysdir, 'wwid')) or read_text(os.path.join(devdir, 'wwid')) or None
        serial = (read_text(os.path.join(devdir, 'serial'))
                  or read_text(os.path.join(sysdir, 'serial'))
                  or udev.get('ID_SERIAL_SHORT') or wwid or None)
        info['model'] = model
        info['vendor'] = vendor
        info['serial'] = serial
        info['wwn'] = udev.get('ID_WWN') or wwid
        info['cloud'] = self._cloud(name, dtype, sysdir, model, vendor, serial)
        if dtype == 'md':
            info['md'] = self._md(sysdir, name, udev)
        elif dtype == 'dm':
            dmdir = os.path.join(sysdir, 'dm')
            info['dm'] = {
                'name': read_text(os.path.join(dmdir, 'name')) or None,
                'uuid': read_text(os.path.join(dmdir, 'uuid')) or None,
            }

    def device(self, name):
        """Return the facts dict of one device (cached)."""
        if name in self._cache:
            return self._cache[name]
        if name not in self.sysdirs:
            raise SysfsBlockError('no block device named %r' % name)
        sysdir = self.sysdirs[name]
        parent = self.parents.get(name)
        dtype = self._dev_type(name)
        maj_min = read_text(os.path.join(sysdir, 'dev'))
        size = read_int(os.path.join(sysdir, 'size'))
        removable = read_int(os.path.join(sysdir, 'removable'))
        info = {
            'name': name,
            'path': '/dev/' + name,
            'type': dtype,
            'maj_min': maj_min,
            'removable': bool(removable) if removable is not None else None,
            'size_bytes': size * 512 if size is not None else None,
            'parent': parent,
            'readahead_shared_with': parent,
            'holders': sorted(_listdir(os.path.join(sysdir, 'holders'))),
            'slaves': sorted(_listdir(os.path.join(sysdir, 'slaves'))),
            'md': None,
            'dm': None,
            'by_id': self._by_id_map().get(name, []),
        }
        udev = self._udev(maj_min)
        if parent:
            self._partition_facts(info, parent)
        else:
            self._queue_facts(info, os.path.join(sysdir, 'queue'))
            self._identity_facts(info, sysdir, udev)
            mounts = self._mounts_of(name, maj_min, None)
            for child in self.children.get(name, []):
                cmm = read_text(os.path.join(self.sysdirs[child], 'dev'))
                mounts.extend(self._mounts_of(child, cmm, child))
            info['mounts'] = mounts
        ra = info['read_ahead_kb']
        info['read_ahead_sectors'] = ra * 2 if ra is not None else None
        default = info['kernel_default_read_ahead_kb']
        info['read_ahead_drift_kb'] = ra - default if ra is not None and default is not None else None
        self._cache[name] = info
        return info


def collect_block_devices(devices=None, include_loop=False, include_ram=False,
                          sys_root='/sys', proc_root='/proc', dev_root='/dev',
                          udev_root='/run/udev', page_size=None):
    """Return ``(facts, warnings)`` of a fresh scan (see :func:`select_facts`)."""
    inv = BlockInventory(sys_root=sys_root, proc_root=proc_root, dev_root=dev_root,
                         udev_root=udev_root, page_size=page_size)
    return select_facts(inv, devices, include_loop=include_loop, include_ram=include_ram)


def select_facts(inv, devices=None, include_loop=False, include_ram=False):
    """Return ``(facts, warnings)`` of the scan ``inv``: facts is a dict keyed by kernel name.

    Raises SysfsBlockError for invalid ``devices`` entries or unknown explicit names.
    """
    if not inv.order:
        raise SysfsBlockError('no block devices found in %s' % os.path.join(inv.sys_root, 'block'))
    names = inv.select(devices, include_loop=include_loop, include_ram=include_ram)
    warnings = ['devices: pattern %r matched no block device' % g for g in inv.unmatched_globs]
    return dict((name, inv.device(name)) for name in names), warnings
