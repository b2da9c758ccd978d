# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Queue settings beyond readahead and the scheduler (issue 27, docs/block_tuning.md "Queue settings"), live after
the converge and the side_effect reboot: the cassandra profile's ``nomerges: 2`` on the array and each member, and on
the NVMe entry (members whose serials are EBS volume ids) AWS's long NVMe ``io_timeout``, in whole seconds so that
the kernel reads it back as written. After the reboot means: udev applied the rules when the members appeared and when
md assembled the array, through the one rules file.

A hand change of a member's nomerges is reported by the audit (test_zz_degraded_boot.py, area queue) and repaired by
one run of the tuning stage (test_zx_one_round_trip.py, "member nomerges").
"""

from __future__ import annotations

RULES_FILE = "/etc/udev/rules.d/66-iotune-storage.rules"
EBS_IO_TIMEOUT_MS = "2147483000"


def md(host):
    return host.check_output("basename $(readlink -f /dev/md/data)")


def queue(host, dev, attr):
    """The queue attribute's value, None when the device has none (virtio-blk of Debian 12's kernel: no io_timeout)."""
    found = host.file("/sys/block/%s/queue/%s" % (dev, attr))
    return found.content_string.strip() if found.exists else None


def members(host):
    return sorted(host.check_output("ls /sys/block/%s/slaves" % md(host)).split())


def test_nomerges_2_on_the_array_and_every_member(host):
    assert queue(host, md(host), "nomerges") == "2"
    found = dict((m, queue(host, m, "nomerges")) for m in members(host))
    assert len(found) == 4 and set(found.values()) == {"2"}, found


def test_the_ebs_members_have_the_long_nvme_timeout_and_the_others_keep_theirs(host):
    disks = host.ansible.get_variables()["lab_disks"]
    rules = host.file(RULES_FILE).content_string
    timeouts = dict((m, queue(host, m, "io_timeout")) for m in members(host))
    if disks[0]["bus"] == "nvme":
        # the members are EBS volumes by their serials (vol + 17 hex digits): the ebs class's value, read back exact
        assert set(timeouts.values()) == {EBS_IO_TIMEOUT_MS}, timeouts
        assert rules.count('ATTR{queue/io_timeout}="%s"' % EBS_IO_TIMEOUT_MS) == 4, rules
    else:
        # negative control: virtio members are no EBS volumes; no io_timeout rule, the kernel's default stays
        assert EBS_IO_TIMEOUT_MS not in timeouts.values(), timeouts
        assert "io_timeout" not in rules, rules
