# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared helpers of the vm scenario's tests: sub-runs of ansible-playbook against the scenario inventories."""
import json
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))


class SubRun(object):
    """ansible-playbook PLAYBOOK as a subprocess, limited to the scenario host, with the scenario inventories."""

    def __init__(self, request, hostname):
        self.inventory_args = ["-i", os.path.join(HERE, "..", "inventory")]
        if request.config.option.ansible_inventory:
            self.inventory_args += ["-i", request.config.option.ansible_inventory]
        self.hostname = hostname
        self.env = dict(os.environ)
        # molecule's ansible.cfg enables profile_tasks, whose recap would follow the JSON on stdout
        self.env.pop("ANSIBLE_CONFIG", None)
        self.env.setdefault("ANSIBLE_COLLECTIONS_PATH", os.path.join(REPO, "build", "collections"))
        self.env["ANSIBLE_HOST_KEY_CHECKING"] = "false"
        self.env["ANSIBLE_NOCOLOR"] = "1"

    def run(self, extra_vars=None, tags=None, playbook="iotune.storage.tune", json_output=True, timeout=1800,
            limit=True):
        """(rc, text output, parsed JSON report or None); ``limit=False`` runs without --limit."""
        argv = ["ansible-playbook", playbook] + (["--limit", self.hostname] if limit else []) + self.inventory_args
        if tags:
            argv += ["--tags", tags]
        if extra_vars:
            argv += ["-e", json.dumps(extra_vars)]
        env = dict(self.env)
        if json_output:
            env["ANSIBLE_STDOUT_CALLBACK"] = "ansible.posix.json"
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout, check=False)
        out = proc.stdout + proc.stderr
        if not json_output:
            return proc.returncode, out, None
        start = proc.stdout.find("{")
        assert start >= 0, out
        return proc.returncode, out, json.loads(proc.stdout[start:])

    def tasks(self, report, name):
        """This host's results of every task whose name ends with ``name`` (role prefixes vary)."""
        return [t["hosts"][self.hostname] for play in report["plays"] for t in play["tasks"]
                if t["task"]["name"].endswith(name) and self.hostname in t["hosts"]]

    def changed(self, report):
        return report["stats"][self.hostname]["changed"]


@pytest.fixture(scope="module")
def subrun(request, host):
    return SubRun(request, host.ansible.get_variables()["inventory_hostname"])


BUSY_MOUNT = "/mnt/iotune-busy"


@pytest.fixture
def busy_disk(host):
    """lab_disks[8] (prepare_refusals.yml) with its first partition mounted on BUSY_MOUNT.

    The mount is not in fstab, so it does not survive the scenario's reboot: mount it again.
    """
    disk = host.ansible.get_variables()["lab_disks"][8]
    if not host.mount_point(BUSY_MOUNT).exists:
        host.check_output("mount %s-part1 %s", disk["by_id"], BUSY_MOUNT)
    return disk
