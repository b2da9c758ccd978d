# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests of the lab package (tools/iotune_lab): the parts that need no VM, no root and no qemu.

Not under tests/unit: ansible-test units must not collect them. Run with `make lab-units`."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from iotune_lab import common  # noqa: E402  pylint: disable=wrong-import-position


@pytest.fixture
def lab_dir(tmp_path, monkeypatch):
    """A private lab folder and image cache (never the user's)."""
    monkeypatch.setattr(common, "LAB_DIR", tmp_path / "lab")
    monkeypatch.setattr(common, "CACHE", tmp_path / "cache")
    (tmp_path / "lab").mkdir()
    return tmp_path / "lab"


@pytest.fixture(autouse=True)
def host_qemu(monkeypatch):
    """qemu command lines name the plain `qemu-system-x86_64` whatever qemu this host has (tests/lab/test_emulator.py
    covers the choice)."""
    monkeypatch.setenv("IOTUNE_LAB_QEMU", "qemu-system-x86_64")
