# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""md identity (short name, name regexp, udev glob, UUID forms) and the mdadm.conf
update that replaced the raid0 role's two lineinfile tasks and its stale-line template."""

from __future__ import annotations

import re

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import mdadm as md
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import fixture

UUID = '223bf324:4839b32a:611abc08:26fcd6e8'
LINE = 'ARRAY /dev/md/data metadata=1.2 UUID=%s name=any:data' % UUID


@pytest.mark.parametrize('given', [UUID, '223bf324-4839-b32a-611a-bc0826fcd6e8', UUID.upper(),
                                   '223bf3244839b32a611abc0826fcd6e8', '223bf324.4839b32a.611abc08.26fcd6e8'])
def test_md_uuid_colon_from_every_form(given):
    assert md.md_uuid_colon(given) == UUID
    assert md.blkid_uuid_to_mdadm(given) == UUID


@pytest.mark.parametrize('given', [None, '', 'not-a-uuid', 'g' * 32])
def test_md_uuid_colon_leaves_non_uuids(given):
    assert md.md_uuid_colon(given) == (given or None)


@pytest.mark.parametrize('md_name, wanted, matches', [
    ('data', 'data', True), ('any:data', 'data', True), ('web1:data', 'data', True),
    ('any:data2', 'data', False), ('data2', 'data', False), ('web1:xdata', 'data', False), (None, 'data', False)])
def test_name_matches_regexp_and_glob_agree(md_name, wanted, matches):
    assert md.name_matches(md_name, wanted) is matches
    assert bool(md_name and re.match(md.name_regexp(wanted) + '$', md_name)) is matches


def test_identity_forms():
    ident = md.identity('web1:data', '223bf324-4839-b32a-611a-bc0826fcd6e8')
    assert ident == {'name': 'data', 'device': '/dev/md/data', 'name_regexp': r'(?:[^\s:]*:)?data',
                     'udev_name_glob': 'data|*:data', 'uuid': UUID}


def test_conf_update_appends_to_a_missing_or_foreign_file():
    assert md.conf_update('', 'data', UUID, LINE) == LINE + '\n'
    text = '# comment\nARRAY /dev/md/logs metadata=1.2 UUID=aaaaaaaa:bbbbbbbb:cccccccc:dddddddd name=any:logs\n'
    assert md.conf_update(text, 'data', UUID, LINE) == text + LINE + '\n'


def test_conf_update_keeps_the_wanted_line_once_and_is_idempotent():
    text = '# comment\n' + LINE + '\n'
    assert md.conf_update(text, 'data', UUID, LINE) == text


@pytest.mark.parametrize('stale', [
    'ARRAY /dev/md/data metadata=1.2 UUID=11111111:22222222:33333333:44444444 name=any:data',
    'ARRAY /dev/md127 metadata=1.2 UUID=%s name=old:other' % UUID,
    'ARRAY /dev/md/other metadata=1.2 name=web1:data',
    '  ARRAY /dev/md/data UUID=%s' % UUID])
def test_conf_update_replaces_stale_lines_by_name_device_or_uuid(stale):
    text = 'DEVICE partitions\n%s\n' % stale
    assert md.conf_update(text, 'data', UUID, LINE) == 'DEVICE partitions\n' + LINE + '\n'


def test_conf_update_without_wanted_line_removes_every_line_of_the_array():
    text = 'DEVICE partitions\n%s\nARRAY /dev/md/data2 UUID=aaaaaaaa:bbbbbbbb:cccccccc:dddddddd\n' % LINE
    assert md.conf_update(text, 'data', UUID, None) == (
        'DEVICE partitions\nARRAY /dev/md/data2 UUID=aaaaaaaa:bbbbbbbb:cccccccc:dddddddd\n')


def test_conf_update_on_the_el_layout_keeps_auto_and_the_system_arrays():
    # RHEL/EL: /etc/mdadm.conf as the installer writes it for a root on RAID1 (layout written by hand
    # from an EL 9 install: MAILADDR, `AUTO +imsm +1.x -all`, ARRAY lines with level= and num-devices=).
    # With `AUTO ... -all` only arrays listed here are assembled by name, so the line must be added and
    # nothing else touched; a second update changes nothing.
    text = fixture('mdadm', 'el9_anaconda_mdadm.conf')
    updated = md.conf_update(text, 'data', UUID, LINE)
    assert updated == text + LINE + '\n'
    assert md.conf_update(updated, 'data', UUID, LINE) == updated
    # the installer's own arrays are never taken for ours
    stale = re.compile(md.stale_conf_line_regexp('data', UUID, LINE))
    assert [line for line in text.splitlines() if line.startswith('ARRAY') and stale.search(line)] == []
