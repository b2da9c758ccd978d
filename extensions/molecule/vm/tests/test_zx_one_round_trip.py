# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A converged host in one round trip (issue 31): check mode on it calls only the preflight, and each kind of hand
change makes its stage call its module again, once.

After test_tuning.py: these runs rewrite the rules file and the fstab, which test_tuning's reboot checks date against
the last boot. test_rerun.py has the converged re-run (one call) and five changes at once (the raid0 stage among
them, and the stale read after it); test_kernel.py's drift runs are the kernel stage's controls.
"""
import pytest

from conftest import STAGES
from test_rerun import MOUNTPOINT, PREFLIGHT_MODULE, RULES_FILE, assert_stages

# the members by path: with member selectors (the nvme entry) the plan is final only after the preflight, and a second
# preflight call reads the stages (so check mode there makes two calls; test_kernel.py's drift runs prove the skips on
# that entry); not release-, initramfs- or bus-specific otherwise
pytestmark = pytest.mark.any_entry(0)


def test_check_mode_on_the_converged_host_makes_one_call(subrun):
    """Issue 31: check mode on a converged host predicts nothing and calls only the preflight."""
    rc, out, report = subrun.run({"iotune_verify": False}, check=True)
    assert rc == 0 and subrun.changed(report) == 0, out
    assert [action for dummy, action in subrun.executed(report)] == [PREFLIGHT_MODULE], subrun.executed(report)
    assert_stages(subrun, report, skipped=STAGES)


def _md(host):
    return host.check_output("basename $(readlink -f /dev/md/data)")


def _drift_readahead(host):
    md = _md(host)
    tuned = host.file("/sys/block/%s/queue/read_ahead_kb" % md).content_string.strip()
    host.check_output("blockdev --setra 4096 /dev/md/data")
    return lambda: host.file("/sys/block/%s/queue/read_ahead_kb" % md).content_string.strip() == tuned


def _drift_scheduler(host):
    member = host.check_output("ls /sys/block/%s/slaves | head -n 1" % _md(host))
    path = "/sys/block/%s/queue/scheduler" % member
    offered = host.file(path).content_string.split()
    tuned = [w for w in offered if w.startswith("[")][0]
    other = [w for w in offered if not w.startswith("[")][0]
    host.check_output("echo %s > %s" % (other, path))
    return lambda: tuned in host.file(path).content_string.split()


def _drift_nomerges(host):
    """A queue setting of issue 27 changed by hand on a member: the cassandra profile's nomerges 2 set to 0."""
    member = host.check_output("ls /sys/block/%s/slaves | head -n 1" % _md(host))
    path = "/sys/block/%s/queue/nomerges" % member
    tuned = host.file(path).content_string.strip()
    assert tuned == "2", tuned
    host.check_output("echo 0 > %s" % path)
    return lambda: host.file(path).content_string.strip() == tuned


def _drift_rules(host):
    rules = host.file(RULES_FILE).content_string
    host.check_output("echo '# by hand' >> %s" % RULES_FILE)
    return lambda: host.file(RULES_FILE).content_string == rules


def _drift_fstab_pass(host):
    fstab = host.file("/etc/fstab").content_string
    line = [l.split() for l in fstab.splitlines() if l.split()[1:2] == [MOUNTPOINT]][0]
    other = "2" if line[5] == "0" else "0"
    host.check_output("sed -i 's#^\\(UUID=[^ ]* %s xfs [^ ]* [0-9]\\) [0-9]$#\\1 %s#' /etc/fstab" % (MOUNTPOINT, other))
    assert host.file("/etc/fstab").content_string != fstab, fstab
    return lambda: host.file("/etc/fstab").content_string == fstab


def _drift_fstrim_timer(host):
    """The discard policy's timer (issue 27; the cassandra profile: fstrim_timer) disabled and stopped by hand: the
    audit names it (test_zz_degraded_boot), and the next run must enable it again."""
    def state():
        return host.run("systemctl is-enabled fstrim.timer; systemctl is-active fstrim.timer").stdout.split()
    assert state() == ["enabled", "active"], state()
    host.check_output("systemctl disable --now fstrim.timer")
    return lambda: state() == ["enabled", "active"]


# (hand change, the stage that must call its module again, the tags of the run)
KINDS = {
    "md readahead": (_drift_readahead, "block_tuning", "iotune_tuning"),
    "member scheduler": (_drift_scheduler, "block_tuning", "iotune_tuning"),
    "member nomerges": (_drift_nomerges, "block_tuning", "iotune_tuning"),
    "rules file edited": (_drift_rules, "block_tuning", "iotune_tuning"),
    # a full run: with the filesystem tag alone the raid0 stage's stripes are missing from the xfs options, which then
    # differ from the preflight's, so the xfs stage always calls its module there (safe, not skipped)
    "fstab pass field": (_drift_fstab_pass, "xfs", None),
    "fstrim.timer disabled": (_drift_fstrim_timer, "xfs", None),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_stage_in_sync_skips_and_each_kind_of_drift_calls_it_again(host, subrun, kind):
    """Issue 31's negative controls, one kind of hand change at a time (test_kernel.py's drift runs are the kernel
    stage's, test_rerun.py's five changes the raid0 stage's): the stage's run calls its module and repairs the change.
    The run takes the stage's tag (the preflight runs always). The run after all of them skips every stage (below)."""
    drift, stage, tags = KINDS[kind]
    repaired = drift(host)
    assert not repaired()
    rc, out, report = subrun.run({"iotune_verify": False}, tags=tags)
    assert rc == 0 and subrun.changed(report) > 0, out
    assert_stages(subrun, report, called=[stage])
    assert repaired(), kind


def test_after_the_repairs_one_run_skips_every_stage(subrun):
    """Each kind's repair above was whole: the next run reads every stage in sync, skips them all and changes
    nothing (one run for all the kinds: a run of its own after each took about 15 s more each under emulation)."""
    rc, out, report = subrun.run({"iotune_verify": False})
    assert rc == 0 and subrun.changed(report) == 0, out
    assert [action for dummy, action in subrun.executed(report)] == [PREFLIGHT_MODULE], subrun.executed(report)
    assert_stages(subrun, report, skipped=STAGES)
