# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The storage_audit module: one read of the fake host, in and out of check mode, nothing written."""

from __future__ import annotations

import hashlib
import os

import pytest

from ansible_collections.iotune.storage.plugins.modules import storage_audit
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.audit import ARRAYS, RULES, tuned_host, tuning
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.module_run import run_module as run_main


def run_module(capsys, args):
    return run_main(storage_audit, args, capsys)


def tree_digest(root):
    digest = hashlib.sha256()
    for base, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(base, name)
            digest.update(path.encode())
            if not os.path.islink(path):
                with open(path, 'rb') as f:
                    digest.update(f.read())
    return digest.hexdigest()


@pytest.mark.parametrize('check_mode', [False, True])
def test_reads_and_changes_nothing(fake_host, monkeypatch, capsys, check_mode):
    h = tuned_host(fake_host)
    monkeypatch.setattr(storage_audit, 'HOST_ROOT', h.root)
    monkeypatch.setattr(storage_audit, 'MODULES_ROOT', os.path.join(h.root, 'lib', 'modules'))
    before = tree_digest(h.root)
    code, out = run_module(capsys, {'arrays': ARRAYS, 'tuning': tuning(h), 'rules_file': RULES,
                                    'sysctl': {}, 'thp': {}, '_ansible_check_mode': check_mode})
    assert code == 0 and out['changed'] is False
    assert out['audit']['schema_version'] == 1
    assert out['audit']['arrays'][0]['kname'] == 'md127'
    assert out['audit']['tuning']['rules']['matches'] is True
    assert tree_digest(h.root) == before


def test_unknown_array_key_is_refused(fake_host, monkeypatch, capsys):
    monkeypatch.setattr(storage_audit, 'HOST_ROOT', tuned_host(fake_host).root)
    code, out = run_module(capsys, {'arrays': [{'name': 'data', 'chunk': 1}]})
    assert code == 1 and 'chunk' in out['msg']
