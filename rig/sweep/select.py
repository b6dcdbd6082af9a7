#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""select.py TREE OUT.config OUT.json [--only NAME,...]: the sweep's driver
selection, as a rule (docs/sweep.md, "Which drivers").

A driver is kept when
  1. a C file of TREE has MODULE_DEVICE_TABLE(usb, ...): it matches USB
     devices by id;
  2. a Makefile beside it builds that file, directly or as a part of a
     composite object, under obj-$(CONFIG_X);
  3. CONFIG_X is declared tristate in a Kconfig file, so it can be a module.
OUT.config gets CONFIG_X=m for every kept symbol; OUT.json lists what was
kept (symbol, object, files) and what was dropped, each with its reason.
--only keeps only the drivers whose object name (the module: ipheth) or
symbol (USB_IPHETH) is listed: the small sweep of make check.
What Kconfig then drops for unmet dependencies is for the caller to say
(rig/sweep/sweep.sh compares OUT.config with the .config).

Then the picks' dependencies are opened, by rule too: every symbol a kept
driver needs through its "depends on" or an enclosing "if" or "menu ...
depends on" (each plain term of a top-level "&&"; none behind "!" or
"||"), and what those need in turn, when the tree declares it with a
prompt: =m when tristate, =y when bool. They follow the picks in
OUT.config and are listed in OUT.json as "opened": the menus and cores
the drivers sit under (gspca's USB_GSPCA, DVB_USB, RC_DEVICES, ...).
"""
import json
import os
import re
import sys

DEVTABLE = re.compile(r'MODULE_DEVICE_TABLE\s*\(\s*usb\s*,')
OBJ_LINE = re.compile(r'^\s*obj-\$\(CONFIG_([A-Za-z0-9_]+)\)\s*[+:]?=\s*(.*)$')
PART_LINE = re.compile(r'^\s*([A-Za-z0-9_.-]+?)-(?:y|objs|\$\(CONFIG_[A-Za-z0-9_]+\))\s*[+:]?=\s*(.*)$')
CONFIG_LINE = re.compile(r'^\s*(?:menu)?config\s+([A-Za-z0-9_]+)\s*$')
TYPE_LINE = re.compile(r'^\s*(bool|tristate|def_tristate|def_bool)\b')
SKIP_DIRS = ('Documentation', 'tools', 'scripts', 'samples', 'arch/um')


def makefile_lines(path):
    """A Makefile's logical lines (continuations joined)."""
    try:
        with open(path, errors='replace') as f:
            text = f.read()
    except OSError:
        return []
    text = text.replace('\\\n', ' ')
    return text.splitlines()


def objects_of(mk_dir, cache):
    """{object.o: symbol} and {composite.o: [part.o]} of a directory."""
    if mk_dir in cache:
        return cache[mk_dir]
    objs, parts = {}, {}
    for name in ('Makefile', 'Kbuild'):
        for line in makefile_lines(os.path.join(mk_dir, name)):
            line = line.split('#', 1)[0]
            m = OBJ_LINE.match(line)
            if m:
                for o in m.group(2).split():
                    if o.endswith('.o'):
                        objs.setdefault(o, m.group(1))
                continue
            m = PART_LINE.match(line)
            if m:
                parts.setdefault(m.group(1) + '.o', []).extend(
                    o for o in m.group(2).split() if o.endswith('.o'))
    cache[mk_dir] = (objs, parts)
    return cache[mk_dir]


def symbol_of(tree, rel, cache):
    """(symbol, module object) building TREE/rel, or (None, reason)."""
    d, base = os.path.split(rel)
    obj = os.path.splitext(base)[0] + '.o'
    # the file's own directory, then its parents (obj-y += dir/ trees
    # name parts with a directory: "foo-y := sub/bar.o")
    here = d
    while here:
        objs, parts = objects_of(os.path.join(tree, here), cache)
        sub = os.path.relpath(os.path.join(d, obj), here)
        if sub in objs:
            return objs[sub], sub
        for comp, members in parts.items():
            if sub in members and comp in objs:
                return objs[comp], comp
        here = os.path.dirname(here)
    return None, 'no obj-$(CONFIG_...) in its Makefiles builds it'


def kconfig_types(tree):
    """{symbol: type} of every Kconfig file."""
    types = {}
    for root, dirs, files in os.walk(tree):
        dirs[:] = [x for x in dirs if not x.startswith('.')]
        for f in files:
            if not f.startswith('Kconfig'):
                continue
            sym = None
            with open(os.path.join(root, f), errors='replace') as fh:
                for line in fh:
                    m = CONFIG_LINE.match(line)
                    if m:
                        sym = m.group(1)
                        continue
                    m = TYPE_LINE.match(line)
                    if m and sym and sym not in types:
                        t = m.group(1)
                        types[sym] = 'tristate' if 'tristate' in t else 'bool'
                        sym = None
    return types


SOURCE_LINE = re.compile(r'^\s*(o?r?source)\s+"([^"]+)"')
IF_LINE = re.compile(r'^if\s+(.+)$')
MENU_LINE = re.compile(r'^(menu|choice)\b')
DEPENDS_LINE = re.compile(r'^\s*depends\s+on\s+(.+?)\s*$')
PROMPT = re.compile(r'^\s*(?:bool|tristate|prompt)\s+"')
PLAIN = re.compile(r'^[A-Za-z0-9_]+$')
NEVER_OPEN = {'COMPILE_TEST', 'BROKEN', 'm', 'y', 'n', 'MODULES'}


def plain_terms(expr):
    """The plain symbols of @expr's top-level "&&" terms."""
    expr = expr.split('#', 1)[0].split(' if ', 1)[0]
    out, depth, cur = [], 0, ''
    for ch in expr + '&':
        depth += (ch == '(') - (ch == ')')
        if depth == 0 and ch == '&':
            t = cur.strip()
            if PLAIN.match(t):
                out.append(t)
            cur = ''
        elif ch != '&' or depth:
            cur += ch
    return out


def kconfig_deps(tree):
    """({symbol: {symbols it needs}}, {symbols with a prompt}): from the
    tree's Kconfig, its sources followed, under their if and menu."""
    deps, prompted, seen = {}, set(), set()

    def read(rel, outer):
        path = os.path.join(tree, rel)
        if path in seen or not os.path.isfile(path):
            return
        seen.add(path)
        stack, sym, kinds = [], None, []
        with open(path, errors='replace') as fh:
            for line in fh:
                t = line.strip()
                m = CONFIG_LINE.match(line)
                if m:
                    sym = m.group(1)
                    deps.setdefault(sym, set()).update(outer, *stack)
                    continue
                if sym and PROMPT.match(line):
                    prompted.add(sym)
                m = DEPENDS_LINE.match(line)
                if m and sym:
                    deps[sym].update(plain_terms(m.group(1)))
                    continue
                if m and kinds and kinds[-1] == 'menu' and not sym:
                    stack[-1] = stack[-1] + plain_terms(m.group(1))
                    continue
                # statements start a line; help text is indented
                m = IF_LINE.match(line.rstrip()) if not line[:1].isspace() else None
                if m:
                    stack.append(plain_terms(m.group(1)))
                    kinds.append('if')
                    sym = None
                elif MENU_LINE.match(line) and not line[:1].isspace():
                    stack.append([])
                    kinds.append('menu')
                    sym = None
                elif t.split('#', 1)[0].strip() in ('endif', 'endmenu', 'endchoice') and \
                        stack and not line[:1].isspace():
                    stack.pop()
                    kinds.pop()
                    sym = None
                else:
                    m = SOURCE_LINE.match(line)
                    if m:
                        src = m.group(2).replace('$(SRCARCH)', 'x86').replace('$(srctree)/', '')
                        if m.group(1) in ('rsource', 'orsource'):
                            src = os.path.join(os.path.dirname(rel), src)
                        read(src, outer | {x for s2 in stack for x in s2})
                        sym = None
    read('Kconfig', frozenset())
    return deps, prompted


def opened(kept, deps, prompted, types):
    """What the kept symbols need, in turn, that can be set: {sym: y|m}."""
    out, todo = {}, list(kept)
    while todo:
        for d in deps.get(todo.pop(), ()):
            if d in kept or d in out or d in NEVER_OPEN or d not in prompted:
                continue
            if types.get(d) not in ('tristate', 'bool'):
                continue
            out[d] = 'm' if types[d] == 'tristate' else 'y'
            todo.append(d)
    return out


def usb_table_files(tree):
    for root, dirs, files in os.walk(tree):
        rel_root = os.path.relpath(root, tree)
        dirs[:] = sorted(x for x in dirs if not x.startswith('.') and
                         not os.path.join(rel_root, x).lstrip('./').startswith(SKIP_DIRS))
        for f in sorted(files):
            if not f.endswith('.c'):
                continue
            path = os.path.join(root, f)
            with open(path, errors='replace') as fh:
                if DEVTABLE.search(fh.read()):
                    yield os.path.relpath(path, tree)


def main(argv):
    if len(argv) not in (4, 6) or (len(argv) == 6 and argv[4] != '--only'):
        sys.stderr.write(__doc__)
        return 2
    tree, out_config, out_json = argv[1:4]
    only = set(argv[5].split(',')) if len(argv) == 6 else None
    if not os.path.isfile(os.path.join(tree, 'Kconfig')):
        sys.stderr.write(f'select.py: {tree} is not a kernel tree (no Kconfig)\n')
        return 2
    types = kconfig_types(tree)
    cache, kept, dropped = {}, {}, []
    for rel in usb_table_files(tree):
        sym, obj = symbol_of(tree, rel, cache)
        if not sym:
            dropped.append({'file': rel, 'reason': obj})
            continue
        module = os.path.splitext(os.path.basename(obj))[0]
        if only is not None and module not in only and sym not in only:
            continue
        t = types.get(sym)
        if t != 'tristate':
            dropped.append({'file': rel, 'symbol': sym,
                            'reason': f'CONFIG_{sym} is {t or "not declared"}, not tristate'})
            continue
        k = kept.setdefault(sym, {'symbol': sym, 'module': module, 'files': []})
        k['files'].append(rel)
    if only is not None:
        found = {k['module'] for k in kept.values()} | set(kept)
        missing = sorted(only - found)
        for m in missing:
            dropped.append({'file': None, 'symbol': m,
                            'reason': 'named by --only, no USB id table builds it'})
    deps, prompted = kconfig_deps(tree)
    opens = opened(set(kept), deps, prompted, types)
    with open(out_config + '.tmp', 'w') as f:
        f.write('# the sweep\'s drivers (rig/sweep/select.py): tristate, '
                'MODULE_DEVICE_TABLE(usb)\n')
        for sym in sorted(kept):
            f.write(f'CONFIG_{sym}=m\n')
        f.write('# what they depend on, opened (menus and cores)\n')
        for sym in sorted(opens):
            f.write(f'CONFIG_{sym}={opens[sym]}\n')
    os.replace(out_config + '.tmp', out_config)
    with open(out_json + '.tmp', 'w') as f:
        json.dump({'tree': os.path.abspath(tree),
                   'kept': sorted(kept.values(), key=lambda k: k['symbol']),
                   'opened': sorted(opens),
                   'dropped': dropped}, f, indent=1)
        f.write('\n')
    os.replace(out_json + '.tmp', out_json)
    print(f'select: {len(kept)} drivers kept, {len(dropped)} files dropped '
          f'(rule: MODULE_DEVICE_TABLE(usb) in a file a tristate symbol builds), '
          f'{len(opens)} of their dependencies opened')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
