# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The services' limits (issue 27, docs/profiles.md "Limits"): after the converge and the side_effect reboot, the
stand-in database the array names (`iotune-standin`) runs with the cassandra profile's Limit*= as systemd reports
them, from the one drop-in the xfs stage writes beside the mount hold; a unit the host does not have (`cassandra`)
gets its drop-in too (the protection and the limits wait for the unit). A hand edit of the drop-in is named by the
degraded audit (test_zz_degraded_boot.py, area limits)."""

from __future__ import annotations

DROPIN = "/etc/systemd/system/%s.service.d/iotune-storage-limits.conf"
# the cassandra profile's limits (roles/profile/vars/profiles/cassandra.yml), as systemctl show prints them
WANTED = {"LimitNOFILE": "100000", "LimitNOFILESoft": "100000", "LimitNPROC": "32768", "LimitNPROCSoft": "32768",
          "LimitMEMLOCK": "infinity", "LimitMEMLOCKSoft": "infinity", "LimitAS": "infinity", "LimitASSoft": "infinity"}


def test_the_standin_runs_with_the_profile_limits_after_the_reboot(host):
    out = host.check_output("systemctl show -p %s iotune-standin.service", ",".join(sorted(WANTED)))
    shown = dict(line.split("=", 1) for line in out.splitlines())
    assert shown == WANTED, shown
    for unit in ("iotune-standin", "cassandra"):
        text = host.file(DROPIN % unit).content_string
        assert "LimitNOFILE=100000" in text and "LimitMEMLOCK=infinity" in text, (unit, text)
    # negative control: a unit without the collection's drop-in keeps systemd's defaults
    other = host.check_output("systemctl show -p LimitNOFILE ssh.service")
    assert other != "LimitNOFILE=100000", other
