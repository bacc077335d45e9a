"""Error messages of the Python module: formatted, never a printf conversion left as written.

PyErr_Format (CPython's) knows no floating-point conversions: "%g" comes out as "%g". The module
formats its messages by C's rules (ld_py_errorf, ld_py_raise); this test runs messages with
numbers in them and checks the sources keep to that rule.
"""
import glob
import os
import re

import pytest

import liedyn
from conftest import SOURCE

UNEXPANDED = re.compile(r"%[-+ #0]*[0-9]*(\.[0-9]+)?(l|ll|z|h)?[dioufeEgGxXsc]")


def message_of(fn):
    with pytest.raises(Exception) as e:
        fn()
    return str(e.value)


@pytest.mark.parametrize("call", [
    lambda: liedyn.run("heavy-top", dt=-1e-3),
    lambda: liedyn.run("heavy-top", t_end=0.1, times=[0, 0.2]),
    lambda: liedyn.run("heavy-top", t_end=0.1, t_start=0.2),
    lambda: liedyn.run("heavy-top", t_end=float("nan")),
])
def test_messages_have_their_numbers(call):
    msg = message_of(call)
    assert msg and not UNEXPANDED.search(msg), msg


def test_the_dt_message_says_what_was_given():
    assert "-0.001" in message_of(lambda: liedyn.run("heavy-top", dt=-1e-3))


def test_times_that_differ_print_apart():
    """Two times compared in a message are printed to the last digit: 1.0000000000000002
    against 1 does not read "1 must be greater than 1"."""
    msg = message_of(lambda: liedyn.run("heavy-top", t_start=1.0000000000000002, t_end=1.0))
    assert "1.0000000000000002" in msg, msg
    msg = message_of(lambda: liedyn.run("heavy-top", t_end=0.1, times=[0, 0.1 + 1e-15]))
    assert "is 0.100000000000001)" in msg and "0.10000000000000001]" in msg, msg
    msg = message_of(lambda: liedyn.attitude("ex1", max_steps=10))
    assert "(of 100)" in msg, msg


def test_out_of_memory_says_how_much():
    """Every MemoryError of the module is raised by ld_py_nomem ("out of memory: N bytes for
    WHAT"), none by a bare PyErr_NoMemory."""
    bare = []
    for path in sorted(glob.glob(os.path.join(SOURCE, "python", "src", "*.c"))):
        text = open(path, encoding="utf-8").read()
        bare += ["%s: %d" % (os.path.basename(path), text[:m.start()].count("\n") + 1)
                 for m in re.finditer(r"PyErr_NoMemory\(", text)]
    assert not bare, bare
    module = open(os.path.join(SOURCE, "python", "src", "module.c"), encoding="utf-8").read()
    assert '"out of memory: %zu bytes for %s"' in module


def test_sources_format_by_c_rules():
    """Every PyErr_Format call uses only CPython's own conversions (%R, %S, %U, %A, %V, %s, %d,
    %zd): a message with a number conversion goes through ld_py_errorf or ld_py_raise."""
    src = os.path.join(SOURCE, "python", "src", "*.c")
    bad = []
    for path in sorted(glob.glob(src)):
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"PyErr_Format\((.*?)\);", text, re.S):
            if re.search(r"%[-+ #0]*[0-9]*(\.[0-9]+)?l*[feEgG]|%l[du]|%\.", m.group(1)):
                bad.append("%s: %s" % (os.path.basename(path), m.group(1)[:80]))
    assert not bad, bad
