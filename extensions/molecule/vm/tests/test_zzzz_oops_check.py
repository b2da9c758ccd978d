# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The negative control of the guest-kernel check (issue #32): the guest kernel is crashed on purpose and
every layer of the check must say so with the lab's message.

Runs last of all (its name sorts last): the guest is dead afterwards and the scenario's destroy follows.
Runs on the virtio entry of the vm matrix only (the checks read the console log on the host).

1. before: `tools/lab oops-check` passes (exit 0), the scenario's check playbook passes, conftest's
   check (guest_kernel_oops) finds nothing: the checks do not fail on a sound guest;
2. `echo c > /proc/sysrq-trigger` panics the guest kernel ("Kernel panic - not syncing: sysrq triggered
   crash", kernel/panic.c through drivers/tty/sysrq.c);
3. after: `tools/lab oops-check` exits 1 with the lab's message and the panic line, check_guest_kernel.yml
   fails with it, a play against the dead guest is unreachable and the callback (callback_plugins/
   lab_guest_kernel.py) prints the lab's message, and conftest's check finds the panic line.
"""
import os
import subprocess
import time

import pytest

from conftest import HERE, LAB, REPO, VM, close_lab_ssh, guest_kernel_oops, lab_ssh

# the lab's console check: the same on every entry of the vm matrix
pytestmark = [pytest.mark.any_entry(0), pytest.mark.oops_on_purpose]

LAB_WORDS = "guest kernel under qemu software emulation, not a result of the collection"
SCENARIO = os.path.abspath(os.path.join(HERE, ".."))


def oops_check():
    return subprocess.run([LAB, "oops-check", VM], capture_output=True, text=True, timeout=60, check=False)


def playbook(path, subrun):
    env = dict(subrun.env, MOLECULE_SCENARIO_DIRECTORY=SCENARIO, IOTUNE_LAB_VM=VM,
               ANSIBLE_CALLBACKS_ENABLED="lab_guest_kernel", ANSIBLE_CALLBACK_PLUGINS=os.path.join(SCENARIO, "callback_plugins"),
               ANSIBLE_TIMEOUT="20")
    argv = ["ansible-playbook", path, "--limit", "%s,localhost" % subrun.hostname] + subrun.inventory_args
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def test_the_guest_kernel_checks_fail_on_a_kernel_crash(subrun, host, tmp_path):
    # 1. a sound guest passes every check
    proc = oops_check()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert guest_kernel_oops() == []
    rc, out = playbook(os.path.join(SCENARIO, "check_guest_kernel.yml"), subrun)
    assert rc == 0, out

    # 2. crash it
    try:
        lab_ssh("sh", "-c", "'echo 1 > /proc/sys/kernel/sysrq; sync; (sleep 2; echo c > /proc/sysrq-trigger) "
                ">/dev/null 2>&1 </dev/null &'", timeout=60, check=False)
    except subprocess.TimeoutExpired:
        pass                                  # the guest may die before ssh has closed
    close_lab_ssh()                           # its connection dies with the guest
    deadline = time.monotonic() + 180
    while not guest_kernel_oops() and time.monotonic() < deadline:
        time.sleep(2)

    # 3. every layer names it with the lab's message
    found = guest_kernel_oops()
    assert found and found[0].startswith("Kernel panic - not syncing: sysrq triggered crash"), found
    proc = oops_check()
    assert proc.returncode == 1
    assert LAB_WORDS in proc.stderr and "Kernel panic - not syncing" in proc.stderr
    assert os.path.join(REPO, ".lab", VM, "console.log") in proc.stderr

    rc, out = playbook(os.path.join(SCENARIO, "check_guest_kernel.yml"), subrun)
    assert rc != 0 and LAB_WORDS in out, out

    ping = tmp_path / "ping.yml"
    ping.write_text("- name: Reach the guest\n  hosts: all\n  gather_facts: false\n  tasks:\n"
                    "    - name: Ping\n      ansible.builtin.ping:\n")
    rc, out = playbook(str(ping), subrun)
    assert rc != 0 and "unreachable at task 'Ping'" in out and LAB_WORDS in out, out
