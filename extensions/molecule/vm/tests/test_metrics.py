# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Drift where operators look (issue 30, docs/metrics.md): the storage metrics collector on the converged lab VM,
read by Debian's node_exporter.

1. Debian's prometheus-node-exporter (in the lab image, disabled: this test starts it; it reads the textfile directory
   /var/lib/prometheus/node-exporter); a tune run of the metrics stage (`iotune_metrics: true`, a 30 s interval)
   installs the collector, its timer runs, and a second run changes nothing;
2. the exporter's /metrics, scraped inside the guest, carries the collector's families; `promtool check metrics`
   (Debian's prometheus package on the controller, tools/setup-host) passes on them; the converged host has no
   drift (`iotune_storage_drift_items 0`);
3. `blockdev --setra 4096` on the array by hand: a timer run after it (the .prom file rewritten by the timer, the
   test starts no run) shows the readahead drift gauge at 1 and the live value (the wait fails after five runs of the
   interval); the profile's value put back: the next run (started by hand: the timer is proved) shows no drift;
4. `iotune_metrics: false` stops and removes the timer, the service, the program, the spec and the .prom file; the
   exporter no longer has the families.

node_exporter is stopped and disabled at the end (the later tests' boots do not need it).
"""
from __future__ import annotations

import re
import shutil
import subprocess
import time

import pytest

from conftest import lab_ssh

# the collector's program and units are the same on every entry; one entry proves them (docs/testing.md)
pytestmark = pytest.mark.any_entry(0)     # entry 0 again since 2026-12-02: entry 1 was the long pole (docs/testing.md)

UNIT = "iotune-storage-metrics"
PROM = "/var/lib/prometheus/node-exporter/iotune_storage.prom"
FILES = ["/usr/local/sbin/iotune-storage-metrics", "/etc/iotune-storage/metrics.json",
         "/etc/systemd/system/%s.service" % UNIT, "/etc/systemd/system/%s.timer" % UNIT, PROM]
# the exporter's page, read in the guest (the lab forwards only SSH)
SCRAPE = "python3 -c \"import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:9100/metrics').read().decode())\""
METRICS = {"iotune_metrics": True, "metrics_interval": "30s", "iotune_verify": False}


def scrape():
    return lab_ssh(SCRAPE).stdout


def value(text, name, **labels):
    """The value of the series ``name{labels}`` (all the given labels match), or None."""
    for line in text.splitlines():
        m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$", line)
        if not m or m.group(1) != name:
            continue
        got = dict(re.findall(r'([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
        if all(got.get(k) == v for k, v in labels.items()):
            return float(m.group(3))
    return None


def prom_mtime():
    out = lab_ssh("stat", "-c", "%Y", PROM, check=False)
    return int(out.stdout) if out.returncode == 0 else None


def timer_runs_until(seen, limit=150):
    """The .prom text once a timer run after now (the file rewritten, by the timer: the test starts no run) shows
    what ``seen(text)`` looks for. A run that was already reading when the value changed can still show the old one;
    the runs after it cannot. Fails after ``limit`` seconds (5 runs of the 30 s interval)."""
    since = int(lab_ssh("date", "+%s").stdout)
    deadline = time.monotonic() + limit
    while True:
        text = lab_ssh("cat", PROM).stdout if (prom_mtime() or 0) > since else None
        if text is not None and seen(text):
            return text
        assert time.monotonic() < deadline, "no timer run within %d s showed it; last:\n%s" % (limit, text)
        time.sleep(3)


@pytest.fixture(scope="module")
def exporter():
    # the lab image has it, disabled (tools/iotune_lab/image.py LAB_TOOLS_PACKAGES); an older image gets it here
    lab_ssh("dpkg -s prometheus-node-exporter >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get install -y -q "
            "--no-install-recommends prometheus-node-exporter >/dev/null", timeout=900)
    lab_ssh("systemctl enable --now prometheus-node-exporter.service")
    deadline = time.monotonic() + 120
    while lab_ssh(SCRAPE, check=False).returncode != 0:
        assert time.monotonic() < deadline, "node_exporter does not answer on 127.0.0.1:9100"
        time.sleep(3)
    yield
    lab_ssh("systemctl disable --now prometheus-node-exporter.service", check=False)


@pytest.fixture(scope="module")
def installed(exporter, subrun):
    rc, out, report = subrun.run(METRICS, tags="iotune_metrics")
    assert rc == 0, out[-5000:]
    first = subrun.changed(report)
    rc, out, report = subrun.run(METRICS, tags="iotune_metrics")
    assert rc == 0, out[-5000:]
    return {"first": first, "second": subrun.changed(report)}


def test_the_collector_is_installed_and_a_rerun_changes_nothing(installed):
    assert installed["first"] > 0 and installed["second"] == 0, installed
    for path in FILES:
        assert lab_ssh("test", "-f", path, check=False).returncode == 0, path
    assert lab_ssh("systemctl", "is-enabled", UNIT + ".timer").stdout.strip() == "enabled"
    assert lab_ssh("systemctl", "is-active", UNIT + ".timer").stdout.strip() == "active"


def test_node_exporter_serves_valid_metrics_without_drift(installed):
    text = scrape()
    assert value(text, "iotune_storage_collector_up") == 1, text[-3000:]
    assert value(text, "iotune_storage_drift_items") == 0, [ln for ln in text.splitlines() if "drift{" in ln]
    assert value(text, "iotune_storage_array_state", array="data", state="active") == 1
    assert value(text, "iotune_storage_mount_present", mountpoint="/var/lib/cassandra") == 1
    promtool = shutil.which("promtool")
    assert promtool, "promtool (Debian's prometheus package, tools/setup-host) is not on PATH"
    prefixes = ("iotune_storage_", "# HELP iotune_storage_", "# TYPE iotune_storage_")
    ours = "\n".join(ln for ln in text.splitlines() if ln.startswith(prefixes)) + "\n"
    check = subprocess.run([promtool, "check", "metrics"], input=ours, capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_readahead_set_by_hand_flips_the_drift_gauge_at_the_next_timer_run(installed):
    md = lab_ssh("basename $(readlink -f /dev/md/data)").stdout.strip()
    tuned = lab_ssh("cat", "/sys/block/%s/queue/read_ahead_kb" % md).stdout.strip()
    try:
        lab_ssh("blockdev", "--setra", "4096", "/dev/md/data")
        text = timer_runs_until(lambda t: bool(value(t, "iotune_storage_drift_items")))
        drift = [ln for ln in text.splitlines() if ln.startswith("iotune_storage_drift{") and 'area="readahead"' in ln]
        assert len(drift) == 1 and drift[0].endswith(" 1") and "read_ahead_kb live 2048" in drift[0], text[-3000:]
        assert value(text, "iotune_storage_array_read_ahead_bytes", array="data") == 2048 * 1024
    finally:
        lab_ssh("echo %s > /sys/block/%s/queue/read_ahead_kb" % (tuned, md))
    # gone again at the next run: the timer's runs are proved above, so this one is started by hand (the unit is a
    # oneshot: systemctl returns once it wrote the file), which spares the wait for the next tick
    lab_ssh("systemctl", "start", UNIT + ".service", timeout=300)
    text = lab_ssh("cat", PROM).stdout
    assert value(text, "iotune_storage_drift_items") == 0, text[-3000:]
    assert not [ln for ln in text.splitlines() if ln.startswith("iotune_storage_drift{")]


def test_metrics_false_removes_the_collector(installed, subrun):
    rc, out, report = subrun.run(dict(METRICS, iotune_metrics=False), tags="iotune_metrics")
    assert rc == 0 and subrun.changed(report) > 0, out[-5000:]
    for path in FILES:
        assert lab_ssh("test", "-e", path, check=False).returncode != 0, path
    # exit 1 when no unit file matches
    assert lab_ssh("systemctl", "list-unit-files", UNIT + ".*", "--no-legend", check=False).stdout.strip() == ""
    assert "iotune_storage_" not in scrape()
