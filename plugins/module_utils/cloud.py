# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Cloud disk identity and array members chosen by it, in one place.

Two users:

- ``identify()`` turns what sysfs and /dev say about one whole disk into its cloud identity (the
  ``cloud`` fact of readahead_facts, built by sysfs_block.BlockInventory);
- ``resolve()`` turns a member *selector* of ``iotune_arrays[].devices`` into the one stable
  ``/dev/disk/...`` path per matching disk, on the host, over a host.BlockHost (the storage_preflight
  module calls it before anything changes). ``parse_selector()`` is the syntax check, shared with the
  controller's plan (plugins/plugin_utils/plan.py).

What each cloud shows the guest (the sources the unit test fixtures are shaped after):

- AWS Nitro (amazon-ec2-utils, 70-ec2-nvme-devices.rules; the NVMe driver's sysfs): an EBS volume is
  an NVMe controller with model ``Amazon Elastic Block Store`` and serial ``vol`` + the volume id
  without its dash (module_utils/ebs.py); instance store has model ``Amazon EC2 NVMe Instance
  Storage``. Xen instances show neither (``xvdX`` without a serial): no selector matches there.
- Azure, SCSI (WALinuxAgent 66-azure-storage.rules; azure-vm-utils udev/80-azure-disk.rules): vendor
  ``Msft``, model ``Virtual Disk``; the VMBus device above the SCSI host carries ``device_id``, data
  disks sit on ``{f8b3781b|c|d-1e82-4818-a1c3-63d806ec15bb}`` and their LUN is the last field of the
  SCSI address; links ``/dev/disk/azure/scsi1/lunN`` (WALinuxAgent) and ``/dev/disk/azure/data/by-lun/N``
  (azure-vm-utils).
- Azure, NVMe (azure-vm-utils udev/80-azure-disk.rules): remote disks are namespaces of one controller
  with model ``MSFT NVMe Accelerator v1.0``: namespace 1 is the OS disk, namespace N >= 2 the data disk
  of LUN N - 2 (link ``/dev/disk/azure/data/by-lun/N-2``); local disks have model ``Microsoft NVMe
  Direct Disk`` or ``Microsoft NVMe Direct Disk v2`` (links below ``/dev/disk/azure/local``).
- GCP (guest-configs src/lib/udev/rules.d/65-gce-disk-naming.rules): NVMe local SSDs have model
  ``nvme_card``; namespace N is local SSD N - 1, link ``/dev/disk/by-id/google-local-nvme-ssd-N-1``;
  persistent disks on NVMe have model ``nvme_card-pd``. SCSI local SSDs have vendor ``Google``, model
  ``EphemeralDisk`` and serial ``local-ssd-N`` (by-id ``scsi-0Google_EphemeralDisk_local-ssd-N`` and
  ``google-local-ssd-N``); persistent disks have model ``PersistentDisk``.

Nothing here runs a command or writes anything.
"""

from __future__ import annotations

import os
import re

from ansible_collections.iotune.storage.plugins.module_utils import ebs

SELECTOR_KEYS = ('ebs_volume_id', 'azure_lun', 'gcp_local_ssd', 'instance_store')
# Azure attaches data disks at LUN 0..63; GCP gives at most a few dozen local SSDs.
AZURE_LUN_MAX = 63
GCP_LOCAL_SSD_MAX = 63

AZURE_SCSI_VENDOR = 'Msft'
AZURE_SCSI_MODEL = 'Virtual Disk'
AZURE_NVME_REMOTE_MODEL = 'MSFT NVMe Accelerator v1.0'
AZURE_NVME_LOCAL_MODELS = ('Microsoft NVMe Direct Disk', 'Microsoft NVMe Direct Disk v2')
# VMBus device_id of the SCSI controllers that carry data disks (azure-vm-utils, WALinuxAgent rules)
AZURE_DATA_CONTROLLERS = tuple('{f8b3781%s-1e82-4818-a1c3-63d806ec15bb}' % c for c in 'bcd')
AZURE_GEN2_CONTROLLER = '{f8b3781a-1e82-4818-a1c3-63d806ec15bb}'
GCP_NVME_LOCAL_MODEL = 'nvme_card'
GCP_NVME_PD_MODEL = 'nvme_card-pd'
GCP_SCSI_VENDOR = 'Google'
GCP_SCSI_LOCAL_MODEL = 'EphemeralDisk'
GCP_SCSI_PD_MODEL = 'PersistentDisk'

_AZURE_LUN_LINK = re.compile(r'^/dev/disk/azure/(?:scsi1/lun|data/by-lun/)([0-9]+)$')
_GCP_LOCAL_LINK = re.compile(r'^/dev/disk/by-id/google-local-(?:nvme-)?ssd-([0-9]+)$')
_GCP_LOCAL_SERIAL = re.compile(r'^local-(?:nvme-)?ssd-([0-9]+)$')


class SelectorError(ValueError):
    """A selector that is not well formed (controller) or does not name exactly what it should (host)."""


# ---------------------------------------------------------------------------------------------
# selectors: syntax


def is_selector(item):
    return isinstance(item, dict)


def _index(value, key, maximum):
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str) and value.isdigit())):
        raise SelectorError('%s must be a whole number 0..%d, got %r' % (key, maximum, value))
    number = int(value)
    if number < 0 or number > maximum:
        raise SelectorError('%s must be a whole number 0..%d, got %d' % (key, maximum, number))
    return number


def parse_selector(value):
    """The normalised selector dict of ``value``; raises SelectorError naming what is wrong.

    ``{ebs_volume_id: vol-...}`` (either spelling; kept with the dash), ``{azure_lun: N}``,
    ``{gcp_local_ssd: N}``, ``{instance_store: all}`` with an optional ``count: K`` (K >= 1).
    """
    if not isinstance(value, dict):
        raise SelectorError('a member selector must be a dict such as {ebs_volume_id: vol-0123...}, got %r' % (value,))
    keys = [k for k in SELECTOR_KEYS if k in value]
    stray = sorted(set(value) - set(SELECTOR_KEYS) - set(['count']), key=str)
    if stray:
        raise SelectorError('unknown key%s %s in member selector %r (known: %s, and count with instance_store)'
                            % ('s' if len(stray) > 1 else '', ', '.join(map(str, stray)), value,
                               ', '.join(SELECTOR_KEYS)))
    if len(keys) != 1:
        raise SelectorError('a member selector needs exactly one of %s, got %r' % (', '.join(SELECTOR_KEYS), value))
    key = keys[0]
    if 'count' in value and key != 'instance_store':
        raise SelectorError('count goes with instance_store only, got %r' % (value,))
    if key == 'ebs_volume_id':
        raw = value[key]
        try:
            serial = ebs.serial_for_volume_id(raw if isinstance(raw, str) else None)
        except ValueError:
            raise SelectorError('ebs_volume_id %r is not an EBS volume id (vol-0123456789abcdef0)' % (raw,))
        return {'ebs_volume_id': ebs.volume_id_for_serial(serial)}
    if key == 'azure_lun':
        return {'azure_lun': _index(value[key], key, AZURE_LUN_MAX)}
    if key == 'gcp_local_ssd':
        return {'gcp_local_ssd': _index(value[key], key, GCP_LOCAL_SSD_MAX)}
    if value[key] != 'all':
        raise SelectorError("instance_store takes the value all (every instance-store disk), got %r" % (value[key],))
    count = value.get('count')
    if count is not None:
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise SelectorError('instance_store count must be a whole number >= 1, got %r' % (count,))
    return {'instance_store': 'all', 'count': count}


def describe(selector):
    """``ebs_volume_id=vol-...``, ``azure_lun=2``, ``instance_store=all (count 4)`` for messages."""
    for key in SELECTOR_KEYS:
        if key in selector:
            text = '%s=%s' % (key, selector[key])
            if key == 'instance_store' and selector.get('count') is not None:
                text += ' (count %d)' % selector['count']
            return text
    return repr(selector)


def single(selector):
    """True for selectors that name one disk (all but instance_store)."""
    return 'instance_store' not in selector


# ---------------------------------------------------------------------------------------------
# identity of one disk


def nsid_of(name, nsid_attr=None):
    """The NVMe namespace id: sysfs ``nsid``, else the N of ``nvmeXnN``; None for other disks."""
    if nsid_attr and nsid_attr.strip().isdigit():
        return int(nsid_attr.strip())
    m = re.match(r'^nvme[0-9]+n([0-9]+)$', name or '')
    return int(m.group(1)) if m else None


def identify(name, model=None, vendor=None, serial=None, nsid=None, scsi_address=None, vmbus_device_id=None,
             links=()):
    """The cloud identity of a whole disk, or None.

    ``links`` are the /dev paths that udev made for the disk (``/dev/disk/by-id/...``,
    ``/dev/disk/azure/...``); they win over what sysfs alone allows to work out, because they are what the
    cloud's own udev rules decided.
    """
    links = list(links or ())
    if model == ebs.EBS_MODEL:
        return {'provider': 'aws', 'ebs_volume_id': ebs.volume_id_for_serial(serial), 'instance_store': False}
    if model == ebs.INSTANCE_STORE_MODEL:
        return {'provider': 'aws', 'ebs_volume_id': None, 'instance_store': True}
    azure_links = sorted(os.path.relpath(link, '/dev/disk/azure') for link in links
                         if link.startswith('/dev/disk/azure/'))
    if (vendor == AZURE_SCSI_VENDOR and model == AZURE_SCSI_MODEL) or model == AZURE_NVME_REMOTE_MODEL \
            or model in AZURE_NVME_LOCAL_MODELS:
        return _azure(name, model, nsid, scsi_address, vmbus_device_id, links, azure_links)
    gcp_index = None
    for link in links:
        m = _GCP_LOCAL_LINK.match(link)
        if m:
            gcp_index = int(m.group(1))
    if model == GCP_NVME_LOCAL_MODEL or (vendor == GCP_SCSI_VENDOR and model == GCP_SCSI_LOCAL_MODEL):
        if gcp_index is None and model == GCP_NVME_LOCAL_MODEL and nsid is not None and nsid >= 1:
            gcp_index = nsid - 1
        if gcp_index is None and serial:
            m = _GCP_LOCAL_SERIAL.match(serial)
            gcp_index = int(m.group(1)) if m else None
        return {'provider': 'gcp', 'local_ssd': gcp_index, 'instance_store': True,
                'interface': 'nvme' if model == GCP_NVME_LOCAL_MODEL else 'scsi'}
    if model == GCP_NVME_PD_MODEL or (vendor == GCP_SCSI_VENDOR and model == GCP_SCSI_PD_MODEL):
        return {'provider': 'gcp', 'local_ssd': None, 'instance_store': False,
                'interface': 'nvme' if model == GCP_NVME_PD_MODEL else 'scsi'}
    return None


def _azure(name, model, nsid, scsi_address, vmbus_device_id, links, azure_links):
    lun = None
    disk_type = None
    if model in AZURE_NVME_LOCAL_MODELS:
        disk_type = 'local'
    elif model == AZURE_NVME_REMOTE_MODEL:
        if nsid == 1:
            disk_type = 'os'
        elif nsid is not None and nsid >= 2:
            disk_type, lun = 'data', nsid - 2
    else:
        if scsi_address:
            lun = int(scsi_address.split(':')[3])
        if vmbus_device_id in AZURE_DATA_CONTROLLERS:
            disk_type = 'data'
        elif vmbus_device_id == AZURE_GEN2_CONTROLLER and lun in (0, 1):
            disk_type = 'os' if lun == 0 else 'resource'
        elif vmbus_device_id and vmbus_device_id[1:].startswith('00000000-0000-'):
            disk_type = 'os'
        elif vmbus_device_id and vmbus_device_id[1:].startswith('00000000-0001-'):
            disk_type = 'resource'
    for link in links:
        m = _AZURE_LUN_LINK.match(link)
        if m:
            disk_type, lun = 'data', int(m.group(1))
        elif link in ('/dev/disk/azure/root', '/dev/disk/azure/os'):
            disk_type = 'os'
        elif link == '/dev/disk/azure/resource':
            disk_type = 'resource'
    result = {'provider': 'azure', 'lun': lun, 'scsi_address': scsi_address, 'azure_links': azure_links,
              'disk_type': disk_type, 'instance_store': disk_type == 'local'}
    if model in AZURE_NVME_LOCAL_MODELS or model == AZURE_NVME_REMOTE_MODEL:
        result['nvme_nsid'] = nsid
    return result


# ---------------------------------------------------------------------------------------------
# selectors: resolution on the host


def matches(selector, info):
    """Does the disk whose readahead_facts entry is ``info`` match ``selector``?"""
    cloud = info.get('cloud') or {}
    if 'ebs_volume_id' in selector:
        # the serial, whatever the model: on Nitro the model is EBS's, in the lab it is qemu's
        return (info.get('serial') or '').strip() == ebs.serial_for_volume_id(selector['ebs_volume_id'])
    if 'azure_lun' in selector:
        return (cloud.get('provider') == 'azure' and cloud.get('disk_type') == 'data'
                and cloud.get('lun') == selector['azure_lun'])
    if 'gcp_local_ssd' in selector:
        return cloud.get('provider') == 'gcp' and cloud.get('local_ssd') == selector['gcp_local_ssd']
    if 'instance_store' in selector:
        return cloud.get('instance_store') is True
    return False


def _link_rank(link, info, selector, shared_nsid=None):
    """Sort key of a disk's links: the cloud's own name first, then the link carrying the serial.

    ``shared_nsid``: the namespace id of an NVMe namespace whose controller has other namespaces. They
    share the controller's model and serial, and udev gives the bare ``nvme-<model>_<serial>`` link to
    whichever of them had the last event (Azure's remote disks, GCP's local SSDs): there only the
    namespace link ``..._<nsid>`` (systemd 254 and later) names this disk, and the bare link is never used.
    """
    base = os.path.basename(link)
    serial = (info.get('serial') or '').strip()
    by_id_model_link = link.startswith('/dev/disk/by-id/') and re.match(r'^(nvme|scsi|virtio|ata)-', base) \
        and not base.startswith(('nvme-eui.', 'nvme-nvme.'))
    if 'ebs_volume_id' in selector and base == ebs.by_id_link(selector['ebs_volume_id']):
        rank = 0
    elif 'azure_lun' in selector and _AZURE_LUN_LINK.match(link):
        rank = 0 if '/data/by-lun/' in link else 1
    elif _GCP_LOCAL_LINK.match(link):
        rank = 1
    elif shared_nsid is not None:
        rank = 2 if by_id_model_link and base.endswith('_%d' % shared_nsid) else (4 if link.startswith(
            '/dev/disk/by-id/nvme-eui.') or link.startswith('/dev/disk/by-id/nvme-nvme.') else 7)
    elif link.startswith('/dev/disk/by-id/') and serial and base.endswith('_' + serial):
        rank = 2
    elif by_id_model_link and not re.search(r'_[0-9]+$', base):
        rank = 3
    elif link.startswith('/dev/disk/by-id/wwn-') or link.startswith('/dev/disk/by-id/'):
        rank = 4
    else:
        rank = 5
    return (rank, len(link), link)


def stable_path(info, selector, shared_nsid=None):
    """The one stable /dev/disk path of a matched disk (see _link_rank); None when udev made none."""
    links = [link for link in (info.get('by_id') or []) + ['/dev/disk/azure/' + a for a in
                                                           (info.get('cloud') or {}).get('azure_links') or []]
             if not re.search(r'-part[0-9]+$', link)]
    if not links:
        return None
    return sorted(links, key=lambda link: _link_rank(link, info, selector, shared_nsid))[0]


def resolve(host, selector):
    """[(kname, stable path)] of the disks ``selector`` (normalised) names, in the natural order of the stable
    paths (local-ssd-2 before local-ssd-10): the same order at every boot, whatever order the kernel probed
    the disks in (SCSI disks are probed in parallel, so sda and sdb can swap between boots).

    Raises SelectorError naming the selector when nothing matches, when a single-disk selector matches
    more than one disk, when instance_store matches another number of disks than its count, or when a
    matched disk has no stable link. Whether a disk is free to use is the caller's check.
    """
    inv = host.inventory()
    what = describe(selector)
    found = []
    for name in inv.order:
        if inv.parents.get(name):
            continue
        info = inv.device(name)
        if info['type'] not in ('nvme', 'disk'):
            continue
        if matches(selector, info):
            found.append((name, info))
    if not found:
        raise SelectorError('%s matches no disk on this host (%s)' % (what, _seen(inv)))
    names = ', '.join('/dev/' + n for n, dummy in found)
    if single(selector) and len(found) > 1:
        raise SelectorError('%s matches %d disks (%s); it must name exactly one' % (what, len(found), names))
    count = selector.get('count')
    if count is not None and len(found) != count:
        raise SelectorError('%s matches %d disks (%s), not %d' % (what, len(found), names, count))
    result = []
    for name, info in found:
        path = stable_path(info, selector, _shared_nsid(inv, name, info))
        if path is None:
            raise SelectorError('%s matches /dev/%s, which has no /dev/disk/by-id link (udev has not named it)'
                                % (what, name))
        result.append((name, path))
    return sorted(result, key=lambda found: _natural(found[1]))


def _natural(text):
    """Sort key: runs of digits compare as numbers."""
    return [(1, int(part), '') if part.isdigit() else (0, 0, part) for part in re.findall(r'\d+|\D+', text)]


def _shared_nsid(inv, name, info):
    """The namespace id of NVMe namespace ``name`` when its controller has other namespaces, else None."""
    m = re.match(r'^(nvme[0-9]+)n[0-9]+$', name)
    if not m:
        return None
    siblings = [n for n in inv.order if re.match(r'^%sn[0-9]+$' % m.group(1), n)]
    return nsid_of(name, info.get('nsid')) if len(siblings) > 1 else None


def _seen(inv):
    """What the host shows, for a selector that matched nothing."""
    seen = []
    for name in inv.order:
        if inv.parents.get(name):
            continue
        info = inv.device(name)
        cloud = info.get('cloud')
        if cloud and cloud.get('provider') in ('aws', 'azure', 'gcp'):
            ident = ', '.join('%s=%s' % (k, cloud[k]) for k in ('ebs_volume_id', 'disk_type', 'lun', 'local_ssd',
                                                                'instance_store') if cloud.get(k) is not None)
            seen.append('/dev/%s: %s %s' % (name, cloud['provider'], ident))
        elif (info.get('serial') or '').startswith('vol'):
            seen.append('/dev/%s: serial %s' % (name, info['serial']))
    return 'cloud disks seen: ' + ('; '.join(seen) if seen else 'none')
