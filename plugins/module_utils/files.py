# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Writing a configuration file atomically, in one place.

Every file the modules write (mdadm.conf, the udev rules, tuned overrides) goes through
:func:`write_text`: the text goes to a temporary file in the target's directory, which then replaces
the target in one rename, so a reader (udev, the initramfs generator, tuned) sees the old file or the
new one, never half of one.

In a module run, pass ``AnsibleModule.atomic_move`` as ``replace``: it keeps an existing file's mode,
owner and SELinux context and gives a new file the default context. Elsewhere (unit tests, programs
that run without Ansible) :func:`replace_keeping_owner` does the same except for SELinux.
"""

from __future__ import annotations

import os
import tempfile


def read_text(path):
    """The text of ``path``, or None when it cannot be read (missing, a directory, no permission)."""
    try:
        with open(path, 'r') as f:
            return f.read()
    except (IOError, OSError):
        return None


def replace_keeping_owner(src, dest):
    """Rename ``src`` over ``dest``; an existing ``dest`` keeps its mode and owner."""
    try:
        st = os.stat(dest)
    except FileNotFoundError:
        st = None
    if st is not None:
        os.chmod(src, st.st_mode & 0o7777)
        os.chown(src, st.st_uid, st.st_gid)
    os.replace(src, dest)


def write_text(path, text, replace=replace_keeping_owner, mode=0o644, prefix='.iotune-'):
    """Write ``text`` to ``path`` atomically; a new file gets ``mode``, its directory is created (0755).

    ``replace(src, dest)`` does the final rename (see the module docstring). Raises ``OSError``.
    """
    directory = os.path.dirname(path) or '.'
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o755)
    created = not os.path.exists(path)
    fd, tmp = tempfile.mkstemp(prefix=prefix, dir=directory)
    try:
        with os.fdopen(fd, 'w') as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())     # on disk before the rename: never an empty fstab after a crash
        os.chmod(tmp, mode)
        replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    if created:
        os.chmod(path, mode)
    _fsync_directory(directory)


def _fsync_directory(directory):
    """Make the rename durable (best effort: some filesystems refuse fsync on a directory)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
