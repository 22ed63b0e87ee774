#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# A/B/A report for af_unix_send_perf results from fresh boots: parent
# kernel (A), child kernel (B), parent again (A').  B's slowdown is taken
# against the midpoint of the two A runs so that linear drift between boots
# cancels; the drift itself is printed so the reader can judge it.
#
# With JSON inputs the verdict is on the dgram/seqpacket ratio: the
# seqpacket control takes the same send path minus the LSM hook, so it
# cancels what moves both with the boot.  Under qemu -icount two boots of
# one tinyconfig 7.2 kernel differed by 1.2% in dgram ns/msg and by 0.07%
# in the ratio.  With plain numbers it is on ns/msg.
#
# Each point is a JSON file written by "af_unix_send_perf --json" (format
# af_unix_send_perf/2) or a plain ns/msg number.  Exit status: 0 no
# regression, 1 B slower than the threshold or a validation failure, 2 bad
# usage or input.  aba_report.sh parses the output: keep its format.

import argparse
import json
import math
import sys

FORMAT = 'af_unix_send_perf/2'

# What must match for three runs to be comparable.  The kernel differs on
# purpose, and the number of rounds may: the benchmark measures until it
# can decide.
SAME = ('machine_id', 'cpu_model', 'batch', 'msgs_per_round', 'warmup',
        'icount')

USAGE = '''\
usage: perf_report.py [--threshold PCT] [--workload W] [--size N] \
[--variant V] A B A2
  A, B, A2: JSON results of af_unix_send_perf --json, or ns/msg numbers
  --threshold PCT  B slowdown that counts as a regression (default 5)
  --workload W     sendmmsg (default), io_uring or send
  --size N         message size (default 128)
  --variant V      unconfined (default), old-abi or new-abi
exit: 0 no regression, 1 regression or validation failure, 2 bad input
'''

ROW = '%-3s %10s %12s %8s %10s %8s %11s %8s  %s'


def die(msg):
    print('perf_report: ' + msg, file=sys.stderr)
    sys.exit(2)


class Parser(argparse.ArgumentParser):
    """argparse with perf_report's usage text and exit status 2."""

    def format_help(self):
        return USAGE

    def format_usage(self):
        return USAGE

    def error(self, message):
        sys.stderr.write(USAGE)
        die(message)


def threshold(text):
    try:
        val = float(text)
    except ValueError:
        val = math.nan
    # "not (a <= b)" so that NaN is refused too.
    if not 0 <= val <= 1000:
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a number in 0..1000")
    return val


def msg_size(text):
    # Digits only, as perf_parse_uint: int() would take "+1", " 1", "1_0".
    if not (text.isascii() and text.isdigit()) or \
            not 1 <= int(text) <= 1 << 20:
        raise argparse.ArgumentTypeError(
            f"'{text}' is not an integer in 1..{1 << 20}")
    return int(text)


def shown(val):
    """A JSON value as the file would spell it, for messages."""
    return json.dumps(val, sort_keys=True)


def json_type(val):
    """What JSON calls the type of val, for messages."""
    for cls, name in ((bool, 'boolean'), (dict, 'object'), (list, 'array'),
                      (str, 'string'), ((int, float), 'number')):
        if isinstance(val, cls):
            return name
    return 'null'


def is_count(val):
    # bool is an int in Python; true is not a count.
    return isinstance(val, int) and not isinstance(val, bool) and val >= 0


def is_duration(val):
    """A round's ns/msg: a finite number > 0, and true is not one."""
    if isinstance(val, bool) or not isinstance(val, (int, float)):
        return False
    try:
        return math.isfinite(val) and val > 0
    except OverflowError:
        # An integer too large for a double.
        return False


def mean(values):
    # A plain loop, the order perf_stats.c adds in: sum() compensates
    # rounding since Python 3.12, which would move the last digit.
    total = 0.0
    for val in values:
        total += val
    return total / len(values)


def cv(values):
    """Coefficient of variation with the sample stdev (n - 1)."""
    avg = mean(values)
    ss = 0.0
    for val in values:
        ss += (val - avg) * (val - avg)
    return math.sqrt(ss / (len(values) - 1)) / avg


def aba(a1, b, a2):
    """Midpoint of the A runs, B's slowdown against it and A's drift, %."""
    mid = (a1 + a2) / 2
    return mid, (b / mid - 1) * 100, (a2 / a1 - 1) * 100


def refuse_constant(name):
    raise ValueError(f'{name} is not a JSON number')


def load_json(path):
    try:
        with open(path, encoding='utf-8') as f:
            return json.load(f, parse_constant=refuse_constant)
    except OSError as e:
        die(f'{path}: {e.strerror} (neither a number nor a readable file)')
    except (ValueError, RecursionError) as e:
        die(f'{path} is not JSON: {e}')
    return None


def find_series(path, doc, sel, sock):
    """The one series of doc that sel and sock name."""
    name = f'{sel.variant} {sel.workload} {sock} {sel.size}B'
    series = doc.get('series')
    if not isinstance(series, list):
        die(f'{path}: "series" is not a list')
    found = [s for s in series if isinstance(s, dict) and
             s.get('variant') == sel.variant and
             s.get('workload') == sel.workload and
             s.get('sock') == sock and is_count(s.get('msg_size')) and
             s['msg_size'] == sel.size]
    if len(found) != 1:
        die(f'{path}: {len(found)} "series" entries {name}, want 1')
    s = found[0]
    ns = s.get('ns_per_msg')
    if not isinstance(ns, list) or len(ns) < 2:
        die(f'{path}: {name}: "ns_per_msg" is {shown(ns)}, '
            'not a list of at least 2 numbers')
    for i, val in enumerate(ns):
        if not is_duration(val):
            die(f'{path}: {name}: "ns_per_msg"[{i}] is {shown(val)}, '
                'not a finite number > 0')
    for key in ('validated_msgs', 'validation_failures'):
        if not is_count(s.get(key)):
            die(f'{path}: {name}: "{key}" is {shown(s.get(key))}, '
                'not an integer >= 0')
    return [float(v) for v in ns], s


class Point:
    """One of A, B, A': a JSON result or a plain ns/msg number."""

    def __init__(self, src, sel):
        self.src = src
        self.doc = None
        self.validated = 0
        self.failures = 0
        try:
            self.mean = float(src)
        except ValueError:
            self.load(sel)
            return
        if not (math.isfinite(self.mean) and self.mean > 0):
            die(f"{src}: ns/msg must be a finite number > 0")

    def load(self, sel):
        doc = load_json(self.src)
        fmt = doc.get('format') if isinstance(doc, dict) else None
        if fmt != FORMAT:
            what = (f'format {shown(fmt)}' if isinstance(doc, dict) else
                    f'format: a JSON {json_type(doc)}, not an object')
            die(f'{self.src} is not a result of af_unix_send_perf --json '
                f'({what}, want "{FORMAT}")')
        dgram, d = find_series(self.src, doc, sel, 'dgram')
        seq, s = find_series(self.src, doc, sel, 'seqpacket')
        if len(dgram) != len(seq):
            die(f'{self.src}: {sel.variant} {sel.workload} {sel.size}B: '
                f'"ns_per_msg" of dgram has {len(dgram)} rounds, '
                f'of seqpacket {len(seq)}')
        self.doc = doc
        self.mean = mean(dgram)
        self.drop1 = mean(dgram[1:])
        self.seq_mean = mean(seq)
        self.ratio = self.mean / self.seq_mean
        self.cv = max(cv(dgram), cv(seq))
        self.validated = d['validated_msgs'] + s['validated_msgs']
        self.failures = d['validation_failures'] + s['validation_failures']

    def row(self, name):
        if self.doc is None:
            return ROW % (name, '%.3f' % self.mean, 'n/a', 'n/a', 'n/a',
                          'n/a', 'n/a', 'n/a', self.src)
        return ('%-3s %10.3f %12.3f %8.3f %10.3f %8.4f %11d %8d  %s' %
                (name, self.mean, self.drop1, self.cv * 100, self.seq_mean,
                 self.ratio, self.validated, self.failures, self.src))


def check_same(points):
    """Refuse three results whose runs measured different things."""
    for field in SAME:
        vals = []
        for p in points:
            if field not in p.doc:
                die(f'{p.src}: no "{field}"')
            # Compared as JSON text: 1, 1.0 and true are not the same.
            vals.append(shown(p.doc[field]))
        if len(set(vals)) > 1:
            die(f"A/B/A inputs differ in {field}: A={vals[0]}, "
                f"B={vals[1]}, A'={vals[2]}")


def report(sel, thr, points):
    """Prints the report, returns the exit status."""
    all_json = all(p.doc is not None for p in points)
    ok = sum(p.validated for p in points)
    bad = sum(p.failures for p in points)
    a, b, a2 = points
    mid, slow, drift = aba(a.mean, b.mean, a2.mean)
    judged, what = slow, 'dgram ns/msg'

    print(f'{sel.variant} {sel.workload} {sel.size}B, '
          'dgram (mean ns/msg per point)')
    print(ROW % ('pt', 'ns/msg', 'w/o round 1', 'cv%', 'seqpacket', 'ratio',
                 'validated', 'failures', 'source'))
    for name, p in zip(('A', 'B', "A'"), points):
        print(p.row(name))
    print('B slowdown vs midpoint of A runs (%.3f): %+.3f%%' % (mid, slow))
    if all_json:
        slow1 = aba(a.drop1, b.drop1, a2.drop1)[1]
        print('B slowdown, first round dropped: %+.3f%%' % slow1)
    else:
        print('B slowdown, first round dropped: n/a (needs JSON inputs)')
    print("parent drift (A' vs A): %+.3f%%" % drift)
    if all_json:
        rmid, rslow, rdrift = aba(a.ratio, b.ratio, a2.ratio)
        print('B ratio slowdown vs midpoint of A runs (%.4f): %+.3f%%' %
              (rmid, rslow))
        print("parent ratio drift (A' vs A): %+.3f%%" % rdrift)
        judged, what = rslow, 'dgram/seqpacket ratio'
        print('max CV: %.3f%%' % (max(p.cv for p in points) * 100))
    else:
        print('max CV: n/a (needs JSON inputs)')
    print(f'validation: {ok} messages ok, {bad} failures')
    rc = 0
    if bad:
        print('verdict: validation failures')
        rc = 1
    if judged > thr:
        print('verdict: B is %.3f%% slower (%s), above the %.3f%% threshold'
              % (judged, what, thr))
        rc = 1
    else:
        print('verdict: B within the %.3f%% threshold (%s)' % (thr, what))
    return rc


def main():
    parser = Parser(prog='perf_report.py')
    parser.add_argument('--threshold', type=threshold, default=5.0)
    parser.add_argument('--workload', default='sendmmsg')
    parser.add_argument('--size', type=msg_size, default=128)
    parser.add_argument('--variant', default='unconfined')
    parser.add_argument('points', nargs=3)
    args = parser.parse_args()
    points = [Point(src, args) for src in args.points]
    if all(p.doc is not None for p in points):
        check_same(points)
    return report(args, args.threshold, points)


if __name__ == '__main__':
    sys.exit(main())
