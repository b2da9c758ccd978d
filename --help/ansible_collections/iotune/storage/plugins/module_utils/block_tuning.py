# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""State logic of the udev_block_tuning module.

Pure functions over a sysfs tree, the udev database and the tuned configuration, so that unit
tests can run them against fake trees. Nothing here writes to the host.
"""

from __future__ import annotations

import fnmatch
import os
import re

from ansible_collections.iotune.storage.plugins.module_utils import ebs
from ansible_collections.iotune.storage.plugins.module_utils.cloud import EbsVolumeId, SelectorError
from ansible_collections.iotune.storage.plugins.module_utils.md_identity import (
    md_uuid_colon,
    name_matches,
    short_name,
    udev_name_glob,
)
from ansible_collections.iotune.storage.plugins.module_utils.sysfs_block import (
    parse_scheduler,
    parse_udev_db,
    read_text,
)
from ansible_collections.iotune.storage.plugins.module_utils.rules import (
    DEVICE_CLASSES,
    NOMERGES_CHOICES,
    QUEUE_KEYS,
    READ_AHEAD_MAX_KB,
    RQ_AFFINITY_CHOICES,
    SCHEDULER_ALIASES,
    WRITE_CACHE_CHOICES,
    queue_class_problem,
    queue_value_problem,
    scheduler_problem,
    valid_read_ahead_kb,
)

SELECTOR_KEYS = ('device', 'md_name', 'md_uuid', 'ebs_volume_id', 'serial', 'kernel')
SETTING_KEYS = ('scheduler', 'scheduler_by_class', 'read_ahead_kb', 'read_ahead_sectors',
                'nr_requests', 'max_sectors_kb', 'rotational', 'nomerges', 'rq_affinity', 'io_timeout',
                'write_cache', 'queue_by_class')
# the queue settings that need their queue file on the device (a missing one is refused before any change)
NEEDS_QUEUE_FILE = ('nomerges', 'rq_affinity', 'io_timeout', 'write_cache')


# queue attribute written by each setting, in the order the rules apply them (scheduler first:
# switching the scheduler resets nr_requests).
ATTR_ORDER = (
    ('scheduler', 'queue/scheduler'),
    ('nr_requests', 'queue/nr_requests'),
    ('max_sectors_kb', 'queue/max_sectors_kb'),
    ('rotational', 'queue/rotational'),
    ('read_ahead_kb', 'queue/read_ahead_kb'),
    ('nomerges', 'queue/nomerges'),
    ('rq_affinity', 'queue/rq_affinity'),
    ('write_cache', 'queue/write_cache'),
    ('io_timeout', 'queue/io_timeout'),
)

RULES_HEADER = """\
# {name}
# Managed by Ansible (iotune.storage.block_tuning). Local edits are overwritten.
#
# Sorted after 60-persistent-storage.rules (ID_SERIAL_SHORT, ID_WWN) and 63-md-raid-arrays.rules
# (MD_UUID, MD_NAME). Every rule runs on add and on change, so values are re-applied whenever md
# recomputes its readahead (the array sends a change event when it starts running).
ACTION!="add|change", GOTO="iotune_storage_end"
SUBSYSTEM!="block", GOTO="iotune_storage_end"
# md: skip events of arrays that are not running yet (their queue limits are not final).
KERNEL=="md*", TEST!="md/array_state", GOTO="iotune_storage_end"
KERNEL=="md*", ATTR{{md/array_state}}=="clear*|inactive", GOTO="iotune_storage_end"
"""
RULES_FOOTER = 'LABEL="iotune_storage_end"\n'


class TuningError(Exception):
    """A configuration or device error; the message names the device and the reason."""


# --------------------------------------------------------------------------------------------
# reading the host


def device_class(dev):
    """nvme / virtual / ssd / hdd for a device with a scheduler (see docs/block_tuning.md)."""
    name = dev['name']
    driver = dev.get('driver') or ''
    vendor = (dev.get('vendor') or '').strip()
    if name.startswith('nvme') or driver == 'nvme':
        return 'nvme'
    if (name.startswith(('vd', 'xvd', 'rbd')) or driver in ('virtio_blk', 'xen-blkfront', 'vbd', 'rbd')
            or vendor in ('QEMU', 'Msft', 'VMware', 'Xen', 'Google')):
        return 'virtual'
    if dev.get('rotational') == '1':
        return 'hdd'
    return 'ssd'


def cloud_class(dev, cloud=None):
    """ebs / instance_store / None: the cloud kind of an NVMe member (rules.CLOUD_CLASSES), for queue_by_class.

    The cloud identity of readahead_facts (module_utils/cloud.py, by the model AWS gives the controller) decides; an
    NVMe disk whose serial is an EBS volume id's (the ebs_volume_id selector's own match) is an EBS volume too, which
    is how the lab's qemu NVMe disks stand in for one.
    """
    if dev.get('class') != 'nvme':
        return None
    cloud = cloud or {}
    if cloud.get('provider') == 'aws':
        return 'instance_store' if cloud.get('instance_store') else 'ebs'
    for serial in (dev.get('id_serial_short'), dev.get('serial')):
        try:
            if serial and ebs.serial_for_volume_id(serial) == serial.strip():
                return 'ebs'
        except ValueError:
            continue
    return None


def collect_devices(host):
    """Whole-disk block devices keyed by kernel name, with what selection and rendering need.

    Discovery and most facts come from the host's scan (host.BlockHost.inventory(), the
    readahead_facts module's reader); the udev properties that decide how a rule matches
    (ID_SERIAL_SHORT, ID_WWN) and the driver are read here.
    """
    inv = host.inventory()
    devices = {}
    for name in inv.order:
        if inv.parents.get(name):
            continue
        info = inv.device(name)
        sysdir = inv.sysdirs[name]
        props = parse_udev_db(read_text(os.path.join(host.udev_root, 'data', 'b' + (info['maj_min'] or ''))))
        driver_link = os.path.join(sysdir, 'device', 'driver')
        md = info.get('md') or {}
        qdir = os.path.join(sysdir, 'queue')
        sysfs_serial = read_text(os.path.join(sysdir, 'serial')) or read_text(os.path.join(sysdir, 'device', 'serial'))
        rot = info.get('rotational')
        dev = {
            'name': name,
            'majmin': info['maj_min'],
            'is_md': info['type'] == 'md',
            'array_state': md.get('array_state'),
            # the rule matches the udev property: prefer it over the kernel's md/uuid spelling
            'md_uuid': normalize_md_uuid(props['MD_UUID']) if props.get('MD_UUID') else md.get('uuid'),
            'md_uuids': set(u for u in (props.get('MD_UUID') and normalize_md_uuid(props['MD_UUID']),
                                        md.get('uuid')) if u),
            'md_name': props.get('MD_NAME') or md.get('name'),
            'id_serial_short': props.get('ID_SERIAL_SHORT'),
            'id_wwn': props.get('ID_WWN'),
            'serial': sysfs_serial.strip() if sysfs_serial else None,
            'driver': os.path.basename(os.path.realpath(driver_link)) if os.path.islink(driver_link) else None,
            'vendor': info.get('vendor'),
            'scheduler': info.get('scheduler'),
            'scheduler_file': os.path.exists(os.path.join(qdir, 'scheduler')),
            'schedulers_available': info.get('schedulers_available') or [],
            'max_hw_sectors_kb': read_text(os.path.join(qdir, 'max_hw_sectors_kb')),
            'rotational': None if rot is None else ('1' if rot else '0'),
        }
        dev['class'] = device_class(dev) if dev['schedulers_available'] and not dev['is_md'] else None
        dev['cloud_class'] = cloud_class(dev, info.get('cloud'))
        dev['queue_files'] = set(key for key, attr in ATTR_ORDER if os.path.exists(os.path.join(sysdir, attr)))
        devices[name] = dev
    return devices


def read_live(host, name):
    """Current values of the tunable queue attributes of one device (strings, None if absent)."""
    sys_root = host.sys_root
    queue = os.path.join(sys_root, 'block', name, 'queue')
    active, dummy = parse_scheduler(read_text(os.path.join(queue, 'scheduler')))
    live = {'scheduler': active}
    for key, attr in ATTR_ORDER:
        if key != 'scheduler':
            live[key] = read_text(os.path.join(sys_root, 'block', name, attr))
    return live


# --------------------------------------------------------------------------------------------
# normalising the user's entries


def normalize_md_uuid(value):
    """A user's md_uuid in mdadm's colon form (md_identity.md_uuid_colon); anything else is an error."""
    uuid = md_uuid_colon(value) if not re.search(r'[^0-9a-fA-F:\-.]', value or '') else None
    if not uuid or not re.match(r'^[0-9a-f]{8}(:[0-9a-f]{8}){3}$', uuid):
        raise TuningError("md_uuid %r is not an md array UUID (32 hex digits, e.g. "
                          "a0021927:0e4f10bf:2c47dc72:ca0b352e)" % value)
    return uuid


def normalize_ebs_volume_id(value):
    """The NVMe serial an ebs_volume_id selector matches (the one home of reading a volume id: cloud.EbsVolumeId)."""
    try:
        return EbsVolumeId.serial(value)
    except SelectorError as e:
        raise TuningError(str(e))


def selector_of(entry):
    keys = [k for k in SELECTOR_KEYS if entry.get(k) not in (None, '')]
    if len(keys) != 1:
        raise TuningError("each block_tuning_devices entry needs exactly one selector out of %s, "
                          "got %s in %r" % (', '.join(SELECTOR_KEYS), keys or 'none', _short(entry)))
    return keys[0], entry[keys[0]]


def describe(entry):
    key, value = selector_of(entry)
    return '%s=%s' % (key, value)


def _short(entry):
    return dict((k, v) for k, v in entry.items() if v is not None)


def normalize_scheduler(name, where):
    """The scheduler the rules write for ``name`` (checked by rules.scheduler_problem, as the plan checks it)."""
    problem = scheduler_problem(name)
    if problem:
        raise TuningError('%s: %s' % (where, problem))
    name = name.strip()
    return SCHEDULER_ALIASES.get(name, name)


def normalize_entry(entry, page_kb=4):
    """Validate one entry (independent of the host) and return (settings, warnings).

    settings: scheduler (str or None), scheduler_by_class (dict or None), read_ahead_kb (int or
    None), nr_requests, max_sectors_kb (int or None), rotational ('0'/'1' or None).
    """
    where = describe(entry)
    warnings = []
    settings = {}
    if entry.get('scheduler') and entry.get('scheduler_by_class'):
        raise TuningError("%s: set either scheduler or scheduler_by_class, not both" % where)
    if entry.get('scheduler'):
        settings['scheduler'] = normalize_scheduler(entry['scheduler'], where)
    if entry.get('scheduler_by_class'):
        by_class = {}
        for cls, sched in entry['scheduler_by_class'].items():
            if cls not in DEVICE_CLASSES:
                raise TuningError("%s: scheduler_by_class key %r is not a device class (%s)"
                                  % (where, cls, ', '.join(DEVICE_CLASSES)))
            if sched:
                by_class[cls] = normalize_scheduler(sched, '%s (%s)' % (where, cls))
        settings['scheduler_by_class'] = by_class
    kb, sectors = entry.get('read_ahead_kb'), entry.get('read_ahead_sectors')
    if kb is not None and sectors is not None:
        raise TuningError("%s: set read_ahead_kb (KiB) or read_ahead_sectors (512-byte sectors), "
                          "not both" % where)
    if sectors is not None:
        sectors = int(sectors)
        if sectors < 0:
            raise TuningError("%s: read_ahead_sectors %d is negative" % (where, sectors))
        if sectors % 2:
            raise TuningError("%s: read_ahead_sectors %d is odd; sysfs read_ahead_kb takes whole KiB "
                              "(2 sectors = 1 KiB), use %d or %d" % (where, sectors, sectors - 1, sectors + 1))
        kb = sectors // 2
    if kb is not None:
        kb = int(kb)
        if not valid_read_ahead_kb(kb):
            raise TuningError("%s: readahead %d KiB is out of range 0..%d KiB (check the unit: "
                              "read_ahead_kb is KiB, read_ahead_sectors is 512-byte sectors)"
                              % (where, kb, READ_AHEAD_MAX_KB))
        if kb % page_kb:
            warnings.append("%s: readahead %d KiB is not a multiple of the %d KiB page; the kernel "
                            "rounds it down to %d KiB" % (where, kb, page_kb, kb - kb % page_kb))
        settings['read_ahead_kb'] = kb
    for key in QUEUE_KEYS + ('write_cache',):
        if entry.get(key) is not None:
            value = entry[key] if key == 'write_cache' else int(entry[key])
            problem = queue_value_problem(key, value)
            if problem:
                raise TuningError('%s: %s' % (where, problem))
            settings[key] = value
    if entry.get('queue_by_class'):
        settings['queue_by_class'] = normalize_queue_by_class(entry['queue_by_class'], settings, where)
    if entry.get('rotational') is not None:
        settings['rotational'] = '1' if entry['rotational'] else '0'
    if not settings:
        raise TuningError("%s: no setting given (one of %s)" % (where, ', '.join(SETTING_KEYS)))
    return settings, warnings


def normalize_queue_by_class(by_class, settings, where):
    """queue_by_class checked: {class: {setting: value}} with rules.queue_class_problem and queue_value_problem; a
    setting given for the entry itself too is refused (which one would win?)."""
    if not isinstance(by_class, dict):
        raise TuningError('%s: queue_by_class must be a dict {class: {setting: value}}, got %r' % (where, by_class))
    out = {}
    for cls, values in sorted(by_class.items(), key=lambda kv: str(kv[0])):
        if values in (None, {}):
            continue
        if not isinstance(values, dict):
            raise TuningError('%s: queue_by_class.%s must be a dict of queue settings, got %r' % (where, cls, values))
        out[cls] = {}
        for key, value in sorted(values.items(), key=lambda kv: str(kv[0])):
            problem = queue_class_problem(cls, key) or queue_value_problem(key, value)
            if problem:
                raise TuningError('%s: queue_by_class.%s: %s' % (where, cls, problem))
            if key in settings:
                raise TuningError('%s: %s is given for the entry and in queue_by_class.%s; give it once'
                                  % (where, key, cls))
            out[cls][key] = value
    return out


def class_settings(settings, cls, cloud=None):
    """The scheduler and queue values ``settings`` give a member of device class ``cls`` (None: md, dm) and cloud
    class ``cloud``: scheduler_by_class[cls], then queue_by_class[cls] with queue_by_class[cloud] over it."""
    out = {}
    if cls is None:
        return out
    sched = (settings.get('scheduler_by_class') or {}).get(cls)
    if sched:
        out['scheduler'] = sched
    by_class = settings.get('queue_by_class') or {}
    out.update(by_class.get(cls) or {})
    if cloud:
        out.update(by_class.get(cloud) or {})
    return out


def has_class_values(settings):
    """Whether ``settings`` hold values per member class."""
    return settings.get('scheduler_by_class') is not None or bool(settings.get('queue_by_class'))


# --------------------------------------------------------------------------------------------
# resolving selectors


def md_name_matches(md_name_prop, wanted):
    """MD_NAME is 'homehost:name' for v1 metadata created with a homehost, or 'name'."""
    return name_matches(md_name_prop, wanted)


def resolve(entry, devices):
    """Return the devices (dicts from read_device) an entry selects."""
    key, value = selector_of(entry)
    if key == 'device':
        real = os.path.realpath(value)
        name = os.path.basename(real)
        return [d for d in devices.values() if d['name'] == name]
    if key == 'md_name':
        return [d for d in devices.values() if d['is_md'] and md_name_matches(d['md_name'], value)]
    if key == 'md_uuid':
        uuid = normalize_md_uuid(value)
        return [d for d in devices.values() if d['is_md'] and uuid in d['md_uuids']]
    if key == 'ebs_volume_id':
        serial = normalize_ebs_volume_id(value)
        return [d for d in devices.values() if EbsVolumeId.serial_matches(serial, d['id_serial_short'], d['serial'])]
    if key == 'serial':
        return [d for d in devices.values() if value in (d['id_serial_short'], d['serial'])]
    if key == 'kernel':
        return [d for d in devices.values() if fnmatch.fnmatchcase(d['name'], value)]
    raise TuningError('unknown selector %s' % key)  # pragma: no cover


def partition_parent(host, path):
    """If path resolves to a partition, return (partition, parent) kernel names."""
    name = os.path.basename(os.path.realpath(path))
    parent = host.parent_disk(name)
    return (name, parent) if parent else None


def match_keys(entry, dev):
    """udev match expressions (list of strings) for an entry; dev is a resolved device or None.

    Stable properties only: kernel names (sdX, nvmeXnY, md127) are never used except for an
    explicit kernel glob.
    """
    key, value = selector_of(entry)
    if key == 'kernel':
        return [['KERNEL=="%s"' % value]]
    if key == 'md_uuid':
        return [['KERNEL=="md*"', 'ENV{MD_UUID}=="%s"' % normalize_md_uuid(value)]]
    if key == 'md_name':
        return [['KERNEL=="md*"', 'ENV{MD_NAME}=="%s"' % udev_name_glob(short_name(value))]]
    if key == 'ebs_volume_id':
        return [['KERNEL=="nvme*"', 'ENV{ID_SERIAL_SHORT}=="%s"' % normalize_ebs_volume_id(value)]]
    if key == 'serial':
        # ID_SERIAL_SHORT comes from 60-persistent-storage (NVMe, SCSI/SATA); virtio-blk only has
        # the sysfs attribute. Never ENV{ID_SERIAL}: its NVMe format changed across systemd versions.
        return [['ENV{ID_SERIAL_SHORT}=="%s"' % value],
                ['ENV{ID_SERIAL_SHORT}!="?*"', 'ATTRS{serial}=="%s"' % value]]
    # device path / by-id link: turn it into a stable property of the device it points to now
    if dev is None:
        return None
    if dev['is_md']:
        if dev['md_uuid']:
            return [['KERNEL=="md*"', 'ENV{MD_UUID}=="%s"' % dev['md_uuid']]]
        raise TuningError("%s: md array %s has no MD_UUID in the udev database (is it running?)"
                          % (describe(entry), dev['name']))
    if dev['id_serial_short']:
        return [['ENV{ID_SERIAL_SHORT}=="%s"' % dev['id_serial_short']]]
    if dev['serial']:
        return [['ATTRS{serial}=="%s"' % dev['serial']]]
    if dev['id_wwn']:
        return [['ENV{ID_WWN}=="%s"' % dev['id_wwn']]]
    raise TuningError("%s: device %s has no stable identifier (no serial, no WWN); use a kernel "
                      "glob selector instead" % (describe(entry), dev['name']))


# --------------------------------------------------------------------------------------------
# planning


def loadable_schedulers(modules_dir):
    """Scheduler names the kernel can load on demand (writing the name loads '<name>-iosched')."""
    names = set()
    text = read_text(os.path.join(modules_dir, 'modules.alias')) if modules_dir else None
    for line in (text or '').splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] == 'alias' and parts[1].endswith('-iosched'):
            names.add(parts[1][:-len('-iosched')])
    return names


def plan(entries, devices, host, page_kb=4, allow_unmatched=False, loadable=()):
    """Validate entries against the devices and build the rule lines and the expected values.

    host: the module's host.BlockHost (for the partition check of device selectors).
    loadable: scheduler names not listed by a device yet but loadable as a module (bfq, kyber).
    allow_unmatched: True (check mode: every selector may match nothing yet), a collection of
    selector keys that may match nothing (for example md_name before the array is created), or False.

    Returns a dict: rules (list of (comment, [lines])), expected {devname: {attr: value}},
    selected {devname: [selector descriptions]}, warnings, unmatched (selectors matching nothing).
    Raises TuningError with a clear message on the first problem.
    """
    out = {'rules': [], 'expected': {}, 'selected': {}, 'warnings': [], 'unmatched': []}
    for entry in entries:
        where = describe(entry)
        settings, warns = normalize_entry(entry, page_kb)
        out['warnings'].extend(warns)
        key = check_selector(entry, settings, host)
        matched = resolve(entry, devices)
        if not matched:
            if not (allow_unmatched is True or (allow_unmatched and key in allow_unmatched)):
                raise TuningError("%s: selector matches no block device on this host" % where)
            out['unmatched'].append(where)
        classes = set()
        for dev in matched:
            exp, cls = device_expected(where, settings, dev, page_kb, loadable)
            if cls:
                classes.add(cls)
            merge_expected(out, dev['name'], exp, where)
        rule = entry_rule(entry, settings, matched, classes, out['warnings'])
        if rule is not None:
            out['rules'].append(rule)
    return out


def check_selector(entry, settings, host):
    """The selector key of ``entry``, after the checks that need no matched device."""
    where = describe(entry)
    key, value = selector_of(entry)
    if key == 'device':
        part = partition_parent(host, value)
        if part:
            raise TuningError("%s: %s is a partition; scheduler and readahead belong to the whole "
                              "disk %s (partitions have no queue/)" % (where, part[0], part[1]))
    if key in ('md_name', 'md_uuid') and settings.get('scheduler'):
        raise TuningError("%s: md arrays have no I/O scheduler (bio-based device); set the "
                          "scheduler on the member disks" % where)
    return key


def member_class(settings, dev):
    """(device class, cloud class or None) by which ``settings`` tune ``dev``: the cloud class only when queue_by_class
    names it; None for md/dm (by-class values only apply where a scheduler exists) or settings without classes."""
    if not has_class_values(settings) or dev['class'] is None:
        return None
    cloud = dev.get('cloud_class')
    return (dev['class'], cloud if cloud in (settings.get('queue_by_class') or {}) else None)


def class_label(cls):
    return '/'.join(part for part in cls if part)


def device_expected(where, settings, dev, page_kb, loadable):
    """(expected values, member class used for the by-class values or None) of one matched device."""
    exp = dict((k, v) for k, v in settings.items() if k not in ('scheduler_by_class', 'queue_by_class'))
    sched = settings.get('scheduler')
    cls = member_class(settings, dev)
    if has_class_values(settings):
        found = class_settings(settings, dev['class'], dev.get('cloud_class'))
        if settings.get('scheduler_by_class') is not None:
            sched = found.pop('scheduler', None)
        exp.update(found)
    if sched:
        if not dev['scheduler_file'] or not dev['schedulers_available']:
            raise TuningError("%s: device %s has no configurable I/O scheduler (md, dm and other "
                              "bio-based devices have none; set the scheduler on the member "
                              "disks)" % (where, dev['name']))
        if sched not in dev['schedulers_available'] and sched not in loadable:
            raise TuningError("%s: scheduler %r is not offered by device %s (available: %s)"
                              % (where, sched, dev['name'], ' '.join(dev['schedulers_available'])))
        exp['scheduler'] = sched
    else:
        exp.pop('scheduler', None)
    if 'nr_requests' in exp and not dev['scheduler_file']:
        raise TuningError("%s: device %s has no nr_requests (not a blk-mq device)"
                          % (where, dev['name']))
    for key in NEEDS_QUEUE_FILE:
        if key in exp and key not in dev.get('queue_files', ()):
            raise TuningError("%s: device %s has no queue/%s (%s)" % (
                where, dev['name'], key, 'md and other bio-based devices have none; set it on the members'
                if dev['is_md'] or not dev['scheduler_file'] else 'not offered by this kernel or driver'))
    if 'max_sectors_kb' in exp and dev['max_hw_sectors_kb'] is not None \
            and exp['max_sectors_kb'] > int(dev['max_hw_sectors_kb']):
        raise TuningError("%s: max_sectors_kb %d exceeds the hardware limit of device %s "
                          "(max_hw_sectors_kb %s)" % (where, exp['max_sectors_kb'], dev['name'],
                                                      dev['max_hw_sectors_kb']))
    if 'read_ahead_kb' in exp:
        exp['read_ahead_kb'] = exp['read_ahead_kb'] - exp['read_ahead_kb'] % page_kb
    return exp, cls


def merge_expected(out, name, exp, where):
    """Add one selector's expected values of device ``name``; two selectors must not disagree."""
    previous = out['expected'].get(name, {})
    for attr, val in exp.items():
        if attr in previous and previous[attr] != val:
            raise TuningError("device %s is selected by %s and %s with different %s (%s vs %s)"
                              % (name, ', '.join(out['selected'][name]), where, attr, previous[attr], val))
    previous.update(exp)
    out['expected'][name] = previous
    out['selected'].setdefault(name, []).append(where)


def entry_rule(entry, settings, matched, classes, warnings):
    """(comment, rule lines) of one entry, or None when its device does not exist yet (warned)."""
    where = describe(entry)
    key, dummy = selector_of(entry)
    if has_class_values(settings) and key in ('kernel', 'serial', 'ebs_volume_id') and len(classes) > 1:
        raise TuningError("%s: matches devices of different classes (%s); split the selector"
                          % (where, ', '.join(sorted(class_label(c) for c in classes))))
    dev0 = matched[0] if matched else None
    keysets = match_keys(entry, dev0)
    if keysets is None:
        warnings.append("%s: device does not exist yet; its rule cannot be rendered until it does" % where)
        return None
    rule_settings = dict((k, v) for k, v in settings.items() if k not in ('scheduler_by_class', 'queue_by_class'))
    if has_class_values(settings):
        if classes:
            cls, cloud = set(classes).pop()
            rule_settings.update(class_settings(settings, cls, cloud))
        elif not matched:
            warnings.append("%s: device class unknown until the device exists; scheduler%s not "
                            "rendered" % (where, ' and queue settings' if settings.get('queue_by_class') else ''))
    if key in ('md_name', 'md_uuid') or (dev0 is not None and dev0['is_md']):
        rule_settings.pop('scheduler', None)
    return '%s' % where, render_entry_lines(keysets, rule_settings)


def render_entry_lines(keysets, settings):
    lines = []
    for keys in keysets:
        for key, attr in ATTR_ORDER:
            if key not in settings or settings[key] is None:
                continue
            value = settings[key]
            parts = ['ACTION=="add|change"', 'SUBSYSTEM=="block"', 'ENV{DEVTYPE}=="disk"'] + keys
            parts.append('TEST=="%s"' % attr)
            parts.append('ATTR{%s}="%s"' % (attr, value))
            lines.append(', '.join(parts))
    return lines


def render_rules(rules, filename):
    out = [RULES_HEADER.format(name=filename)]
    for comment, lines in rules:
        out.append('\n# %s\n' % comment)
        for line in lines:
            out.append(line + '\n')
    out.append('\n' + RULES_FOOTER)
    return ''.join(out)


def live_matches(live, want):
    """Whether a device's live queue value (a sysfs string, None when unreadable) is the planned one: the one rule of
    udev_block_tuning (what it triggers, what it verifies), the preflight's stage check and the audit."""
    return live is not None and str(live) == str(want)


def compare(expected, live):
    """Return {attr: (expected, live)} for the attributes that differ (live_matches)."""
    diff = {}
    for attr, want in expected.items():
        have = live.get(attr)
        if not live_matches(have, want):
            diff[attr] = (str(want), have)
    return diff


# --------------------------------------------------------------------------------------------
# containers


def container_markers(root='/'):
    """Return the reason text if this looks like a container, else None."""
    env = read_text(os.path.join(root, 'run/systemd/container'))
    if env:
        return 'systemd reports container %r (/run/systemd/container)' % env
    for marker in ('.dockerenv', 'run/.containerenv'):
        if os.path.exists(os.path.join(root, marker)):
            return 'found /%s' % marker
    return None


# What a plan validated before any change (the profile role's preflight, udev_block_tuning validate_only)
# may leave unmatched: the md arrays that the same play creates.
VALIDATE_UNMATCHED = ('md_name', 'md_uuid')


# the type of each setting in the argument spec (the selectors are strings)
SETTING_TYPES = {'scheduler': 'str', 'scheduler_by_class': 'dict', 'read_ahead_kb': 'int', 'read_ahead_sectors': 'int',
                 'nr_requests': 'int', 'max_sectors_kb': 'int', 'rotational': 'bool', 'nomerges': 'int',
                 'rq_affinity': 'int', 'io_timeout': 'int', 'write_cache': 'str', 'queue_by_class': 'dict'}


# the settings whose values are a few choices (rules.py): the argument spec lists them
SETTING_CHOICES = {'nomerges': NOMERGES_CHOICES, 'rq_affinity': RQ_AFFINITY_CHOICES, 'write_cache': WRITE_CACHE_CHOICES}


def devices_option():
    """The argument spec of the ``devices`` option (udev_block_tuning; storage_preflight's ``tuning``)."""
    options = dict((key, dict(type='str')) for key in SELECTOR_KEYS)
    options.update((key, dict(type=SETTING_TYPES[key])) for key in SETTING_KEYS)
    for key, choices in SETTING_CHOICES.items():
        options[key]['choices'] = list(choices)
    return dict(
        type='list', elements='dict', default=[], options=options,
        mutually_exclusive=[list(SELECTOR_KEYS), ['read_ahead_kb', 'read_ahead_sectors'],
                            ['scheduler', 'scheduler_by_class']],
        required_one_of=[list(SELECTOR_KEYS)],
    )


def tuned_options():
    """The argument spec of ``tuned`` and ``tuned_profile`` (udev_block_tuning; storage_preflight's ``tuning``)."""
    return dict(tuned=dict(type='str', choices=['fail', 'override', 'ignore'], default='fail'),
                tuned_profile=dict(type='str', default='iotune-storage'))


def page_kb():
    try:
        return max(os.sysconf('SC_PAGE_SIZE') // 1024, 1)
    except (ValueError, OSError, AttributeError):
        return 4


def host_plan(entries, host, allow_unmatched=False, modules_root='/lib/modules'):
    """plan() of ``entries`` (validated by devices_option()) against this host's one scan; raises TuningError."""
    for entry in entries:
        for key in entry.get('scheduler_by_class') or {}:
            if key not in DEVICE_CLASSES:
                raise TuningError('scheduler_by_class key %r is not a device class (%s)'
                                  % (key, ', '.join(DEVICE_CLASSES)))
        for key in entry.get('queue_by_class') or {}:
            problem = queue_class_problem(key, None)
            if problem:
                raise TuningError('queue_by_class: %s' % problem)
    return plan(entries, collect_devices(host), host, page_kb=page_kb(), allow_unmatched=allow_unmatched,
                loadable=loadable_schedulers(os.path.join(modules_root, os.uname()[2])))
