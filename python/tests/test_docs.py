"""Every ```python block of docs/python.md, docs/modes.md and README.md runs (in a scratch
directory), so the documented examples cannot drift from the package; the tutorial writes its
plot."""
import os
import re

import pytest

from conftest import source_path


def blocks(rel):
    with open(source_path(rel)) as f:
        text = f.read()
    return re.findall(r"```python\n(.*?)```", text, re.S)


DOCS = [("docs/python.md", i, b) for i, b in enumerate(blocks("docs/python.md"))]
DOCS += [("README.md", i, b) for i, b in enumerate(blocks("README.md"))]
DOCS += [("docs/actuators.md", i, b) for i, b in enumerate(blocks("docs/actuators.md"))]
DOCS += [("docs/modes.md", i, b) for i, b in enumerate(blocks("docs/modes.md"))]


def test_the_pages_have_examples():
    assert len([d for d in DOCS if d[0] == "docs/python.md"]) >= 6
    assert any(d[0] == "README.md" for d in DOCS)
    assert any(d[0] == "docs/modes.md" for d in DOCS)


@pytest.mark.parametrize("page,index,code", DOCS, ids=[f"{p}#{i}" for p, i, _ in DOCS])
def test_block_runs(page, index, code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pytest.importorskip("matplotlib") if "matplotlib" in code else None
    exec(compile(code, f"{page} python block {index}", "exec"), {"__name__": "__doc__"})
    if "savefig" in code:
        png = re.search(r'savefig\("([^"]+)"', code).group(1)
        assert os.path.getsize(tmp_path / png) > 10000
