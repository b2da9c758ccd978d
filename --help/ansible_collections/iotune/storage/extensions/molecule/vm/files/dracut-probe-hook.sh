#!/bin/sh
# iotune vm scenario (prepare_boot_probe.yml), dracut guests: the counterpart of initramfs-probe-script,
# installed as /usr/lib/dracut/modules.d/99iotune-probe/iotune-probe.sh and run as a pre-pivot hook
# inside the initramfs. Leaves under /run (kept across the switch to the real root) the id of the
# initramfs that is running, the ARRAY lines of its own mdadm.conf (dracut keeps it as /etc/mdadm.conf)
# and the md arrays that exist at this point, i.e. the ones the initramfs assembled.
out=/run/iotune-initramfs
mkdir -p "$out"
udevadm settle --timeout=30 || true
cat /etc/iotune-initramfs-id > "$out/id" 2>/dev/null || echo none > "$out/id"
grep '^ARRAY' /etc/mdadm.conf > "$out/array-lines" 2>/dev/null || true
cat /proc/mdstat > "$out/mdstat" 2>&1 || true
ls -l /dev/md/ > "$out/dev-md" 2>&1 || true
for dev in /dev/md/*; do
    [ -e "$dev" ] || continue
    echo "== $dev"
    mdadm --detail "$dev" 2>&1 || true
done > "$out/mdadm-detail"
