# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One call of the kernel_settings module: its argument spec and ``KernelSettings``, which validates the wanted
sysctls and THP values, reads them live (module_utils/kernel_settings.py) and, with mode=override, writes tuned's
override profile. The module and storage_preflight's stage check (module_utils/stage_sync.py) run this same code.
"""

from __future__ import annotations

import os
import re

from ansible_collections.iotune.storage.plugins.module_utils import kernel_settings as ks
from ansible_collections.iotune.storage.plugins.module_utils import files
from ansible_collections.iotune.storage.plugins.module_utils import rules
from ansible_collections.iotune.storage.plugins.module_utils import tuned

__metaclass__ = type


def argument_spec():
    """The kernel_settings module's options."""
    return dict(
        sysctl=dict(type='dict', default={}),
        thp=dict(type='dict', default={}),
        sysctl_file=dict(type='path', default='/etc/sysctl.d/90-iotune-storage.conf'),
        mode=dict(type='str', choices=['fail', 'override', 'report'], default='fail'),
        tuned_profile=dict(type='str', default='iotune-storage-kernel'),
        thp_unit=dict(type='str'),
        # the CPU governor and clocksource (issue 27) and the unit that sets them at boot
        cpu_clock=dict(type='dict', default={}),
        cpu_unit=dict(type='str'),
    )


class KernelSettings:
    def __init__(self, params, root='/', run=None, tuned_adm=None, check_mode=False,
                 replace=files.replace_keeping_owner, systemctl=None):
        self.p = params
        self.systemctl = systemctl
        self.replace = replace
        self.root = root
        self.run = run
        self.tuned_adm = tuned_adm
        self.check_mode = check_mode
        self.diff = None

    def wanted(self):
        """(sysctl, thp) validated, and sysctl_file; raises KernelSettingsError. The one check of these values: the
        kernel role's read before any change (and the preflight's stage check) fails here, naming the bad key."""
        if not re.fullmatch(r'/.*[.]conf', self.p['sysctl_file'] or ''):
            raise ks.KernelSettingsError('sysctl_file %r must be an absolute path ending in .conf' % (self.p['sysctl_file'],))
        sysctl = {}
        for written, value in sorted((self.p['sysctl'] or {}).items()):
            name = rules.sysctl_name(written)
            if name is None:
                raise ks.KernelSettingsError('sysctl: %r is not a sysctl name such as vm.swappiness' % (written,))
            if rules.sysctl_action(name):
                raise ks.KernelSettingsError('sysctl: ' + rules.sysctl_action(name))
            if isinstance(value, bool) or not re.fullmatch(r'-?[0-9]+', str(value).strip()):
                raise ks.KernelSettingsError('sysctl %s: %r is not an integer' % (written, value))
            if name in sysctl:
                raise ks.KernelSettingsError('sysctl: %s is given twice (as %s and %s)' % (name, name, written))
            sysctl[name] = str(value).strip()
        thp = {}
        for key, value in sorted((self.p['thp'] or {}).items()):
            problem = rules.thp_problem(key, value)
            if problem:
                raise ks.KernelSettingsError('thp %s: %s' % (key, problem) if key in rules.THP_KEYS else 'thp: ' + problem)
            if value is not None:
                thp[key] = str(value)
        return sysctl, thp

    def wanted_cpu_clock(self):
        """{cpu_governor, clocksource} validated (rules.cpu_clock_problem, the plan's rule); raises KernelSettingsError."""
        out = {}
        for key, value in sorted((self.p.get('cpu_clock') or {}).items()):
            problem = rules.cpu_clock_problem(key, value)
            if problem:
                raise ks.KernelSettingsError('cpu_clock %s: %s' % (key, problem) if key in rules.CPU_CLOCK_KEYS
                                             else 'cpu_clock: ' + problem)
            if value is not None:
                out[key] = value
        return out

    def tuned_path(self, *parts):
        return os.path.join(self.root, tuned.TUNED_ETC, *parts)

    def override_parent(self, profiles):
        """The profile(s) the override includes; when ours is already active, its own include."""
        name = self.p['tuned_profile']
        if profiles != [name]:
            return ' '.join(profiles)
        for line in (ks.read_text(self.tuned_path(name, 'tuned.conf')) or '').splitlines():
            if line.startswith('include='):
                return line.split('=', 1)[1].strip()
        raise ks.KernelSettingsError('tuned profile %s is active but has no include= line; choose a tuned profile '
                                     'with tuned-adm first' % name)

    def write_override(self, report):
        """Write and activate the tuned override profile; returns True when something changed."""
        name = self.p['tuned_profile']
        parent = self.override_parent(report['tuned']['profiles'])
        reasons = [c for c in report['conflicts'] if 'tuned profile' in c]
        path = self.tuned_path(name, 'tuned.conf')
        # each value in the unit and under the option name the parent's chain sets it with
        settings = tuned.tuned_settings(self.root, parent.split())
        text = tuned.render_tuned_override(parent, ks.tuned_override_conflicts(report), reasons, settings)
        before = ks.read_text(path)
        activate = report['tuned']['profiles'] != [name]
        self.diff = {'before': before or '', 'after': text, 'before_header': path, 'after_header': path}
        if before == text and not activate:
            return False
        if self.check_mode:
            return True
        if not self.tuned_adm:
            raise ks.KernelSettingsError('tuned would overwrite the kernel settings (%s) but tuned-adm is not installed '
                                         'to activate an override profile; remove the tuned profile or its settings'
                                         % '; '.join(reasons), **report)
        files.write_text(path, text, self.replace, prefix='.tuned.conf.')
        rc, out, err = self.run([self.tuned_adm, 'profile', name])
        if rc != 0:
            raise ks.KernelSettingsError('tuned-adm profile %s failed (rc=%s): %s' % (name, rc, (err or out).strip()))
        return True

    def apply(self):
        sysctl, thp = self.wanted()
        cpu_clock = self.wanted_cpu_clock()
        report = ks.check(self.root, sysctl, thp, self.p['sysctl_file'], cpu_clock)
        changed = False
        report['tuned']['override'] = False
        if self.p['mode'] == 'override' and report['tuned']['conflicts']:
            changed = self.write_override(report)
            report['tuned']['override'] = True
            if not self.check_mode:
                override = report['tuned']
                report = ks.check(self.root, sysctl, thp, self.p['sysctl_file'], cpu_clock)
                report['tuned']['override'] = override['override']
            else:
                report['notes'].extend('%s (resolved by the tuned override profile %s)' % (c, self.p['tuned_profile'])
                                       for c in report['conflicts'] if 'tuned profile' in c)
                report['conflicts'] = [c for c in report['conflicts'] if 'tuned profile' not in c]
        problems = ks.problems(report)
        if problems and self.p['mode'] != 'report':
            hint = (' Set kernel_tuned_override: true (mode=override) to let an override profile win over tuned.'
                    if report['tuned']['conflicts'] and self.p['mode'] == 'fail' else '')
            raise ks.KernelSettingsError('kernel settings not in force: %s.%s' % ('; '.join(problems), hint), **report)
        report['changed'] = changed
        report['thp_unit_enabled'] = self.unit_enabled()
        if self.p.get('cpu_unit'):
            report['cpu_unit_enabled'] = self.unit_enabled('cpu_unit')
        return report

    def unit_enabled(self, option='thp_unit'):
        """`systemctl is-enabled` of thp_unit (or cpu_unit): True only for "enabled" (None without a unit)."""
        unit = self.p.get(option)
        if not unit:
            return None
        if not self.systemctl:
            return False
        rc, out, dummy = self.run([self.systemctl, 'is-enabled', unit])
        return rc == 0 and out.strip() == 'enabled'
