# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The facts report filters: flag by mount point and by where the database data directories are."""

from __future__ import annotations

import os

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.readahead_table import (
    readahead_csv,
    readahead_rows,
    readahead_table,
)


def dev(maj_min, ra, mounts=(), parent=None, type_='disk'):
    return {'maj_min': maj_min, 'read_ahead_kb': ra, 'type': type_, 'parent': parent,
            'readahead_shared_with': parent, 'mounts': [{'mountpoint': m} for m in mounts]}


# a database on the root disk: vda (8 MiB readahead) with / on vda1; a tuned md127 at /var/lib/cassandra
HOST = {
    'vda': dev('254:0', 8192, ['/', '/boot']),
    'vda1': dev('254:1', 8192, ['/'], parent='vda', type_='partition'),
    'vda2': dev('254:2', 8192, ['/boot'], parent='vda', type_='partition'),
    'md127': dev('9:127', 8, ['/var/lib/cassandra'], type_='md'),
    'vdb': dev('254:16', 8192, []),
}


def flagged(rows):
    return sorted((r['host'], r['device']) for r in rows if r['flagged'])


def test_root_filesystem_is_not_flagged_without_data_directories():
    assert flagged(readahead_rows({'db1': HOST})) == []


def test_data_directory_on_the_root_filesystem_is_flagged_by_device_number():
    data = {'db1': [{'path': '/var/lib/mongodb', 'dev': os.makedev(254, 1)}]}
    rows = readahead_rows({'db1': HOST}, data_directories=data)
    assert flagged(rows) == [('db1', 'vda'), ('db1', 'vda1')]      # the partition and its disk
    vda = [r for r in rows if r['device'] == 'vda'][0]
    assert vda['data_directories'] == ['/var/lib/mongodb'] and vda['db_mounts'] == []


def test_data_directory_by_path_when_the_device_number_is_unknown():
    rows = readahead_rows({'db1': HOST}, data_directories={'db1': ['/var/lib/kafka/']})
    assert flagged(rows) == [('db1', 'vda'), ('db1', 'vda1')]
    # the longest mount point wins: /boot/x is on vda2 (and its disk), not on /
    rows = readahead_rows({'db1': HOST}, data_directories={'db1': [{'path': '/boot/x', 'dev': None}]})
    assert [r['device'] for r in rows if r['data_directories']] == ['vda', 'vda2']


def test_a_low_readahead_data_directory_is_not_flagged():
    data = {'db1': [{'path': '/var/lib/cassandra', 'dev': os.makedev(9, 127)}]}
    rows = readahead_rows({'db1': HOST}, data_directories=data)
    md = [r for r in rows if r['device'] == 'md127'][0]
    assert md['data_directories'] == ['/var/lib/cassandra'] and not md['flagged']
    assert flagged(readahead_rows({'db1': HOST}, threshold_kb=4, data_directories=data)) == [('db1', 'md127')]


def test_directories_are_per_host():
    data = {'db2': [{'path': '/var/lib/mongodb', 'dev': os.makedev(254, 1)}]}
    assert flagged(readahead_rows({'db1': HOST, 'db2': HOST}, data_directories=data)) == [
        ('db2', 'vda'), ('db2', 'vda1')]


def test_table_and_csv_show_the_directories():
    data = {'db1': [{'path': '/var/lib/mongodb', 'dev': os.makedev(254, 1)}]}
    rows = readahead_rows({'db1': HOST}, data_directories=data)
    table = readahead_table(rows, threshold_kb=128)
    line = [x for x in table.splitlines() if x.startswith('db1') and ' vda ' in x][0]
    assert 'HIGH' in line and line.endswith('/var/lib/mongodb')
    assert '2 device(s) flagged HIGH' in table and 'data directory' in table
    csv_text = readahead_csv(rows)
    assert csv_text.splitlines()[0].endswith(',flagged,data_directories')
    assert 'db1,vda,disk,8192' in csv_text and csv_text.count('/var/lib/mongodb') == 2


def test_bad_data_directories():
    with pytest.raises(AnsibleFilterError, match='data_directories must be a dict'):
        readahead_rows({'db1': HOST}, data_directories=['/var/lib/mongodb'])
