# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fstab options the xfs and ephemeral roles write (filter fstab_options over module_utils/fstab.py)."""

from __future__ import annotations

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.fstab_options import fstab_options
from ansible_collections.iotune.storage.plugins.module_utils import fstab


@pytest.mark.parametrize('options, timeout, expected', [
    (['noatime'], '90s', 'noatime,nofail,x-systemd.device-timeout=90s'),
    (None, '90s', 'noatime,nofail,x-systemd.device-timeout=90s'),
    ([], '30s', 'nofail,x-systemd.device-timeout=30s'),
    (['noatime', 'logbsize=256k', 'noatime'], '90s', 'noatime,logbsize=256k,nofail,x-systemd.device-timeout=90s'),
    (['nofail', 'noatime'], '2min', 'nofail,noatime,x-systemd.device-timeout=2min'),
    (['noatime'], 'infinity', 'noatime,nofail,x-systemd.device-timeout=infinity'),
])
def test_options_field(options, timeout, expected):
    assert fstab_options(options, timeout) == expected
    # the boot program's fstab rewrite reads the line back: the field parses to the same options
    line = 'UUID=x /var/lib/db xfs %s 0 0\n' % expected
    assert fstab.entries(line)[0]['options'] == expected.split(',')


@pytest.mark.parametrize('options, timeout', [('noatime', '90s'), (['noatime'], '90 s'), (['noatime'], '1,5s'),
                                              (['noatime'], ''), ({'a': 1}, '90s')])
def test_refused(options, timeout):
    with pytest.raises(AnsibleFilterError):
        fstab_options(options, timeout)


@pytest.mark.parametrize('options, timeout', [('noatime', '90s'), (['noatime'], '90 s'), (['noatime'], '1,5s'),
                                              (['noatime'], '')])
def test_the_xfs_stage_calls_refuse_what_the_filter_refuses(options, timeout):
    """The options of the xfs_filesystem calls (filter stage_calls, which the tune role's preflight task templates
    before any change) come from the same module_utils function: a bad field is refused there too, not first by the
    mount task after mkfs."""
    from ansible_collections.iotune.storage.plugins.filter.stage_calls import stage_calls
    with pytest.raises(fstab.OptionsError):
        fstab.line_options(options, timeout)
    with pytest.raises(AnsibleFilterError):
        stage_calls({'filesystems': [{'device': '/dev/md/data', 'mountpoint': '/var/lib/db'}],
                     'mount_options': options, 'device_timeout': timeout}, 'xfs')
