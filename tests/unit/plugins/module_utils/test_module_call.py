# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_call.result_or_fail: the result, or one failure with the error's message and data, warnings either way."""

from __future__ import annotations

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.module_call import result_or_fail


class Failed(Exception):
    pass


class Module:
    def __init__(self):
        self.warned = []
        self.failed = None

    def warn(self, text):
        self.warned.append(text)

    def fail_json(self, **kwargs):
        self.failed = kwargs
        raise Failed()


class DataError(Exception):
    def __init__(self, msg, **data):
        super().__init__(msg)
        self.data = data


def test_the_result_and_the_warnings():
    module = Module()
    assert result_or_fail(module, lambda: {'changed': False}, ValueError, warnings=lambda: ['w1', 'w2']) == \
        {'changed': False}
    assert module.warned == ['w1', 'w2'] and module.failed is None


def test_a_failure_carries_the_message_the_prefix_and_the_data_the_error_wins():
    module = Module()

    def call():
        raise DataError('no such array', device='/dev/md/x', rc=1)

    with pytest.raises(Failed) as failed:
        result_or_fail(module, call, (DataError, OSError), warnings=lambda: ['read later'], prefix='audit: ',
                       device='/dev/md/data', path='/etc')
    assert module.failed == {'msg': 'audit: no such array', 'device': '/dev/md/x', 'rc': 1, 'path': '/etc'}
    # the warnings are out before the failure
    assert module.warned == ['read later']
    # no chained traceback: the failure is reported outside the except block
    assert failed.value.__context__ is None


def test_an_error_without_data_and_an_error_not_listed():
    module = Module()

    def call():
        raise ValueError('bad')

    with pytest.raises(Failed):
        result_or_fail(module, call, ValueError)
    assert module.failed == {'msg': 'bad'}
    with pytest.raises(KeyError):
        result_or_fail(Module(), lambda: {}['x'], ValueError)
