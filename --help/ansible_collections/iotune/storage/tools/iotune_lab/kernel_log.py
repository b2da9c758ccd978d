# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The guest kernel's own word that it broke (oops, BUG, panic), read from a VM's serial console log.

The guest writes its kernel messages to the console (`console=ttyS0`), which qemu keeps in the VM's
`console.log` on the host: so a hung guest is diagnosed as well as a live one. The patterns have one
home, the collection's plugins/module_utils/kernel_log.py (the fio module reads them on managed hosts);
this file loads it by path (the lab runs with the system python3, without the collection installed).
Used by `tools/lab oops-check` (the vm scenario's check after each step) and `tools/cpu_soak`.
"""

import importlib.util

from .common import REPO

_spec = importlib.util.spec_from_file_location(
    "iotune_storage_kernel_log", REPO / "plugins" / "module_utils" / "kernel_log.py")
_rules = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_rules)

OOPS_RE = _rules.OOPS_RE
oops_lines = _rules.oops_lines

LAB_MESSAGE = (
    "the lab VM's guest kernel oopsed: {first}. This is the guest kernel under qemu software emulation, "
    "not a result of the collection. Console log: {path} (the vm scenario's destroy keeps a copy in "
    "build/); docs/lab.md, \"CPU model\", says what the lab does against it."
)


def read_from(path, offset=0):
    """(text from byte ``offset`` on, new end offset); ("", offset) when the file is missing."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except OSError:
        return "", offset
    return data.decode("utf-8", "replace").replace("\r", ""), offset + len(data)
