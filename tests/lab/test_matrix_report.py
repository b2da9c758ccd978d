# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What tools/molecule-vm-matrix reports of an entry: the failure digest (CI shows only the end of a run's output) and
the steps and the slowest test files of the time table, on made-up logs."""

import re
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "molecule-vm-matrix"


def function(name):
    """The shell function ``name`` of the script, as text (the script itself runs the matrix when executed)."""
    text = SCRIPT.read_text(encoding="utf-8")
    found = re.search(r"^%s\(\) \{.*?^\}$" % re.escape(name), text, re.M | re.S)
    assert found, name
    return found.group(0)


def call(top, name, *args):
    script = "%s\n%s %s" % (function(name), name, " ".join(args))
    return subprocess.run(["bash", "-c", script], env={"top": str(top), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, check=True).stdout


def test_the_digest_starts_with_the_first_failure_in_time(tmp_path):
    (tmp_path / "build").mkdir()
    progress = ["tests/test_day_two_move.py::t%d[ansible://vm] ERROR [ 20%%]" % i for i in range(3)]
    progress += ["tests/test_zy_audit.py::t%d[ansible://vm] FAILED [ 93%%]" % i for i in range(20)]
    summary = ["FAILED tests/test_zy_audit.py::t%d - AssertionError" % i for i in range(20)]
    summary += ["ERROR tests/test_day_two_move.py::t%d - AssertionError: the cause" % i for i in range(3)]
    (tmp_path / "build" / "vm.log").write_text("\n".join(progress + summary) + "\n", encoding="utf-8")
    lines = call(tmp_path, "digest", "vm").splitlines()
    assert lines[1] == "  in order: " + progress[0], lines
    assert any("more lines in build/vm.log" in line for line in lines), lines
    assert len(lines) <= 18, lines
    # the end of the summary still closes it
    assert lines[-1].endswith("the cause"), lines


def test_a_short_digest_is_whole(tmp_path):
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "vm.log").write_text("FAILED tests/test_a.py::t - boom\n", encoding="utf-8")
    assert call(tmp_path, "digest", "vm").splitlines()[1:] == ["  FAILED tests/test_a.py::t - boom"]


def test_the_slowest_files_add_up_their_tests(tmp_path):
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "vm-test-times-vm.txt").write_text(
        "22:00:00    12.0 call     passed  tests/test_a.py::t1[ansible://vm-md readahead]\n"
        "22:00:01     3.5 setup    passed  tests/test_b.py::t2\n"
        "22:00:02    30.0 call     failed  tests/test_b.py::t3\n", encoding="utf-8")
    assert call(tmp_path, "slowest_files", "vm").split() == ["34", "s", "tests/test_b.py", "12", "s", "tests/test_a.py"]
    # no file (an entry that failed before its verify): nothing
    assert call(tmp_path, "slowest_files", "other") == ""


def test_the_steps_are_stamped_as_their_lines_pass_and_listed_with_their_times(tmp_path):
    (tmp_path / "build").mkdir()
    stamps = tmp_path / "build" / "vm-steps-vm.txt"
    log = ["INFO     [vm > destroy] Executing", "PLAY [Destroy]", "INFO     [vm > create] Executing",
           "INFO     [vm > verify] Executing", "INFO     [vm > verify] Executing Testinfra tests found in tests/...",
           "tests/test_a.py::t PASSED", "INFO     [vm > destroy] Executing"]
    script = "%s\nstamp_steps %s" % (function("stamp_steps"), stamps)
    out = subprocess.run(["bash", "-c", script], input="\n".join(log) + "\n", env={"PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, check=True).stdout
    # every line passes on unchanged; one stamp per step begun (verify's second line is the same step)
    assert out.splitlines() == log
    # a last line without its newline passes too
    unended = subprocess.run(["bash", "-c", script], input="first\nlast", env={"PATH": "/usr/bin:/bin"},
                             capture_output=True, text=True, check=True).stdout
    assert unended.splitlines() == ["first", "last"], unended
    written = [line.split() for line in stamps.read_text(encoding="utf-8").splitlines()]
    assert [w[1] for w in written] == ["destroy", "create", "verify", "destroy"], written
    assert all(w[0].isdigit() for w in written)
    stamps.write_text("1000 destroy\n1005 create\n1117 prepare\n2265 verify\n4000 destroy\n", encoding="utf-8")
    assert call(tmp_path, "step_times", "vm", "4030").strip() == \
        "steps (s): destroy 5, create 112, prepare 1148, verify 1735, destroy 30"
    # no stamps (the entry never started molecule): nothing
    assert call(tmp_path, "step_times", "other", "1") == ""
