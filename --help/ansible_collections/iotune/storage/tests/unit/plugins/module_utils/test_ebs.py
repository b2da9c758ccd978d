# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/ebs.py: the EBS volume id <-> NVMe serial mapping, and both of its users agreeing on it."""

from __future__ import annotations

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import block_tuning as bt
from ansible_collections.iotune.storage.plugins.module_utils import ebs
from ansible_collections.iotune.storage.plugins.module_utils import sysfs_block as sb


@pytest.mark.parametrize('given', ['vol-0123456789abcdef1', 'vol0123456789abcdef1', ' vol-0123456789abcdef1 '])
def test_both_spellings_give_the_dashless_serial(given):
    assert ebs.serial_for_volume_id(given) == 'vol0123456789abcdef1'
    assert ebs.by_id_link(given) == 'nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef1'


@pytest.mark.parametrize('given', ['vol-12345678', 'vol12345678'])
def test_old_short_ids(given):
    assert ebs.serial_for_volume_id(given) == 'vol12345678'


@pytest.mark.parametrize('given', [None, '', 'vol-xyz', 'vol--0123456789abcdef1', '0123456789abcdef1',
                                   'vol-0123456789ABCDEF1', 'vol-0123456789abcdef12'])
def test_not_a_volume_id(given):
    with pytest.raises(ValueError, match='is not an EBS volume id'):
        ebs.serial_for_volume_id(given)


@pytest.mark.parametrize('serial, volume_id', [('vol0123456789abcdef1', 'vol-0123456789abcdef1'),
                                               ('vol-0123456789abcdef1', 'vol-0123456789abcdef1'),
                                               ('S3Z9NB0K123456A', None), (None, None), ('', None)])
def test_volume_id_for_serial(serial, volume_id):
    assert ebs.volume_id_for_serial(serial) == volume_id


def test_round_trip():
    serial = ebs.serial_for_volume_id('vol-0a1b2c3d4e5f60718')
    assert ebs.volume_id_for_serial(serial) == 'vol-0a1b2c3d4e5f60718'
    assert ebs.serial_for_volume_id(ebs.volume_id_for_serial(serial)) == serial


def test_facts_and_tuning_agree(standard_host):
    """The id readahead_facts reports selects the same disk in udev_block_tuning, in either spelling."""
    facts, dummy = sb.collect_block_devices(page_size=4096, **standard_host.roots)
    reported = facts['nvme1n1']['cloud']['ebs_volume_id']
    assert reported == 'vol-0123456789abcdef1'
    devices = bt.collect_devices(standard_host.view())
    for spelling in (reported, reported.replace('-', '')):
        assert [d['name'] for d in bt.resolve({'ebs_volume_id': spelling}, devices)] == ['nvme1n1']
    link = os.path.join(standard_host.dev, 'disk', 'by-id', ebs.by_id_link(reported))
    assert os.path.basename(os.path.realpath(link)) == 'nvme1n1'
