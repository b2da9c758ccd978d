# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kernel role in the lab VM: vm.* sysctls and THP of the cassandra profile, live after the reboot, conflicts named.

Runs after converge of iotune.storage.tune with the cassandra profile (the kernel role is imported with the
tag `kernel`) and after the scenario's side_effect reboot. Conflicts are staged on the host and always
cleaned up: a later sysctl.d file, and a tuned-like profile (files only; the lab image has no tuned).
"""
import json

import pytest

SYSCTL_FILE = "/etc/sysctl.d/90-iotune-storage.conf"
THP_UNIT = "iotune-storage-thp.service"
CPU_UNIT = "iotune-storage-cpu-clock.service"
CLOCKSOURCE = "/sys/devices/system/clocksource/clocksource0"
# plugins/module_utils/rules.py CLOCKSOURCES
CLOCKSOURCES = ("tsc", "kvm-clock", "xen", "hyperv_clocksource_tsc_page", "hyperv_clocksource_msr", "hpet", "acpi_pm",
                "arch_sys_counter")
THP = "/sys/kernel/mm/transparent_hugepage"
# roles/profile/vars/profiles/cassandra.yml, section kernel
CASSANDRA_SYSCTL = {"vm.swappiness": 1, "vm.zone_reclaim_mode": 0, "vm.max_map_count": 1048575, "fs.aio-max-nr": 1048576}
CASSANDRA_THP = {"enabled": "never", "defrag": "never"}
LATER_FILE = "/etc/sysctl.d/99-zz-test.conf"
TUNED_NAME = "iotune-test"


def _sysctl(host, name):
    return host.check_output("sysctl -n %s" % name).strip()


def _thp(host, key):
    text = host.file("%s/%s" % (THP, key)).content_string
    return text[text.index("[") + 1:text.index("]")]


def _check(host, mode="fail"):
    """Run iotune.storage.kernel_settings on the host: (failed, result)."""
    from testinfra.modules.ansible import AnsibleException
    try:
        result = host.ansible("iotune.storage.kernel_settings",
                              "sysctl='%s' thp='%s' mode=%s" % (json.dumps(CASSANDRA_SYSCTL), json.dumps(CASSANDRA_THP),
                                                                mode),
                              check=False, become=True)
    except AnsibleException as e:
        return True, e.result
    # testinfra's ansible runner drops "failed" from some failed results; a successful run has no "msg"
    return bool(result.get("failed")) or "msg" in result, result


def _module(host, args):
    """iotune.storage.kernel_settings with ``args`` (a dict): (failed, result)."""
    from testinfra.modules.ansible import AnsibleException
    try:
        result = host.ansible("iotune.storage.kernel_settings", " ".join("%s='%s'" % (k, json.dumps(v) if isinstance(
            v, dict) else v) for k, v in args.items()), check=False, become=True)
    except AnsibleException as e:
        return True, e.result
    return bool(result.get("failed")) or "msg" in result, result


def run_kernel_tag(subrun):
    """ansible-playbook iotune.storage.tune --tags kernel (conftest.SubRun): (rc, JSON report)."""
    rc, dummy, report = subrun.run({"iotune_verify": False}, tags="kernel")
    return rc, report


# ----------------------------------------------------------------------------------------------
# persisted and live after the reboot


def test_sysctl_file_holds_the_profile(host):
    f = host.file(SYSCTL_FILE)
    assert f.exists and f.mode == 0o644 and f.user == "root"
    lines = [line for line in f.content_string.splitlines() if line and not line.startswith("#")]
    assert lines == ["%s = %s" % kv for kv in sorted(CASSANDRA_SYSCTL.items())]


def test_thp_unit_is_ordered_before_the_database(host):
    assert host.service(THP_UNIT).is_enabled
    before = host.check_output("systemctl show -p Before --value %s" % THP_UNIT).split()
    assert "cassandra.service" in before and "basic.target" in before
    assert host.check_output("systemctl show -p ActiveState --value %s" % THP_UNIT) == "active"


def test_values_live_after_the_reboot(host):
    boot = float(host.check_output("cut -d. -f1 /proc/uptime"))
    now = float(host.check_output("date +%s"))
    # the file is older than this boot: the values came back through systemd-sysctl and the THP unit
    assert host.file(SYSCTL_FILE).mtime.timestamp() < now - boot
    for name, value in CASSANDRA_SYSCTL.items():
        assert _sysctl(host, name) == str(value), name
    for key, value in CASSANDRA_THP.items():
        assert _thp(host, key) == value, key


def test_check_passes_on_the_converged_host(host):
    failed, result = _check(host)
    assert not failed, result
    assert result["conflicts"] == [] and result["drift"] == []
    assert result["changed"] is False


# ----------------------------------------------------------------------------------------------
# conflicts are named


@pytest.mark.any_entry(1)     # the entries balanced (docs/testing.md): entry 0 took test_metrics in session 13
def test_later_sysctl_file_is_named(host):
    assert not host.file(LATER_FILE).exists
    try:
        host.run_expect([0], "printf 'vm.swappiness = 60\\n' > %s && sysctl --system" % LATER_FILE)
        assert _sysctl(host, "vm.swappiness") == "60"
        failed, result = _check(host)
        assert failed
        assert "%s line 1 sets 60, and it is applied after %s" % (LATER_FILE, SYSCTL_FILE) in result["msg"]
        assert result["sysctl"]["vm.swappiness"]["live"] == "60"
        assert {"file": LATER_FILE, "line": 1, "value": "60"} in result["sysctl"]["vm.swappiness"]["sources"]
        # report mode names it too and never fails (audits)
        failed, result = _check(host, mode="report")
        assert not failed and any(LATER_FILE in c for c in result["conflicts"])
    finally:
        host.run("rm -f %s && sysctl --system" % LATER_FILE)
    assert _sysctl(host, "vm.swappiness") == "1"


@pytest.mark.any_entry(1)     # the entries balanced (docs/testing.md): entry 0 took test_metrics in session 13
def test_tuned_like_profile_is_detected(host):
    if host.file("/etc/tuned").exists:
        pytest.skip("this host has a real /etc/tuned")
    try:
        host.run_expect([0], "mkdir -p /etc/tuned/%s && printf '[main]\\nsummary=test\\n\\n[sysctl]\\nvm.swappiness=60\\n' "
                             "> /etc/tuned/%s/tuned.conf && echo %s > /etc/tuned/active_profile"
                        % (TUNED_NAME, TUNED_NAME, TUNED_NAME))
        # tuned re-applies the sysctl files after its [sysctl] unit (reapply_sysctl defaults to 1): a note
        failed, result = _check(host)
        assert not failed, result
        assert result["tuned"]["profiles"] == [TUNED_NAME] and result["tuned"]["reapply_sysctl"] is True
        assert any("tuned profile '%s' [sysctl] sets vm.swappiness=60" % TUNED_NAME in n for n in result["notes"])
        # without reapply its value would win: a conflict naming the profile
        host.run_expect([0], "printf 'reapply_sysctl = 0\\n' > /etc/tuned/tuned-main.conf")
        failed, result = _check(host)
        assert failed
        assert "tuned profile '%s' [sysctl] sets vm.swappiness=60 (wanted 1)" % TUNED_NAME in result["msg"]
        assert "kernel_tuned_override: true" in result["msg"]
        # tuned's [vm] unit sets THP directly
        host.run_expect([0], "printf '\\n[vm]\\ntransparent_hugepages=always\\n' >> /etc/tuned/%s/tuned.conf" % TUNED_NAME)
        failed, result = _check(host, mode="report")
        assert "THP enabled: tuned profile '%s' [vm] sets always (wanted never)" % TUNED_NAME in result["conflicts"]
    finally:
        host.run("rm -rf /etc/tuned")
    failed, result = _check(host)
    assert not failed and result["tuned"]["profiles"] == []


# ----------------------------------------------------------------------------------------------
# the tag


@pytest.mark.any_entry(1)     # the entries balanced (docs/testing.md): entry 0 took test_metrics in session 13
def test_tag_kernel_runs_only_the_kernel_part(subrun):
    rc, report = run_kernel_tag(subrun)
    assert rc == 0, json.dumps(report["stats"])
    assert report["stats"][subrun.hostname]["changed"] == 0
    ran = []
    for play in report["plays"]:
        for task in play["tasks"]:
            result = task["hosts"].get(subrun.hostname)
            if result is None or result.get("skipped"):
                continue
            ran.append((task["task"]["name"], task["task"].get("path", "")))
    assert any("/roles/kernel/" in path for dummy, path in ran), ran
    # the profile role runs always (validation and plan, read-only), and ansible validates every imported role's
    # arguments (tag always, changes nothing); nothing else of raid, xfs, tuning, verify, facts
    others = [name for name, path in ran
              if "/roles/kernel/" not in path and "/roles/profile/" not in path
              and "Validating arguments against arg spec" not in name]
    assert others == [], others


@pytest.mark.any_entry(1)     # the nvme entry, whose members are chosen by EBS volume id: its stages are read and skipped too
def test_tag_kernel_repairs_drift_once(host, subrun):
    host.run_expect([0], "sysctl -w vm.max_map_count=65530 && echo always > %s/enabled" % THP)
    try:
        rc, report = run_kernel_tag(subrun)
        assert rc == 0
        assert report["stats"][subrun.hostname]["changed"] == 2   # sysctl -p, THP unit restart
        # issue 31: the preflight's read of the kernel stage showed the drift, so the stage called its module
        assert subrun.stage_decisions(report)["kernel"].startswith("kernel_settings called"), subrun.stage_decisions(report)
        assert _sysctl(host, "vm.max_map_count") == "1048575" and _thp(host, "enabled") == "never"
        rc, report = run_kernel_tag(subrun)
        assert rc == 0 and report["stats"][subrun.hostname]["changed"] == 0
        assert subrun.stage_decisions(report)["kernel"].startswith("kernel_settings skipped"), subrun.stage_decisions(report)
    finally:
        host.run("sysctl -p %s; systemctl restart %s" % (SYSCTL_FILE, THP_UNIT))


@pytest.mark.any_entry(1)     # the nvme entry, whose members are chosen by EBS volume id: its stages are read and skipped too
def test_tag_kernel_enables_a_thp_unit_disabled_by_hand(host, subrun):
    """A re-run skips the enable call only when kernel_settings read the unit as enabled (thp_unit_enabled):
    a unit disabled by hand is enabled again by the next run, and the run after that is changed=0."""
    host.run_expect([0], "systemctl disable %s" % THP_UNIT)
    try:
        assert host.run("systemctl is-enabled %s" % THP_UNIT).stdout.strip() == "disabled"
        rc, report = run_kernel_tag(subrun)
        assert rc == 0 and report["stats"][subrun.hostname]["changed"] == 1, json.dumps(report["stats"])
        assert subrun.stage_decisions(report)["kernel"].startswith("kernel_settings called"), subrun.stage_decisions(report)
        assert host.run("systemctl is-enabled %s" % THP_UNIT).stdout.strip() == "enabled"
        rc, report = run_kernel_tag(subrun)
        assert rc == 0 and report["stats"][subrun.hostname]["changed"] == 0
        assert subrun.stage_decisions(report)["kernel"].startswith("kernel_settings skipped"), subrun.stage_decisions(report)
    finally:
        host.run("systemctl enable %s" % THP_UNIT)


# ----------------------------------------------------------------------------------------------
# the CPU governor and clocksource (issue 27): the cassandra profile asks for the performance governor; the qemu (TCG)
# guest has no cpufreq driver, so the run installs the unit, which skips it, and the check names it "not offered"


def test_cpu_clock_unit_installed_enabled_and_ran_after_the_reboot(host):
    unit = host.file("/etc/systemd/system/" + CPU_UNIT)
    assert unit.exists and unit.mode == 0o644 and unit.user == "root"
    assert "echo performance > " in unit.content_string and "scaling_available_governors" in unit.content_string
    assert "current_clocksource" not in unit.content_string          # the profile sets no clocksource
    assert host.run("systemctl is-enabled %s", CPU_UNIT).stdout.strip() == "enabled"
    # a oneshot that ran at this boot and succeeded although nothing here offers the governor
    assert host.run("systemctl is-active %s", CPU_UNIT).stdout.strip() == "active"
    assert "cassandra.service" in host.check_output("systemctl show -p Before %s", CPU_UNIT)


def test_the_lab_guest_offers_no_governor_and_the_check_says_so(host):
    assert not host.file("/sys/devices/system/cpu/cpu0/cpufreq").exists
    failed, result = _module(host, {"cpu_clock": {"cpu_governor": "performance"}, "mode": "fail"})
    assert not failed, result
    assert result["not_offered"] == ["cpu_governor"] and result["drift"] == [], result
    assert any("cpu_governor performance: not offered by this host" in n for n in result["notes"]), result


def test_clocksource_offered_is_compared_and_one_not_offered_is_skipped(host):
    current = host.file(CLOCKSOURCE + "/current_clocksource").content_string.strip()
    available = host.file(CLOCKSOURCE + "/available_clocksource").content_string.split()
    print("clocksource %s, available %s" % (current, available))     # Debian 12 under qemu TCG: tsc/hpet/acpi_pm
    failed, result = _module(host, {"cpu_clock": {"clocksource": current}, "mode": "fail"})
    assert not failed and result["drift"] == [] and result["not_offered"] == [], result
    other = [c for c in available if c != current and c in CLOCKSOURCES]
    if other:    # offered but not current: drift (reported, mode report changes nothing)
        failed, result = _module(host, {"cpu_clock": {"clocksource": other[0]}, "mode": "report"})
        assert result["drift"] == ["clocksource: live %s, wanted %s" % (current, other[0])], result
    absent = [c for c in CLOCKSOURCES if c not in available and c != current][0]       # xen on this guest
    failed, result = _module(host, {"cpu_clock": {"clocksource": absent}, "mode": "fail"})
    assert not failed and result["not_offered"] == ["clocksource"] and result["drift"] == [], result
    assert host.file(CLOCKSOURCE + "/current_clocksource").content_string.strip() == current       # nothing set
