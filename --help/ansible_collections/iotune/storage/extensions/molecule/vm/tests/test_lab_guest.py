# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lab guest's own tooling, not the collection's: the cache of the code Python compiles from Ansible's module
archives (tools/lab_image/rootfs/usr/lib/python3/dist-packages/iotunelab_pycache.py, docs/lab.md) is in use on this
release's Python. It only makes the suite faster: a guest where it silently fell back would pass every other test,
slower."""


def test_the_guest_keeps_the_code_ansible_compiles(host):
    tags = host.check_output("ls /var/cache/iotune-lab-pycache 2>/dev/null; true").split()
    python = host.check_output("python3 -c 'import sys; print(sys.implementation.cache_tag)'")
    assert tags == [python], (tags, python)
    cached = int(host.check_output("ls /var/cache/iotune-lab-pycache/%s | wc -l" % python))
    assert cached >= 20, cached          # ansible.module_utils.basic alone imports more than 20 files
