"""progscan: where a file starts programs, read for each kind of file
hzrig has (tests/setup/check-commands.py uses it).

Shell text is read by Shell: the first word of every simple command,
through pipelines, lists, compound commands, $(...), `...`, <(...),
sh -c/bash -c/eval/trap strings, find -exec, the project's functions that
eval an argument or run "$@", and wrappers (env, exec, nice, timeout,
xargs, unshare, ...); chroot's command runs in another root and is not
read. A word that is an unresolved expansion ($VAR, "$HZRIG") is None,
unless the script gave VAR a plain value (NAME=VALUE, NAME=${NAME:-VALUE}).
Makefile recipes and $(shell ...) are read as shell, make's variables
being opaque words ($(MAKE) is make, $(CC) cc unless the Makefile sets it
to one plain word). Python: the #! interpreter, the first element of a
list given to subprocess, imports outside the standard library as
python3:MODULE. C: execlp()/execvp() of a literal and the command strings
system()/popen() get (the format of the snprintf() that builds them).
"""
import ast
import os
import re
import sys

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
              'cmdv': False}
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
                  cmdv=False)
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
            here = os.path.dirname(path)
            for m in mods:
                top = m.split('.')[0]
                local = (os.path.exists(os.path.join(here, top + '.py')) or
                         os.path.isdir(os.path.join(here, top)))
                if top not in std and not local:
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
