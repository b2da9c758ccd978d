# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The vm scenario's guest-kernel watch: when a task fails or the guest stops answering, and at the end of
every playbook, read the lab VM's console log for an oops/BUG/panic (tools/lab oops-check) and say so
first, with the lab's message: a guest kernel that broke under software emulation is not a product error.

The playbooks of the scenario end with check_guest_kernel.yml, which fails the step on an oops; this
callback names the oops at the task that failed before that play could run (issue #32).
"""

from __future__ import annotations

DOCUMENTATION = r"""
name: lab_guest_kernel
type: aggregate
short_description: names a lab VM's guest kernel oops at the failed task (vm scenario only)
description:
  - Reads .lab/$IOTUNE_LAB_VM/console.log through tools/iotune_lab/kernel_log.py after a failed or
    unreachable task and at the end of the playbook; prints the lab's message when the guest kernel oopsed.
requirements:
  - enabled in the vm scenario's molecule.yml
"""

import os
import sys

from ansible.plugins.callback import CallbackBase

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tools"))

from iotune_lab import kernel_log  # noqa: E402  pylint: disable=wrong-import-position


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "lab_guest_kernel"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self.console = os.path.join(REPO, ".lab", os.environ.get("IOTUNE_LAB_VM", "molecule-vm"), "console.log")
        self.told = False

    def check(self, where):
        if self.told:
            return
        text, _end = kernel_log.read_from(self.console)
        found = kernel_log.oops_lines(text)
        if found:
            self.told = True
            self._display.error("%s: %s\n%s" % (
                where, kernel_log.LAB_MESSAGE.format(first=found[0], path=self.console), "\n".join(found)))

    def v2_runner_on_failed(self, result, ignore_errors=False):
        if not ignore_errors:
            self.check("task %r failed on %s" % (result.task_name, result._host.get_name()))

    def v2_runner_on_unreachable(self, result):
        self.check("%s is unreachable at task %r" % (result._host.get_name(), result.task_name))

    def v2_playbook_on_stats(self, stats):
        self.check("end of the playbook")
