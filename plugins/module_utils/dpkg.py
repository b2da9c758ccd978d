# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""dpkg-query: the call that reads which packages are installed, and the one rule that reads its answer.

Used by the preflight (module side) and by the packages and raid0 roles' filters (controller side). It imports
nothing: a filter plugin's imports are compiled from source in every forked Ansible worker that uses it (the
collection loader keeps no bytecode), so the filters must not pull the preflight's module_utils in for this."""

from __future__ import annotations


def query_argv(names, dpkg_query='dpkg-query'):
    """The dpkg-query call that reads the installation state of ``names`` (also the packages and raid0 roles'). The
    format ends in dpkg-query's own escape \\n (a backslash and n), as the roles' Jinja passed it."""
    return [dpkg_query, '--show', r'--showformat=${Package} ${Status}\n'] + list(names)


def missing(names, out):
    """The names, each once and in order, that ``out`` (dpkg-query's output, text or lines) does not show as
    ``install ok installed``: the one rule of the preflight and of the packages and raid0 roles."""
    lines = out.splitlines() if isinstance(out, str) else out
    installed = set(line.split(' ', 1)[0] for line in lines if line.endswith(' install ok installed'))
    found = []
    for name in names:
        if name not in installed and name not in found:
            found.append(name)
    return found
