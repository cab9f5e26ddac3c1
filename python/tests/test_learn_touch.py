"""The learned models learn the devices' speed, not the page faults of fresh outputs
(docs/scheduling.md, "What a device's time includes"). A Python call without ``out=``
gets fresh NumPy arrays, whose pages fault in on their first store: the report shows that
time apart (``first_touch_ms``), and online refinement leaves it out.

The model is compared with the reports of the same calls, never with a second measurement,
so that a busy machine cannot fail the test: a runtime with no profile that learns from one
call of one size holds that call's time as its model, which must be ``wall_ms`` less
``first_touch_ms`` and not ``wall_ms``; after more calls of that size the model lies among
the calls' times less their first touch (tests/runtime/balance/test_learn_touch.c makes the
same case through the C API)."""

import numpy as np

import apportion

N = 1_000_000


def _predicted_ms(rt):
    entry = next(e for e in rt.profile_entries() if e["tag"] == "bollinger")
    cpu = entry["devices"][0]
    assert cpu["id"] == "cpu" and cpu["valid"]
    return cpu["latency_ms"] + cpu["ms_per_melem"] * N / 1e6


def test_fresh_outputs_teach_the_cpu_model_its_speed_only():
    with apportion.Runtime("cpu", cpu_threads=1, use_gpu="no", profiles=False) as rt:
        x = 100.0 + np.cumsum(np.random.default_rng(11).uniform(-0.5, 0.5, N))
        warm = tuple(np.full(N, 1.0) for _ in range(3))
        rt.distribute("bollinger", x, out=warm, tag="bollinger", learn=False)
        learnt = []
        for call in range(6):
            outs, report = rt.distribute("bollinger", x, tag="bollinger")
            cpu = report["devices"][0]
            assert 0 < cpu["first_touch_ms"] < cpu["wall_ms"]
            learnt.append(cpu["wall_ms"] - cpu["first_touch_ms"])
            # The fresh outputs hold the same bits as the warm ones.
            for fresh, old in zip(outs, warm):
                assert np.array_equal(np.asarray(fresh), old, equal_nan=True)
            if call == 0:
                model = _predicted_ms(rt)
                assert abs(model - learnt[0]) <= 1e-9 * learnt[0], (
                    f"after one call the model predicts {model:.6f} ms; the call took "
                    f"{cpu['wall_ms']:.6f} ms of which {cpu['first_touch_ms']:.6f} ms were "
                    "the first touch"
                )
        model = _predicted_ms(rt)
        assert min(learnt) * (1 - 1e-9) <= model <= max(learnt) * (1 + 1e-9)
