# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/audit.py: what the storage_audit module reads, on the fake host."""

from __future__ import annotations

import os

from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.host import fixture

from ansible_collections.iotune.storage.plugins.module_utils import audit
from ansible_collections.iotune.storage.tests.unit.plugins.fixtures.audit import ARRAYS, FS_UUID, RULES, UUID, tuned_host, tuning


def gather(h, **kwargs):
    return audit.gather(h.view(), ARRAYS, tuning(h), RULES, **kwargs)


def test_a_tuned_host_reads_as_planned(fake_host):
    facts = gather(tuned_host(fake_host))
    assert facts['schema_version'] == 1 and facts['errors'] == []
    array = facts['arrays'][0]
    assert array['kname'] == 'md127' and array['running'] and array['fs_uuid'] == FS_UUID
    assert array['md']['uuid'] == UUID and array['read_ahead_kb'] == 8
    assert [m['kname'] for m in array['members']] == ['vdb', 'vdc']
    assert all(m['exists'] and not m['foreign'] for m in array['members'])
    assert array['mounted']['kname'] == 'md127' and 'noatime' in array['mounted']['options']
    assert [line['source'] for line in array['fstab']] == ['UUID=' + FS_UUID]
    rules = facts['tuning']['rules']
    assert rules['present'] and rules['matches'] and rules['missing_lines'] == []
    md = facts['tuning']['devices']['md127']
    assert md['profile'] == {'read_ahead_kb': '8'} and md['live'] == {'read_ahead_kb': '8'}
    assert md['rules'] == {'read_ahead_kb': '8'}
    vdb = facts['tuning']['devices']['vdb']
    assert vdb['profile'] == {'read_ahead_kb': '8', 'scheduler': 'none'}
    assert vdb['live'] == vdb['profile'] == vdb['rules']
    assert facts['mdadm_conf']['path'] == '/etc/mdadm/mdadm.conf'
    assert facts['mdadm_conf']['lines'][0]['uuid'] == UUID
    assert facts['initramfs']['checked'] is False
    assert facts['kernel'] is None and facts['tuned']['conflicts'] == []


def test_drift_is_read(fake_host):
    h = tuned_host(fake_host)
    h.write('sys/block/md127/queue/read_ahead_kb', '4096\n')
    os.unlink(os.path.join(h.root, RULES.lstrip('/')))
    h.write('etc/mdadm/mdadm.conf', h.read('etc/mdadm/mdadm.conf')
            + 'ARRAY /dev/md/data metadata=1.2 UUID=deadbeef:deadbeef:deadbeef:deadbeef name=data\n')
    os.unlink(os.path.join(h.dev, 'disk', 'by-id', 'virtio-vol2'))
    facts = gather(h)
    assert facts['tuning']['devices']['md127']['live'] == {'read_ahead_kb': '4096'}
    assert facts['tuning']['rules']['present'] is False
    assert facts['tuning']['devices']['md127']['rules'] == {'read_ahead_kb': None}
    assert facts['tuning']['unmatched'] == ['device=%s/disk/by-id/virtio-vol2' % h.dev]
    assert [m['exists'] for m in facts['arrays'][0]['members']] == [True, False]
    assert len(facts['mdadm_conf']['lines']) == 2


def test_rules_evaluated_per_device(fake_host):
    """A hand-edited value in the rules file is what that file would set; unknown keys never match."""
    h = tuned_host(fake_host)
    path = RULES.lstrip('/')
    h.write(path, h.read(path).replace('ATTR{queue/read_ahead_kb}="8"', 'ATTR{queue/read_ahead_kb}="4096"', 1))
    facts = gather(h)
    assert facts['tuning']['rules']['matches'] is False
    assert facts['tuning']['devices']['md127']['rules'] == {'read_ahead_kb': '4096'}
    assert facts['tuning']['devices']['vdb']['rules']['read_ahead_kb'] == '8'
    assert audit.rules_set('PROGRAM=="x", ATTR{queue/read_ahead_kb}="1"', {'KERNEL': 'vdb'}) == {}
    props = {'KERNEL': 'vdb', 'ENV': {}, 'ATTRS': {'serial': 'vol1'}, 'TEST': ['queue/read_ahead_kb']}
    line = 'ENV{ID_SERIAL_SHORT}!="?*", ATTRS{serial}=="vol1", TEST=="queue/read_ahead_kb", ATTR{queue/read_ahead_kb}="8"'
    assert audit.rules_set(line, props) == {'read_ahead_kb': '8'}
    props['ENV'] = {'ID_SERIAL_SHORT': 'X'}
    assert audit.rules_set(line, props) == {}


def test_foreign_array_on_a_member(fake_host):
    h = tuned_host(fake_host)
    h.add_disk('md126', '9:126', drop_queue=('scheduler', 'nr_requests'))
    h.write('sys/block/md126/md/level', 'raid1\n')
    h.write('sys/block/md126/md/array_state', 'clean\n')
    h.udev_db('9:126', {'MD_NAME': 'other:old'})
    os.symlink('../../md126', os.path.join(h.sys, 'block', 'vdc', 'holders', 'md126'))
    facts = gather(h)
    assert facts['arrays'][0]['members'][1]['foreign'] == [{'kname': 'md126', 'name': 'other:old', 'uuid': None}]


def test_inactive_array_found_by_name(fake_host):
    h = tuned_host(fake_host)
    os.unlink(os.path.join(h.dev, 'md', 'data'))
    h.write('sys/block/md127/md/array_state', 'inactive\n')
    array = gather(h)['arrays'][0]
    assert array['kname'] == 'md127' and array['running'] is False


def test_mdadm_conf_paths(fake_host):
    h = tuned_host(fake_host)
    os.unlink(os.path.join(h.root, 'etc/mdadm/mdadm.conf'))
    assert audit.mdadm_conf(h.view()) == {'path': '/etc/mdadm/mdadm.conf', 'present': False, 'lines': [],
                                          'text': None}
    h.write('etc/mdadm.conf', 'ARRAY /dev/md/x UUID=%s\n' % UUID.replace(':', '-'))
    conf = audit.mdadm_conf(h.view())
    assert conf['path'] == '/etc/mdadm.conf' and conf['lines'][0]['uuid'] == UUID
    assert conf['lines'][0]['device'] == '/dev/md/x'


def test_kernel_and_initramfs_seams(fake_host):
    h = tuned_host(fake_host)
    h.write('proc/sys/vm/swappiness', '60\n')
    seen = {'checked': True, 'image': '/boot/initrd.img-6.1', 'lines': [], 'error': None}
    facts = gather(h, sysctl={'vm.swappiness': 1}, read_initramfs=lambda: seen)
    assert facts['kernel']['drift'] == ['vm.swappiness: live 60, wanted 1']
    assert facts['initramfs'] is seen


def test_bad_tuning_entry_is_an_error_not_a_crash(fake_host):
    h = tuned_host(fake_host)
    facts = audit.gather(h.view(), ARRAYS, [{'md_name': 'data', 'scheduler': 'none'}], RULES)
    assert facts['errors'] and 'md arrays have no I/O scheduler' in facts['errors'][0]


def test_next_initramfs_lines(tmp_path):
    """The initramfs reader's result (module_utils/initramfs.py) in the form the comparison reads."""
    boot = tmp_path / 'boot'
    boot.mkdir()
    (boot / 'vmlinuz-6.1.0-27-amd64').write_text('')
    (boot / 'initramfs-6.1.0-27-amd64.img').write_text('')
    bins = tmp_path / 'bin'
    bins.mkdir()
    for tool in ('dracut', 'lsinitrd'):
        (bins / tool).write_text('')
        (bins / tool).chmod(0o755)

    def run(argv):
        if '-f' in argv:
            return 0, 'ARRAY /dev/md/data  metadata=1.2 UUID=%s\n  name=lab:data\n' % UUID.replace(':', '-'), ''
        return 0, fixture('initramfs', 'el9-lsinitrd.txt'), ''
    found = audit.next_initramfs(run, boot_dir=str(boot), bin_dirs=(str(bins),))
    assert found['checked'] and found['generator'] == 'dracut' and found['kernel'] == '6.1.0-27-amd64'
    assert found['lines'] == [{'line': 'ARRAY /dev/md/data metadata=1.2 UUID=%s name=lab:data' % UUID.replace(':', '-'),
                               'device': '/dev/md/data', 'uuid': UUID, 'name': 'lab:data'}]
    missing = audit.next_initramfs(run, boot_dir=str(tmp_path / 'none'), bin_dirs=(str(bins),))
    assert missing['checked'] is False and 'no kernel' in missing['error']
