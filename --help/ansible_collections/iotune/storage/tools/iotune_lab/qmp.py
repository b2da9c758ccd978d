# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A minimal QMP (qemu machine protocol) client over the VM's unix socket."""

import json
import socket
import time

from .common import LabError


class QMP:
    def __init__(self, path, timeout=10):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(str(path))
        except OSError as e:
            raise LabError(f"cannot connect to the QMP socket {path}: {e}")
        self.buf = b""
        self.events = []
        self._read()                              # greeting
        self.cmd("qmp_capabilities")

    def _read(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise LabError("QMP connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def cmd(self, execute, **arguments):
        msg = {"execute": execute}
        if arguments:
            msg["arguments"] = arguments
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            r = self._read()
            if "event" in r:
                self.events.append(r)
                continue
            if "error" in r:
                raise LabError(f"QMP {execute} failed: {r['error'].get('desc', r['error'])}")
            return r.get("return")

    def wait_event(self, event, timeout, match=None):
        deadline = time.monotonic() + timeout
        while True:
            for ev in self.events:
                if ev.get("event") == event and (match is None or match(ev)):
                    return ev
            self.events = []
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                r = self._read()
            except socket.timeout:
                return None
            if "event" in r:
                self.events.append(r)

    def close(self):
        self.sock.close()
