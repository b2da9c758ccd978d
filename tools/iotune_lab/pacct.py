# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where a run's CPU went, process by process: BSD process accounting files (acct(2), version 3 records) read and
summed by command, and by where a guest's process came from (docs/testing.md, "Where the guests' CPU goes").

Accounting is switched on with ``acct(2)`` itself (no package needed): ``touch F; python3 -c "import ctypes;
ctypes.CDLL(None).acct(b'F')"``, and off with ``acct(None)``; a guest's file is copied out with ``tools/lab ssh``.
The kernel writes a record when a process ends, so a process still running, or one killed with the guest (a crash,
a reset), has none: read the figures as shares.

`tools/lab pacct FILE [--by comm|origin] [--top N]` prints the table.
"""

import collections
import struct

RECORD = 64                  # struct acct_v3 (linux/acct.h)
VERSION = 3
AHZ = 100                    # the unit of its times (comp_t ticks)
_HEAD = struct.Struct("<BBHIIIIIIfHHHHHHHH16s")   # flag, version, tty, exit code, uid, gid, pid, ppid, btime,
#                                                      etime (float), utime, stime and 6 more comp_t, comm


def comp_t(value):
    """A 16-bit comp_t (3-bit base-8 exponent, 13-bit mantissa) as an integer."""
    return (value & 0x1FFF) << (3 * (value >> 13))


def records(data):
    """Each version-3 record of ``data`` (bytes of an acct file) as a dict: pid, ppid, comm, start (epoch s),
    elapsed and cpu (user + system) in seconds. Records of another version are skipped."""
    out = []
    for offset in range(0, len(data) - RECORD + 1, RECORD):
        (dummy_flag, version, dummy_tty, dummy_exit, dummy_uid, dummy_gid, pid, ppid, btime, elapsed, utime, stime,
         *dummy_rest, comm) = _HEAD.unpack_from(data, offset)
        if version != VERSION:
            continue
        out.append(dict(pid=pid, ppid=ppid, comm=comm.split(b"\0", 1)[0].decode("utf-8", "replace"), start=btime,
                        elapsed=elapsed / AHZ, cpu=(comp_t(utime) + comp_t(stime)) / AHZ))
    return out


def by_command(recs):
    """[(comm, processes, cpu s)], most CPU first."""
    table = collections.defaultdict(lambda: [0, 0.0])
    for rec in recs:
        table[rec["comm"]][0] += 1
        table[rec["comm"]][1] += rec["cpu"]
    return sorted(((comm, n, cpu) for comm, (n, cpu) in table.items()), key=lambda row: -row[2])


def origin(rec, parents):
    """Where a process came from, by its ancestors (``parents``: pid -> record; a pid used again after a reboot can
    mislead it): ``sshd`` for the connection's own processes, ``module`` for an Ansible module run (python3 under
    sshd, directly or through sh) with all it starts (the sh itself is ``ssh:sh``: its record alone cannot tell),
    ``ssh:CMD`` for another command run over SSH, and
    ``local:ROOT`` for the rest (ROOT: the oldest known ancestor)."""
    chain = [rec["comm"]]
    pid = rec["ppid"]
    seen = set()
    while pid in parents and pid not in seen and len(chain) < 32:
        seen.add(pid)
        chain.append(parents[pid]["comm"])
        pid = parents[pid]["ppid"]
    chain.reverse()
    last_sshd = max((i for i, comm in enumerate(chain) if comm.startswith("sshd")), default=None)
    if last_sshd is None:
        return "local:" + chain[0]
    below = chain[last_sshd + 1:]
    if not below:
        return "sshd"
    if below[0] == "python3" or (below[0] == "sh" and below[1:2] == ["python3"]):
        return "module"
    return "ssh:" + below[0]


def by_origin(recs):
    """[(origin, processes, cpu s)], most CPU first."""
    parents = {rec["pid"]: rec for rec in recs}
    table = collections.defaultdict(lambda: [0, 0.0])
    for rec in recs:
        key = origin(rec, parents)
        table[key][0] += 1
        table[key][1] += rec["cpu"]
    return sorted(((key, n, cpu) for key, (n, cpu) in table.items()), key=lambda row: -row[2])


def render(rows, top=40):
    """The table as text: share of the total, CPU seconds, processes, name."""
    cpu_s = sum(cpu for dummy, dummy_n, cpu in rows)
    lines = ["total %.1f s of CPU, %d processes" % (cpu_s, sum(n for dummy, n, dummy_cpu in rows))]
    total = cpu_s or 1.0
    for name, n, cpu in rows[:top]:
        lines.append("%5.1f %% %9.1f s %7d  %s" % (100 * cpu / total, cpu, n, name))
    return "\n".join(lines)
