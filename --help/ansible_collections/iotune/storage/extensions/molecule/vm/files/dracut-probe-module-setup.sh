#!/usr/bin/env bash
# iotune vm scenario (prepare_boot_probe.yml), dracut guests: the counterpart of initramfs-probe-hook.
# Installed as /usr/lib/dracut/modules.d/99iotune-probe/module-setup.sh. Stamps every initramfs dracut
# builds with a fresh id, kept in the image (/etc/iotune-initramfs-id) and logged on the root
# filesystem (/var/lib/iotune-probe/initramfs-builds: "<id> <kernel version>", oldest first), and
# adds dracut-probe-hook.sh as a pre-pivot hook (root mounted, before the switch to it).
# initdir, kernel and moddir are set by dracut, which sources this file.
# shellcheck disable=SC2154
check() { return 0; }
depends() { return 0; }
install() {
    local id
    id="$(cat /proc/sys/kernel/random/uuid)"
    mkdir -p "${initdir}/etc"
    echo "$id" > "${initdir}/etc/iotune-initramfs-id"
    mkdir -p /var/lib/iotune-probe
    echo "$id $kernel" >> /var/lib/iotune-probe/initramfs-builds
    inst_multiple cat grep ls mkdir udevadm
    inst_hook pre-pivot 90 "$moddir/iotune-probe.sh"
}
