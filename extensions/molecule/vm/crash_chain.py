# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Crash the lab guest in the middle of a first converge, at chosen points, and let the next run go on (issue 23).

    crash_chain.py --vm NAME --points create,initramfs --record FILE -- ansible-playbook ARGS...

For each point in turn: arm the guest (below), run the playbook, and expect the guest to crash (sysrq ``b``: an
immediate reset, no sync, no unmount: a power loss for everything not yet on disk) in the middle of it; wait until
the guest has booted again through its own boot path (a new boot id, multi-user.target reached), disarm it, and go
on with the next point. Each run after the first is also the recovery of the crash before it: it must get past
the point where the last one crashed (its half-made array, filesystem, initramfs, fstab) without refusing. The run
after the last crash is the scenario's converge, which must complete; its idempotence run, the side_effect reboot
and the tests then check the host (test_crashes.py reads FILE, written on the guest).

The points (each one a moment a power loss can hit a first converge):

- ``create``: right after ``mdadm --create`` returned (superblocks written, no ARRAY line yet, no filesystem);
- ``initramfs``: while the initramfs generator runs after mdadm.conf got its ARRAY line (the old image stays);
- ``mkfs``: while ``mkfs.xfs`` writes the filesystem on the new array (or just after it, when it was quicker);
- ``fstab``: as soon as /etc/fstab holds the mount point's line (before the mount, the drop-ins, the tuning);
- ``udev``: when the rules file was written and ``udevadm trigger`` is called to apply it.

The first four crash from a wrapper in /usr/local/sbin (first in root's PATH, where the modules find their
tools; dpkg never writes there), which logs ``iotune-crash: POINT`` to the kernel log (the lab's console) and
writes ``b`` to /proc/sysrq-trigger. ``fstab`` is a watcher started with systemd-run. The wrappers live on the
root disk and are removed after each boot. The playbook's own output goes to FILE's directory.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LAB = os.path.join(HERE, "..", "..", "..", "tools", "lab")
MOUNTPOINT = "/var/lib/cassandra"
POINTS = ("create", "initramfs", "mkfs", "fstab", "udev")
# `make test`'s two matrix entries (IOTUNE_VM_ENTRY INDEX/COUNT) share the points: the first entry crashes before
# its filesystem is complete, so its converge makes the filesystem and verifies it with fio (test_verify.py runs
# there); the second crashes after it. An entry alone crashes at all five; IOTUNE_VM_CRASH_POINTS chooses others
# ("none": no crash).
ENTRY_POINTS = {"0/2": ("create", "initramfs", "mkfs"), "1/2": ("fstab", "udev")}


def points_for(entry, requested=""):
    """The points of a matrix entry (``INDEX/COUNT``), unless ``requested`` (comma-separated, or ``none``) names
    them."""
    if requested:
        return [] if requested == "none" else [p for p in requested.split(",") if p]
    return list(ENTRY_POINTS.get(entry or "0/1", POINTS))


# the crash itself, once: only while /run/iotune-crash-armed exists (arm() makes it; /run is a tmpfs, so the boot
# after the crash finds it gone and the wrappers pass every call on: systemd runs `udevadm trigger` at boot by
# its search path, /usr/local/sbin first); a line in the kernel log first (the console shows where), then the reset
CRASH = ('crash() { rm /run/iotune-crash-armed 2>/dev/null || return 0; echo "iotune-crash: $1" > /dev/kmsg; '
         'echo b > /proc/sysrq-trigger; sleep 60; }')
# the real tool: the next one of that name on the PATH after /usr/local/sbin
REAL = ('real() { for d in /usr/sbin /usr/bin /sbin /bin; do [ -x "$d/$1" ] && { echo "$d/$1"; return; }; done; '
        'echo "iotune-crash: no $1" >&2; exit 127; }')

# Each wrapper passes the call on unless the guest is armed (GUARD), so a boot or any other caller never meets it.
GUARD = 'r=$(real %s)\n[ -e /run/iotune-crash-armed ] || exec "$r" "$@"\n'
RUNNING = 'running: $(kill -0 $! 2>/dev/null && echo yes || echo no)'
WRAPPERS = {
    # after a successful create: superblocks on the members, nothing else yet
    "create": {"mdadm": GUARD % "mdadm" + '"$r" "$@"; rc=$?\n'
                                          'case " $* " in *" --create "*) [ $rc -eq 0 ] && crash create ;; esac\n'
                                          'exit $rc'},
    # the collection's rebuild (mdadm.conf has the ARRAY line of `data`): crash 3 s into it
    "initramfs": dict((tool, GUARD % tool + 'grep -qs "^ARRAY.* name=[^ ]*data\\b" /etc/mdadm/mdadm.conf '
                                            '/etc/mdadm.conf || exec "$r" "$@"\n'
                                            '"$r" "$@" & sleep 3; crash "initramfs (%s %s)"; wait $!' % (tool, RUNNING))
                      for tool in ("mkinitramfs", "dracut")),
    # 0.1 s into mkfs.xfs on the array (it took less than 0.3 s on the lab's 4 GiB array: the crash comes while
    # it writes the AG headers and the log, or, on a quick host, just after it)
    "mkfs": {"mkfs.xfs": GUARD % "mkfs.xfs" + '"$r" "$@" & sleep 0.1; crash "mkfs (mkfs.xfs %s)"; wait $!' % RUNNING},
    # the rules file is written; the trigger that applies it never runs
    "udev": {"udevadm": GUARD % "udevadm" + 'case " $* " in *" trigger "*) '
                                            '[ -e /etc/udev/rules.d/66-iotune-storage.rules ] && crash udev ;; esac\n'
                                            'exec "$r" "$@"'},
}
# a watcher for the fstab line (no tool runs at that moment): 5 reads a second and no fork (bash; the pause is a read
# that times out on a pipe nobody writes: a `sleep` a time cost 25 ms of the emulated guest's CPU each, 4 % of the
# guest's CPU while the watcher waited, docs/testing.md)
FSTAB_WATCH = ('exec 9<> <(:); while :; do while read -r src mp rest; do [ "$mp" = "%s" ] && crash fstab; '
               'done < /etc/fstab; read -r -t 0.2 -u 9; done' % MOUNTPOINT)


def lab(*args, timeout=120, check=True, stdin=None):
    proc = subprocess.run([LAB, *args], capture_output=True, text=True, timeout=timeout, check=False, input=stdin)
    if check and proc.returncode != 0:
        raise SystemExit("tools/lab %s failed (%d): %s%s"
                         % (" ".join(args), proc.returncode, proc.stdout, proc.stderr))
    return proc


def guest(vm, script, timeout=120, check=True):
    """``script`` run by the guest's sh (given on standard input: ssh would split an argument at its blanks)."""
    return lab("ssh", vm, "--", "sh", "-s", timeout=timeout, check=check, stdin=script)


def boot_id(vm):
    try:
        proc = guest(vm, "cat /proc/sys/kernel/random/boot_id", timeout=30, check=False)
    except subprocess.TimeoutExpired:
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def arm(vm, point):
    lines = ["set -e", "mkdir -p /usr/local/sbin"]
    for tool, body in WRAPPERS.get(point, {}).items():
        text = "#!/bin/sh\n# iotune crash_chain.py (%s): removed after the crash\n%s\n%s\n%s\n" % (point, CRASH, REAL,
                                                                                                   body)
        lines.append("cat > /usr/local/sbin/%s <<'IOTUNE_EOF'\n%sIOTUNE_EOF\nchmod 0755 /usr/local/sbin/%s"
                     % (tool, text, tool))
    if point == "fstab":
        lines.append("systemd-run --quiet --unit=iotune-crash-fstab --collect bash -c '%s; %s'"
                     % (CRASH, FSTAB_WATCH.replace("'", "'\\''")))
    lines.append("sync; touch /run/iotune-crash-armed")
    guest(vm, "\n".join(lines))


def disarm(vm):
    guest(vm, "rm -f /run/iotune-crash-armed; grep -l '^# iotune crash_chain.py' /usr/local/sbin/* 2>/dev/null | "
              "xargs -r rm -f; systemctl stop iotune-crash-fstab 2>/dev/null; sync; true")


def wait_booted(vm, before, deadline_s):
    """The new boot id once SSH answers with one and multi-user.target is reached."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        now = boot_id(vm)
        if now and now != before:
            state = guest(vm, "systemctl is-active multi-user.target", timeout=30, check=False).stdout.strip()
            if state == "active":
                return now
        time.sleep(5)
    return None


def console_marks(vm):
    """The crash lines of the guest's kernel log so far (the lab's console log of the VM, kept across resets)."""
    with open(os.path.join(HERE, "..", "..", "..", ".lab", vm, "console.log"), "rb") as f:
        text = f.read().decode("utf-8", "replace")
    return [line.split("iotune-crash: ", 1)[1].strip() for line in text.splitlines() if "iotune-crash: " in line]


def host_state(vm):
    """What a crash left, read after the boot: the array's UUID (when it runs), its filesystem's type and UUID, the
    ARRAY lines, the mount point's fstab lines, /proc/mdstat."""
    script = ("mdadm --detail --export /dev/md/data 2>/dev/null | sed -n 's/^MD_UUID=//p'; echo '--'; "
              "blkid -p -s TYPE -s UUID -o export /dev/md/data 2>/dev/null | tr '\\n' ' '; echo; echo '--'; "
              "grep -hs '^ARRAY' /etc/mdadm/mdadm.conf /etc/mdadm.conf; echo '--'; "
              "grep -s ' %s ' /etc/fstab; echo '--'; grep '^md' /proc/mdstat; true" % MOUNTPOINT)
    parts = guest(vm, script, check=False).stdout.split("--\n")
    parts += [""] * (5 - len(parts))
    fs = dict(kv.split("=", 1) for kv in parts[1].split() if "=" in kv)
    return {"md_uuid": parts[0].strip() or None, "fs_type": fs.get("TYPE"), "fs_uuid": fs.get("UUID"),
            "array_lines": parts[2].splitlines(), "fstab_lines": parts[3].splitlines(),
            "mdstat": parts[4].splitlines()}


def watch(args, run, marks_before):
    """(the run's exit code or "stopped", the crash lines it caused, when the first was seen): the run ends by itself when the crash
    breaks its connection, but a task polling a background job may keep asking the rebooted guest for a job it
    never heard of, so the run is stopped (its whole process group, SSH included) once the crash line is in the
    kernel log and the guest has had the time to boot."""
    deadline = time.monotonic() + args.run_timeout
    seen_at = None
    while time.monotonic() < deadline:
        try:
            return run.wait(timeout=5), console_marks(args.vm)[marks_before:], seen_at
        except subprocess.TimeoutExpired:
            pass
        if seen_at is None and console_marks(args.vm)[marks_before:]:
            seen_at = time.monotonic()
        if seen_at is not None and time.monotonic() - seen_at > args.grace:
            break
    os.killpg(run.pid, signal.SIGTERM)
    try:
        run.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    return "stopped", console_marks(args.vm)[marks_before:], seen_at


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    ap.add_argument("--vm", required=True)
    ap.add_argument("--points", default="", help="comma-separated, in order: %s; or none (default: the entry's)"
                    % ", ".join(POINTS))
    ap.add_argument("--entry", default="", help="the matrix entry, INDEX/COUNT (IOTUNE_VM_ENTRY)")
    ap.add_argument("--record", required=True, help="the record's path on the guest (JSON)")
    ap.add_argument("--logs", default=".", help="directory for each run's output")
    ap.add_argument("--run-timeout", type=int, default=1800)
    ap.add_argument("--boot-timeout", type=int, default=900)
    ap.add_argument("--grace", type=int, default=45,
                    help="seconds the run may go on after the crash line before it is stopped (default 45)")
    ap.add_argument("playbook", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    points = points_for(args.entry, args.points)
    unknown = [p for p in points if p not in POINTS]
    command = args.playbook[1:] if args.playbook[:1] == ["--"] else args.playbook
    if unknown or not command:
        ap.error("unknown points %s or no playbook command" % unknown)
    record = []
    marks_before = len(console_marks(args.vm))
    for point in points:
        before = boot_id(args.vm)
        disarm(args.vm)
        arm(args.vm, point)
        log = os.path.join(args.logs, "crash-%s.log" % point)
        t0 = time.monotonic()
        with open(log, "w", encoding="utf-8") as out:
            run = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
            rc, marks, seen_at = watch(args, run, marks_before)
        ran = time.monotonic() - t0
        crashed_s = round(seen_at - t0) if seen_at else None
        after = wait_booted(args.vm, before, args.boot_timeout) if marks else None
        booted = time.monotonic() - t0 - ran
        marks_before += len(marks)
        entry = {"point": point, "rc": rc, "crash_s": crashed_s, "run_s": round(ran), "boot_s": round(booted), "boot_id_before": before,
                 "boot_id_after": after, "marks": marks}
        if after is None or not marks:
            with open(log, encoding="utf-8") as f:
                tail = f.read()[-4000:]
            print(json.dumps(entry, indent=1))
            raise SystemExit("crash point %s: the run ended (rc %s) without the guest crashing there%s; its output "
                             "(%s) ends:\n%s" % (point, rc, " and the guest did not come back" if after is None and
                                                 marks else "", log, tail))
        disarm(args.vm)
        entry["state"] = host_state(args.vm)
        record.append(entry)
        print("crash point %s: the guest crashed %s s into the run (%s); the run ended after %d s (%s); "
              "the guest answered again %d s later" % (point, crashed_s, "; ".join(marks), ran, rc, booted), flush=True)
    guest(args.vm, "mkdir -p %s && cat > %s <<'IOTUNE_EOF'\n%s\nIOTUNE_EOF\nsync"
          % (os.path.dirname(args.record), args.record, json.dumps(record, indent=1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
