# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Lab guests only (tools/lab_image): keep the code Python compiles from zip archives.

Ansible runs every module from a zip archive (AnsiballZ), and Python keeps no bytecode for what it imports from a zip:
each task compiles ansible.module_utils again, about 0.8 s of a 2.7 s task in a guest under software emulation
(docs/lab.md, "Compiled module cache"). This keeps each compiled source file under CACHE, keyed by the SHA-256 of its
source, checked by the SHA-256 of the stored bytecode, and gives the code the file name of the archive it came from,
as a fresh compile does. Any failure falls back to Python's own compile. Loaded by iotune-lab-pycache.pth for root.
Not part of the collection: the hosts it manages never have this.
"""
import os
import sys
import zipimport

CACHE = "/var/cache/iotune-lab-pycache/" + sys.implementation.cache_tag
_compile = getattr(zipimport, "_compile_source", None)


def _named(code, filename):
    consts = tuple(_named(c, filename) if isinstance(c, type(code)) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _load(path):
    import hashlib
    import marshal
    with open(path, "rb") as f:
        blob = f.read()
    if hashlib.sha256(blob[32:]).digest() != blob[:32]:
        raise ValueError("torn cache file " + path)
    return marshal.loads(blob[32:])


def _store(path, code):
    import hashlib
    import marshal
    data = marshal.dumps(code)
    os.makedirs(CACHE, mode=0o700, exist_ok=True)
    tmp = "%s.%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(hashlib.sha256(data).digest() + data)
    os.replace(tmp, path)


def compile_source(pathname, source):
    import hashlib
    path = os.path.join(CACHE, hashlib.sha256(source if isinstance(source, bytes) else source.encode()).hexdigest())
    try:
        return _named(_load(path), pathname)
    except Exception:  # pylint: disable=broad-except
        pass
    code = _compile(pathname, source)
    try:
        _store(path, code)
    except Exception:  # pylint: disable=broad-except
        pass
    return code


if _compile is not None and os.geteuid() == 0:
    zipimport._compile_source = compile_source
