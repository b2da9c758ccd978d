# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What is in the initramfs that boots next: generator, kernel, image file and the ARRAY lines of its
mdadm.conf. Pure Python (3.8+), no Ansible imports: modules, module utils and tests call it with their
own ``run_command``; the image itself is read here (read_image_files: its decompressor is the only process
started, directly; lsinitrd only for a dracut image with a squashfs root or in a format it does not know).

Rules (docs/raid0.md, "Which initramfs boots next"):

- Generator: ``initramfs-tools`` when ``update-initramfs`` is installed, else ``dracut`` when ``dracut``
  is, else none; looked up in /usr/sbin, /usr/bin, /sbin, /bin (the raid0 role's rule, same order).
- Next kernel: the newest ``/boot/vmlinuz-<version>`` by version order (runs of digits compared as
  numbers; EL's ``vmlinuz-0-rescue-*`` is not a kernel version and is skipped). That is what GRUB boots
  by default on Debian (``GRUB_DEFAULT=0``, entries sorted newest first) and on EL 9 after a kernel
  update (grubby makes the new kernel the default). A pinned ``GRUB_DEFAULT``, ``grubby --set-default``
  or a one-time ``grub-reboot`` are NOT read: pass ``kernel`` to inspect another one.
- Image: ``/boot/initrd.img-<version>`` (Debian and Ubuntu, both generators) else
  ``/boot/initramfs-<version>.img`` (EL, Fedora, SUSE: dracut's own default). The BLS layout
  ``/boot/<machine-id>/<version>/initrd`` is not looked at.
- mdadm.conf inside the image: initramfs-tools copies ``/etc/mdadm/mdadm.conf`` to
  ``etc/mdadm/mdadm.conf``; dracut (90mdraid, host-only or ``mdadmconf=yes``) installs ``/etc/mdadm.conf``,
  or Debian's ``/etc/mdadm/mdadm.conf``, as ``etc/mdadm.conf``; ``etc/mdadm/mdadm.conf`` is also accepted.
  Files in ``etc/mdadm.conf.d/`` are not read.

Stable entry point (the fleet audit imports it)::

    array_lines_in_next_initramfs(run_command, kernel=None, generator=None, boot_dir='/boot',
                                  bin_dirs=BIN_DIRS)
    -> {'image': str|None, 'generator': 'initramfs-tools'|'dracut'|None, 'kernel': str|None,
        'conf_path': str|None, 'array_lines': [str], 'error': str|None}

``run_command(argv)`` returns ``(rc, stdout, stderr)`` like ``AnsibleModule.run_command``.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile

from ansible_collections.iotune.storage.plugins.module_utils import mdadm
from ansible_collections.iotune.storage.plugins.module_utils.files import read_text

__metaclass__ = type

BIN_DIRS = ('/usr/sbin', '/usr/bin', '/sbin', '/bin')
# generator -> (the tool that builds, the tool that reads an image when read_image_files cannot), in the order they
# are preferred; an initramfs-tools image is never unpacked with unmkinitramfs: that wrote every file of the image to
# disk, 26 s of a lab guest's CPU for a 12 MB image against 2.3 s for read_image_files' read of one file
GENERATORS = (
    ('initramfs-tools', 'update-initramfs', None),
    ('dracut', 'dracut', 'lsinitrd'),
)
# where each generator puts mdadm.conf inside the image, first match wins
CONF_IN_IMAGE = {
    'initramfs-tools': ('etc/mdadm/mdadm.conf',),
    'dracut': ('etc/mdadm.conf', 'etc/mdadm/mdadm.conf'),
}
# the host's own mdadm.conf: Debian layout first, then EL's (module_utils/mdadm.py)
HOST_CONF = mdadm.CONF_PATHS
IMAGE_NAMES = ('initrd.img-%s', 'initramfs-%s.img')

_MODE_RE = r'[-dlcbpsD?][-rwxsStTlL]{9}[.+@]?'
# GNU cpio -tv (what lsinitrd lists): mode links owner group size|major,minor month day time|year name
_CPIO_LINE = re.compile(r'^%s\s+\d+\s+\S+\s+\S+\s+(?:\d+,\s*\d+|\d+)\s+[A-Z][a-z]{2}\s+\d{1,2}\s+(?:\d{1,2}:\d{2}|\d{4})\s(.+)$'
                        % _MODE_RE)


class InitramfsError(Exception):
    """Something needed to read the next initramfs is missing or failed."""


def find_tool(name, bin_dirs=BIN_DIRS):
    """Absolute path of executable ``name`` in ``bin_dirs`` (first hit), or None."""
    for directory in bin_dirs:
        path = os.path.join(directory, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def installed_generator(bin_dirs=BIN_DIRS):
    """``'initramfs-tools'`` if update-initramfs is installed, else ``'dracut'`` if dracut is, else None."""
    for generator, builder, _reader in GENERATORS:
        if find_tool(builder, bin_dirs):
            return generator
    return None


# dpkg's trigger that both initramfs-tools and Debian's dracut package rebuild on (their postinst and the triggers
# of mdadm, xfsprogs and the kernel packages activate it), and the packages that build on it
DPKG_TRIGGER = 'update-initramfs'
DPKG_GENERATORS = ('initramfs-tools', 'initramfs-tools-core', 'dracut', 'dracut-core')
DPKG_ADMINDIR = '/var/lib/dpkg'
_STANZA_FIELD = re.compile(r'^(Package|Status|Triggers-Pending):[ \t]*(.*(?:\n[ \t].*)*)', re.M)


def _dpkg_stanzas(text):
    """{package: {field: value}} of the fields above, from the status file's or a journal entry's text."""
    found = {}
    for stanza in re.split(r'\n\s*\n', text):
        fields = dict((k, ' '.join(v.split())) for k, v in _STANZA_FIELD.findall(stanza))
        if fields.get('Package'):
            found[fields['Package']] = fields
    return found


def dpkg_rebuild_pending(admindir=DPKG_ADMINDIR, trigger=DPKG_TRIGGER, generators=DPKG_GENERATORS):
    """Whether dpkg owes an initramfs rebuild: its ``update-initramfs`` trigger is pending, or a package of an
    initramfs generator was left unfinished (half-configured, unpacked, awaiting triggers) by a dpkg run that stopped,
    as one stopped by a crash while it ran the trigger does (dpkg marks the package half-configured in its journal,
    updates/, first). The next dpkg run that configures or processes triggers then builds the initramfs: the rebuild
    a run owes should be that run (``dpkg --configure --pending``), or the host builds twice. The status file is read
    with the journal entries dpkg has not merged yet. False where there is no dpkg."""
    status = read_text(os.path.join(admindir, 'status'))
    if status is None:
        return False
    packages = _dpkg_stanzas(status)
    updates = os.path.join(admindir, 'updates')
    try:
        entries = sorted(n for n in os.listdir(updates) if n.isdigit())
    except (IOError, OSError):
        entries = []
    for name in entries:
        packages.update(_dpkg_stanzas(read_text(os.path.join(updates, name)) or ''))
    unincorp = read_text(os.path.join(admindir, 'triggers', 'Unincorp')) or ''
    if any(line.split()[:1] == [trigger] for line in unincorp.splitlines()):
        return True
    for name, fields in packages.items():
        if trigger in fields.get('Triggers-Pending', '').split():
            return True
        state = fields.get('Status', '').split()[-1:]
        if name in generators and state and state[0] not in ('installed', 'not-installed', 'config-files'):
            return True
    return False


def dpkg_rebuild_pending_for(result):
    """dpkg_rebuild_pending() for an mdadm_array ``result`` that rebuilds the initramfs (it changes mdadm.conf, or a
    rebuild is owed); False without reading dpkg's status file otherwise: the raid0 role only asks when it rebuilds,
    and a converged re-run (its preflight) reads nothing more."""
    return bool(result.get('conf_changed') or result.get('rebuild_pending')) and dpkg_rebuild_pending()


def reader_tool(generator):
    """The tool that reads an image of ``generator``: lsinitrd, or None (read_image_files reads it)."""
    for name, _builder, reader in GENERATORS:
        if name == generator:
            return reader
    raise InitramfsError('unknown initramfs generator %r' % (generator,))


def version_key(version):
    """Sort key of a kernel version: runs of digits compare as numbers, other runs as text, numbers last."""
    return tuple((1, int(part), '') if part.isdigit() else (0, 0, part)
                 for part in re.findall(r'\d+|[A-Za-z]+', version))


def installed_kernels(boot_dir='/boot'):
    """Kernel versions with a ``vmlinuz-<version>`` in ``boot_dir``, oldest first (no rescue kernels)."""
    try:
        names = os.listdir(boot_dir)
    except OSError:
        return []
    versions = [n[len('vmlinuz-'):] for n in names
                if n.startswith('vmlinuz-') and not n.startswith('vmlinuz-0-rescue-')
                and os.path.isfile(os.path.join(boot_dir, n)) and re.match(r'^\d', n[len('vmlinuz-'):])]
    return sorted(versions, key=version_key)


def next_kernel(boot_dir='/boot'):
    """The kernel that boots next by the rule of this module: the newest installed one, or None."""
    kernels = installed_kernels(boot_dir)
    return kernels[-1] if kernels else None


def image_path(kernel, boot_dir='/boot'):
    """The initramfs file of ``kernel`` that exists (Debian's name first, then dracut's), or None."""
    for pattern in IMAGE_NAMES:
        path = os.path.join(boot_dir, pattern % kernel)
        if os.path.isfile(path):
            return path
    return None


# argv builders (lists, never shell strings)

def lsinitramfs_argv(image, tool='lsinitramfs'):
    """List a Debian initramfs, one path per line (parse_lsinitramfs)."""
    return [tool, image]


def lsinitrd_list_argv(image, tool='lsinitrd'):
    """List a dracut image: header, dracut modules, cpio -tv lines (parse_lsinitrd)."""
    return [tool, image]


def lsinitrd_file_argv(image, path, tool='lsinitrd'):
    """Print one file of a dracut image (exactly one ``-f``: the content only, no header)."""
    return [tool, '-f', path, image]


def print_cmdline_argv(tool='dracut'):
    """The kernel command line dracut's host-only mode derives for this host (parse_print_cmdline)."""
    return [tool, '--print-cmdline']


# parsers of captured output

def parse_lsinitramfs(text):
    """``lsinitramfs IMAGE`` output -> list of paths without a leading ``./`` or ``/`` (order kept)."""
    paths = []
    for line in (text or '').splitlines():
        line = line.strip()
        if not line or line == '.':
            continue
        paths.append(re.sub(r'^\.?/', '', line))
    return paths


def _cpio_name(line):
    m = _CPIO_LINE.match(line)
    if not m:
        return None
    name = m.group(1)
    if line.startswith('l') and ' -> ' in name:
        name = name.split(' -> ', 1)[0]
    return re.sub(r'^\.?/', '', name) or '.'


def parse_lsinitrd(text):
    """``lsinitrd IMAGE`` output -> dict.

    ``image`` (the ``Image:`` line), ``version`` (dracut's), ``arguments`` (build arguments, one string),
    ``modules`` (dracut modules in the image), ``files`` (paths of the main image, no leading ``/``) and
    ``early_files`` (paths of an early CPIO, e.g. microcode, listed before the main image).
    """
    result = dict(image=None, version=None, arguments=None, modules=[], files=[], early_files=[])
    section = None
    target = result['files']
    for raw in (text or '').splitlines():
        line = raw.rstrip()
        if line.startswith('Image: '):
            result['image'] = re.sub(r':\s*\S*$', '', line[len('Image: '):]) or None
            continue
        if line == 'Early CPIO image':
            target = result['early_files']
            continue
        if line.startswith('Version: '):
            result['version'] = line[len('Version: '):].strip() or None
            target = result['files']
            section = None
            continue
        if line.startswith('Arguments: '):
            result['arguments'] = line[len('Arguments: '):].strip()
            continue
        if line == 'dracut modules:':
            section = 'modules'
            continue
        if line.startswith('====='):
            section = None
            continue
        name = _cpio_name(line)
        if name is not None:
            section = None
            if name != '.':
                target.append(name)
            continue
        if section == 'modules' and line.strip():
            result['modules'].append(line.strip())
    return result


def parse_print_cmdline(text):
    """``dracut --print-cmdline`` output -> dict(``args`` in order, ``md_uuids`` of ``rd.md.uuid=`` in
    mdadm's colon form, ``md_auto`` True when ``rd.auto``/``rd.auto=1`` asks to assemble everything)."""
    args = (text or '').split()
    uuids = []
    for arg in args:
        if arg.startswith('rd.md.uuid='):
            for uuid in arg[len('rd.md.uuid='):].split(','):
                uuid = _colon_uuid(uuid)
                if uuid and uuid not in uuids:
                    uuids.append(uuid)
    md_auto = any(a in ('rd.auto', 'rd.auto=1') for a in args)
    return dict(args=args, md_uuids=uuids, md_auto=md_auto)


def _colon_uuid(uuid):
    flat = re.sub(r'[-:.\s]', '', uuid or '').lower()
    if len(flat) != 32 or not re.match(r'^[0-9a-f]{32}$', flat):
        return uuid or None
    return ':'.join(flat[i:i + 8] for i in range(0, 32, 8))


def parse_array_lines(text):
    """The ARRAY lines of an mdadm.conf ``text`` (either layout: Debian /etc/mdadm/mdadm.conf, EL
    /etc/mdadm.conf), in order, as written: a continuation line (one that starts with white space) is
    joined to its line with one space, ``#`` comments and trailing white space are dropped. The keyword
    is matched without regard to case, as mdadm does."""
    logical = []
    for raw in (text or '').splitlines():
        line = re.sub(r'(^|\s)#.*$', '', raw).rstrip()
        if not line.strip():
            continue
        if raw[:1] in (' ', '\t') and logical:
            logical[-1] = logical[-1] + ' ' + line.strip()
        else:
            logical.append(line)
    return [line for line in logical if re.match(r'^ARRAY(\s|$)', line, re.I)]


def parse_array_line(line):
    """One ARRAY line -> dict(device, uuid (colon form), name, metadata, words)."""
    words = line.split()[1:]
    device = words[0] if words and '=' not in words[0] else None
    tags = {}
    for word in words:
        if '=' in word:
            key, value = word.split('=', 1)
            tags[key.lower()] = value
    return dict(device=device, uuid=_colon_uuid(tags.get('uuid')), name=tags.get('name'),
                metadata=tags.get('metadata'), words=words)


def normalized(lines):
    """ARRAY lines with runs of white space made one space (for comparing two mdadm.conf copies)."""
    return [' '.join(line.split()) for line in lines]


# reading an image

def _run(run_command, argv):
    rc, out, err = run_command(argv)
    if rc != 0:
        raise InitramfsError('%s failed (rc=%s): %s' % (' '.join(argv), rc, (err or out or '').strip()))
    return out


# The kernel's initramfs format (the kernel's Documentation/driver-api/early-userspace/buffer-format.rst): cpio archives
# in the "newc" format, one after the other, uncompressed ones first (an early archive: CPU microcode), NUL bytes
# between them, then a compressed one (the main archive, what the boot runs). Where two archives have the same path,
# the later one is what the kernel leaves in place.
CPIO_MAGICS = (b'070701', b'070702')
CPIO_HEADER = 110           # magic and 13 fields of 8 hex digits
CPIO_TRAILER = 'TRAILER!!!'
# leading bytes of a compressed archive -> the tool and arguments that decompress it to standard output
DECOMPRESSORS = (
    (b'\x28\xb5\x2f\xfd', 'zstd', ('-dcq',)),     # Debian's default since bookworm (COMPRESS=zstd)
    (b'\x1f\x8b', 'gzip', ('-dc',)),
    (b'\xfd7zXZ\x00', 'xz', ('-dc',)),
    (b'\x5d\x00\x00', 'xz', ('--format=lzma', '-dc')),
    (b'\x02\x21\x4c\x18', 'lz4', ('-dc',)),      # the legacy frame the kernel reads
    (b'BZh', 'bzip2', ('-dc',)),
    (b'\x89LZO', 'lzop', ('-dc',)),
)
_CHUNK = 1 << 20


class _Stream:
    """A binary reader that counts the bytes read (cpio pads names and data to 4 bytes from the archive's start) and
    can be handed back what it read last (a pipe cannot seek)."""

    def __init__(self, raw):
        self.raw = raw
        self.pos = 0
        self.pending = b''

    def read(self, size):
        parts = []
        if self.pending:
            parts.append(self.pending[:size])
            self.pending = self.pending[size:]
            size -= len(parts[0])
        while size > 0:
            part = self.raw.read(size)
            if not part:
                break
            parts.append(part)
            size -= len(part)
        data = b''.join(parts)
        self.pos += len(data)
        return data

    def unread(self, data):
        self.pending = data + self.pending
        self.pos -= len(data)

    def exactly(self, size, what):
        data = self.read(size)
        if len(data) != size:
            raise InitramfsError('the image ends inside %s (offset %d)' % (what, self.pos))
        return data

    def skip(self, size, what):
        while size > 0:
            size -= len(self.exactly(min(size, _CHUNK), what))

    def align(self, start, what):
        self.skip((start - self.pos) % 4, what)

    def next_head(self):
        """The first 8 bytes after NUL padding (fewer at the end, b'' there), handed back to be read again."""
        byte = self.read(1)
        while byte == b'\0':
            byte = self.read(1)
        head = byte + self.read(7) if byte else b''
        self.unread(head)
        return head


def _member_name(raw_name):
    name = raw_name.decode('utf-8', 'replace')
    while name.startswith('./'):
        name = name[2:]
    return name.lstrip('/') or '.'


def read_cpio(stream, wanted, found, stop_when_found=False):
    """Read one newc archive from ``stream`` up to its trailer; the content of each regular file whose path (no
    leading ``./`` or ``/``) is in ``wanted`` goes into ``found`` (path -> bytes; a later copy replaces an earlier).
    With ``stop_when_found`` it returns as soon as every wanted path is found. Returns True at the trailer."""
    start = stream.pos
    while True:
        header = stream.read(CPIO_HEADER)
        if not header:
            raise InitramfsError('the image ends before the cpio trailer (offset %d)' % stream.pos)
        if len(header) < CPIO_HEADER or header[:6] not in CPIO_MAGICS:
            raise InitramfsError('no cpio header at offset %d of the archive (%r)'
                                 % (stream.pos - len(header), header[:6]))
        try:
            mode, size, name_size = (int(header[i:i + 8], 16) for i in (14, 54, 94))
        except ValueError:
            raise InitramfsError('a cpio header with a field that is not hexadecimal at offset %d'
                                 % (stream.pos - CPIO_HEADER))
        name = _member_name(stream.exactly(name_size, 'a cpio name')[:-1])
        stream.align(start, 'a cpio name')
        if name == CPIO_TRAILER:
            return True
        if name in wanted and mode & 0o170000 == 0o100000:
            found[name] = stream.exactly(size, name)
        else:
            stream.skip(size, name)
        stream.align(start, name)
        if stop_when_found and wanted and all(path in found for path in wanted):
            return False


def _decompressor(head, bin_dirs):
    for magic, name, args in DECOMPRESSORS:
        if head.startswith(magic):
            tool = find_tool(name, bin_dirs)
            if tool is None:
                raise InitramfsError('the image is %s-compressed and %s is not in %s'
                                     % (name, name, ', '.join(bin_dirs)))
            return [tool] + list(args)
    return None


def read_image_files(image, wanted, bin_dirs=BIN_DIRS):
    """The regular files ``wanted`` (paths inside the image, no leading ``/``) of an initramfs ``image`` made of newc
    cpio archives (initramfs-tools, and dracut's images too) -> dict path -> bytes, without unpacking anything.

    Each uncompressed archive is read in place; the compressed one that follows is streamed through its decompressor
    (zstd, gzip, xz, lzma, lz4, bzip2, lzop: the tool must be installed, as it is where the image was built) and read
    only up to the last wanted path, or its end. A path found in a later archive replaces the earlier copy, as at
    boot. Raises InitramfsError for what is not such an image, a missing decompressor or a failed one."""
    wanted = frozenset(wanted)
    found = {}
    with open(image, 'rb') as f:
        stream = _Stream(f)
        while True:
            head = stream.next_head()
            if not head:
                if not stream.pos:
                    raise InitramfsError('%s holds no cpio archive (it is empty or all NUL bytes)' % image)
                return found
            if head[:6] in CPIO_MAGICS:
                read_cpio(stream, wanted, found)
                continue
            argv = _decompressor(head, bin_dirs)
            if argv is None:
                raise InitramfsError('%s: neither a cpio archive nor a compressed one at offset %d (%r)'
                                     % (image, stream.pos, head))
            # the decompressor reads the file descriptor from here (a buffered seek may not move it)
            os.lseek(f.fileno(), stream.pos, os.SEEK_SET)
            return _read_compressed(argv, f, wanted, found)


def _read_compressed(argv, f, wanted, found):
    """The rest of an image: archives through the decompressor ``argv``, fed from ``f`` at its position."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdin=f.fileno(), stdout=subprocess.PIPE, stderr=err)
        complete = False
        here = {}       # what this part holds replaces the early archives' copies: found anew here
        try:
            stream = _Stream(proc.stdout)
            while read_cpio(stream, wanted, here, stop_when_found=True):
                head = stream.next_head()
                if not head:
                    complete = True
                    break
                if head[:6] not in CPIO_MAGICS:
                    raise InitramfsError('%s: %r after a cpio archive in the output of %s'
                                         % (f.name, head, ' '.join(argv)))
        finally:
            if not complete:
                proc.kill()
            proc.stdout.close()
            rc = proc.wait()
        if complete and rc != 0:
            err.seek(0)
            raise InitramfsError('%s failed (rc=%s): %s' % (' '.join(argv), rc,
                                                            err.read().decode('utf-8', 'replace').strip()))
    found.update(here)
    return found


def read_initramfs_tools_conf(image, bin_dirs=BIN_DIRS):
    """(path inside the image, mdadm.conf text) of a Debian initramfs, (None, None) when it has none."""
    return _first_conf(read_image_files(image, CONF_IN_IMAGE['initramfs-tools'], bin_dirs), 'initramfs-tools')


def _first_conf(found, generator):
    """(path, text) of the first of CONF_IN_IMAGE[generator] in ``found`` (read_image_files' result), else (None, None)."""
    for path in CONF_IN_IMAGE[generator]:
        if path in found:
            return path, found[path].decode('utf-8', 'replace')
    return None, None


# dracut's squash module packs the image's root into a squashfs file inside the cpio archive: what is in there only
# lsinitrd reads
DRACUT_SQUASH = ('squash-root.img', 'squashfs-root.img', 'squash/root.img')


def read_dracut_conf(run_command, image, tool='lsinitrd', bin_dirs=BIN_DIRS):
    """(path inside the image, mdadm.conf text) of a dracut image, (None, None) when it has none.

    The image's cpio archives are read here first (read_image_files: one pass, nothing run but the decompressor); the
    first path of CONF_IN_IMAGE['dracut'] found is the one. lsinitrd reads it instead when that read fails (a format
    this module does not read) or finds a squashfs root (dracut's squash module): each path of
    CONF_IN_IMAGE['dracut'] in turn is printed with ``lsinitrd -f`` (one pass over the image; a path the image lacks
    prints nothing), and only when none prints text is the image listed (``lsinitrd IMAGE``: its header, its dracut
    modules and every file, several passes, which took minutes of an emulated guest), to tell an empty mdadm.conf
    from none."""
    try:
        found = read_image_files(image, CONF_IN_IMAGE['dracut'] + DRACUT_SQUASH, bin_dirs)
    except InitramfsError:
        found = None
    if found is not None and not any(path in found for path in DRACUT_SQUASH):
        return _first_conf(found, 'dracut')
    for path in CONF_IN_IMAGE['dracut']:
        text = _run(run_command, lsinitrd_file_argv(image, path, tool))
        if text:
            return path, text
    files = set(parse_lsinitrd(_run(run_command, lsinitrd_list_argv(image, tool)))['files'])
    for path in CONF_IN_IMAGE['dracut']:
        if path in files:
            return path, ''
    return None, None


def array_lines_in_next_initramfs(run_command, kernel=None, generator=None, boot_dir='/boot',
                                  bin_dirs=BIN_DIRS):
    """The ARRAY lines of the mdadm.conf inside the initramfs that boots next.

    :param run_command: callable(argv list) -> (rc, stdout, stderr), e.g. ``module.run_command``.
    :param kernel: kernel version to inspect; default the next kernel (newest ``/boot/vmlinuz-*``).
    :param generator: ``'initramfs-tools'`` or ``'dracut'``; default the installed one (installed_generator).
    :param boot_dir: where kernels and images are (``/boot``).
    :param bin_dirs: where the tools are looked up (BIN_DIRS).
    :returns: dict ``image`` (path or None), ``generator``, ``kernel``, ``conf_path`` (mdadm.conf's path
        inside the image, None when the image has none), ``array_lines`` (list of str, as parse_array_lines)
        and ``error`` (None, or why the image could not be read; then ``array_lines`` is empty).
        It never raises for a host that lacks something; only a bad ``generator`` value raises ValueError.
    """
    if generator is not None and generator not in CONF_IN_IMAGE:
        raise ValueError('generator must be one of %s, not %r' % (', '.join(sorted(CONF_IN_IMAGE)), generator))
    result = dict(image=None, generator=generator, kernel=kernel, conf_path=None, array_lines=[], error=None)
    try:
        if result['generator'] is None:
            result['generator'] = installed_generator(bin_dirs)
            if result['generator'] is None:
                raise InitramfsError('no initramfs generator: neither update-initramfs nor dracut is in %s'
                                     % ', '.join(bin_dirs))
        if result['kernel'] is None:
            result['kernel'] = next_kernel(boot_dir)
            if result['kernel'] is None:
                raise InitramfsError('no kernel (vmlinuz-<version>) in %s' % boot_dir)
        result['image'] = image_path(result['kernel'], boot_dir)
        if result['image'] is None:
            raise InitramfsError('no initramfs for kernel %s in %s (looked for %s)' % (
                result['kernel'], boot_dir, ', '.join(p % result['kernel'] for p in IMAGE_NAMES)))
        if result['generator'] == 'dracut':
            tool = find_tool(reader_tool('dracut'), bin_dirs)
            if tool is None:
                raise InitramfsError('%s is needed to read %s and is not in %s' % (
                    reader_tool('dracut'), result['image'], ', '.join(bin_dirs)))
            conf_path, text = read_dracut_conf(run_command, result['image'], tool, bin_dirs)
        else:
            conf_path, text = read_initramfs_tools_conf(result['image'], bin_dirs)
        result['conf_path'] = conf_path
        result['array_lines'] = parse_array_lines(text)
    except (InitramfsError, OSError) as exc:
        result['error'] = str(exc)
    return result


def host_conf_path(root='/'):
    """The host's mdadm.conf (Debian's /etc/mdadm/mdadm.conf, else EL's /etc/mdadm.conf) or None."""
    for path in HOST_CONF:
        full = os.path.join(root, path.lstrip('/'))
        if os.path.isfile(full):
            return path
    return None
