# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The vm scenario's controller economy: import the collection's filter plugins once, in ansible-playbook's own
process, before it forks a worker for each task.

Ansible's collection loader compiles a collection's Python files from source in every process that imports them
(it keeps no bytecode), and a worker that templates a condition with ``iotune.storage.*`` filters imports the
filter with everything it imports, then exits with it: in a converged tune run profiled with py-spy (docs/testing.md)
that compiling was a fifth of the controller's CPU. Imported here, the modules are in every worker the fork makes.
The filters run the same code; only where they are compiled changes. The lab's, not the collection's.
"""

from __future__ import annotations

DOCUMENTATION = r"""
name: lab_preload
type: aggregate
short_description: imports the collection's filter plugins before the workers fork (vm scenario only)
description:
  - Imports every module of the iotune.storage collection's plugins/filter package when the callback is loaded,
    so that the forked workers find them imported.
requirements:
  - enabled in the vm scenario's molecule.yml and in its tests' sub-runs
"""

import importlib
import pkgutil

from ansible.plugins.callback import CallbackBase

PACKAGE = "ansible_collections.iotune.storage.plugins.filter"


def preload():
    """The names of the filter modules imported (a missing collection imports nothing and fails nothing)."""
    try:
        package = importlib.import_module(PACKAGE)
    except ImportError:
        return []
    names = sorted(info.name for info in pkgutil.iter_modules(package.__path__))
    for name in names:
        importlib.import_module("%s.%s" % (PACKAGE, name))
    return names


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "lab_preload"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self.preloaded = preload()

    def v2_playbook_on_start(self, playbook):
        self._display.vvv("lab_preload: %d filter modules of iotune.storage imported before the workers fork"
                          % len(self.preloaded))
