# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Jinja of the ephemeral, metrics, fio_verify, xfs and tune roles that moved into the filters of
plugins/plugin_utils/role_values.py (issue 24, test_jinja_budget.py), old against new: the expressions as the roles had
them (OLD_*) and those that replace them, rendered by Ansible's own templar over the same variables
(render_role_vars.py, one other interpreter for all the cases); role_values directly below."""

from __future__ import annotations


import pytest

from ansible_collections.iotune.storage.plugins.plugin_utils import role_values
from ansible_collections.iotune.storage.tests.unit.roles import templar


render_all = templar.render_all


OLD_ESCAPE_ARGV = "['systemd-escape', '--path', '--suffix=mount'] + ephemeral_arrays | map(attribute='mountpoint') | list"
NEW_ESCAPE_ARGV = "ephemeral_arrays | iotune.storage.argv_with(['systemd-escape', '--path', '--suffix=mount'], 'mountpoint')"
OLD_CHECK_ARGV = ("[ephemeral_python, '-I', '-B', ephemeral_lib_dir ~ '/iotune-ephemeral', '--check']"
                  " + ephemeral_arrays | map(attribute='name') | list")
NEW_CHECK_ARGV = ("ephemeral_arrays | iotune.storage.argv_with([ephemeral_python, '-I', '-B', ephemeral_lib_dir ~ '/iotune-ephemeral',"
                  " '--check'], 'name')")
OLD_DIRECTORIES = ("(ephemeral_to_write | map(attribute='dest') | map('dirname') | list"
                   " + (['/etc/systemd/system/local-fs.target.wants'] if ephemeral_to_enable else [])) | unique")
NEW_DIRECTORIES = "ephemeral_to_write | iotune.storage.ephemeral_directories(ephemeral_to_enable)"
LIB_REGEXP = {'ephemeral_lib_regexp': "^({{ ephemeral_lib_dir | regex_escape }}|{{ ephemeral_spec_dir | regex_escape }})/"}
OLD_LIB_FOUND = "ephemeral_found | map(attribute='path') | select('match', ephemeral_lib_regexp) | list | length > 0"
NEW_LIB_FOUND = "ephemeral_found | iotune.storage.paths_under([ephemeral_lib_dir, ephemeral_spec_dir]) | length > 0"
OLD_RELOAD = ("ephemeral_written.results | default([]) | selectattr('changed') | map(attribute='item.dest')"
              " | select('match', '^/etc/systemd/') | list | length > 0 or ephemeral_removed is changed"
              " or ephemeral_enabled is changed")
NEW_RELOAD = ("ephemeral_written.results | default([]) | iotune.storage.changed_dests('/etc/systemd/') | length > 0"
              " or ephemeral_removed is changed or ephemeral_enabled is changed")
OLD_EPHEMERAL_FOUND = ("ephemeral_found_files if ephemeral_found_files is not none"
                       " else ephemeral_found_units.files | default([]) + ephemeral_found_lib.files | default([])")
NEW_EPHEMERAL_FOUND = ("ephemeral_found_files | iotune.storage.files_found([ephemeral_found_units | default({}),"
                       " ephemeral_found_lib | default({})])")
OLD_METRICS_INSTALLED = ("metrics_found_files | map(attribute='path') | list if metrics_found_files is not none"
                         " else metrics_probe.changed_paths | default([])")
NEW_METRICS_INSTALLED = "metrics_found_files | iotune.storage.files_found([metrics_probe | default({})], key='changed_paths', paths=true)"
OLD_UNITS_WRITTEN = "metrics_written.changed_paths | default([]) | intersect(metrics_unit_paths) | length > 0"
NEW_UNITS_WRITTEN = "metrics_written.changed_paths | default([]) | iotune.storage.overlaps(metrics_unit_paths)"
OLD_NO_OOPS = ("fio_verify_raw.results | default([]) | selectattr('crash', 'defined')"
               " | map(attribute='crash') | selectattr('kernel_died') | list | length == 0")
NEW_NO_OOPS = "not fio_verify_raw.results | default([]) | iotune.storage.any_true('crash.kernel_died')"
OLD_FACTS = ("block_tuning_results.ansible_facts is not defined or tune_verify_decisions | selectattr('verify') | list | length > 0"
             " or kernel_results.tuned.override | default(false)")
NEW_FACTS = ("block_tuning_results.ansible_facts is not defined or tune_verify_decisions | iotune.storage.any_true('verify')"
             " or kernel_results.tuned.override | default(false)")
OLD_DECISIONS = ("iotune_plan_fio_verify | iotune.storage.fio_verify_decisions(mode=iotune_verify | default('auto'),"
                 " filesystems=xfs_results | default({}), run_tags=ansible_run_tags | map('regex_replace', '^iotune_', '') | list)")
NEW_DECISIONS = ("iotune_plan_fio_verify | iotune.storage.fio_verify_decisions(mode=iotune_verify | default('auto'),"
                 " filesystems=xfs_results | default({}), run_tags=ansible_run_tags, tag_prefix='iotune_')")
OLD_XFS_RESULTS = "dict(xfs_created.results | map(attribute='item.mountpoint') | zip(xfs_created.results))"
NEW_XFS_RESULTS = "xfs_created.results | iotune.storage.results_by('mountpoint')"

ARRAYS = {'none': [], 'two': [{'name': 'md0', 'mountpoint': '/data'}, {'name': 'md1', 'mountpoint': '/var/lib/my data'}]}
WRITE = {'none': [], 'some': [{'dest': '/usr/local/lib/iotune-ephemeral/iotune-ephemeral'}, {'dest': '/etc/iotune/md0.json'},
                              {'dest': '/etc/systemd/system/iotune-ephemeral-md0.service'}, {'dest': '/etc/iotune/md1.json'}]}
FOUND = {'none': [], 'lib': [{'path': '/usr/local/lib/iotune-ephemeral/iotune-ephemeral'}],
         'spec': [{'path': '/etc/systemd/system/x.service'}, {'path': '/etc/io.tune+/md0.json'}],
         'sibling': [{'path': '/usr/local/lib/iotune-ephemeral2/x'}, {'path': '/etc/io.tune+'}, {'path': '/etc/ioxtune+/a'}]}
WRITTEN = {'skipped': {'skipped': True, 'changed': False},
           'empty': {'changed': False, 'results': []},
           'unit': {'changed': True, 'results': [{'changed': False, 'item': {'dest': '/etc/systemd/system/a.service'}},
                                                 {'changed': True, 'item': {'dest': '/etc/systemd/system/b.service'}}]},
           'spec': {'changed': True, 'results': [{'changed': True, 'item': {'dest': '/etc/iotune/md0.json'}},
                                                 {'changed': False, 'item': {'dest': '/etc/systemd/system/b.service'}}]}}
FINDS = {'absent': None, 'skipped': {'skipped': True, 'changed': False}, 'files': {'files': [{'path': '/a'}, {'path': '/b'}]}}
PROBE = {'absent': None, 'skipped': {'skipped': True, 'changed': False}, 'paths': {'changed_paths': ['/a', '/usr/bin/x']}}
CRASHES = {'none': [], 'fine': [{'rc': 0}, {'crash': {'kernel_died': False}}], 'died': [{'rc': 0}, {'crash': {'kernel_died': True}}]}
DECISIONS = {'none': [], 'no': [{'verify': False}], 'one': [{'verify': False}, {'verify': True}]}
UNITS = ['/etc/systemd/system/iotune-storage-metrics.service', '/etc/systemd/system/iotune-storage-metrics.timer']


def _vars(**values):
    """The variables of a case, those set to None left undefined."""
    return dict((k, v) for k, v in values.items() if v is not None)


def _cases():
    """(label, old, new, variables, templates) of each comparison."""
    cases = []
    for name, arrays in ARRAYS.items():
        variables = {'ephemeral_arrays': arrays, 'ephemeral_python': '/usr/bin/python3', 'ephemeral_lib_dir': '/usr/local/lib/x'}
        cases.append(('escape ' + name, OLD_ESCAPE_ARGV, NEW_ESCAPE_ARGV, variables, {}))
        cases.append(('check ' + name, OLD_CHECK_ARGV, NEW_CHECK_ARGV, variables, {}))
    for write in WRITE:
        for enable in ([], ['iotune-ephemeral-md0.service']):
            variables = {'ephemeral_to_write': WRITE[write], 'ephemeral_to_enable': enable}
            cases.append(('dirs %s %s' % (write, enable), OLD_DIRECTORIES, NEW_DIRECTORIES, variables, {}))
    for name, found in FOUND.items():
        variables = {'ephemeral_found': found, 'ephemeral_lib_dir': '/usr/local/lib/iotune-ephemeral', 'ephemeral_spec_dir': '/etc/io.tune+'}
        cases.append(('lib ' + name, OLD_LIB_FOUND, NEW_LIB_FOUND, variables, LIB_REGEXP))
    for name, written in WRITTEN.items():
        for removed in (False, True):
            variables = {'ephemeral_written': written, 'ephemeral_removed': {'changed': removed}, 'ephemeral_enabled': {'changed': False}}
            cases.append(('reload %s %s' % (name, removed), OLD_RELOAD, NEW_RELOAD, variables, {}))
    for read in (None, [{'path': '/r'}]):
        for units in FINDS:
            for lib in FINDS:
                variables = _vars(ephemeral_found_units=FINDS[units], ephemeral_found_lib=FINDS[lib])
                variables['ephemeral_found_files'] = read
                cases.append(('found %s %s %s' % (read, units, lib), OLD_EPHEMERAL_FOUND, NEW_EPHEMERAL_FOUND, variables, {}))
        for probe in PROBE:
            variables = _vars(metrics_probe=PROBE[probe])
            variables['metrics_found_files'] = read
            cases.append(('installed %s %s' % (read, probe), OLD_METRICS_INSTALLED, NEW_METRICS_INSTALLED, variables, {}))
    for paths in (None, [], ['/usr/bin/x'], ['/usr/bin/x', UNITS[1]]):
        variables = _vars(metrics_written={'changed_paths': paths} if paths is not None else None)
        variables['metrics_unit_paths'] = UNITS
        cases.append(('units %s' % (paths,), OLD_UNITS_WRITTEN, NEW_UNITS_WRITTEN, variables, {}))
    for name, results in CRASHES.items():
        cases.append(('oops ' + name, OLD_NO_OOPS, NEW_NO_OOPS, {'fio_verify_raw': {'results': results}}, {}))
    cases.append(('oops skipped', OLD_NO_OOPS, NEW_NO_OOPS, {'fio_verify_raw': {'skipped': True}}, {}))
    for name, decisions in DECISIONS.items():
        for facts in ({}, {'ansible_facts': {}}):
            variables = {'tune_verify_decisions': decisions, 'block_tuning_results': facts}
            cases.append(('facts %s %s' % (name, facts), OLD_FACTS, NEW_FACTS, variables, {}))
    plan = [{'directory': '/data', 'filesystem': '/data'}, {'directory': '/srv'}]
    for tags in ([], ['all'], ['verify'], ['iotune_verify'], ['iotune_tune', 'iotune_facts']):
        variables = {'iotune_plan_fio_verify': plan, 'ansible_run_tags': tags, 'xfs_results': {'/data': {'changed': False}}}
        cases.append(('decisions %s' % (tags,), OLD_DECISIONS, NEW_DECISIONS, variables, {}))
    results = [{'changed': True, 'item': {'mountpoint': '/data'}}, {'changed': False, 'item': {'mountpoint': '/srv', 'x': 1}}]
    for name, created in (('none', []), ('two', results), ('repeat', results + [{'changed': False, 'item': {'mountpoint': '/data'}}])):
        cases.append(('xfs ' + name, OLD_XFS_RESULTS, NEW_XFS_RESULTS, {'xfs_created': {'results': created}}, {}))
    return cases


CASES = _cases()
_RENDERED = {}


def rendered():
    """The values of every case, rendered once (one interpreter for all)."""
    if not _RENDERED:
        outs = render_all([('readahead_sweep', {'old': old, 'new': new}, variables, templates)
                           for _label, old, new, variables, templates in CASES])
        _RENDERED.update((case[0], out) for case, out in zip(CASES, outs))
    return _RENDERED


@pytest.mark.parametrize('case', CASES, ids=[case[0] for case in CASES])
def test_role_values_as_the_old_jinja(case):
    label, old, new, _variables, _templates = case
    out = rendered()[label]
    assert not (isinstance(out[new], dict) and 'error' in out[new]), out[new]
    assert out[old] == out[new], (out[old], out[new])


def test_role_values_units():
    assert role_values.argv_with([{'n': 'a'}, {'n': 'b'}], ['x', '-y'], 'n') == ['x', '-y', 'a', 'b']
    assert role_values.ephemeral_directories([{'dest': '/a/b'}, {'dest': '/a/c'}], ['u']) == ['/a', role_values.WANTS_DIR]
    assert role_values.ephemeral_directories([], []) == []
    assert role_values.paths_under([{'path': '/a/b'}, {'path': '/ab/c'}, {'path': '/c/d'}], ['/a', '/c']) == ['/a/b', '/c/d']
    results = [{'changed': True, 'item': {'dest': '/etc/x'}}, {'changed': False, 'item': {'dest': '/etc/y'}},
               {'changed': True, 'item': {'dest': '/usr/z'}}, {'changed': True, 'item': 'no dest'}]
    assert role_values.changed_dests(results, '/etc/') == ['/etc/x']
    assert role_values.changed_dests(results) == ['/etc/x', '/usr/z']
    assert role_values.files_found([{'path': '/r'}], [{'files': [1]}]) == [{'path': '/r'}]
    assert role_values.files_found([{'path': '/r'}], [], paths=True) == ['/r']
    assert role_values.files_found(None, [{'files': [1]}, {'skipped': True}, None, {'files': [2]}]) == [1, 2]
    assert role_values.files_found(None, [{'changed_paths': ['/a']}], key='changed_paths') == ['/a']
    assert role_values.overlaps(['/a', '/b'], ['/b']) is True
    assert role_values.overlaps([], ['/b']) is False
    assert role_values.any_true([{'a': {'b': False}}, {'c': 1}], 'a.b') is False
    assert role_values.any_true([{'a': {'b': False}}, {'a': {'b': 1}}], 'a.b') is True
    assert role_values.any_true([], 'a') is False
    assert role_values.results_by([{'item': {'m': '/a'}, 'n': 1}, {'item': {'m': '/a'}, 'n': 2}], 'm') == {'/a': {'item': {'m': '/a'}, 'n': 2}}
