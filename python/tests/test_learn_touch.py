"""The learned models learn the devices' speed, not the page faults of fresh outputs
(docs/scheduling.md, "What a device's time includes"). A Python call without ``out=``
gets fresh NumPy arrays, whose pages fault in on their first store: the report shows that
time apart (``first_touch_ms``), and online refinement leaves it out, so eight such calls
keep the cpu's model within 1.5x of the device's time on warm outputs (the test allows 2.5x so
that a busy machine cannot fail it; learning the faults gave 28x). The warm time is
measured by a call that does not learn just before each fresh one, in the same moments,
because on a shared machine a profile taken seconds earlier can be off by more than that
(tests/runtime/balance/test_learn_touch.c, the same case through the C API, says more)."""

import numpy as np

import apportion

N = 2_000_000


def test_fresh_outputs_teach_the_cpu_model_its_speed_only():
    with apportion.Runtime("cpu", cpu_threads=1, use_gpu="no", profiles=False) as rt:
        rt.profile(kernel="bollinger", tag="bollinger", sizes=[N // 4, N // 2, N], runs=3, seed=3)
        x = 100.0 + np.cumsum(np.random.default_rng(11).uniform(-0.5, 0.5, N))
        warm = tuple(np.full(N, 1.0) for _ in range(3))
        warm_ms, touch_ms, wall_ms = [], 0.0, 0.0
        for _ in range(8):
            _, report = rt.distribute("bollinger", x, out=warm, tag="bollinger", learn=False)
            warm_ms.append(report["devices"][0]["wall_ms"])
            outs, report = rt.distribute("bollinger", x, tag="bollinger")
            touch_ms += report["devices"][0]["first_touch_ms"]
            wall_ms += report["devices"][0]["wall_ms"]
            # The fresh outputs hold the same bits as the warm ones.
            for fresh, old in zip(outs, warm):
                assert np.array_equal(np.asarray(fresh), old, equal_nan=True)
        assert 0 < touch_ms < wall_ms
        entry = next(e for e in rt.profile_entries() if e["tag"] == "bollinger")
        cpu = entry["devices"][0]
        assert cpu["id"] == "cpu" and cpu["valid"]
        predicted = cpu["latency_ms"] + cpu["ms_per_melem"] * N / 1e6
        warm_median = float(np.median(warm_ms))
        assert warm_median / 2.5 <= predicted <= 2.5 * warm_median, (
            f"model predicts {predicted:.3f} ms, warm calls take {warm_median:.3f} ms; "
            f"first touch was {100 * touch_ms / wall_ms:.1f}% of the fresh calls' time"
        )
