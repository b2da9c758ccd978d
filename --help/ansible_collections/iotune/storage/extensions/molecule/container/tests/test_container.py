"""Container scenario: what a container can prove (packages, rendered configuration, facts view, the
refusal of udev tuning). md arrays, udev events, XFS on real disks and reboots are the vm scenario's.
"""
import os
import subprocess

import pytest

SCENARIO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
REPORTS = os.path.join(os.environ.get("MOLECULE_EPHEMERAL_DIRECTORY", "/nonexistent"), "reports")


@pytest.mark.parametrize("package", ["mdadm", "xfsprogs"])
def test_role_packages_installed(host, package):
    assert host.package(package).is_installed


def test_mdadm_conf_has_no_array_without_arrays(host):
    conf = host.file("/etc/mdadm/mdadm.conf")
    if conf.exists:
        assert "ARRAY " not in conf.content_string


def test_rbd_client_merged_into_ceph_conf(host):
    text = host.file("/etc/ceph/ceph.conf").content_string
    # The role's values, in the [client] section ...
    client = text.split("[client]", 1)[1]
    assert "rbd readahead max bytes = 4194304" in client
    assert "rbd readahead disable after bytes = 0" in client
    assert "rbd readahead trigger requests = 10" in client
    # ... and what was there before is kept.
    assert "fsid = 4b5c8c0a-ff60-454b-a1b4-9747aa737d19" in text
    assert "rbd cache = true" in client
    assert text.count("rbd readahead max bytes") == 1


def test_facts_module_matches_sysfs(host):
    facts = host.ansible("iotune.storage.readahead_facts", "", check=True)["ansible_facts"]["iotune_readahead"]
    names = host.check_output("ls /sys/block").split()
    whole = [n for n in names if not n.startswith(("loop", "ram", "zram"))]
    assert whole, "no block device visible in the container"
    for name in whole:
        ra = int(host.file("/sys/block/%s/queue/read_ahead_kb" % name).content_string)
        assert facts[name]["read_ahead_kb"] == ra
        assert facts[name]["read_ahead_sectors"] == ra * 2


def test_facts_table_written_on_controller():
    with open(os.path.join(REPORTS, "readahead_facts.csv"), encoding="utf-8") as f:
        rows = f.read().splitlines()
    assert rows[0].startswith("host,")
    assert any(r.startswith("iotune-ctr,") for r in rows[1:]), rows
    assert os.path.getsize(os.path.join(REPORTS, "readahead_facts.txt")) > 0


def test_block_tuning_refuses_in_a_container():
    proc = subprocess.run(
        ["ansible-playbook", "-i", os.path.join(SCENARIO, "inventory"), os.path.join(SCENARIO, "block_tuning_in_container.yml")],
        capture_output=True, text=True, check=False, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "container" in out.lower(), out
    assert "failed=1" in out, out


def test_no_rules_file_left_behind(host):
    assert not host.file("/etc/udev/rules.d/66-iotune-storage.rules").exists


def test_check_mode_predicts_and_changes_nothing(host):
    before = host.check_output("sha256sum /etc/ceph/ceph.conf")
    proc = subprocess.run(
        ["ansible-playbook", "--check", "--diff", "-i", os.path.join(SCENARIO, "inventory"),
         os.path.join(SCENARIO, "check_mode.yml")],
        capture_output=True, text=True, check=False, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "changed=1" in out, out
    assert "+rbd readahead max bytes = 1048576" in out, out
    assert host.check_output("sha256sum /etc/ceph/ceph.conf") == before
    assert "rbd readahead max bytes = 4194304" in host.file("/etc/ceph/ceph.conf").content_string


def _refresh(valid_s):
    proc = subprocess.run(
        ["ansible-playbook", "-i", os.path.join(SCENARIO, "inventory"), os.path.join(SCENARIO, "refresh_index.yml"),
         "-e", "packages_apt_cache_valid_time=%d" % valid_s],
        capture_output=True, text=True, check=False, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    return out


def test_the_package_index_is_refreshed_only_when_older_than_the_valid_time(host):
    """apt-get update (packages role, refresh_index.yml: no apt module, so no python3-apt) when apt's stamp is older
    than the valid time, and not when it is newer; the stamp moves with the refresh."""
    stamp = "/var/lib/apt/periodic/update-success-stamp"
    host.check_output("touch -d '3 days ago' %s", stamp)
    aged = host.file(stamp).mtime
    assert "changed=1" in _refresh(86400)
    assert host.file(stamp).mtime > aged
    assert "changed=0" in _refresh(86400)
    assert not host.package("python3-apt").is_installed
