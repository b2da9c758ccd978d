# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The restart decision of a rolling tune run (issue 28, docs/rolling.md, a draft): from what changed on a host and
the restart policy, per database service whether it must restart, why (the change classes), and what to do (drain or
step down first, restart, wait for the health gate). Decided from what changed, never from a flag alone.

Controller side (plugin_utils): it reads the stages' registered results and the policy from the inventory; it never
touches the host. Pure functions.

The change classes and why each does or does not need a restart (CLASSES):

- ``readahead``: live. The block layer's readahead (read_ahead_kb) is read when a file is opened
  (file_ra_state_init() copies the device's ra_pages into the open file's readahead state, mm/readahead.c), so
  files opened from now on use the new value at once. Files a running process holds open keep the old window until
  they are opened again (the udev_block_tuning module says so: ``readahead_changed``); that is a delay of the
  benefit, not a fault, and Cassandra/Scylla/MongoDB reopen files as compaction and checkpoints rewrite them. No
  restart; a service that wants the new value on its open files at once asks for it with ``also_on: [readahead]``
  (what block_tuning_restart_service does today).
- ``scheduler``: live. Writing queue/scheduler switches the I/O scheduler of a running queue
  (Documentation/block/switching-sched.rst); the kernel freezes the queue for the switch itself (block/elevator.c),
  the requests in flight complete. No restart.
- ``queue``: live. The other queue attributes the tuning writes (nomerges, nr_requests, max_sectors_kb, rq_affinity,
  Documentation/ABI/stable/sysfs-block) apply to the requests issued after the write. No restart.
- ``sysctl``: live. Writing /proc/sys (sysctl --system, the kernel role's load) changes the running kernel's value
  (Documentation/admin-guide/sysctl/vm.rst for the vm.* the profiles set). A few values are read when a process makes
  its call (net.core.somaxconn at listen(), socket buffer defaults at socket()); they reach a running server's
  sockets only when it makes them again: no restart decided for them, ``also_on: [sysctl]`` asks for one.
- ``thp``: restart for MongoDB only. MongoDB asks for the THP setting in place before mongod starts (8.0 and later:
  THP enabled, https://www.mongodb.com/docs/manual/administration/tcmalloc-performance/; 7.0 and earlier: disabled,
  https://www.mongodb.com/docs/manual/tutorial/disable-transparent-huge-pages/; both: "before mongod starts"): its
  allocator reads it at start. For the JVM databases a THP change is live for memory mapped from then on; DataStax
  asks only for defrag off (docs/profiles.md): no restart.
- ``limits``: restart. A systemd drop-in's Limit*= (LimitNOFILE, LimitMEMLOCK, ...) is applied to the process systemd
  starts (systemd.exec(5), "Process Properties"); a running process keeps the limits it was started with.
- ``mount_hold``: no restart. The RequiresMountsFor= drop-in (module_utils/mount_holds.py) adds a dependency systemd
  reads at daemon-reload and uses when it next starts the unit (systemd.unit(5)); it changes nothing for the running
  process.
- ``data_mount``: restart. A filesystem newly mounted on a service's data directory hides what the running process
  has open below it (its files, its working directory stay on the filesystem underneath); only a new process uses
  the new filesystem. The preflight refuses a mount point that is not empty and a move while files are in use
  (docs/safety.md), so this is mostly a service that was installed, running on an empty directory.
- ``array``: no restart by itself. A new md array is not used by a service until a filesystem on it is mounted where
  the service reads (that is ``data_mount``).
- ``initramfs``: no restart. The initramfs is read at the next boot only.

A change names the units it concerns (``units``: a limits or mount drop-in belongs to one unit, a data mount to the
services of its filesystem) or none (host-wide: readahead, scheduler, queue, sysctl, thp).
"""

from __future__ import annotations

from ansible_collections.iotune.storage.plugins.module_utils import service_limits
from ansible_collections.iotune.storage.plugins.module_utils.rules import did_you_mean

KINDS = ('generic', 'cassandra', 'scylla', 'mongodb')
POLICY_KEYS = ('restart', 'services')
SERVICE_KEYS = ('unit', 'kind', 'drain', 'also_on')
CHANGE_KEYS = ('class', 'what', 'units')
RESTART_CHOICES = ('auto', 'never')
ALL = frozenset(KINDS)
NONE = frozenset()

# class: (the service kinds that must restart after it, why they must, why the others need not; None: all must)
CLASSES = {
    'readahead': (NONE, None, 'live: files opened from now on use it (open files keep their window until reopened)'),
    'scheduler': (NONE, None, 'live: the kernel switches the scheduler of the running queue'),
    'queue': (NONE, None, 'live: queue attributes apply to the next requests'),
    'sysctl': (NONE, None, 'live: the running kernel uses the new value'),
    'thp': (frozenset(('mongodb',)), 'MongoDB reads THP when mongod starts',
            'live for memory mapped from now on (only MongoDB reads it at start)'),
    'limits': (ALL, 'systemd applies Limit*= only to a process it starts', None),
    'mount_hold': (NONE, None, 'systemd uses RequiresMountsFor= at the next start of the unit'),
    'data_mount': (ALL, 'the running process still uses the directory under the new mount', None),
    'array': (NONE, None, 'a new array is used only once its filesystem is mounted (data_mount)'),
    'initramfs': (NONE, None, 'read at the next boot only'),
}
# what drain: true runs before the restart, by kind: Cassandra/Scylla flush and stop taking writes (nodetool drain);
# a MongoDB primary steps down so that the set elects another before mongod stops (a secondary does nothing)
DRAIN_COMMANDS = {
    'cassandra': ['nodetool', 'drain'],
    'scylla': ['nodetool', 'drain'],
    'mongodb': ['mongosh', '--quiet', '--eval', 'if (db.hello().isWritablePrimary) { rs.stepDown() }'],
}
# the udev_block_tuning result's live values (devices.*.before/after) and the class of each; any other, but rotational
# (read, never written), is a queue attribute
DEVICE_VALUE_CLASSES = {'read_ahead_kb': 'readahead', 'scheduler': 'scheduler'}
READ_ONLY_VALUES = ('rotational',)


class RestartDecisionError(ValueError):
    pass


def _unknown_keys(spec, known, where):
    for key in spec:
        if key not in known:
            raise RestartDecisionError('%s: unknown key %r%s (known: %s)' % (where, key,
                                                                             did_you_mean(key, list(known)),
                                                                             ', '.join(known)))


def change_class(name, where):
    if name not in CLASSES:
        raise RestartDecisionError('%s: unknown change class %r%s (known: %s)' % (
            where, name, did_you_mean(str(name), sorted(CLASSES)), ', '.join(sorted(CLASSES))))
    return name


def unit_name(value, where):
    """A systemd service name as systemctl takes it; a name without a suffix gets .service (as systemctl does)."""
    if not isinstance(value, str) or not value.strip() or any(c.isspace() for c in value.strip()):
        raise RestartDecisionError('%s must be a unit name, got %r' % (where, value))
    value = value.strip()
    return value if '.' in value.rsplit('@', 1)[-1] else value + '.service'


def _service(spec, where):
    if isinstance(spec, str):
        spec = {'unit': spec}
    if not isinstance(spec, dict):
        raise RestartDecisionError('%s must be a mapping or a unit name, got %r' % (where, spec))
    _unknown_keys(spec, SERVICE_KEYS, where)
    if 'unit' not in spec:
        raise RestartDecisionError('%s.unit is required' % where)
    kind = spec.get('kind', 'generic')
    if kind not in KINDS:
        raise RestartDecisionError('%s.kind: unknown kind %r%s (known: %s)'
                                   % (where, kind, did_you_mean(str(kind), list(KINDS)), ', '.join(KINDS)))
    drain = spec.get('drain', False)
    if drain is True:
        if kind not in DRAIN_COMMANDS:
            raise RestartDecisionError('%s.drain: true needs a kind with a drain command (%s); for kind %s give the '
                                       'command as a list' % (where, ', '.join(sorted(DRAIN_COMMANDS)), kind))
        drain = list(DRAIN_COMMANDS[kind])
    elif drain is False or drain is None:
        drain = None
    elif not isinstance(drain, list) or not drain or not all(isinstance(a, str) and a for a in drain):
        raise RestartDecisionError('%s.drain must be true, false or a command (a list of strings), got %r'
                                   % (where, drain))
    also_on = spec.get('also_on') or []
    if not isinstance(also_on, list):
        raise RestartDecisionError('%s.also_on must be a list of change classes, got %r' % (where, also_on))
    return {'unit': unit_name(spec['unit'], '%s.unit' % where), 'kind': kind, 'drain': drain,
            'also_on': [change_class(c, '%s.also_on' % where) for c in also_on]}


def validate_policy(spec, where='restart_policy'):
    """{'restart', 'services'} of a restart policy: ``restart`` auto (default: restart what needs it) or never (list
    it as pending), ``services`` the database units of the host group, each {unit, kind, drain, also_on} (a string
    is a unit of kind generic). RestartDecisionError naming the bad key."""
    spec = {} if spec is None else spec
    if not isinstance(spec, dict):
        raise RestartDecisionError('%s must be a mapping, got %r' % (where, spec))
    _unknown_keys(spec, POLICY_KEYS, where)
    restart = spec.get('restart', 'auto')
    if restart not in RESTART_CHOICES:
        raise RestartDecisionError('%s.restart must be one of %s, got %r'
                                   % (where, ', '.join(RESTART_CHOICES), restart))
    services = spec.get('services') or []
    if not isinstance(services, list):
        raise RestartDecisionError('%s.services must be a list, got %r' % (where, services))
    found = [_service(s, '%s.services[%d]' % (where, i)) for i, s in enumerate(services)]
    units = [s['unit'] for s in found]
    twice = sorted(set(u for u in units if units.count(u) > 1))
    if twice:
        raise RestartDecisionError('%s.services names %s more than once' % (where, ', '.join(twice)))
    return {'restart': restart, 'services': found}


def validate_changes(changes, where='changes'):
    """The changes of a host as [{'class', 'what', 'units'}] (a string is a host-wide change of that class;
    ``units`` None: host-wide, else the unit names it concerns). RestartDecisionError naming the bad entry."""
    if changes is None:
        return []
    if not isinstance(changes, list):
        raise RestartDecisionError('%s must be a list, got %r' % (where, changes))
    found = []
    for index, item in enumerate(changes):
        at = '%s[%d]' % (where, index)
        if isinstance(item, str):
            item = {'class': item}
        if not isinstance(item, dict):
            raise RestartDecisionError('%s must be a change class or a mapping, got %r' % (at, item))
        _unknown_keys(item, CHANGE_KEYS, at)
        if 'class' not in item:
            raise RestartDecisionError('%s.class is required' % at)
        units = item.get('units')
        if units is not None:
            if not isinstance(units, list) or not units:
                raise RestartDecisionError('%s.units must be a non-empty list of unit names, got %r' % (at, units))
            units = [unit_name(u, '%s.units' % at) for u in units]
        found.append({'class': change_class(item['class'], '%s.class' % at), 'what': item.get('what'),
                      'units': units})
    return found


def _reason(change, why):
    return {'class': change['class'], 'what': change['what'], 'why': why}


def service_decision(service, changes, restart):
    """One service's {'unit', 'kind', 'restart', 'pending', 'reasons', 'actions'} for the validated ``changes``
    and the policy's ``restart`` (auto, never)."""
    reasons = []
    for change in changes:
        if change['units'] is not None and service['unit'] not in change['units']:
            continue
        kinds, why, why_not = CLASSES[change['class']]
        if service['kind'] in kinds:
            reasons.append(_reason(change, why))
        elif change['class'] in service['also_on']:
            reasons.append(_reason(change, 'asked by also_on (%s)' % why_not))
    needed = bool(reasons)
    actions = []
    if needed and restart == 'auto':
        if service['drain']:
            actions.append({'action': 'drain', 'argv': service['drain']})
        actions.append({'action': 'restart', 'unit': service['unit']})
        actions.append({'action': 'gate'})
    return {'unit': service['unit'], 'kind': service['kind'], 'restart': needed,
            'pending': needed and restart == 'never', 'reasons': reasons, 'actions': actions}


def _unused(change, services):
    """Why a change restarts no service of the policy: it is live (``live``), or it needs a restart of a service
    the policy does not list (``unmanaged``)."""
    dummy, dummy2, why_not = CLASSES[change['class']]
    if why_not is not None:
        return 'live', _reason(change, why_not)
    units = ', '.join(change['units'] or []) or 'the services using it'
    return 'unmanaged', _reason(change, 'needs a restart of %s, which the restart policy does not list%s' % (
        units, '' if services else ' (it lists no service)'))


def decide(changes, policy):
    """The restart decision of one host: {'restart_policy', 'services', 'live', 'unmanaged', 'restart_needed'}.

    ``changes``: what changed on the host (validate_changes' form); ``policy``: the restart policy (validate_policy's
    form, validated here too). ``services``: service_decision() per service of the policy, in its order; ``live``:
    the changes that need no restart (with why); ``unmanaged``: those that need a restart of a service the policy
    does not list (the run reports them, it restarts nothing it was not told about); ``restart_needed``: whether a
    service of the policy needs a restart."""
    policy = validate_policy(policy)
    changes = validate_changes(changes)
    services = [service_decision(s, changes, policy['restart']) for s in policy['services']]
    used = set()
    for decision in services:
        for reason in decision['reasons']:
            used.add((reason['class'], reason['what']))
    found = {'live': [], 'unmanaged': []}
    for change in changes:
        if (change['class'], change['what']) not in used:
            where, reason = _unused(change, policy['services'])
            found[where].append(reason)
    return {'restart_policy': policy['restart'], 'services': services, 'live': found['live'],
            'unmanaged': found['unmanaged'], 'restart_needed': any(s['restart'] for s in services)}


def _what(reason):
    return '%s (%s)' % (reason['class'], reason['what']) if reason['what'] else reason['class']


def reason_text(reason):
    """One reason of a service's decision as a line: the change and why it needs the restart."""
    return '%s: %s' % (_what(reason), reason['why'])


def summary_lines(decision, check_mode=False):
    """The lines the run prints per host (and --check prints as what would happen): each service that restarts or
    has a restart pending, with its reasons and actions, then the live changes."""
    lines = []
    for service in decision['services']:
        if not service['restart']:
            continue
        reasons = ', '.join(_what(r) for r in service['reasons'])
        if service['pending']:
            lines.append('%s: restart pending (restart: never): %s' % (service['unit'], reasons))
        else:
            steps = ', '.join(a['action'] for a in service['actions'])
            lines.append('%s: %s (%s): %s' % (service['unit'], 'would restart' if check_mode else 'restarts',
                                              steps, reasons))
    for reason in decision['unmanaged']:
        lines.append('not restarted here: %s %s' % (_what(reason), reason['why']))
    if decision['live']:
        lines.append('no restart for: %s' % ', '.join(_what(r) for r in decision['live']))
    if not lines:
        lines.append('nothing changed that a service would notice')
    return lines


def block_tuning_changes(result):
    """The changes of a udev_block_tuning result: per device (``devices``, sorted) and live value that differs
    between ``before`` and ``after``, one host-wide change of class readahead, scheduler or queue."""
    changes = []
    devices = (result or {}).get('devices') or {}
    if not isinstance(devices, dict):
        raise RestartDecisionError('the udev_block_tuning result\'s devices must be a mapping, got %r' % (devices,))
    for name in sorted(devices):
        before = devices[name].get('before') or {}
        after = devices[name].get('after') or {}
        for key in sorted(set(before) | set(after)):
            if key in READ_ONLY_VALUES:
                continue
            old, new = before.get(key), after.get(key)
            if (None if old is None else str(old)) == (None if new is None else str(new)):
                continue
            changes.append({'class': DEVICE_VALUE_CLASSES.get(key, 'queue'),
                            'what': '%s %s %s -> %s' % (name, key, old, new), 'units': None})
    return changes


def dropin_changes(result):
    """The changes of the xfs stage's drop-in write (its config_files call): a limits drop-in written, changed or
    removed is a ``limits`` change of exactly its unit (one change per unit, in the order of ``changed_paths``); any
    other path it changed is a RequiresMountsFor drop-in (one ``mount_hold`` change, host-wide). A changed result
    without ``changed_paths`` (a module of an earlier release) is a mount hold change."""
    if not _changed(result):
        return []
    paths = result.get('changed_paths')
    changes, holds = [], not isinstance(paths, list)
    for path in paths if isinstance(paths, list) else []:
        unit = service_limits.unit_of(path)
        if unit is None:
            holds = True
        elif not any(c['units'] == [unit_name(unit, 'limits drop-in')] for c in changes):
            changes.append({'class': 'limits', 'what': 'limits drop-in of %s' % unit,
                            'units': [unit_name(unit, 'limits drop-in')]})
    if holds:
        changes.insert(0, {'class': 'mount_hold', 'what': 'RequiresMountsFor drop-ins', 'units': None})
    return changes


def _changed(result):
    return isinstance(result, dict) and bool(result.get('changed'))


def tune_changes(block_tuning=None, kernel_before=None, mounted=None, dropins=None, arrays=None):
    """What a tune run changed on a host, as changes (validate_changes' form), from the stages' registered results:
    ``block_tuning`` (the udev_block_tuning call: its live values before and after), ``kernel_before`` (the kernel
    stage's read before any change: its ``drift`` is what the stage then set live; a THP line is THP), ``mounted``
    (the xfs stage's mount loop: a filesystem mounted in this run is a data mount for its services), ``dropins`` (the
    xfs stage's drop-ins written: RequiresMountsFor drop-ins, and each limits drop-in a change of its own unit,
    dropin_changes()) and ``arrays`` (the raid0 stage's results: an array created, an
    initramfs owed). A stage that did not run (None, or skipped) changed nothing."""
    changes = block_tuning_changes(block_tuning if _changed(block_tuning) else None)
    for line in (kernel_before or {}).get('drift') or []:
        changes.append({'class': 'thp' if line.startswith('THP ') else 'sysctl', 'what': line, 'units': None})
    for result in (mounted or {}).get('results') or []:
        if _changed(result):
            entry = (result.get('item') or {}).get('item') or {}
            units = [unit_name(u, 'services') for u in entry.get('services') or []] or None
            changes.append({'class': 'data_mount', 'what': 'mounted %s' % entry.get('mountpoint'), 'units': units})
    changes.extend(dropin_changes(dropins))
    for result in (arrays or {}).get('results') or []:
        if result.get('created'):
            changes.append({'class': 'array', 'what': 'created %s' % (result.get('item') or {}).get('name'),
                            'units': None})
    return changes


def running(decision, active=None, want='restarts'):
    """From a restart decision (the restart_decision filter's: ``restarts`` and ``lines``) and ``active``, the
    registered ``systemctl is-active`` of its ``active_argv`` (a line per unit in the order of ``restarts``; None or
    skipped: none is active): ``want`` ``restarts`` the restarts of active units, ``drains`` those of them with a
    drain command, ``lines`` the decision's summary lines and one for each unit not running (not restarted)."""
    if not isinstance(decision, dict) or not isinstance(decision.get('restarts'), list):
        raise RestartDecisionError('expects the restart decision (its restarts), got %r' % (decision,))
    if want not in ('restarts', 'drains', 'lines'):
        raise RestartDecisionError('want must be restarts, drains or lines, got %r' % (want,))
    restarts = decision['restarts']
    lines = (active or {}).get('stdout_lines') or []
    states = dict((r['unit'], lines[i].strip() if i < len(lines) else 'unknown') for i, r in enumerate(restarts))
    if want == 'lines':
        return list(decision.get('lines') or []) + [
            '%s: not running (%s), not restarted; its next start uses the new settings' % (unit, state)
            for unit, state in states.items() if state != 'active']
    found = [r for r in restarts if states[r['unit']] == 'active']
    return [r for r in found if r['drain']] if want == 'drains' else found
