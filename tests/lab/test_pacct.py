# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tools/iotune_lab/pacct.py against acct(2) version-3 records written here byte by byte after linux/acct.h's
struct acct_v3 (the offsets below, not the reader's struct format)."""

import struct

import pytest

from iotune_lab import cli, pacct


def comp(ticks):
    """ticks as a comp_t: 13-bit mantissa, base-8 exponent."""
    exponent = 0
    while ticks > 0x1FFF:
        ticks >>= 3
        exponent += 1
    return (exponent << 13) | ticks


def record(pid, ppid, comm, user_ticks, sys_ticks, start=1796170000, version=3):
    raw = bytearray(64)
    raw[1] = version
    struct.pack_into("<III", raw, 16, pid, ppid, start)     # ac_pid, ac_ppid, ac_btime
    struct.pack_into("<f", raw, 28, 250.0)                  # ac_etime
    struct.pack_into("<HH", raw, 32, comp(user_ticks), comp(sys_ticks))
    raw[48:48 + len(comm)] = comm.encode()
    return bytes(raw)


# a guest: sshd's listener, one connection, a module run through sh, a command it starts, a command over SSH,
# a service of systemd, and a record of another version
GUEST = b"".join([
    record(500, 1, "sshd", 10, 5),
    record(900, 500, "sshd", 40, 30),
    record(901, 900, "sh", 1, 1),
    record(902, 901, "python3", 200, 100),
    record(903, 902, "mdadm", 20, 30),
    record(910, 900, "bash", 5, 5),
    record(911, 910, "cat", 1, 2),
    record(700, 1, "fio", 15000, 9000),                     # 240 s: a comp_t with an exponent
    record(1, 0, "systemd", 3, 4),
    record(950, 1, "ghost", 9999, 9999, version=2),
])


def test_records_fields_and_compressed_times():
    recs = pacct.records(GUEST)
    assert len(recs) == 9                                   # the version-2 record skipped
    fio = [r for r in recs if r["comm"] == "fio"][0]
    assert fio["pid"] == 700 and fio["ppid"] == 1 and fio["start"] == 1796170000 and fio["elapsed"] == 2.5
    # 15000 and 9000 ticks lose their low bits in comp_t (exponent 1: multiples of 8)
    assert fio["cpu"] == pytest.approx((15000 // 8 * 8 + 9000) / 100)
    assert pacct.comp_t(comp(8191)) == 8191 and pacct.comp_t(comp(8192)) == 8192


def test_by_command_and_by_origin():
    recs = pacct.records(GUEST)
    assert pacct.by_command(recs)[0][:2] == ("fio", 1)
    origins = {name: (n, round(cpu, 2)) for name, n, cpu in pacct.by_origin(recs)}
    assert origins["module"] == (2, 3.5)                    # python3 and what it started (its sh: ssh:sh)
    assert origins["ssh:sh"] == (1, 0.02)
    assert origins["ssh:bash"] == (2, 0.13)
    assert origins["sshd"] == (2, 0.85)
    assert origins["local:systemd"][0] == 2 and "local:fio" not in origins   # fio's parent is pid 1


def test_cli_prints_the_table(tmp_path, capsys):
    path = tmp_path / "guest.pacct"
    path.write_bytes(GUEST)
    assert cli.main(["pacct", str(path), "--by", "origin", "--top", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("total ") and len(out) == 3 and out[1].endswith("  local:systemd")
