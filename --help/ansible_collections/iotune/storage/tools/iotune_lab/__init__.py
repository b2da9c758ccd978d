# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The iotune lab (tools/lab): qemu VMs from a debootstrap-built Debian image. See docs/lab.md."""
