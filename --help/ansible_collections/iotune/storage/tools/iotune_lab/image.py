# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lab image: its recipe and hash, the mirror taken from the host, building and caching it."""

import datetime
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
import uuid
from pathlib import Path

from . import common
from .disks import parse_size
from .common import LabError, FileLock, Phase, mounts_under, need_root, need_tools, run, safe_rmtree, say, warn

# ------------------------------------------------------------------------------------------------
# The image recipe. These constants, APT_SOURCES, every file under tools/lab_image/ and the mirror
# URLs go into the image hash: change one and `build` makes a new image; leave them and the cached
# image is reused. Bump RECIPE_VERSION when you change what build_image() does.
RECIPE_VERSION = 7
SUITE = "bookworm"
# The releases and initramfs generators an image can be built for (tools/lab --release/--initramfs,
# $IOTUNE_LAB_RELEASE/$IOTUNE_LAB_INITRAMFS); each combination is its own recipe, hash and cache entry.
RELEASES = {"bookworm": "12", "trixie": "13"}
INITRAMFS = ("initramfs-tools", "dracut")
# debootstrap stage: a minimal system; none of the packages the collection installs (mdadm, xfsprogs,
# fio): its roles install those, as they would on a cloud image.
BASE_PACKAGES = [
    "systemd-sysv", "udev", "dbus", "kmod", "iproute2", "openssh-server", "python3", "sudo",
    "ca-certificates", "busybox", "initramfs-tools", "zstd", "procps",
]
# chroot stage, after the initramfs configuration is in place (so the first initrd is small).
# grub-pc-bin: GRUB's BIOS modules and grub-mkimage, without grub-pc's debconf-driven grub-install
# and update-grub (the image's grub.cfg boots whatever /vmlinuz and /initrd.img point to).
KERNEL_PACKAGES = ["linux-image-amd64", "grub-pc-bin"]
# --initramfs dracut: dracut (a linux-initramfs-tool, so initramfs-tools is never installed) comes in
# with the kernel, and the files under tools/lab_image/dracut/ replace etc/initramfs-tools/.
DRACUT_PACKAGES = ["dracut"]
# The vm scenario's own tools (never installed by the collection), installed with the kernel: lvm2, fdisk and
# btrfs-progs write the signatures and build the holders the refusal tests must respect, util-linux-extra has fincore, Debian's node_exporter reads
# the metrics collector's file (test_metrics.py; disabled below, the test starts it). In the chroot they take
# seconds; installed in the emulated guest they took 8 minutes of every CI entry (node_exporter alone about 2).
LAB_TOOLS_PACKAGES = ["lvm2", "fdisk", "btrfs-progs", "util-linux-extra", "prometheus-node-exporter"]
ROOTFS_SIZE = "4G"
# The root disk: an MBR partition table, GRUB's boot.img in the MBR, its core.img in the gap
# before the first partition (sectors 1..2047), the ext4 root filesystem in partition 1.
PART_START = 2048                      # sectors of 512 bytes: partition 1 starts at 1 MiB
# the kernel command line without root= (added as root=UUID=<the root filesystem's UUID>)
KERNEL_CMDLINE = "ro console=ttyS0 net.ifnames=1"
# Under TCG, a guest *reboot* is slow to zero memory:
# the pages still hold code qemu translated in the previous boot, so every write takes qemu's slow
# path. With THP "always" and init_on_alloc=1 (Debian defaults) the kernel zeroes whole 2 MiB pages
# on fault and udev workers in the initramfs hit soft lockups of 20+ s; smaller zeroing avoids it.
#
# nvme_core.multipath=N: qemu 10's NVMe controllers report a multi-controller subsystem (CMIC), so the kernel would
# put a multipath head nvmeXnY over a hidden path nvmeXcYnZ, whose request queue (the scheduler) the head does not
# show. The lab's NVMe disks stand for EBS volumes and instance store, which are not multipath (docs/lab.md, "NVMe
# stalls"); multipath NVMe is not yet tuned by the collection (docs/block_tuning.md).
VM_CMDLINE_EXTRA = "transparent_hugepage=madvise init_on_alloc=0 nvme_core.multipath=N"
# GRUB modules built into core.img: enough to find the root filesystem by UUID and boot Linux
# without reading modules from disk (the rest are in /boot/grub/i386-pc for anything else).
GRUB_MODULES = ["biosdisk", "part_msdos", "ext2", "search", "search_fs_uuid", "configfile",
                "normal", "linux", "echo", "test"]
SERVICES_ENABLE = ["systemd-networkd.service", "iotune-lab-seed.service", "ssh.service"]
# Periodic apt jobs would grab the dpkg lock in the middle of a test run.
UNITS_MASK = ["apt-daily.timer", "apt-daily-upgrade.timer", "apt-daily.service",
              "apt-daily-upgrade.service", "systemd-networkd-wait-online.service",
              # nothing to scrub on a throw-away VM; it only costs boot time under emulation
              "e2scrub_reap.service", "e2scrub_all.timer"]
# Installed for one test, which starts it: no VM runs them unasked (CPU under emulation).
UNITS_DISABLE = ["prometheus-node-exporter.service"]

KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"

# ------------------------------------------------------------------------------------------------
# build

APT_SOURCES = """\
Types: deb
URIs: {mirror}
Suites: {suite} {suite}-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: {security}
Suites: {suite}-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""


# ------------------------------------------------------------------------------------------------
# Mirror and image identity

def apt_source_entries(apt_dir=Path("/etc/apt")):
    """[(uri, [suites])] of the enabled `deb` entries of an apt configuration, in apt's file order:
    sources.list, then sources.list.d/*.list and the deb822 sources.list.d/*.sources."""
    entries = []
    apt_dir = Path(apt_dir)
    files = [apt_dir / "sources.list"] + sorted((apt_dir / "sources.list.d").glob("*.list")) + \
        sorted((apt_dir / "sources.list.d").glob("*.sources"))
    for f in files:
        try:
            text = f.read_text()
        except OSError:
            continue
        if f.suffix == ".sources":
            entries += _deb822_entries(text)
        else:
            for line in text.splitlines():
                words = re.sub(r"\[[^\]]*\]", "", line.split("#", 1)[0]).split()
                if len(words) >= 3 and words[0] == "deb":
                    entries.append((words[1], [words[2]]))
    return entries


def _deb822_entries(text):
    entries = []
    for stanza in re.split(r"\n\s*\n", text):
        fields = {}
        for line in stanza.splitlines():
            if line.startswith("#") or ":" not in line or line[:1].isspace():
                continue
            k, v = line.split(":", 1)
            fields[k.strip().lower()] = v.strip()
        if "deb" not in fields.get("types", "").split():
            continue
        if fields.get("enabled", "yes").lower() == "no":
            continue
        for uri in fields.get("uris", "").split():
            entries.append((uri, fields.get("suites", "").split()))
    return entries


def host_codename(os_release=Path("/etc/os-release")):
    try:
        for line in Path(os_release).read_text().splitlines():
            if line.startswith("VERSION_CODENAME="):
                return line.split("=", 1)[1].strip().strip('"') or None
    except OSError:
        pass
    return None


def pick_mirrors(entries, suite=SUITE):
    """(main, security) URIs for suite from apt entries; None where nothing matches. Only http(s)
    mirrors count (debootstrap runs on the host, the guest reaches them through qemu's NAT)."""
    found_main = found_sec = None
    for uri, suites in entries:
        uri = uri.rstrip("/")
        if not uri.startswith(("http://", "https://")):
            continue
        if found_sec is None and any(s.startswith((suite + "-security", suite + "/updates")) for s in suites):
            found_sec = uri
        if found_main is None and suite in suites:
            found_main = uri
    return found_main, found_sec


def host_mirrors(environ=None, apt_dir=Path("/etc/apt"), suite=SUITE, host_suite=None):
    """(debian mirror, security mirror): $IOTUNE_LAB_MIRROR / $IOTUNE_LAB_SECURITY_MIRROR (what
    `tools/lab --mirror/--security-mirror` set), else the host's own apt sources: the entries for
    suite, else (another release than the host's) those for the host's own release host_suite, as one
    Debian mirror carries every release. The lab names no mirror itself: without either it stops and
    says how to give one."""
    environ = os.environ if environ is None else environ
    main = environ.get("IOTUNE_LAB_MIRROR")
    sec = environ.get("IOTUNE_LAB_SECURITY_MIRROR")
    found_main = found_sec = None
    if not (main and sec):
        entries = apt_source_entries(apt_dir)
        found_main, found_sec = pick_mirrors(entries, suite)
        host_suite = host_codename() if host_suite is None else host_suite
        if host_suite and host_suite != suite and not (found_main and found_sec):
            other_main, other_sec = pick_mirrors(entries, host_suite)
            found_main, found_sec = found_main or other_main, found_sec or other_sec
    main = main or found_main
    if not main:
        raise LabError(f"no Debian mirror for {suite} in the host's apt sources ({apt_dir}); "
                       "give one with `tools/lab --mirror URL ...` or $IOTUNE_LAB_MIRROR")
    # the Debian archive layout keeps the security suites beside the main archive ("<uri>-security")
    sec = sec or found_sec or main.rstrip("/") + "-security"
    return main.rstrip("/"), sec.rstrip("/")


def image_variant(environ=None, release=None, initramfs=None):
    """(release, initramfs generator): the arguments, else $IOTUNE_LAB_RELEASE / $IOTUNE_LAB_INITRAMFS
    (what `tools/lab --release/--initramfs` set), else bookworm with initramfs-tools."""
    environ = os.environ if environ is None else environ
    release = release or environ.get("IOTUNE_LAB_RELEASE") or SUITE
    initramfs = initramfs or environ.get("IOTUNE_LAB_INITRAMFS") or INITRAMFS[0]
    if release not in RELEASES:
        raise LabError(f"release must be one of {', '.join(RELEASES)} (got {release!r})", common.EXIT_USAGE)
    if initramfs not in INITRAMFS:
        raise LabError(f"initramfs must be one of {', '.join(INITRAMFS)} (got {initramfs!r})",
                       common.EXIT_USAGE)
    return release, initramfs


def overlay_dirs(initramfs):
    """The folders of tools/lab_image copied over the rootfs, in order, for this generator."""
    dirs = [common.IMAGE_FILES / "rootfs"]
    if initramfs == "dracut":
        dirs.append(common.IMAGE_FILES / "dracut")
    return dirs


def skip_file(rel, initramfs):
    """Files of tools/lab_image/rootfs that the generator's variant leaves out."""
    return initramfs != "initramfs-tools" and rel.parts[:2] == ("etc", "initramfs-tools")


def recipe_hash(mirror, security, release=SUITE, initramfs=INITRAMFS[0]):
    h = hashlib.sha256()
    recipe = {
        "version": RECIPE_VERSION, "suite": release, "base": BASE_PACKAGES, "kernel": KERNEL_PACKAGES,
        "lab_tools": LAB_TOOLS_PACKAGES,
        "rootfs_size": ROOTFS_SIZE, "cmdline": KERNEL_CMDLINE, "cmdline_extra": VM_CMDLINE_EXTRA,
        "grub_modules": GRUB_MODULES, "part_start": PART_START, "enable": SERVICES_ENABLE,
        "mask": UNITS_MASK, "disable": UNITS_DISABLE, "mirror": mirror, "security": security, "apt": APT_SOURCES,
    }
    if initramfs != INITRAMFS[0]:      # the initramfs-tools recipe keeps the hash it always had
        recipe.update(initramfs=initramfs, initramfs_packages=DRACUT_PACKAGES)
    h.update(json.dumps(recipe, sort_keys=True).encode())
    overlays = overlay_dirs(initramfs)
    for f in sorted(common.IMAGE_FILES.rglob("*")):
        if f.is_file():
            rel = f.relative_to(common.IMAGE_FILES).as_posix()
            if not any(f.is_relative_to(d) for d in overlays):
                continue                # another variant's files
            h.update(rel.encode() + b"\0" + oct(f.stat().st_mode & 0o777).encode() + b"\0")
            h.update(f.read_bytes())
    return h.hexdigest()[:12]


def image_dir(hash_):
    return common.CACHE / "images" / hash_


def image_ready(d):
    return all((d / f).is_file() for f in ("base.qcow2", "vmlinuz", "initrd.img", "rootfs.tar",
                                           "manifest.json"))


class ChrootMounts:
    """proc/sys/dev(pts) mounted in the chroot for package scripts; always unmounted again."""

    def __init__(self, root):
        self.root = Path(root)
        self.mounted = []

    def __enter__(self):
        for src, rel, argv in (("proc", "proc", ["-t", "proc"]), ("sysfs", "sys", ["-t", "sysfs"]),
                               ("/dev", "dev", ["--bind"]), ("/dev/pts", "dev/pts", ["--bind"])):
            target = self.root / rel
            target.mkdir(parents=True, exist_ok=True)
            run(["mount", *argv, src, target], quiet=True)
            self.mounted.append(target)
        return self

    def __exit__(self, *exc):
        for target in reversed(self.mounted):
            res = run(["umount", target], check=False, quiet=True)
            if res.returncode != 0:
                run(["umount", "-l", target], check=False, quiet=True)
        self.mounted = []
        return False


def chroot(root, *argv, capture=True):
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive",
           "LC_ALL": "C.UTF-8", "HOME": "/root"}
    return run(["chroot", root, *argv], env=env, capture=capture)


def root_cmdline(root_uuid):
    return f"root=UUID={root_uuid} {KERNEL_CMDLINE} {VM_CMDLINE_EXTRA}"


def grub_early_cfg(root_uuid):
    """Built into core.img: find the root filesystem, then normal mode reads its grub.cfg."""
    return (f"search --no-floppy --fs-uuid --set=root {root_uuid}\n"
            "set prefix=($root)/boot/grub\n")


def grub_cfg(root_uuid):
    """/boot/grub/grub.cfg: no menu, boots /vmlinuz and /initrd.img, the symlinks the kernel
    package keeps pointing at the newest kernel; so a kernel or initramfs update in the guest is
    what its next boot runs."""
    return ("# written by tools/lab build (tools/iotune_lab/image.py): no menu, no timeout;\n"
            "# boots the kernel and initramfs that /vmlinuz and /initrd.img point to.\n"
            "set timeout=0\n"
            f"search --no-floppy --fs-uuid --set=root {root_uuid}\n"
            f"linux /vmlinuz {root_cmdline(root_uuid)}\n"
            "initrd /initrd.img\n"
            "boot\n")


def mbr_sector(boot_code, start, sectors):
    """The first sector of the root disk: GRUB's boot code (boot.img's first 440 bytes), and a DOS
    partition table with one active Linux partition of `sectors` sectors at LBA `start`."""
    if len(boot_code) < 440:
        raise LabError("boot.img is shorter than 440 bytes")
    mbr = bytearray(512)
    mbr[0:440] = boot_code[:440]
    # status 0x80 (active), CHS fields saturated (LBA is what counts), type 0x83 (Linux)
    entry = bytes([0x80, 0xFE, 0xFF, 0xFF, 0x83, 0xFE, 0xFF, 0xFF]) + \
        start.to_bytes(4, "little") + sectors.to_bytes(4, "little")
    mbr[446:462] = entry
    mbr[510:512] = b"\x55\xaa"
    return bytes(mbr)


def write_root_disk(raw, rootfs, root_uuid, boot_img, core_img):
    """raw: partition table + GRUB + ext4 made from the rootfs directory (no loop devices)."""
    fs_bytes = parse_size(ROOTFS_SIZE)
    offset = PART_START * 512
    if len(core_img) > offset - 512:
        raise LabError(f"GRUB core.img ({len(core_img)} bytes) does not fit before the partition")
    with open(raw, "wb") as f:
        f.truncate(offset + fs_bytes)
    run(["mkfs.ext4", "-q", "-F", "-L", "rootfs", "-U", root_uuid, "-E", f"offset={offset}",
         "-d", rootfs, raw, f"{fs_bytes // 1024}k"], capture=True)
    with open(raw, "r+b") as f:
        f.write(mbr_sector(boot_img, PART_START, fs_bytes // 512))
        f.write(core_img)                  # sector 1: where boot.img looks for it by default


def base_packages(initramfs):
    if initramfs == "initramfs-tools":
        return BASE_PACKAGES
    return [p for p in BASE_PACKAGES if p != "initramfs-tools"]


def kernel_packages(initramfs):
    return (DRACUT_PACKAGES if initramfs == "dracut" else []) + KERNEL_PACKAGES


def copy_overlays(rootfs, initramfs):
    for top in overlay_dirs(initramfs):
        for src in sorted(top.rglob("*")):
            rel = src.relative_to(top)
            if skip_file(rel, initramfs):
                continue
            dst = rootfs / rel
            if src.is_dir():
                dst.mkdir(parents=True, exist_ok=True)
                continue
            dst.parent.mkdir(parents=True, exist_ok=True)
            if dst.is_symlink() or dst.exists():
                dst.unlink()
            shutil.copyfile(src, dst)
            os.chmod(dst, src.stat().st_mode & 0o777)


def build_image(mirror, security, dest, release=SUITE, initramfs=INITRAMFS[0]):
    """Build the image into the (temporary) directory dest. Returns the manifest dict."""
    timings = {}
    rootfs = dest / "rootfs"
    t_all = time.monotonic()
    with Phase("debootstrap", timings):
        run(["debootstrap", "--variant=minbase", f"--keyring={KEYRING}",
             "--include=" + ",".join(base_packages(initramfs)), release, rootfs, mirror], capture=True)
    with Phase("configure", timings):
        copy_overlays(rootfs, initramfs)
        (rootfs / "etc/apt/sources.list").unlink(missing_ok=True)
        (rootfs / "etc/apt/sources.list.d/debian.sources").write_text(
            APT_SOURCES.format(mirror=mirror, security=security, suite=release))
        (rootfs / "etc/apt/apt.conf.d/90iotune-lab").write_text(
            'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n'
            # no Translation-* lists: a third of the package lists, which every apt run in the guest parses
            'Acquire::Languages "none";\n')
        # no daemons may start inside the build chroot
        prc = rootfs / "usr/sbin/policy-rc.d"
        prc.write_text("#!/bin/sh\nexit 101\n")
        prc.chmod(0o755)
    with ChrootMounts(rootfs):
        with Phase("kernel+updates", timings):
            chroot(rootfs, "apt-get", "update", "-q")
            chroot(rootfs, "apt-get", "-y", "-q", "upgrade")
            chroot(rootfs, "apt-get", "-y", "-q", "install", *kernel_packages(initramfs), *LAB_TOOLS_PACKAGES)
        with Phase("systemd units", timings):
            chroot(rootfs, "systemctl", "enable", *SERVICES_ENABLE)
            chroot(rootfs, "systemctl", "mask", *UNITS_MASK)
            chroot(rootfs, "systemctl", "disable", *UNITS_DISABLE)
            chroot(rootfs, "passwd", "--lock", "root")
    with Phase("clean", timings):
        prc.unlink()
        chroot(rootfs, "apt-get", "clean")
        # apt's binary caches of the lists that stay (below), built natively: the guest's first apt run would
        # otherwise build them under emulation (5.5 min for the lists of Debian 12 in a 1-vCPU guest)
        chroot(rootfs, "apt-cache", "gencaches")
        # The package lists stay (fetched by the host's native apt-get update above, in seconds): a guest's own
        # `apt-get update` costs minutes of emulated CPU. Their files' dates date them (Debian's apt-get writes no
        # success stamp), so an install with a cache_valid_time (the collection's packages role,
        # roles/packages/tasks/refresh_index.yml) refreshes them only when the image is older than that.
        for pattern in ("etc/ssh/ssh_host_*", "var/log/*.log",
                        "var/cache/debconf/*-old", "tmp/*", "var/tmp/*"):
            for p in rootfs.glob(pattern):
                if p.is_dir() and not p.is_symlink():
                    shutil.rmtree(p)
                else:
                    p.unlink()
        # every VM gets its own machine id at first boot
        (rootfs / "etc/machine-id").write_text("")
        (rootfs / "var/lib/dbus/machine-id").unlink(missing_ok=True)
        # debootstrap copied the host's resolv.conf and hostname; ours come from lab_image
        for rel in ("etc/resolv.conf", "etc/hostname", "etc/hosts"):
            shutil.copyfile(common.IMAGE_FILES / "rootfs" / rel, rootfs / rel)
    with Phase("kernel files", timings):
        kernels = sorted((rootfs / "boot").glob("vmlinuz-*"))
        if len(kernels) != 1:
            raise LabError(f"expected one kernel in the image, found {[k.name for k in kernels]}")
        kver = kernels[0].name[len("vmlinuz-"):]
        initrd = rootfs / "boot" / f"initrd.img-{kver}"
        if not initrd.is_file():
            raise LabError(f"no initrd for kernel {kver} in the image")
        shutil.copyfile(kernels[0], dest / "vmlinuz")
        shutil.copyfile(initrd, dest / "initrd.img")
    with Phase("bootloader", timings):
        root_uuid = str(uuid.uuid4())
        grub = rootfs / "boot" / "grub"
        shutil.copytree(rootfs / "usr/lib/grub/i386-pc", grub / "i386-pc", dirs_exist_ok=True)
        (grub / "grub.cfg").write_text(grub_cfg(root_uuid))
        (grub / "early.cfg").write_text(grub_early_cfg(root_uuid))
        chroot(rootfs, "grub-mkimage", "-O", "i386-pc", "-d", "/usr/lib/grub/i386-pc",
               "-c", "/boot/grub/early.cfg", "-p", "/boot/grub", "-o", "/boot/grub/core.img",
               *GRUB_MODULES)
        boot_img = (grub / "i386-pc" / "boot.img").read_bytes()
        core_img = (grub / "core.img").read_bytes()
    with Phase("rootfs tarball", timings):
        run(["tar", "--numeric-owner", "--xattrs", "-C", rootfs, "-cf", dest / "rootfs.tar", "."],
            capture=True)
    with Phase("root disk", timings):
        raw = dest / "root.raw"
        write_root_disk(raw, rootfs, root_uuid, boot_img, core_img)
        run(["qemu-img", "convert", "-O", "qcow2", raw, dest / "base.qcow2"], capture=True)
        raw.unlink()
    packages = chroot(rootfs, "dpkg-query", "-W", "-f", "${Package} ${Version}\n").stdout
    (dest / "packages.txt").write_text(packages)
    safe_rmtree(rootfs)
    timings["total"] = round(time.monotonic() - t_all, 1)
    return {"kernel": kver, "initramfs": initramfs, "timings_s": timings, "packages": len(packages.splitlines()),
            "root_uuid": root_uuid, "boot": "grub (MBR, core.img in sectors 1..2047)",
            "root_cmdline": root_cmdline(root_uuid)}


def ensure_image(force=False, release=None, initramfs=None):
    """Return the directory of a ready image, building it if missing (or forced). release and
    initramfs default to $IOTUNE_LAB_RELEASE / $IOTUNE_LAB_INITRAMFS, else bookworm / initramfs-tools."""
    release, initramfs = image_variant(release=release, initramfs=initramfs)
    mirror, security = host_mirrors(suite=release)
    h = recipe_hash(mirror, security, release, initramfs)
    d = image_dir(h)
    if image_ready(d) and not force:
        return d, h, False
    need_root("building the lab image")
    need_tools("debootstrap", "chroot", "mkfs.ext4", "qemu-img", "tar")
    images = common.CACHE / "images"
    images.mkdir(parents=True, exist_ok=True)
    # Images of different recipes build side by side (the vm matrix's entries each need their own: one after the
    # other, the second entry waited 80-100 s on a fresh host); the same image once; `prune` (the lock exclusive)
    # never beside a build.
    with FileLock(images / ".build.lock", shared=True), FileLock(images / f".build-{h}.lock"):
        if image_ready(d) and not force:   # somebody else built it while we waited
            return d, h, False
        say(f"building image {h} (Debian {release} with {initramfs}, mirror {mirror}, security {security})")
        tmp = Path(tempfile.mkdtemp(prefix=f".build-{h}-", dir=images))
        try:
            info = build_image(mirror, security, tmp, release, initramfs)
            manifest = {"hash": h, "suite": release, "mirror": mirror, "security": security,
                        "built": datetime.datetime.now(datetime.timezone.utc).isoformat(
                            timespec="seconds"),
                        "cmdline": KERNEL_CMDLINE, **info}
            (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
            old = None
            if d.exists():
                old = d.with_name(f".old-{h}-{os.getpid()}")
                os.rename(d, old)
            os.rename(tmp, d)                # atomic: the image appears complete or not at all
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        except BaseException:
            # never leave a half image (or mounts) behind
            rootfs = tmp / "rootfs"
            for target in sorted(mounts_under(rootfs), reverse=True):
                run(["umount", "-l", target], check=False, quiet=True)
            if mounts_under(tmp):
                warn(f"left {tmp} in place: something is still mounted below it")
            else:
                shutil.rmtree(tmp, ignore_errors=True)
            raise
        say(f"image {h} ready in {d} (total {info['timings_s']['total']} s)")
        return d, h, True
