# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tune_summary: the summary of the tune role, equal to the Jinja expression it replaced in playbooks/tune.yml."""

from __future__ import annotations

import copy

import jinja2
import pytest

from ansible.errors import AnsibleFilterError
from ansible.plugins.filter.core import regex_escape
from ansible.plugins.test.core import match

from ansible_collections.iotune.storage.plugins.filter.tune_summary import tune_summary

# The summary expression of playbooks/tune.yml before the tune role (the fio_verify_decisions call
# replaced by the variable `decisions`), rendered with plain Jinja for the equivalence tests.
OLD_TEMPLATE = r"""
{%- set lines = ['profile ' ~ iotune_profile ~ ' (' ~ iotune_plan_profile.description ~ ')'] -%}
{%- for a in iotune_arrays -%}
{%- set md = tune_facts.values() | selectattr('md') | selectattr('md.name', 'string')
               | selectattr('md.name', 'match', '^(.*:)?' ~ (a.name | regex_escape) ~ '$') | list -%}
{%- if md -%}
{%- set m = md[0] -%}
{%- set _ = lines.append(a.name ~ ': ' ~ m.name ~ ' raid' ~ (m.md.level | default('?') | replace('raid', ''))
      ~ ' chunk ' ~ m.md.chunk_kb ~ ' KiB x ' ~ m.md.raid_disks ~ ', read_ahead_kb ' ~ m.read_ahead_kb
      ~ ' (profile ' ~ iotune_plan_profile.array.read_ahead_kb ~ ', kernel default '
      ~ m.kernel_default_read_ahead_kb ~ '), mounted at '
      ~ (m.mounts | map(attribute='mountpoint') | join(', ') or 'nothing')) -%}
{%- for s in m.slaves -%}
{%- set d = tune_facts[s] | default({}) -%}
{%- set _ = lines.append('  member ' ~ s ~ ': scheduler ' ~ d.scheduler | default('?')
      ~ ', read_ahead_kb ' ~ d.read_ahead_kb | default('?')) -%}
{%- endfor -%}
{%- else -%}
{%- set _ = lines.append(a.name ~ ': array not present' ~ (' (check mode)' if ansible_check_mode else '')) -%}
{%- endif -%}
{%- endfor -%}
{%- if block_tuning_results is defined and block_tuning_results.rules_file is defined -%}
{%- set _ = lines.append('udev rules ' ~ block_tuning_results.rules_file ~ ': '
      ~ (('would change' if ansible_check_mode else 'changed') if block_tuning_results.rules_changed else 'unchanged')
      ~ (', would trigger: ' if ansible_check_mode else ', triggered: ')
      ~ (block_tuning_results.triggered | join(', ') or 'none')) -%}
{%- endif -%}
{%- set verified = fio_verify_results_by_directory | default({}) -%}
{%- for v in decisions -%}
{%- if v.directory in verified -%}
{%- set _ = lines.append('fio verification of ' ~ v.directory ~ ': ' ~ verified[v.directory].verdict
      ~ (' (check mode: ' if ansible_check_mode else ' (') ~ v.reason ~ '); '
      ~ verified[v.directory].page_cache_note) -%}
{%- elif v.verify -%}
{%- set _ = lines.append('fio verification of ' ~ v.directory ~ ': not measured'
      ~ (' (check mode)' if ansible_check_mode else '') ~ ' (' ~ v.reason ~ ')') -%}
{%- else -%}
{%- set _ = lines.append('fio verification of ' ~ v.directory ~ ': ' ~ v.reason) -%}
{%- endif -%}
{%- endfor -%}
{%- if tune_kernel_report.conflicts is defined -%}
{%- set k = tune_kernel_report.conflicts + tune_kernel_report.drift -%}
{%- set _ = lines.append('kernel settings: ' ~ ('as the profile says' if not k else k | join('; '))
      ~ ((' (notes: ' ~ tune_kernel_report.notes | join('; ') ~ ')') if tune_kernel_report.notes else '')) -%}
{%- endif -%}
{{ lines }}
"""

PLAN_PROFILE = {'description': 'Cassandra on local NVMe or EBS', 'array': {'read_ahead_kb': 16}}
FACTS = {
    'vda': {'name': 'vda', 'md': None, 'scheduler': 'mq-deadline', 'read_ahead_kb': 128},
    'md127': {'name': 'md127', 'md': {'name': 'db1:data', 'level': 'raid0', 'chunk_kb': 256, 'raid_disks': 2},
              'read_ahead_kb': 16, 'kernel_default_read_ahead_kb': 1024, 'slaves': ['vdb', 'vdc'],
              'mounts': [{'mountpoint': '/var/lib/cassandra'}]},
    'vdb': {'name': 'vdb', 'md': None, 'scheduler': 'none', 'read_ahead_kb': 16},
    'vdc': {'name': 'vdc', 'md': None, 'scheduler': 'none', 'read_ahead_kb': 16},
    'md1': {'name': 'md1', 'md': {'name': 'other'}, 'read_ahead_kb': 128},
}
ARRAYS = [{'name': 'data'}, {'name': 'logs'}]
BLOCK = {'rules_file': '/etc/udev/rules.d/60-iotune-storage.rules', 'rules_changed': True, 'triggered': ['md127', 'vdb']}
DECISIONS = [{'directory': '/var/lib/cassandra', 'verify': True, 'reason': 'the filesystem was created in this run'},
             {'directory': '/srv/logs', 'verify': True, 'reason': 'asked with --tags verify'},
             {'directory': '/srv/old', 'verify': False, 'reason': 'skipped: the filesystem existed before this run'}]
VERIFIED = {'/var/lib/cassandra': {'verdict': 'pass', 'page_cache_note': 'host page cache dropped before every run'}}
KERNEL = {'conflicts': ['tuned profile throughput-performance sets vm.swappiness=10'], 'drift': [],
          'notes': ['THP set on the kernel command line']}


def old(facts, check_mode=False, **variables):
    # Ansible's undefined variables chain like ChainableUndefined (undefined.attr is undefined, no error)
    env = jinja2.Environment(undefined=jinja2.ChainableUndefined)
    env.filters['regex_escape'] = regex_escape
    env.tests['match'] = match
    context = dict(iotune_profile='cassandra', iotune_plan_profile=PLAN_PROFILE, iotune_arrays=ARRAYS,
                   tune_facts=facts, decisions=DECISIONS, ansible_check_mode=check_mode)
    context.update(variables)
    # the template ends with "{{ lines }}": compare the list itself
    captured = {}

    def grab(lines):
        captured['lines'] = lines
        return ''
    env.globals['grab'] = grab
    env.from_string(OLD_TEMPLATE.replace('{{ lines }}', '{{ grab(lines) }}')).render(context)
    return captured['lines']


def new(facts, check_mode=False, **variables):
    names = {'block_tuning_results': 'block_tuning', 'fio_verify_results_by_directory': 'verified',
             'tune_kernel_report': 'kernel_report'}
    kwargs = {names[k]: v for k, v in variables.items()}
    return tune_summary(copy.deepcopy(facts), profile='cassandra', plan_profile=PLAN_PROFILE, arrays=ARRAYS,
                        decisions=DECISIONS, check_mode=check_mode, **kwargs)


@pytest.mark.parametrize('check_mode', [False, True])
@pytest.mark.parametrize('variables', [
    {},
    {'block_tuning_results': BLOCK},
    {'block_tuning_results': dict(BLOCK, rules_changed=False, triggered=[])},
    {'block_tuning_results': {'skipped': True}},
    {'fio_verify_results_by_directory': VERIFIED},
    {'tune_kernel_report': KERNEL},
    {'tune_kernel_report': {'conflicts': [], 'drift': [], 'notes': []}},
    {'tune_kernel_report': {'skipped': True}},
    {'block_tuning_results': BLOCK, 'fio_verify_results_by_directory': VERIFIED, 'tune_kernel_report': KERNEL},
])
def test_same_lines_as_the_playbook_expression(variables, check_mode):
    assert new(FACTS, check_mode, **variables) == old(FACTS, check_mode, **variables)


def test_same_lines_without_facts():
    assert new({}) == old({})


def test_lines_read_as_documented():
    lines = tune_summary(FACTS, profile='cassandra', plan_profile=PLAN_PROFILE, arrays=ARRAYS, block_tuning=BLOCK,
                         verified=VERIFIED, decisions=DECISIONS, kernel_report=KERNEL)
    assert lines[0] == 'profile cassandra (Cassandra on local NVMe or EBS)'
    assert lines[1] == ('data: md127 raid0 chunk 256 KiB x 2, read_ahead_kb 16 (profile 16, kernel default 1024), '
                        'mounted at /var/lib/cassandra')
    assert lines[2:4] == ['  member vdb: scheduler none, read_ahead_kb 16', '  member vdc: scheduler none, read_ahead_kb 16']
    assert lines[4] == 'logs: array not present'
    assert lines[5] == 'udev rules /etc/udev/rules.d/60-iotune-storage.rules: changed, triggered: md127, vdb'
    assert lines[6] == ('fio verification of /var/lib/cassandra: pass (the filesystem was created in this run); '
                        'host page cache dropped before every run')
    assert lines[7] == 'fio verification of /srv/logs: not measured (asked with --tags verify)'
    assert lines[8] == 'fio verification of /srv/old: skipped: the filesystem existed before this run'
    assert lines[9] == ('kernel settings: tuned profile throughput-performance sets vm.swappiness=10 '
                        '(notes: THP set on the kernel command line)')


def test_an_md_name_is_matched_whole_not_as_a_prefix():
    facts = {'md5': {'name': 'md5', 'md': {'name': 'host:database'}, 'slaves': []}}
    assert tune_summary(facts, arrays=[{'name': 'data'}])[1] == 'data: array not present'
    assert tune_summary(facts, arrays=[{'name': 'base'}])[1] == 'base: array not present'


def test_facts_must_be_a_dict():
    with pytest.raises(AnsibleFilterError, match='iotune_readahead'):
        tune_summary(['md127'])
