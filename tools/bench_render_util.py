# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Small formatting helpers of tools/bench_render.py and tools/bench_render_field.py, and the marked sections of
docs/benchmarks.md that tools/bench_converge.py and tools/bench_storage_path.py write."""

import subprocess
from pathlib import Path


def git_describe(repo):
    """The short commit of ``repo``'s HEAD, with ``+dirty`` when tracked files differ from it (the benchmarks' rows)."""
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, check=True).stdout.strip()
    return head + ("+dirty" if dirty else "")


def write_section(out, lines, begin, end):
    """Put ``lines`` (from the ``begin`` marker to the ``end`` marker) in place of that section of the file ``out``, or
    append them when the file has no such section (a new file starts with a "# Benchmarks" title)."""
    path = Path(out)
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    section = "\n".join(lines) + "\n"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + section.rstrip("\n") + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text, encoding="utf-8")


def med(values):
    vals = sorted(v for v in values or [] if v is not None)
    if not vals:
        return None
    n = len(vals)
    return vals[n // 2] if n % 2 else (vals[n // 2 - 1] + vals[n // 2]) / 2.0


def noise_list(values):
    """(max-min)/median of the values, None without values."""
    vals = [v for v in values or [] if v is not None]
    m = med(vals)
    if not vals or not m:
        return None
    return (max(vals) - min(vals)) / float(m)


def noise_of(result, key):
    """The fio module's noise of one metric."""
    return ((result or {}).get("noise") or {}).get(key)


def ratio(a, b):
    try:
        return float(a) / float(b) if b else None
    except (TypeError, ValueError):
        return None


def fmt(value, pattern):
    return "-" if value is None else pattern % value


def mbs(value):
    return "-" if value is None else "%.1f MB/s" % (value / 1e6)


def pct(value):
    return "-" if value is None else "%.0f %%" % (value * 100)


def ok(value, target, above=True):
    if value is None:
        return "not measured"
    return "**met**" if (value >= target if above else value <= target) else "**missed**"


def model_label(phase):
    """`ebs-piops-2013: 1000 IOPS (units of 16 KiB)` from the line `tools/lab disk-model` printed."""
    text = (phase or {}).get("model") or ""
    text = text.strip().splitlines()[-1] if text.strip() else ""
    if text.startswith("lab: VM ") and ": " in text:
        text = text.split(": ", 2)[-1] if text.count(": ") >= 2 else text
    if " on " in text:
        text = text.rsplit(" on ", 1)[0]
    return text or "?"
