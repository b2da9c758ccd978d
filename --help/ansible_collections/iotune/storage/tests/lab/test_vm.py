# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""VMs without starting one: names, the qemu command line, the inventory, the ssh command."""

from pathlib import Path

import pytest
import yaml

from iotune_lab import common, disks, ssh, vm
from iotune_lab.common import LabError


# the names tools/molecule-vm-matrix gives the vm scenario's entries (molecule-vm-RELEASE-BUS) among them
@pytest.mark.parametrize("name", ["a", "h1a", "molecule-vm", "molecule-vm-bookworm-virtio", "molecule-vm-trixie-nvme",
                                  "0x", "a" * 31])
def test_valid_names(name):
    assert vm.validate_name(name) is None


@pytest.mark.parametrize("name", ["", "-a", "A", "a_b", "a.b", "a" * 32, "a/b", None])
def test_invalid_names(name):
    with pytest.raises(LabError):
        vm.validate_name(name)


def state(bus="virtio", n=2, attached=True):
    st = {"name": "t1", "image": "abc", "port": 2222, "memory": 1024, "cpus": 2, "disks": []}
    st["disks"] = disks.new_disks(n, bus, 1 << 30)
    if not attached:
        st["disks"][0]["attached"] = False
    return st


def pairs(argv, flag):
    return [argv[i + 1] for i, a in enumerate(argv) if a == flag]


def test_qemu_argv_tcg_and_basics(tmp_path):
    st = state()
    argv = vm.qemu_argv("t1", tmp_path, Path("/img"), st, "tcg")
    assert argv[0] == "qemu-system-x86_64"
    assert all(isinstance(a, str) for a in argv)
    assert pairs(argv, "-accel") == ["tcg,thread=multi"]
    assert pairs(argv, "-m") == ["1024"] and pairs(argv, "-smp") == ["2"]
    assert "hostfwd=tcp:127.0.0.1:2222-:22" in pairs(argv, "-netdev")[0]
    assert "name=opt/iotune/hostname,string=t1" in pairs(argv, "-fw_cfg")
    assert pairs(argv, "-pidfile") == [str(tmp_path / "qemu.pid")]
    # the default: SeaBIOS boots the root disk (GRUB), no -kernel
    assert "-kernel" not in argv and "-append" not in argv
    assert "virtio-blk-pci,drive=root,serial=lab-root,bootindex=0" in pairs(argv, "-device")
    devices = pairs(argv, "-device")
    for d in st["disks"]:
        assert f"virtio-blk-pci,id={d['serial']},drive=d{st['disks'].index(d)},serial={d['serial']}" in devices


def test_qemu_argv_kvm(tmp_path):
    argv = vm.qemu_argv("t1", tmp_path, Path("/img"), state(), "kvm")
    assert pairs(argv, "-accel") == ["kvm"] and pairs(argv, "-cpu") == ["host"]


def test_qemu_argv_nvme_and_scsi(tmp_path):
    st = state("nvme")
    devices = pairs(vm.qemu_argv("t1", tmp_path, Path("/img"), st, "tcg"), "-device")
    assert sum(d.startswith("nvme,") for d in devices) == 2
    assert all(f"serial={d['serial']}" in " ".join(devices) for d in st["disks"])
    devices = pairs(vm.qemu_argv("t1", tmp_path, Path("/img"), state("scsi"), "tcg"), "-device")
    assert "virtio-scsi-pci,id=scsi0" in devices
    assert sum(d.startswith("scsi-hd,") for d in devices) == 2


def test_qemu_argv_leaves_detached_disks_out(tmp_path):
    st = state(attached=False)
    argv = " ".join(vm.qemu_argv("t1", tmp_path, Path("/img"), st, "tcg"))
    assert st["disks"][0]["serial"] not in argv
    assert st["disks"][1]["serial"] in argv


def test_inventory(lab_dir):
    st = state(n=2, attached=False)
    (lab_dir / "t1").mkdir()
    vm.write_inventory("t1", st)
    inv = yaml.safe_load((lab_dir / "t1" / "inventory.yml").read_text())
    host = inv["all"]["hosts"]["t1"]
    assert (host["ansible_host"], host["ansible_port"], host["ansible_user"]) == ("127.0.0.1", 2222, "root")
    assert host["ansible_ssh_private_key_file"] == str((lab_dir / "id_ed25519").resolve())
    assert "ServerAliveInterval" in host["ansible_ssh_common_args"]
    assert [d["serial"] for d in host["lab_disks"]] == [d["serial"] for d in st["disks"]]
    assert [d["attached"] for d in host["lab_disks"]] == [False, True]
    assert host["lab_disks"][1] == {k: st["disks"][1][k] for k in ("serial", "by_id", "size_bytes", "bus", "attached")}


def test_inventory_without_disks(lab_dir):
    (lab_dir / "t2").mkdir()
    vm.write_inventory("t2", state(n=0))
    inv = yaml.safe_load((lab_dir / "t2" / "inventory.yml").read_text())
    assert inv["all"]["hosts"]["t2"]["lab_disks"] == []


def test_state_roundtrip_and_no_qemu(lab_dir):
    (lab_dir / "t1").mkdir()
    assert vm.load_state("t1") is None
    vm.save_state("t1", {"a": 1})
    assert vm.load_state("t1") == {"a": 1}
    assert vm.qemu_pid("t1") is None


def test_ssh_argv():
    argv = ssh.ssh_argv(2222, Path("/k"), extra=["-t"])
    assert argv[0] == "ssh" and argv[-1] == "root@127.0.0.1"
    assert argv[argv.index("-p") + 1] == "2222" and argv[argv.index("-i") + 1] == "/k"
    assert "BatchMode=yes" in argv and "-t" in argv


def test_console_tail(lab_dir):
    (lab_dir / "t1").mkdir()
    assert vm.console_tail("t1") == "(no console.log)"
    (lab_dir / "t1" / "console.log").write_bytes(b"a\r\nb\r\nc\xff\n")
    assert vm.console_tail("t1", 2) == "b\nc\ufffd"
    assert common.LAB_DIR == lab_dir


def test_qemu_argv_kernel_boot(tmp_path):
    img = tmp_path / "img"
    img.mkdir()
    (img / "manifest.json").write_text('{"root_cmdline": "root=UUID=u1 ro console=ttyS0"}')
    st = state()
    st["boot"] = "kernel"
    argv = vm.qemu_argv("t1", tmp_path, img, st, "tcg")
    assert pairs(argv, "-kernel") == [str(img / "vmlinuz")]
    assert pairs(argv, "-initrd") == [str(img / "initrd.img")]
    assert pairs(argv, "-append") == ["root=UUID=u1 ro console=ttyS0 systemd.hostname=t1"]
    assert "virtio-blk-pci,drive=root,serial=lab-root" in pairs(argv, "-device")


def test_kernel_boot_of_an_old_image_finds_root_by_label(tmp_path):
    assert vm.kernel_boot_cmdline(tmp_path).startswith("root=LABEL=rootfs ro console=ttyS0")


def test_qemu_argv_scsi_luns_and_instance_store(tmp_path):
    st = state("nvme")
    st["disks"] = disks.new_disks(1, "scsi", 1 << 30, instance_store=1)
    devices = [d for d in pairs(vm.qemu_argv("t1", tmp_path, Path("/img"), st, "tcg"), "-device")
               if d.startswith("scsi-hd,")]
    assert devices[0].endswith(",scsi-id=0,lun=0") and "vendor=" not in devices[0]
    assert devices[1].endswith(",scsi-id=0,lun=1,vendor=Google,product=EphemeralDisk")
    assert "serial=local-ssd-0" in devices[1]


def test_inventory_marks_instance_store_and_luns(lab_dir):
    st = state("nvme")
    st["disks"] = disks.new_disks(1, "nvme", 1 << 30, instance_store=1)
    (lab_dir / "t1").mkdir(parents=True, exist_ok=True)
    vm.write_inventory("t1", st)
    inv = yaml.safe_load((lab_dir / "t1" / "inventory.yml").read_text())
    lab_disks = inv["all"]["hosts"]["t1"]["lab_disks"]
    assert "instance_store" not in lab_disks[0] and "lun" not in lab_disks[0]
    assert lab_disks[1]["instance_store"] is True and lab_disks[1]["lun"] == 0
    assert lab_disks[1]["by_id"] == "/dev/disk/by-id/scsi-0Google_EphemeralDisk_local-ssd-0"


def test_qemu_argv_cpu_model(tmp_path):
    # a state of an older lab (no "cpu") gets the lab's TCG default; KVM always gets the host's
    assert pairs(vm.qemu_argv("t1", tmp_path, Path("/img"), state(), "tcg"), "-cpu") == [vm.TCG_CPU_DEFAULT]
    st = dict(state(), cpu="max")
    assert pairs(vm.qemu_argv("t1", tmp_path, Path("/img"), st, "tcg"), "-cpu") == ["max"]
    assert pairs(vm.qemu_argv("t1", tmp_path, Path("/img"), st, "kvm"), "-cpu") == ["host"]


@pytest.mark.parametrize("model", ["Westmere", "max", "max,-avx2", "Haswell-v4,+x2apic", "qemu64"])
def test_cpu_models_accepted(model):
    assert vm.CPU_RE.match(model)


@pytest.mark.parametrize("model", ["", "-max", "max;reboot", "max pc", "a" * 202])
def test_cpu_models_refused(model):
    assert not vm.CPU_RE.match(model)
