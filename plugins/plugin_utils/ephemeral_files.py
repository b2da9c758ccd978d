# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The files of the ephemeral role (issue 24): what its arrays make it install, and what it finds of an earlier run.

``layout`` names everything from the arrays alone (boot units, the drop-in of each service, every path the role
manages now); ``files`` builds each file it writes from the layout and the two templates the role renders (a
filter cannot); ``sync`` tells, from the files found, which units to enable and which paths are stale. Which files
differ is ``file_sync.copy_changes`` (the rule of module_utils/files.py).
"""

from __future__ import annotations

import os
import re

from ansible.plugins.filter.core import to_nice_json

from ansible_collections.iotune.storage.plugins.module_utils import fstab

UNIT_DIR = '/etc/systemd/system'
WANTS_DIR = UNIT_DIR + '/local-fs.target.wants'
PROGRAM = 'iotune-ephemeral'
DROPIN = ('# Managed by Ansible (iotune.storage.ephemeral): start only after the ephemeral array is back.\n'
          '[Unit]\nRequires=%s\nAfter=%s\n')


def unit_of(name):
    return 'iotune-ephemeral-%s.service' % name


def layout(arrays, spec_dir, dropin_name, mount_units=''):
    """{units, services, paths, dropins, mount_unit_of} of ``arrays`` (the role's ephemeral_arrays).

    ``services``: {service: [boot units of its arrays]}, in the order the services first appear; ``paths``: every
    file the role manages now (units, specs, drop-ins, wants links); ``dropins``: [{dest, content}];
    ``mount_unit_of``: {mount point: mount unit}, from ``mount_units`` (systemd-escape's output, one per array).
    """
    units = [unit_of(a['name']) for a in arrays]
    services = {}
    for a in arrays:
        for service in a.get('services', []):
            services[service] = services.get(service, []) + [unit_of(a['name'])]
    dropins = [{'dest': '%s/%s.d/%s' % (UNIT_DIR, service, dropin_name),
                'content': DROPIN % (' '.join(boot_units), ' '.join(boot_units))}
               for service, boot_units in services.items()]
    paths = ([UNIT_DIR + '/' + unit for unit in units]
             + ['%s/%s.json' % (spec_dir, a['name']) for a in arrays]
             + [dropin['dest'] for dropin in dropins]
             + [WANTS_DIR + '/' + unit for unit in units])
    return {'units': units, 'services': services, 'paths': paths, 'dropins': dropins,
            'mount_unit_of': dict(zip([a['mountpoint'] for a in arrays], mount_units.split()))}


def spec(array, settings, mount_unit_of):
    """The JSON spec of one array, as the boot program reads it; ``settings``: metadata, homehost, device_timeout,
    conf_path and device_wait, the role's values for every array."""
    a = array
    out = {'name': a['name'], 'devices': a['devices'], 'chunk_kb': a['chunk_kb'], 'metadata': settings['metadata'],
           'homehost': settings['homehost'], 'allow_single_device': a.get('allow_single_device', False),
           'label': a['label'], 'mountpoint': a['mountpoint'],
           'mount_options': fstab.line_options(a.get('mount_options'), settings['device_timeout']),
           'owner': a.get('owner'), 'group': a.get('group'), 'mode': a.get('mode'),
           'conf_path': settings['conf_path'], 'fstab': '/etc/fstab', 'device_wait': settings['device_wait'],
           'mount_unit': mount_unit_of[a['mountpoint']], 'services': a.get('services', []),
           'members': a.get('members')}
    if 'mkfs_discard' in a:
        # the profile's mkfs.discard (false: mkfs.xfs -K at a re-creation); a profile that does not set it leaves the
        # spec as an earlier release wrote it (the boot program's default: mkfs.xfs's own, discard)
        out['mkfs_discard'] = a['mkfs_discard'] is not False
    return out


def files(arrays, layout_, lib_dir, spec_dir, settings, program, unit_texts):
    """[{dest, content, mode}] of every file the role writes: the boot program (``program``, with arrays only), then
    per array its spec and its unit (``unit_texts``, in the order of ``arrays``), then the drop-ins."""
    out = []
    if len(arrays) > 0:
        out.append({'dest': lib_dir + '/' + PROGRAM, 'mode': '0755', 'content': program})
    for a, unit_text in zip(arrays, unit_texts):
        out.append({'dest': '%s/%s.json' % (spec_dir, a['name']),
                    'content': to_nice_json(spec(a, settings, layout_['mount_unit_of']), indent=2) + '\n'})
        out.append({'dest': '%s/%s' % (UNIT_DIR, unit_of(a['name'])), 'content': unit_text})
    return out + [dict(dropin) for dropin in layout_['dropins']]


def sync(found, layout_, spec_dir):
    """{to_enable, stale} from the states ``found``: the boot units without their link in local-fs.target.wants,
    and the paths under the unit directory or ``spec_dir`` that the layout does not name (an earlier run's)."""
    # the same regular expressions as the role's Jinja had (the directories unescaped)
    paths = [f['path'] for f in found]
    linked = [os.path.basename(p) for p in paths if re.match('^/etc/systemd/system/local-fs.target.wants/', p)]
    mine = '^(/etc/systemd/system/|' + spec_dir + '/)'
    return {'to_enable': [unit for unit in layout_['units'] if unit not in linked],
            'stale': [p for p in paths if re.match(mine, p) and p not in layout_['paths']]}
