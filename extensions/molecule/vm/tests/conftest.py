# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared helpers of the vm scenario's tests: sub-runs of ansible-playbook against the scenario inventories."""
import json
import os
import subprocess
import time

import sys

import pytest
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
LAB = os.path.join(REPO, "tools", "lab")
VM = os.environ.get("IOTUNE_LAB_VM", "molecule-vm")
sys.path.insert(0, os.path.join(REPO, "tools"))
sys.path.insert(0, os.path.dirname(HERE))      # the scenario's crash_chain.py (test_crashes.py)

from iotune_lab import kernel_log  # noqa: E402  pylint: disable=wrong-import-position
from iotune_lab import common as lab_common  # noqa: E402  pylint: disable=wrong-import-position
from iotune_lab.ssh import ssh_argv  # noqa: E402  pylint: disable=wrong-import-position
from iotune_lab.vm import load_state  # noqa: E402  pylint: disable=wrong-import-position


def guest_kernel_oops():
    """The oops/BUG/panic lines of the lab VM's console log (tools/iotune_lab/kernel_log.py)."""
    return kernel_log.oops_lines(kernel_log.read_from(os.path.join(REPO, ".lab", VM, "console.log"))[0])


def pytest_configure(config):
    config.addinivalue_line("markers", "oops_on_purpose: the test oopses the guest kernel itself (no oops check)")
    config.addinivalue_line("markers", "any_entry(index): the proof depends on neither the release, the initramfs "
                                       "generator nor the disk bus: it runs on one entry of the vm matrix only")


def matrix_entry():
    """(index, count) of this run in the vm matrix: IOTUNE_VM_ENTRY=INDEX/COUNT, set by `make molecule-vm`;
    (0, 1) when unset (a run by hand runs every test)."""
    index, dummy, count = os.environ.get("IOTUNE_VM_ENTRY", "0/1").partition("/")
    return int(index), int(count or 1)


def pytest_collection_modifyitems(config, items):
    """Tests marked ``any_entry(N)`` run only on entry N modulo the matrix's size (docs/testing.md, "The vm
    matrix"): each proof that is the same on every entry is made once per CI run, and the entries, which run side
    by side, take about as long as each other."""
    index, count = matrix_entry()
    for item in items:
        marker = item.get_closest_marker("any_entry")
        if marker is not None and marker.args[0] % count != index:
            item.add_marker(pytest.mark.skip(reason="not release-, initramfs- or bus-specific: runs on entry %d of "
                                                    "the vm matrix (this is entry %d of %d)"
                                                    % (marker.args[0] % count, index, count)))


def times_path():
    return os.path.join(REPO, "build", "vm-test-times-%s.txt" % VM)


def pytest_sessionstart(session):
    if os.path.exists(times_path()):
        os.remove(times_path())


def pytest_runtest_logreport(report):
    """Each test's phases as they end, appended to build/vm-test-times-VM.txt (seconds, phase, outcome, test): an entry
    stopped by its time limit prints no --durations table, and the budget needs to know where its time went."""
    if report.when == "call" or report.duration >= 1:
        path = times_path()
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a", encoding="utf-8") as f:
            f.write("%s %7.1f %-8s %-7s %s\n" % (time.strftime("%H:%M:%S"), report.duration, report.when,
                                                 report.outcome, report.nodeid))


def stop_on_guest_oops(when, nodeid):
    found = guest_kernel_oops()
    if found:
        pytest.exit("%s %s: %s\n%s" % (when, nodeid, kernel_log.LAB_MESSAGE.format(
            first=found[0], path=os.path.join(REPO, ".lab", VM, "console.log")), "\n".join(found)), returncode=1)


@pytest.fixture(autouse=True)
def guest_kernel_is_sound(request):
    """Before and after every test: an oops of the guest kernel ends the whole run at once with the lab's
    message, not as a misleading product failure (issue #32). A test that oopses the guest on purpose
    (test_zzzz_oops_check.py) carries the ``oops_on_purpose`` marker."""
    on_purpose = request.node.get_closest_marker("oops_on_purpose") is not None
    if not on_purpose:
        stop_on_guest_oops("before", request.node.nodeid)
    yield
    if not on_purpose:
        stop_on_guest_oops("after", request.node.nodeid)


# ---------------------------------------------------------------------------------------------
# the guest through SSH of its own and tools/lab (the tests that reboot or power-cycle it: no Ansible control socket
# survives)


# The tests' own commands share one SSH connection per VM (a ControlMaster that lives 2 minutes after its last use):
# `tools/lab ssh` opened a new one for each, its key exchange and login about 1 s of a lab guest's CPU (sshd was 11-12 %
# of the guests' process CPU in a CI run, 2026-12-01), and a Python start on the controller. A reboot or power cycle
# ends the connection under the master: whatever reboots the guest closes it first (close_lab_ssh), so that the next
# command opens a new one instead of waiting for the dead one's keepalives (ServerAlive: 30 s).
SHARED_CONNECTION = ["-o", "ControlMaster=auto", "-o", "ControlPersist=120", "-o", "ControlPath=/tmp/iotune-lab-ssh-%C"]


def lab_ssh_argv(*control):
    """`tools/lab ssh VM`'s command line (iotune_lab.ssh) with the shared connection, and ``control`` (``-O exit``);
    the port read anew each time (a stop-start may change it)."""
    argv = ssh_argv(load_state(VM)["port"], lab_common.LAB_DIR / "id_ed25519", extra=SHARED_CONNECTION)
    return argv[:1] + list(control) + argv[1:]


def close_lab_ssh():
    """End lab_ssh's shared connection (before the guest reboots, is power-cycled or crashed)."""
    subprocess.run(lab_ssh_argv("-O", "exit"), capture_output=True, text=True, timeout=30, check=False,
                   stdin=subprocess.DEVNULL)


def lab_ssh(*cmd, timeout=120, check=True):
    """CMD in the guest as root (ssh joins its words with spaces, as `tools/lab ssh NAME -- CMD` does)."""
    proc = subprocess.run(lab_ssh_argv() + list(cmd), capture_output=True, text=True, timeout=timeout, check=False,
                          stdin=subprocess.DEVNULL)
    if check and proc.returncode != 0:
        raise AssertionError("%s failed (%d): %s %s" % (cmd, proc.returncode, proc.stdout, proc.stderr))
    return proc


def lab_inventory_disks():
    """lab_disks as tools/lab wrote them last (attached: false after a detach)."""
    with open(os.path.join(REPO, ".lab", VM, "inventory.yml"), encoding="utf-8") as f:
        inv = yaml.safe_load(f)
    return inv["all"]["hosts"][VM]["lab_disks"]


def wait_for_ssh(deadline_s=900):
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        try:
            if lab_ssh("true", timeout=30, check=False).returncode == 0:
                return
        except subprocess.TimeoutExpired:
            pass
        time.sleep(5)
    console = subprocess.run([LAB, "console", VM], capture_output=True, text=True, check=False).stdout
    raise AssertionError("VM did not answer SSH after reboot; console tail:\n" + console[-3000:])


def wait_for_multi_user(deadline_s=300):
    """multi-user.target active (it may wait for a service whose mount runs into its device timeout), and
    neither emergency nor rescue mode."""
    deadline = time.monotonic() + deadline_s
    while lab_ssh("systemctl", "is-active", "multi-user.target", check=False).stdout.strip() != "active":
        assert time.monotonic() < deadline, lab_ssh("systemctl", "list-jobs", check=False).stdout
        time.sleep(5)
    for target in ("emergency.target", "rescue.target"):
        assert lab_ssh("systemctl", "is-active", target, check=False).stdout.strip() != "active"


def reboot_guest():
    """``systemctl reboot`` inside the guest; returns once SSH answers with a new boot id and systemd has finished
    the boot's start jobs (whatever their outcome: SSH answers before the data array is assembled and mounted)."""
    boot_id_before = lab_ssh("cat", "/proc/sys/kernel/random/boot_id").stdout.strip()
    lab_ssh("systemctl", "reboot", check=False, timeout=30)
    close_lab_ssh()
    time.sleep(10)
    wait_for_ssh()
    assert lab_ssh("cat", "/proc/sys/kernel/random/boot_id").stdout.strip() != boot_id_before
    lab_ssh("systemctl", "is-system-running", "--wait", check=False, timeout=900)


# the stages a converged re-run skips on the preflight's read (issue 31), and each one's module
STAGES = {"raid0": "mdadm_array", "xfs": "xfs_filesystem", "block_tuning": "udev_block_tuning",
          "kernel": "kernel_settings"}


class SubRun(object):
    """ansible-playbook PLAYBOOK as a subprocess, limited to the scenario host, with the scenario inventories."""

    def __init__(self, request, hostname):
        self.inventory_args = ["-i", os.path.join(HERE, "..", "inventory")]
        # the lab's inventory of the VM (molecule.yml, verifier options): its address, port, key and disks
        self.lab_inventory = request.config.option.ansible_inventory
        if self.lab_inventory:
            self.inventory_args += ["-i", self.lab_inventory]
        self.hostname = hostname
        self.env = dict(os.environ)
        # molecule's ansible.cfg enables profile_tasks, whose recap would follow the JSON on stdout
        self.env.pop("ANSIBLE_CONFIG", None)
        self.env.setdefault("ANSIBLE_COLLECTIONS_PATH", os.path.join(REPO, "build", "collections"))
        self.env["ANSIBLE_HOST_KEY_CHECKING"] = "false"
        self.env["ANSIBLE_NOCOLOR"] = "1"
        # as in molecule.yml (whose configuration is not read here): one SSH command per module instead of four
        self.env["ANSIBLE_PIPELINING"] = "1"
        # and its SSH connect timeout: the default 10 s is too short for an emulated guest on a loaded machine (a
        # stop's official run saw cases of test_bad_input end without a result, their forks sharing one VM)
        self.env["ANSIBLE_TIMEOUT"] = "60"
        # the collection's filters imported once before the workers fork (callback_plugins/lab_preload.py)
        self.env["ANSIBLE_CALLBACK_PLUGINS"] = os.path.join(HERE, "..", "callback_plugins")
        self.env["ANSIBLE_CALLBACKS_ENABLED"] = "lab_preload"

    def run(self, extra_vars=None, tags=None, playbook="iotune.storage.tune", json_output=True, timeout=1800,
            limit=True, check=False):
        """(rc, text output, parsed JSON report or None); ``limit=False`` runs without --limit, ``check`` with
        --check --diff."""
        argv = ["ansible-playbook", playbook] + (["--limit", self.hostname] if limit else []) + self.inventory_args
        if check:
            argv += ["--check", "--diff"]
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

    def run_cases(self, cases, tmp_dir, tags=None, playbook="iotune.storage.tune", forks=8, timeout=1800):
        """One ansible-playbook run for many sets of variables: each case is an inventory alias of the scenario
        host (the same address, key and SSH control socket) with the case's variables as host variables, so the
        cases share one controller start (a tune run refused by the plan took 4.6 s of wall time on the development
        machine, busy with two lab VMs) and the host-side ones one preflight task. Returns {case id: (failure
        messages, changed count, stats)}, and the run's own output under None."""
        with open(self.lab_inventory, encoding="utf-8") as f:
            connection = yaml.safe_load(f)["all"]["hosts"][self.hostname]
        aliases = dict(("%s--%s" % (self.hostname, case), dict(connection, **variables))
                       for case, variables in cases.items())
        inventory = os.path.join(str(tmp_dir), "cases.yml")
        with open(inventory, "w", encoding="utf-8") as f:
            json.dump({"all": {"hosts": aliases}}, f)   # JSON is YAML: no quoting surprises in the variables
        # each alias on its own: the tune playbook stops every host at the first failure by default
        # (iotune_max_fail_percentage 0), so a case refused by the plan would keep the others from their preflight
        argv = ["ansible-playbook", playbook, "-i", os.path.join(HERE, "..", "inventory"), "-i", inventory,
                "--limit", ",".join(aliases), "--forks", str(forks), "-e", '{"iotune_max_fail_percentage": 100}']
        if tags:
            argv += ["--tags", tags]
        env = dict(self.env, ANSIBLE_STDOUT_CALLBACK="ansible.posix.json")
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout, check=False)
        out = proc.stdout + proc.stderr
        start = proc.stdout.find("{")
        assert start >= 0, out
        report = json.loads(proc.stdout[start:])
        found = dict((case, (failure_messages(report, "%s--%s" % (self.hostname, case)),
                             report["stats"].get("%s--%s" % (self.hostname, case), {}).get("changed"),
                             report["stats"].get("%s--%s" % (self.hostname, case), {})))
                     for case in cases)
        found[None] = out
        return found

    def tasks(self, report, name):
        """This host's results of every task whose name ends with ``name`` (role prefixes vary)."""
        return [t["hosts"][self.hostname] for play in report["plays"] for t in play["tasks"]
                if t["task"]["name"].endswith(name) and self.hostname in t["hosts"]]

    def changed(self, report):
        return report["stats"][self.hostname]["changed"]

    def executed(self, report, prefix="iotune.storage."):
        """(task name, action) of every task that ran one of the collection's modules on the host (skipped ones
        left out): what an idempotent re-run still costs (issue 31)."""
        return [(t["task"]["name"], t["hosts"][self.hostname]["action"]) for play in report["plays"]
                for t in play["tasks"] if self.hostname in t["hosts"]
                and t["hosts"][self.hostname].get("action", "").startswith(prefix)
                and not t["hosts"][self.hostname].get("skipped")]

    def stage_decisions(self, report):
        """{stage: the role's line "MODULE skipped: why" or "MODULE called: why"} of the raid0, xfs, block_tuning and
        kernel stages (the debug task "Stage NAME: ..." of each role, issue 31)."""
        found = {}
        for play in report["plays"]:
            for t in play["tasks"]:
                result = t["hosts"].get(self.hostname)
                for stage in STAGES:
                    name = t["task"]["name"].split(" : ", 1)[-1]       # without the role's prefix
                    if result and name.startswith("Stage %s: " % stage) and not result.get("skipped"):
                        found[stage] = result.get("msg", "")
        return found


def initramfs_file(host, image, path):
    """The content of ``path`` inside an initramfs-tools ``image`` as the guest's own tools read it (the module's reader,
    module_utils/initramfs.py, is what the tests check): an image that is one zstd stream (the lab's: no early
    microcode archive) through ``zstd -dc | cpio -i --to-stdout`` in 1 MiB reads (2 s on a lab guest; cpio's default
    512-byte reads took 10 s), any other unpacked with ``unmkinitramfs`` (11-26 s: it writes every file). Empty (or
    None after unmkinitramfs) when the image has no such file."""
    if host.check_output("head -c 4 %s | od -An -tx1", image).split() == ["28", "b5", "2f", "fd"]:
        return host.check_output("zstd -dcq %s | cpio -i --quiet -C 1048576 --to-stdout %s", image, path)
    tmp = host.check_output("mktemp -d")
    try:
        host.check_output("unmkinitramfs %s %s", image, tmp)
        found = host.check_output('find %s -path "*/%s" -print -quit', tmp, path)
        return host.file(found).content_string if found else None
    finally:
        host.run("rm -rf %s", tmp)


@pytest.fixture(scope="module")
def data_array(host):
    """The converge's array `data` as the day-two tests give it to a run: its members by path (on the NVMe entry too,
    where the converge chose them by EBS volume id: the same disks), chunk, mount point and services."""
    disks = host.ansible.get_variables()["lab_disks"]
    return {"name": "data", "devices": [d["by_id"] for d in disks[0:4]], "chunk_kb": 256,
            "mountpoint": "/var/lib/cassandra", "services": ["cassandra", "iotune-standin"]}


@pytest.fixture(scope="module")
def subrun(request, host):
    return SubRun(request, host.ansible.get_variables()["inventory_hostname"])


def failure_messages(report, hostname):
    """One line per task that failed on ``hostname`` in an ansible.posix.json report: its name, its message and
    those of its failed loop items (a loop task's own message is only "One or more items failed")."""
    found = []
    for play in report["plays"]:
        for task in play["tasks"]:
            result = task["hosts"].get(hostname, {})
            if result.get("failed"):
                items = [r.get("msg", "") for r in result.get("results", []) if r.get("failed")]
                found.append("%s: %s" % (task["task"]["name"], " | ".join([result.get("msg", "")] + items)))
    return found


BUSY_MOUNT = "/mnt/iotune-busy"


def mount_busy_disk(host):
    """lab_disks[8] (prepare_refusals.yml) with its first partition mounted on BUSY_MOUNT.

    The mount is not in fstab, so it does not survive the scenario's reboot: mount it again.
    """
    disk = host.ansible.get_variables()["lab_disks"][8]
    if not host.mount_point(BUSY_MOUNT).exists:
        host.check_output("mount %s-part1 %s", disk["by_id"], BUSY_MOUNT)
    return disk


@pytest.fixture
def busy_disk(host):
    return mount_busy_disk(host)


# ---------------------------------------------------------------------------------------------
# the fleet audit (issue 14): test_zy_audit.py (ok, round trips) and test_zz_degraded_boot.py (drift)

AUDIT_RULES = "/etc/udev/rules.d/66-iotune-storage.rules"
AUDIT_CONF = "/etc/mdadm/mdadm.conf"
AUDIT_STALE = "ARRAY /dev/md/data metadata=1.2 UUID=deadbeef:deadbeef:deadbeef:deadbeef name=data"
# what the audit reads that a careless reader could change (checksums before and after an audit)
AUDIT_READ_FILES = "/etc/fstab %s %s /etc/sysctl.d/90-iotune-storage.conf /boot/initrd.img-*" % (AUDIT_CONF, AUDIT_RULES)
AUDIT_CHECKSUMS = "sha256sum %s 2>/dev/null; true" % AUDIT_READ_FILES


def run_audit(subrun, report_dir, fail_on_drift=False, verbose=False, extra_vars=None):
    """(rc, output, report document, [(task name, this host's result)]) of one ``iotune.storage.audit`` run."""
    extra = dict(extra_vars or {}, iotune_report_dir=str(report_dir), iotune_audit_fail_on_drift=fail_on_drift)
    argv = ["ansible-playbook", "iotune.storage.audit", "--limit", subrun.hostname] + subrun.inventory_args
    argv += ["-e", json.dumps(extra)]
    # the JSON report on stdout; with verbose, ansible's -vvv lines (the SSH commands) on stderr, so that one run
    # gives both
    env = dict(subrun.env, ANSIBLE_PIPELINING="1", ANSIBLE_STDOUT_CALLBACK="ansible.posix.json")
    if verbose:
        argv.append("-vvv")
        env["ANSIBLE_VERBOSE_TO_STDERR"] = "1"
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1200, check=False)
    out = proc.stdout + proc.stderr
    with open(os.path.join(str(report_dir), "storage_audit.json"), encoding="utf-8") as f:
        doc = json.load(f)
    start = proc.stdout.find("{")
    assert start >= 0, out[-3000:]
    run = json.loads(proc.stdout[start:])
    tasks = [(t["task"]["name"], t["hosts"][subrun.hostname]) for play in run["plays"] for t in play["tasks"]
             if subrun.hostname in t["hosts"]]
    return proc.returncode, out, doc, tasks


def audit_host_changes(tasks):
    """Tasks that reported a change on the host itself (the reports are written on the controller)."""
    controller = ("Write the reports", "Create the report directory on the controller")
    return [name for name, result in tasks if result.get("changed") and not name.endswith(controller)]
