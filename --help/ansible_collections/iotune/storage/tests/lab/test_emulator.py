# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lab's qemu: which one runs, and the private copy's command and apt state (no download here)."""

from pathlib import Path

import pytest

from iotune_lab import emulator
from iotune_lab.common import LabError


@pytest.mark.parametrize("text,version", [
    ("QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)\nCopyright ...", (7, 2, 22)),
    ("QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2+deb13u1~bpo12+1)", (10, 0, 2)),
    ("QEMU emulator version 9.1", (9, 1, 0)),
    ("", None), ("qemu-img version 7.2.22", None), (None, None),
])
def test_parse_version(text, version):
    assert emulator.parse_version(text) == version


def test_an_explicit_qemu_wins(tmp_path):
    assert emulator.choose({"IOTUNE_LAB_QEMU": "/opt/q/bin/qemu"}, host=(7, 2, 0), cache=tmp_path) == ["/opt/q/bin/qemu"]


@pytest.mark.parametrize("host", [(10, 0, 0), (10, 1, 3), (11, 0, 0)])
def test_a_new_enough_host_qemu_is_used(tmp_path, host):
    assert emulator.choose({}, host=host, cache=tmp_path) == ["qemu-system-x86_64"]


def test_an_old_host_qemu_takes_the_private_copy(tmp_path):
    binary = emulator.private_binary(tmp_path)
    binary.parent.mkdir(parents=True)
    binary.write_text("")
    argv = emulator.choose({}, host=(7, 2, 22), cache=tmp_path)
    root = tmp_path / "qemu" / "current"
    assert argv == [str(binary), "-L", str(root / "usr/share/qemu"), "-L", str(root / "usr/share/seabios")]


@pytest.mark.parametrize("host", [(7, 2, 22), (9, 2, 0)])
def test_without_the_private_copy_an_old_host_qemu_runs_with_a_warning(tmp_path, capsys, host):
    assert emulator.choose({}, host=host, cache=tmp_path) == ["qemu-system-x86_64"]
    err = capsys.readouterr().err      # the warning names the flaw and the fix
    assert "older than 10.0" in err and "stalls emulated NVMe disks" in err and "tools/lab qemu" in err


def test_no_qemu_at_all_is_an_error(tmp_path):
    with pytest.raises(LabError, match=r"no qemu-system-x86_64"):
        emulator.choose({}, host=None, cache=tmp_path)


def test_a_private_copy_loads_its_own_modules():
    argv = emulator.command_for(Path("/c/qemu/current"))
    env = emulator.module_env(argv, {"PATH": "/usr/bin"})
    assert env == {"PATH": "/usr/bin", "QEMU_MODULE_DIR": "/c/qemu/current/usr/lib/x86_64-linux-gnu/qemu"}
    # the host's qemu: its own module directory, the environment as it is
    assert emulator.module_env(["qemu-system-x86_64"], {"PATH": "/usr/bin"}) == {"PATH": "/usr/bin"}


def test_the_private_apt_names_only_its_own_state(tmp_path):
    opts = emulator.apt_options(tmp_path)
    values = dict(o.split("=", 1) for o in opts[1::2])
    assert values["Dir::Etc::SourceList"] == str(tmp_path / "sources.list")
    assert values["Dir::Etc::SourceParts"] == "/dev/null"      # never the host's sources.list.d
    assert all(v.startswith(str(tmp_path)) for k, v in values.items() if k.startswith("Dir::") and "Parts" not in k)


def test_sources_come_from_the_mirror_given():
    assert emulator.sources_list("http://mirror.example/debian", "bookworm").splitlines() == [
        "deb http://mirror.example/debian bookworm-backports main",
        "deb http://mirror.example/debian bookworm main",
        "deb http://mirror.example/debian bookworm-updates main"]
