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

:func:`snapshot` reads the state (sha1, mode, owner) of the files matching some patterns in one call, and
:func:`pending_changes` tells from such a snapshot which of a set of wanted files the config_files module
would change: a caller that read the snapshot earlier in the run skips a call that would only confirm.
:func:`existing_directories` tells which of some paths are directories, and on which device (readahead_facts).
:func:`remove` removes a file as durably as :func:`write_text` replaces one (the directory fsynced).
"""

from __future__ import annotations

import fnmatch
import glob
import grp
import hashlib
import os
import pwd
import stat
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


def remove(path):
    """Remove ``path`` durably (unlink, then fsync of its directory); False when it was not there. Raises
    ``OSError``."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    _fsync_directory(os.path.dirname(path) or '.')
    return True


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


def _name(table, ident):
    try:
        return table(ident)[0]
    except KeyError:
        return str(ident)


def file_state(path, follow=False):
    """{path, checksum (sha1, regular files only), mode ('0644'), pw_name, gr_name, uid, gid, islnk, isreg, isdir}.

    The keys are those of ansible.builtin.find's results. None when ``path`` does not exist. ``follow``: the state of
    what a symlink points to (as open() sees the file), not of the link.
    """
    try:
        st = os.stat(path) if follow else os.lstat(path)
    except FileNotFoundError:
        return None
    state = {'path': path, 'mode': '%04o' % stat.S_IMODE(st.st_mode), 'uid': st.st_uid, 'gid': st.st_gid,
             'pw_name': _name(pwd.getpwuid, st.st_uid), 'gr_name': _name(grp.getgrgid, st.st_gid),
             'islnk': stat.S_ISLNK(st.st_mode), 'isreg': stat.S_ISREG(st.st_mode), 'isdir': stat.S_ISDIR(st.st_mode)}
    if state['isreg']:
        digest = hashlib.sha1()
        try:
            with open(path, 'rb') as f:
                for block in iter(lambda: f.read(65536), b''):
                    digest.update(block)
        except FileNotFoundError:   # removed since the lstat
            return None
        state['checksum'] = digest.hexdigest()
    return state


def snapshot(patterns):
    """{pattern: the states of the existing paths it matches (``glob``), sorted by path} (absolute patterns)."""
    read = {}
    for pattern in patterns:
        if not os.path.isabs(pattern):
            raise ValueError('files: pattern %r is not an absolute path' % pattern)
        paths = set(glob.glob(pattern))
        if os.path.lexists(pattern):   # a literal path with [, * or ? in its name
            paths.add(pattern)
        states = (file_state(path) for path in sorted(paths))
        read[pattern] = [state for state in states if state is not None]
    return read


def pattern_matches(pattern, path):
    """``glob`` semantics: each ``/``-separated part of ``path`` matches the same part of ``pattern``."""
    parts, pattern_parts = path.split('/'), pattern.split('/')
    return len(parts) == len(pattern_parts) and all(fnmatch.fnmatchcase(part, want)
                                                    for part, want in zip(parts, pattern_parts))


def _same_id(wanted, name, number):
    wanted = str(wanted)
    return wanted == str(number) if wanted.isdigit() else wanted == name


def differences(entry, state):
    """What of the config_files entry ``entry`` ({path, content, mode, owner, group}, present; the module's defaults
    apply) the file ``state`` (a :func:`file_state`, None when missing) does not have: a subset of ('file' (missing or
    not a regular file), 'content' (its sha1), 'mode', 'owner', 'group'), in that order. The one rule of whether a
    file differs: :func:`pending_changes` (the preflight's read) and the config_files module both judge by it."""
    if state is None or not state.get('isreg', True):
        return ['file']
    content = entry.get('content') or ''
    found = []
    if state.get('checksum') != hashlib.sha1(content.encode('utf-8')).hexdigest():
        found.append('content')
    if int(state['mode'], 8) != int(entry.get('mode') or '0644', 8):
        found.append('mode')
    if not _same_id(entry.get('owner') or 'root', state.get('pw_name'), state.get('uid')):
        found.append('owner')
    if not _same_id(entry.get('group') or 'root', state.get('gr_name'), state.get('gid')):
        found.append('group')
    return found


def pending_changes(wanted, found, remove_unlisted=()):
    """Paths config_files would write, fix or remove, judged from ``found`` (a :func:`snapshot`).

    ``wanted`` are config_files entries ({path, content, state, mode, owner, group}, the module's defaults
    apply); ``found`` must have read every wanted path and every ``remove_unlisted`` pattern.
    """
    have = dict((os.path.normpath(f['path']), f) for f in found)
    changes = []
    for entry in wanted:
        path = os.path.normpath(entry['path'])
        state = have.get(path)
        if entry.get('state', 'present') == 'absent':
            if state is not None:
                changes.append(entry['path'])
            continue
        if differences(entry, state):
            changes.append(entry['path'])
    listed = set(os.path.normpath(entry['path']) for entry in wanted)
    for path in sorted(have):
        if path not in listed and not have[path].get('isdir') and any(
                pattern_matches(pattern, path) for pattern in remove_unlisted):
            changes.append(path)
    return changes


def existing_directories(paths):
    """[{'path', 'dev'}] of the paths that are directories (followed through symlinks, as stat does)."""
    found = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            found.append({'path': path, 'dev': st.st_dev})
    return found
