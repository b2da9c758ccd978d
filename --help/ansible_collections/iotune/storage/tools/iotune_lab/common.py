# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared pieces of the lab: paths, errors, messages, running commands, locks, atomic writes."""

import fcntl
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
TOOLS = PACKAGE.parent
REPO = TOOLS.parent
IMAGE_FILES = TOOLS / "lab_image"          # files copied into the image, part of the hash
LAB_DIR = Path(os.environ.get("IOTUNE_LAB_DIR", str(REPO / ".lab")))
CACHE = Path(os.environ.get("IOTUNE_LAB_CACHE", str(Path.home() / ".cache" / "iotune-lab")))

EXIT_FAIL, EXIT_USAGE, EXIT_NOTFOUND = 1, 2, 3


class LabError(Exception):
    def __init__(self, msg, code=EXIT_FAIL):
        super().__init__(msg)
        self.code = code


def say(msg):
    print(f"lab: {msg}", flush=True)


def warn(msg):
    print(f"lab: warning: {msg}", file=sys.stderr, flush=True)


class Phase:
    """Prints `[phase] ...` and `[phase] done in N s` lines around a block."""

    def __init__(self, name, timings=None):
        self.name, self.timings = name, timings

    def __enter__(self):
        self.t0 = time.monotonic()
        say(f"[{self.name}] ...")
        return self

    def __exit__(self, exc_type, exc, tb):
        dt = time.monotonic() - self.t0
        if exc_type is None:
            say(f"[{self.name}] done in {dt:.1f} s")
            if self.timings is not None:
                self.timings[self.name] = round(dt, 1)
        else:
            say(f"[{self.name}] FAILED after {dt:.1f} s")
        return False


def run(argv, check=True, capture=False, env=None, quiet=False, stdin=None, timeout=None, cwd=None):
    """Run argv (a list, never a shell string). On failure raise LabError with the output tail."""
    if not quiet:
        say("  $ " + " ".join(str(a) for a in argv))
    try:
        res = subprocess.run([str(a) for a in argv], check=False, env=env, stdin=stdin, cwd=cwd,
                             stdout=subprocess.PIPE if capture else None,
                             stderr=subprocess.PIPE if capture else None,
                             text=True, timeout=timeout)
    except FileNotFoundError:
        raise LabError(f"command not found: {argv[0]} (run tools/setup-host or `make host`)")
    except subprocess.TimeoutExpired:
        raise LabError(f"timed out after {timeout} s: {' '.join(map(str, argv))}")
    if check and res.returncode != 0:
        detail = ""
        if capture:
            tail = ((res.stdout or "") + (res.stderr or "")).strip().splitlines()[-25:]
            detail = "\n" + "\n".join("    " + line for line in tail)
        raise LabError(f"command failed (exit {res.returncode}): "
                       f"{' '.join(map(str, argv))}{detail}")
    return res


def need_root(what):
    if os.geteuid() != 0:
        raise LabError(f"{what} needs root (debootstrap, chroot and mounts); run it as root")


def need_tools(*tools):
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        raise LabError("missing host commands: " + ", ".join(missing) +
                       " (install them with tools/setup-host / `make host`)")


def mounts_under(path):
    path = os.path.realpath(path)
    found = []
    with open("/proc/self/mounts") as f:
        for line in f:
            target = line.split()[1].encode().decode("unicode_escape")
            if target == path or target.startswith(path + "/"):
                found.append(target)
    return found


def safe_rmtree(path):
    """rmtree that refuses to descend into mount points (a chroot's /dev bind mount!)."""
    busy = mounts_under(path)
    if busy:
        raise LabError(f"refusing to remove {path}: still mounted: {', '.join(busy)}")
    shutil.rmtree(path)


class FileLock:
    """flock(2) on path: exclusive, or shared (``shared=True``: any number of holders, none beside an exclusive one)."""

    def __init__(self, path, shared=False):
        self.path = Path(path)
        self.mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX

    def __enter__(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.fd, self.mode | fcntl.LOCK_NB)
        except OSError:
            say(f"waiting for lock {self.path} ...")
            fcntl.flock(self.fd, self.mode)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)
        return False


def write_atomic(path, text, mode=0o644):
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)
