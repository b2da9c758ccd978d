# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fixtures shared by every unit test."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from ansible.module_utils.common import warnings as ansible_warnings

from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import FakeHost, build_standard_host
from ansible_collections.iotune.storage.tests.unit.roles.templar import CACHE_ENV as _RENDER_CACHE

try:
    from ansible.module_utils import _internal as ansible_internal
except ImportError:  # ansible-core < 2.19
    ansible_internal = None


def pytest_configure(config):
    """The session's cache of templar renderings (roles/templar.py), made in the process that forks the tests.

    ansible-test runs every test in a child forked for it, so what a module-scoped fixture computed is gone with
    the child: the templar tests rendered the same requests once per test (the tasks' 21 s fixture five times).
    A directory of this session only, keyed by the whole request: nothing is kept from one session to the next.
    """
    if os.environ.get(_RENDER_CACHE) is None:
        os.environ[_RENDER_CACHE] = tempfile.mkdtemp(prefix='iotune-unit-render-')
        config._iotune_render_cache = os.environ[_RENDER_CACHE]  # pylint: disable=protected-access


def pytest_unconfigure(config):
    path = getattr(config, '_iotune_render_cache', None)
    if path:
        shutil.rmtree(path, ignore_errors=True)
        os.environ.pop(_RENDER_CACHE, None)


@pytest.fixture(autouse=True)
def module_side_of_ansible(request, monkeypatch):
    """Module tests run as a module would: warnings go into the result, each test starts with none.

    ansible-core 2.19 sends module warnings to the controller's display instead of the result once a
    controller module is imported in the process (the filter and plan tests import some), and keeps
    them in process-wide collections. So test_warning_for_empty_glob failed under plain
    ``pytest tests/unit`` (one process) after those tests; ansible-test runs files in separate processes.
    """
    path = str(getattr(request, 'path', request.fspath))
    if ansible_internal is not None and ('/plugins/modules/' in path or '/plugins/module_utils/' in path):
        monkeypatch.setattr(ansible_internal, 'is_controller', False)
    for name in ('_global_warnings', '_global_deprecations'):
        collection = getattr(ansible_warnings, name, None)
        if collection is not None:
            collection.clear()
    yield


@pytest.fixture
def fake_host(tmp_path):
    """An empty fake host below ``tmp_path/host`` (see tests/unit/plugins/fixtures/host.py)."""
    return FakeHost(tmp_path / 'host')


@pytest.fixture
def standard_host(tmp_path):
    """The reference host of the sysfs/readahead/udev tests (build_standard_host)."""
    return build_standard_host(tmp_path / 'host')


@pytest.fixture
def inventory_scans(monkeypatch):
    """The sys_root of every whole-host scan (host.BlockInventory) made during the test, in order."""
    from ansible_collections.iotune.storage.plugins.module_utils import host as host_utils

    scans = []
    real = host_utils.BlockInventory

    def counting(*args, **kwargs):
        scans.append(kwargs['sys_root'])
        return real(*args, **kwargs)
    monkeypatch.setattr(host_utils, 'BlockInventory', counting)
    return scans
