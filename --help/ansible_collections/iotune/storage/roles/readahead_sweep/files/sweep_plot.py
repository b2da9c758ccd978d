# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Draw a readahead sweep (sweep.json written by the readahead_sweep role) as a PNG.

Runs on the controller with the Python that runs ansible-playbook:
    sweep_plot.py SWEEP_JSON OUT_PNG
Top panel: run time of one measured job (median, ms) and IOPS against read_ahead_kb (log2 axis),
the classic "run time vs readahead" chart. Bottom panel: read amplification (log axis) and device MB/s.
The recommended readahead is marked with a vertical line.
"""

from __future__ import annotations

import json
import sys


def main(argv):
    if len(argv) != 3:
        sys.stderr.write('usage: sweep_plot.py SWEEP_JSON OUT_PNG\n')
        return 2
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write('matplotlib is not installed in %s: no plot (set readahead_sweep_plot: false)\n'
                         % sys.executable)
        return 3
    with open(argv[1]) as f:
        sweep = json.load(f)
    rows = sweep['rows']
    rec = sweep['recommendation']
    ra = [r['read_ahead_kb'] for r in rows]
    # log axis: a 0 readahead cannot be drawn, show it at 0.5 KiB
    x = [v if v > 0 else 0.5 for v in ra]

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    job = sweep.get('job') or {}
    fig.suptitle('%s %s on %s (%s): %s %s %s, median of %s' % (
        sweep.get('host', ''), sweep.get('directory', ''), sweep.get('device', ''), sweep.get('fio_version', ''),
        job.get('ioengine', ''), job.get('rw', ''), job.get('bs', ''), sweep.get('repeat', '')), fontsize=10)

    top.plot(x, [r['runtime_ms'] for r in rows], 'o-', color='tab:blue', label='run time (ms)')
    top.set_ylabel('run time (ms)', color='tab:blue')
    top.set_ylim(bottom=0)
    top2 = top.twinx()
    top2.plot(x, [r['iops'] for r in rows], 's--', color='tab:green', label='IOPS')
    top2.set_ylabel('IOPS', color='tab:green')
    top2.set_ylim(bottom=0)
    for r, xv in zip(rows, x):
        if r.get('noisy'):
            top2.annotate('noisy', (xv, r['iops']), fontsize=7, color='tab:red')

    amp = [r['read_amplification'] for r in rows]
    bottom.plot(x, amp, 'o-', color='tab:red', label='read amplification')
    bottom.set_yscale('log')
    bottom.set_ylabel('read amplification (x)', color='tab:red')
    bottom.axhline(1.0, color='grey', linewidth=0.8, linestyle=':')
    bottom2 = bottom.twinx()
    bottom2.plot(x, [r['device_mb_s'] for r in rows], 'd--', color='tab:purple', label='device MB/s')
    bottom2.set_ylabel('device MB/s', color='tab:purple')
    bottom2.set_ylim(bottom=0)

    for ax in (top, bottom):
        ax.set_xscale('log', base=2)
        ax.axvline(rec['read_ahead_kb'] if rec['read_ahead_kb'] > 0 else 0.5, color='black', linestyle='--',
                   linewidth=1)
        ax.grid(True, which='major', alpha=0.3)
    bottom.set_xticks(x)
    bottom.set_xticklabels([str(v) for v in ra], rotation=45)
    bottom.set_xlabel('read_ahead_kb (KiB, log scale)')
    top.set_title('recommended: %d KiB (smallest within %.0f %% of the best IOPS)'
                  % (rec['read_ahead_kb'], rec['tolerance'] * 100), fontsize=9)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=100)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
