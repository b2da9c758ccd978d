# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The block host as the modules see it: one reader of sysfs, /proc, /dev and the udev database.

A module builds one BlockHost per call and hands it to the code that needs the host (device_safety,
block_tuning, the fio measurements). Everything is read below ``root`` (``/`` on a real host; the
unit tests point it at a fake tree, see tests/unit/plugins/fixtures/host.py). Within one BlockHost:

- the whole-host scan (sysfs_block.BlockInventory, the reader of the readahead_facts module) runs
  at most once (``inventory()``);
- ``blkid -p`` runs at most once per device (``blkid_probe``; ``fresh=True`` after the caller
  wrote to the device);
- a partition's parent disk is worked out in one place (``parent_disk``).

The only things BlockHost writes are queue/read_ahead_kb (``set_read_ahead_kb``) and
/proc/sys/vm/drop_caches (``drop_caches``), both for the fio module's measurements.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess

from ansible_collections.iotune.storage.plugins.module_utils.sysfs_block import (
    BlockInventory,
    SysfsBlockError,
    device_for_path,
    parse_mountinfo,
    read_block_stat,
    select_facts,
)

__metaclass__ = type

READ_BUFFER = 64 * 1024
# a whole buffer of zeros, to compare a read with (one memcmp) before looking for its first non-zero byte
ZERO_BUFFER = bytes(READ_BUFFER)


class DeviceError(Exception):
    """A device argument cannot be used at all (missing path, not a block device, cannot be probed...)."""


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


class BlockHost:
    """Read-only view of the running system; every path is relative to ``root`` (tests use a fake tree).

    ``run_command`` runs the probing tools (blkid, wipefs); ``block_numbers(resolved)`` returns the
    (major, minor) of a block special file or None (default: stat(); the fake host of the tests passes
    its own, as it cannot make device nodes).
    """

    def __init__(self, run_command=None, root='/', blkid='blkid', wipefs='wipefs', block_numbers=None,
                 page_size=None):
        self.root = root
        self._run = run_command
        self.blkid = blkid
        self.wipefs = wipefs
        self.page_size = page_size
        self._block_numbers = block_numbers or self._stat_block_numbers
        self._inventory = None
        self._probes = {}

    # --- paths -------------------------------------------------------------------------------
    def path(self, absolute):
        if self.root in ('', '/'):
            return absolute
        return os.path.join(self.root, absolute.lstrip('/'))

    @property
    def sys_root(self):
        return self.path('/sys')

    @property
    def proc_root(self):
        return self.path('/proc')

    @property
    def dev_root(self):
        return self.path('/dev')

    @property
    def udev_root(self):
        return self.path('/run/udev')

    def _read(self, absolute, default=None):
        try:
            with open(self.path(absolute), 'r') as f:
                return f.read()
        except (IOError, OSError):
            return default

    def read(self, absolute, default=None):
        """The text of a file of the host (``/proc/diskstats``, ``/proc/PID/io``...), or ``default``."""
        return self._read(absolute, default)

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

    # --- the whole host -----------------------------------------------------------------------
    def inventory(self):
        """The scan of every block device (sysfs_block.BlockInventory), made once per BlockHost."""
        if self._inventory is None:
            self._inventory = BlockInventory(sys_root=self.sys_root, proc_root=self.proc_root,
                                             dev_root=self.dev_root, udev_root=self.udev_root,
                                             page_size=self.page_size)
        return self._inventory

    def block_facts(self, devices=None, include_loop=False, include_ram=False):
        """``(facts, warnings)`` of the readahead_facts module, from this host's one scan."""
        return select_facts(self.inventory(), devices, include_loop=include_loop, include_ram=include_ram)

    def rescan(self):
        """Forget the memoised scan and blkid probes (a caller that waits for devices to appear)."""
        self._inventory = None
        self._probes = {}

    # --- sysfs, one device ----------------------------------------------------------------------
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

    def _links(self, kname, kind):
        """Sorted entries of /sys/class/block/KNAME/KIND (holders or slaves); [] when unreadable."""
        try:
            return sorted(os.listdir(self.path(self.sys_block(kname, kind))))
        except OSError:
            return []

    def holders(self, kname):
        return self._links(kname, 'holders')

    def slaves(self, kname):
        return self._links(kname, 'slaves')

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

    def device_for_path(self, path):
        """Kernel name of the block device under the filesystem holding ``path`` (sysfs_block.device_for_path)."""
        return device_for_path(path, proc_root=self.proc_root, sys_root=self.sys_root)

    def block_stat(self, kname):
        """/sys/class/block/KNAME/stat as named fields (sysfs_block.read_block_stat)."""
        return read_block_stat(kname, self.sys_root)

    def readahead_device(self, kname):
        """The device owning queue/read_ahead_kb: ``kname`` itself, or the parent disk of a partition."""
        if os.path.exists(self.path(self.sys_block(kname, 'queue/read_ahead_kb'))):
            return kname
        parent = self.parent_disk(kname)
        if parent and os.path.exists(self.path(self.sys_block(parent, 'queue/read_ahead_kb'))):
            return parent
        raise SysfsBlockError('no queue/read_ahead_kb for %s or its parent' % kname)

    def read_ahead_kb(self, kname):
        with open(self.path(self.sys_block(kname, 'queue/read_ahead_kb'))) as f:
            return int(f.read().split()[0])

    def set_read_ahead_kb(self, kname, value):
        """Write queue/read_ahead_kb; returns the value the kernel kept."""
        with open(self.path(self.sys_block(kname, 'queue/read_ahead_kb')), 'w') as f:
            f.write('%d\n' % value)
        return self.read_ahead_kb(kname)

    # --- /proc ---------------------------------------------------------------------------------
    def mounts(self, root_only=False):
        """List of (major, minor, mountpoint, source) from /proc/self/mountinfo; ``root_only``: only the mounts
        of a filesystem's root (not the bind mounts of a directory inside it, e.g. a container's volume)."""
        result = []
        for mount in parse_mountinfo(self._read('/proc/self/mountinfo', '')):
            if root_only and mount['root'] != '/':
                continue
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

    def drop_caches(self):
        """Write back dirty pages and drop the page cache (echo 3 > /proc/sys/vm/drop_caches)."""
        os.sync()
        with open(self.path('/proc/sys/vm/drop_caches'), 'w') as f:
            f.write('3\n')

    # --- content ---------------------------------------------------------------------------------
    def device_size(self, resolved):
        """Size in bytes from seeking to the end (used when sysfs has no size)."""
        with open(self.path(resolved), 'rb') as f:
            return f.seek(0, os.SEEK_END)

    def read_bytes(self, resolved, offset, length):
        """``length`` bytes of the device at ``offset`` (fewer at its end)."""
        with open(self.path(resolved), 'rb') as f:
            f.seek(offset)
            return f.read(length)

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
                # a blank device is the common case: one comparison per buffer, and the byte-by-byte search
                # (bytes.lstrip, about 100 times slower) only in the buffer that holds data
                if chunk != ZERO_BUFFER[:len(chunk)]:
                    return pos + len(chunk) - len(chunk.lstrip(b'\x00'))
                pos += len(chunk)
        return None

    # --- probing tools -------------------------------------------------------------------------
    def run(self, argv):
        if self._run is None:
            raise DeviceError('no command runner available to run %s' % argv[0])
        return self._run(argv)

    def blkid_probe(self, resolved, fresh=False):
        """``blkid -p -o export``: dict of the probed values; {} when nothing was found.

        Probed once per device and BlockHost; ``fresh=True`` probes again (after the caller wrote to
        the device). Exit code 2 means 'nothing found'. Any other failure raises DeviceError, because
        not being able to look at a device must never be mistaken for an empty device.
        """
        if fresh or resolved not in self._probes:
            rc, out, err = self.run([self.blkid, '-p', '-o', 'export', resolved])
            if rc == 2:
                self._probes[resolved] = {}
            elif rc != 0:
                raise DeviceError('blkid -p %s failed (rc=%s): %s' % (resolved, rc, (err or out).strip()))
            else:
                self._probes[resolved] = parse_export(out)
        return dict(self._probes[resolved])

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


def run_argv(argv, environ_update=None, **dummy):
    """``(rc, stdout, stderr)`` of ``argv`` (no shell), as AnsibleModule.run_command returns them: the run_command of
    the collection's host programs (the ephemeral boot program, the metrics collector), which run without Ansible.
    Keyword arguments of run_command other than ``environ_update`` are accepted and ignored."""
    env = dict(os.environ)
    env.update(environ_update or {})
    env.setdefault('PATH', '/usr/sbin:/usr/bin:/sbin:/bin')
    try:
        proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                              env=env, check=False)
    except OSError as e:
        return 127, '', str(e)
    return proc.returncode, proc.stdout, proc.stderr
