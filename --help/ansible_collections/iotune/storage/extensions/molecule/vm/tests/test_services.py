# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Services named for an array start only on its mounted filesystem (RequiresMountsFor drop-ins).

After converge (services: [cassandra, iotune-standin]) and the side_effect reboot. iotune-standin
(prepare.yml) appends the boot id to /var/lib/cassandra/standin.log when it starts; test_zz_degraded_boot
checks the other half: a member missing at boot, the service does not start and nothing is written.
"""

from __future__ import annotations

MOUNTPOINT = "/var/lib/cassandra"
DROPIN = "iotune-storage-mounts.conf"


def test_dropins_written_also_for_a_unit_not_installed(host):
    for unit in ("cassandra.service", "iotune-standin.service"):
        f = host.file("/etc/systemd/system/%s.d/%s" % (unit, DROPIN))
        assert f.exists and f.user == "root" and f.mode == 0o644, unit
        assert "RequiresMountsFor=%s\n" % MOUNTPOINT in f.content_string, unit
        # held without an fstab line too (a first run crashed before it reached the disk: test_crashes.py)
        assert "AssertPathIsMountPoint=%s\n" % MOUNTPOINT in f.content_string, unit


def test_systemd_orders_the_service_after_the_mount(host):
    unit = host.check_output("systemd-escape --path --suffix=mount %s", MOUNTPOINT)
    show = host.check_output("systemctl show -p Requires -p After -p RequiresMountsFor iotune-standin.service")
    assert "RequiresMountsFor=%s" % MOUNTPOINT in show
    requires = [line for line in show.splitlines() if line.startswith("Requires=")][0]
    after = [line for line in show.splitlines() if line.startswith("After=")][0]
    assert unit in requires.split("=", 1)[1].split() and unit in after.split("=", 1)[1].split(), show


def test_standin_started_after_the_reboot_on_the_array(host):
    assert host.service("iotune-standin").is_running or host.check_output(
        "systemctl is-active iotune-standin.service") == "active"
    boot_id = host.check_output("cat /proc/sys/kernel/random/boot_id")
    log = MOUNTPOINT + "/standin.log"
    assert boot_id in host.file(log).content_string.split()
    # the file lives on the array's filesystem, not on the root disk under the mount point
    source = host.check_output("findmnt -n -o SOURCE --target %s", log)
    md = host.check_output("readlink -f /dev/md/data")
    assert host.check_output("readlink -f %s", source) == md
