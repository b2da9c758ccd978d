"""A member of the array disappears before a reboot: the host must still boot and answer SSH, and the
services named for the array must not start on its empty mount point.

This runs last in the scenario (file name sorts last) because it breaks the array for good: it
hot-unplugs one member through the lab's QMP socket, reboots the guest and checks that the boot did
not stop in emergency mode waiting for /var/lib/cassandra (fstab carries nofail and a device
timeout). Reboot and checks go through `tools/lab ssh` rather than the Ansible connection so that
no stale SSH control socket survives the reboot.
"""
import os
import subprocess
import time

import pytest
import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
LAB = os.path.join(REPO, "tools", "lab")
VM = os.environ.get("IOTUNE_LAB_VM", "molecule-vm")
MOUNTPOINT = "/var/lib/cassandra"


def lab_ssh(*cmd, timeout=120, check=True):
    proc = subprocess.run([LAB, "ssh", VM, "--", *cmd], capture_output=True, text=True,
                          timeout=timeout, check=False)
    if check and proc.returncode != 0:
        raise AssertionError("%s failed (%d): %s %s" % (cmd, proc.returncode, proc.stdout, proc.stderr))
    return proc


@pytest.fixture(scope="module")
def lab_disks():
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


def test_boot_with_a_missing_member(lab_disks):
    member = lab_disks[3]
    # The array is healthy and mounted before.
    assert lab_ssh("findmnt", "-n", MOUNTPOINT).stdout.strip()
    assert lab_ssh("test", "-e", member["by_id"], check=False).returncode == 0

    subprocess.run([LAB, "detach-disk", VM, member["serial"]], check=True, timeout=120)
    # The guest saw the disk go away.
    deadline = time.monotonic() + 60
    while lab_ssh("test", "-e", member["by_id"], check=False).returncode == 0:
        assert time.monotonic() < deadline, "%s still present after detach" % member["by_id"]
        time.sleep(2)

    boot_id_before = lab_ssh("cat", "/proc/sys/kernel/random/boot_id").stdout.strip()
    lab_ssh("systemctl", "reboot", check=False, timeout=30)
    time.sleep(10)
    wait_for_ssh()
    assert lab_ssh("cat", "/proc/sys/kernel/random/boot_id").stdout.strip() != boot_id_before

    # Reached multi-user, not emergency/rescue mode. multi-user.target waits for the stand-in service's
    # job, which fails once the filesystem's device timeout (90 s) runs out: poll.
    deadline = time.monotonic() + 300
    while lab_ssh("systemctl", "is-active", "multi-user.target", check=False).stdout.strip() != "active":
        assert time.monotonic() < deadline, lab_ssh("systemctl", "list-jobs", check=False).stdout
        time.sleep(5)
    for target in ("emergency.target", "rescue.target"):
        assert lab_ssh("systemctl", "is-active", target, check=False).stdout.strip() != "active"
    # The missing member stays missing, and the incomplete array's filesystem is simply not mounted.
    assert lab_ssh("test", "-e", member["by_id"], check=False).returncode != 0
    assert lab_ssh("findmnt", "-n", MOUNTPOINT, check=False).returncode != 0
    # The fstab entry is still there (nofail kept the boot going, nothing was rewritten).
    fstab = lab_ssh("cat", "/etc/fstab").stdout
    line = [ln for ln in fstab.splitlines() if MOUNTPOINT in ln]
    assert len(line) == 1 and "nofail" in line[0] and line[0].startswith("UUID="), fstab
    # The stand-in database (services: [iotune-standin], RequiresMountsFor drop-in) did not start on the
    # empty mount point: it is not active and nothing was written under the mount point on the root disk.
    assert lab_ssh("systemctl", "is-active", "iotune-standin.service", check=False).stdout.strip() != "active"
    assert lab_ssh("ls", "-A", MOUNTPOINT).stdout.strip() == ""
