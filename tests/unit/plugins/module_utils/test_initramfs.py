# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""initramfs module utils against tool output captured in the lab (Debian 12 initramfs-tools, Debian 13
dracut) and reconstructed for EL 9 (fixtures/initramfs/el9-*: shaped after upstream dracut 057, not
captured; each fixture's header says which)."""

from __future__ import annotations

import gzip
import os
import shutil
import stat
import subprocess

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import initramfs
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import fixture as raw_fixture

EL9_KERNEL = '5.14.0-427.13.1.el9_4.x86_64'
BW_KERNEL = '6.1.0-56-amd64'
BW_UUID = 'bae2f56e:d4cbf959:6a4d256b:c56a1952'
TX_KERNEL = '6.12.117+deb13-amd64'
TX_UUID = '014aab66:74b090fe:3795b91e:e005ca33'
DATA_UUID = '223bf324:4839b32a:611abc08:26fcd6e8'


def fixture(name):
    """A fixture of fixtures/initramfs without its '## ' header (where and how it was captured)."""
    text = raw_fixture('initramfs', name)
    lines = text.splitlines(True)
    while lines and lines[0].startswith('## '):
        lines.pop(0)
    return ''.join(lines)


def executable(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write('#!/bin/sh\nexit 99\n')
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def touch(path, content=''):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(content)
    return path


class FakeRun:
    """run_command double: answers by tool name (basename of argv[0]), records every argv."""

    def __init__(self, answers):
        self.answers = answers
        self.calls = []

    def __call__(self, argv):
        self.calls.append(list(argv))
        answer = self.answers[os.path.basename(argv[0])]
        return answer(argv) if callable(answer) else answer


# --- mdadm.conf -------------------------------------------------------------------------------

def test_array_lines_of_the_el9_layout():
    lines = initramfs.parse_array_lines(fixture('el9-mdadm.conf'))
    assert lines == [
        'ARRAY /dev/md/boot level=raid1 num-devices=2 UUID=5b0a7c1e:0f3a4d2b:9c8e7f60:1a2b3c4d',
        'ARRAY /dev/md/root level=raid1 num-devices=2 UUID=6c1b8d2f:1a4b5e3c:0d9f8a71:2b3c4d5e',
        'ARRAY /dev/md/data metadata=1.2 UUID=%s name=any:data' % DATA_UUID,
    ]
    parsed = initramfs.parse_array_line(lines[2])
    assert parsed['device'] == '/dev/md/data' and parsed['uuid'] == DATA_UUID
    assert parsed['name'] == 'any:data' and parsed['metadata'] == '1.2'
    # MAILADDR, AUTO and comments are not ARRAY lines
    assert not [ln for ln in lines if 'AUTO' in ln or '#' in ln]


def test_array_lines_keyword_case_comments_and_continuations():
    text = ('# ARRAY /dev/md/old UUID=aaaaaaaa:bbbbbbbb:cccccccc:dddddddd\n'
            'DEVICE partitions\n'
            'array /dev/md/x\n'
            '\tuuid=11111111-2222-3333-4444-555555555555 # dashed\n'
            'ARRAYS are not a keyword\n'
            '  \n')
    lines = initramfs.parse_array_lines(text)
    assert lines == ['array /dev/md/x uuid=11111111-2222-3333-4444-555555555555']
    assert initramfs.parse_array_line(lines[0])['uuid'] == '11111111:22223333:44445555:55555555'
    assert initramfs.parse_array_lines('') == [] and initramfs.parse_array_lines(None) == []


# --- dracut: lsinitrd and --print-cmdline ------------------------------------------------------

def test_lsinitrd_listing_el9():
    listing = initramfs.parse_lsinitrd(fixture('el9-lsinitrd.txt'))
    assert listing['image'] == '/boot/initramfs-%s.img' % EL9_KERNEL
    assert listing['version'] == 'dracut-057-53.git20240104.el9'
    assert 'mdraid' in listing['modules'] and 'base' in listing['modules']
    assert 'etc/mdadm.conf' in listing['files']
    assert 'etc/mdadm/mdadm.conf' not in listing['files']
    # the early (microcode) CPIO is listed apart; symlinks by their own name; device nodes parsed
    assert listing['early_files'][-1] == 'kernel/x86/microcode/GenuineIntel.bin'
    assert 'kernel/x86/microcode/GenuineIntel.bin' not in listing['files']
    assert 'bin' in listing['files'] and 'bin -> usr/bin' not in listing['files']
    assert 'dev/console' in listing['files'] and '.' not in listing['files']
    assert 'mdraid' not in listing['files'] and not [f for f in listing['files'] if f.startswith('=')]


def test_print_cmdline_el9_names_the_root_arrays_only():
    parsed = initramfs.parse_print_cmdline(fixture('el9-print-cmdline.txt'))
    assert parsed['md_uuids'] == ['6c1b8d2f:1a4b5e3c:0d9f8a71:2b3c4d5e', '5b0a7c1e:0f3a4d2b:9c8e7f60:1a2b3c4d']
    assert DATA_UUID not in parsed['md_uuids'] and parsed['md_auto'] is False
    assert 'rootfstype=xfs' in parsed['args']


def test_print_cmdline_forms():
    parsed = initramfs.parse_print_cmdline(' rd.md.uuid=223bf324-4839-b32a-611a-bc0826fcd6e8  rd.auto=1\n')
    assert parsed['md_uuids'] == [DATA_UUID] and parsed['md_auto'] is True
    assert initramfs.parse_print_cmdline('\n') == dict(args=[], md_uuids=[], md_auto=False)


# --- kernels, images, generators ---------------------------------------------------------------

def test_next_kernel_is_the_newest_by_version_order(tmp_path):
    boot = tmp_path / 'boot'
    for ver in ('6.1.0-9-amd64', '6.1.0-28-amd64', '6.1.0-41-amd64', '0-rescue-0123456789abcdef'):
        touch(str(boot / ('vmlinuz-' + ver)))
    touch(str(boot / 'vmlinuz.old'))
    assert initramfs.installed_kernels(str(boot)) == ['6.1.0-9-amd64', '6.1.0-28-amd64', '6.1.0-41-amd64']
    assert initramfs.next_kernel(str(boot)) == '6.1.0-41-amd64'
    # EL: a later update has the larger release number, not the larger text
    el = ['5.14.0-70.13.1.el9_0.x86_64', EL9_KERNEL, '5.14.0-362.8.1.el9_3.x86_64']
    assert sorted(el, key=initramfs.version_key)[-1] == EL9_KERNEL
    assert sorted([TX_KERNEL, '6.12.57+deb13-amd64', '6.1.0-41-amd64'], key=initramfs.version_key)[-1] == TX_KERNEL
    assert initramfs.next_kernel(str(tmp_path / 'nowhere')) is None


def test_image_path_debian_name_first_then_dracuts(tmp_path):
    boot = str(tmp_path)
    assert initramfs.image_path(EL9_KERNEL, boot) is None
    el = touch(os.path.join(boot, 'initramfs-%s.img' % EL9_KERNEL))
    assert initramfs.image_path(EL9_KERNEL, boot) == el
    deb = touch(os.path.join(boot, 'initrd.img-%s' % EL9_KERNEL))
    assert initramfs.image_path(EL9_KERNEL, boot) == deb


def test_installed_generator_prefers_update_initramfs(tmp_path):
    sbin, bin_ = str(tmp_path / 'sbin'), str(tmp_path / 'bin')
    dirs = (sbin, bin_)
    assert initramfs.installed_generator(dirs) is None
    executable(os.path.join(bin_, 'dracut'))
    touch(os.path.join(sbin, 'update-initramfs'))       # not executable: not installed
    assert initramfs.installed_generator(dirs) == 'dracut'
    executable(os.path.join(sbin, 'update-initramfs'))
    assert initramfs.installed_generator(dirs) == 'initramfs-tools'


def test_argv_are_lists():
    argv = initramfs.lsinitrd_file_argv('/boot/i.img', 'etc/mdadm.conf')
    assert argv == ['lsinitrd', '-f', 'etc/mdadm.conf', '/boot/i.img']
    assert initramfs.lsinitrd_list_argv('/boot/i.img') == ['lsinitrd', '/boot/i.img']
    assert initramfs.lsinitramfs_argv('/boot/i') == ['lsinitramfs', '/boot/i']
    assert initramfs.print_cmdline_argv() == ['dracut', '--print-cmdline']


# --- array_lines_in_next_initramfs ---------------------------------------------------------------

@pytest.fixture
def el9(tmp_path):
    """An EL 9 host: dracut and lsinitrd installed, one older and one newer kernel with their images."""
    boot, sbin = tmp_path / 'boot', tmp_path / 'usr' / 'sbin'
    for ver in ('5.14.0-362.8.1.el9_3.x86_64', EL9_KERNEL):
        touch(str(boot / ('vmlinuz-' + ver)))
        touch(str(boot / ('initramfs-%s.img' % ver)))
    touch(str(boot / 'vmlinuz-0-rescue-0123456789abcdef'))
    touch(str(boot / 'initramfs-0-rescue-0123456789abcdef.img'))
    for tool in ('dracut', 'lsinitrd'):
        executable(str(sbin / tool))
    return dict(boot_dir=str(boot), bin_dirs=(str(sbin),))


def test_el9_next_initramfs(el9):
    image = os.path.join(el9['boot_dir'], 'initramfs-%s.img' % EL9_KERNEL)
    run = FakeRun({'lsinitrd': lambda argv: (0, fixture('el9-mdadm.conf') if '-f' in argv
                                             else fixture('el9-lsinitrd.txt'), '')})
    result = initramfs.array_lines_in_next_initramfs(run, **el9)
    assert result == dict(image=image, generator='dracut', kernel=EL9_KERNEL, conf_path='etc/mdadm.conf',
                          array_lines=initramfs.parse_array_lines(fixture('el9-mdadm.conf')), error=None)
    lsinitrd = os.path.join(el9['bin_dirs'][0], 'lsinitrd')
    # the file printed at once: no listing (several passes over the image)
    assert run.calls == [[lsinitrd, '-f', 'etc/mdadm.conf', image]]


def test_el9_image_without_mdadm_conf_has_no_lines_and_no_error(el9):
    listing = fixture('el9-lsinitrd.txt').replace(' etc/mdadm.conf\n', ' etc/mdadm.conf.bak\n')
    run = FakeRun({'lsinitrd': lambda argv: (0, '' if '-f' in argv else listing, '')})
    result = initramfs.array_lines_in_next_initramfs(run, **el9)
    assert result['conf_path'] is None and result['array_lines'] == [] and result['error'] is None
    # both paths printed nothing, then the listing said neither is there
    assert [c[1:3] for c in run.calls] == [['-f', 'etc/mdadm.conf'], ['-f', 'etc/mdadm/mdadm.conf'],
                                           [run.calls[-1][1]]]


def test_el9_image_with_an_empty_mdadm_conf_is_told_from_none(el9):
    run = FakeRun({'lsinitrd': lambda argv: (0, '' if '-f' in argv else fixture('el9-lsinitrd.txt'), '')})
    result = initramfs.array_lines_in_next_initramfs(run, **el9)
    assert result['conf_path'] == 'etc/mdadm.conf' and result['array_lines'] == [] and result['error'] is None


def test_el9_other_kernel_and_tool_failure(el9):
    run = FakeRun({'lsinitrd': (1, '', 'cpio: premature end of archive')})
    result = initramfs.array_lines_in_next_initramfs(run, kernel='5.14.0-362.8.1.el9_3.x86_64', **el9)
    assert result['image'].endswith('/initramfs-5.14.0-362.8.1.el9_3.x86_64.img')
    assert result['array_lines'] == [] and 'premature end of archive' in result['error']
    assert 'rc=1' in result['error']


def test_errors_name_what_is_missing(tmp_path, el9):
    run = FakeRun({})
    result = initramfs.array_lines_in_next_initramfs(run, boot_dir=el9['boot_dir'], bin_dirs=(str(tmp_path / 'x'),))
    assert result['generator'] is None and 'neither update-initramfs nor dracut' in result['error']
    result = initramfs.array_lines_in_next_initramfs(run, kernel='9.9.9', **el9)
    assert result['image'] is None
    assert 'initrd.img-9.9.9' in result['error'] and 'initramfs-9.9.9.img' in result['error']
    result = initramfs.array_lines_in_next_initramfs(run, boot_dir=str(tmp_path / 'empty'),
                                                     bin_dirs=el9['bin_dirs'])
    assert result['kernel'] is None and 'no kernel' in result['error']
    os.remove(os.path.join(el9['bin_dirs'][0], 'lsinitrd'))
    result = initramfs.array_lines_in_next_initramfs(run, **el9)
    assert 'lsinitrd is needed' in result['error']
    assert run.calls == []
    with pytest.raises(ValueError):
        initramfs.array_lines_in_next_initramfs(run, generator='mkinitcpio', **el9)


def test_host_conf_path(tmp_path):
    assert initramfs.host_conf_path(str(tmp_path)) is None
    touch(str(tmp_path / 'etc' / 'mdadm.conf'))
    assert initramfs.host_conf_path(str(tmp_path)) == '/etc/mdadm.conf'
    touch(str(tmp_path / 'etc' / 'mdadm' / 'mdadm.conf'))
    assert initramfs.host_conf_path(str(tmp_path)) == '/etc/mdadm/mdadm.conf'


# --- Debian 12, initramfs-tools (captured) -----------------------------------------------------------

def test_lsinitramfs_bookworm():
    paths = initramfs.parse_lsinitramfs(fixture('bookworm-lsinitramfs.txt'))
    assert len(paths) == 473 and '.' not in paths
    assert 'etc/mdadm/mdadm.conf' in paths and 'usr/sbin/mdadm' in paths
    assert 'etc/mdadm.conf' not in paths


def test_array_lines_bookworm_initramfs():
    lines = initramfs.parse_array_lines(fixture('bookworm-initramfs-mdadm.conf'))
    assert lines == ['ARRAY /dev/md/data metadata=1.2 UUID=%s name=any:data' % BW_UUID]


# initramfs images as the kernel reads them: newc cpio archives, uncompressed first, then a compressed one. Written
# here after the format's definition (the kernel's buffer-format.rst, cpio(5)), not with the reader under test.

def newc(members, magic=b'070701', block=4):
    """A newc archive of ``members`` ((name, bytes, mode) each), its trailer, NUL padding to ``block`` bytes."""
    out = bytearray()
    for ino, (name, data, mode) in enumerate(list(members) + [('TRAILER!!!', b'', 0)], 1):
        raw_name = name.encode() + b'\0'
        fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(raw_name), 0)
        out += magic + b''.join(b'%08X' % value for value in fields) + raw_name
        out += b'\0' * (-len(out) % 4)
        out += data
        out += b'\0' * (-len(out) % 4)
    out += b'\0' * (-len(out) % block)
    return bytes(out)


def regular(name, data):
    return (name, data.encode() if isinstance(data, str) else data, 0o100644)


def directory(name):
    return (name, b'', 0o040755)


def filler(count=40, size=5000):
    """Members that are not mdadm.conf: odd name lengths and sizes, so that every padding case occurs."""
    return [regular('usr/lib/modules/m%d%s.ko' % (i, 'x' * (i % 4)), bytes([i % 251]) * (size + i)) for i in range(count)]


def gzip_compress(data):
    return gzip.compress(data, mtime=0)


GZIP = shutil.which('gzip')
ZSTD = shutil.which('zstd')


@pytest.fixture
def bookworm(tmp_path):
    """A Debian 12 host: update-initramfs, its kernel, and the tools the image's compression needs."""
    boot, sbin = tmp_path / 'boot', tmp_path / 'usr' / 'sbin'
    touch(str(boot / ('vmlinuz-' + BW_KERNEL)))
    executable(str(sbin / 'update-initramfs'))
    tools = tmp_path / 'tools'
    tools.mkdir()
    for tool in (GZIP, ZSTD):
        if tool:
            os.symlink(tool, str(tools / os.path.basename(tool)))
    image = str(boot / ('initrd.img-' + BW_KERNEL))

    def write(data):
        with open(image, 'wb') as f:
            f.write(data)
        return image
    return dict(where=dict(boot_dir=str(boot), bin_dirs=(str(sbin), str(tools))), image=image, write=write,
                tools=tools)


NO_RUN = FakeRun({})     # an initramfs-tools image is read without running a command: any call fails the test
BW_LINE = 'ARRAY /dev/md/data metadata=1.2 UUID=%s name=any:data' % BW_UUID


@pytest.mark.skipif(not ZSTD, reason='zstd is not installed')
def test_bookworm_next_initramfs_zstd(bookworm):
    """Debian 12's default (COMPRESS=zstd), the file among others; nothing unpacked, no command run."""
    members = [directory('.'), directory('etc'), directory('etc/mdadm')] + filler() + \
        [regular('etc/mdadm/mdadm.conf', fixture('bookworm-initramfs-mdadm.conf'))] + filler(7, 333)
    archive = newc(members)
    proc = subprocess.run([ZSTD, '-q', '-c'], input=archive, stdout=subprocess.PIPE, check=True)
    image = bookworm['write'](proc.stdout)
    run = FakeRun({})
    result = initramfs.array_lines_in_next_initramfs(run, **bookworm['where'])
    assert result == dict(image=image, generator='initramfs-tools', kernel=BW_KERNEL,
                          conf_path='etc/mdadm/mdadm.conf', array_lines=[BW_LINE], error=None)
    assert run.calls == []


def test_read_image_files_gzip_070702_and_dot_slash_names(bookworm):
    body = newc([regular('./etc/mdadm/mdadm.conf', 'ARRAY /dev/md/x UUID=%s\n' % DATA_UUID),
                 regular('./init', '#!/bin/sh\n')] + filler(5), magic=b'070702')
    image = bookworm['write'](gzip_compress(body))
    found = initramfs.read_image_files(image, ['etc/mdadm/mdadm.conf', 'init'], bookworm['where']['bin_dirs'])
    assert found == {'etc/mdadm/mdadm.conf': ('ARRAY /dev/md/x UUID=%s\n' % DATA_UUID).encode(),
                     'init': b'#!/bin/sh\n'}


def test_bookworm_early_and_main_archives_main_wins(bookworm):
    """A microcode archive first (uncompressed, padded to cpio's 512-byte blocks), then the main one: the later copy
    is what the boot leaves in place."""
    early = newc([regular('kernel/x86/microcode/GenuineIntel.bin', b'\x01' * 1000),
                  regular('etc/mdadm/mdadm.conf', 'ARRAY /dev/md/other UUID=%s\n' % DATA_UUID)], block=512)
    main = gzip_compress(newc(filler(3) + [regular('etc/mdadm/mdadm.conf', fixture('bookworm-initramfs-mdadm.conf'))]))
    bookworm['write'](early + main)
    result = initramfs.array_lines_in_next_initramfs(NO_RUN, **bookworm['where'])
    assert result['error'] is None and result['array_lines'] == [BW_LINE]
    # the early copy counts when the main archive has none
    bookworm['write'](early + gzip_compress(newc(filler(3))))
    result = initramfs.array_lines_in_next_initramfs(NO_RUN, **bookworm['where'])
    assert result['error'] is None and result['array_lines'] == ['ARRAY /dev/md/other UUID=%s' % DATA_UUID]


def test_bookworm_uncompressed_archives_only(bookworm):
    bookworm['write'](newc(filler(2), block=512) + newc([regular('etc/mdadm/mdadm.conf', BW_LINE + '\n')]))
    result = initramfs.array_lines_in_next_initramfs(NO_RUN, **bookworm['where'])
    assert result['error'] is None and result['array_lines'] == [BW_LINE]


def test_bookworm_initramfs_without_or_with_an_empty_mdadm_conf(bookworm):
    bookworm['write'](gzip_compress(newc(filler(4) + [directory('etc/mdadm/mdadm.conf')])))
    result = initramfs.array_lines_in_next_initramfs(NO_RUN, **bookworm['where'])
    assert result['conf_path'] is None and result['array_lines'] == [] and result['error'] is None
    bookworm['write'](gzip_compress(newc(filler(4) + [regular('etc/mdadm/mdadm.conf', '')])))
    result = initramfs.array_lines_in_next_initramfs(NO_RUN, **bookworm['where'])
    assert result['conf_path'] == 'etc/mdadm/mdadm.conf' and result['array_lines'] == [] and result['error'] is None


def test_the_read_stops_at_the_wanted_file(bookworm):
    """What follows the file in the compressed archive is not read: garbage there changes nothing (control: the same
    garbage before the file is an error)."""
    conf = newc([regular('etc/mdadm/mdadm.conf', BW_LINE + '\n')])[:-124]      # cut before the trailer
    garbage = b'this is not a cpio header at all' * 40
    bookworm['write'](gzip_compress(newc(filler(2))[:-124] + conf + garbage))
    result = initramfs.array_lines_in_next_initramfs(NO_RUN, **bookworm['where'])
    assert result['error'] is None and result['array_lines'] == [BW_LINE]
    bookworm['write'](gzip_compress(newc(filler(2))[:-124] + garbage + conf))
    result = initramfs.array_lines_in_next_initramfs(NO_RUN, **bookworm['where'])
    assert 'no cpio header' in result['error'] and result['array_lines'] == []


def test_errors_of_an_image_that_cannot_be_read(bookworm):
    where = bookworm['where']
    # truncated inside a member
    bookworm['write'](gzip_compress(newc(filler(3) + [regular('etc/mdadm/mdadm.conf', BW_LINE)])[:9000]))
    assert 'ends inside' in initramfs.array_lines_in_next_initramfs(NO_RUN, **where)['error']
    # neither cpio nor a known compression
    bookworm['write'](b'\x7fELF' + b'\0' * 100)
    assert 'neither a cpio archive nor a compressed one' in initramfs.array_lines_in_next_initramfs(NO_RUN, **where)['error']
    # the decompressor is not installed: named
    bookworm['write'](b'\xfd7zXZ\x00' + b'\1' * 100)
    error = initramfs.array_lines_in_next_initramfs(NO_RUN, **where)['error']
    assert error.startswith('the image is xz-compressed and xz is not in ') and where['bin_dirs'][1] in error
    # the decompressor fails after a complete archive without the file: its status and message are the error
    failing = bookworm['tools'] / 'gzip'
    failing.unlink()
    with open(str(failing), 'w') as f:
        f.write('#!/bin/sh\n%s "$@"\necho "gzip: crc error" >&2\nexit 1\n' % GZIP)
    os.chmod(str(failing), 0o755)
    bookworm['write'](gzip_compress(newc(filler(2))))
    error = initramfs.array_lines_in_next_initramfs(NO_RUN, **where)['error']
    assert 'failed (rc=1): gzip: crc error' in error


# --- Debian 13, dracut (captured) --------------------------------------------------------------------

def test_lsinitrd_listing_trixie():
    listing = initramfs.parse_lsinitrd(fixture('trixie-lsinitrd.txt'))
    assert listing['image'] == '/boot/initrd.img-' + TX_KERNEL
    assert listing['version'] == 'dracut-106-6' and listing['arguments'] == '-q --force'
    assert 'mdraid' in listing['modules'] and 'rootfs-block' in listing['modules']
    # no microcode in the lab image: no early CPIO
    assert listing['early_files'] == []
    # dracut installs Debian's /etc/mdadm/mdadm.conf as etc/mdadm.conf
    assert 'etc/mdadm.conf' in listing['files'] and 'etc/mdadm/mdadm.conf' not in listing['files']
    assert 'usr/sbin/mdadm' in listing['files']
    assert 'mdraid' not in listing['files'] and not [f for f in listing['files'] if ' ' in f or f.startswith('=')]
    # every line after the modules is one file (the listing has no other line kinds)
    text = fixture('trixie-lsinitrd.txt')
    listed = text.split('=' * 72 + '\n')[-2]
    assert len(listing['files']) == len(listed.splitlines()) - 1      # minus "."


def test_print_cmdline_trixie_has_no_md():
    parsed = initramfs.parse_print_cmdline(fixture('trixie-print-cmdline.txt'))
    assert parsed['md_uuids'] == [] and parsed['md_auto'] is False
    assert parsed['args'][0] == 'root=UUID=8c17d55d-1cb4-43fa-bfcc-43ecf1175da4'


@pytest.fixture
def trixie(tmp_path):
    boot, sbin, bin_ = tmp_path / 'boot', tmp_path / 'usr' / 'sbin', tmp_path / 'usr' / 'bin'
    touch(str(boot / ('vmlinuz-' + TX_KERNEL)))
    touch(str(boot / ('initrd.img-' + TX_KERNEL)))
    executable(str(bin_ / 'dracut'))
    executable(str(bin_ / 'lsinitrd'))
    os.makedirs(str(sbin))
    return dict(boot_dir=str(boot), bin_dirs=(str(sbin), str(bin_)))


def test_trixie_next_initramfs(trixie):
    run = FakeRun({'lsinitrd': lambda argv: (0, fixture('trixie-lsinitrd-mdadm.conf') if '-f' in argv
                                             else fixture('trixie-lsinitrd.txt'), '')})
    result = initramfs.array_lines_in_next_initramfs(run, **trixie)
    image = os.path.join(trixie['boot_dir'], 'initrd.img-' + TX_KERNEL)
    assert result == dict(image=image, generator='dracut', kernel=TX_KERNEL, conf_path='etc/mdadm.conf',
                          array_lines=['ARRAY /dev/md/data metadata=1.2 UUID=%s name=any:data' % TX_UUID],
                          error=None)
    lsinitrd = os.path.join(trixie['bin_dirs'][1], 'lsinitrd')
    assert run.calls == [[lsinitrd, '-f', 'etc/mdadm.conf', image]]


def test_trixie_image_with_only_the_debian_path(trixie):
    # a dracut image that carries etc/mdadm/mdadm.conf instead (not seen in the lab) is read there
    listing = fixture('trixie-lsinitrd.txt').replace(' etc/mdadm.conf\n', ' etc/mdadm/mdadm.conf\n')
    run = FakeRun({'lsinitrd': lambda argv: (0, fixture('trixie-lsinitrd-mdadm.conf')
                                             if argv[1:3] == ['-f', 'etc/mdadm/mdadm.conf']
                                             else '' if '-f' in argv else listing, '')})
    result = initramfs.array_lines_in_next_initramfs(run, **trixie)
    assert result['conf_path'] == 'etc/mdadm/mdadm.conf' and len(result['array_lines']) == 1
    assert run.calls[-1][2] == 'etc/mdadm/mdadm.conf'


def test_trixie_image_read_without_lsinitrd(trixie, tmp_path):
    """A dracut image as Debian 13 builds it (an early microcode archive with dracut's early_cpio marker, the main one
    compressed) is read in one pass here: lsinitrd is not run. The Debian path counts when etc/mdadm.conf is absent,
    and neither path is (None, None) without a listing."""
    tools = tmp_path / 'tools'
    tools.mkdir()
    os.symlink(GZIP, str(tools / 'gzip'))
    where = dict(trixie, bin_dirs=trixie['bin_dirs'] + (str(tools),))
    image = os.path.join(trixie['boot_dir'], 'initrd.img-' + TX_KERNEL)
    early = newc([regular('early_cpio', '1\n'), regular('kernel/x86/microcode/AuthenticAMD.bin', b'\2' * 700)],
                 block=512)

    def build(*members):
        with open(image, 'wb') as f:
            f.write(early + gzip_compress(newc(filler(6) + list(members))))
    build(regular('etc/mdadm.conf', fixture('trixie-lsinitrd-mdadm.conf')))
    result = initramfs.array_lines_in_next_initramfs(NO_RUN, **where)
    assert result == dict(image=image, generator='dracut', kernel=TX_KERNEL, conf_path='etc/mdadm.conf',
                          array_lines=['ARRAY /dev/md/data metadata=1.2 UUID=%s name=any:data' % TX_UUID],
                          error=None)
    build(regular('etc/mdadm/mdadm.conf', fixture('trixie-lsinitrd-mdadm.conf')))
    result = initramfs.array_lines_in_next_initramfs(NO_RUN, **where)
    assert result['conf_path'] == 'etc/mdadm/mdadm.conf' and len(result['array_lines']) == 1
    build()
    result = initramfs.array_lines_in_next_initramfs(NO_RUN, **where)
    assert result['conf_path'] is None and result['array_lines'] == [] and result['error'] is None


def test_trixie_image_with_a_squashfs_root_is_read_by_lsinitrd(trixie, tmp_path):
    """dracut's squash module hides the files in a squashfs inside the archive: lsinitrd reads those (control: the
    same image without it is read here, above)."""
    tools = tmp_path / 'tools'
    tools.mkdir()
    os.symlink(GZIP, str(tools / 'gzip'))
    where = dict(trixie, bin_dirs=trixie['bin_dirs'] + (str(tools),))
    image = os.path.join(trixie['boot_dir'], 'initrd.img-' + TX_KERNEL)
    with open(image, 'wb') as f:
        f.write(gzip_compress(newc(filler(3) + [regular('squash-root.img', b'hsqs' + b'\0' * 60)])))
    run = FakeRun({'lsinitrd': lambda argv: (0, fixture('trixie-lsinitrd-mdadm.conf') if '-f' in argv else '', '')})
    result = initramfs.array_lines_in_next_initramfs(run, **where)
    assert result['conf_path'] == 'etc/mdadm.conf' and len(result['array_lines']) == 1
    assert [argv[1:3] for argv in run.calls] == [['-f', 'etc/mdadm.conf']]


# dpkg's status file as Debian 12 writes it after `dpkg --configure --no-triggers mdadm xfsprogs` (the trigger pending
# in initramfs-tools), cut to three packages; a description line that names the field must not count
DPKG_STATUS = """\
Package: initramfs-tools
Status: install ok triggers-pending
Priority: optional
Architecture: all
Triggers-Pending: update-initramfs
Version: 0.142+deb12u1

Package: mdadm
Status: install ok installed
Version: 4.2-5
Description: Tool to administer Linux MD arrays (software RAID)
 Triggers-Pending: update-initramfs (a line of a description)

Package: man-db
Status: install ok triggers-pending
Triggers-Pending: /usr/share/man
Version: 2.11.2-2
"""


# the journal entry dpkg writes before it runs initramfs-tools' trigger (seen in a Debian 12 lab guest after the
# trigger's dpkg was killed 4 s into mkinitramfs): not merged into the status file yet
HALF_CONFIGURED = """\
Package: initramfs-tools
Status: install ok half-configured
Version: 0.142+deb12u3
"""
NO_TRIGGER = DPKG_STATUS.replace('Triggers-Pending: update-initramfs\n', '').replace(
    'Status: install ok triggers-pending\nPriority', 'Status: install ok installed\nPriority')


@pytest.mark.parametrize('status, unincorp, journal, pending', [
    (DPKG_STATUS, None, None, True),
    (NO_TRIGGER, None, None, False),                                           # man-db's trigger only
    (NO_TRIGGER, 'update-initramfs initramfs-tools\n', None, True),
    (NO_TRIGGER, 'ldconfig libc-bin\n', None, False),
    (NO_TRIGGER, None, HALF_CONFIGURED, True),                                 # a crash during the trigger
    (DPKG_STATUS, None, HALF_CONFIGURED.replace('half-configured', 'installed'), False),   # the trigger ran
    (NO_TRIGGER.replace('Package: mdadm\nStatus: install ok installed', 'Package: mdadm\nStatus: install ok unpacked'),
     None, None, False),                                                       # not a generator's package
    (None, None, None, False),                                                 # no dpkg
])
def test_dpkg_rebuild_pending(tmp_path, status, unincorp, journal, pending):
    if status is not None:
        (tmp_path / 'triggers').mkdir()
        (tmp_path / 'updates').mkdir()
        (tmp_path / 'status').write_text(status)
        if unincorp is not None:
            (tmp_path / 'triggers' / 'Unincorp').write_text(unincorp)
        if journal is not None:
            (tmp_path / 'updates' / '0000').write_text(journal)
            (tmp_path / 'updates' / 'tmp.i').write_text('Package: initramfs-tools\nStatus: install ok unpacked\n')
    assert initramfs.dpkg_rebuild_pending(str(tmp_path)) is pending


def test_dpkg_is_read_only_for_a_call_that_rebuilds(monkeypatch):
    reads = []
    monkeypatch.setattr(initramfs, 'dpkg_rebuild_pending', lambda: reads.append(1) or True)
    assert initramfs.dpkg_rebuild_pending_for({'conf_changed': False, 'rebuild_pending': False}) is False
    assert reads == []                                   # a call in sync: dpkg's status file is not read
    assert initramfs.dpkg_rebuild_pending_for({'conf_changed': True, 'rebuild_pending': False}) is True
    assert initramfs.dpkg_rebuild_pending_for({'conf_changed': False, 'rebuild_pending': True}) is True
    assert len(reads) == 2
