# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lab's SSH key and the ssh command line for a VM."""

from . import common
from .common import FileLock, run

SSH_OPTS = ["-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
            "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
            "-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3"]


def lab_key():
    key = common.LAB_DIR / "id_ed25519"
    if not key.is_file():
        common.LAB_DIR.mkdir(parents=True, exist_ok=True)
        with FileLock(common.LAB_DIR / ".key.lock"):
            if not key.is_file():
                run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "iotune-lab", "-f", key],
                    capture=True)
    return key


def ssh_argv(port, key, extra=()):
    return ["ssh", *SSH_OPTS, "-o", "ConnectTimeout=5", "-i", str(key), "-p", str(port),
            *extra, "root@127.0.0.1"]
