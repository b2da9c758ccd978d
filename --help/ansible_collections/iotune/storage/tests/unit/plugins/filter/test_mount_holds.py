# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The mount holds the xfs role writes (filter mount_holds over module_utils/mount_holds.py), and the preflight's
read of them back."""

from __future__ import annotations

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.mount_holds import mount_holds
from ansible_collections.iotune.storage.plugins.module_utils import mount_holds as holds

# the text the role's Jinja wrote before this filter (0.1.0 hosts): a re-run must not rewrite their drop-ins
HEAD = ('# Managed by Ansible (iotune.storage.xfs): start only when the data filesystem is mounted.\n'
        '[Unit]\nRequiresMountsFor=')


def test_one_dropin_per_service_with_all_its_mount_points_in_order():
    found = mount_holds([
        {'mountpoint': '/var/lib/cassandra', 'services': ['cassandra.service', 'iotune-standin.service']},
        {'mountpoint': '/srv/scratch'},
        {'mountpoint': '/srv/commitlog', 'services': ['cassandra.service']},
        {'mountpoint': '/srv/empty', 'services': []},
    ])
    assert found == {'glob': '/etc/systemd/system/*.d/iotune-storage-mounts.conf', 'files': [
        {'path': '/etc/systemd/system/cassandra.service.d/iotune-storage-mounts.conf',
         'content': HEAD + '/var/lib/cassandra /srv/commitlog\n'
         'AssertPathIsMountPoint=/var/lib/cassandra\nAssertPathIsMountPoint=/srv/commitlog\n'},
        {'path': '/etc/systemd/system/iotune-standin.service.d/iotune-storage-mounts.conf',
         'content': HEAD + '/var/lib/cassandra\nAssertPathIsMountPoint=/var/lib/cassandra\n'},
    ]}
    assert mount_holds([]) == {'glob': found['glob'], 'files': []}


def test_the_preflight_reads_back_what_the_role_writes():
    written = holds.files([{'mountpoint': '/a', 'services': ['x.service']}, {'mountpoint': '/b b', 'services': []},
                           {'mountpoint': '/c', 'services': ['x.service']}])
    assert holds.held_mounts(written[0]['content']) == ['/a', '/c']
    assert written[0]['path'] == holds.path('x.service')
    # a hand-written drop-in with two lines and blanks around the value
    assert holds.held_mounts('[Unit]\nRequiresMountsFor= /a\n  RequiresMountsFor=/b /c\nAfter=x\n') == ['/a', '/b', '/c']


@pytest.mark.parametrize('given', [None, 'fs', [{'services': ['x']}], [{'mountpoint': '/a', 'services': 'x'}],
                                   [{'mountpoint': '/a', 'services': ['']}], ['/a']])
def test_refuses_what_is_not_a_list_of_filesystems(given):
    with pytest.raises(AnsibleFilterError, match='mount_holds'):
        mount_holds(given)
