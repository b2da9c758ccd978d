# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A re-run on a serving database host (issue 10), in the lab VM after converge, idempotence and reboot.

- A full ``iotune.storage.tune`` re-run keeps the owner a database gave its mount root, reports
  changed=0 and starts no benchmark: the verify include is skipped for every array (the filesystem
  existed), no fio task ran, and a watcher in the VM saw neither a fio process nor a test file.
- ``--tags verify`` refuses while a process holds a file on the filesystem and names it; with
  ``fio_verify_force`` it measures.
- A verify run on a filesystem that holds files keeps the host's page cache (a cached marker file stays
  resident, checked with fincore) and the report says so; ``fio_verify_drop_caches=always`` drops it.

The mount root's owner is put back to what it was at the end (root after converge); the stand-in user
``cassandra`` stays. Verify sub-runs use one small job and write their reports to a temporary directory,
so the converge report that test_verify.py reads is untouched.
"""
import csv
import json
import os
import shlex
import time

import pytest

from conftest import STAGES

# a re-run on a serving host: the roles' and modules' logic, the same on every entry of the vm matrix
pytestmark = pytest.mark.any_entry(0)

MOUNTPOINT = "/var/lib/cassandra"
WATCH_UNIT = "iotune-rerun-watch"
WATCH_LOG = "/var/tmp/iotune-rerun-watch.log"
HOLDER_UNIT = "iotune-rerun-holder"
HOLDER_FILE = MOUNTPOINT + "/iotune-rerun-holder.txt"
MARKER = "/var/tmp/iotune-rerun-cache-marker.bin"   # on the root filesystem: someone else's cache
VERIFY_TASK = "Verify the tuning with fio"
FIO_TASK = "Run the fio jobs"
# tasks a re-run skips on the preflight's read of the files (write, write, read)
# (task, the include of the task file that holds it: on a converged host the include itself is skipped, and the task
# is not in the report at all)
SNAPSHOT_SKIPS = (
    ("Keep the services off an empty mount point (RequiresMountsFor drop-ins) and their limits (Limit*= drop-ins)",
     "Keep the services' drop-ins, make and mount what is missing, set owners, check limits, enable fstrim.timer"),
    ("Write the sysctl file and the THP unit (only what differs)",
     "Write, load and enable what differs, then check the kernel settings live"),
    ("Find the units, links and drop-ins this role installed before (with checksums)",
     "Install, update or remove the boot program of the ephemeral arrays"))
SYSCTL_FILE = "/etc/sysctl.d/90-iotune-storage.conf"
DROPIN = "/etc/systemd/system/cassandra.service.d/iotune-storage-mounts.conf"
GHOST_UNIT = "/etc/systemd/system/iotune-ephemeral-ghost.service"
# one cheap job (each verify sub-run also runs the profile step)
CHEAP = {
    "fio_verify_jobs": [{"name": "mmap_rand4k", "rw": "randread", "bs": "4k", "ioengine": "mmap",
                         "fadvise_hint": "0", "io_size": "2m"}],
    "fio_verify_thresholds": {},
    "fio_verify_size": "64m",
    "fio_verify_repeat": 1,
    "fio_verify_runtime": 5,
}


PREFLIGHT_MODULE = "iotune.storage.storage_preflight"
MDADM_CONF = "/etc/mdadm/mdadm.conf"
RULES_FILE = "/etc/udev/rules.d/66-iotune-storage.rules"


def assert_stages(subrun, report, skipped=(), called=()):
    """The stages' decisions (issue 31): each of ``skipped`` skipped its module call on the preflight's read, each of
    ``called`` called it (the read showed drift, or an earlier stage changed the host); returns the decisions."""
    found = subrun.stage_decisions(report)
    for stage in skipped:
        assert found.get(stage, "").startswith(STAGES[stage] + " skipped"), (stage, found)
    for stage in called:
        assert found.get(stage, "").startswith(STAGES[stage] + " called"), (stage, found)
    return found


def _sh(host, cmd):
    return host.check_output("sh -c %s" % json.dumps(cmd))


def _test_files(host):
    return host.run("ls -1 %s | grep '^iotune-fio\\.'" % MOUNTPOINT).stdout.split()


def _resident_bytes(host, path):
    return int(host.check_output("fincore --bytes --noheadings --output RES %s" % path).strip() or 0)


@pytest.fixture
def watcher(host):
    """Polls the VM every second for a fio process or a test file under the mount point, into WATCH_LOG.

    With bash builtins only (no pgrep, ls or grep at each turn): on the emulated single vCPU a loop of three
    processes every 0.2 s took a large share of the CPU the re-run it watches needed. A fio run lasts seconds
    (its test files from the layout to the end), so a second between two looks cannot miss one."""
    host.run("systemctl stop %s; rm -f %s" % (WATCH_UNIT, WATCH_LOG))
    loop = ("while :; do for c in /proc/[0-9]*/comm; do read -r n 2>/dev/null < \"$c\" && [ \"$n\" = fio ]"
            " && echo \"fio ${c%%/comm}\"; done; for f in %s/iotune-fio*; do [ -e \"$f\" ] && echo \"${f##*/}\"; done;"
            " sleep 1; done >> %s 2>&1" % (MOUNTPOINT, WATCH_LOG))
    # systemd substitutes $VAR and ${VAR} in the command line it is given (ExecStart): $$ is a literal $
    host.check_output("systemd-run --unit=%s --collect bash -c %s" % (WATCH_UNIT, shlex.quote(loop.replace("$", "$$"))))
    # the watcher can see a test file: a canary proves it before it is trusted
    canary = MOUNTPOINT + "/iotune-fio.canary"
    host.check_output("touch %s" % canary)
    try:
        for dummy in range(50):
            if "iotune-fio.canary" in host.run("cat %s" % WATCH_LOG).stdout:
                break
            time.sleep(0.5)
        else:
            pytest.fail("the watcher did not see the canary test file")
    finally:
        host.check_output("rm -f %s" % canary)
    time.sleep(1.5)
    host.check_output(": > %s" % WATCH_LOG)

    def seen():
        host.run("systemctl stop %s" % WATCH_UNIT)
        return host.run("cat %s" % WATCH_LOG).stdout.strip()
    yield seen
    host.run("systemctl stop %s; rm -f %s" % (WATCH_UNIT, WATCH_LOG))


def test_rerun_keeps_the_owner_and_starts_no_fio(host, subrun, watcher):
    host.check_output("id -u cassandra || useradd --system --no-create-home --shell /usr/sbin/nologin cassandra")
    before = host.check_output("stat -c %%U:%%G:%%a %s" % MOUNTPOINT)
    host.check_output("chown cassandra:cassandra %s" % MOUNTPOINT)
    try:
        rc, out, report = subrun.run()
        seen = watcher()
        assert rc == 0, out
        assert subrun.changed(report) == 0, out
        assert host.file(MOUNTPOINT).user == "cassandra" and host.file(MOUNTPOINT).group == "cassandra"
        # the tuning plan was checked before any change, exactly once: inside the preflight call, or by a second
        # preflight call when member selectors had to be resolved first (the nvme entry)
        preflight = subrun.tasks(report, "Check the arrays, members and mount points on the host (changes nothing)")
        alone = subrun.tasks(report, "Check the tuning plan and the later stages' calls with the resolved members "
                                     "(changes nothing)")
        assert len(preflight) == 1 and len(alone) == 1, (preflight, alone)
        assert (preflight[0].get("tuning_checked") is True) != (not alone[0].get("skipped")), (preflight, alone)
        # the preflight call read the files of the xfs, ephemeral and kernel stages: no call only to confirm them
        # (test_rerun_puts_back_what_was_changed_by_hand is the negative control)
        for name, include in SNAPSHOT_SKIPS:
            found = subrun.tasks(report, name)
            if not found:
                # its task file was not included: the include is in the report, skipped
                found = subrun.tasks(report, include)
            assert len(found) == 1 and found[0].get("skipped"), (name, include, found)
        # the verify include was evaluated and skipped for every array, so no fio task exists in the run
        verify = subrun.tasks(report, VERIFY_TASK)
        assert verify, "task %r not in the report" % VERIFY_TASK
        items = verify[0]["results"]
        assert items and all(i.get("skipped") for i in items), items
        assert all(i["tune_verify_item"]["verify"] is False for i in items)
        assert subrun.tasks(report, FIO_TASK) == []
        assert seen == "", "fio or a test file appeared during the re-run:\n" + seen
        assert _test_files(host) == []
        # issue 31: one call of the collection's modules (the preflight); each stage skipped on its read
        assert [action for dummy, action in subrun.executed(report)] == [PREFLIGHT_MODULE], subrun.executed(report)
        assert_stages(subrun, report, skipped=STAGES)
        summary = "\n".join(subrun.tasks(report, "Summary")[0]["msg"])
        assert "fio verification of %s: skipped" % MOUNTPOINT in summary
        assert "--tags verify" in summary and "iotune_verify=always" in summary
    finally:
        user, group, _mode = before.split(":")
        host.run("chown %s:%s %s" % (user, group, MOUNTPOINT))


@pytest.fixture
def holder(host):
    """A process (tail) that holds a file under the mount point open; yields its pid."""
    host.run("systemctl stop %s" % HOLDER_UNIT)
    host.check_output("echo serving > %s" % HOLDER_FILE)
    host.check_output("systemd-run --unit=%s --collect tail -f %s" % (HOLDER_UNIT, HOLDER_FILE))
    pid = 0
    for dummy in range(50):
        pid = int(host.check_output("systemctl show -p MainPID --value %s" % HOLDER_UNIT) or 0)
        if pid and HOLDER_FILE in host.run("ls -l /proc/%d/fd" % pid).stdout:
            break
        time.sleep(0.2)
    assert pid, "the holder did not start"
    yield pid
    host.run("systemctl stop %s; rm -f %s" % (HOLDER_UNIT, HOLDER_FILE))


def _cache_marker(host):
    _sh(host, "[ -f %s ] || head -c 16777216 /dev/urandom > %s; sync; cat %s > /dev/null" % (MARKER, MARKER, MARKER))
    resident = _resident_bytes(host, MARKER)
    assert resident > 8 * 1024 * 1024, "the marker file did not stay in the page cache (%d bytes)" % resident


def _report(tmp_path, subrun):
    with open(os.path.join(str(tmp_path), subrun.hostname, "verify.json")) as f:
        return json.load(f)


def _edit_fstab_options(host, old, new):
    host.run_expect([0], "sed -i 's#^\\(UUID=[^ ]* %s xfs \\)%s,#\\1%s,#' /etc/fstab" % (MOUNTPOINT, old, new))


def test_rerun_puts_back_what_was_changed_by_hand(host, subrun):
    """Each stage skips its calls only when the preflight's read shows the host as it would leave it. Five hand
    changes at once, each of another stage, are each repaired by one re-run, and the run after that is changed=0:
    - the ARRAY line of the array removed from mdadm.conf (the raid0 stage calls mdadm_array, which writes it and
      rebuilds the initramfs; the block_tuning stage, whose read was in sync, calls its module too: the read is
      stale once an earlier stage changed the host, issue 31);
    - an fstab line whose options were changed (the mount call is skipped only when xfs_filesystem found the very
      line the xfs role writes, with the filesystem mounted there: mounted_as_planned);
    - a sysctl file edited by hand and a drop-in with another mode (written again);
    - a boot unit an earlier run would have left (no ephemeral array of that name): removed, found in the
      preflight's read (the ephemeral role's own find does not run).
    Check mode first predicts the same calls and changes nothing."""
    fstab = host.file("/etc/fstab").content_string
    line = [l for l in fstab.splitlines() if l.split()[1:2] == [MOUNTPOINT]]
    assert len(line) == 1 and ",nofail," in line[0], fstab
    sysctl = host.file(SYSCTL_FILE).content_string
    assert "vm." in sysctl and host.file(DROPIN).mode == 0o644
    assert host.run("grep -c '^ARRAY /dev/md/data ' %s" % MDADM_CONF).stdout.strip() == "1"
    host.check_output("cp -p %s /root/rerun-mdadm.conf.bak" % MDADM_CONF)
    host.check_output("sed -i '\\#^ARRAY /dev/md/data #d' %s" % MDADM_CONF)
    _edit_fstab_options(host, "noatime", "relatime")
    host.check_output("echo '# by hand' >> %s && chmod 0600 %s" % (SYSCTL_FILE, DROPIN))
    host.check_output("printf '[Unit]\\nDescription=left by an earlier run\\n' > %s" % GHOST_UNIT)
    drifted = "sha256sum /etc/fstab %s %s /boot/initrd.img-*; stat -c %%a %s; ls %s" % (
        MDADM_CONF, SYSCTL_FILE, DROPIN, GHOST_UNIT)
    try:
        assert host.file("/etc/fstab").content_string != fstab          # the edit took
        assert host.run("grep -c '^ARRAY /dev/md/data ' %s" % MDADM_CONF).stdout.strip() == "0"
        before = host.check_output(drifted)
        rc, out, report = subrun.run({"iotune_verify": False}, check=True)
        assert rc == 0 and subrun.changed(report) > 0, out
        assert_stages(subrun, report, called=STAGES)
        assert host.check_output(drifted) == before                     # check mode changed nothing
        rc, out, report = subrun.run({"iotune_verify": False})
        assert rc == 0, out
        assert subrun.changed(report) >= 5, out
        found = assert_stages(subrun, report, called=STAGES)
        assert "raid0 stage changed the host" in found["block_tuning"], found
        for name, dummy in SNAPSHOT_SKIPS[:2]:
            assert subrun.tasks(report, name)[0].get("changed"), name
        assert subrun.tasks(report, SNAPSHOT_SKIPS[2][0])[0].get("skipped")
        assert host.run("grep -c '^ARRAY /dev/md/data ' %s" % MDADM_CONF).stdout.strip() == "1"
        assert host.file("/etc/fstab").content_string == fstab
        assert host.file(SYSCTL_FILE).content_string == sysctl
        assert host.file(DROPIN).mode == 0o644
        assert not host.file(GHOST_UNIT).exists
        rc, out, report = subrun.run({"iotune_verify": False})
        assert rc == 0 and subrun.changed(report) == 0, out
        assert [action for dummy, action in subrun.executed(report)] == [PREFLIGHT_MODULE], subrun.executed(report)
        assert_stages(subrun, report, skipped=STAGES)
    finally:
        if host.run("grep -c '^ARRAY /dev/md/data ' %s" % MDADM_CONF).stdout.strip() != "1":
            host.run("cp -p /root/rerun-mdadm.conf.bak %s" % MDADM_CONF)
        if host.file("/etc/fstab").content_string != fstab:
            _edit_fstab_options(host, "relatime", "noatime")
        host.run("rm -f %s; chmod 0644 %s" % (GHOST_UNIT, DROPIN))
        if host.file(SYSCTL_FILE).content_string != sysctl:
            host.run("sed -i '/^# by hand$/d' %s" % SYSCTL_FILE)


def test_verify_refuses_while_a_process_holds_a_file_and_force_measures(host, subrun, holder, tmp_path):
    extra = dict(CHEAP, fio_verify_report_dir=str(tmp_path))
    rc, out, dummy = subrun.run(extra, tags="verify", json_output=False)
    assert rc != 0, out
    assert "refusing to measure %s" % MOUNTPOINT in out, out
    assert "pid %d (tail, fd %s)" % (holder, HOLDER_FILE) in out, out
    assert "fio_verify_force" in out
    assert _test_files(host) == []
    assert not os.path.exists(os.path.join(str(tmp_path), subrun.hostname, "verify.json"))

    # forced: it measures, the report names the holder, and (files on the filesystem) keeps the host cache
    _cache_marker(host)
    rc, out, report = subrun.run(dict(extra, fio_verify_force=True), tags="verify")
    assert rc == 0, out
    assert subrun.changed(report) == 0
    data = _report(tmp_path, subrun)
    job = data["jobs"][0]["result"]
    assert job["io_bytes"] > 0 and job["device_read_bytes"] > 0
    assert {"pid": holder, "comm": "tail", "how": "fd", "path": HOLDER_FILE} in job["open_files"]
    assert data["host_cache_dropped"] is False
    assert job["page_cache"]["host_cache_dropped"] is False and job["page_cache"]["test_file_evicted"] is True
    assert data["page_cache_note"].startswith("host page cache not dropped: the filesystem holds files")
    assert _resident_bytes(host, MARKER) > 8 * 1024 * 1024, "the host's page cache was dropped"
    assert _test_files(host) == []


def test_verify_on_a_filesystem_with_files_keeps_the_cache_unless_opted_in(host, subrun, tmp_path):
    # the reboot probe of side_effect (or this file) is data: the filesystem is not empty
    host.check_output("echo data > %s/iotune-rerun-data.txt" % MOUNTPOINT)
    extra = dict(CHEAP, fio_verify_report_dir=str(tmp_path))
    try:
        _cache_marker(host)
        rc, out, report = subrun.run(extra, tags="verify")
        assert rc == 0, out
        data = _report(tmp_path, subrun)
        assert data["host_cache_dropped"] is False, data["page_cache_note"]
        assert "fio_verify_drop_caches=always" in data["page_cache_note"]
        assert any(data["page_cache_note"] in line for line in subrun.tasks(report, "Summary")[0]["msg"])
        assert _resident_bytes(host, MARKER) > 8 * 1024 * 1024, "the host's page cache was dropped"

        # opted in: the whole cache goes (the marker is evicted) and the report says so
        rc, out, report = subrun.run(dict(extra, fio_verify_drop_caches="always"), tags="verify")
        assert rc == 0, out
        data = _report(tmp_path, subrun)
        assert data["host_cache_dropped"] is True, data["page_cache_note"]
        assert _resident_bytes(host, MARKER) == 0
    finally:
        host.run("rm -f %s/iotune-rerun-data.txt %s" % (MOUNTPOINT, MARKER))


# ----------------------------------------------------------------------------------------------
# the sweep needs named hosts and a directory; the facts report flags data on the root filesystem


def _readahead_of(host, path):
    name = host.check_output("basename $(readlink -f %s)", path)
    return host.check_output("cat /sys/class/block/%s/queue/read_ahead_kb", name)


def test_sweep_without_a_host_pattern_stops_before_any_host(host, subrun):
    before = _readahead_of(host, "/dev/md/data")
    rc, out, dummy = subrun.run({"readahead_sweep_directory": MOUNTPOINT}, playbook="iotune.storage.readahead_sweep",
                                json_output=False, limit=False)
    assert rc != 0, out
    assert "readahead_sweep needs the hosts to sweep" in out, out
    assert subrun.hostname not in out.split("PLAY RECAP")[-1], out     # the VM was never a target
    assert _readahead_of(host, "/dev/md/data") == before
    assert not host.run("ls %s/iotune-fio.* 2>/dev/null", MOUNTPOINT).stdout.strip()


def test_sweep_directory_is_required(host, subrun):
    rc, out, dummy = subrun.run({"readahead_sweep_hosts": subrun.hostname}, playbook="iotune.storage.readahead_sweep",
                                json_output=False)
    assert rc != 0, out
    assert "readahead_sweep_directory" in out and "changed=0" in out, out


def _root_row(tmp_path, host, subrun):
    rc, out, dummy = subrun.run({"iotune_report_dir": str(tmp_path), "iotune_facts_hosts": subrun.hostname},
                                playbook="iotune.storage.facts", json_output=False)
    assert rc == 0, out
    root = host.check_output("basename $(readlink -f $(findmnt -n -o SOURCE /))")
    with open(str(tmp_path / "readahead_facts.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["device"] == root]
    assert len(rows) == 1, root
    return rows[0]


def test_facts_flag_a_database_directory_on_the_root_filesystem(host, subrun, tmp_path):
    """/var/lib/mongodb on the root disk with 8 MiB readahead is flagged; without it (control) it is not."""
    root = host.check_output("readlink -f $(findmnt -n -o SOURCE /)")
    sectors = host.check_output("blockdev --getra %s", root)
    host.check_output("blockdev --setra 16384 %s", root)
    try:
        host.check_output("mkdir -p /var/lib/mongodb")
        flagged = _root_row(tmp_path / "with", host, subrun)
        assert flagged["flagged"] == "true", flagged
        assert "/var/lib/mongodb" in flagged["data_directories"], flagged
        host.check_output("rmdir /var/lib/mongodb")
        control = _root_row(tmp_path / "without", host, subrun)
        assert control["flagged"] == "false" and control["read_ahead_kb"] == "8192", control
    finally:
        host.run("rmdir /var/lib/mongodb")
        host.check_output("blockdev --setra %s %s", sectors, root)
