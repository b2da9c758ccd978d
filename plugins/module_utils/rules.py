# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one home of every value rule that both the controller-side plan (plugin_utils/plan.py) and the
modules apply: md array names, chunk sizes, readahead, XFS labels and stripe width, device classes,
I/O scheduler names, transparent huge page choices, sysctl names and ranges, refused mount options.

Each rule is a constant and a predicate (or a function returning the problems found); the callers word the
message in their own terms (the option name the user wrote). tests/unit/plugins/plugin_utils/test_rules.py
runs the plan and each module's validator over the same samples and fails when they disagree. Pure
functions: no host access, importable on the controller and in the ephemeral role's boot program.
"""

from __future__ import annotations

import difflib
import re

# ---------------------------------------------------------------------------------------------
# md arrays and XFS

# mdadm --create --name: the name goes into the superblock (32 bytes, with the host part) and becomes
# /dev/md/NAME; "." and ".." would be path components.
MD_NAME_RE = re.compile(r'[A-Za-z0-9_.-]{1,32}')
# md chunk / XFS stripe unit in KiB: a power of two, at least 4 (the page size).
CHUNK_MIN_KB = 4
# XFS labels hold at most 12 characters (xfs_admin -L); the plan derives one from the array name.
XFS_LABEL_MAX = 12
XFS_LABEL_RE = re.compile(r'[A-Za-z0-9_.+-]{1,%d}' % XFS_LABEL_MAX)
# mkfs.xfs (xfsprogs 6.1) refuses a stripe width of 2 GiB or more: "stripe width (2147483648) is too large".
XFS_MAX_SWIDTH_BYTES = 2 ** 31 - 1
# XFS mount options removed from the kernel (the mount fails), or that would defeat the fstab line written.
REFUSED_MOUNT_OPTIONS = {
    'barrier': 'removed from XFS in Linux 4.19; the mount fails',
    'nobarrier': 'removed from XFS in Linux 4.19; the mount fails',
    'noauto': 'the filesystem would not be mounted at boot',
    'defaults': 'not needed; list only the options you want',
    'norecovery': 'XFS mounts with it only read-only (and skips log recovery); a database filesystem must be writable',
    'discard': ('online discard comes only from the profile\'s discard policy (discard_by_class: {CLASS: online}), '
                'which decides it from the array\'s members; docs/xfs.md, "Discard"'),
}
# The mkfs.xfs options a profile may set (its ``mkfs`` section, docs/xfs.md "mkfs options"): only those a source asks
# for. discard: false runs mkfs.xfs -K (no discard of the whole device before the filesystem is written), as ScyllaDB's
# scylla_raid_setup does and AWS asks for on instance store, which is trimmed before it is handed to the instance.
MKFS_KEYS = ('discard',)
# The discard policy of an array's filesystem (a profile's discard_by_class, keyed by the member classes
# QUEUE_CLASSES below), from the most conservative to the least: none (nothing scheduled, no mount option),
# fstrim_timer (util-linux's weekly fstrim.timer), online (the mount option discard). An array whose members' classes
# differ takes the most conservative of theirs.
DISCARD_POLICIES = ('none', 'fstrim_timer', 'online')

# options that XFS takes only together: one without the other fails the mount
MOUNT_OPTIONS_TOGETHER = (('sunit', 'swidth'),)

# The mount options accepted (an allow-list: a typo such as noatme is refused before anything changes, not found
# by a mount that fails at boot). XFS's own (kernel Documentation/admin-guide/xfs.rst), then mount(8)'s
# filesystem-independent ones and what systemd and SELinux read from fstab; KEY= takes a value.
XFS_MOUNT_OPTIONS = frozenset([
    'allocsize=', 'discard', 'nodiscard', 'grpid', 'bsdgroups', 'nogrpid', 'sysvgroups', 'filestreams',
    'inode32', 'inode64', 'largeio', 'nolargeio', 'logbufs=', 'logbsize=', 'logdev=', 'rtdev=', 'noalign',
    'norecovery', 'nouuid', 'noquota', 'uquota', 'usrquota', 'quota', 'uqnoenforce', 'qnoenforce', 'gquota',
    'grpquota', 'gqnoenforce', 'pquota', 'prjquota', 'pqnoenforce', 'sunit=', 'swidth=', 'swalloc', 'wsync',
    'dax', 'dax=', 'attr2', 'noattr2', 'ikeep', 'noikeep',
])
GENERIC_MOUNT_OPTIONS = frozenset([
    'async', 'sync', 'dirsync', 'atime', 'noatime', 'diratime', 'nodiratime', 'relatime', 'norelatime',
    'strictatime', 'nostrictatime', 'lazytime', 'nolazytime', 'dev', 'nodev', 'exec', 'noexec', 'suid', 'nosuid',
    'ro', 'rw', 'iversion', 'noiversion', 'silent', 'loud', 'nofail', '_netdev', 'nosymfollow', 'auto',
    'user', 'users', 'nouser', 'owner', 'group', 'seclabel',
    'comment=', 'context=', 'fscontext=', 'defcontext=', 'rootcontext=',
])
# mount(8) leaves every x-... and X-... option to userspace (x-systemd.device-timeout=, X-fstrim.notrim, ...)
MOUNT_OPTION_PREFIXES = ('x-', 'X-')

# ---------------------------------------------------------------------------------------------
# block devices

# sysfs read_ahead_kb is parsed as an unsigned int; anything above 1 GiB is treated as a units
# mistake (e.g. a sector count written as KiB) rather than a wish.
READ_AHEAD_MAX_KB = 1048576
# the classes a profile's scheduler_by_class is keyed by (module_utils/sysfs_block.py decides a device's class)
DEVICE_CLASSES = ('nvme', 'virtual', 'ssd', 'hdd')
# single-queue schedulers that blk-mq kernels reject (writing one fails with EINVAL), and what to use instead;
# whether a device offers a scheduler is the host's to say (udev_block_tuning's validation)
LEGACY_SCHEDULERS = {
    'noop': 'none',
    'cfq': 'bfq or mq-deadline',
    'anticipatory': 'mq-deadline',
}
# names the rules file writes as their blk-mq name
SCHEDULER_ALIASES = {'deadline': 'mq-deadline'}

# Queue settings beyond readahead and the scheduler (docs/block_tuning.md, "Queue settings"): the values a sysfs
# queue file takes and reads back unchanged. nomerges and rq_affinity: 0, 1 or 2 (rq_affinity ignores other values
# without an error). nr_requests: the kernel raises a value below 4 (BLKDEV_MIN_RQ) to 4 and refuses more than 2048
# (MAX_SCHED_RQ) with a scheduler; without one the device's tag depth is the limit (the host's verify names it).
# max_sectors_kb: at least a page and a whole number of 4 KiB (the kernel rounds the limit down to the logical block
# size); the host checks max_hw_sectors_kb. io_timeout (ms): the kernel keeps it in jiffies and a value of 2^31 ms or
# more becomes its "infinite" jiffy count, which reads back as another number that depends on CONFIG_HZ; whole
# seconds below 2^31 ms read back exactly at any HZ, so the live check can prove them.
NOMERGES_CHOICES = (0, 1, 2)
RQ_AFFINITY_CHOICES = (0, 1, 2)
NR_REQUESTS_RANGE = (4, 2048)
MAX_SECTORS_KB_STEP = 4
IO_TIMEOUT_MS_RANGE = (1000, 2147483000)
# queue/write_cache reads "write back" or "write through"; writing it changes only what the kernel believes about the
# disk's cache (whether it sends flushes): "write through" on a disk whose cache is volatile loses acknowledged
# writes at a power loss. An explicit per-array opt-in only (iotune_arrays[].write_cache), never a profile value.
WRITE_CACHE_CHOICES = ('write back', 'write through')
# the member classes queue_by_class is keyed by: the device classes, and the cloud disks that are NVMe devices of
# their own kind (block_tuning.cloud_class: EBS volumes, instance store); an EBS member takes nvme's values, then ebs's
CLOUD_CLASSES = ('ebs', 'instance_store')
QUEUE_CLASSES = DEVICE_CLASSES + CLOUD_CLASSES
# the settings of queue_by_class (and of a profile's array.queue: only those an md array's queue has)
QUEUE_KEYS = ('nomerges', 'rq_affinity', 'nr_requests', 'max_sectors_kb', 'io_timeout')
ARRAY_QUEUE_KEYS = ('nomerges', 'max_sectors_kb')
# settings that only some classes may carry: AWS asks for a long NVMe timeout on EBS volumes, not on instance store
# (amazon-ec2-utils PR #8, bottlerocket #2758), whose failures must surface
QUEUE_KEY_CLASSES = {'io_timeout': ('ebs',)}

# ---------------------------------------------------------------------------------------------
# kernel settings

THP_KEYS = ('enabled', 'defrag', 'khugepaged_max_ptes_none')
THP_CHOICES = {'enabled': ('always', 'madvise', 'never'),
               'defrag': ('always', 'defer', 'defer+madvise', 'madvise', 'never')}
# HPAGE_PMD_NR - 1 on x86-64
THP_MAX_PTES_NONE = 511
# CPU frequency governor and clocksource (issue 27): host settings beside the storage ones, optional per profile.
# The kernel's cpufreq governors a database host may run; ``userspace`` is left out (it holds whatever frequency a
# daemon sets, and none does here).
CPU_GOVERNORS = ('performance', 'schedutil', 'ondemand', 'conservative', 'powersave')
# The kernel's clocksources a host may be switched to (x86: tsc, kvm-clock, xen, Hyper-V's, hpet, acpi_pm; arm64:
# arch_sys_counter); jiffies, refined-jiffies and pit are the fallbacks of a broken host, never a choice.
CLOCKSOURCES = ('tsc', 'kvm-clock', 'xen', 'hyperv_clocksource_tsc_page', 'hyperv_clocksource_msr', 'hpet', 'acpi_pm',
                'arch_sys_counter')
CPU_CLOCK_KEYS = ('cpu_governor', 'clocksource')
# sysctl.d(5) accepts vm.swappiness and vm/swappiness; no globs (each name is read back live)
SYSCTL_NAME_RE = re.compile(r'[a-z][a-z0-9_]*([./][a-z0-9_][a-z0-9_-]*)+')
# (minimum, maximum) the kernel accepts; None = no upper bound checked here; others: (0, None)
SYSCTL_RANGES = {
    'vm.swappiness': (0, 200), 'vm.zone_reclaim_mode': (0, 7), 'vm.overcommit_memory': (0, 2),
    'vm.dirty_ratio': (0, 100), 'vm.dirty_background_ratio': (0, 100),
    'vm.dirty_bytes': (8192, None), 'vm.dirty_background_bytes': (0, None), 'vm.max_map_count': (65530, None),
}
# writing one of a pair resets the other to 0 in the kernel: a file setting both keeps only the later line
SYSCTL_EXCLUSIVE = (('vm.dirty_bytes', 'vm.dirty_ratio'), ('vm.dirty_background_bytes', 'vm.dirty_background_ratio'))
# The sysctls database vendors' tuning guides and tuners set (docs/profiles.md, "Which sysctls"): a profile's and
# iotune_profile_overrides' kernel.sysctl may set these; any other goes into kernel.extra_sysctl, on purpose.
SYSCTL_DATABASE = frozenset((
    # memory and writeback: DataStax, MongoDB production notes, Cloudera and Canonical Kafka guides
    'vm.swappiness', 'vm.zone_reclaim_mode', 'vm.max_map_count', 'vm.overcommit_memory', 'vm.min_free_kbytes',
    'vm.dirty_ratio', 'vm.dirty_background_ratio', 'vm.dirty_bytes', 'vm.dirty_background_bytes',
    'vm.dirty_expire_centisecs', 'vm.dirty_writeback_centisecs',
    # asynchronous I/O and files: Scylla's and Redpanda's tuners (fs.aio-max-nr), DataStax (file handles)
    'fs.aio-max-nr', 'fs.file-max', 'fs.nr_open',
    # NUMA: MongoDB production notes (automatic NUMA balancing off)
    'kernel.numa_balancing',
    # network: DataStax recommended settings (keepalive, socket buffers, backlog), MongoDB production notes
    'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes',
    'net.core.rmem_max', 'net.core.wmem_max', 'net.core.rmem_default', 'net.core.wmem_default',
    'net.core.optmem_max', 'net.core.netdev_max_backlog', 'net.core.somaxconn',
))
# Writing these performs an action once instead of keeping a setting (drop the page cache, compact memory, flush
# the route cache): a sysctl.d file would repeat it at every boot and every run. Refused everywhere, also in
# kernel.extra_sysctl, by the plan and by the kernel_settings module.
SYSCTL_ACTIONS = frozenset(('vm.drop_caches', 'vm.compact_memory', 'vm.stat_refresh', 'net.ipv4.route.flush',
                            'net.ipv6.route.flush'))


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def valid_md_name(value):
    """True for an md array name: 1-32 letters, digits, '.', '_' or '-', not '.' or '..'."""
    return isinstance(value, str) and MD_NAME_RE.fullmatch(value) is not None and value not in ('.', '..')


def valid_chunk_kb(value):
    """True for an md chunk / XFS stripe unit in KiB: a power of two and at least 4."""
    return _is_int(value) and value >= CHUNK_MIN_KB and not value & (value - 1)


def valid_xfs_label(value):
    """True for an XFS label: 1-12 letters, digits or _ . + -."""
    return isinstance(value, str) and XFS_LABEL_RE.fullmatch(value) is not None


def valid_read_ahead_kb(value):
    """True for a readahead in KiB the tuning accepts: 0..READ_AHEAD_MAX_KB."""
    return _is_int(value) and 0 <= value <= READ_AHEAD_MAX_KB


def scheduler_problem(name):
    """Why a scheduler name is refused, or None: not a name, or a legacy single-queue scheduler (surrounding blanks
    are ignored, as the rules file writes the name without them)."""
    if not isinstance(name, str) or not name.strip():
        return 'must be a scheduler name, got %r' % (name,)
    name = name.strip()
    if name in LEGACY_SCHEDULERS:
        return ('scheduler %r is a legacy single-queue scheduler that blk-mq kernels reject (EINVAL); use %r instead'
                % (name, LEGACY_SCHEDULERS[name]))
    return None


def did_you_mean(key, candidates, most=3):
    """' (did you mean X or Y?)' naming the keys closest to a mistyped ``key`` (its whole dotted form, or its last
    part against theirs: ``readahead_kb`` -> ``array.read_ahead_kb``), at most ``most`` of them, or '' when none is
    close. The plan's unknown keys and the mount option allow-list both name their suggestions with it."""
    key = str(key)
    close = difflib.get_close_matches(key, candidates, n=most, cutoff=0.75)
    by_leaf = {}
    for candidate in candidates:
        by_leaf.setdefault(candidate.rsplit('.', 1)[-1], []).append(candidate)
    parent = key.rsplit('.', 1)[0] + '.' if '.' in key else ''
    for leaf in difflib.get_close_matches(key.rsplit('.', 1)[-1], list(by_leaf), n=2, cutoff=0.75):
        # a key under a parent (array.readahead) is matched with that parent's keys first
        same_parent = [c for c in by_leaf[leaf] if c.startswith(parent)] or by_leaf[leaf]
        close.extend(c for c in same_parent if c not in close)
    return ' (did you mean %s?)' % ' or '.join(close[:most]) if close else ''


def mount_option_problem(option):
    """Why one mount option is refused, or None: not one option (a comma or a space), REFUSED_MOUNT_OPTIONS, or
    not an XFS or mount(8) option (with the closest known ones)."""
    if not isinstance(option, str) or not option or re.search(r'[\s,]', option):
        return '%r is not one mount option (no commas or spaces)' % (option,)
    key, eq, value = option.partition('=')
    if key in REFUSED_MOUNT_OPTIONS:
        return '%s is refused: %s' % (option, REFUSED_MOUNT_OPTIONS[key])
    prefix = next((p for p in MOUNT_OPTION_PREFIXES if key.startswith(p)), None)
    if prefix is not None and len(key) > len(prefix):
        return None
    known = XFS_MOUNT_OPTIONS | GENERIC_MOUNT_OPTIONS
    if key + eq in known and (not eq or value):
        return None
    if key + '=' in known and not eq:
        return '%s needs a value (%s=...)' % (option, key)
    if eq and key in known:
        return '%s takes no value' % option
    return '%s is not an XFS or mount(8) option%s' % (
        option, did_you_mean(key, sorted(o.rstrip('=') for o in known), most=2))


def mount_option_set_problems(options):
    """Why a list of (each valid) mount options is refused as a whole: an option XFS takes only with another."""
    keys = set(str(option).partition('=')[0] for option in options)
    problems = []
    for pair in MOUNT_OPTIONS_TOGETHER:
        given = [key for key in pair if key in keys]
        if len(given) == 1:
            missing = [key for key in pair if key not in keys][0]
            problems.append('%s needs %s too (XFS takes them together)' % (given[0], missing))
    return problems


def sysctl_name(value):
    """The canonical (dotted) form of a sysctl name, or None when it is not one."""
    if not isinstance(value, str) or not SYSCTL_NAME_RE.fullmatch(value):
        return None
    return value.replace('/', '.')


def sysctl_action(name):
    """Why a (canonical) sysctl name is refused even as an extra one, or None."""
    if name in SYSCTL_ACTIONS:
        return ('%s is an action, not a setting: writing it acts once (and a sysctl.d file would act again at every '
                'boot); run it yourself when you mean it' % name)
    return None


def thp_problem(key, value):
    """Why a transparent huge page setting is refused, or None (value None: not set)."""
    if key not in THP_KEYS:
        return 'unknown key %r (known: %s)' % (key, ', '.join(THP_KEYS))
    if value is None:
        return None
    if key in THP_CHOICES:
        return None if value in THP_CHOICES[key] else '%r is not one of %s' % (value, ', '.join(THP_CHOICES[key]))
    if _is_int(value) or (isinstance(value, str) and value.isdigit()):
        if 0 <= int(value) <= THP_MAX_PTES_NONE:
            return None
    return '%r is not an integer 0..%d' % (value, THP_MAX_PTES_NONE)


def cpu_clock_problem(key, value):
    """Why a CPU governor or clocksource setting is refused, or None (value None: not set). The one rule of the plan
    and of kernel_settings."""
    if key not in CPU_CLOCK_KEYS:
        return 'unknown key %r (known: %s)' % (key, ', '.join(CPU_CLOCK_KEYS))
    if value is None:
        return None
    choices = CPU_GOVERNORS if key == 'cpu_governor' else CLOCKSOURCES
    if isinstance(value, str) and value in choices:
        return None
    if value == 'userspace' and key == 'cpu_governor':
        return "'userspace' holds the frequency a daemon sets, and nothing here sets one (one of %s)" % ', '.join(choices)
    return '%r is not one of %s%s' % (value, ', '.join(choices), did_you_mean(value, list(choices)))


def queue_value_problem(key, value):
    """Why a queue setting's value is refused, or None (QUEUE_KEYS and write_cache; see the constants above)."""
    if key == 'write_cache':
        if value in WRITE_CACHE_CHOICES:
            return None
        return 'write_cache must be one of %s, got %r' % (', '.join(repr(c) for c in WRITE_CACHE_CHOICES), value)
    if key not in QUEUE_KEYS:
        return 'unknown queue setting %r%s (known: %s)' % (key, did_you_mean(key, QUEUE_KEYS), ', '.join(QUEUE_KEYS))
    if not _is_int(value):
        return '%s must be an integer, got %r' % (key, value)
    if key == 'nomerges' and value not in NOMERGES_CHOICES:
        return 'nomerges must be 0, 1 or 2 (2: no merging at all), got %d' % value
    if key == 'rq_affinity' and value not in RQ_AFFINITY_CHOICES:
        return 'rq_affinity must be 0, 1 or 2 (the kernel ignores other values), got %d' % value
    if key == 'nr_requests' and not NR_REQUESTS_RANGE[0] <= value <= NR_REQUESTS_RANGE[1]:
        return ('nr_requests must be %d..%d (the kernel raises a smaller value to %d and refuses a larger one), got %d'
                % (NR_REQUESTS_RANGE + (NR_REQUESTS_RANGE[0], value)))
    if key == 'max_sectors_kb' and (value < MAX_SECTORS_KB_STEP or value % MAX_SECTORS_KB_STEP):
        return ('max_sectors_kb must be a positive multiple of %d KiB (the kernel rounds it down to whole blocks), '
                'got %d' % (MAX_SECTORS_KB_STEP, value))
    if key == 'io_timeout' and (not IO_TIMEOUT_MS_RANGE[0] <= value <= IO_TIMEOUT_MS_RANGE[1] or value % 1000):
        return ('io_timeout must be whole seconds in milliseconds, %d..%d (a value of 2^31 ms or more, such as '
                '4294967295, reads back as another number, so no run could verify it), got %d'
                % (IO_TIMEOUT_MS_RANGE + (value,)))
    return None


def queue_class_problem(cls, key):
    """Why queue_by_class.<cls>.<key> is refused as a place, or None (the value is queue_value_problem's)."""
    if cls not in QUEUE_CLASSES:
        return 'unknown member class %r%s (known: %s)' % (cls, did_you_mean(cls, QUEUE_CLASSES), ', '.join(QUEUE_CLASSES))
    if key in QUEUE_KEY_CLASSES and cls not in QUEUE_KEY_CLASSES[key]:
        return '%s is for %s members only, not %s' % (key, ' and '.join(QUEUE_KEY_CLASSES[key]), cls)
    return None


def mkfs_problems(values, what='mkfs'):
    """(validated {key: value}, problems) of a profile's mkfs section (MKFS_KEYS); None is {}."""
    if values is None:
        return {}, []
    if not isinstance(values, dict):
        return {}, ['%s must be a dict (%s), got %r' % (what, ', '.join(MKFS_KEYS), values)]
    out, problems = {}, []
    for key, value in sorted(values.items(), key=lambda kv: str(kv[0])):
        if key not in MKFS_KEYS:
            problems.append('%s: unknown key %r%s (known: %s)'
                            % (what, key, did_you_mean(str(key), MKFS_KEYS), ', '.join(MKFS_KEYS)))
        elif value is None:
            continue
        elif not isinstance(value, bool):
            problems.append('%s.%s must be true or false, got %r' % (what, key, value))
        else:
            out[key] = value
    return out, problems


def discard_policy_problems(values, what='discard_by_class'):
    """(validated {member class: policy}, problems) of a profile's discard_by_class; None is {} (nothing managed)."""
    if values is None:
        return {}, []
    if not isinstance(values, dict):
        return {}, ['%s must be a dict keyed by %s, got %r' % (what, '/'.join(QUEUE_CLASSES), values)]
    out, problems = {}, []
    for cls, policy in sorted(values.items(), key=lambda kv: str(kv[0])):
        if cls not in QUEUE_CLASSES:
            problems.append('%s: unknown member class %r%s (known: %s)'
                            % (what, cls, did_you_mean(str(cls), QUEUE_CLASSES), ', '.join(QUEUE_CLASSES)))
        elif policy is None:
            continue
        elif policy not in DISCARD_POLICIES:
            problems.append('%s.%s must be one of %s, got %r' % (what, cls, ', '.join(DISCARD_POLICIES), policy))
        else:
            out[cls] = policy
    return out, problems
