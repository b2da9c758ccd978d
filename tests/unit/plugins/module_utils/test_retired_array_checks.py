# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A host with a retired array (issue 29) in the checks that read mdadm.conf: the ``ARRAY <ignore> UUID=...`` line a
retire without zero_superblocks leaves is no stale or unknown ARRAY line for the audit (module_utils/audit.py and
drift.py, storage_audit's comparison), for the metrics collector (textfile_metrics) and for the comparison of the
initramfs's copy (drift's initramfs area; initramfs_facts' compare: tests/unit/plugins/modules/test_initramfs_facts.py);
each with its negative control: a plain ARRAY line of the planned name with another UUID, which is stale."""

from __future__ import annotations

import copy

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import audit as host_audit
from ansible_collections.iotune.storage.plugins.module_utils import drift
from ansible_collections.iotune.storage.plugins.module_utils import retire
from ansible_collections.iotune.storage.plugins.module_utils import textfile_metrics as metrics
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.audit import ARRAYS, RULES, UUID, tuned_host, tuning
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.test_textfile_metrics import PLAN, parse, value

CONF = 'etc/mdadm/mdadm.conf'
PLANNED = 'ARRAY /dev/md/data metadata=1.2 UUID=%s name=lab:data' % UUID
RETIRED_UUID = '0badc0de:11112222:33334444:55556666'
IGNORE = retire.ignore_line(RETIRED_UUID)
# the negative control: a line of another array under the planned name (a leftover of an array made again)
STALE = 'ARRAY /dev/md/data metadata=1.2 UUID=%s name=lab:data' % RETIRED_UUID
NOW = 1764000000.25


def with_conf(h, extra):
    """The tuned host of fixtures/audit.py with ``extra`` after the planned line in mdadm.conf."""
    h.write(CONF, 'HOMEHOST <system>\n%s\n%s\n' % (PLANNED, extra))
    return h


def initramfs_reader(lines):
    """storage_audit's reader of the initramfs that boots next, answering with ``lines``."""
    return lambda: {'checked': True, 'image': '/boot/initrd.img', 'generator': 'initramfs-tools', 'kernel': '6.1.0',
                    'conf_path': '/etc/mdadm/mdadm.conf', 'error': None,
                    'lines': [host_audit.array_line_facts(line) for line in lines]}


def audited(h, image_lines):
    facts = host_audit.gather(h.view(), ARRAYS, tuning(h), RULES, read_initramfs=initramfs_reader(image_lines))
    return facts, drift.compare(copy.deepcopy(facts), PLAN, 'db1')


@pytest.mark.parametrize('extra', [IGNORE, 'ARRAY  <ignore>   UUID=%s' % RETIRED_UUID.replace(':', '')],
                         ids=['as retire writes it', 'spaced, plain hex'])
def test_the_ignore_line_is_no_drift_in_mdadm_conf_nor_in_the_initramfs(fake_host, extra):
    h = with_conf(tuned_host(fake_host), extra)
    facts, result = audited(h, [PLANNED, extra])
    assert result['verdict'] == 'ok' and result['items'] == []
    # it is read as an ARRAY line (of no planned array): the comparison leaves it alone, it does not miss it
    assert [line['uuid'] for line in facts['mdadm_conf']['lines']] == [UUID, RETIRED_UUID]
    assert facts['initramfs']['checked']


def test_an_initramfs_not_rebuilt_yet_with_the_retired_array_s_old_line_is_no_drift_of_the_planned_array(fake_host):
    # before the raid0 stage's rebuild the image still has the retired array's own line (another name, another UUID)
    h = with_conf(tuned_host(fake_host), IGNORE)
    old = 'ARRAY /dev/md/data2 metadata=1.2 UUID=%s name=lab:data2' % RETIRED_UUID
    assert audited(h, [PLANNED, old])[1]['items'] == []


def test_negative_control_a_stale_line_of_the_planned_name_is_drift(fake_host):
    h = with_conf(tuned_host(fake_host), STALE)
    dummy, result = audited(h, [PLANNED, STALE])
    found = sorted((i['area'], i['message']) for i in result['items'])
    assert found == [
        ('initramfs', 'stale ARRAY line in the initramfs that boots next: %s (the running array is UUID=%s)'
         % (STALE, UUID)),
        ('mdadm.conf', 'stale ARRAY line in mdadm.conf: %s (the running array is UUID=%s)' % (STALE, UUID))]
    assert result['verdict'] == 'drift'


def test_the_metrics_collector_counts_no_drift_for_the_ignore_line(fake_host):
    h = with_conf(tuned_host(fake_host), IGNORE)
    facts, result = audited(h, [PLANNED, IGNORE])
    samples = parse(metrics.render(result, facts, NOW, 0.5, spec_mtime=1763990000.0))
    assert value(samples, 'drift_items') == 0 and value(samples, 'initramfs_checked') == 1
    assert value(samples, 'array_state', array='data', state='active') == 1
    # negative control: the stale line is counted
    h = with_conf(h, STALE)
    facts, result = audited(h, [PLANNED, STALE])
    samples = parse(metrics.render(result, facts, NOW, 0.5, spec_mtime=1763990000.0))
    assert value(samples, 'drift_items') == 2
