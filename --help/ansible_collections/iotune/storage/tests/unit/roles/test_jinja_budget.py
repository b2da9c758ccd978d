# -*- coding: utf-8 -*-
# Copyright (c) 2026 iotune.storage contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Jinja budget of the roles (issue 24): the role Jinja that computes, not just loops or formats, stays under
BUDGET lines in all, and each computing expression has a YAML comment beginning with ``# Jinja:`` just above it
saying why it stays (logic belongs in the filters, plugins/filter and plugins/plugin_utils, where it is unit tested).

Which Jinja computes is a heuristic over Jinja's own lexer (the tokens, not the text):

* an expression computes when it uses a filter from COMPUTING_FILTERS (select, selectattr, reject, rejectattr, map,
  combine, zip, difference, intersect, union, unique, flatten, sum, min, max, groupby, items2dict, dict2items, the
  regex_* filters...) or a test from COMPUTING_TESTS (match, search, regex...), calls a global from COMPUTING_CALLS
  (``dict(...)``, ``zip(...)``, ``range(...)``), has an inline conditional (``a if b else c``), an arithmetic
  operator (``+ - * / // % **``; a unary minus as in ``x[-1]`` is a number, ``f(**kwargs)`` an unpacking, not
  arithmetic), or is a statement block (``{% for %}``, ``{% if %}``, ``{% set %}``...);
* it does not compute when it is a plain variable reference (attributes and subscripts included), a literal list or
  dict of such, ``default(...)``, ``| bool``, ``| int``, ``| string``, ``| length``, ``| join(...)``, a comparison
  or ``and``/``or``/``not`` (a condition, as in ``when:``), string formatting with ``~``, or a call of one of the
  collection's own filters (``iotune.storage.*``): their arguments are scanned like the rest, so an own filter
  with plain arguments does not count and one fed computed arguments does;
* an inline conditional that is the whole expression and only formats does not count either: ``{{ a if c else
  omit }}`` (an option left out when unset) and ``{{ 'word' if c else 'other word' }}`` (both branches literals: a
  word chosen for a task name or a message).

Where: every YAML file under roles/*/tasks, vars, handlers and defaults (meta holds no Jinja that runs). The
expressions are the ``{{ }}`` and ``{% %}`` of every scalar, and the bare expressions of the keys Ansible templates
without braces (when, that, until, failed_when, changed_when).

Counting: the source LINES computing expressions span (each line of a multi-line or folded expression counts; a
line counts once however many expressions it holds).

Comment: the YAML comment lines just above the expression's key (the contiguous ``#`` lines right above it; for an
item of a list such as ``when:`` or ``that:``, above the item or above the list's key) include one beginning with
``# Jinja:``.
"""

from __future__ import annotations

import glob
import os
import sys

import yaml
from jinja2 import Environment
from jinja2.exceptions import TemplateSyntaxError

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))
BUDGET = 30
KINDS = ('tasks', 'vars', 'handlers', 'defaults')
BARE_KEYS = frozenset(('when', 'that', 'until', 'failed_when', 'changed_when'))
COMPUTING_FILTERS = frozenset((
    'select', 'selectattr', 'reject', 'rejectattr', 'map', 'combine', 'zip', 'zip_longest', 'difference',
    'intersect', 'union', 'symmetric_difference', 'unique', 'flatten', 'sum', 'min', 'max', 'groupby', 'items2dict',
    'dict2items', 'subelements', 'product', 'permutations', 'combinations', 'extract', 'json_query', 'batch',
    'slice', 'sort', 'dictsort', 'round', 'abs'))
COMPUTING_TESTS = frozenset(('match', 'search', 'regex', 'subset', 'superset', 'contains', 'any', 'all'))
COMPUTING_CALLS = frozenset(('dict', 'zip', 'range', 'namespace'))
ARITHMETIC = frozenset(('add', 'sub', 'mul', 'div', 'floordiv', 'mod', 'pow'))
# after these tokens a minus is a sign (x[-1], f(-1), a == -1), not arithmetic
SIGN_CONTEXT = frozenset(('lbracket', 'lparen', 'comma', 'colon', 'assign', 'eq', 'ne', 'lt', 'lteq', 'gt', 'gteq',
                          'variable_begin', 'block_begin'))
LITERAL_NAMES = frozenset(('true', 'false', 'none', 'True', 'False', 'None'))
COMMENT = '# Jinja:'

_ENV = Environment()


def _filter_name(tokens, i):
    """The dotted name starting at token i (iotune.storage.x), and the index after it."""
    parts = []
    while i < len(tokens) and tokens[i][1] == 'name':
        parts.append(tokens[i][2])
        if i + 2 < len(tokens) and tokens[i + 1][1] == 'dot' and tokens[i + 2][1] == 'name':
            i += 2
        else:
            i += 1
            break
    return '.'.join(parts), i


def _literal(tokens):
    return len(tokens) == 1 and (tokens[0][1] in ('string', 'integer', 'float') or tokens[0][2] in LITERAL_NAMES)


def _formatting_if(tokens, i):
    """Whether the ``if`` at token i is the whole expression ``{{ a if c else b }}`` and only formats: ``b`` is
    ``omit`` (an option left out) or ``a`` and ``b`` are literals (a word chosen for a name or a message)."""
    depth = 0
    for token in tokens[1:i]:
        depth += token[1] in ('lparen', 'lbracket', 'lbrace')
        depth -= token[1] in ('rparen', 'rbracket', 'rbrace')
    if depth:
        return False
    rest = [t[2] if t[1] == 'name' else None for t in tokens]
    if 'else' not in rest[i:]:
        return False
    j = rest.index('else', i)
    then, other = tokens[1:i], tokens[j + 1:-1]
    return other == [(other[0][0], 'name', 'omit')] if len(other) == 1 and other[0][2] == 'omit' \
        else _literal(then) and _literal(other)


def _reasons(tokens):
    """Why the expression tokens ``[(lineno, type, value)]`` compute (empty when they do not)."""
    out = []
    for i, (_line, kind, value) in enumerate(tokens):
        prev = tokens[i - 1][1] if i else None
        if kind == 'pipe' and i + 1 < len(tokens):
            name = _filter_name(tokens, i + 1)[0]
            if name in COMPUTING_FILTERS or name.startswith('regex_'):
                out.append('filter ' + name)
        elif kind == 'name' and value == 'is' and i + 1 < len(tokens):
            j = i + 2 if tokens[i + 1][2] == 'not' else i + 1
            name = _filter_name(tokens, j)[0] if j < len(tokens) else ''
            if name in COMPUTING_TESTS:
                out.append('test ' + name)
        elif kind == 'name' and value in COMPUTING_CALLS and i + 1 < len(tokens) and tokens[i + 1][1] == 'lparen' \
                and prev not in ('pipe', 'dot'):
            out.append('call %s()' % value)
        elif kind == 'name' and value == 'if' and tokens[0][1] == 'variable_begin' and not _formatting_if(tokens, i):
            out.append('inline if')
        elif kind in ARITHMETIC and not (kind == 'sub' and prev in SIGN_CONTEXT) \
                and not (kind in ('mul', 'pow') and prev in ('lparen', 'comma')):
            out.append('arithmetic ' + value)
        elif kind == 'block_begin':
            out.append('{%% %s %%}' % (tokens[i + 1][2] if i + 1 < len(tokens) else ''))
    return out


def _expressions(text):
    """[(first line, last line, tokens)] of each {{ }} and {% %} in ``text`` (lines from 0)."""
    out, current = [], None
    for token in _ENV.lexer.tokenize(text):
        lineno, kind, value = token.lineno, token.type, token.value
        if kind in ('variable_begin', 'block_begin'):
            current = [(lineno, kind, value)]
        elif current is not None:
            current.append((lineno, kind, value))
            if kind in ('variable_end', 'block_end'):
                out.append((current[0][0] - 1, lineno - 1, current))
                current = None
    return out


class Finding(object):
    def __init__(self, path, first, last, reasons, commented, source):
        self.path, self.first, self.last, self.reasons = path, first, last, reasons
        self.commented, self.source = commented, source

    @property
    def line_keys(self):
        return set((self.path, n) for n in range(self.first, self.last + 1) if self.source[n].strip())

    @property
    def lines(self):
        return len(self.line_keys)

    def __str__(self):
        return '%s:%d-%d (%d line%s, %s)%s: %s' % (
            os.path.relpath(self.path, ROOT), self.first + 1, self.last + 1, self.lines, '' if self.lines == 1 else 's',
            ', '.join(sorted(set(self.reasons))), '' if self.commented else ' NOT COMMENTED',
            ' / '.join(line.strip() for line in self.source[self.first:self.last + 1] if line.strip()))


def _commented(source, anchors):
    """Whether the contiguous comment lines just above one of the ``anchors`` (lines from 0) hold a ``# Jinja:``."""
    for anchor in anchors:
        line = anchor - 1
        while line >= 0 and source[line].strip().startswith('#'):
            if source[line].strip().startswith(COMMENT):
                return True
            line -= 1
    return False


def _scalar(path, source, node, anchors, bare):
    """The findings of one scalar node."""
    start, end = node.start_mark, node.end_mark
    raw = ''.join(source)[start.index:end.index]
    first_line = start.line
    if bare:
        value = node.value if isinstance(node.value, str) else str(node.value)
        try:
            found = _expressions('{{ %s }}' % value)
        except TemplateSyntaxError:
            return []
        reasons = [r for _f, _l, tokens in found for r in _reasons(tokens)]
        last = end.line - 1 if end.column == 0 and end.line > start.line else end.line
        if node.style in ('>', '|'):
            first_line += 1
        return [Finding(path, first_line, last, reasons, _commented(source, anchors + [first_line]), source)] \
            if reasons else []
    try:
        found = _expressions(raw)
    except TemplateSyntaxError:
        try:
            found = [(0, end.line - start.line, tokens) for _f, _l, tokens in _expressions(node.value)]
        except TemplateSyntaxError:
            return []
    out = []
    for first, last, tokens in found:
        reasons = _reasons(tokens)
        if reasons:
            lo, hi = first_line + first, first_line + last
            out.append(Finding(path, lo, hi, reasons, _commented(source, anchors + [lo]), source))
    return out


def _walk(path, source, node, anchors, bare=False):
    if isinstance(node, yaml.MappingNode):
        out = []
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else None
            out += _walk(path, source, value, [key.start_mark.line], bare=name in BARE_KEYS)
        return out
    if isinstance(node, yaml.SequenceNode):
        out = []
        for item in node.value:
            out += _walk(path, source, item, anchors + [item.start_mark.line], bare=bare)
        return out
    if isinstance(node, yaml.ScalarNode) and isinstance(node.value, str):
        if bare and node.tag != 'tag:yaml.org,2002:str' or not bare and '{' not in node.value:
            return []
        if bare and node.style is None and node.value in ('true', 'false'):
            return []
        return _scalar(path, source, node, anchors, bare)
    return []


def scan(root=ROOT):
    """The findings of every role YAML file under ``root``."""
    out = []
    for kind in KINDS:
        for path in sorted(glob.glob(os.path.join(root, 'roles', '*', kind, '**', '*.yml'), recursive=True)):
            with open(path) as f:
                source = f.read().splitlines(True)
            for document in yaml.compose_all(''.join(source), Loader=yaml.SafeLoader):
                if document is not None:
                    out += _walk(path, source, document, [])
    return sorted(out, key=lambda f: (f.path, f.first))


def count(findings):
    """The computing lines of ``findings``, each source line once."""
    return len(set().union(*[f.line_keys for f in findings]))


def test_budget():
    findings = scan()
    total = count(findings)
    assert total <= BUDGET, 'computing role Jinja: %d lines, the budget is %d\n%s' % (
        total, BUDGET, '\n'.join(str(f) for f in findings))


def test_commented():
    missing = [f for f in scan() if not f.commented]
    assert not missing, 'computing role Jinja without a "%s" comment just above it:\n%s' % (
        COMMENT, '\n'.join(str(f) for f in missing))


DEMO = """---
- name: Commented
  ansible.builtin.debug:
    # Jinja: a demo that stays
    msg: "{{ demo_items | map(attribute='name') | list }}"
- name: Not commented
  ansible.builtin.debug:
    msg: "{{ demo_items | selectattr('on') | list }}"
  when: demo_a | int + 1 > 2
- name: Does not compute
  ansible.builtin.debug:
    msg: "{{ 'skip' if demo_skip else 'call' }} {{ demo_items | iotune.storage.stage_result(demo_b) }} {{ x ~ y }}"
    name: "{{ demo_x if demo_x | length > 0 else omit }}"
  loop: "{{ demo_items[-1:] | default([]) }}"
  when: demo_items | length > 0 and demo_b | bool
"""


def test_heuristic_on_a_demo_role(tmp_path):
    """An uncommented computing expression is found and counted, a commented one passes, formatting does not count."""
    path = tmp_path / 'roles' / 'demo' / 'tasks'
    path.mkdir(parents=True)
    (path / 'main.yml').write_text(DEMO)
    findings = scan(str(tmp_path))
    assert [(f.first + 1, f.commented) for f in findings] == [(5, True), (8, False), (9, False)]
    assert count(findings) == 3


if __name__ == '__main__':
    FINDINGS = scan(sys.argv[1] if len(sys.argv) > 1 else ROOT)
    print('\n'.join(str(f) for f in FINDINGS))
    print('%d lines in %d expressions' % (count(FINDINGS), len(FINDINGS)))
