"""The GIL is released while integrating: another Python thread keeps running meanwhile."""
import threading

import liedyn


def test_run_releases_the_gil():
    model = liedyn.Model("heavy-top")
    done = threading.Event()
    out = {}

    def work():
        out["r"] = liedyn.run(model, dt=1e-4, t_end=2.0, every=1000)
        done.set()

    th = threading.Thread(target=work)
    count = 0
    th.start()
    while not done.is_set():
        count += 1
    th.join()
    # with the GIL held by the run, this loop would only run in the interpreter's switch
    # slices before and after the C call
    assert out["r"].stats["steps"] == 20000
    assert count > 10000, count


def test_two_runs_in_threads_agree():
    model = liedyn.Model("heavy-top")
    res = [None, None]

    def work(i):
        res[i] = liedyn.run(model, dt=1e-3, t_end=0.5)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert (res[0].bodies["top"].q == res[1].bodies["top"].q).all()
