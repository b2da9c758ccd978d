# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The vm scenario's lab_preload callback (extensions/molecule/vm/callback_plugins/lab_preload.py): it imports every
filter module of the collection in the process that later forks Ansible's workers, and nothing when the collection
is not there. Each case runs in an interpreter of its own: Ansible's collection finder is process-wide."""

import json
import os
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CALLBACKS = os.path.join(REPO, "extensions", "molecule", "vm", "callback_plugins")
FILTERS = sorted(name[:-3] for name in os.listdir(os.path.join(REPO, "plugins", "filter"))
                 if name.endswith(".py") and name != "__init__.py")

PROBE = """
import json, sys
from ansible.utils.collection_loader._collection_finder import _AnsibleCollectionFinder
_AnsibleCollectionFinder(paths=[sys.argv[1]])._install()
sys.path.insert(0, sys.argv[2])
import lab_preload
callback = lab_preload.CallbackModule()
prefix = lab_preload.PACKAGE + "."
print(json.dumps({"preloaded": callback.preloaded,
                  "imported": sorted(m[len(prefix):] for m in sys.modules if m.startswith(prefix))}))
"""


def probe(collections_root):
    proc = subprocess.run([sys.executable, "-c", PROBE, str(collections_root), CALLBACKS], capture_output=True,
                          text=True, check=False, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_every_filter_module_is_imported_by_the_callback(tmp_path):
    namespace = tmp_path / "ansible_collections" / "iotune"
    namespace.mkdir(parents=True)
    (namespace / "storage").symlink_to(REPO)
    got = probe(tmp_path)
    assert len(FILTERS) >= 40 and "any_true" in FILTERS
    assert got["preloaded"] == FILTERS
    assert got["imported"] == FILTERS


def test_without_the_collection_nothing_is_imported_and_nothing_fails(tmp_path):
    (tmp_path / "ansible_collections").mkdir()
    got = probe(tmp_path)
    assert got == {"preloaded": [], "imported": []}
