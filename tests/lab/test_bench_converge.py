# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tools/bench_converge without a VM: the -vvv log parser, the peer role's checks and version, the table."""

import importlib.machinery
import importlib.util
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "bench_converge.py"


@pytest.fixture(scope="module")
def bench():
    loader = importlib.machinery.SourceFileLoader("bench_converge", str(SCRIPT))
    spec = importlib.util.spec_from_loader("bench_converge", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


# the lines of a -vvv log the parser counts, among lines it must not count
LOG = """\
<192.0.2.1> SSH: EXEC ssh -C -o ControlMaster=auto -o Port=2222 192.0.2.1 '/bin/sh -c '"'"'python3'"'"''
TASK [iotune.storage.raid0 : Wait for the initramfs rebuild] ***
    "stdout": "update-initramfs: Generating /boot/initrd.img-6.1.0-26-amd64\\n",
    "stdout_lines": [
        "update-initramfs: Generating /boot/initrd.img-6.1.0-26-amd64"
    ]
<192.0.2.1> SSH: EXEC ssh -C -o ControlMaster=auto -o Port=2222 192.0.2.1 '/bin/sh -c '"'"'python3'"'"''
PLAY RECAP *********************************************************************
bench-conv-after           : ok=12   changed=3    unreachable=0    failed=0    skipped=40   rescued=0    ignored=0
"""


def test_the_parser_counts_ssh_executions_initramfs_builds_and_the_recap(bench):
    assert bench.parse_log(LOG) == {"ssh_execs": 2, "initramfs_builds": 1, "ok": 12, "changed": 3, "failed": 0}


def test_a_log_without_a_recap_has_no_counts(bench):
    assert bench.parse_log("fatal: [bench-conv-after]: UNREACHABLE!\n") == {
        "ssh_execs": 0, "initramfs_builds": 0, "ok": None, "changed": None, "failed": None}


def test_the_peer_role_directory_is_checked_before_any_vm(bench, tmp_path):
    with pytest.raises(SystemExit, match="needs --peer-role"):
        bench.check_peer_role(None)
    with pytest.raises(SystemExit, match="holds no role"):
        bench.check_peer_role(str(tmp_path))
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "main.yml").write_text("---\n")
    assert bench.check_peer_role(str(tmp_path)) == tmp_path.resolve()


def test_the_peer_version_given_then_git_then_galaxy(bench, tmp_path):
    assert bench.peer_ref(tmp_path, "mrlesmithjr/ansible-mdadm 38573a7") == "mrlesmithjr/ansible-mdadm 38573a7"
    assert bench.peer_ref(tmp_path) == "unknown"
    (tmp_path / "meta").mkdir()
    (tmp_path / "meta" / ".galaxy_install_info").write_text("install_date: today\nversion: v1.2.3\n")
    assert bench.peer_ref(tmp_path) == "galaxy v1.2.3"
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                    "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    assert bench.peer_ref(tmp_path).startswith("git ")


def test_the_peer_playbook_names_the_role_and_the_array_as_ours(bench):
    text = bench.PEER_PLAYBOOK.format(role="/roles/mdadm")
    assert "- role: /roles/mdadm" in text
    assert "lab_disks[0:4] | map(attribute='by_id') | list" in text
    assert "chunk_size: 256K" in text and "chunk_kb: 256" in bench.VARS
    assert "mountpoint: /var/lib/cassandra" in text and "mountpoint: /var/lib/cassandra" in bench.VARS


def _figures(seconds, execs):
    return {"seconds": seconds, "ssh_execs": execs, "changed": 0, "initramfs_builds": 1, "load": "1.0 / 1.0"}


def test_the_table_puts_the_peer_beside_and_the_ratio_against_it(bench, tmp_path):
    results = {
        "after": {"variant": "after", "commit": "abc1234", "first": _figures(120, 30), "rerun": _figures(9, 2)},
        "peer": {"variant": "peer", "commit": "git 38573a7", "first": _figures(300, 15), "rerun": _figures(40, 12)},
    }
    out = tmp_path / "benchmarks.md"
    bench.render(results, str(out))
    text = out.read_text()
    assert "| | after (abc1234) | peer (git 38573a7) | after / peer |" in text
    assert "| first converge: wall time, s | 120 | 300 | 0.40 |" in text
    assert "| re-run: ssh executions | 2 | 12 | 0.17 |" in text
    assert "mrlesmithjr.mdadm (git 38573a7)" in text
