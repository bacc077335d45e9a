#!/usr/bin/env python3
"""Compare a command's output with the output a document quotes for it.

usage: docs_output.py QUOTED.txt OUT.txt ERR.txt -> exit 0 when they agree, else 1 with the
first difference on stderr.

The output is stdout, then stderr. Line by line, the text between numbers must be the same and
each number must agree with the quoted one to the digits shown (relative 1e-3, or 1e-12
absolute for a quoted 0); a time measured on the machine (the number after "cpu ") is not
compared, and a line the document ends with "..." (round-off, which differs between machines)
must only begin with its text, its numbers free."""
import re
import sys

NUM = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def split(line):
    """The text pieces and the numbers of a line."""
    return NUM.split(line), [float(x) for x in NUM.findall(line)]


def agree(want, got):
    """A quoted line and a printed one agree."""
    if want.rstrip().endswith("..."):  # elided: the text up to "...", its numbers free
        wt, _ = split(want.rstrip()[:-3].rstrip())
        gt, _ = split(got)
        return len(gt) >= len(wt) and gt[: len(wt) - 1] == wt[:-1] and \
            gt[len(wt) - 1].startswith(wt[-1])
    wt, wn = split(want)
    gt, gn = split(got)
    if wt != gt or len(wn) != len(gn):
        return False
    for i, (a, b) in enumerate(zip(wn, gn)):
        if wt[i].endswith("cpu "):
            continue
        if a == 0.0:
            if abs(b) > 1e-12:
                return False
        elif abs(a - b) > 1e-3 * abs(a):
            return False
    return True


def main(quoted, out, err):
    want = open(quoted).read().rstrip("\n").split("\n")
    got = (open(out).read() + open(err).read()).rstrip("\n").split("\n")
    for i, w in enumerate(want):
        g = got[i] if i < len(got) else "<no line>"
        if not agree(w, g):
            print(f"line {i + 1}:\n  quoted: {w}\n  prints: {g}", file=sys.stderr)
            return 1
    if len(got) > len(want):
        print(f"line {len(want) + 1}: not quoted: {got[len(want)]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
