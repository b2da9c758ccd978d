# iotune.storage — developer entry points. `make help` lists them.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

TOP        := $(abspath .)
VENV       := $(TOP)/.venv
PY         := python3
BIN        := $(VENV)/bin
BUILD      := $(TOP)/build
# Runtime view of the collection (molecule, playbooks): a symlink to the working tree.
COLL_ROOT  := $(BUILD)/collections
COLL_LINK  := $(COLL_ROOT)/ansible_collections/iotune/storage
# ansible-test wants the collection under ansible_collections/NS/NAME: a synced copy.
AT_ROOT    := $(BUILD)/ansible-test/ansible_collections/iotune/storage
PYVER      := $(shell $(PY) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
PIP_SHIM   := $(HOME)/.ansible/test/cache/get_pip_24_2.py

export PATH := $(BIN):$(TOP)/tools:$(PATH)
export ANSIBLE_COLLECTIONS_PATH := $(COLL_ROOT)
export ANSIBLE_COLLECTIONS_SCAN_SYS_PATH := true
export CONTAINERS_CONF := $(TOP)/.lab/containers.conf
export ANSIBLE_FORCE_COLOR := 0
export PY_COLORS := 0
export ANSIBLE_NOCOLOR := 1
export NO_COLOR := 1

.PHONY: help
help: ## list the targets
	@grep -hE '^[a-z][a-z0-9_-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 24

# ---------------------------------------------------------------------------------------------
# Environment
.PHONY: host venv tree setup
host: ## install host packages (qemu, debootstrap, podman, ...) and configure podman
	$(TOP)/tools/setup-host

$(VENV)/.stamp: requirements-dev.txt constraints.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check pip==24.2
	$(BIN)/pip install -q --disable-pip-version-check -r requirements-dev.txt -c constraints.txt
	touch $@

venv: $(VENV)/.stamp ## create the pinned development virtualenv in .venv/

tree: ## expose the working tree as ansible_collections/iotune/storage under build/
	mkdir -p $(dir $(COLL_LINK))
	ln -sfn $(TOP) $(COLL_LINK)

# get_pip_X_Y.py: the offline get-pip shim and the pip X.Y wheel it installs (ansible-test asks for it by name)
$(HOME)/.ansible/test/cache/get_pip_%.py: tools/get_pip_shim.py | venv
	mkdir -p $(dir $@)
	ls $(dir $@)pip-$(subst _,.,$*)-py3-none-any.whl >/dev/null 2>&1 || \
	  $(BIN)/pip download -q --no-deps --only-binary=:all: -d $(dir $@) pip==$(subst _,.,$*)
	cp tools/get_pip_shim.py $@

# The newest ansible-core of the declared range (requires_ansible >=2.19): sanity and units in its own venv.
# 2.20 needs a controller Python >= 3.12: python3.12 from PATH, else pyenv's; ansible-test bootstraps pip
# NEWEST_PIP in its test venvs through the same offline shim.
NEWEST_CORE := 2.20.10
NEWEST_PIP  := 25.2
PY_NEWEST   := $(shell for p in $$(command -v python3.12) $(HOME)/.pyenv/versions/3.12*/bin/python3.12; do \
                 "$$p" -c '' 2>/dev/null && { echo "$$p"; break; }; done)
NEWEST_VENV := $(BUILD)/venv-core-$(NEWEST_CORE)
PIP_SHIM_NEWEST := $(HOME)/.ansible/test/cache/get_pip_$(subst .,_,$(NEWEST_PIP)).py

$(NEWEST_VENV)/.stamp:
	@test -n "$(PY_NEWEST)" || { echo "ansible-core $(NEWEST_CORE) needs Python 3.12 on the controller:" \
	  "none on PATH (python3.12) or in ~/.pyenv/versions/3.12*"; exit 1; }
	$(PY_NEWEST) -m venv $(NEWEST_VENV)
	$(NEWEST_VENV)/bin/pip install -q --disable-pip-version-check ansible-core==$(NEWEST_CORE)
	touch $@

setup: host venv tree $(PIP_SHIM) ## everything the tests need

# ---------------------------------------------------------------------------------------------
# Tests
.PHONY: test sanity sanity-newest units lab-units browser browser-test lint changelog-lint molecule-container molecule-vm molecule-vm-nvme at-tree
# The vm matrix (most of the time, CPU-bound under emulation) starts first and runs beside the other suites,
# which run one after the other; a failed suite does not stop the others. Ends with a table of every suite's
# and every matrix entry's time (also in build/test-times.txt).
TEST_SUITES := sanity sanity-newest units browser-test lint changelog-lint ship-checks molecule-container
# The matrix is the long pole and CPU-bound. nice 19 makes the other suites yield to the matrix's controllers
# (ansible-playbook, pytest, ssh: make's own session), not to the emulated guests: with the kernel's autogroups
# (sched_autogroup_enabled, on by Debian's default) each session is a scheduling group of its own, the lab starts
# each qemu in a session of its own, and the suites' group gets a fair share of the cores against each VM whatever
# its nice value (docs/testing.md, "Where an entry's time goes"). The CPU work is the same either way: the suites
# beside the matrix fill the cores; after it, most of them would run on one core.
TEST_SUITES_NICE ?= 19
TEST_TIMES  := $(BUILD)/test-times.txt
test: setup ## run every test: molecule vm beside sanity, units, lint, changelog, ship checks, molecule container
	@t0=$$(date +%s); failed=""; mkdir -p $(BUILD); : > $(TEST_TIMES); rm -f $(BUILD)/molecule-vm-failures.txt; \
	row() { printf '%-44s %-7s %5d s\n' "$$1" "$$2" "$$3" >> $(TEST_TIMES); }; \
	( t=$$(date +%s); rc=0; IOTUNE_TEST_TIMES=$(TEST_TIMES) $(VM_MATRIX_RUN) || rc=$$?; \
	  r=$$( [ $$rc -eq 0 ] && echo passed || echo FAILED); \
	  echo "make test: molecule-vm $$r in $$(( $$(date +%s) - t )) s"; row "molecule-vm (the matrix)" $$r $$(( $$(date +%s) - t )); \
	  exit $$rc ) & vm=$$!; \
	for suite in $(TEST_SUITES); do t=$$(date +%s); \
	  if nice -n $(TEST_SUITES_NICE) $(MAKE) --no-print-directory $$suite; then r=passed; else r=FAILED; failed="$$failed $$suite"; fi; \
	  echo "make test: $$suite $$r in $$(( $$(date +%s) - t )) s"; row "$$suite" $$r $$(( $$(date +%s) - t )); done; \
	row "(the suites above, one after the other)" - $$(( $$(date +%s) - t0 )); \
	wait $$vm || failed="$$failed molecule-vm"; \
	row "make test (all)" $$( [ -z "$$failed" ] && echo passed || echo FAILED) $$(( $$(date +%s) - t0 )); \
	echo "make test: time table (the vm matrix entries side by side, beside the other suites)"; cat $(TEST_TIMES); \
	if [ -n "$$failed" ]; then \
	  if [ -s $(BUILD)/molecule-vm-failures.txt ]; then echo "make test: what failed in the vm matrix (build/molecule-vm-*.log):"; \
	    cat $(BUILD)/molecule-vm-failures.txt; fi; \
	  echo "make test: FAILED:$$failed (after $$(( $$(date +%s) - t0 )) s)"; exit 1; fi; \
	echo "make test: all suites passed in $$(( $$(date +%s) - t0 )) s"

at-tree: | venv
	mkdir -p $(AT_ROOT)
	# ansible-test lists files with git; the copy lives under the ignored build/, so give it its own repo
	test -d $(AT_ROOT)/.git || git -C $(AT_ROOT) init -q
	# .collections/ (the checkout as ansible_collections/iotune/storage for a plain clone: a directory
	# symlink, which ansible-test refuses) is not collection content
	git ls-files -co --exclude-standard -z | grep -zv '^\.collections/' | rsync -a --delete --from0 --files-from=- $(TOP)/ $(AT_ROOT)/
	# drop files deleted from the work tree since the last sync
	cd $(AT_ROOT) && comm -z -23 <(find . -path ./.git -prune -o -type f -printf '%P\0' | sort -z) \
	  <(cd $(TOP) && git ls-files -co --exclude-standard -z | grep -zv '^\.collections/' | sort -z) | xargs -0 -r rm -f --

sanity: setup at-tree ## ansible-test sanity (local venv mode, offline-safe)
	cd $(AT_ROOT) && $(BIN)/ansible-test sanity --local --python $(PYVER) --color no

sanity-newest: setup at-tree $(NEWEST_VENV)/.stamp $(PIP_SHIM_NEWEST) ## sanity + units on the newest declared ansible-core (2.20, Python 3.12)
	cd $(AT_ROOT) && $(NEWEST_VENV)/bin/ansible-test sanity --local --requirements --python 3.12 --color no
	cd $(AT_ROOT) && $(NEWEST_VENV)/bin/ansible-test units --local --requirements --python 3.12 --color no

units: setup at-tree ## ansible-test units, then the lab's own unit tests and the benchmarks' smoke run
	cd $(AT_ROOT) && $(BIN)/ansible-test units --local --python $(PYVER) --color no
	$(MAKE) --no-print-directory lab-units
	$(MAKE) --no-print-directory perf-smoke

lab-units: venv ## unit tests of tools/iotune_lab (tests/lab; no VM, no root)
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/lab

browser: ## install Debian's chromium (headless browser of browser-test) when it is missing
	command -v chromium >/dev/null 2>&1 || { SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null; }

browser-test: setup browser ## the audit's HTML report in headless chromium (screenshot in tests/output/browser/)
	IOTUNE_REQUIRE_BROWSER=1 PYTHONPATH=$(COLL_ROOT) $(BIN)/python -m pytest -q -p no:cacheprovider tests/browser

lint: setup ## ansible-lint with the production profile
	$(BIN)/ansible-lint --offline --profile production

changelog-lint: venv ## antsibull-changelog lint of the fragments
	$(BIN)/antsibull-changelog lint

molecule-container: setup ## molecule `container` scenario (podman)
	$(BIN)/molecule test -s container

# The vm scenario's matrix: one run per entry RELEASE:INITRAMFS:BUS, the entries side by side, each with its
# own VM (tools/molecule-vm-matrix). docs/testing.md says what each run proves and which tests run on one
# entry only. One run: `make molecule-vm VM_MATRIX=trixie:dracut:virtio` (then every test runs on it);
# VM_ONE_AT_A_TIME=1 runs the entries one after the other. Each entry is bounded (VM_RUN_TIMEOUT seconds), a
# last resort behind the limits of every task (40 min) and test (45 min) inside: an entry that still goes
# on then is ended, its VM removed, and make fails instead of hanging. Generous on purpose: a trixie entry took
# more than 60 min beside two other VMs on 2 cores, and the entries now share the cores with the other suites.
VM_MATRIX ?= bookworm:initramfs-tools:virtio trixie:dracut:nvme
VM_RUN_TIMEOUT ?= 5100
VM_ONE_AT_A_TIME ?=
VM_MATRIX_RUN = MOLECULE=$(BIN)/molecule $(TOP)/tools/molecule-vm-matrix --timeout $(VM_RUN_TIMEOUT) \
	  $(if $(VM_ONE_AT_A_TIME),--one-at-a-time) $(VM_MATRIX)
molecule-vm: setup ## molecule `vm` scenario for each VM_MATRIX entry, side by side (qemu lab VMs; minutes under emulation)
	$(VM_MATRIX_RUN)

molecule-vm-nvme: setup ## the `vm` scenario on Debian 12 with NVMe data disks whose serials look like EBS volume ids
	$(MAKE) --no-print-directory molecule-vm VM_MATRIX=bookworm:initramfs-tools:nvme

# The vm scenario's first converge is crashed (prepare_crashes.yml, docs/safety.md "Crash safety"): in make test the
# two matrix entries share the five points; this target crashes one Debian 12 entry at all five (or CRASH_POINTS;
# IOTUNE_VM_CRASH_POINTS=none for any vm run without crashes).
CRASH_POINTS ?= create,initramfs,mkfs,fstab,udev
molecule-vm-crashes: setup ## the `vm` scenario (Debian 12) with its first converge crashed at all five points (sysrq b)
	IOTUNE_VM_CRASH_POINTS=$(CRASH_POINTS) $(MAKE) --no-print-directory molecule-vm VM_MATRIX=bookworm:initramfs-tools:virtio

# The rolling rollout over two lab VMs (tests/test_rolling.py, docs/rolling.md): not in make test yet (its second VM
# costs about 7 minutes); one Debian 12 entry with it.
molecule-vm-rolling: setup ## the `vm` scenario (Debian 12) with the rolling test: two lab VMs, health gates and restarts
	IOTUNE_VM_ROLLING=1 $(MAKE) --no-print-directory molecule-vm VM_MATRIX=bookworm:initramfs-tools:virtio

# ---------------------------------------------------------------------------------------------
# Release checks on the built tarball (own venv: galaxy-importer pins attrs<24, the dev tools need >=25)
SHIP_VENV  := $(BUILD)/venv-ship
SHIP_BIN   := $(SHIP_VENV)/bin
DIST       := $(BUILD)/dist
VERSION    := $(shell sed -n 's/^version: *//p' galaxy.yml)
TARBALL    := $(DIST)/iotune-storage-$(VERSION).tar.gz
.PHONY: ship-venv tarball tarball-check galaxy-import ee-check version-check changelog-preview docs ship-checks

$(SHIP_VENV)/.stamp: requirements-ship.txt constraints-ship.txt
	test -x $(SHIP_BIN)/python || $(PY) -m venv $(SHIP_VENV)
	$(SHIP_BIN)/pip install -q --disable-pip-version-check pip==24.2
	$(SHIP_BIN)/pip install -q --disable-pip-version-check -r requirements-ship.txt -c constraints-ship.txt
	touch $@

ship-venv: $(SHIP_VENV)/.stamp ## release tooling venv (galaxy-importer, ansible-builder, antsibull-docs, vermin)

tarball: | venv ## build the collection tarball into build/dist/
	mkdir -p $(DIST)
	rm -f $(DIST)/iotune-storage-*.tar.gz
	$(BIN)/ansible-galaxy collection build --force --output-path $(DIST) $(TOP)

tarball-check: tarball ## the tarball ships no dev tooling and has what users need (the check is self-tested)
	$(PY) tools/ship/check_tarball.py --self-test
	$(PY) tools/ship/check_tarball.py $(TARBALL)

GALAXY_IMPORT_EXPECTED := couldn't resolve module/action '(community\.general|ansible\.posix)\.
galaxy-import: tarball ship-venv ## galaxy-importer on the built tarball (offline, no container)
	rm -rf $(DIST)/import && mkdir -p $(DIST)/import
	cp $(TARBALL) $(DIST)/import/
	# offline, its ansible-lint cannot resolve the modules of the declared dependencies (community.general,
	# ansible.posix): expected; any other warning fails (the collection has no sanity ignore files to warn about)
	cd $(DIST)/import && env PATH=$(SHIP_BIN):/usr/bin:/bin GALAXY_IMPORTER_CONFIG=/dev/null \
	  GALAXY_IMPORTER_RUN_ANSIBLE_TEST=false GALAXY_IMPORTER_OFFLINE_ANSIBLE_LINT=true \
	  HOME=$(DIST)/import \
	  $(SHIP_BIN)/python -m galaxy_importer.main $(notdir $(TARBALL)) > import.log 2>&1 \
	  || { cat import.log; echo "galaxy-importer refused the tarball"; exit 1; }
	grep -E '^(WARNING|ERROR)' $(DIST)/import/import.log || true
	grep -q 'Importer processing completed successfully' $(DIST)/import/import.log
	! grep -E '^(WARNING|ERROR)' $(DIST)/import/import.log | grep -v -E "$(GALAXY_IMPORT_EXPECTED)" \
	  || { echo "galaxy-importer: the warnings above are new (expected only: $(GALAXY_IMPORT_EXPECTED))"; exit 1; }

ee-check: tarball ship-venv ## meta/execution-environment.yml: ansible-builder introspect + create (no container)
	env PATH=$(SHIP_BIN):$(PATH) $(SHIP_BIN)/python tools/ship/check_ee.py $(TARBALL) $(BUILD)/ee

version-check: ship-venv ## declared ansible-core/collection/Python versions are the tested ones
	$(SHIP_BIN)/python tools/ship/check_versions.py --python $(BIN)/python --vermin $(SHIP_BIN)/vermin

changelog-preview: venv ## antsibull-changelog release in a temp copy: each new object once, fragment conventions
	$(BIN)/python tools/ship/check_changelog.py $(BUILD)/changelog-preview

docs: ship-venv ## collection docs site (antsibull-docs + docs/*.md) in build/docs/site/build/html; warnings fail
	env PATH=$(SHIP_BIN):$(PATH) $(SHIP_BIN)/python tools/ship/build_docs.py $(BUILD)/docs \
	  $(VENV)/lib/python$(PYVER)/site-packages

ship-checks: tarball-check galaxy-import ee-check version-check changelog-preview docs ## every release check above

# ---------------------------------------------------------------------------------------------
# Lab and demo
.PHONY: demo lab-image perf perf-smoke benchmark benchmark-converge benchmark-storage-path clean
lab-image: setup ## build (or reuse) the lab's Debian 12 base image
	$(TOP)/tools/lab build

demo: setup ## boot a lab VM with 4 disks and tune it with the cassandra profile
	$(TOP)/tools/demo

perf: setup ## benchmarks (not tests): facts module speed
	PYTHONPATH=$(COLL_ROOT) $(BIN)/python tests/perf/bench_readahead_facts.py --runs 20 --setup-cli

# The benchmarks once, quickly, so that they cannot rot (run by `make units`): the facts and audit benchmarks
# with one run each, the converge and storage path benchmarks' tables rendered from stored figures
# (tests/perf/fixtures/) into copies of docs/benchmarks.md (nothing outside their sections changed afterwards).
perf-smoke: venv tree ## the benchmarks once each, quickly (no VM): they still run
	PYTHONPATH=$(COLL_ROOT) $(BIN)/python tests/perf/bench_readahead_facts.py --runs 1
	PYTHONPATH=$(COLL_ROOT) $(BIN)/python tests/perf/bench_audit_report.py --runs 1
	mkdir -p $(BUILD) && cp docs/benchmarks.md $(BUILD)/perf-smoke-benchmarks.md
	$(BIN)/python tools/bench_converge.py --render-only --results tests/perf/fixtures/bench-converge.json \
	  --out $(BUILD)/perf-smoke-benchmarks.md
	grep -q '^| first converge: wall time, s | 600 | 300 | 0.50 |$$' $(BUILD)/perf-smoke-benchmarks.md
	# the rendering replaced its own section only: everything outside the markers is as in docs/benchmarks.md
	diff <(sed '/bench_converge:begin/,/bench_converge:end/d' docs/benchmarks.md) \
	  <(sed '/bench_converge:begin/,/bench_converge:end/d' $(BUILD)/perf-smoke-benchmarks.md)
	# the same for the storage path benchmark (nomerges, mkfs -K), from a stored run of it
	cp docs/benchmarks.md $(BUILD)/perf-smoke-storage-path.md
	$(BIN)/python tools/bench_storage_path.py --vm none --render-only --results tests/perf/fixtures/bench-storage-path.json \
	  --out $(BUILD)/perf-smoke-storage-path.md
	grep -q '^### nomerges 0 vs 2 on the array and its members$$' $(BUILD)/perf-smoke-storage-path.md
	diff <(sed '/bench_storage_path:begin/,/bench_storage_path:end/d' docs/benchmarks.md) \
	  <(sed '/bench_storage_path:begin/,/bench_storage_path:end/d' $(BUILD)/perf-smoke-storage-path.md)

benchmark: setup ## lab benchmark on throttled and unthrottled disks (tuned vs untuned, array vs members, field reports) -> docs/benchmarks.md
	$(TOP)/tools/benchmark

benchmark-storage-path: setup ## nomerges 0 vs 2 and mkfs.xfs with/without -K, A/B interleaved on a temporary RAID0 of two blank disks of a running lab VM (BENCH_VM=NAME BENCH_DISKS=9,10) -> docs/benchmarks.md
	$(TOP)/tools/bench_storage_path --vm $(BENCH_VM) $(if $(BENCH_DISKS),--disks $(BENCH_DISKS))

benchmark-converge: setup ## first converge + re-run time and ssh executions: before (BENCH_BASE), after, and the peer role (BENCH_VARIANTS=...,peer BENCH_PEER_ROLE=DIR), one VM at a time (BENCH_CONCURRENT=1: at once) -> docs/benchmarks.md
	$(TOP)/tools/bench_converge $(if $(BENCH_CONCURRENT),--concurrent) $(if $(BENCH_BASE),--base $(BENCH_BASE)) $(if $(BENCH_VARIANTS),--variants $(BENCH_VARIANTS))

clean: ## remove build output (keeps .venv and the lab cache)
	rm -rf $(BUILD) tests/output
