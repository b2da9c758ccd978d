# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""report_dir: the one home of the reports' default directory."""

from __future__ import annotations

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.report_dir import report_dir


def test_a_given_directory_is_kept():
    assert report_dir('/srv/reports', cwd='/home/ops') == '/srv/reports'
    assert report_dir('reports') == 'reports'


def test_the_default_is_under_the_start_directory(monkeypatch):
    assert report_dir(None, cwd='/home/ops') == '/home/ops/iotune-reports'
    assert report_dir('', cwd='/home/ops') == '/home/ops/iotune-reports'
    monkeypatch.setenv('PWD', '/srv/ansible')
    assert report_dir(None) == '/srv/ansible/iotune-reports'
    monkeypatch.delenv('PWD')
    monkeypatch.chdir('/')
    assert report_dir(None) == '/iotune-reports'


def test_a_list_is_refused():
    with pytest.raises(AnsibleFilterError, match='must be a path'):
        report_dir(['/srv/reports'])
