"""The contacts of a run with contact in liedyn.run's result (ContactResult)."""
import numpy as np

import liedyn
from conftest import source_path


def test_sliding_box_contacts():
    """The sliding box's four corners: m g up in all, -mu m g along x while it slides, at rest
    m g and no friction; the same numbers as the per-body contact force of the CSV."""
    r = liedyn.run("sliding-box", t_end=0.6, every=100)
    c = r.contacts
    assert isinstance(c, liedyn.ContactResult) and len(c) > 0
    assert c.records.dtype.names[:3] == ("row", "t", "body1")
    assert np.all(c.body1 == 0) and np.all(c.body2 == -1) and np.all(c.shape2 == -1)
    assert c.body_name(c.body2[0]) == "ground" and c.body_name(0) == "box"
    assert np.allclose(c.normal, [0, 0, 1])
    assert np.all(c.t == r.t[c.row])
    for row in (1, 3):                       # t = 0.01, 0.03: sliding at about 2 m/s
        k = c.row == row
        assert k.sum() == 4                  # the four corners of the bottom face
        f = c.force[k].sum(axis=0)
        assert np.allclose(f, [-0.5 * 9.81, 0, 9.81], atol=1e-6)
        assert np.isclose(c.fn[k].sum(), 9.81) and np.isclose(c.ft[k].sum(), 0.5 * 9.81)
    k = c.row == len(r.t) - 1                # at rest from t = 0.41
    assert np.allclose(c.force[k].sum(axis=0), [0, 0, 9.81], atol=1e-6)
    assert np.all(np.abs(c.gap) < 1e-9)
    assert c.stats["sweeps"] > 0 and c.stats["max_overlap"] < 1e-6


def test_contacts_match_cli(cli, tmp_path):
    """The sliding box's contacts equal those of `liedyn run --contacts`, bit for bit."""
    import subprocess

    out = tmp_path / "c.csv"
    subprocess.run([cli, "run", "sliding-box", "--t-end", "0.5", "--output-every", "100",
                    "--quiet", "--contacts", str(out)], check=True, capture_output=True)
    rows = np.genfromtxt(out, delimiter=",", names=True, dtype=None, encoding="utf-8")
    r = liedyn.run("sliding-box", t_end=0.5, every=100)
    c = r.contacts
    assert len(c) == len(rows) > 0
    assert np.array_equal(c.t, rows["t"].astype(float))
    assert np.array_equal(c.gap, rows["gap"].astype(float))
    assert np.array_equal(c.force[:, 2], rows["fz"].astype(float))
    assert np.array_equal(c.fn, rows["fn"].astype(float))
    assert np.array_equal(c.ft, rows["ft"].astype(float))


def test_no_contact_model():
    assert liedyn.run("heavy-top", t_end=0.01).contacts is None
