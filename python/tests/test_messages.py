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
