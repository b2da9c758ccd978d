# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The EBS volume id <-> NVMe serial mapping, in one place.

Users write the volume id as the AWS console and API show it, ``vol-0123456789abcdef0``. The NVMe
controller of an EBS volume reports the id *without* the dash as its serial (``vol0123456789abcdef0``:
sysfs device/serial, udev ID_SERIAL_SHORT, the by-id link
``/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0``). Both spellings are
accepted wherever an id is read.
"""

from __future__ import annotations

import re

EBS_MODEL = 'Amazon Elastic Block Store'
INSTANCE_STORE_MODEL = 'Amazon EC2 NVMe Instance Storage'

# 8 hex digits (volumes created before 2018) or 17
_VOLUME_ID_RE = re.compile(r'^vol-?([0-9a-f]{8}|[0-9a-f]{17})$')


def serial_for_volume_id(value):
    """The NVMe serial (``vol0123...``) of an EBS volume id given as ``vol-0123...`` or ``vol0123...``.

    Raises ValueError when ``value`` is not an EBS volume id.
    """
    m = _VOLUME_ID_RE.match((value or '').strip())
    if not m:
        raise ValueError('%r is not an EBS volume id (vol-0123456789abcdef0)' % (value,))
    return 'vol' + m.group(1)


def volume_id_for_serial(serial):
    """The volume id (``vol-0123...``) an EBS NVMe serial (``vol0123...``, or already dashed) names; None otherwise."""
    if not serial or not serial.startswith('vol'):
        return None
    rest = serial[3:]
    return 'vol-' + (rest[1:] if rest.startswith('-') else rest)


def by_id_link(value):
    """The /dev/disk/by-id name udev gives the EBS volume ``value`` (either spelling)."""
    return 'nvme-Amazon_Elastic_Block_Store_' + serial_for_volume_id(value)
