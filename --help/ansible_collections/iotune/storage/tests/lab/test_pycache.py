# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lab guests' cache of code compiled from zip archives (tools/lab_image/.../iotunelab_pycache.py)."""

import importlib.util
import sys
import zipfile
import zipimport
from pathlib import Path

import pytest

SHIM = Path(__file__).resolve().parents[2] / "tools/lab_image/rootfs/usr/lib/python3/dist-packages/iotunelab_pycache.py"
SOURCE = b"def f():\n    def g():\n        raise ValueError('x')\n    return g\nVALUE = 42\n"


@pytest.fixture
def shim(tmp_path, monkeypatch):
    """The shim loaded from the image's tree, its cache in tmp_path, Python's compile counted."""
    original = zipimport._compile_source
    spec = importlib.util.spec_from_file_location("iotunelab_pycache_under_test", SHIM)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(zipimport, "_compile_source", original)    # whatever loading it did, undo it after the test
    calls = []
    monkeypatch.setattr(mod, "_compile", lambda p, s: calls.append(p) or original(p, s))
    monkeypatch.setattr(mod, "CACHE", str(tmp_path / "cache"))
    mod.calls = calls
    return mod


def test_second_compile_comes_from_the_cache_under_the_new_archives_name(shim):
    first = shim.compile_source("/tmp/a.zip/m.py", SOURCE)
    second = shim.compile_source("/tmp/b.zip/m.py", SOURCE)
    assert shim.calls == ["/tmp/a.zip/m.py"]                  # compiled once
    assert second.co_filename == "/tmp/b.zip/m.py"
    inner = [c for c in second.co_consts if hasattr(c, "co_code")][0]
    assert inner.co_filename == "/tmp/b.zip/m.py"             # nested code objects too (tracebacks)
    ns1, ns2 = {}, {}
    exec(first, ns1)  # pylint: disable=exec-used
    exec(second, ns2)  # pylint: disable=exec-used
    assert ns2["VALUE"] == 42
    with pytest.raises(ValueError) as err:
        ns2["f"]()()
    assert str(err.traceback[-1].path) == "/tmp/b.zip/m.py"


def test_another_source_is_compiled(shim):
    shim.compile_source("/a/m.py", SOURCE)
    shim.compile_source("/a/m.py", SOURCE + b"OTHER = 1\n")
    assert len(shim.calls) == 2


@pytest.mark.parametrize("damage", [b"", b"\0" * 64, b"garbage"])
def test_a_torn_cache_file_falls_back_to_compile(shim, damage):
    shim.compile_source("/a/m.py", SOURCE)
    cached = list(Path(shim.CACHE).iterdir())
    assert len(cached) == 1
    cached[0].write_bytes(damage)                              # a crash (sysrq b) can leave it so
    code = shim.compile_source("/a/m.py", SOURCE)
    assert len(shim.calls) == 2
    ns = {}
    exec(code, ns)  # pylint: disable=exec-used
    assert ns["VALUE"] == 42
    assert shim._load(str(cached[0]))                          # written again, whole


def test_imports_from_a_zip_go_through_it(shim, tmp_path, monkeypatch):
    archive = tmp_path / "payload.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("iotune_pycache_probe.py", SOURCE)
    monkeypatch.setattr(zipimport, "_compile_source", shim.compile_source)
    monkeypatch.syspath_prepend(str(archive))
    for dummy in range(2):
        sys.modules.pop("iotune_pycache_probe", None)
        assert importlib.import_module("iotune_pycache_probe").VALUE == 42
    assert shim.calls == [str(archive / "iotune_pycache_probe.py")]
