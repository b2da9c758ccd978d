# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one ending of every module's ``main()``: the work's result, or the module failed with the error's message.

A module's ``main()`` builds its ``AnsibleModule`` and the object that does the work, then hands the call to
:func:`result_or_fail`; what it does with the result (diff, facts, ``exit_json``) follows. The failure is reported
outside the ``except`` block, so its message is the whole story: no chained traceback in the task's output.
"""

from __future__ import annotations


def result_or_fail(module, call, errors, warnings=None, prefix='', **data):
    """``call()``'s result. When it raises one of ``errors``, ``module.fail_json`` with ``prefix`` and the error's
    message, and with ``data`` updated by the error's own ``data`` attribute (when it has one). ``warnings``, a
    callable giving the messages to warn about, is read after the call either way, before the result or the
    failure is reported."""
    failure = None
    result = None
    try:
        result = call()
    except errors as exc:
        failure = exc
    for warning in (warnings() if warnings is not None else ()):
        module.warn(warning)
    if failure is not None:
        data.update(getattr(failure, 'data', None) or {})
        module.fail_json(msg=prefix + str(failure), **data)
    return result
