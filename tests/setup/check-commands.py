#!/usr/bin/env python3
"""check-commands.py [--list] [--self-test] [TOP]: every program hzrig runs
is one rig/boot/setup.sh installs.

Reads every place hzrig starts a program on the build machine and names
each program a place runs that is none of:
  - a need in rig/boot/commands (the list setup.sh installs from);
  - a shell builtin or keyword, or a function the project's scripts define;
  - one of the project's own programs (PROJECT below), or a path into the
    repository or the build tree.
The places, and how each is read:
  - shell scripts (a #!/bin/sh or #!/bin/bash line, or "# shellcheck
    shell="), and .ci/run: the first word of every simple command, through
    pipelines, lists, compound commands, $(...), `...`, <(...), sh -c/bash
    -c/eval/trap strings, find -exec, and wrappers (env, exec, nice,
    timeout, xargs, unshare, setsid, nohup; chroot's command runs in
    another root and is not this machine's);
  - Makefiles and Kbuild: every recipe line and $(shell ...), as shell,
    make variables being opaque words ($(MAKE) is make, $(CC) is cc);
  - Python scripts: the interpreter of the #! line, the first element of a
    list given to subprocess, and every import outside the standard
    library, as python3:MODULE;
  - C: execlp()/execvp() of a string literal, and the command strings
    given to system()/popen() (the format of the snprintf() that builds
    them); QEMU's binary from rig/boot/qemu/*.conf.
Programs the guest runs (initramfs/init, initramfs/robustness.sh,
initramfs/runner/) are held against the applets of the busybox
setup.sh installs (busybox --list) and the guest's own programs instead.

A word that is an unresolved expansion ($VAR, "$HZRIG") is not a program
name this can read; --list prints every program found with where, and the
dynamic ones as "?". Prints one line per finding and "commands: N places
read, N programs, N missing"; exit 1 on any. --self-test runs the reader on
a script with known commands and fails if it finds other than those.
"""
import ast
import os
import re
import subprocess
import sys

# The project's own programs, on the host and in the guest.
PROJECT = {
    'hzrig', 'hzrig-gadget', 'hzrig-runner', 'hzrig-hold',
    'hzrig-ioctl-fuzz', 'hzrig-robustness',
}

# POSIX sh and bash builtins and reserved words: no package provides them.
BUILTINS = set('''
: . [ alias bg bind break builtin caller cd command compgen complete
compopt continue declare dirs disown echo enable eval exec exit export
false fc fg getopts hash help history jobs kill let local logout mapfile
popd printf pushd pwd read readarray readonly return set shift shopt source
suspend test times trap true type typeset ulimit umask unalias unset wait
'''.split())
KEYWORDS = set('''
if then else elif fi do done while until case esac for in function select
! { } [[ ]] time coproc
'''.split())
# Wrappers whose arguments hold the command they run: options to skip, and
# those of them that take a value.
WRAPPERS = {
    'env': set(), 'exec': {'-a'}, 'nice': {'-n'}, 'nohup': set(),
    'setsid': set(), 'timeout': {'-s', '-k', '--signal', '--kill-after'},
    'xargs': {'-n', '-I', '-P', '-d', '-L', '-s', '-a', '-E', '-i'},
    'unshare': {'--propagation', '--setgroups', '--root', '--wd', '-S', '-G',
                '--map-user', '--map-group'},
    'stdbuf': set(), 'time': set(), 'command': set(),
    'builtin': set(), 'flock': set(), 'taskset': set(),
}
# Wrappers that take one positional argument before the command.
WRAP_POSITIONAL = {'timeout': 1, 'flock': 1, 'taskset': 1}


class Shell:
    """Reads shell text and records (line, program) for every simple
    command's first word; program is None where it is an expansion."""

    def __init__(self, text, line0=1, runners=None):
        self.runners = runners if runners is not None else runner_functions(text)
        self.s = text
        self.i = 0
        self.line = line0
        self.found = []         # (line, word or None)
        self.functions = set()
        self.heredocs = []      # pending (delimiter, strip_tabs)
        self.values = {}        # NAME -> a plain value it was given
        self.raws = []          # every command word as written, and what
                                # . and source read: the scripts it runs

    # -- characters --------------------------------------------------------
    def peek(self, k=0):
        j = self.i + k
        return self.s[j] if j < len(self.s) else ''

    def adv(self, n=1):
        for _ in range(n):
            if self.i < len(self.s) and self.s[self.i] == '\n':
                self.line += 1
            self.i += 1

    def skip_heredocs(self):
        """At the start of a line after a heredoc operator: skip its body."""
        while self.heredocs:
            delim, strip = self.heredocs.pop(0)
            while self.i < len(self.s):
                end = self.s.find('\n', self.i)
                end = len(self.s) if end < 0 else end
                body = self.s[self.i:end]
                if strip:
                    body = body.lstrip('\t')
                self.adv(end - self.i + 1)
                if body == delim:
                    break

    # -- words -------------------------------------------------------------
    def word(self):
        """A word from here: (raw, literal or None when it expands)."""
        raw = []
        lit = []
        expands = False
        while self.i < len(self.s):
            c = self.peek()
            if c == '(' and re.fullmatch(r'[A-Za-z_][A-Za-z0-9_]*\+?=', ''.join(raw)):
                # an array assignment: NAME=(words), read as one word
                self.adv()
                inner = []
                while self.i < len(self.s) and self.peek() != ')':
                    if self.peek() in ' \t\n':
                        self.adv()
                        continue
                    r, _ = self.word()
                    if not r:
                        self.adv()
                    inner.append(r)
                self.adv()
                raw.append('(' + ' '.join(inner) + ')')
                lit.append('(' + ' '.join(inner) + ')')
                continue
            if c in ' \t\n;&|()<>':
                break
            if c == '\\':
                if self.peek(1) == '\n':
                    self.adv(2)
                    continue
                raw.append(self.s[self.i:self.i + 2])
                lit.append(self.peek(1))
                self.adv(2)
                continue
            if c == "'":
                j = self.s.find("'", self.i + 1)
                j = len(self.s) if j < 0 else j
                part = self.s[self.i + 1:j]
                raw.append(self.s[self.i:j + 1])
                lit.append(part)
                self.adv(j + 1 - self.i)
                continue
            if c == '"':
                self.adv()
                start = self.i
                while self.i < len(self.s) and self.peek() != '"':
                    if self.peek() == '\\':
                        n = self.peek(1)
                        if n != '\n':
                            lit.append(n if n in '"$`\\' else '\\' + n)
                        self.adv(2)
                    elif self.peek() == '$' or self.peek() == '`':
                        expands |= self.expansion()
                    else:
                        lit.append(self.peek())
                        self.adv()
                raw.append('"' + self.s[start:self.i] + '"')
                self.adv()
                continue
            if c == '$' or c == '`':
                start = self.i
                expands |= self.expansion()
                raw.append(self.s[start:self.i])
                continue
            raw.append(c)
            lit.append(c)
            self.adv()
        r = ''.join(raw)
        return r, (None if expands else ''.join(lit))

    def expansion(self):
        """At '$' or '`': skip it, reading any command inside. True when it
        is an expansion (its value is unknown here)."""
        c = self.peek()
        if c == '`':
            self.adv()
            start, line = self.i, self.line
            while self.i < len(self.s) and self.peek() != '`':
                self.adv(2 if self.peek() == '\\' else 1)
            inner = Shell(self.s[start:self.i], line, self.runners)
            inner.run()
            self.found += inner.found
            self.raws += inner.raws
            self.adv()
            return True
        n = self.peek(1)
        if n == '(' and self.peek(2) == '(':
            self.adv(3)
            depth = 2
            while self.i < len(self.s) and depth:
                if self.peek() == '(':
                    depth += 1
                elif self.peek() == ')':
                    depth -= 1
                elif self.peek() == '$' and self.peek(1) == '(':
                    self.expansion()
                    continue
                self.adv()
            return True
        if n == '(':
            self.adv(2)
            self.list_until(')')
            return True
        if n == '{':
            self.adv(2)
            depth = 1
            while self.i < len(self.s) and depth:
                if self.peek() == '$' and self.peek(1) in '({':
                    self.expansion()
                    continue
                if self.peek() == '{':
                    depth += 1
                elif self.peek() == '}':
                    depth -= 1
                self.adv()
            return True
        if re.match(r'[A-Za-z0-9_@*#?$!-]', n or ' '):
            self.adv(2)
            if re.match(r'[A-Za-z_]', n):
                while re.match(r'[A-Za-z0-9_]', self.peek() or ' '):
                    self.adv()
            return True
        self.adv()      # a lone '$'
        return False

    # -- commands ----------------------------------------------------------
    def run(self):
        self.list_until('')

    def list_until(self, end):
        """Commands up to the closing character END ('' for the end of the
        text, ')' for $( ) and subshells)."""
        st = {'cmd': True, 'wrap': None, 'wrap_pos': 0, 'skip': None,
              'case': [], 'argsof': None, 'after_c': False,
              'redirect': False, 'find': False, 'chroot': False,
              'cmdv': False, 'prev': None}
        depth = 0
        while self.i < len(self.s):
            c = self.peek()
            if c in ' \t':
                self.adv()
                continue
            if c == '\\' and self.peek(1) == '\n':
                self.adv(2)
                continue
            if c == '#' and (self.i == 0 or self.s[self.i - 1] in ' \t\n;&|()'):
                while self.i < len(self.s) and self.peek() != '\n':
                    self.adv()
                continue
            if c == '\n':
                self.adv()
                self.skip_heredocs()
                self.end_command(st)
                continue
            if c == ')' and end == ')' and depth == 0 and not st['case']:
                self.adv()
                return
            if c in ';&|':
                two = self.s[self.i:self.i + 2]
                if two == ';;' or two == ';&':
                    self.adv(2)
                    if st['case']:
                        st['case'][-1] = 'pattern'
                    self.end_command(st)
                    continue
                self.adv(2 if two in ('&&', '||', '|&', '>|') else 1)
                self.end_command(st)
                continue
            if c == '(':
                self.adv()
                if st['case'] and st['case'][-1] == 'pattern':
                    continue
                depth += 1
                self.end_command(st)
                continue
            if c == ')':
                self.adv()
                if st['case'] and st['case'][-1] == 'pattern':
                    st['case'][-1] = 'body'
                    self.end_command(st)
                    continue
                depth -= 1
                self.end_command(st)
                continue
            if c in '<>' and self.peek(1) == '(':
                # process substitution: an argument, its commands read
                self.adv(2)
                self.list_until(')')
                continue
            if c in '<>':
                m = re.match(r'(<<<|<<-|<<|>>|<>|>&|<&|&>|>\||<|>)', self.s[self.i:])
                op = m.group(1)
                self.adv(len(op))
                if op in ('<<', '<<-'):
                    while self.peek() in ' \t':
                        self.adv()
                    _, lit = self.word()
                    self.heredocs.append((lit or '', op == '<<-'))
                    continue
                if op in ('>&', '<&'):
                    if re.match(r'[0-9-]', self.peek() or ' '):
                        while re.match(r'[0-9-]', self.peek() or ' '):
                            self.adv()
                        continue
                st['redirect'] = True
                continue
            line = self.line
            start = self.i
            raw, lit = self.word()
            if self.i == start:     # nothing read: step over it
                self.adv()
                continue
            if re.fullmatch(r'[0-9]+', raw) and self.peek() in '<>':
                continue        # an fd number before a redirection
            self.handle_word(st, line, raw, lit)
        return

    def end_command(self, st):
        st.update(cmd=True, wrap=None, wrap_pos=0, argsof=None,
                  after_c=False, redirect=False, find=False, chroot=False,
                  cmdv=False, prev=None)
        if st['skip'] == 'for-words':
            st['skip'] = 'for-do'

    def handle_word(self, st, line, raw, lit):
        if st['redirect']:
            st['redirect'] = False
            return
        case = st['case']
        if case and case[-1] == 'pattern':
            if lit == 'esac':
                case.pop()
            return
        if case and case[-1] == 'word':
            if lit == 'in':
                case[-1] = 'pattern'
            return
        if st['skip'] in ('for-name', 'for-words', 'for-do'):
            if st['skip'] == 'for-name':
                st['skip'] = 'for-words'
            elif lit == 'do':
                st['skip'] = None
                st['cmd'] = True
            return
        if st['skip'] == '[[':
            if lit == ']]':
                st['skip'] = None
            return
        if st['skip'] == 'function':
            st['skip'] = None
            if lit:
                self.functions.add(lit)
            return
        if not st['cmd']:
            self.argument(st, line, raw, lit)
            return
        # command position
        m = re.match(r'([A-Za-z_][A-Za-z0-9_]*)(\[[^]]*\])?\+?=', raw)
        if m:
            # an assignment; NAME=VALUE and NAME=${NAME:-VALUE} with a
            # plain VALUE are remembered, for "$NAME" as a command
            val = raw[m.end():].strip('"\'')
            d = re.fullmatch(r'\$\{' + m.group(1) + r':?-([^$`{}]*)\}', val)
            if d:
                self.values[m.group(1)] = d.group(1)
            elif lit is not None:
                self.values[m.group(1)] = lit[m.end():]
            else:
                self.values.pop(m.group(1), None)
            return
        if lit is not None and '$' in lit:
            lit = None          # a quoted expansion, run by a nested shell
        v = re.fullmatch(r'"?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?"?', raw)
        if lit is None and v and self.values.get(v.group(1)):
            lit = self.values[v.group(1)]
        if st['wrap']:
            w = st['wrap']
            if raw.startswith('-') and raw != '-':
                if raw in WRAPPERS.get(w, ()):
                    st['redirect'] = True       # the option's value
                if w == 'command' and raw in ('-v', '-V'):
                    st['cmdv'] = True
                return
            if st['cmdv']:
                st['cmd'] = False
                return
            if st['wrap_pos'] > 0:
                st['wrap_pos'] -= 1
                return
        if lit in KEYWORDS:
            if lit == 'for' or lit == 'select':
                st['skip'] = 'for-name'
            elif lit == 'case':
                case.append('word')
            elif lit == '[[':
                st['skip'] = '[['
            elif lit == 'function':
                st['skip'] = 'function'
            elif lit == 'esac' and case:
                case.pop()
            return
        if lit is not None and self.peek() == '(' and self.peek(1) == ')':
            self.functions.add(lit)
            self.adv(2)
            return
        self.found.append((line, lit))
        self.raws.append(raw)
        st['cmd'] = False
        st['wrap'] = None
        st['prev'] = lit
        if lit is None:
            return
        name = os.path.basename(lit)
        if name in WRAPPERS:
            st['cmd'] = True
            st['wrap'] = name
            st['wrap_pos'] = WRAP_POSITIONAL.get(name, 0)
        elif name == 'chroot':
            st['chroot'] = True
        elif name == 'find':
            st['find'] = True
        elif name in ('sh', 'bash', 'dash', 'eval', 'trap', 'busybox'):
            st['argsof'] = name
        elif name in ('.', 'source'):
            st['argsof'] = 'source'
        elif lit in self.runners:
            st['argsof'] = self.runners[lit]
            st['argn'] = 0

    def argument(self, st, line, raw, lit):
        if st['chroot']:
            return
        a = st['argsof']
        if a == 'source':
            self.raws.append(raw)
            st['argsof'] = None
            return
        if isinstance(a, tuple):        # a function that runs an argument
            st['argn'] += 1
            if st['argn'] == a[1]:
                st['argsof'] = None
                if a[0] == 'eval':
                    self.nested(lit, raw, line)
                else:
                    st['cmd'] = True
                    self.handle_word(st, line, raw, lit)
            return
        if st['find'] and lit in ('-exec', '-execdir', '-ok', '-okdir'):
            st['cmd'] = True
            return
        a = st['argsof']
        if a in ('sh', 'bash', 'dash') or (a == 'busybox' and lit == 'sh'):
            if lit == '-c':
                st['after_c'] = True
                return
            if st['after_c']:
                st['after_c'] = False
                st['argsof'] = None
                self.nested(lit, raw, line)
            return
        if a in ('eval', 'trap'):
            st['argsof'] = None
            self.nested(lit, raw, line)

    def nested(self, lit, raw, line):
        text = lit if lit is not None else unquote(raw)
        inner = Shell(text, line, self.runners)
        inner.run()
        self.found += inner.found
        self.raws += inner.raws
        self.functions |= inner.functions


def unquote(raw):
    """RAW with one level of shell quoting removed, expansions kept."""
    out = []
    i = 0
    q = None
    while i < len(raw):
        c = raw[i]
        if q == "'":
            if c == "'":
                q = None
            else:
                out.append(c)
        elif c == '\\' and i + 1 < len(raw):
            if q == '"' and raw[i + 1] not in '"$`\\\n':
                out.append(c)
            out.append(raw[i + 1])
            i += 1
        elif c == '"':
            q = None if q == '"' else '"'
        elif c == "'" and q is None:
            q = "'"
        else:
            out.append(c)
        i += 1
    return ''.join(out)


def runner_functions(text):
    """The functions of a script that run an argument: NAME -> ('eval', N)
    for one that evals its Nth, ('run', N) for one that shifts N-1 and
    runs "$@"."""
    out = {}
    for m in re.finditer(r'(?m)^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\(\)\s*\{', text):
        depth = 0
        j = m.end() - 1
        while j < len(text):
            if text[j] == '{':
                depth += 1
            elif text[j] == '}':
                depth -= 1
                if depth == 0:
                    break
            j += 1
        body = text[m.end():j]
        e = re.search(r'\beval\s+"\$([1-9])"', body)
        if e:
            out[m.group(1)] = ('eval', int(e.group(1)))
            continue
        if re.search(r'(^|[;&|{(]|\b(if|then|while|until|do|!))\s*"\$@"', body):
            shifts = sum(int(k or 1) for k in re.findall(r'\bshift\b\s*([0-9]*)', body))
            out[m.group(1)] = ('run', shifts + 1)
    return out


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


def uncommented(text):
    return '\n'.join(l for l in text.split('\n') if not l.lstrip().startswith('#'))


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


def check_coverage(top, targets, needs, rules, found, functions, applets):
    """Every program a target runs is listed for that target."""
    out = []
    tagged = {}
    for need, _, tags, _ in needs:
        tagged.setdefault(need, set()).update(tags)
    byfile = {rel: (kind, items) for rel, kind, items in found}
    files = list(byfile) + [f for f in tracked(top) if f not in byfile]
    for name in sorted(targets):
        if name not in rules:
            continue
        cl = closure(targets, name)
        for f in sorted(reach(top, rules, name, files)):
            kind, items = byfile.get(f, ('host', []))
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


def shell_kind(path):
    """'host' or 'guest' for a shell script, else None."""
    try:
        with open(path, errors='replace') as f:
            head = f.read(4096)
    except OSError:
        return None
    first = head.split('\n', 1)[0]
    if first.startswith('#!') and 'busybox' in first:
        return 'guest'
    if re.match(r'#!\s*/(usr/)?bin/(env\s+)?(ba|da)?sh\b', first):
        return 'host'
    if re.search(r'^# shellcheck shell=(ba)?sh', head, re.M):
        return 'host'
    return None


def interpreter(first):
    m = re.match(r'#!\s*(\S+)(?:\s+(\S+))?', first)
    if not m:
        return []
    prog, arg = m.group(1), m.group(2)
    out = [os.path.basename(prog)]
    if os.path.basename(prog) == 'env' and arg:
        out.append(arg)
    return out


def make_to_shell(text, plain=None):
    """A recipe or $(shell) body, make's references made shell words: a
    variable the Makefile sets to one plain word is that word ($(MAKE) is
    make, $(CC) cc unless set), any other an opaque expansion."""
    plain = plain or {}
    text = text.replace('$$', '\0')
    out = []
    i = 0
    while i < len(text):
        if text[i] == '$' and i + 1 < len(text) and text[i + 1] in '({':
            close = ')' if text[i + 1] == '(' else '}'
            depth = 0
            j = i + 1
            while j < len(text):
                if text[j] in '({':
                    depth += 1
                elif text[j] in ')}':
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            body = text[i + 2:j]
            name = body.split()[0] if body.split() else ''
            if body in plain:
                out.append(plain[body])
            elif body == 'MAKE':
                out.append('make')
            elif body == 'CC':
                out.append('cc')
            elif name == 'shell':
                out.append('"$(' + make_to_shell(body[6:], plain) + ')"')
            else:
                out.append('${MAKEVAR}')
            i = j + 1
            del close
            continue
        if text[i] == '$' and i + 1 < len(text):
            out.append('${MAKEVAR}')
            i += 2
            continue
        out.append(text[i])
        i += 1
    return ''.join(out).replace('\0', '$')


def makefile_places(path):
    """(line, shell text) for each recipe and $(shell ...) of a Makefile."""
    with open(path) as f:
        lines = f.read().split('\n')
    places = []
    plain = {}
    for line in lines:
        m = re.match(r'^(?:override\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*[:?]?=\s*([^\s$#\\]+)\s*(#.*)?$', line)
        if m:
            plain[m.group(1)] = m.group(2)
    in_rule = False
    i = 0
    while i < len(lines):
        line = lines[i]
        n = i + 1
        # join continuation lines
        text = line
        while text.endswith('\\') and i + 1 < len(lines):
            i += 1
            nxt = lines[i]
            text = text + '\n' + (nxt[1:] if nxt.startswith('\t') else nxt)
        i += 1
        if line.startswith('\t') and in_rule:
            body = text[1:].lstrip('@-+ ')
            places.append((n, make_to_shell(body, plain)))
            continue
        stripped = text.split('#', 1)[0]
        for m in re.finditer(r'\$\(shell\s', stripped):
            depth = 0
            j = m.start() + 1
            while j < len(stripped):
                if stripped[j] == '(':
                    depth += 1
                elif stripped[j] == ')':
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            places.append((n, make_to_shell(stripped[m.end():j], plain)))
        if re.match(r'^[^\t#=]*[^:=]:([^=]|$)', stripped) and not re.match(r'^\s*(ifeq|ifneq|ifdef|ifndef|else|endif|define|export)\b', stripped):
            in_rule = True
        elif stripped.strip() and not line.startswith('\t'):
            in_rule = False
    return places


def python_places(path):
    """(line, program) for a Python script: #!, subprocess lists, imports."""
    with open(path) as f:
        src = f.read()
    out = [(1, p) for p in interpreter(src.split('\n', 1)[0])]
    tree = ast.parse(src, path)
    std = set(sys.stdlib_module_names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, 'id', '')
            if name in ('run', 'Popen', 'call', 'check_call', 'check_output') and node.args:
                a = node.args[0]
                if isinstance(a, (ast.List, ast.Tuple)) and a.elts:
                    e = a.elts[0]
                    if isinstance(e, ast.Constant) and isinstance(e.value, str):
                        out.append((node.lineno, e.value))
                    else:
                        out.append((node.lineno, None))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    continue
                mods = [node.module]
            else:
                mods = [a.name for a in node.names]
            for m in mods:
                top = m.split('.')[0]
                if top not in std:
                    out.append((node.lineno, 'python3:' + top))
    return out


def c_places(path):
    """(line, program) for C: exec*p of literals, system()/popen() strings."""
    with open(path, errors='replace') as f:
        src = f.read()
    out = []
    for m in re.finditer(r'\bexec[lv]p?e?\s*\(\s*"([^"]+)"', src):
        out.append((src.count('\n', 0, m.start()) + 1, m.group(1)))
    for m in re.finditer(r'\b(system|popen)\s*\(\s*("(?:[^"\\]|\\.)*"|\w+)', src):
        arg = m.group(2)
        line = src.count('\n', 0, m.start()) + 1
        texts = []
        if arg.startswith('"'):
            texts.append((line, arg[1:-1]))
        else:
            for f in re.finditer(r'snprintf\(\s*' + re.escape(arg) + r'\s*,[^"]*"((?:[^"\\]|\\.)*)"', src):
                texts.append((src.count('\n', 0, f.start()) + 1, f.group(1)))
        for ln, t in texts:
            sh = Shell(re.sub(r'%[-0-9.]*[lz]*[sdiuxc]', 'ARG', t), ln)
            sh.run()
            out += sh.found
    return out


def qemu_places(path):
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            m = re.match(r'\s*binary\s*=\s*(\S+)', line)
            if m:
                out.append((n, m.group(1)))
    return out


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
