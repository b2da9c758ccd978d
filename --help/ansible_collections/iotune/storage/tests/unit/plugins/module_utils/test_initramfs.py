# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""initramfs module utils against tool output captured in the lab (Debian 12 initramfs-tools, Debian 13
dracut) and reconstructed for EL 9 (fixtures/initramfs/el9-*: shaped after upstream dracut 057, not
captured; each fixture's header says which)."""

from __future__ import annotations

import os
import stat

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
    assert initramfs.unmkinitramfs_argv('/boot/i', '/tmp/x') == ['unmkinitramfs', '/boot/i', '/tmp/x']
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


@pytest.fixture
def bookworm(tmp_path):
    boot, sbin, bin_ = tmp_path / 'boot', tmp_path / 'usr' / 'sbin', tmp_path / 'usr' / 'bin'
    touch(str(boot / ('vmlinuz-' + BW_KERNEL)))
    touch(str(boot / ('initrd.img-' + BW_KERNEL)))
    executable(str(sbin / 'update-initramfs'))
    executable(str(bin_ / 'unmkinitramfs'))
    return dict(boot_dir=str(boot), bin_dirs=(str(sbin), str(bin_)), tmp_dir=str(tmp_path))


def unpacker(layout):
    """unmkinitramfs double: writes the captured mdadm.conf at each of ``layout`` below DEST (argv[2])."""
    def unpack(argv):
        for prefix, text in layout:
            touch(os.path.join(argv[2], prefix, 'etc', 'mdadm', 'mdadm.conf'), text)
        touch(os.path.join(argv[2], layout[0][0] if layout else '', 'init'), '#!/bin/sh\n')
        return 0, '', ''
    return unpack


def test_bookworm_next_initramfs(bookworm):
    run = FakeRun({'unmkinitramfs': unpacker([('', fixture('bookworm-initramfs-mdadm.conf'))])})
    result = initramfs.array_lines_in_next_initramfs(run, **bookworm)
    image = os.path.join(bookworm['boot_dir'], 'initrd.img-' + BW_KERNEL)
    assert result == dict(image=image, generator='initramfs-tools', kernel=BW_KERNEL,
                          conf_path='etc/mdadm/mdadm.conf',
                          array_lines=['ARRAY /dev/md/data metadata=1.2 UUID=%s name=any:data' % BW_UUID], error=None)
    [argv] = run.calls
    assert argv[:2] == [os.path.join(bookworm['bin_dirs'][1], 'unmkinitramfs'), image]
    # the temporary tree is gone
    assert not os.path.exists(argv[2]) and os.path.dirname(argv[2]) == bookworm['tmp_dir']


def test_bookworm_early_and_main_segments_main_wins(bookworm):
    # with a microcode segment unmkinitramfs writes early/ and main/; only main/ is the booted system
    run = FakeRun({'unmkinitramfs': unpacker([('main', fixture('bookworm-initramfs-mdadm.conf')),
                                              ('early', 'ARRAY /dev/md/other UUID=%s\n' % DATA_UUID)])})
    result = initramfs.array_lines_in_next_initramfs(run, **bookworm)
    assert result['conf_path'] == 'etc/mdadm/mdadm.conf' and BW_UUID in result['array_lines'][0]
    assert len(result['array_lines']) == 1


def test_bookworm_initramfs_without_mdadm_conf(bookworm):
    run = FakeRun({'unmkinitramfs': unpacker([])})
    result = initramfs.array_lines_in_next_initramfs(run, **bookworm)
    assert result['conf_path'] is None and result['array_lines'] == [] and result['error'] is None
    failing = FakeRun({'unmkinitramfs': (2, '', 'unmkinitramfs: cpio failed')})
    result = initramfs.array_lines_in_next_initramfs(failing, **bookworm)
    assert 'cpio failed' in result['error'] and result['array_lines'] == []
    assert not os.path.exists(failing.calls[0][2])


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
