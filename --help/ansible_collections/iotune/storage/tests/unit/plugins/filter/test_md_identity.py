# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The md_identity filter (controller side; the identity itself is tested with module_utils/mdadm)."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.md_identity import md_identity
from ansible_collections.iotune.storage.plugins.filter.mdadm_conf_path import mdadm_conf_path
from ansible_collections.iotune.storage.plugins.module_utils import initramfs

UUID = '223bf324:4839b32a:611abc08:26fcd6e8'


def test_filter_returns_the_identity_and_refuses_bad_names():
    assert md_identity('data')['udev_name_glob'] == 'data|*:data'
    assert md_identity('any:data', uuid=UUID)['uuid'] == UUID
    with pytest.raises(AnsibleFilterError):
        md_identity('bad name')
    with pytest.raises(AnsibleFilterError):
        md_identity(None)


@pytest.mark.parametrize('family, override, path', [
    ('Debian', None, '/etc/mdadm/mdadm.conf'),
    ('RedHat', None, '/etc/mdadm.conf'),
    ('Suse', None, '/etc/mdadm.conf'),
    ('Archlinux', None, '/etc/mdadm.conf'),          # mdadm's own default
    ('Debian', '/srv/mdadm.conf', '/srv/mdadm.conf'),
])
def test_mdadm_conf_path_by_family(family, override, path):
    assert mdadm_conf_path(family, override=override) == path


def test_mdadm_conf_path_has_one_home():
    # the initramfs reader (and through it the audit) looks at the same paths, Debian's first
    assert initramfs.HOST_CONF == ('/etc/mdadm/mdadm.conf', '/etc/mdadm.conf')
    with pytest.raises(AnsibleFilterError):
        mdadm_conf_path('Debian', override=['/etc/x'])
