# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Retiring an array (module_utils/retire.py) on a fake host with two arrays: data (kept) and data2 (retired).

Each refusal has its negative control (the same host without the cause retires), and each crash point of a retire
is a host left between two steps, which a second call with the same entry finishes."""

from __future__ import annotations

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils import mount_holds
from ansible_collections.iotune.storage.plugins.module_utils import retire as rt
from ansible_collections.iotune.storage.plugins.module_utils import service_limits

KEEP_UUID = '11111111:22222222:33333333:44444444'
UUID = 'a0021927:0e4f10bf:2c47dc72:ca0b352e'
DASHED = 'a0021927-0e4f-10bf-2c47-dc72ca0b352e'
CONF = '/etc/mdadm/mdadm.conf'
MARKER = '/var/lib/iotune-storage/initramfs-rebuild-pending'
OPTIONS = 'noatime,nofail,x-systemd.device-timeout=90s'
BINS = {'mdadm': 'mdadm', 'umount': 'umount', 'systemctl': 'systemctl'}
KEEP_LINE = 'ARRAY /dev/md/data metadata=1.2 UUID=%s name=any:data' % KEEP_UUID
LINE = 'ARRAY /dev/md/data2 metadata=1.2 UUID=%s name=any:data2' % UUID
FSTAB = ('LABEL=rootfs / ext4 errors=remount-ro 0 1\n'
         'UUID=fs-1111 /srv/data xfs %s 0 0\n'
         'UUID=fs-2222 /srv/data2 xfs %s 0 0\n' % (OPTIONS, OPTIONS))


def md(host, kname, majmin, name, uuid_dashed, members):
    host.add_disk(kname, majmin, slaves=members, node=True, drop_queue=('scheduler', 'nr_requests'))
    for member in members:
        os.symlink('../../%s' % kname, os.path.join(host.root, 'sys/class/block', member, 'holders', kname))
    for attr, value in (('level', 'raid0'), ('array_state', 'clean'), ('uuid', uuid_dashed)):
        host.write('sys/block/%s/md/%s' % (kname, attr), value + '\n')
    host.udev_db(majmin, {'MD_NAME': 'any:%s' % name, 'MD_DEVNAME': name})
    host.md_link(name, kname)


def build(host):
    """data on vdb+vdc (md126, /srv/data), data2 on vdd+vde (md127, /srv/data2); the stand-in unit held for
    /srv/data2 only, both.service for both mount points."""
    for i, kname in enumerate(['vdb', 'vdc', 'vdd', 'vde']):
        host.disk(kname, '254:%d' % (16 * (i + 1)))
    md(host, 'md126', '9:126', 'data', '11111111-2222-2222-3333-333344444444', ['vdb', 'vdc'])
    md(host, 'md127', '9:127', 'data2', DASHED, ['vdd', 'vde'])
    host.on(['blkid', '-p', '-o', 'export', '/dev/md126'], 0, 'TYPE=xfs\nUUID=fs-1111\n')
    host.on(['blkid', '-p', '-o', 'export', '/dev/md127'], 0, 'TYPE=xfs\nUUID=fs-2222\n')
    for kname, name, uuid in (('vdb', 'data', KEEP_UUID), ('vdc', 'data', KEEP_UUID), ('vdd', 'data2', DASHED),
                              ('vde', 'data2', DASHED)):
        host.on(['blkid', '-p', '-o', 'export', '/dev/%s' % kname], 0,
                'UUID=%s\nLABEL=any:%s\nTYPE=linux_raid_member\n' % (uuid, name))
    host.mount('9:126', '/srv/data', source='/dev/md126')
    host.mount('9:127', '/srv/data2', source='/dev/md127')
    host.write('etc/fstab', FSTAB)
    host.write(CONF.lstrip('/'), 'HOMEHOST <system>\n%s\n%s\n' % (KEEP_LINE, LINE))
    host.write(mount_holds.path('stand-in.service').lstrip('/'), mount_holds.dropin_text(['/srv/data2']))
    host.write(mount_holds.path('both.service').lstrip('/'), mount_holds.dropin_text(['/srv/data', '/srv/data2']))
    states(host, ['both.service', 'stand-in.service'], ['inactive', 'inactive'])
    host.on(['systemctl', 'daemon-reload'], 0)
    host.on(['umount', '/srv/data2'], lambda argv: unmount(host, '9:127'))
    host.on(['mdadm', '--stop', '/dev/md127'], lambda argv: stop(host))
    for kname in ('vdd', 'vde'):
        host.on(['mdadm', '--zero-superblock', '/dev/%s' % kname], lambda argv: zero(host, argv[-1]))
    return host


def states(host, units, active):
    """systemctl show's answer (Id and ActiveState, one block per unit) for the state of ``units``."""
    host.on(rt.show_argv('systemctl', units), 0,
            '\n'.join('Id=%s\nActiveState=%s\n' % pair for pair in zip(units, active)))


def limits(host, *units):
    """The limits drop-in the xfs role writes for each of ``units``."""
    for unit in units:
        host.write(service_limits.path(unit).lstrip('/'), service_limits.text({'LimitNOFILE': '100000'}))


def has_limits(host, unit):
    return os.path.exists(os.path.join(host.root, service_limits.path(unit).lstrip('/')))


def unmount(host, majmin):
    host.mountinfo = [line for line in host.mountinfo if ' %s ' % majmin not in line]
    host._write_mountinfo()
    return 0, '', ''


def stop(host):
    """What mdadm --stop leaves: no md127, no /dev/md/data2, the members free (superblocks stay)."""
    import shutil
    for path in ('sys/block/md127', 'sys/class/block/md127', 'sys/dev/block/9:127', 'dev/md/data2',
                 'sys/class/block/vdd/holders/md127', 'sys/class/block/vde/holders/md127'):
        full = os.path.join(host.root, path)
        if os.path.islink(full) or os.path.isfile(full):
            os.unlink(full)
        elif os.path.isdir(full):
            shutil.rmtree(full)
    return 0, '', ''


def zero(host, member):
    host.on(['blkid', '-p', '-o', 'export', member], 2)
    return 0, '', ''


@pytest.fixture
def host(fake_host):
    return build(fake_host)


def params(**kw):
    p = {'name': 'data2', 'confirm_name': 'data2', 'confirm_uuid': UUID, 'zero_superblocks': False, 'services': [],
         'conf_path': CONF, 'rebuild_marker': MARKER, 'fstab': '/etc/fstab'}
    p.update(kw)
    return p


def call(host, check_mode=False, **kw):
    return rt.ArrayRetire(params(**kw), host.view(), host.run, BINS, check_mode=check_mode).call()


def refused(host, **kw):
    with pytest.raises(rt.RetireError) as e:
        call(host, **kw)
    return e.value.data['problems']


def changes(host):
    """The commands that change the host (blkid, systemctl is-active and the readers are not)."""
    return [c for c in host.calls if c[0] in ('umount', 'mdadm') or c[:2] == ['systemctl', 'daemon-reload']]


# --- the whole retire -----------------------------------------------------------------------------


def test_retire_in_order_and_the_other_array_untouched(host):
    result = call(host)
    assert result['changed'] and result['state'] == 'running'
    assert result['steps'] == ['holds', 'unmount', 'fstab', 'conf', 'stop']
    assert result['mountpoints'] == ['/srv/data2'] and result['members'] == ['/dev/vdd', '/dev/vde']
    assert result['services'] == ['both.service', 'stand-in.service']
    assert changes(host) == [['umount', '/srv/data2'], ['systemctl', 'daemon-reload'], ['mdadm', '--stop', '/dev/md127']]
    # fstab: the other array's line kept, this one gone
    assert host.read('etc/fstab') == FSTAB.replace('UUID=fs-2222 /srv/data2 xfs %s 0 0\n' % OPTIONS, '')
    # mdadm.conf: the other array's line as it was; this one replaced by the line that keeps it from being assembled
    assert host.read(CONF.lstrip('/')) == 'HOMEHOST <system>\n%s\nARRAY <ignore> UUID=%s\n' % (KEEP_LINE, UUID)
    assert os.path.exists(os.path.join(host.root, MARKER.lstrip('/'))) and result['rebuild_pending']
    # the drop-ins: the one that held only /srv/data2 removed, the one that held both keeps /srv/data
    assert not os.path.exists(os.path.join(host.root, mount_holds.path('stand-in.service').lstrip('/')))
    assert host.read(mount_holds.path('both.service').lstrip('/')) == mount_holds.dropin_text(['/srv/data'])
    assert '/srv/data' in host.read('proc/self/mountinfo')
    assert not any('md126' in ' '.join(c) for c in changes(host))


def test_a_second_call_finds_nothing_to_do(host):
    call(host)
    host.calls[:] = []
    os.unlink(os.path.join(host.root, MARKER.lstrip('/')))      # the raid0 role's rebuild ran
    again = call(host)
    assert not again['changed'] and again['steps'] == [] and again['state'] == 'retired'
    assert 'retired already' in again['status'] and not again['rebuild_pending']
    assert changes(host) == [] and not host.ran(['blkid'])       # no scan: the <ignore> line says it all


def test_zero_superblocks_only_when_asked_and_then_no_line_at_all(host):
    result = call(host, zero_superblocks=True)
    assert result['steps'] == ['holds', 'unmount', 'fstab', 'conf', 'stop', 'zero', 'unignore']
    assert changes(host)[-2:] == [['mdadm', '--zero-superblock', '/dev/vdd'], ['mdadm', '--zero-superblock', '/dev/vde']]
    assert host.read(CONF.lstrip('/')) == 'HOMEHOST <system>\n%s\n' % KEEP_LINE
    host.calls[:] = []
    again = call(host, zero_superblocks=True)
    assert not again['changed'] and again['state'] == 'gone' and 'nothing to do' in again['status']
    assert changes(host) == []
    # negative control: without the opt-in no superblock is zeroed
    assert not host.ran(['mdadm', '--zero-superblock'])


def test_check_mode_predicts_everything_and_changes_nothing(host):
    before = dict((p, host.read(p)) for p in ('etc/fstab', CONF.lstrip('/'), 'proc/self/mountinfo'))
    result = call(host, check_mode=True, zero_superblocks=True)
    assert result['changed'] and len(result['done']) == 7
    assert changes(host) == []
    assert dict((p, host.read(p)) for p in before) == before
    assert not os.path.exists(os.path.join(host.root, MARKER.lstrip('/')))
    paths = [d['before_header'] for d in result['diff']]
    assert paths == [mount_holds.path('both.service'), mount_holds.path('stand-in.service'), '/etc/fstab', CONF]
    assert result['diff'][-1]['after'] == 'HOMEHOST <system>\n%s\n' % KEEP_LINE


# --- the services' limits drop-ins (the xfs role writes them with the mount holds) -----------------------------------


def test_the_limits_drop_ins_of_the_array_s_services_go_first_unless_another_array_keeps_the_unit(host):
    # stand-in: held for /srv/data2 only; both: held for /srv/data too; db: named by the entry, kept by the plan;
    # old: named by the entry, no other array
    limits(host, 'stand-in.service', 'both.service', 'db.service', 'old.service')
    states(host, ['db.service', 'old.service', 'both.service', 'stand-in.service'], ['inactive'] * 4)
    result = call(host, services=['db', 'old'], keep_services=['db.service'])
    assert result['steps'] == ['limits', 'holds', 'unmount', 'fstab', 'conf', 'stop']
    assert result['done'][0] == 'limits drop-ins removed: %s, %s' % (service_limits.path('old.service'),
                                                                     service_limits.path('stand-in.service'))
    assert not has_limits(host, 'stand-in.service') and not has_limits(host, 'old.service')
    # negative controls: a unit of another array keeps its limits drop-in
    assert has_limits(host, 'both.service') and has_limits(host, 'db.service')
    # one reload for the drop-ins and the fstab lines
    assert changes(host).count(['systemctl', 'daemon-reload']) == 1
    assert not call(host, services=['db', 'old'], keep_services=['db.service'])['changed']


def test_a_unit_held_for_another_array_only_keeps_its_limits(host):
    host.write(mount_holds.path('other.service').lstrip('/'), mount_holds.dropin_text(['/srv/data']))
    limits(host, 'other.service')
    states(host, ['other.service', 'both.service', 'stand-in.service'], ['inactive'] * 3)
    result = call(host, services=['other.service'])
    assert 'limits' not in result['steps'] and has_limits(host, 'other.service')


def test_check_mode_predicts_the_limits_step_and_removes_nothing(host):
    limits(host, 'stand-in.service')
    result = call(host, check_mode=True)
    assert result['steps'][0] == 'limits' and has_limits(host, 'stand-in.service')
    assert result['diff'][0] == {'before_header': service_limits.path('stand-in.service'),
                                 'after_header': service_limits.path('stand-in.service'),
                                 'before': service_limits.text({'LimitNOFILE': '100000'}), 'after': ''}
    assert changes(host) == []


def test_a_crash_after_the_limits_step_is_finished_by_the_next_call(host, monkeypatch):
    limits(host, 'stand-in.service', 'both.service')

    def crash(self):
        raise Crash('holds')
    real = rt.ArrayRetire.do_holds
    monkeypatch.setattr(rt.ArrayRetire, 'do_holds', crash)
    with pytest.raises(Crash):
        call(host)
    monkeypatch.setattr(rt.ArrayRetire, 'do_holds', real)
    assert not has_limits(host, 'stand-in.service')
    # the holds are still there: the next call finds the units by them and goes on with the holds
    result = call(host)
    assert result['steps'] == ['holds', 'unmount', 'fstab', 'conf', 'stop']
    assert has_limits(host, 'both.service')
    assert not call(host)['changed']


def test_nothing_of_a_typo_is_removed(host):
    limits(host, 'old.service')
    result = call(host, name='old', confirm_name='old', confirm_uuid='99999999:99999999:99999999:99999999',
                  services=['old'])
    assert not result['changed'] and has_limits(host, 'old.service')


def test_a_second_run_is_changed_0_also_while_a_listed_service_runs_again(host):
    states(host, ['db.service', 'both.service', 'stand-in.service'], ['inactive'] * 3)
    call(host, services=['db'])
    os.unlink(os.path.join(host.root, MARKER.lstrip('/')))      # the raid0 role's rebuild ran
    # db runs again (on another array, or the user started it): the array is retired already, nothing to refuse
    states(host, ['db.service'], ['active'])
    host.calls[:] = []
    again = call(host, services=['db'])
    assert not again['changed'] and again['state'] == 'retired' and again['steps'] == []
    assert not host.ran(['systemctl'])
    # negative control: while the array still runs, a running unit of the entry is refused
    md(host, 'md127', '9:127', 'data2', DASHED, ['vdd', 'vde'])
    states(host, ['db.service'], ['active'])
    assert 'db.service is running' in refused(host, services=['db'])[0]


# --- refusals before any change, each with its negative control -------------------------------------------------


@pytest.mark.parametrize('kw, expected', [
    ({'confirm_name': 'data'}, "confirm_name 'data' is not the name 'data2'"),
    ({'confirm_uuid': 'a0021927'}, "confirm_uuid 'a0021927' is not an md UUID"),
    ({'confirm_uuid': KEEP_UUID}, '/dev/md/data2 runs as UUID %s, not %s (confirm_uuid)' % (UUID, KEEP_UUID)),
    ({'name': 'data', 'confirm_name': 'data'}, '/dev/md/data runs as UUID %s, not %s' % (KEEP_UUID, UUID)),
])
def test_a_mismatch_is_refused_naming_what_the_host_has(host, kw, expected):
    problems = refused(host, **kw)
    assert expected in problems[0], problems
    assert changes(host) == []


def test_the_dashed_uuid_of_blkid_is_the_same_uuid(host):
    assert call(host, check_mode=True, confirm_uuid=DASHED)['changed']


def test_refused_while_a_listed_service_is_active(host):
    states(host, ['both.service', 'stand-in.service'], ['inactive', 'active'])
    assert refused(host) == ["retire 'data2': stand-in.service is running; stop it first (a retire never stops a "
                             'service)']
    assert changes(host) == []
    # the entry's own services are asked too (a name without a suffix is a .service)
    states(host, ['db.service', 'both.service', 'stand-in.service'], ['active', 'inactive', 'inactive'])
    assert 'db.service is running' in refused(host, services=['db'])[0]
    # negative control: stopped, it retires
    states(host, ['both.service', 'stand-in.service'], ['inactive', 'failed'])
    assert call(host)['changed']


def test_refused_when_systemctl_show_does_not_answer_for_each_unit(host):
    host.on(rt.show_argv('systemctl', ['both.service', 'stand-in.service']), 0, 'Id=both.service\nActiveState=inactive\n')
    assert refused(host) == ["retire 'data2': systemctl show did not answer for each of both.service, "
                             'stand-in.service; nothing is retired']


def test_refused_while_mounted_elsewhere_or_held_or_in_use(host):
    host.mount('9:127', '/mnt/copy', source='/dev/md127')
    host.swap('/dev/md127')
    problems = refused(host)
    assert 'is mounted on /mnt/copy, which no fstab line of its filesystem gives' in problems[0]
    assert problems[1] == "retire 'data2': /dev/md127 is in use as swap"
    assert changes(host) == []


def test_refused_while_a_process_uses_a_file_or_the_device(host):
    proc = os.path.join(host.root, 'proc', '4242')
    os.makedirs(os.path.join(proc, 'fd'))
    host.write('proc/4242/comm', 'java\n')
    host.write('proc/4242/maps', '')
    os.makedirs(os.path.join(host.root, 'srv/data2/db'), exist_ok=True)
    os.symlink('/', os.path.join(proc, 'cwd'))
    os.symlink('/dev/md127', os.path.join(proc, 'fd', '3'))
    problems = refused(host)
    assert problems == ["retire 'data2': 1 process(es) use it: pid 4242 (java, open /dev/md127); stop them first"]
    # negative control: the descriptor closed
    os.unlink(os.path.join(proc, 'fd', '3'))
    assert call(host, check_mode=True)['changed']


def test_refused_while_held_by_a_device_mapper_map(host):
    host.add_disk('dm-3', '253:3', slaves=['md127'])
    host.write('sys/block/dm-3/dm/name', 'vg-lv\n')
    host.write('sys/block/dm-3/dm/uuid', 'LVM-xyz\n')
    os.symlink('../../dm-3', os.path.join(host.root, 'sys/class/block/md127/holders/dm-3'))
    assert refused(host) == ["retire 'data2': /dev/md127 is held by LVM logical volume vg-lv (/dev/dm-3); remove "
                             'that first']


# --- a crash at each point: the next call finishes the job --------------------------------------------------------


class Crash(Exception):
    pass


@pytest.mark.parametrize('crash_at, left', [
    (['umount', '/srv/data2'], ['unmount', 'fstab', 'conf', 'stop']),        # the drop-ins are gone already
    (['systemctl', 'daemon-reload'], ['conf', 'stop']),                      # unmounted, fstab line removed
    (['mdadm', '--stop', '/dev/md127'], ['stop']),                           # mdadm.conf and the marker written
])
def test_a_crash_between_two_steps_is_finished_by_the_next_call(host, crash_at, left):
    real = host.commands[tuple(crash_at)]

    def crash(argv):
        raise Crash(argv)
    host.on(crash_at, crash)
    with pytest.raises(Crash):
        call(host)
    host.on(crash_at, real)
    host.calls[:] = []
    result = call(host)
    assert result['steps'] == left
    assert result['rebuild_pending']            # the marker (or mdadm.conf changed now): the rebuild is owed
    assert host.read(CONF.lstrip('/')) == 'HOMEHOST <system>\n%s\nARRAY <ignore> UUID=%s\n' % (KEEP_LINE, UUID)
    assert 'fs-2222' not in host.read('etc/fstab')
    assert not call(host)['changed']


RECORD = rt.UNITS_RECORD % UUID.replace(':', '')


def record(host):
    """The record of the retire's units on the fake host, None when there is none."""
    path = os.path.join(host.root, RECORD.lstrip('/'))
    return open(path).read() if os.path.exists(path) else None


def crash_at_the_unmount(host):
    """A retire that stops at its unmount (after the limits and holds steps); the host's umount is back after it."""
    def crash(argv):
        raise Crash(argv)
    real = host.commands[('umount', '/srv/data2')]
    host.on(['umount', '/srv/data2'], crash)
    with pytest.raises(Crash):
        call(host)
    host.on(['umount', '/srv/data2'], real)


def test_a_crash_after_the_holds_went_still_checks_the_units_they_named(host):
    # the crash comes at the unmount: the limits drop-ins and the mount holds are gone, and with them the only place
    # that named stand-in.service (the entry lists no service); the record of the retire's units names it
    crash_at_the_unmount(host)
    assert not os.path.exists(os.path.join(host.root, mount_holds.path('stand-in.service').lstrip('/')))
    assert record(host).splitlines()[1:] == ['both.service', 'stand-in.service']
    assert oct(os.stat(os.path.join(host.root, RECORD.lstrip('/'))).st_mode & 0o777) == '0o600'
    # the unit started meanwhile: the next run refuses, naming it, before any change
    states(host, ['both.service', 'stand-in.service'], ['inactive', 'active'])
    host.calls[:] = []
    assert refused(host) == ["retire 'data2': stand-in.service is running; stop it first (a retire never stops a "
                             'service)']
    assert changes(host) == []
    # stopped again, the run finishes the retire and the record goes with the stop
    states(host, ['both.service', 'stand-in.service'], ['inactive', 'inactive'])
    result = call(host)
    assert result['steps'] == ['unmount', 'fstab', 'conf', 'stop']
    assert result['services'] == ['both.service', 'stand-in.service']
    assert record(host) is None
    assert not call(host)['changed']


def test_without_the_record_a_unit_known_only_by_its_hold_is_not_asked(host):
    # negative control of the test above: the same crash, the record removed by hand: nothing names stand-in.service
    crash_at_the_unmount(host)
    os.unlink(os.path.join(host.root, RECORD.lstrip('/')))
    states(host, ['both.service', 'stand-in.service'], ['inactive', 'active'])
    assert call(host)['steps'] == ['unmount', 'fstab', 'conf', 'stop']


def test_no_record_without_a_hold_and_none_in_check_mode(host):
    call(host, check_mode=True)
    assert record(host) is None
    for unit in ('stand-in.service', 'both.service'):
        os.unlink(os.path.join(host.root, mount_holds.path(unit).lstrip('/')))
    states(host, ['db.service'], ['inactive'])
    assert call(host, services=['db'])['changed'] and record(host) is None


def test_a_record_left_after_the_stop_is_removed_by_the_next_run(host):
    host.write(RECORD.lstrip('/'), '# x\nstand-in.service\n')
    stop(host)
    host.write(CONF.lstrip('/'), 'HOMEHOST <system>\n%s\nARRAY <ignore> UUID=%s\n' % (KEEP_LINE, UUID))
    host.write('etc/fstab', FSTAB.replace('UUID=fs-2222 /srv/data2 xfs %s 0 0\n' % OPTIONS, ''))
    for unit in ('stand-in.service', 'both.service'):
        os.unlink(os.path.join(host.root, mount_holds.path(unit).lstrip('/')))
    result = call(host)
    assert result['steps'] == ['record'] and result['changed'] and record(host) is None
    assert not host.ran(['systemctl'])          # a stopped array's units are not asked
    assert not call(host)['changed']


def test_an_unreadable_record_is_refused(host):
    host.write(RECORD.lstrip('/'), 'stand-in.service\n$(rm -rf /)\n')
    assert 'is not a list of unit names' in refused(host)[0]
    assert changes(host) == []


def test_a_crash_after_the_stop_zeroes_the_members_found_by_their_superblocks(host):
    def crash(argv):
        raise Crash(argv)
    host.on(['mdadm', '--zero-superblock', '/dev/vdd'], crash)
    with pytest.raises(Crash):
        call(host, zero_superblocks=True)
    host.on(['mdadm', '--zero-superblock', '/dev/vdd'], lambda argv: zero(host, argv[-1]))
    result = call(host, zero_superblocks=True)
    assert result['state'] == 'stopped' and result['members'] == ['/dev/vdd', '/dev/vde']
    assert result['steps'] == ['zero', 'unignore']
    assert host.read(CONF.lstrip('/')) == 'HOMEHOST <system>\n%s\n' % KEEP_LINE


def test_after_a_reboot_the_old_initramfs_assembled_it_again_and_the_next_call_stops_it(host):
    call(host)
    os.unlink(os.path.join(host.root, MARKER.lstrip('/')))
    # the crash came before the rebuild; the old initramfs (with the ARRAY line) assembled it at boot, unmounted
    md(host, 'md127', '9:127', 'data2', DASHED, ['vdd', 'vde'])
    host.write(MARKER.lstrip('/'), 'owed\n')
    result = call(host)
    assert result['steps'] == ['stop'] and result['rebuild_pending']


def test_a_typo_of_the_uuid_on_a_host_without_that_array_changes_nothing(host):
    result = call(host, name='old', confirm_name='old', confirm_uuid='99999999:99999999:99999999:99999999')
    assert not result['changed'] and result['state'] == 'gone'
    assert host.read(CONF.lstrip('/')) == 'HOMEHOST <system>\n%s\n%s\n' % (KEEP_LINE, LINE)


def test_conf_by_uuid_keeps_every_other_line():
    text = 'DEVICE partitions\n%s\n%s\nARRAY <ignore> UUID=%s\n' % (KEEP_LINE, LINE, UUID)
    assert rt.conf_by_uuid(text, UUID, None) == 'DEVICE partitions\n%s\n' % KEEP_LINE
    assert rt.conf_by_uuid(text, UUID, rt.ignore_line(UUID)) == 'DEVICE partitions\n%s\nARRAY <ignore> UUID=%s\n' % (
        KEEP_LINE, UUID)


@pytest.mark.parametrize('out, expected', [
    ('Id=a.service\nActiveState=active\n\nId=b.service\nActiveState=inactive\n', ['a.service']),
    ('Id=a.service\nActiveState=inactive\n\nId=b.service\nActiveState=failed\n', []),
    ('Id=a.service\nActiveState=deactivating\n\nId=b.service\nActiveState=activating\n', ['a.service', 'b.service']),
    ('Id=a.service\nActiveState=active\n', None),
    ('Id=a.service\nActiveState=active\n\nId=b.service\n', None),
])
def test_running_units(out, expected):
    assert rt.running_units(['a.service', 'b.service'], out) == expected


# --- refusals added after the review of session 13 ---------------------------------------------------------------

def test_refused_while_something_is_mounted_under_its_mount_point(host):
    """umount would fail with EBUSY after the holds and limits steps: refused before any change; the control: the
    same host without the nested mount retires."""
    host.mount('9:126', '/srv/data2/nested', source='/dev/md126')
    problems = refused(host)
    assert any('/srv/data2/nested is mounted under its mount point /srv/data2' in p for p in problems), problems
    assert changes(host) == []


def test_the_nested_mount_control_retires(host):
    call(host)
    assert ['umount', '/srv/data2'] in host.calls


def test_an_ephemeral_array_is_refused_until_its_boot_unit_is_gone(host):
    host.write('etc/iotune-storage/ephemeral/data2.json', '{}\n')
    problems = refused(host)
    assert any('is an ephemeral array (/etc/iotune-storage/ephemeral/data2.json)' in p for p in problems), problems
    assert changes(host) == []
    os.unlink(os.path.join(host.root, 'etc/iotune-storage/ephemeral/data2.json'))
    host.write('etc/systemd/system/iotune-ephemeral-data2.service', '[Unit]\n')
    assert any('iotune-ephemeral-data2.service' in p for p in refused(host))


def test_an_array_with_no_member_on_the_host_and_its_array_line_is_refused(host):
    """Members detached: the ARRAY line alone would go, the fstab line and holds (unreadable) would stay."""
    stop(host)
    for kname in ('vdd', 'vde'):
        zero(host, '/dev/%s' % kname)
    problems = refused(host)
    assert any('no member of the array of UUID %s is on this host, but mdadm.conf has its ARRAY line' % UUID in p
               for p in problems), problems
    assert changes(host) == []
    assert LINE in host.read(CONF.lstrip('/'))
