#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

__metaclass__ = type

DOCUMENTATION = r"""
---
module: config_files
short_description: Keep several small configuration files at a given content, mode and owner in one call
version_added: 0.1.0
description:
  - Compares each file of O(files) with the wanted content, mode and owner and writes, fixes or removes only
    the ones that differ.
  - A file is written atomically (a temporary file in the same directory replaces it in one rename, keeping
    the SELinux context of a file that exists); a missing directory is created with mode 0755.
  - One module call for all the files of a role, where a template or copy task per file costs several round
    trips to the host even when nothing changes (the roles of this collection use it for the sysctl file,
    the THP unit and the services' drop-ins).
  - Meant for small text files the collection owns; it is not a replacement for M(ansible.builtin.copy).
author:
  - iotune.storage contributors (@iotune)
options:
  files:
    description: The files.
    type: list
    elements: dict
    required: true
    suboptions:
      path:
        description: Absolute path of the file.
        type: path
        required: true
      content:
        description: Wanted content (required with O(files[].state=present)).
        type: str
      state:
        description: V(present) writes the file when it differs; V(absent) removes it.
        type: str
        choices: [present, absent]
        default: present
      mode:
        description: Octal mode as a string.
        type: str
        default: '0644'
      owner:
        description: Owner (name or numeric id).
        type: str
        default: root
      group:
        description: Group (name or numeric id).
        type: str
        default: root
  remove_unlisted:
    description:
      - Shell patterns of absolute paths (C(glob)); a file matching one of them that is not in O(files) is
        removed. For the files of an earlier run that no longer apply, such as the drop-in of a service no
        longer listed, without a separate search.
    type: list
    elements: str
    default: []
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.platform
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
    details: One diff per file that changes (content; a change of only mode or owner shows as a header).
"""

EXAMPLES = r"""
- name: Write the sysctl file and the THP unit, only what differs
  iotune.storage.config_files:
    files:
      - path: /etc/sysctl.d/90-iotune-storage.conf
        content: "vm.swappiness = 1\n"
      - path: /etc/systemd/system/old-unit.service
        state: absent
  register: written

- name: One drop-in per service; drop-ins of services no longer listed are removed
  iotune.storage.config_files:
    files:
      - path: /etc/systemd/system/cassandra.service.d/mounts.conf
        content: "[Unit]\nRequiresMountsFor=/var/lib/cassandra\n"
    remove_unlisted: [/etc/systemd/system/*.d/mounts.conf]

- name: Load the sysctl file when it changed
  ansible.builtin.command:
    argv: [sysctl, -p, /etc/sysctl.d/90-iotune-storage.conf]
  when: "'/etc/sysctl.d/90-iotune-storage.conf' in written.changed_paths"
  changed_when: true
"""

RETURN = r"""
changed_paths:
  description: Paths written, fixed (mode or owner) or removed (would be, in check mode), in the order of O(files).
  type: list
  elements: str
  returned: always
  sample: [/etc/sysctl.d/90-iotune-storage.conf]
"""

import glob
import grp
import os
import pwd

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.iotune.storage.plugins.module_utils import files as fileutil
from ansible_collections.iotune.storage.plugins.module_utils.module_call import result_or_fail


class ConfigError(Exception):
    pass


def _uid(owner):
    return int(owner) if owner.isdigit() else pwd.getpwnam(owner).pw_uid


def _gid(group):
    return int(group) if group.isdigit() else grp.getgrnam(group).gr_gid


class ConfigFiles:
    """Brings each wanted file to its state; ``replace`` is AnsibleModule.atomic_move in a module run."""

    def __init__(self, wanted, check_mode=False, replace=fileutil.replace_keeping_owner, remove_unlisted=()):
        self.wanted = wanted
        self.remove_unlisted = list(remove_unlisted)
        self.check_mode = check_mode
        self.replace = replace
        self.changed_paths = []
        self.diffs = []

    def validate(self):
        for pattern in self.remove_unlisted:
            if not os.path.isabs(pattern):
                raise ConfigError('remove_unlisted: pattern %r is not an absolute path' % pattern)
        for f in self.wanted:
            if not os.path.isabs(f['path']):
                raise ConfigError('files: path %r is not absolute' % f['path'])
            if f['state'] == 'present' and f['content'] is None:
                raise ConfigError('files: %s has state present but no content' % f['path'])
            try:
                f['mode_int'] = int(f['mode'], 8)
            except (TypeError, ValueError):
                raise ConfigError('files: mode %r of %s is not an octal mode such as 0644' % (f['mode'], f['path']))
            if not 0 <= f['mode_int'] <= 0o7777:
                raise ConfigError('files: mode %r of %s is out of range' % (f['mode'], f['path']))
            try:
                f['uid'], f['gid'] = _uid(f['owner']), _gid(f['group'])
            except KeyError:
                raise ConfigError('files: owner %s or group %s of %s does not exist on the host'
                                  % (f['owner'], f['group'], f['path']))

    @staticmethod
    def read(path):
        """The text of the file (for the diff), None when it does not exist."""
        try:
            with open(path, 'r') as handle:
                return handle.read()
        except FileNotFoundError:
            return None
        except (IOError, OSError, UnicodeDecodeError) as e:
            raise ConfigError('cannot read %s: %s' % (path, e))

    def converge_one(self, f):
        path = f['path']
        before = self.read(path)
        if f['state'] == 'absent':
            if before is None and not os.path.lexists(path):
                return
            self.changed(path, before or '', '')
            if not self.check_mode:
                os.unlink(path)
            return
        # the one rule of a file that differs (module_utils/files.py; the preflight's read is judged by it too), over
        # the file a symlink points to, the owner and group as the ids they resolved to
        differs = fileutil.differences(dict(f, owner=str(f['uid']), group=str(f['gid'])),
                                       fileutil.file_state(path, follow=True))
        if not differs:
            return
        self.changed(path, before or '', f['content'])
        if self.check_mode:
            return
        if 'file' in differs or 'content' in differs:
            fileutil.write_text(path, f['content'], self.replace, mode=f['mode_int'])
        os.chown(path, f['uid'], f['gid'])
        os.chmod(path, f['mode_int'])

    def changed(self, path, before, after):
        self.changed_paths.append(path)
        self.diffs.append({'before_header': path, 'after_header': path, 'before': before, 'after': after})

    def unlisted(self):
        """Entries removing the files that match remove_unlisted and are not in ``files``."""
        listed = set(os.path.normpath(f['path']) for f in self.wanted)
        found = sorted(set(path for pattern in self.remove_unlisted for path in glob.glob(pattern)))
        return [dict(path=path, state='absent') for path in found
                if os.path.normpath(path) not in listed and not os.path.isdir(path)]

    def converge(self):
        self.validate()
        for f in self.wanted + self.unlisted():
            try:
                self.converge_one(f)
            except (IOError, OSError) as e:
                raise ConfigError('cannot write %s: %s' % (f['path'], e))
        return self.changed_paths, self.diffs


def main():
    module = AnsibleModule(
        argument_spec=dict(
            files=dict(type='list', elements='dict', required=True, options=dict(
                path=dict(type='path', required=True),
                content=dict(type='str'),
                state=dict(type='str', choices=['present', 'absent'], default='present'),
                mode=dict(type='str', default='0644'),
                owner=dict(type='str', default='root'),
                group=dict(type='str', default='root'),
            )),
            remove_unlisted=dict(type='list', elements='str', default=[]),
        ),
        supports_check_mode=True,
    )
    worker = ConfigFiles(module.params['files'], check_mode=module.check_mode, replace=module.atomic_move,
                         remove_unlisted=module.params['remove_unlisted'])
    changed_paths, diffs = result_or_fail(module, worker.converge, ConfigError)
    result = dict(changed=bool(changed_paths), changed_paths=changed_paths)
    if module._diff:
        result['diff'] = diffs
    module.exit_json(**result)


if __name__ == '__main__':
    main()
