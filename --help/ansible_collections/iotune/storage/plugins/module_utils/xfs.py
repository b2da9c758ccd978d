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


def mkfs_argv(mkfs, device, label, su_kb, sw, uuid=None, force=False):
    """mkfs.xfs's argv; ``uuid`` sets the new filesystem's UUID (``-m uuid=``), ``force`` (``-f``) only for a
    filesystem this module's own interrupted mkfs left (xfs_format.XfsFilesystem decides)."""
    argv = [mkfs]
    if force:
        argv.append('-f')
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
