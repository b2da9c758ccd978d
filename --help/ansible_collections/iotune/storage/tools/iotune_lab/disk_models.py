# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Disk models: the I/O limits of the cloud disks operators use, given to lab disks by qemu's throttling.

A model is a dict with `name`, `iops` (operations per second, reads and writes together), `bps` (bytes
per second), `iops_size` (bytes: a larger request counts as size / iops_size operations, the way EBS
counts I/O in units) and `source`; a limit of 0 means none. qemu applies it per disk through QMP
`block_set_io_throttle` (docs/lab.md, "Disk models"). Sources of the figures: docs/lab.md.
"""

import json
import re

from .common import EXIT_USAGE, LabError

KIB = 1 << 10
MIB = 1 << 20
MB = 1000 * 1000

# name -> (iops, bps, iops_size, source); the documented figures, per disk.
PRESETS = {
    "unlimited": (0, 0, 0, "no limit: what the host's page cache and the emulated CPU give"),
    "instance-store": (0, 0, 0, "a local NVMe/SSD of the instance: no provisioned limit (AWS and GCP docs)"),
    "ebs-gp3": (3000, 125 * MIB, 256 * KIB,
                "AWS EBS gp3 baseline: 3,000 IOPS, 125 MiB/s; SSD I/O counted in units of up to 256 KiB"),
    "ebs-piops-2013": (1000, 0, 16 * KIB,
                       "the field report's 1000-PIOPS EBS volume (2014) when PIOPS counted I/O in 16 KiB units "
                       "(storage-facts 7.2): 1000 x 16 KiB = 16 MiB/s"),
    "azure-p10": (500, 100 * MB, 0, "Azure Premium SSD P10: 500 IOPS, 100 MB/s"),
    "azure-p20": (2300, 150 * MB, 0, "Azure Premium SSD P20: 2,300 IOPS, 150 MB/s"),
    "azure-p30": (5000, 200 * MB, 0, "Azure Premium SSD P30: 5,000 IOPS, 200 MB/s"),
}
# name:N presets: name -> (what N is, function N -> (iops, bps, iops_size, source))
PARAMETRIC = {
    "ebs-io2": ("provisioned IOPS", lambda n: (
        n, min(n * 256 * KIB, 4000 * MIB), 256 * KIB,
        f"AWS EBS io2 with {n} provisioned IOPS: throughput up to 256 KiB/s per provisioned IOPS "
        "(at most 4,000 MiB/s); SSD I/O counted in units of up to 256 KiB")),
    "gcp-pd-ssd": ("size in GiB", lambda n: (
        30 * n, int(0.48 * MIB * n), 0,
        f"GCP pd-ssd of {n} GiB: 30 IOPS and 0.48 MiB/s per GiB (per-VM caps not modelled)")),
}
CUSTOM_KEYS = {"iops": "iops", "bps": "bps", "iops-size": "iops_size"}
SIZE_RE = re.compile(r"^(\d+)([KMG]?)$", re.IGNORECASE)


def _size(text, what):
    m = SIZE_RE.match(text.strip())
    if not m:
        raise LabError(f"disk model: {what} must be a number with an optional K, M or G suffix (got {text!r})",
                       EXIT_USAGE)
    return int(m.group(1)) * {"": 1, "K": KIB, "M": MIB, "G": 1 << 30}[m.group(2).upper()]


def _model(name, iops, bps, iops_size, source):
    return {"name": name, "iops": int(iops), "bps": int(bps), "iops_size": int(iops_size), "source": source}


def parse(spec):
    """A model from `NAME`, `NAME:N` or `iops=N,bps=SIZE,iops-size=SIZE`; LabError for anything else."""
    spec = (spec or "").strip()
    if spec in PRESETS:
        return _model(spec, *PRESETS[spec])
    if ":" in spec:
        name, dummy, arg = spec.partition(":")
        if name in PARAMETRIC:
            what, make = PARAMETRIC[name]
            if not arg.isdigit() or int(arg) < 1:
                raise LabError(f"disk model {name}:N needs N = {what}, a whole number >= 1 (got {arg!r})",
                               EXIT_USAGE)
            return _model(spec, *make(int(arg)))
    if "=" in spec:
        values = {"iops": 0, "bps": 0, "iops_size": 0}
        for part in spec.split(","):
            key, dummy, val = part.partition("=")
            if key.strip() not in CUSTOM_KEYS:
                raise LabError(f"disk model: unknown limit {key.strip()!r} (known: {', '.join(CUSTOM_KEYS)})",
                               EXIT_USAGE)
            values[CUSTOM_KEYS[key.strip()]] = _size(val, key.strip())
        if values["iops_size"] and not values["iops"]:
            raise LabError("disk model: iops-size needs iops", EXIT_USAGE)
        return _model(spec, values["iops"], values["bps"], values["iops_size"], "custom limits")
    raise LabError(f"unknown disk model {spec!r}; presets: {', '.join(names())}, or "
                   "iops=N,bps=SIZE,iops-size=SIZE", EXIT_USAGE)


def names():
    return list(PRESETS) + [f"{n}:N" for n in PARAMETRIC]


def assign(specs, count):
    """Models of `count` data disks from `--disk-model` values: `SPEC` for every disk, `I=SPEC` for disk I
    (0-based, later values win). Returns a list of `count` models."""
    models = [parse("unlimited") for dummy in range(count)]
    for value in specs or []:
        index, sep, spec = value.partition("=")
        if sep and index.strip().isdigit():
            i = int(index)
            if i >= count:
                raise LabError(f"--disk-model {value!r}: there are {count} data disks (0 to {count - 1})",
                               EXIT_USAGE)
            models[i] = parse(spec)
        else:
            models = [parse(value) for dummy in range(count)]
    return models


def throttle_args(qdev_id, model):
    """The QMP `block_set_io_throttle` arguments that give a device this model (all zero: no limit)."""
    args = {"id": qdev_id, "bps": model["bps"], "bps_rd": 0, "bps_wr": 0,
            "iops": model["iops"], "iops_rd": 0, "iops_wr": 0}
    if model["iops_size"]:
        args["iops_size"] = model["iops_size"]
    return args


def qdev_block_id(disk):
    """The qdev id QMP takes for a data disk's block backend: virtio-blk-pci keeps it on its child."""
    return f"{disk['serial']}/virtio-backend" if disk["bus"] == "virtio" else disk["serial"]


def describe(model):
    parts = []
    if model["iops"]:
        parts.append(f"{model['iops']} IOPS" + (f" (units of {model['iops_size'] // KIB} KiB)"
                                                if model["iops_size"] else ""))
    if model["bps"]:
        parts.append(f"{model['bps'] / MIB:.1f} MiB/s")
    return f"{model['name']}: " + (", ".join(parts) if parts else "no limit")


# The guest's unthrottled ceiling (measured by `tools/lab disk-ceiling`): a limit above a third of it
# cannot be told from the emulator's own limit, so the lab warns.
CEILING_SHARE = 3


def ceiling_problems(model, ceiling):
    """Warnings for a model whose limits are above a third of the measured ceiling (dict iops, bps)."""
    if not ceiling:
        return []
    out = []
    for key, unit in (("iops", "IOPS"), ("bps", "bytes/s")):
        if model[key] and ceiling.get(key) and model[key] > ceiling[key] / CEILING_SHARE:
            out.append(f"disk model {model['name']}: {model[key]} {unit} is above a third of the guest's "
                       f"unthrottled ceiling ({ceiling[key]:.0f} {unit}, measured {ceiling.get('measured')}): "
                       "the emulator, not the model, may be the limit")
    return out


def load_ceiling(path, key):
    try:
        return json.loads(path.read_text()).get(key)
    except (OSError, ValueError):
        return None
