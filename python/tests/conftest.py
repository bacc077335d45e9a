"""Shared fixtures of the Python tests: paths from the environment CTest sets."""
import os

import pytest

SOURCE = os.environ.get("LIEDYN_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture
def cli():
    """The liedyn command-line tool of the same build."""
    p = os.environ.get("LIEDYN_CLI")
    if not p or not os.path.exists(p):
        pytest.skip("LIEDYN_CLI not set")
    return p


@pytest.fixture
def clib():
    """The C library (shared) of the same build, through ctypes."""
    import ctypes

    p = os.environ.get("LIEDYN_LIB")
    if not p or not os.path.exists(p):
        pytest.skip("LIEDYN_LIB not set")
    return ctypes.CDLL(p)


def source_path(*parts):
    """A file of the source tree."""
    return os.path.join(SOURCE, *parts)
