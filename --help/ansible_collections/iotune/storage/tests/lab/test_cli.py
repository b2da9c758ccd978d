# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tools/lab's command line: arguments, defaults, usage errors."""

import os

import pytest

from iotune_lab import cli, common


def test_up_defaults():
    args = cli.build_parser().parse_args(["up", "--name", "a"])
    assert (args.name, args.disks, args.disk_size, args.disk_bus) == ("a", 4, "2G", "virtio")
    assert (args.memory, args.cpus, args.accel, args.timeout, args.boot) == (1024, 2, None, 300, None)
    assert args.func is cli.cmd_up


def test_up_options():
    args = cli.build_parser().parse_args(["up", "--name", "h1a", "--disks", "2", "--disk-size", "1G",
                                          "--disk-bus", "nvme", "--accel", "tcg"])
    assert (args.disks, args.disk_size, args.disk_bus, args.accel) == (2, "1G", "nvme", "tcg")


@pytest.mark.parametrize("argv", [["up"], ["up", "--name", "a", "--disk-bus", "ide"],
                                  ["up", "--name", "a", "--boot", "pxe"], ["frobnicate"], []])
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as e:
        cli.build_parser().parse_args(argv)
    assert e.value.code == 2


def test_ssh_keeps_the_remote_command():
    args = cli.build_parser().parse_args(["ssh", "vm1", "--", "ls", "-l", "/"])
    assert args.name == "vm1"
    assert args.command == ["ls", "-l", "/"]


def test_mirror_option_sets_the_environment(monkeypatch, lab_dir):
    for var in ("IOTUNE_LAB_MIRROR", "IOTUNE_LAB_SECURITY_MIRROR"):
        monkeypatch.setenv(var, "x")        # recorded, so the test's change is undone afterwards
        monkeypatch.delenv(var)
    assert cli.main(["--mirror", "http://mirror.invalid/debian", "list"]) == 0
    assert os.environ["IOTUNE_LAB_MIRROR"] == "http://mirror.invalid/debian"
    assert "IOTUNE_LAB_SECURITY_MIRROR" not in os.environ


def test_release_and_initramfs_options_set_the_environment(monkeypatch, lab_dir):
    for var in ("IOTUNE_LAB_RELEASE", "IOTUNE_LAB_INITRAMFS"):
        monkeypatch.setenv(var, "x")
        monkeypatch.delenv(var)
    assert cli.main(["--release", "trixie", "--initramfs", "dracut", "list"]) == 0
    assert (os.environ["IOTUNE_LAB_RELEASE"], os.environ["IOTUNE_LAB_INITRAMFS"]) == ("trixie", "dracut")
    with pytest.raises(SystemExit) as e:
        cli.build_parser().parse_args(["--release", "sid", "list"])
    assert e.value.code == 2


def test_prune_keeps_the_current_image_of_every_release_and_generator(monkeypatch, lab_dir, capsys):
    monkeypatch.setattr(cli, "host_mirrors", lambda suite: ("http://m.invalid/debian", "http://m.invalid/sec"))
    images = common.CACHE / "images"
    current = {cli.recipe_hash("http://m.invalid/debian", "http://m.invalid/sec", r, i)
               for r in cli.RELEASES for i in cli.INITRAMFS}
    for name in current | {"0123456789ab"}:
        (images / name).mkdir(parents=True)
    assert cli.main(["prune"]) == 0
    assert {d.name for d in images.iterdir() if d.is_dir()} == current


@pytest.mark.parametrize("argv", [["up", "--name", "Bad_Name"], ["up", "--name", "a", "--disks", "21"],
                                  ["up", "--name", "a", "--disk-size", "1X"],
                                  ["up", "--name", "a", "--memory", "100"]])
def test_bad_values_exit_2_before_anything_starts(argv, lab_dir, capsys):
    assert cli.main(argv) == common.EXIT_USAGE
    assert "lab: error:" in capsys.readouterr().err
    assert list(lab_dir.iterdir()) == []


def test_unknown_vm_exits_3(lab_dir):
    assert cli.main(["console", "nosuchvm"]) == common.EXIT_NOTFOUND


def test_down_of_a_missing_vm_is_a_no_op(lab_dir):
    assert cli.main(["down", "nosuchvm"]) == 0


def test_list_json_empty(lab_dir, capsys):
    assert cli.main(["list", "--json"]) == 0
    assert capsys.readouterr().out.strip() == "[]"


def test_stop_start_options():
    args = cli.build_parser().parse_args(["stop-start", "vm1", "--blank", "volA", "--blank", "volB"])
    assert (args.name, args.blank, args.blank_all, args.grace, args.timeout) == ("vm1", ["volA", "volB"], False, 180, 300)
    assert args.func is cli.cmd_stop_start
    assert cli.build_parser().parse_args(["stop-start", "vm1", "--blank-all"]).blank_all


def test_disks_to_blank():
    st = {"name": "vm1", "disks": [{"serial": "volA"}, {"serial": "volB"}, {"serial": "volC"}]}
    assert [x["serial"] for x in cli.disks_to_blank(st, [], True)] == ["volA", "volB", "volC"]
    assert [x["serial"] for x in cli.disks_to_blank(st, ["volC", "volA"], False)] == ["volC", "volA"]
    assert cli.disks_to_blank(st, [], False) == []
    with pytest.raises(common.LabError) as e:
        cli.disks_to_blank(st, ["volX"], False)
    assert e.value.code == common.EXIT_USAGE and "no data disk with serial volX" in str(e.value)


def test_up_cpu_option_and_bad_model(monkeypatch, lab_dir):
    args = cli.build_parser().parse_args(["up", "--name", "a", "--cpu", "max"])
    assert args.cpu == "max"
    args.cpu = "max;true"
    with pytest.raises(common.LabError) as e:
        cli.cmd_up(args)
    assert e.value.code == common.EXIT_USAGE and "--cpu" in str(e.value)
    monkeypatch.setenv("IOTUNE_LAB_CPU", "bad model")
    args.cpu = None
    with pytest.raises(common.LabError):
        cli.cmd_up(args)


def test_oops_check(lab_dir, capsys):
    (lab_dir / "v1").mkdir()
    (lab_dir / "v1" / "state.json").write_text('{"name": "v1", "disks": []}')
    console = lab_dir / "v1" / "console.log"
    console.write_text("[    1.000000] Linux version 6.12\r\n[    2.0] XFS (md127): Mounting V5 Filesystem\r\n")
    args = cli.build_parser().parse_args(["oops-check", "v1"])
    assert args.func(args) == 0
    with console.open("a") as f:
        f.write("[ 1630.188710] BUG: unable to handle page fault for address: fffffffffffffec8\r\n")
    with pytest.raises(common.LabError) as e:
        args.func(args)
    msg = str(e.value)
    assert e.value.code == 1
    assert msg.startswith("the lab VM's guest kernel oopsed: BUG: unable to handle page fault for address: "
                          "fffffffffffffec8. This is the guest kernel under qemu software emulation")
    assert str(console) in msg and "\r" not in msg


def test_a_twin_disk_reports_one_naa_wwn_on_both_paths():
    wwn = cli.twin_wwn("twinlun1")
    assert wwn >> 60 == 5 and wwn == cli.twin_wwn("twinlun1") != cli.twin_wwn("twinlun2")
    assert [dev for dev, node in cli.twin_ids("t1")] == ["twin-t1-0", "twin-t1-1"]
    assert len({node for dev, node in cli.twin_ids("t1")}) == 2     # two block nodes over one image
    assert cli.twin_ids("t1", paths=1) == [("twin-t1-0", "twinnode-t1-0")]      # a plain hot-plugged disk


@pytest.mark.parametrize("serial", ["", "a b", "x" * 21, "a/b"])
def test_a_twin_disk_serial_is_letters_and_digits(serial):
    assert not cli.TWIN_SERIAL_RE.match(serial)
