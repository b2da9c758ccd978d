#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
module: health_gate
short_description: Wait until a database host answers as healthy, or fail naming what is not
version_added: 0.1.0
description:
  - Runs the checks of a health gate on the host, TCP ports that must accept a connection, an HTTP URL whose status
    and body say healthy, a command whose exit status and output say healthy, and the built-in presets
    (C(cassandra) and C(scylla) - C(nodetool status) with every node UN and the CQL port open; C(mongodb_replica_set)
    - C(rs.status()) with one PRIMARY, every member healthy, no secondary lagging), again after the gate's C(delay) seconds
    until they all pass or its C(retries) more attempts failed.
  - The gate is the user's description (docs/rolling.md), validated before anything runs; a bad key fails with its
    name. The failure message names the host (O(host_label)), the moment (O(moment)) and each failed check with why.
  - A rolling tune run calls it for the cluster before a batch is changed and after it (docs/rolling.md).
  - Reads only. The command check runs the user's command, which must only read (a status command).
author:
  - iotune.storage contributors (@iotune)
options:
  gate:
    description:
      - The health gate, as docs/rolling.md describes it. Keys C(preset), C(tcp_ports), C(host), C(http),
        C(command), C(retries), C(delay), C(timeout), and the options of the preset (C(nodetool_argv), C(cql_port),
        C(mongosh_argv), C(max_lag_seconds), C(lag_exempt)).
    type: dict
    required: true
  moment:
    description: Whether the gate runs before or after the change, for the message only.
    type: str
    choices: [before, after]
  host_label:
    description: The name the message gives the host (the inventory name of the host whose gate this is).
    type: str
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.platform
  - iotune.storage.attributes.read_only
notes:
  - Supports check mode; it runs the same checks (they only read), so that a dry rollout says whether the cluster is
    healthy.
"""

EXAMPLES = r"""
- name: The Cassandra cluster is healthy from this node's view
  iotune.storage.health_gate:
    gate: {preset: cassandra, retries: 30, delay: 10}

- name: A stand-in that answers on a port and with a command
  iotune.storage.health_gate:
    gate:
      tcp_ports: [7000]
      command: {argv: [/usr/local/bin/db-health], stdout_regex: "^healthy$"}
      retries: 3
      delay: 2
    moment: after
    host_label: "{{ inventory_hostname }}"
"""

RETURN = r"""
healthy:
  description: Whether the last attempt passed every check (always V(true) when the module does not fail).
  returned: always
  type: bool
reason:
  description: What the last attempt found, per check.
  returned: always
  type: str
  sample: "health gate passed on db1 after the change: tcp port 7000: the gated host:7000 accepts connections"
failed:
  description: The names of the checks that failed in the last attempt.
  returned: always
  type: list
  elements: str
attempts:
  description: How many attempts ran.
  returned: always
  type: int
seconds:
  description: How long the attempts took.
  returned: always
  type: float
checks:
  description: The last attempt's verdict of each check, C(check), C(healthy), C(reason).
  returned: always
  type: list
  elements: dict
"""

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.urls import open_url

from ansible_collections.iotune.storage.plugins.module_utils import health_gate, health_probe
from ansible_collections.iotune.storage.plugins.module_utils.module_call import result_or_fail


def main():
    module = AnsibleModule(
        argument_spec=dict(
            gate=dict(type='dict', required=True),
            moment=dict(type='str', choices=['before', 'after']),
            host_label=dict(type='str'),
        ),
        supports_check_mode=True,
    )
    gate = result_or_fail(module, lambda: health_gate.validate_gate(module.params['gate'], where='gate'),
                          health_gate.GateError)
    probes = {'tcp': health_probe.tcp_probe, 'command': health_probe.command_probe,
              'http': health_probe.make_http_probe(open_url)}
    result = health_probe.run_gate(gate, probes, host=module.params['host_label'], when=module.params['moment'])
    if not result['healthy']:
        module.fail_json(msg=result['reason'], **result)
    module.exit_json(changed=False, **result)


if __name__ == '__main__':
    main()
