# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The image recipe: mirrors from the host's apt configuration, and the recipe hash."""

import shutil

import pytest

from iotune_lab import common, image
from iotune_lab.common import LabError

MAIN = "http://mirror.invalid/debian"
SEC = "http://mirror.invalid/debian-security"

DEB822 = f"""\
# a comment
Types: deb deb-src
URIs: {MAIN}/
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: {SEC}
Suites: bookworm-security
Components: main
"""


def apt_tree(tmp_path, files):
    root = tmp_path / "apt"
    (root / "sources.list.d").mkdir(parents=True)
    for rel, text in files.items():
        (root / rel).write_text(text)
    return root


def test_deb822_sources(tmp_path):
    root = apt_tree(tmp_path, {"sources.list.d/debian.sources": DEB822})
    assert image.apt_source_entries(root) == [
        (MAIN + "/", ["bookworm", "bookworm-updates"]), (SEC, ["bookworm-security"])]
    assert image.host_mirrors({}, root) == (MAIN, SEC)


def test_one_line_sources_with_options_and_comments(tmp_path):
    root = apt_tree(tmp_path, {"sources.list": (
        "# deb http://commented.invalid/debian bookworm main\n"
        "deb-src http://src.invalid/debian bookworm main\n"
        f"deb [arch=amd64 signed-by=/k.gpg] {MAIN} bookworm main  # trailing\n"
        f"deb {SEC} bookworm-security main\n")})
    assert image.host_mirrors({}, root) == (MAIN, SEC)


def test_old_security_layout(tmp_path):
    root = apt_tree(tmp_path, {"sources.list": f"deb {MAIN} bookworm main\ndeb {SEC} bookworm/updates main\n"})
    assert image.host_mirrors({}, root) == (MAIN, SEC)


def test_disabled_and_foreign_entries_are_skipped(tmp_path):
    root = apt_tree(tmp_path, {
        "sources.list": "deb cdrom:[Debian]/ bookworm main\ndeb file:/srv/repo bookworm main\n",
        "sources.list.d/a-off.sources": "Types: deb\nURIs: http://off.invalid/debian\nSuites: bookworm\nEnabled: no\n",
        "sources.list.d/b-other.sources": "Types: deb\nURIs: http://other.invalid/repo\nSuites: stable\n",
        "sources.list.d/c.sources": f"Types: deb\nURIs: {MAIN}\nSuites: bookworm\n",
        "sources.list.d/x.list.disabled": "deb http://ignored.invalid/debian bookworm main\n",
    })
    # no security entry: the archive layout's <main>-security
    assert image.host_mirrors({}, root) == (MAIN, MAIN + "-security")


def test_list_files_come_before_sources_files(tmp_path):
    root = apt_tree(tmp_path, {"sources.list.d/z.list": "deb http://first.invalid/debian bookworm main\n",
                               "sources.list.d/a.sources": f"Types: deb\nURIs: {MAIN}\nSuites: bookworm\n"})
    assert image.host_mirrors({}, root)[0] == "http://first.invalid/debian"


def test_environment_wins(tmp_path):
    root = apt_tree(tmp_path, {"sources.list.d/debian.sources": DEB822})
    env = {"IOTUNE_LAB_MIRROR": "http://env.invalid/debian/", "IOTUNE_LAB_SECURITY_MIRROR": "http://env.invalid/sec"}
    assert image.host_mirrors(env, root) == ("http://env.invalid/debian", "http://env.invalid/sec")
    assert image.host_mirrors({"IOTUNE_LAB_MIRROR": "http://env.invalid/debian"}, root) == \
        ("http://env.invalid/debian", SEC)


def test_no_mirror_anywhere_is_an_error_not_a_built_in_host(tmp_path):
    root = apt_tree(tmp_path, {"sources.list": "deb http://other.invalid/debian trixie main\n"})
    with pytest.raises(LabError, match="--mirror"):
        image.host_mirrors({}, root, host_suite="bookworm")


def test_another_release_comes_from_the_mirror_of_the_hosts_release(tmp_path):
    root = apt_tree(tmp_path, {"sources.list.d/debian.sources": DEB822})
    assert image.host_mirrors({}, root, suite="trixie", host_suite="bookworm") == (MAIN, SEC)
    # without the host's release to fall back on, nothing in these sources serves trixie
    with pytest.raises(LabError, match="no Debian mirror for trixie"):
        image.host_mirrors({}, root, suite="trixie", host_suite="")


def test_the_releases_own_entries_win_over_the_hosts(tmp_path):
    root = apt_tree(tmp_path, {"sources.list.d/debian.sources": DEB822 + (
        "\nTypes: deb\nURIs: http://t.invalid/debian\nSuites: trixie\n\n"
        "Types: deb\nURIs: http://t.invalid/sec\nSuites: trixie-security\n")})
    assert image.host_mirrors({}, root, suite="trixie", host_suite="bookworm") == \
        ("http://t.invalid/debian", "http://t.invalid/sec")


def test_host_codename(tmp_path):
    f = tmp_path / "os-release"
    f.write_text('PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nVERSION_CODENAME=trixie\n')
    assert image.host_codename(f) == "trixie"
    assert image.host_codename(tmp_path / "missing") is None


def test_image_variant_from_arguments_environment_or_default():
    assert image.image_variant({}) == ("bookworm", "initramfs-tools")
    env = {"IOTUNE_LAB_RELEASE": "trixie", "IOTUNE_LAB_INITRAMFS": "dracut"}
    assert image.image_variant(env) == ("trixie", "dracut")
    assert image.image_variant(env, release="bookworm") == ("bookworm", "dracut")
    with pytest.raises(LabError, match="release must be one of"):
        image.image_variant({"IOTUNE_LAB_RELEASE": "sid"})
    with pytest.raises(LabError, match="initramfs must be one of"):
        image.image_variant({}, initramfs="mkinitcpio")


def test_no_mirror_host_in_the_lab_code():
    for f in sorted(common.PACKAGE.glob("*.py")):
        text = f.read_text()
        assert "debian.org" not in text, f
        assert "ubuntu.com" not in text, f


@pytest.fixture
def image_files(tmp_path, monkeypatch):
    copy = tmp_path / "lab_image"
    shutil.copytree(common.TOOLS / "lab_image", copy)
    monkeypatch.setattr(common, "IMAGE_FILES", copy)
    return copy


def test_recipe_hash_is_stable_and_short(image_files):
    h = image.recipe_hash(MAIN, SEC)
    assert h == image.recipe_hash(MAIN, SEC)
    assert len(h) == 12 and int(h, 16) >= 0


def test_recipe_hash_follows_the_mirrors(image_files):
    h = image.recipe_hash(MAIN, SEC)
    assert image.recipe_hash(MAIN + "2", SEC) != h
    assert image.recipe_hash(MAIN, SEC + "2") != h


def test_recipe_hash_follows_image_files_and_their_mode(image_files):
    h = image.recipe_hash(MAIN, SEC)
    f = image_files / "rootfs" / "etc" / "hostname"
    f.write_text(f.read_text() + "x\n")
    h2 = image.recipe_hash(MAIN, SEC)
    assert h2 != h
    f.chmod(0o600)
    assert image.recipe_hash(MAIN, SEC) != h2


def test_each_release_and_generator_is_its_own_image(image_files):
    hashes = {image.recipe_hash(MAIN, SEC, r, i) for r in image.RELEASES for i in image.INITRAMFS}
    assert len(hashes) == len(image.RELEASES) * len(image.INITRAMFS)
    # the default stays the bookworm + initramfs-tools image it always was
    assert image.recipe_hash(MAIN, SEC) == image.recipe_hash(MAIN, SEC, "bookworm", "initramfs-tools")


def test_dracut_files_count_only_for_the_dracut_image(image_files):
    before = {i: image.recipe_hash(MAIN, SEC, "trixie", i) for i in image.INITRAMFS}
    f = image_files / "dracut" / "etc" / "dracut.conf.d" / "iotune-lab.conf"
    f.write_text(f.read_text() + "# changed\n")
    assert image.recipe_hash(MAIN, SEC, "trixie", "initramfs-tools") == before["initramfs-tools"]
    assert image.recipe_hash(MAIN, SEC, "trixie", "dracut") != before["dracut"]


def test_dracut_image_gets_dracut_instead_of_initramfs_tools(image_files, tmp_path):
    assert "initramfs-tools" in image.base_packages("initramfs-tools")
    assert "initramfs-tools" not in image.base_packages("dracut")
    assert image.kernel_packages("dracut")[0] == "dracut"
    assert "dracut" not in image.kernel_packages("initramfs-tools")
    for variant, has_dracut_conf, has_itools_conf in (("dracut", True, False), ("initramfs-tools", False, True)):
        root = tmp_path / variant
        image.copy_overlays(root, variant)
        assert (root / "etc/dracut.conf.d/iotune-lab.conf").is_file() == has_dracut_conf
        assert (root / "etc/initramfs-tools").exists() == has_itools_conf
        assert (root / "usr/local/sbin/iotune-lab-seed").is_file()
    conf = (tmp_path / "dracut" / "etc/dracut.conf.d/iotune-lab.conf").read_text()
    assert 'mdadmconf="yes"' in conf and 'hostonly="no"' in conf


def test_recipe_hash_follows_the_recipe(image_files, monkeypatch):
    h = image.recipe_hash(MAIN, SEC)
    monkeypatch.setattr(image, "BASE_PACKAGES", image.BASE_PACKAGES + ["less"])
    assert image.recipe_hash(MAIN, SEC) != h


UUID = "0b5ad0d3-0000-4000-8000-000000000001"


def test_grub_cfg_boots_the_guests_own_files_by_uuid_on_the_serial_console():
    cfg = image.grub_cfg(UUID)
    lines = [ln for ln in cfg.splitlines() if ln and not ln.startswith("#")]
    assert lines[0] == "set timeout=0"
    assert f"--fs-uuid --set=root {UUID}" in lines[1]
    assert lines[2].startswith("linux /vmlinuz root=UUID=" + UUID + " ro ")
    assert "console=ttyS0" in lines[2].split()
    assert lines[3:] == ["initrd /initrd.img", "boot"]
    assert image.grub_early_cfg(UUID).splitlines() == [
        f"search --no-floppy --fs-uuid --set=root {UUID}", "set prefix=($root)/boot/grub"]


def test_mbr_sector():
    code = bytes(range(256)) * 2
    mbr = image.mbr_sector(code, 2048, 8388608)
    assert len(mbr) == 512
    assert mbr[:440] == code[:440]
    assert mbr[440:446] == bytes(6)                       # disk signature, untouched
    entry = mbr[446:462]
    assert entry[0] == 0x80 and entry[4] == 0x83           # active, Linux
    assert int.from_bytes(entry[8:12], "little") == 2048
    assert int.from_bytes(entry[12:16], "little") == 8388608
    assert mbr[462:510] == bytes(48)                       # one partition only
    assert mbr[510:] == b"\x55\xaa"
    with pytest.raises(LabError):
        image.mbr_sector(b"short", 2048, 1)


def test_root_disk_layout(tmp_path, monkeypatch):
    """write_root_disk without mkfs: MBR in sector 0, core.img from sector 1, fs at 1 MiB."""
    calls = []
    monkeypatch.setattr(image, "run", lambda argv, **kw: calls.append([str(a) for a in argv]))
    monkeypatch.setattr(image, "ROOTFS_SIZE", "8M")
    raw = tmp_path / "root.raw"
    image.write_root_disk(raw, tmp_path / "rootfs", UUID, b"\xeb" * 512, b"CORE" * 300)
    data = raw.read_bytes()
    assert len(data) == (1 << 20) + (8 << 20)
    assert data[:440] == b"\xeb" * 440 and data[510:512] == b"\x55\xaa"
    assert data[512:512 + 1200] == b"CORE" * 300
    argv = calls[0]
    assert argv[0] == "mkfs.ext4" and argv[-1] == "8192k"
    assert argv[argv.index("-U") + 1] == UUID and argv[argv.index("-E") + 1] == "offset=1048576"
    with pytest.raises(LabError, match="does not fit"):
        image.write_root_disk(raw, tmp_path / "rootfs", UUID, b"\xeb" * 512, b"x" * (2047 * 512 + 1))


def _try_flock(path, mode):
    """Whether another open file description can take ``mode`` on path now (what a second process would get)."""
    import fcntl
    import os
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def test_builds_of_two_recipes_share_the_build_lock_and_prune_excludes_them(tmp_path):
    """ensure_image takes the common lock shared and its recipe's own lock exclusive: two images build side by
    side, the same image once, and prune (the common lock exclusive) never runs beside a build."""
    import fcntl
    common_lock = tmp_path / ".build.lock"
    with common.FileLock(common_lock, shared=True), common.FileLock(tmp_path / ".build-aaaa.lock"):
        assert _try_flock(common_lock, fcntl.LOCK_SH)                   # another recipe's build goes on
        assert not _try_flock(common_lock, fcntl.LOCK_EX)               # prune waits
        assert not _try_flock(tmp_path / ".build-aaaa.lock", fcntl.LOCK_EX)   # the same recipe waits
        assert _try_flock(tmp_path / ".build-bbbb.lock", fcntl.LOCK_EX)
    assert _try_flock(common_lock, fcntl.LOCK_EX)
