# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""module_utils/fio.py directly: the job file plan, the host access, the data file search (moved from
tests/unit/plugins/modules/test_fio.py, which runs main() over the same code)."""

from __future__ import annotations

import os

from ansible_collections.iotune.storage.plugins.module_utils import fio as fio_job
from ansible_collections.iotune.storage.plugins.modules import fio

MIB = 1024 ** 2


def test_the_module_and_the_plan_share_one_argument_spec():
    assert fio.argument_spec is fio_job.argument_spec
    assert fio.argument_spec()['rw']['choices'] == ['randread', 'read']


def test_job_file_plan():
    text, total = fio_job.job_file_plan('[global]\nsize=2m\n[a]\nnumjobs=2\n[b]\nsize=1m\n', 4 * MIB, '/srv', 'x')
    assert total == 2 * 2 * MIB + 1 * MIB
    assert text.startswith('[global]\ndirectory=/srv\n')
    assert 'filename_format=iotune-fio.x.$jobname.$jobnum.$filenum.dat' in text


def test_partition_read_ahead_goes_to_parent(fake_host):
    fake_host.add_disk('sda', '8:0')
    fake_host.add_partition('sda', 'sda1', '8:1', 1)
    m = fio_job.Measurer(None, fake_host.view())
    assert m.readahead_device('sda1') == 'sda'
    assert m.readahead_device('sda') == 'sda'
    assert m.members('sda') == []


def test_first_data_file(tmp_path):
    dev = os.stat(str(tmp_path)).st_dev
    (tmp_path / 'lost+found').mkdir()
    (tmp_path / 'lost+found' / 'orphan').write_text('x')
    (tmp_path / 'empty' / 'dirs').mkdir(parents=True)
    (tmp_path / 'iotune-fio.verify.dat').write_text('x')
    assert fio_job.first_data_file(str(tmp_path), dev) is None
    (tmp_path / 'empty' / 'dirs' / 'commitlog').write_text('x')
    assert fio_job.first_data_file(str(tmp_path), dev) == str(tmp_path / 'empty' / 'dirs' / 'commitlog')
    # another filesystem (device number) below the mount point is not walked
    assert fio_job.first_data_file(str(tmp_path), dev + 1) is None
