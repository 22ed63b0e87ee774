#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# Single-point mutants of security/apparmor/af_unix.c (or, with --name,
# another file of AppArmor's: file.c, lsm.c, label.c), for .ci/mutate.sh:
# each one a unified diff (patch -p1, as build_kernel.sh -p takes it) that
# changes one thing in one place of AppArmor's AF_UNIX permission code,
# so that the AF_UNIX test programs can be measured by how many of them
# they kill.
#
# The operators are the mistakes a change to this file is likely to make
# and that a mediation test is there to catch:
#
#   return0      "return EXPR;" -> "return 0;" in a function that returns
#                an int permission result (a check that always allows)
#   negate-if    "if (COND)" -> "if (!(COND))" (a decision inverted)
#   and-or       one "&&" <-> "||" at a time (a condition half wrong)
#   swap-const   a permission constant for its natural partner: SEND and
#                RECEIVE, CONNECT and ACCEPT, BIND and LISTEN, GETATTR and
#                SETATTR, GETOPT and SETOPT, READ and WRITE, CREATE and
#                SHUTDOWN (AA_MAY_DELETE, the file pair of create), the
#                masks NET_PEER_MASK and NET_FS_PERMS, and the DFA command
#                selectors CMD_LISTEN and CMD_OPT (the permission asked
#                for, or looked up, is the wrong one)
#   drop-check   of two checks combined, the second one removed: the
#                second argument of xcheck() (-> 0), the right side of
#                "?:", a "last_error(E, check)" statement, "if (!error)
#                error = check;", a second "error = check(...);" in the
#                same function, an "else if (...) return check;" branch,
#                the second half of an early-return "if (A || B)", and a
#                further DFA match step ("if (state ...) { state = ...
#                }": peer address, peer label, command, backlog, option)
#
# Restricted to the permission paths: only the bodies of the functions
# that return an int permission result or an aa_state_t DFA state (the
# match_* helpers); return0 only in the int ones (a state of 0 is the DFA's
# "no match").  Left out: comments, string and character literals (the
# audit info strings), preprocessor lines, struct and table initialisers,
# AA_BUG() assertions (compiled out without
# CONFIG_SECURITY_APPARMOR_DEBUG_ASSERTS), the void label-cache helpers
# (update_sk_ctx, update_peer_ctx) and the accessors (aa_unix_sk,
# aa_sunaddr), an "if" whose only effect is an audit info string, and one
# that only guards reference counting or the label cache update
# (sock_hold, path_get, path_put, update_peer_ctx, ...).
#
# Mutants are numbered in file order (line, column, operator): the same
# file always gives the same list.
#
#   af_unix_mutants.py [-o OUTDIR] [--diff] [--name PATH] AF_UNIX_C
#
# Without -o, prints the index (TSV: id, line, operator, original line,
# mutated line, function, change); --diff also prints each diff.  With
# -o, writes OUTDIR/NNN-short-name.patch per mutant and OUTDIR/index.tsv.

import argparse
import difflib
import os
import re
import sys

PARTNERS = {}
for _a, _b in (("AA_MAY_SEND", "AA_MAY_RECEIVE"),
               ("AA_MAY_CONNECT", "AA_MAY_ACCEPT"),
               ("AA_MAY_BIND", "AA_MAY_LISTEN"),
               ("AA_MAY_GETATTR", "AA_MAY_SETATTR"),
               ("AA_MAY_GETOPT", "AA_MAY_SETOPT"),
               ("AA_MAY_READ", "AA_MAY_WRITE"),
               ("MAY_READ", "MAY_WRITE"),
               ("AA_MAY_CREATE", "AA_MAY_SHUTDOWN"),
               ("NET_PEER_MASK", "NET_FS_PERMS"),
               ("CMD_LISTEN", "CMD_OPT")):
    PARTNERS[_a] = _b
    PARTNERS[_b] = _a
CONST_RE = re.compile(r"\b(%s)\b" % "|".join(sorted(PARTNERS, key=len,
                                                     reverse=True)))
GUARD_RE = re.compile(r"\{?\s*(sock_hold|sock_put|path_get|path_put|"
                      r"aa_get_label|aa_put_label|update_sk_ctx|"
                      r"update_peer_ctx)\s*\([^;]*\)\s*;\s*\}?")
OP_ORDER = {"return0": 0, "negate-if": 1, "and-or": 2, "swap-const": 3,
            "drop-check": 4}


def mask(src):
    """src with comments, literals and preprocessor lines blanked out
    (same length, newlines kept; a literal keeps its quotes)."""
    out = list(src)
    i, n = 0, len(src)
    bol = True
    while i < n:
        c = src[i]
        if bol and c in " \t":
            i += 1
            continue
        if bol and c == "#":
            while i < n and src[i] != "\n":
                if src[i] == "\\" and i + 1 < n and src[i + 1] == "\n":
                    out[i] = " "
                    i += 2
                    continue
                out[i] = " "
                i += 1
            continue
        bol = False
        if c == "\n":
            bol = True
            i += 1
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif src.startswith("//", i):
            while i < n and src[i] != "\n":
                out[i] = " "
                i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def match_close(code, i):
    """Index of the bracket closing the one at code[i]."""
    pair = {"(": ")", "{": "}", "[": "]"}
    want = [pair[code[i]]]
    j = i + 1
    while want:
        if code[j] in pair:
            want.append(pair[code[j]])
        elif code[j] in ")}]":
            if code[j] != want.pop():
                raise ValueError("unbalanced at offset %d" % j)
        j += 1
    return j - 1


def stmt_end(code, i):
    """Index of the ';' ending the statement that goes on at code[i]."""
    depth = 0
    while True:
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ";" and depth == 0:
            return i
        i += 1


def skip_ws(code, i):
    while code[i].isspace():
        i += 1
    return i


class Func:
    def __init__(self, name, rtype, start, end):
        self.name, self.rtype, self.start, self.end = name, rtype, start, end


def functions(code):
    """Top-level function bodies: name, return type, body span."""
    funcs = []
    depth, last = 0, 0
    i = 0
    while i < len(code):
        c = code[i]
        if c == "{" and depth == 0:
            head = code[last:i]
            end = match_close(code, i)
            m = re.search(r"([A-Za-z_]\w*)\s*\(", head)
            if m and "=" not in head[:m.start()]:
                rtype = " ".join(head[:m.start()].split())
                funcs.append(Func(m.group(1), rtype, i, end))
            i = end + 1
            last = i
            continue
        if c in ";}" and depth == 0:
            last = i + 1
        i += 1
    return funcs


def rtype_kind(rtype):
    words = rtype.replace("*", " * ").split()
    if "*" in words or not words:
        return None
    if words[-1] == "int":
        return "int"
    if words[-1] == "aa_state_t":
        return "state"
    return None


class Mutant:
    def __init__(self, start, end, new, op, func, change):
        self.start, self.end, self.new = start, end, new
        self.op, self.func, self.change = op, func, change


def one_line(text):
    return " ".join(text.split())


class Generator:
    def __init__(self, src):
        self.src = src
        self.code = mask(src)
        self.mutants = []
        self.excluded = []

    def line_of(self, off):
        return self.src.count("\n", 0, off) + 1

    def add(self, start, end, new, op, func, change):
        self.mutants.append(Mutant(start, end, new, op, func, change))

    def is_excluded(self, off):
        return any(a <= off <= b for a, b in self.excluded)

    def body_span(self, i):
        """Span [i, end] of the statement or block starting at code[i]."""
        i = skip_ws(self.code, i)
        if self.code[i] == "{":
            return i, match_close(self.code, i)
        return i, stmt_end(self.code, i)

    def whole_lines(self, start, end):
        """Widen [start, end] to whole lines when nothing else is on them,
        so that removing it leaves no blank line."""
        ls = self.src.rfind("\n", 0, start) + 1
        le = self.src.find("\n", end)
        le = len(self.src) if le < 0 else le
        if self.src[ls:start].strip() == "" and \
                self.code[end + 1:le].strip() == "":
            return ls, le + 1
        return start, end + 1

    def run(self):
        code = self.code
        for f in functions(code):
            kind = rtype_kind(f.rtype)
            if kind is None:
                continue
            # Initialisers and assertions inside the body.
            self.excluded = []
            for m in re.finditer(r"=\s*\{", code[f.start:f.end]):
                b = f.start + m.end() - 1
                self.excluded.append((f.start + m.start(),
                                      match_close(code, b)))
            for m in re.finditer(r"\bAA_BUG\s*\(", code[f.start:f.end]):
                p = f.start + m.end() - 1
                self.excluded.append((f.start + m.start(),
                                      match_close(code, p)))
            self.guards(f)
            self.func(f, kind)

    def guards(self, f):
        """Leave out an "if" that only guards reference counting or the
        label cache (sock_hold, path_get, update_*_ctx, ...): no decision
        is taken there, a mutant only leaks or crashes."""
        code = self.code
        for m in re.finditer(r"\bif\s*\(", code[f.start:f.end]):
            s = f.start + m.start()
            pc = match_close(code, f.start + m.end() - 1)
            bs, be = self.body_span(pc + 1)
            if GUARD_RE.fullmatch(code[bs:be + 1]):
                self.excluded.append((s, pc))

    def func(self, f, kind):
        code, src = self.code, self.src
        body = range(f.start, f.end)
        # (a) return EXPR; -> return 0;
        if kind == "int":
            for m in re.finditer(r"\breturn\b", code[f.start:f.end]):
                s = f.start + m.start()
                if self.is_excluded(s):
                    continue
                e = stmt_end(code, s)
                expr = src[s + 6:e].strip()
                if expr in ("", "0"):
                    continue
                self.add(s, e + 1, "return 0;", "return0", f.name,
                         "return %s -> return 0" % short(expr))
        # (b) if (COND) -> if (!(COND)); (e) drops tied to an if.
        for m in re.finditer(r"\bif\s*\(", code[f.start:f.end]):
            s = f.start + m.start()
            if self.is_excluded(s):
                continue
            po = f.start + m.end() - 1
            pc = match_close(code, po)
            cond = src[po + 1:pc]
            bs, be = self.body_span(pc + 1)
            btext = code[bs:be + 1]
            info_only = re.fullmatch(
                r"\{?\s*((ad->|\*)?info)\s*=\s*\"\s*\"\s*;\s*\}?", btext)
            if not info_only:
                self.add(po + 1, pc, "!(" + cond + ")", "negate-if",
                         f.name, "if (%s) -> if (!(...))" % short(cond))
            self.if_drops(f, s, po, pc, bs, be)
        # (c) && <-> ||
        for m in re.finditer(r"&&|\|\|", code[f.start:f.end]):
            s = f.start + m.start()
            if self.is_excluded(s):
                continue
            new = "||" if m.group() == "&&" else "&&"
            self.add(s, s + 2, new, "and-or", f.name,
                     "%s -> %s" % (m.group(), new))
        # (d) constants
        for m in CONST_RE.finditer(code[f.start:f.end]):
            s = f.start + m.start()
            if self.is_excluded(s):
                continue
            new = PARTNERS[m.group()]
            self.add(s, s + len(m.group()), new, "swap-const", f.name,
                     "%s -> %s" % (m.group(), new))
        # (e) statement-level drops
        self.stmt_drops(f, body)

    def if_drops(self, f, s, po, pc, bs, be):
        code, src = self.code, self.src
        cond = code[po + 1:pc]
        btext = code[bs:be + 1]
        # else if (...) return check;  -> branch removed
        before = code[:s].rstrip()
        if before.endswith("else") and btext.lstrip().startswith("return"):
            es = len(before) - 4
            a, b = self.whole_lines(es, be)
            self.add(a, b, "", "drop-check", f.name,
                     "else if (%s) return %s removed" %
                     (short(src[po + 1:pc]),
                      short(src[bs + 6:be].strip())))
        # if (A || B) return ...;  -> if (A)
        if btext.lstrip().startswith("return"):
            depth = 0
            for k in range(po + 1, pc):
                if code[k] in "([":
                    depth += 1
                elif code[k] in ")]":
                    depth -= 1
                elif code.startswith("||", k) and depth == 0:
                    if "||" in code[k + 2:pc]:
                        break   # more than two: not one "second" check
                    a = src[po + 1:k].rstrip()
                    self.add(po + 1, pc, a, "drop-check", f.name,
                             "if (%s || %s): second check removed" %
                             (short(a), short(src[k + 2:pc].strip())))
                    break
        # if (!error) error = check;  -> removed
        m = re.fullmatch(r"\s*!\s*(\w+)\s*", cond)
        if m and re.match(r"\s*%s\s*=[^=]" % m.group(1), btext):
            a, b = self.whole_lines(s, be)
            self.add(a, b, "", "drop-check", f.name,
                     "if (!%s) %s = ... removed" % (m.group(1), m.group(1)))
        # if (state ...) { state = further match; }  -> removed
        if re.match(r"\s*state\b", cond) and btext.startswith("{") and \
                re.match(r"\{\s*state\s*=", btext) and \
                not re.search(r"\breturn\b", btext):
            call = re.match(r"\{\s*state\s*=\s*(\w+)", code[bs:be + 1])
            a, b = self.whole_lines(s, be)
            self.add(a, b, "", "drop-check", f.name,
                     "match step if (%s) { state = %s(...) } removed" %
                     (short(src[po + 1:pc]), call.group(1)))

    def stmt_drops(self, f, body):
        code, src = self.code, self.src
        # xcheck(A, B) -> xcheck(A, 0)
        for m in re.finditer(r"\bxcheck\s*\(", code[f.start:f.end]):
            po = f.start + m.end() - 1
            pc = match_close(code, po)
            depth, k = 0, po + 1
            while k < pc:
                if code[k] in "([{":
                    depth += 1
                elif code[k] in ")]}":
                    depth -= 1
                elif code[k] == "," and depth == 0:
                    break
                k += 1
            if k < pc:
                callee = re.match(r"\s*(\w+)", src[k + 1:pc])
                self.add(k + 1, pc, " 0", "drop-check", f.name,
                         "xcheck(A, %s(...)) -> xcheck(A, 0)" %
                         (callee.group(1) if callee else "B"))
        # X ?: Y -> X
        for m in re.finditer(r"\?\s*:", code[f.start:f.end]):
            q = f.start + m.start()
            if self.is_excluded(q):
                continue
            e = stmt_end(code, q)
            self.add(q, e, "", "drop-check", f.name,
                     "X ?: %s -> X" % short(src[f.start + m.end():e]))
        # last_error(E, check); -> removed
        for m in re.finditer(r"\blast_error\s*\(", code[f.start:f.end]):
            s = f.start + m.start()
            e = stmt_end(code, s)
            prev = code[:s].rstrip()[-1:]
            if prev not in ";{}":
                continue
            callee = re.search(r",\s*(?:xcheck\s*\(\s*)?(\w+)",
                               src[s:e])
            a, b = self.whole_lines(s, e)
            self.add(a, b, "", "drop-check", f.name,
                     "last_error(error, %s(...)) removed" %
                     (callee.group(1) if callee else "..."))
        # a second "error = check(...);" in the same function -> removed
        seen = set()
        for m in re.finditer(r"(?<![\w.>])(error|err|e)\s*=\s*(\w+)\s*\(",
                             code[f.start:f.end]):
            s = f.start + m.start()
            if self.is_excluded(s):
                continue
            var = m.group(1)
            prev = code[:s].rstrip()[-1:]
            if var in seen and prev in ";{}":
                e = stmt_end(code, s)
                a, b = self.whole_lines(s, e)
                self.add(a, b, "", "drop-check", f.name,
                         "second check %s = %s(...) removed" %
                         (var, m.group(2)))
            seen.add(var)

    def diffs(self, name):
        res = []
        order = sorted(self.mutants,
                       key=lambda mu: (mu.start, OP_ORDER[mu.op], mu.end,
                                       mu.new))
        old_lines = self.src.splitlines(True)
        for mu in order:
            new_src = self.src[:mu.start] + mu.new + self.src[mu.end:]
            new_lines = new_src.splitlines(True)
            d = "".join(difflib.unified_diff(old_lines, new_lines,
                                             "a/" + name, "b/" + name, n=3))
            first = self.line_of(mu.start)
            ls = self.src.rfind("\n", 0, mu.start) + 1
            le = self.src.find("\n", mu.end)
            le = len(self.src) if le < 0 else le
            orig = self.src[ls:le]
            mut = new_src[ls:le - (mu.end - mu.start) + len(mu.new)]
            res.append((mu, first, orig, mut, d))
        return res


def short(text, width=48):
    t = one_line(text)
    return t if len(t) <= width else t[:width - 3] + "..."


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def main():
    ap = argparse.ArgumentParser(
        description="single-point mutants of security/apparmor/af_unix.c")
    ap.add_argument("file", help="path of security/apparmor/af_unix.c")
    ap.add_argument("-o", "--outdir",
                    help="write NNN-name.patch and index.tsv here")
    ap.add_argument("--diff", action="store_true",
                    help="without -o: print each diff after its index line")
    ap.add_argument("--name", default="security/apparmor/af_unix.c",
                    help="path inside the kernel tree (diff headers)")
    args = ap.parse_args()

    with open(args.file, encoding="utf-8") as fh:
        src = fh.read()
    gen = Generator(src)
    gen.run()
    rows = gen.diffs(args.name)
    if args.outdir:
        os.makedirs(args.outdir, exist_ok=True)
    index = ["id\tline\toperator\toriginal\tmutated\tfunction\tchange"]
    for n, (mu, line, orig, mut, d) in enumerate(rows, 1):
        row = "%03d\t%d\t%s\t%s\t%s\t%s\t%s" % (
            n, line, mu.op, one_line(orig), one_line(mut) or "(removed)",
            mu.func, mu.change.replace("\t", " "))
        index.append(row)
        if args.outdir:
            fname = "%03d-%s-%s-l%d.patch" % (n, mu.op, slug(mu.func), line)
            with open(os.path.join(args.outdir, fname), "w",
                      encoding="utf-8") as fh:
                fh.write(d)
        elif args.diff:
            print(row)
            sys.stdout.write(d)
    if args.outdir:
        with open(os.path.join(args.outdir, "index.tsv"), "w",
                  encoding="utf-8") as fh:
            fh.write("\n".join(index) + "\n")
    elif not args.diff:
        print("\n".join(index))
    return 0


if __name__ == "__main__":
    sys.exit(main())
