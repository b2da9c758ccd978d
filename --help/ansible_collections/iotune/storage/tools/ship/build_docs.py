# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Build the collection docs site with antsibull-docs (development only).

    build_docs.py WORKDIR [DEPS_PATH]   (antsibull-docs, sphinx-build, ansible-doc from PATH; pypandoc)

DEPS_PATH: a collections path with the dependencies (community.general, ansible.posix), for example
the development venv's site-packages.

1. copies the git-tracked collection files to WORKDIR/collections/ansible_collections/iotune/storage
   and converts every docs/*.md there to docs/docsite/rst/<name>.rst (pandoc, GitHub Markdown to RST;
   links between the pages become :ref: links, each page gets its label); every page must be listed in
   docs/docsite/extra-docs.yml and every listed page must exist;
2. `antsibull-docs lint-collection-docs` on the copy (extra docs, links, plugin docs);
3. `antsibull-docs sphinx-init` + `antsibull-docs collection` + `sphinx-build` into WORKDIR/site/build/html;
   every Sphinx warning is an error, except that the intersphinx inventories cannot be fetched offline.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys

import yaml

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
LABEL = 'ansible_collections.iotune.storage.docsite.%s'
# offline: the intersphinx inventories (docs.python.org, docs.ansible.com) cannot be fetched
# and so references into them (docs.ansible.com's labels, other collections' plugins) stay unresolved;
# a reference to a label of this collection must resolve.
OFFLINE_OK = re.compile(r'intersphinx|failed to reach any of the inventories|inventory .* not (fetchable|readable)'
                        r"|undefined label: '(?!ansible_collections\.iotune\.storage\.)[^']+' \[ref\.ref\]",
                        re.IGNORECASE)


def run(argv, **kwargs):
    print('+ %s' % ' '.join(argv), flush=True)
    return subprocess.run(argv, check=True, **kwargs)


def md_to_rst(stem, markdown):
    import pypandoc
    rst = pypandoc.convert_text(markdown, 'rst', format='gfm-gfm_auto_identifiers', extra_args=['--wrap=preserve'])
    # [text](page.md) or (page.md#anchor) -> a reference to that page's label
    rst = re.sub(r'`([^`<]+?)\s*<([A-Za-z0-9_-]+)\.md(#[^>]*)?>`__?',
                 lambda m: ':ref:`%s <%s>`' % (m.group(1).strip(), LABEL % m.group(2)), rst)
    rst = re.sub(r'<([A-Za-z0-9_-]+)\.md(#[^>]*)?>`__?', lambda m: '<%s>`' % (LABEL % m.group(1)), rst)
    return '.. _%s:\n\n%s' % (LABEL % stem, rst)


def prepare_copy(work):
    copy = os.path.join(work, 'collections', 'ansible_collections', 'iotune', 'storage')
    shutil.rmtree(os.path.join(work, 'collections'), ignore_errors=True)
    files = subprocess.run(['git', 'ls-files', '-co', '--exclude-standard', '-z'], cwd=TOP, check=True,
                           stdout=subprocess.PIPE).stdout.decode().split('\0')
    for rel in filter(None, files):
        src = os.path.join(TOP, rel)
        if os.path.isfile(src) and not rel.startswith('.collections/'):
            os.makedirs(os.path.dirname(os.path.join(copy, rel)), exist_ok=True)
            shutil.copy2(src, os.path.join(copy, rel))
    rst_dir = os.path.join(copy, 'docs', 'docsite', 'rst')
    os.makedirs(rst_dir, exist_ok=True)
    stems = []
    for md in sorted(glob.glob(os.path.join(TOP, 'docs', '*.md'))):
        stem = os.path.basename(md)[:-3]
        stems.append(stem)
        with open(md) as f:
            rst = md_to_rst(stem, f.read())
        with open(os.path.join(rst_dir, stem + '.rst'), 'w') as f:
            f.write(rst)
    with open(os.path.join(TOP, 'docs', 'docsite', 'extra-docs.yml')) as f:
        index = yaml.safe_load(f)
    listed = [entry['ref'] for section in index['sections'] for entry in section['toctree']]
    errors = ['docs/%s.md is not in docs/docsite/extra-docs.yml' % s for s in stems if s not in listed]
    errors += ['docs/docsite/extra-docs.yml lists %s, which has no docs/*.md page' % ref
               for ref in listed if ref not in stems]
    return copy, errors


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__)
        return 2
    work = os.path.abspath(argv[1])
    copy, errors = prepare_copy(work)
    if errors:
        for line in errors:
            print('docs: ERROR: %s' % line)
        return 1
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.pathsep.join([os.path.join(work, 'collections')] + argv[2:]))
    run(['antsibull-docs', 'lint-collection-docs', '--plugin-docs', '--skip-rstcheck', copy], env=env)
    site = os.path.join(work, 'site')
    shutil.rmtree(site, ignore_errors=True)
    os.makedirs(site)
    run(['antsibull-docs', 'sphinx-init', '--use-current', '--fail-on-error', '--lenient', '--dest-dir', site,
         'iotune.storage'], env=env, stdout=subprocess.DEVNULL)
    rst = os.path.join(site, 'rst')
    os.makedirs(rst, exist_ok=True)
    os.chmod(rst, 0o755)
    run(['antsibull-docs', '--config-file', os.path.join(site, 'antsibull-docs.cfg'), 'collection',
         '--cleanup', 'everything', '--fail-on-error', '--use-current', '--dest-dir', rst, 'iotune.storage'], env=env)
    # the images the pages show (docs/img) next to the generated extra docs
    docsite = os.path.join(rst, 'collections', 'iotune', 'storage', 'docsite')
    if os.path.isdir(os.path.join(TOP, 'docs', 'img')) and os.path.isdir(docsite):
        shutil.copytree(os.path.join(TOP, 'docs', 'img'), os.path.join(docsite, 'img'))
    warnings = os.path.join(site, 'warnings.log')
    run(['sphinx-build', '-q', '-b', 'html', '-c', site, '-w', warnings, '--keep-going', rst,
         os.path.join(site, 'build', 'html')], env=env)
    with open(warnings) as f:
        lines = [line.rstrip() for line in f if line.strip()]
    real = [line for line in lines if not OFFLINE_OK.search(line)]
    for line in lines:
        print('docs: %s%s' % ('' if line in real else '(offline, ignored) ', line))
    if real:
        print('docs: %d Sphinx warning(s) are errors' % len(real))
        return 1
    pages = len(glob.glob(os.path.join(site, 'build', 'html', '**', '*.html'), recursive=True))
    print('docs: site built without warnings: %s/build/html/index.html (%d pages)' % (site, pages))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
