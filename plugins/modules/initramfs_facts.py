#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

__metaclass__ = type

DOCUMENTATION = r"""
---
module: initramfs_facts
short_description: The ARRAY lines of the mdadm.conf inside the initramfs that boots next
version_added: 0.1.0
description:
  - Finds the installed initramfs generator, the kernel that boots next and its initramfs image, reads
    the C(mdadm.conf) inside that image and compares its ARRAY lines with the host's C(mdadm.conf).
    Returns the fact C(iotune_initramfs).
  - The generator is C(initramfs-tools) when C(update-initramfs) is installed, else C(dracut) when
    C(dracut) is (looked up in C(/usr/sbin), C(/usr/bin), C(/sbin), C(/bin)), the same rule as the
    P(iotune.storage.raid0#role) role.
  - The kernel that boots next is the newest C(/boot/vmlinuz-VERSION) by version order (rescue kernels
    are skipped). That is what GRUB boots by default on Debian and, after a kernel update, on EL 9. A
    pinned C(GRUB_DEFAULT), C(grubby --set-default) or a one-time C(grub-reboot) are not read; use
    O(kernel) to inspect another kernel.
  - The image is C(/boot/initrd.img-VERSION) (Debian and Ubuntu, either generator), else
    C(/boot/initramfs-VERSION.img) (EL and other dracut hosts). The BLS layout
    C(/boot/MACHINE-ID/VERSION/initrd) is not supported.
  - "Reading the image: the module reads C(etc/mdadm/mdadm.conf) (initramfs-tools) or C(etc/mdadm.conf), else
    C(etc/mdadm/mdadm.conf) (dracut) itself, without unpacking anything: the uncompressed cpio archives in place
    (an early microcode archive), the compressed main archive through its decompressor (C(zstd), C(gzip), C(xz),
    C(lz4), C(bzip2) or C(lzop), whichever compressed it); a copy in a later archive wins, as at boot. A dracut
    image it cannot read that way, or one with a squashfs root (dracut's squash module), is read with
    C(lsinitrd -f) (and listed with C(lsinitrd) when neither path prints anything). Files below
    C(etc/mdadm.conf.d/) in the image are not read."
  - When the image cannot be read, the fact has C(error) set and the module warns; it does not fail.
author:
  - iotune.storage contributors (@iotune)
options:
  kernel:
    description:
      - Kernel version whose initramfs to read, for example V(6.1.0-41-amd64). Default is the kernel
        that boots next (see above).
    type: str
  mdadm_conf:
    description:
      - The host's C(mdadm.conf) to compare with. Default is C(/etc/mdadm/mdadm.conf) when it exists,
        else C(/etc/mdadm.conf).
      - A file that does not exist counts as one without ARRAY lines.
    type: path
  print_cmdline:
    description:
      - On dracut hosts, also run C(dracut --print-cmdline) and report the C(rd.md.uuid=) arrays dracut's
        host-only mode would assemble in the initramfs. Those are the arrays the root file system needs;
        a data array is assembled later, from the real root's C(mdadm.conf).
      - Ignored on initramfs-tools hosts.
    type: bool
    default: false
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.platform
  - iotune.storage.attributes.facts
  - iotune.storage.attributes.read_only
attributes:
  facts:
    support: full
notes:
  - Supports check mode. The module writes nothing.
  - Tested against the tools of Debian 12 (initramfs-tools) and Debian 13 (dracut) in the collection's lab.
    On EL 9 it is unit-tested only, against C(lsinitrd) output shaped after upstream dracut 057.
seealso:
  - module: iotune.storage.mdadm_array
  - name: lsinitrd(1)
    description: The dracut tool that lists and prints files of a dracut image.
    link: https://man7.org/linux/man-pages/man1/lsinitrd.1.html
"""

EXAMPLES = r"""
- name: Read the initramfs that boots next
  iotune.storage.initramfs_facts:

- name: Fail when an ARRAY line of mdadm.conf is missing from the next initramfs
  ansible.builtin.assert:
    that:
      - ansible_facts.iotune_initramfs.error is none
      - ansible_facts.iotune_initramfs.missing_array_lines == []
    fail_msg: >-
      {{ ansible_facts.iotune_initramfs.image }} lacks
      {{ ansible_facts.iotune_initramfs.missing_array_lines }}; run update-initramfs -u (or dracut -f)

- name: A given kernel, and what dracut's host-only mode would assemble early
  iotune.storage.initramfs_facts:
    kernel: 5.14.0-427.13.1.el9_4.x86_64
    print_cmdline: true
"""

RETURN = r"""
ansible_facts:
  description: Facts to add to the host's facts.
  returned: always
  type: dict
  contains:
    iotune_initramfs:
      description: The next initramfs and the ARRAY lines in it.
      returned: always
      type: dict
      sample:
        generator: initramfs-tools
        kernel: 6.1.0-41-amd64
        running_kernel: 6.1.0-41-amd64
        image: /boot/initrd.img-6.1.0-41-amd64
        conf_path: etc/mdadm/mdadm.conf
        array_lines:
          - ARRAY /dev/md/data metadata=1.2 UUID=bae2f56e:d4cbf959:6a4d256b:c56a1952 name=any:data
        host_conf: /etc/mdadm/mdadm.conf
        host_array_lines:
          - ARRAY /dev/md/data metadata=1.2 UUID=bae2f56e:d4cbf959:6a4d256b:c56a1952 name=any:data
        missing_array_lines: []
        missing_uuids: []
        in_sync: true
        rd_md_uuids: null
        error: null
      contains:
        generator:
          description: V(initramfs-tools), V(dracut), or null when neither is installed.
          type: str
        kernel:
          description: Kernel version whose initramfs was read (O(kernel) or the one that boots next).
          type: str
        running_kernel:
          description: The running kernel (C(uname -r)); differs from RV(ansible_facts.iotune_initramfs.kernel) after a kernel update.
          type: str
        image:
          description: Path of the initramfs image, null when none was found.
          type: str
        conf_path:
          description: Path of C(mdadm.conf) inside the image, null when the image has none.
          type: str
        array_lines:
          description:
            - The ARRAY lines of the image's C(mdadm.conf), as written (continuation lines joined,
              comments dropped).
          type: list
          elements: str
        host_conf:
          description: The host's C(mdadm.conf) that was compared, null when none exists.
          type: str
        host_array_lines:
          description: The ARRAY lines of the host's C(mdadm.conf).
          type: list
          elements: str
        missing_array_lines:
          description:
            - Host ARRAY lines that the image does not have (compared with white space runs made one
              space). Non-empty means the initramfs was built before C(mdadm.conf) got these lines.
          type: list
          elements: str
        missing_uuids:
          description: UUIDs (colon form) of host ARRAY lines that no ARRAY line of the image names.
          type: list
          elements: str
        in_sync:
          description:
            - True when the image could be read and has exactly the host's ARRAY lines (same set, white
              space runs made one space).
          type: bool
        rd_md_uuids:
          description:
            - With O(print_cmdline) on a dracut host, the C(rd.md.uuid=) values of
              C(dracut --print-cmdline) in colon form; null otherwise.
          type: list
          elements: str
        error:
          description: Why the image could not be read, or null.
          type: str
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.iotune.storage.plugins.module_utils import initramfs
from ansible_collections.iotune.storage.plugins.module_utils.module_call import result_or_fail


class InitramfsFactsError(Exception):
    """A parameter or the host's mdadm.conf cannot be used."""


def check_kernel(kernel):
    """The O(kernel) value, refused when it could name a path outside /boot."""
    if kernel is not None and (not kernel or '/' in kernel or kernel in ('.', '..') or kernel != kernel.strip()):
        raise InitramfsFactsError('kernel must be a kernel version such as 6.1.0-41-amd64, not %r' % kernel)
    return kernel


def read_host_conf(path):
    """(path or None, ARRAY lines) of the host's mdadm.conf; a missing file has no lines."""
    if path is None:
        path = initramfs.host_conf_path()
        if path is None:
            return None, []
    try:
        with open(path, 'r', errors='replace') as f:
            return path, initramfs.parse_array_lines(f.read())
    except FileNotFoundError:
        return path, []
    except OSError as exc:
        raise InitramfsFactsError('cannot read %s: %s' % (path, exc))


def compare(image_lines, host_lines):
    """missing_array_lines, missing_uuids and in_sync of the host's lines against the image's."""
    image_norm = initramfs.normalized(image_lines)
    missing = [line for line, norm in zip(host_lines, initramfs.normalized(host_lines)) if norm not in image_norm]
    image_uuids = set(initramfs.parse_array_line(line)['uuid'] for line in image_lines)
    missing_uuids = []
    for line in host_lines:
        uuid = initramfs.parse_array_line(line)['uuid']
        if uuid and uuid not in image_uuids and uuid not in missing_uuids:
            missing_uuids.append(uuid)
    in_sync = set(image_norm) == set(initramfs.normalized(host_lines))
    return missing, missing_uuids, in_sync


def dracut_md_uuids(run_command, bin_dirs=initramfs.BIN_DIRS):
    """rd.md.uuid values of ``dracut --print-cmdline``."""
    tool = initramfs.find_tool('dracut', bin_dirs)
    if tool is None:
        raise InitramfsFactsError('dracut is not installed')
    rc, out, err = run_command(initramfs.print_cmdline_argv(tool))
    if rc != 0:
        raise InitramfsFactsError('dracut --print-cmdline failed (rc=%s): %s' % (rc, (err or out).strip()))
    return initramfs.parse_print_cmdline(out)['md_uuids']


def gather(run_command, kernel=None, mdadm_conf=None, print_cmdline=False, **where):
    """The iotune_initramfs fact. ``where`` (boot_dir, bin_dirs) is for tests."""
    found = initramfs.array_lines_in_next_initramfs(run_command, kernel=check_kernel(kernel), **where)
    host_conf, host_lines = read_host_conf(mdadm_conf)
    missing, missing_uuids, in_sync = compare(found['array_lines'], host_lines)
    fact = dict(found, running_kernel=os.uname().release, host_conf=host_conf, host_array_lines=host_lines,
                missing_array_lines=missing, missing_uuids=missing_uuids,
                in_sync=found['error'] is None and in_sync, rd_md_uuids=None)
    if print_cmdline and found['generator'] == 'dracut':
        fact['rd_md_uuids'] = dracut_md_uuids(run_command, where.get('bin_dirs', initramfs.BIN_DIRS))
    return fact


def main():
    module = AnsibleModule(
        argument_spec=dict(
            kernel=dict(type='str'),
            mdadm_conf=dict(type='path'),
            print_cmdline=dict(type='bool', default=False),
        ),
        supports_check_mode=True,
    )

    def run_command(argv):
        return module.run_command(argv, environ_update=dict(LC_ALL='C'))

    fact = result_or_fail(module, lambda: gather(run_command, kernel=module.params['kernel'],
                                                 mdadm_conf=module.params['mdadm_conf'],
                                                 print_cmdline=module.params['print_cmdline']),
                          InitramfsFactsError)
    if fact['error']:
        module.warn('initramfs not read: %s' % fact['error'])
    module.exit_json(changed=False, ansible_facts=dict(iotune_initramfs=fact))


if __name__ == '__main__':
    main()
