# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lab's qemu: the host's own when it is new enough, else a private copy of Debian's backport.

qemu 7.2 (Debian 12's) loses NVMe completions under TCG: reads at iodepth 16 on an emulated NVMe disk wait for the
guest's I/O timeout, the guest resets the controller, and the reset puts the namespace's readahead back (docs/lab.md,
"NVMe stalls"). qemu 10.0 did not stall in the same runs. On a host whose qemu is older than MIN_VERSION the lab
uses qemu-system-x86 from the host release's backports, fetched from the host's own Debian mirror with a private
apt state (the host's package database and sources are not touched) and unpacked under the lab's cache.
"""

import functools
import os
import re
import shutil
import tempfile
from pathlib import Path

from . import common, image
from .common import FileLock, LabError, run, say, warn

MIN_VERSION = (10, 0)
# what the private copy needs: the emulator, its common files, its firmware and option ROMs, the BIOS
PACKAGES = ("qemu-system-x86", "qemu-system-common", "qemu-system-data", "seabios")
VERSION_RE = re.compile(r"QEMU emulator version (\d+)\.(\d+)(?:\.(\d+))?")


def parse_version(text):
    """(major, minor, micro) from `qemu-system-x86_64 --version`; None when it is not there."""
    m = VERSION_RE.search(text or "")
    return tuple(int(g or 0) for g in m.groups()) if m else None


def private_root(cache=None):
    return Path(cache or common.CACHE) / "qemu" / "current"


def private_binary(cache=None):
    return private_root(cache) / "usr" / "bin" / "qemu-system-x86_64"


def command_for(root):
    """argv prefix of the qemu unpacked under root: its binary, its firmware and ROMs before the host's."""
    return [str(root / "usr" / "bin" / "qemu-system-x86_64"),
            "-L", str(root / "usr" / "share" / "qemu"), "-L", str(root / "usr" / "share" / "seabios")]


def module_env(argv, environ=None):
    """The environment to run argv in: a private copy loads its own modules, never the host qemu's."""
    env = dict(os.environ if environ is None else environ)
    binary = Path(argv[0])
    if binary.is_absolute() and binary.parts[-3:-1] == ("usr", "bin"):
        env["QEMU_MODULE_DIR"] = str(binary.parents[2] / "usr" / "lib" / "x86_64-linux-gnu" / "qemu")
    return env


@functools.lru_cache(maxsize=None)
def host_version():
    """The host's own qemu version, read once per process: choose() runs for every qemu command line and the KVM
    probe's cache key."""
    if not shutil.which("qemu-system-x86_64"):
        return None
    return parse_version(run(["qemu-system-x86_64", "--version"], capture=True, quiet=True, check=False).stdout)


def choose(environ=None, host=(), cache=None):
    """argv prefix running the lab's qemu: $IOTUNE_LAB_QEMU (a binary, as is), else the host's qemu when it is at
    least MIN_VERSION, else the private copy (`tools/lab qemu` fetches it), else the host's older qemu with a
    warning. Raises LabError when the host has no qemu at all."""
    environ = os.environ if environ is None else environ
    if environ.get("IOTUNE_LAB_QEMU"):
        return [environ["IOTUNE_LAB_QEMU"]]
    host = host_version() if host == () else host      # () = look; None = the host has no qemu
    if host and host[:2] >= MIN_VERSION:
        return ["qemu-system-x86_64"]
    if private_binary(cache).exists():
        return command_for(private_root(cache))
    if not host:
        raise LabError("no qemu-system-x86_64: run tools/setup-host (`make host`), or set $IOTUNE_LAB_QEMU")
    # the host's older qemu still runs VMs: better a lab whose NVMe disks may stall than none (a host without
    # the backport, a mirror that does not answer)
    warn(f"the host's qemu {'.'.join(map(str, host))} is older than {'.'.join(map(str, MIN_VERSION))} and stalls "
         "emulated NVMe disks (docs/lab.md, NVMe stalls): run `tools/lab qemu` (make host does) to fetch Debian's "
         "backport into the lab's cache, or set $IOTUNE_LAB_QEMU")
    return ["qemu-system-x86_64"]


def apt_options(state):
    """apt-get options for a private apt: its own sources, lists and cache under state, no host sources."""
    return ["-o", f"Dir::Etc::SourceList={state / 'sources.list'}", "-o", "Dir::Etc::SourceParts=/dev/null",
            "-o", f"Dir::State::Lists={state / 'lists'}", "-o", f"Dir::Cache={state / 'cache'}",
            "-o", "APT::Sandbox::User=root", "-o", "Debug::NoLocking=1"]


def sources_list(mirror, codename):
    return "".join(f"deb {mirror} {suite} main\n"
                   for suite in (f"{codename}-backports", codename, f"{codename}-updates"))


def fetch(cache=None, environ=None):
    """Fetch (or reuse) the private copy; returns its argv prefix. Nothing when the host's qemu is new enough."""
    cache = Path(cache or common.CACHE)
    host = host_version()
    if host and host[:2] >= MIN_VERSION:
        say(f"qemu: the host's qemu {'.'.join(map(str, host))} is new enough; nothing to fetch")
        return ["qemu-system-x86_64"]
    codename = image.host_codename()
    if not codename:
        raise LabError("qemu: cannot tell the host's Debian release (/etc/os-release) to fetch its qemu backport")
    mirror, _security = image.host_mirrors(environ=environ, suite=codename)
    (cache / "qemu").mkdir(parents=True, exist_ok=True)
    with FileLock(cache / "qemu" / ".fetch.lock"):
        if private_binary(cache).exists():
            return command_for(private_root(cache))
        with tempfile.TemporaryDirectory(dir=cache / "qemu") as tmp:
            tmp = Path(tmp)
            state = tmp / "apt"
            for sub in ("lists/partial", "cache/archives/partial", "debs"):
                (state / sub).mkdir(parents=True, exist_ok=True)
            (state / "sources.list").write_text(sources_list(mirror, codename))
            say(f"qemu: fetching {', '.join(PACKAGES)} from {codename}-backports of the host's mirror")
            run(["apt-get", *apt_options(state), "-q", "update"], capture=True)
            run(["apt-get", *apt_options(state), "-q", "download",
                 *[f"{p}/{codename}-backports" for p in PACKAGES]], capture=True, cwd=state / "debs")
            root = tmp / "root"
            for deb in sorted((state / "debs").glob("*.deb")):
                run(["dpkg-deb", "-x", str(deb), str(root)], capture=True)
            version = parse_version(run(command_for(root) + ["--version"], capture=True,
                                        env=module_env(command_for(root))).stdout)
            if not version or version[:2] < MIN_VERSION:
                raise LabError(f"qemu: {codename}-backports has qemu {version}, older than "
                               f"{'.'.join(map(str, MIN_VERSION))}")
            dest = cache / "qemu" / ".".join(map(str, version))
            if dest.exists():
                shutil.rmtree(dest)
            root.rename(dest)
        link = cache / "qemu" / "current"
        tmp_link = cache / "qemu" / ".current.new"
        tmp_link.unlink(missing_ok=True)
        tmp_link.symlink_to(dest.name)
        tmp_link.replace(link)
        say(f"qemu: {'.'.join(map(str, version))} unpacked in {dest}")
    return command_for(private_root(cache))
