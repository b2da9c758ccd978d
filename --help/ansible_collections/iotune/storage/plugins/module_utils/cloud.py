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

Each kind of selector is one class of the registry ``SELECTORS`` (a subclass of ``Selector``, registered with
``@register``): its key, the check of its value, the identity of its cloud's disks, what it matches and the links
it prefers. The module's functions (``parse_selector``, ``describe``, ``single``, ``identify``, ``matches``,
``stable_path``, ``resolve``) are loops over the registry; adding a selector is one class and its tests
(CONTRIBUTING.md). ``EbsVolumeId`` is the one home of reading an EBS volume id and matching it to a disk's serial:
udev_block_tuning's ``ebs_volume_id`` (module_utils/block_tuning.py) uses it too.

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

import collections
import os
import re

from ansible_collections.iotune.storage.plugins.module_utils import ebs
from ansible_collections.iotune.storage.plugins.module_utils.rules import did_you_mean

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

# What identify() is given about one whole disk (``links``: a list of the /dev paths udev made for it).
Disk = collections.namedtuple('Disk', 'name model vendor serial nsid scsi_address vmbus_device_id links')


class SelectorError(ValueError):
    """A selector that is not well formed (controller) or does not name exactly what it should (host)."""


# ---------------------------------------------------------------------------------------------
# the registry: one class per kind of selector


SELECTORS = []  # the registered classes, in the order messages name their keys (SELECTOR_KEYS)


def register(cls):
    """Class decorator: add a Selector subclass to SELECTORS (each key and extra key belongs to one class)."""
    taken = set(k for kind in SELECTORS for k in (kind.key,) + tuple(kind.extra_keys))
    if not cls.key or set((cls.key,) + tuple(cls.extra_keys)) & taken:
        raise ValueError('selector class %s: key %r missing or registered twice' % (cls.__name__, cls.key))
    SELECTORS.append(cls)
    return cls


class Selector:
    """One kind of member selector, a dict with one ``key`` (and ``extra_keys``, such as instance_store's count).

    A subclass sets the attributes, implements ``parse`` and ``matches`` and overrides what else it needs;
    classmethods only, the class itself is what SELECTORS holds.
    """

    key = None            # the selector's key in the dict
    extra_keys = ()       # other keys it takes beside its key
    single = True         # names one disk: resolve() refuses a second match
    provider = None       # the cloud whose disks identify() reports ('cloud' fact), None for none
    example = None        # one valid selector (the registry's tests)

    @classmethod
    def parse(cls, value):
        """The normalised selector of ``value`` (a dict with ``key``, no keys of other kinds); SelectorError."""
        raise NotImplementedError

    @classmethod
    def describe(cls, selector):
        """``key=value`` for messages."""
        return '%s=%s' % (cls.key, selector[cls.key])

    @classmethod
    def identify(cls, disk):
        """The cloud identity of ``disk`` (a Disk) when it is one of ``provider``'s disks, else None."""
        return None

    @classmethod
    def matches(cls, selector, info):
        """Does the disk whose readahead_facts entry is ``info`` match the (normalised) ``selector``?"""
        raise NotImplementedError

    @classmethod
    def link_rank(cls, link, selector):
        """The rank of one of a matched disk's links when this kind prefers it (0 first), else None: then the
        common ranking of stable_path() decides."""
        return None


@register
class EbsVolumeId(Selector):
    """``{ebs_volume_id: vol-...}`` (either spelling; kept with the dash): the disk whose serial is the volume id
    without its dash (module_utils/ebs.py), whatever its model reads (EBS's on Nitro, qemu's in the lab).

    The one home of reading a volume id and matching it to a disk's serials: block_tuning uses ``serial`` and
    ``serial_matches`` for udev_block_tuning's ``ebs_volume_id``."""

    key = 'ebs_volume_id'
    provider = 'aws'
    example = {'ebs_volume_id': 'vol-0123456789abcdef0'}

    @classmethod
    def serial(cls, value):
        """The NVMe serial (``vol0123...``) of the volume id ``value`` (``vol-0123...`` or ``vol0123...``)."""
        try:
            return ebs.serial_for_volume_id(value if isinstance(value, str) else None)
        except ValueError:
            raise SelectorError('%s %r is not an EBS volume id (vol-0123456789abcdef0)' % (cls.key, value))

    @classmethod
    def serial_matches(cls, value, *serials):
        """True when one of a disk's serials (sysfs, udev ID_SERIAL_SHORT; spaces around ignored) is volume
        ``value``'s (either spelling, or its serial)."""
        wanted = cls.serial(value)
        return any((serial or '').strip() == wanted for serial in serials)

    @classmethod
    def parse(cls, value):
        return {cls.key: ebs.volume_id_for_serial(cls.serial(value[cls.key]))}

    @classmethod
    def identify(cls, disk):
        if disk.model == ebs.EBS_MODEL:
            return {'provider': 'aws', 'ebs_volume_id': ebs.volume_id_for_serial(disk.serial), 'instance_store': False}
        if disk.model == ebs.INSTANCE_STORE_MODEL:
            return {'provider': 'aws', 'ebs_volume_id': None, 'instance_store': True}
        return None

    @classmethod
    def matches(cls, selector, info):
        return cls.serial_matches(selector[cls.key], info.get('serial'))

    @classmethod
    def link_rank(cls, link, selector):
        return 0 if os.path.basename(link) == ebs.by_id_link(selector[cls.key]) else None


class IndexSelector(Selector):
    """A selector whose value is a whole number 0..``maximum`` (``'2'`` is read as 2)."""

    maximum = 0           # the subclass's largest value

    @classmethod
    def parse(cls, value):
        number = value[cls.key]
        if isinstance(number, bool) or not (isinstance(number, int) or (isinstance(number, str) and number.isdigit())):
            raise SelectorError('%s must be a whole number 0..%d, got %r' % (cls.key, cls.maximum, number))
        number = int(number)
        if number < 0 or number > cls.maximum:
            raise SelectorError('%s must be a whole number 0..%d, got %d' % (cls.key, cls.maximum, number))
        return {cls.key: number}


@register
class AzureLun(IndexSelector):
    """``{azure_lun: N}``: the Azure data disk of LUN N (SCSI or NVMe sizes); its links of the Azure rules first."""

    key = 'azure_lun'
    maximum = AZURE_LUN_MAX
    provider = 'azure'
    example = {'azure_lun': 0}

    @classmethod
    def identify(cls, disk):
        model = disk.model
        if not ((disk.vendor == AZURE_SCSI_VENDOR and model == AZURE_SCSI_MODEL) or model == AZURE_NVME_REMOTE_MODEL
                or model in AZURE_NVME_LOCAL_MODELS):
            return None
        disk_type, lun = _azure_type_and_lun(disk)
        result = {'provider': 'azure', 'lun': lun, 'scsi_address': disk.scsi_address,
                  'azure_links': sorted(os.path.relpath(link, '/dev/disk/azure') for link in disk.links
                                        if link.startswith('/dev/disk/azure/')),
                  'disk_type': disk_type, 'instance_store': disk_type == 'local'}
        if model in AZURE_NVME_LOCAL_MODELS or model == AZURE_NVME_REMOTE_MODEL:
            result['nvme_nsid'] = disk.nsid
        return result

    @classmethod
    def matches(cls, selector, info):
        cloud = info.get('cloud') or {}
        return (cloud.get('provider') == 'azure' and cloud.get('disk_type') == 'data'
                and cloud.get('lun') == selector[cls.key])

    @classmethod
    def link_rank(cls, link, selector):
        if _AZURE_LUN_LINK.match(link):
            return 0 if '/data/by-lun/' in link else 1
        return None


def _azure_type_and_lun(disk):
    """(disk_type, lun) of an Azure disk: from the model and sysfs, then the links of the Azure rules win."""
    lun = None
    disk_type = None
    vmbus = disk.vmbus_device_id
    if disk.model in AZURE_NVME_LOCAL_MODELS:
        disk_type = 'local'
    elif disk.model == AZURE_NVME_REMOTE_MODEL:
        if disk.nsid == 1:
            disk_type = 'os'
        elif disk.nsid is not None and disk.nsid >= 2:
            disk_type, lun = 'data', disk.nsid - 2
    else:
        if disk.scsi_address:
            lun = int(disk.scsi_address.split(':')[3])
        if vmbus in AZURE_DATA_CONTROLLERS:
            disk_type = 'data'
        elif vmbus == AZURE_GEN2_CONTROLLER and lun in (0, 1):
            disk_type = 'os' if lun == 0 else 'resource'
        elif vmbus and vmbus[1:].startswith('00000000-0000-'):
            disk_type = 'os'
        elif vmbus and vmbus[1:].startswith('00000000-0001-'):
            disk_type = 'resource'
    for link in disk.links:
        m = _AZURE_LUN_LINK.match(link)
        if m:
            disk_type, lun = 'data', int(m.group(1))
        elif link in ('/dev/disk/azure/root', '/dev/disk/azure/os'):
            disk_type = 'os'
        elif link == '/dev/disk/azure/resource':
            disk_type = 'resource'
    return disk_type, lun


@register
class GcpLocalSsd(IndexSelector):
    """``{gcp_local_ssd: N}``: GCP local SSD N (NVMe or SCSI); the link of Google's rules first."""

    key = 'gcp_local_ssd'
    maximum = GCP_LOCAL_SSD_MAX
    provider = 'gcp'
    example = {'gcp_local_ssd': 0}

    @classmethod
    def identify(cls, disk):
        model, vendor = disk.model, disk.vendor
        if model == GCP_NVME_LOCAL_MODEL or (vendor == GCP_SCSI_VENDOR and model == GCP_SCSI_LOCAL_MODEL):
            return {'provider': 'gcp', 'local_ssd': _gcp_index(disk), 'instance_store': True,
                    'interface': 'nvme' if model == GCP_NVME_LOCAL_MODEL else 'scsi'}
        if model == GCP_NVME_PD_MODEL or (vendor == GCP_SCSI_VENDOR and model == GCP_SCSI_PD_MODEL):
            return {'provider': 'gcp', 'local_ssd': None, 'instance_store': False,
                    'interface': 'nvme' if model == GCP_NVME_PD_MODEL else 'scsi'}
        return None

    @classmethod
    def matches(cls, selector, info):
        cloud = info.get('cloud') or {}
        return cloud.get('provider') == 'gcp' and cloud.get('local_ssd') == selector[cls.key]

    # its link google-local-(nvme-)ssd-N ranks first by the common ranking (_common_rank), for instance_store too


def _gcp_index(disk):
    """The index of a GCP local SSD: its google-local link (the last one), else NVMe namespace - 1, else serial."""
    index = None
    for link in disk.links:
        m = _GCP_LOCAL_LINK.match(link)
        if m:
            index = int(m.group(1))
    if index is None and disk.model == GCP_NVME_LOCAL_MODEL and disk.nsid is not None and disk.nsid >= 1:
        index = disk.nsid - 1
    if index is None and disk.serial:
        m = _GCP_LOCAL_SERIAL.match(disk.serial)
        index = int(m.group(1)) if m else None
    return index


@register
class InstanceStore(Selector):
    """``{instance_store: all}`` with an optional ``count: K`` (K >= 1): every disk whose identity says instance
    store (AWS, Azure local NVMe, GCP local SSD); refused when another number than K matches."""

    key = 'instance_store'
    extra_keys = ('count',)
    single = False
    example = {'instance_store': 'all', 'count': 2}

    @classmethod
    def parse(cls, value):
        if value[cls.key] != 'all':
            raise SelectorError("instance_store takes the value all (every instance-store disk), got %r"
                                % (value[cls.key],))
        count = value.get('count')
        if count is not None:
            if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                raise SelectorError('instance_store count must be a whole number >= 1, got %r' % (count,))
        return {'instance_store': 'all', 'count': count}

    @classmethod
    def describe(cls, selector):
        text = super().describe(selector)
        if selector.get('count') is not None:
            text += ' (count %d)' % selector['count']
        return text

    @classmethod
    def matches(cls, selector, info):
        return (info.get('cloud') or {}).get('instance_store') is True

    # no link of its own: a GCP local SSD's google-local link first (_common_rank), else the disk's by-id link


# A class registered below this line would be missing here; the registry's tests would fail (test_selector_registry.py).
SELECTOR_KEYS = tuple(kind.key for kind in SELECTORS)
_EXTRA_KEYS = tuple(extra for kind in SELECTORS for extra in kind.extra_keys)
_PROVIDERS = tuple(kind.provider for kind in SELECTORS if kind.provider)


def kind_of(selector):
    """The registered class whose key ``selector`` holds (the first in SELECTORS), or None."""
    return next((kind for kind in SELECTORS if kind.key in selector), None)


# ---------------------------------------------------------------------------------------------
# selectors: syntax


def is_selector(item):
    return isinstance(item, dict)


def parse_selector(value):
    """The normalised selector dict of ``value``; raises SelectorError naming what is wrong.

    ``{ebs_volume_id: vol-...}`` (either spelling; kept with the dash), ``{azure_lun: N}``,
    ``{gcp_local_ssd: N}``, ``{instance_store: all}`` with an optional ``count: K`` (K >= 1): one class of
    SELECTORS each.
    """
    if not isinstance(value, dict):
        raise SelectorError('a member selector must be a dict such as {ebs_volume_id: vol-0123...}, got %r' % (value,))
    keys = [k for k in SELECTOR_KEYS if k in value]
    stray = sorted(set(value) - set(SELECTOR_KEYS) - set(_EXTRA_KEYS), key=str)
    if stray:
        raise SelectorError('unknown key%s %s in member selector %r (known: %s%s)'
                            % ('s' if len(stray) > 1 else '',
                               ', '.join(str(k) + did_you_mean(k, SELECTOR_KEYS + _EXTRA_KEYS) for k in stray), value,
                               ', '.join(SELECTOR_KEYS),
                               ''.join(', and %s with %s' % (extra, kind.key) for kind in SELECTORS
                                       for extra in kind.extra_keys)))
    if len(keys) != 1:
        raise SelectorError('a member selector needs exactly one of %s, got %r' % (', '.join(SELECTOR_KEYS), value))
    kind = kind_of(value)
    misplaced = [extra for extra in _EXTRA_KEYS if extra in value and extra not in kind.extra_keys]
    if misplaced:
        raise SelectorError('%s goes with %s only, got %r'
                            % (misplaced[0], ' or '.join(k.key for k in SELECTORS if misplaced[0] in k.extra_keys),
                               value))
    return kind.parse(value)


def describe(selector):
    """``ebs_volume_id=vol-...``, ``azure_lun=2``, ``instance_store=all (count 4)`` for messages."""
    kind = kind_of(selector)
    return kind.describe(selector) if kind else repr(selector)


def single(selector):
    """True for selectors that name one disk (all but instance_store)."""
    return not any(kind.key in selector for kind in SELECTORS if not kind.single)


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
    """The cloud identity of a whole disk, or None (the first class of SELECTORS that knows the disk's cloud).

    ``links`` are the /dev paths that udev made for the disk (``/dev/disk/by-id/...``,
    ``/dev/disk/azure/...``); they win over what sysfs alone allows to work out, because they are what the
    cloud's own udev rules decided.
    """
    disk = Disk(name, model, vendor, serial, nsid, scsi_address, vmbus_device_id, list(links or ()))
    for kind in SELECTORS:
        found = kind.identify(disk)
        if found is not None:
            return found
    return None


# ---------------------------------------------------------------------------------------------
# selectors: resolution on the host


def matches(selector, info):
    """Does the disk whose readahead_facts entry is ``info`` match ``selector``?"""
    kind = kind_of(selector)
    return kind.matches(selector, info) if kind else False


def _link_rank(link, info, selector, shared_nsid=None):
    """Sort key of a disk's links: the link the selector's class prefers (Selector.link_rank), then the link
    carrying the serial.

    ``shared_nsid``: the namespace id of an NVMe namespace whose controller has other namespaces. They
    share the controller's model and serial, and udev gives the bare ``nvme-<model>_<serial>`` link to
    whichever of them had the last event (Azure's remote disks, GCP's local SSDs): there only the
    namespace link ``..._<nsid>`` (systemd 254 and later) names this disk, and the bare link is never used.
    """
    rank = next((r for r in (kind.link_rank(link, selector) for kind in SELECTORS if kind.key in selector)
                 if r is not None), None)
    if rank is None:
        rank = _common_rank(link, info, shared_nsid)
    return (rank, len(link), link)


def _common_rank(link, info, shared_nsid):
    """The rank of a link no selector class prefers: the link Google's rules give a local SSD (whichever selector
    matched it: gcp_local_ssd, instance_store), the namespace link of a shared controller, the by-id link ending in
    the serial, a by-id link of model and serial, any by-id link, anything else."""
    base = os.path.basename(link)
    serial = (info.get('serial') or '').strip()
    by_id_model_link = link.startswith('/dev/disk/by-id/') and re.match(r'^(nvme|scsi|virtio|ata)-', base) \
        and not base.startswith(('nvme-eui.', 'nvme-nvme.'))
    if _GCP_LOCAL_LINK.match(link):
        return 1
    if shared_nsid is not None:
        return 2 if by_id_model_link and base.endswith('_%d' % shared_nsid) else (4 if link.startswith(
            '/dev/disk/by-id/nvme-eui.') or link.startswith('/dev/disk/by-id/nvme-nvme.') else 7)
    if link.startswith('/dev/disk/by-id/') and serial and base.endswith('_' + serial):
        return 2
    if by_id_model_link and not re.search(r'_[0-9]+$', base):
        return 3
    if link.startswith('/dev/disk/by-id/'):  # wwn-... and the rest
        return 4
    return 5


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
        if cloud and cloud.get('provider') in _PROVIDERS:
            ident = ', '.join('%s=%s' % (k, cloud[k]) for k in ('ebs_volume_id', 'disk_type', 'lun', 'local_ssd',
                                                                'instance_store') if cloud.get(k) is not None)
            seen.append('/dev/%s: %s %s' % (name, cloud['provider'], ident))
        elif (info.get('serial') or '').startswith('vol'):
            seen.append('/dev/%s: serial %s' % (name, info['serial']))
    return 'cloud disks seen: ' + ('; '.join(seen) if seen else 'none')
