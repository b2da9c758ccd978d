# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""XFS helpers: parse ``xfs_info``, derive the expected stripe geometry, compare.

Units (three systems for one geometry):
- mkfs.xfs ``-d su=<KiB>k,sw=<N>``: stripe unit in bytes/KiB, stripe width as a multiple of su;
- ``xfs_info`` ``sunit=`` / ``swidth=`` in filesystem blocks (``bsize``, normally 4096 bytes);
- /proc/mounts ``sunit=`` / ``swidth=`` in 512-byte sectors.
e.g. su=256k,sw=4 with bsize 4096 -> xfs_info sunit=64 swidth=256 blks -> mount sunit=512,swidth=2048.
"""

from __future__ import annotations

import re

from ansible_collections.iotune.storage.plugins.module_utils.rules import DISCARD_POLICIES

__metaclass__ = type

_SECTION_RE = re.compile(r'^([a-z-]+)\s*=')
_PAIR_RE = re.compile(r'([A-Za-z][A-Za-z0-9_-]*)=([^\s,]+)')


def parse_xfs_info(text):
    """Parse ``xfs_info`` output into {section: {key: value}} (values as int when numeric).

    Continuation lines (starting with spaces and '=') belong to the previous section.
    """
    sections = {}
    current = None
    for line in (text or '').splitlines():
        if not line.strip():
            continue
        m = _SECTION_RE.match(line)
        if m:
            current = m.group(1)
            body = line[m.end():]
        elif line.lstrip().startswith('=') and current:
            body = line.lstrip()[1:]
        else:
            continue
        target = sections.setdefault(current, {})
        # "meta-data=/dev/md127   isize=512": the first token of meta-data is the device
        first = body.strip().split(' ')[0] if body.strip() else ''
        if current == 'meta-data' and first.startswith('/') and 'device' not in target:
            target['device'] = first
        if current == 'log' and 'internal' in body and 'type' not in target:
            target['type'] = 'internal'
        for key, value in _PAIR_RE.findall(body):
            if key in target:
                continue
            target[key] = int(value) if value.isdigit() else value
    return sections


def geometry(info):
    """Summary of the data section: bsize, sunit/swidth (blocks), su_kb, sw, agcount, blocks."""
    data = info.get('data', {})
    meta = info.get('meta-data', {})
    bsize = data.get('bsize')
    sunit = data.get('sunit', 0)
    swidth = data.get('swidth', 0)
    su_kb = None
    sw = None
    if isinstance(bsize, int) and isinstance(sunit, int) and isinstance(swidth, int):
        su_kb = sunit * bsize // 1024
        sw = swidth // sunit if sunit else 0
    return {
        'bsize': bsize,
        'sunit_blocks': sunit,
        'swidth_blocks': swidth,
        'su_kb': su_kb,
        'sw': sw,
        'agcount': meta.get('agcount'),
        'blocks': data.get('blocks'),
        'isize': meta.get('isize'),
        'crc': meta.get('crc'),
        'reflink': meta.get('reflink'),
        'log_sunit_blocks': info.get('log', {}).get('sunit'),
    }


def md_stripe(level, chunk_size_bytes, raid_disks):
    """Stripe (su_kb, sw) of an md array from sysfs values; None when it has no data stripe."""
    if level not in ('raid0', 'raid10', 'raid4', 'raid5', 'raid6'):
        return None
    try:
        chunk = int(chunk_size_bytes)
        disks = int(raid_disks)
    except (TypeError, ValueError):
        return None
    if chunk <= 0 or disks <= 0:
        return None
    data_disks = disks
    if level in ('raid4', 'raid5'):
        data_disks = disks - 1
    elif level == 'raid6':
        data_disks = disks - 2
    elif level == 'raid10':
        return None  # layout dependent; pass su_kb/sw explicitly
    return chunk // 1024, data_disks


def check_alignment(geom, su_kb, sw):
    """Problems (list) when the filesystem geometry does not match su_kb/sw."""
    if su_kb is None:
        return []
    problems = []
    if geom.get('su_kb') != su_kb:
        problems.append('stripe unit is %s KiB (xfs_info sunit=%s blks of %s bytes), wanted %s KiB'
                        % (geom.get('su_kb'), geom.get('sunit_blocks'), geom.get('bsize'), su_kb))
    if geom.get('sw') != sw:
        problems.append('stripe width is %s x su (xfs_info swidth=%s blks), wanted sw=%s'
                        % (geom.get('sw'), geom.get('swidth_blocks'), sw))
    return problems


def mkfs_argv(mkfs, device, label, su_kb, sw, uuid=None, force=False, discard=True):
    """mkfs.xfs's argv; ``uuid`` sets the new filesystem's UUID (``-m uuid=``), ``force`` (``-f``) only for a
    filesystem this module's own interrupted mkfs left (xfs_format.XfsFilesystem decides); ``discard`` false adds
    ``-K`` (no discard of the whole device before writing: the profile's mkfs.discard, docs/xfs.md)."""
    argv = [mkfs]
    if force:
        argv.append('-f')
    if not discard:
        argv.append('-K')
    if label:
        argv += ['-L', label]
    if su_kb:
        argv += ['-d', 'su=%dk,sw=%d' % (su_kb, sw)]
    if uuid:
        argv += ['-m', 'uuid=%s' % uuid]
    argv.append(device)
    return argv


# struct xfs_dsb: sb_inprogress, the byte mkfs.xfs sets while it writes a filesystem (and offline tools while they
# change one); the kernel refuses to mount a filesystem that has it ("Offline file system operation in progress")
SB_INPROGRESS_OFFSET = 126


def sb_inprogress(read_bytes, path):
    """Whether the XFS primary superblock on ``path`` says an offline operation (mkfs) did not finish;
    ``read_bytes(path, offset, length)`` -> bytes. None when it cannot be read."""
    try:
        data = read_bytes(path, SB_INPROGRESS_OFFSET, 1)
    except (IOError, OSError):
        return None
    return bool(data) and data != b'\x00'


# ---------------------------------------------------------------------------------------------
# The discard policy of an array's filesystem (a profile's discard_by_class; docs/xfs.md "Discard"): one home for the
# xfs_filesystem module (which adds the mount option discard for the policy online) and the audit.


def discard_class(dev_class, cloud_class, by_class):
    """The class whose policy a member takes: its cloud class (ebs, instance_store) when ``by_class`` names it, else
    its device class (nvme, virtual, ssd, hdd; None when the host could not tell)."""
    if cloud_class and cloud_class in (by_class or {}):
        return cloud_class
    return dev_class


def discard_policy(classes, by_class):
    """(policy, why) of a filesystem whose devices (an array's members, or the device itself) are of ``classes``
    ({kernel name: class as discard_class gives it}); policy None when the plan says nothing: no ``by_class``, no
    member known, or a member of a class ``by_class`` does not name. Members of different policies: the most
    conservative of theirs (DISCARD_POLICIES runs from none to online): md passes a discard to the members of the
    range, so an online discard or an fstrim reaches every member and is what each of them must take."""
    if not by_class:
        return None, 'the plan sets no discard policy'
    if not classes:
        return None, 'the members are not known (yet)'
    unnamed = sorted('%s (%s)' % (name, cls) for name, cls in classes.items() if cls not in by_class)
    if unnamed:
        return None, ('discard_by_class names no policy for %s: nothing managed' % ', '.join(unnamed))
    chosen = min((by_class[cls] for cls in classes.values()), key=DISCARD_POLICIES.index)
    shown = ', '.join('%s: %s -> %s' % (name, cls, by_class[cls]) for name, cls in sorted(classes.items()))
    if len(set(by_class[cls] for cls in classes.values())) > 1:
        return chosen, '%s (the most conservative of the members: %s)' % (chosen, shown)
    return chosen, '%s (%s)' % (chosen, shown)


def mount_stripe(options):
    """(sunit, swidth) in 512-byte sectors from a mount's options (/proc/self/mountinfo's super options show them for
    an XFS with a stripe), or (None, None)."""
    found = {}
    for option in options or []:
        key, sep, value = str(option).partition('=')
        if key in ('sunit', 'swidth') and sep and value.isdigit():
            found[key] = int(value)
    return found.get('sunit'), found.get('swidth')
