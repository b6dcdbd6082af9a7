#!/usr/bin/env python3
"""check-commands.py [--list] [--self-test] [TOP]: every program hzrig runs
is one rig/boot/setup.sh installs, for the targets that run it.

Reads every place hzrig starts a program on the build machine (shell
scripts and .ci/run, Makefiles, Python scripts, C, QEMU's binary in
rig/boot/qemu/*.conf; how each is read: progscan.py) and fails on:
  - a program that is none of: a need in rig/boot/commands, a shell
    builtin or keyword, a function the project's scripts define, one of
    the project's own programs (PROJECT below) or a path into the
    repository or the build tree;
  - a program the list names only for other targets than one that runs it:
    which scripts a make target runs is followed from its recipe (the
    scripts it names, the targets it makes, $(MAKE) -C DIR TARGET) through
    the scripts those run;
  - the same for what an hzrig command run by such a script or recipe
    starts (check-tree runs spatch): the programs of the host C in the
    stage folder that defines the command;
  - a make target that does not start with $(SETUP), or has no target line
    in the list; a target line, part or tag that names nothing.
Programs the guest runs (initramfs/init, initramfs/robustness.sh, sweep.sh,
initramfs/runner/) are held against the applets of the busybox setup.sh
installs (busybox --list) and the guest's own programs instead.

--list prints every program found with where (an unresolved expansion as
"?"). Prints one line per finding and "commands: N places read, N
programs, N missing"; exit 1 on any. --self-test runs the readers on texts
with known commands and fails if they find other than those (every run
does this first).
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from progscan import (BUILTINS, KEYWORDS, Shell, c_places,  # noqa: E402
                      interpreter, make_to_shell, makefile_places,
                      python_places, qemu_places, shell_kind)

# The project's own programs, on the host and in the guest.
PROJECT = {
    'hzrig', 'hzrig-gadget', 'hzrig-runner', 'hzrig-hold',
    'hzrig-ioctl-fuzz', 'hzrig-robustness', 'hzrig-rawdev',
    'hzrig-usbmon-dump', 'hzrig-stream', 'hzrig-sweep', 'hzrig-netup',
}

def read_list(top, path=None):
    """rig/boot/commands: ({target: (parts, line)}, [(need, package, tags,
    line)])."""
    targets = {}
    needs = []
    path = path or os.path.join(top, 'rig/boot/commands')
    with open(path) as f:
        for n, line in enumerate(f, 1):
            w = line.split('#', 1)[0].split()
            if not w:
                continue
            if w[0] == 'target' and len(w) >= 4 and w[2] == '=':
                targets[w[1]] = (w[3:], n)
            elif len(w) >= 3:
                needs.append((w[0], w[1], w[2:], n))
    return targets, needs


def closure(targets, name):
    """NAME and everything its parts name, transitively, and 'any'."""
    out = {'any'}
    todo = [name]
    while todo:
        t = todo.pop()
        if t in out:
            continue
        out.add(t)
        todo += targets.get(t, ([], 0))[0]
    return out


def makefile_rules(path):
    """The rules of a Makefile: {name: (prerequisites, recipe, line)}."""
    rules = {}
    cur = None
    with open(path) as f:
        lines = f.read().split('\n')
    for n, line in enumerate(lines, 1):
        if line.startswith('\t') and cur:
            body = rules[cur][1]
            cont = body and body[-1].endswith('\\')
            body.append(line[1:] if cont else line[1:].lstrip('@-+'))
            continue
        if line.strip() and not line.startswith('#'):
            cur = None
        m = re.match(r'^([A-Za-z0-9_.-]+)\s*:(?![=:])\s*([^#;]*)', line)
        if m and not line.startswith('.'):
            cur = m.group(1)
            rules[cur] = (m.group(2).split(), [], n)
    return {k: (p, '\n'.join(r), n) for k, (p, r, n) in rules.items()}


def check_list(top, targets, needs):
    """The list against the Makefile: every target that runs something
    calls setup.sh first and has a target line; every target line names a
    target, every part a target or a group some need is tagged with."""
    out = []
    rules = makefile_rules(os.path.join(top, 'Makefile'))
    for name, (_, recipe, line) in sorted(rules.items()):
        if not recipe.strip() or name in ('setup', 'clean', 'distclean'):
            continue
        first = recipe.split('\n', 1)[0].strip()
        if first != '$(SETUP)':
            out.append(f'Makefile:{line}: target {name} does not start with $(SETUP): '
                       'nothing installs what it runs')
        if name not in targets:
            out.append(f'Makefile:{line}: target {name} has no "target {name} = ..." '
                       'line in rig/boot/commands')
    groups = {t for _, _, tags, _ in needs for t in tags if t.startswith('@')}
    for name, (parts, line) in sorted(targets.items()):
        if name not in rules:
            out.append(f'rig/boot/commands:{line}: no make target {name}')
        for p in parts:
            if p not in targets and p not in groups:
                out.append(f'rig/boot/commands:{line}: {name}: part {p} is no target '
                           'and no need is tagged with it')
    used = {p for parts, _ in targets.values() for p in parts}
    for need, pkg, tags, line in needs:
        for t in tags:
            if t == 'any' or t in targets:
                continue
            if not t.startswith('@'):
                out.append(f'rig/boot/commands:{line}: {need}: {t} is no target')
            elif t not in used:
                out.append(f'rig/boot/commands:{line}: {need}: no target includes {t}')
    return out, rules


RECIPES = {}    # make target -> the recipes reach() went through for it


def reach(top, rules, name, files):
    """The repository files make target NAME runs: the scripts its recipe
    names, those of the targets it makes (prerequisites, $(MAKE) TARGET,
    $(MAKE) -C DIR TARGET in DIR/Makefile), and those they name in turn."""
    scripts = [f for f in files if f.endswith(('.sh', '.py'))]
    mkrules = {'Makefile': rules}

    def runs(words):
        """The scripts a list of command words runs."""
        return {f for f in scripts for w in words if w.endswith(f) or
                re.search(re.escape(f) + r'[\'"]?$', w)}

    def made(mk, recipe):
        """(makefile, target) pairs a recipe makes."""
        out = []
        for m in re.finditer(r'\$\(MAKE\)([^\n;&|]*)', recipe):
            words = m.group(1).split()
            sub = mk
            goals = []
            i = 0
            while i < len(words):
                w = words[i]
                if w == '-C' and i + 1 < len(words):
                    d = re.sub(r'^\$\(TOP\)/', '', words[i + 1])
                    sub = os.path.normpath(os.path.join(os.path.dirname(mk), d, 'Makefile'))
                    i += 2
                    continue
                if not w.startswith('-') and '=' not in w and '$' not in w:
                    goals.append(w)
                i += 1
            if sub not in mkrules:
                mkrules[sub] = (makefile_rules(os.path.join(top, sub))
                                if sub in files else {})
            if not goals and mkrules[sub]:
                goals = [next(iter(mkrules[sub]))]      # the default goal
            out += [(sub, g) for g in goals]
        return out

    got = set()
    seen = set()
    todo = [('Makefile', name)]
    while todo:
        mk, t = todo.pop()
        if (mk, t) in seen or t not in mkrules.get(mk, {}):
            continue
        seen.add((mk, t))
        got.add(mk)
        prereq, recipe, _ = mkrules[mk][t]
        RECIPES.setdefault(name, []).append(recipe)
        todo += [(mk, p) for p in prereq]
        todo += made(mk, recipe)
        sh = Shell(make_to_shell(recipe))
        sh.run()
        got |= runs(sh.raws)
    todo = [f for f in got if not f.endswith('Makefile')]
    while todo:
        f = todo.pop()
        for r in runs(RUNS.get(f, [])):
            if r not in got:
                got.add(r)
                todo.append(r)
    return got


def subcommand_programs(top, found):
    """{hzrig subcommand: [(file, line, program)]}: what the C of each
    command of rig/hzrig.c's table runs, taken as every program the host C
    files of the stage folder that defines its cmd_ function start (a
    command's code lives in its stage: tests/layout/check-layout.py)."""
    try:
        with open(os.path.join(top, 'rig/hzrig.c')) as f:
            table = re.findall(r'\{\s*"([a-z-]+)",\s*(cmd_[a-z_]+)\s*,', f.read())
    except OSError:
        return {}
    defined = {}
    for rel in tracked(top):
        if rel.startswith('rig/') and rel.endswith('.c'):
            try:
                with open(os.path.join(top, rel)) as f:
                    text = f.read()
            except OSError:
                continue
            for m in re.finditer(r'^int (cmd_[a-z_]+)\(', text, re.M):
                defined[m.group(1)] = os.path.dirname(rel)
    out = {}
    for name, fn in table:
        stage = defined.get(fn)
        out[name] = [(rel, line, prog) for rel, kind, items in found
                     if stage and kind == 'host' and rel.endswith('.c') and
                     os.path.dirname(rel) == stage
                     for line, prog in items if prog]
    return out


HZRIG_CALL = re.compile(r'(?:\bhzrig|HZRIG\)?\}?)["\']?[ \t]+([a-z][a-z-]*)')


def check_coverage(top, targets, needs, rules, found, functions, applets):
    """Every program a target runs is listed for that target, including
    what the hzrig commands its scripts run start in turn."""
    out = []
    tagged = {}
    for need, _, tags, _ in needs:
        tagged.setdefault(need, set()).update(tags)
    byfile = {rel: (kind, items) for rel, kind, items in found}
    files = list(byfile) + [f for f in tracked(top) if f not in byfile]
    subs = subcommand_programs(top, found)
    for name in sorted(targets):
        if name not in rules:
            continue
        cl = closure(targets, name)
        for f in sorted(reach(top, rules, name, files)):
            kind, items = byfile.get(f, ('host', []))
            if kind == 'host' and f != 'rig/boot/setup.sh':
                text = ''
                if f.endswith('Makefile'):
                    text = '\n'.join(RECIPES.get(name, []))
                else:
                    try:
                        with open(os.path.join(top, f)) as fh:
                            text = fh.read()
                    except OSError:
                        pass
                for sub in sorted(set(HZRIG_CALL.findall(text)) & set(subs)):
                    for rel, line, prog in subs[sub]:
                        tags = tagged.get(prog) or tagged.get(os.path.basename(prog), set())
                        if tags and not (tags & cl):
                            out.append(f'{f}: make {name} runs hzrig {sub}, whose {rel}:{line} '
                                       f'runs {prog}, but rig/boot/commands lists it only for '
                                       f'{" ".join(sorted(tags))}')
            # setup.sh is the installer: it runs python3 and perl only to
            # test the needs that come with them
            if kind != 'host' or f == 'rig/boot/setup.sh' or f.endswith('Makefile'):
                continue
            for line, prog in items:
                if prog is None:
                    continue
                why = known(prog, kind, {}, functions, applets, top)
                if why:
                    continue
                tags = tagged.get(prog) or tagged.get(os.path.basename(prog), set())
                if tags and not (tags & cl):
                    out.append(f'{f}:{line}: make {name} runs {prog}, but rig/boot/commands '
                               f'lists it only for {" ".join(sorted(tags))}')
    return sorted(set(out))


def tracked(top):
    try:
        r = subprocess.run(['git', '-C', top, 'ls-files', '-z'],
                           capture_output=True, check=True)
        return [p for p in r.stdout.decode().split('\0') if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for root, dirs, names in os.walk(top):
            dirs[:] = [d for d in dirs if d not in ('.git', 'build', 'results')]
            files += [os.path.relpath(os.path.join(root, n), top) for n in names]
        return files


RUNS = {}   # file -> the command words (as written) it runs


def places(top):
    """Every (file, kind, [(line, program)]) hzrig runs programs from."""
    out = []
    functions = set()
    for rel in sorted(tracked(top)):
        path = os.path.join(top, rel)
        base = os.path.basename(rel)
        if not os.path.isfile(path):
            continue
        if base in ('Makefile', 'Kbuild') or rel.endswith('.mk'):
            found = []
            for n, text in makefile_places(path):
                sh = Shell(text, n)
                sh.run()
                found += sh.found
                functions |= sh.functions
                RUNS.setdefault(rel, []).extend(sh.raws)
            out.append((rel, 'host', found))
            continue
        if rel.endswith('.py'):
            out.append((rel, 'host', python_places(path)))
            continue
        if rel.endswith('.c'):
            guest = rel.startswith('initramfs/')
            out.append((rel, 'guest' if guest else 'host', c_places(path)))
            continue
        if rel.startswith('rig/boot/qemu/') and rel.endswith('.conf'):
            out.append((rel, 'host', qemu_places(path)))
            continue
        kind = shell_kind(path)
        if kind:
            with open(path) as f:
                text = f.read()
            first = text.split('\n', 1)[0]
            sh = Shell(text)
            sh.run()
            found = [(1, p) for p in interpreter(first) if kind == 'host']
            out.append((rel, kind, found + sh.found))
            functions |= sh.functions
            RUNS[rel] = sh.raws
    return out, functions


def busybox_applets():
    for b in ('/bin/busybox', '/usr/bin/busybox'):
        try:
            r = subprocess.run([b, '--list'], capture_output=True, text=True)
        except OSError:
            continue
        if r.returncode == 0:
            return set(r.stdout.split())
    return None


def known(prog, kind, needs, functions, applets, top):
    """Why PROG is fine, or None."""
    if prog in BUILTINS or prog in KEYWORDS:
        return 'builtin'
    if prog in functions:
        return 'function'
    base = os.path.basename(prog)
    if base in PROJECT:
        return 'project'
    if '/' in prog and not prog.startswith('/'):
        return 'project'        # a path into the repository or build tree
    if kind == 'guest':
        if applets is not None and base in applets:
            return 'busybox'
        return None
    if prog in needs or base in needs:
        return 'list'
    return None


SELF_TEST = r'''#!/bin/bash
# a comment naming notacommand
f() { g1 "$@" | g2 -x; }
X=1 Y="$(g3 --y)" g4 a b > out 2>&1
if g5; then g6 && ! g7 || g8; elif [ -n "$(g9)" ]; then :; fi
for w in one two $(g10); do echo "$w"; done
case "$1" in
a|b) g11 ;;
*) g12 "x)" ;;
esac
while read -r l; do g13 <<<"$l"; done < <(g14)
cat <<'EOF'
notacommand in a heredoc
EOF
env A=1 timeout -s KILL 10 g15 arg
xargs -n 1 g16 < list
find . -name x -exec g17 {} \;
sh -c 'g18 | g19' && bash -c "g20"
trap 'g21 "$t"' EXIT
command -v notrun > /dev/null
"$HZRIG" report; $(g22) x
chroot /r notinthisroot
a=$((1 + $(g23)))
[[ -f x ]] && g24 `g25`
g26 \
	--continued
A=(not a command) g27 <(g28) >(g29)
chk() { if eval "$2"; then :; fi; }
run() { local w=$1; shift; if "$@"; then :; fi; }
chk "name" 'g31 -q x'
chk "other" "[ \\"$(g33 -r .x <<<\\"\\$y\\")\\" -eq 3 ] && g34 \\"a b\\""
run "what" g32 --arg
G30=${G30:-/usr/bin/g30}
"$G30" --port=0
'''
SELF_EXPECT = ['g%d' % i for i in range(1, 35) if i != 30] + ['/usr/bin/g30'] + [
    'echo', 'cat', 'chk', 'run', 'local', 'shift', 'eval', 'read', 'env', 'timeout', 'xargs', 'find', 'sh', 'bash',
    'trap', 'command', ':', '[', 'chroot', None]


def self_test():
    sh = Shell(SELF_TEST)
    sh.run()
    got = sorted((p for _, p in sh.found), key=lambda p: (p is None, p or ''))
    want = sorted(SELF_EXPECT, key=lambda p: (p is None, p or ''))
    gs = set(got)
    ws = set(want)
    if gs != ws or sh.functions != {'f', 'chk', 'run'}:
        print('commands: self-test: read', sorted(gs - ws, key=str),
              'that are not commands, missed', sorted(ws - gs, key=str),
              'functions', sorted(sh.functions))
        return 1
    # The Makefile and C readers, on the same kind of text.
    mk = makefile_places_text('CC := mk4\nall:\n\t@$(MAKE) -C x && mk1 $$(mk2) \\\n'
                              '\t\t--not-a-command\n\t$(CC) -o x\n'
                              'V := $(shell mk3 -n)\n')
    found = set()
    for n, text in mk:
        s = Shell(text, n)
        s.run()
        found |= {p for _, p in s.found}
    if found != {'make', 'mk1', 'mk2', 'mk3', 'mk4'}:
        print('commands: self-test: the Makefile reader found', sorted(found, key=str))
        return 1
    print('commands: self-test passed')
    return 0


def makefile_places_text(text):
    import tempfile
    with tempfile.NamedTemporaryFile('w', suffix='.mk', delete=False) as f:
        f.write(text)
    try:
        return makefile_places(f.name)
    finally:
        os.unlink(f.name)


def main(argv):
    listing = '--list' in argv
    if '--self-test' in argv:
        return self_test()
    args = [a for a in argv if not a.startswith('--')]
    top = os.path.abspath(args[0] if args else
                          os.path.join(os.path.dirname(__file__), '..', '..'))
    if self_test():
        return 1
    targets, needlist = read_list(top)
    needs = {n for n, _, _, _ in needlist}
    found, functions = places(top)
    applets = busybox_applets()
    if applets is None:
        print('commands: no busybox to list the guest\'s applets from '
              '(rig/boot/setup.sh installs busybox-static)')
        return 1
    problems, rules = check_list(top, targets, needlist)
    for p in problems:
        print(p)
    missing = len(problems)
    progs = set()
    for rel, kind, items in found:
        for line, prog in items:
            if prog is None:
                if listing:
                    print(f'{rel}:{line}: ? (an expansion)')
                continue
            progs.add(prog)
            why = known(prog, kind, needs, functions, applets, top)
            if listing:
                print(f'{rel}:{line}: {prog} [{kind}: {why or "MISSING"}]')
            if why is None:
                missing += 1
                where = ('not a busybox applet nor a guest program'
                         if kind == 'guest' else
                         'not in rig/boot/commands (add it with its Debian package and targets)')
                print(f'{rel}:{line}: {prog}: {where}')
    if not missing:
        for p in check_coverage(top, targets, needlist, rules, found, functions, applets):
            print(p)
            missing += 1
    print(f'commands: {len(found)} places read, {len(progs)} programs, {missing} missing')
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
