# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One call of the udev_block_tuning module: ``UdevTuning``, small steps that raise ``Failure`` (or ``Done`` when
the call ends early), in the order ``run()`` takes them.

The container check, the rules file removed (state=absent), the plan of module_utils/block_tuning.py validated
against the host, the rules rendered, the live values read, tuned's readahead judged, the devices to trigger;
validate_only and check mode stop there. Then the rules written, udev reloaded, triggered and settled, and sysfs
read back. ``call()`` adds the readahead facts of the same scan when asked.
"""

from __future__ import annotations

import copy
import os

from ansible_collections.iotune.storage.plugins.module_utils.block_tuning import (
    VALIDATE_UNMATCHED,
    TuningError,
    compare,
    container_markers,
    devices_option,
    host_plan,
    read_live,
    render_rules,
    tuned_options,
)
from ansible_collections.iotune.storage.plugins.module_utils import files
from ansible_collections.iotune.storage.plugins.module_utils import tuned
from ansible_collections.iotune.storage.plugins.module_utils.sysfs_block import SysfsBlockError

TUNED_ETC = os.path.join('/', tuned.TUNED_ETC)
TUNED_DIRS = tuple(os.path.join('/', d) for d in tuned.TUNED_DIRS)
CONTAINER_ROOT = '/'
# host root of the kernel modules; unit tests point it at a fake tree
MODULES_ROOT = '/lib/modules'


def argument_spec():
    """The udev_block_tuning module's options."""
    spec = dict(
        devices=devices_option(),
        rules_file=dict(type='path', default='/etc/udev/rules.d/66-iotune-storage.rules'),
        state=dict(type='str', choices=['present', 'absent'], default='present'),
        apply=dict(type='bool', default=True),
        validate_only=dict(type='bool', default=False),
        settle_timeout=dict(type='int', default=60),
        container=dict(type='str', choices=['fail', 'skip'], default='fail'),
        facts=dict(type='bool', default=False),
    )
    spec.update(tuned_options())
    return spec


class Failure(Exception):
    """A refusal or failure; ``data`` (copied when raised) goes into the module result."""

    def __init__(self, msg, **data):
        super(Failure, self).__init__(msg)
        self.data = copy.deepcopy(data)


class Done(Exception):
    """The call is complete before its last step (state=absent, check mode, apply=false...)."""


class Runner(object):
    def __init__(self, module):
        self.module = module
        self._udevadm = None

    def udevadm(self, *args):
        if self._udevadm is None:
            self._udevadm = self.module.get_bin_path('udevadm', required=True)
        argv = [self._udevadm] + list(args)
        rc, out, err = self.module.run_command(argv)
        if rc != 0:
            raise Failure('%s failed (rc=%d): %s' % (' '.join(argv), rc, (err or out).strip()),
                          rc=rc, stdout=out, stderr=err)
        return out


def tuned_state(module, expected):
    """Return (info dict, conflicts list) of the running tuned (module_utils/tuned.py)."""
    return tuned.readahead_state(expected, module.get_bin_path, module.run_command, TUNED_ETC, TUNED_DIRS)


class UdevTuning(object):
    """One module call: small steps that raise Failure (or Done when the call ends early)."""

    def __init__(self, module, host):
        self.module = module
        self.host = host
        self.p = module.params
        self.runner = Runner(module)
        self.path = self.p['rules_file']
        self.result = dict(changed=False, rules_file=self.path, rules='', rules_changed=False, reloaded=False,
                           triggered=[], devices={}, readahead_changed=[], unmatched=[], tuned={})

    def fail(self, msg):
        raise Failure(msg, **self.result)

    def check_container(self):
        reason = container_markers(CONTAINER_ROOT)
        if reason and not self.p['validate_only']:
            msg = ('udev rules cannot take effect in a container (%s): systemd-udevd does not run where /sys is '
                   'read-only, so block devices must be tuned on the host' % reason)
            if self.p['container'] == 'skip':
                self.module.warn(msg + '; skipped')
                self.result['skipped'] = True
                raise Done()
            self.fail(msg)

    def remove(self, existing):
        """state=absent: delete the rules file (and reload udev)."""
        result = self.result
        result['rules_changed'] = existing is not None
        result['changed'] = result['rules_changed']
        if self.module._diff and existing is not None:
            result['diff'] = dict(before=existing, after='', before_header=self.path, after_header=self.path)
        if result['changed'] and not self.module.check_mode:
            os.unlink(self.path)
            if self.p['apply']:
                self.runner.udevadm('control', '--reload')
                result['reloaded'] = True
        raise Done()

    def make_plan(self):
        """Validate the entries against this host's devices; warnings go to the module."""
        p = self.p
        allow = VALIDATE_UNMATCHED if p['validate_only'] else self.module.check_mode
        try:
            pl = host_plan(p['devices'], self.host, allow_unmatched=allow, modules_root=MODULES_ROOT)
        except TuningError as e:
            self.fail(str(e))
        for warning in pl['warnings']:
            self.module.warn(warning)
        for where in pl['unmatched']:
            if not p['validate_only']:
                self.module.warn('%s: selector matches no block device yet (check mode: predicted only)' % where)
        self.result['unmatched'] = pl['unmatched']
        return pl

    def render(self, pl, existing):
        text = render_rules(pl['rules'], os.path.basename(self.path))
        self.result['rules'] = text
        self.result['rules_changed'] = existing != text
        if self.module._diff and self.result['rules_changed']:
            self.result['diff'] = dict(before=existing or '', after=text, before_header=self.path,
                                       after_header=self.path)
        return text

    def read_before(self, pl):
        """Live values now; returns the drift {device: {attr: (want, have)}}."""
        expected = pl['expected']
        before = dict((name, read_live(self.host, name)) for name in expected)
        for name in sorted(expected):
            self.result['devices'][name] = dict(selected_by=pl['selected'][name], expected=expected[name],
                                                before=before[name], after=before[name])
        return dict((name, compare(expected[name], before[name])) for name in expected)

    def handle_tuned(self, expected):
        """tuned would overwrite the readahead: never lose silently against it."""
        p = self.p
        tuned_info, conflicts = tuned_state(self.module, expected)
        self.result['tuned'] = tuned_info
        if not conflicts:
            return
        detail = ', '.join('%s wants %d KiB, tuned sets %d KiB' % c for c in conflicts)
        if p['tuned'] == 'fail':
            self.result['changed'] = False
            self.fail(tuned.readahead_refusal(tuned_info, conflicts, p['tuned_profile']))
        elif p['tuned'] == 'ignore':
            self.module.warn('tuned profile %r sets readahead=%s: %s'
                             % (tuned_info['profile'], tuned_info['readahead'], detail))
        else:
            tuned_info['override'] = True
            self.result['changed'] = True
            if not self.module.check_mode and not p['validate_only']:
                self.write_tuned_override(tuned_info)

    def write_tuned_override(self, tuned_info):
        p = self.p
        files.write_text(os.path.join(TUNED_ETC, p['tuned_profile'], 'tuned.conf'), tuned.DISK_OVERRIDE_TEMPLATE.format(
            parent=tuned_info['profile'], rules_file=self.path, readahead=tuned_info['readahead']),
            self.module.atomic_move)
        rc, out, err = self.module.run_command([self.module.get_bin_path('tuned-adm', required=True), 'profile',
                                                p['tuned_profile']])
        if rc != 0:
            self.fail('tuned-adm profile %s failed: %s' % (p['tuned_profile'], (err or out).strip()))

    def to_trigger(self, expected, drift):
        """The devices udev must re-apply the rules to (drifting, or all when the rules change)."""
        result = self.result
        drifting = sorted(name for name, d in drift.items() if d)
        to_trigger = set(drifting)
        if result['rules_changed']:
            to_trigger.update(expected)
        result['triggered'] = sorted(to_trigger)
        result['readahead_changed'] = sorted(name for name in to_trigger if 'read_ahead_kb' in drift[name])
        if result['rules_changed'] or to_trigger:
            result['changed'] = True
        return to_trigger

    def apply(self, text, to_trigger):
        """Write the rules, reload and trigger udev (as far as ``apply`` allows)."""
        if self.result['rules_changed']:
            directory = os.path.dirname(self.path)
            if not os.path.isdir(directory):
                self.fail('%s does not exist: is udev installed?' % directory)
            files.write_text(self.path, text, self.module.atomic_move)
        if not self.p['apply']:
            raise Done()
        if self.result['rules_changed']:
            self.runner.udevadm('control', '--reload')
            self.result['reloaded'] = True
        if to_trigger:
            argv = ['trigger', '--action=change', '--subsystem-match=block']
            argv.extend('--sysname-match=%s' % name for name in sorted(to_trigger))
            self.runner.udevadm(*argv)
            self.runner.udevadm('settle', '--timeout=%d' % self.p['settle_timeout'])

    def verify(self, pl):
        """udev logs failed ATTR writes and carries on: reading sysfs back is the only proof."""
        expected = pl['expected']
        devices = self.result['devices']
        failures = []
        for name in sorted(expected):
            after = read_live(self.host, name)
            devices[name]['after'] = after
            for attr, (want, have) in sorted(compare(expected[name], after).items()):
                failures.append('%s (%s): %s expected %s, live %s'
                                % (name, ', '.join(pl['selected'][name]), attr, want, have))
        self.result['readahead_changed'] = sorted(
            name for name in expected
            if devices[name]['before'].get('read_ahead_kb') != devices[name]['after'].get('read_ahead_kb'))
        if failures:
            self.fail('live values differ from the udev rules after trigger and settle (udev ignores '
                      'failed writes; see journalctl -u systemd-udevd): ' + '; '.join(failures))

    def add_facts(self):
        """ansible_facts.iotune_readahead of readahead_facts, as the devices are now."""
        if self.result['triggered'] and not self.module.check_mode and not self.p['validate_only']:
            self.host.rescan()      # udev wrote new values after the scan the plan was made from
        try:
            facts, warnings = self.host.block_facts()
        except SysfsBlockError as e:
            raise Failure('readahead facts: %s' % e, **self.result)
        for warning in warnings:
            self.module.warn(warning)
        self.result['ansible_facts'] = {'iotune_readahead': facts}

    def run(self):
        p = self.p
        self.check_container()
        existing = files.read_text(self.path)
        if p['state'] == 'absent' and not p['validate_only']:
            self.remove(existing)
        pl = self.make_plan()
        text = self.render(pl, existing)
        drift = self.read_before(pl)
        self.handle_tuned(pl['expected'])
        to_trigger = self.to_trigger(pl['expected'], drift)
        if p['validate_only']:
            self.result['changed'] = False
            raise Done()
        if self.module.check_mode:
            raise Done()
        self.apply(text, to_trigger)
        self.verify(pl)

    def call(self):
        """The result of the whole call: ``run()``, then the facts when asked; raises Failure."""
        try:
            self.run()
        except Done:
            pass
        if self.p['facts']:
            self.add_facts()
        return self.result
