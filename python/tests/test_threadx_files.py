"""Files and profiles as ThreadX wrote and read them (docs/python.md, "The ThreadX calls";
docs/profiles.md, "The ThreadX shape"): a thresholds file stamped by
datetime.now().isoformat() is read and added to, never set aside; ThreadX's "CPU" names the
cpu; get_gpu_thresholds() returns ThreadX's {"updated_at", "entries"} profile, whose entries
are found by the key a ThreadX caller wrote; and a ThreadX file apportion cannot read is
left byte for byte by a write."""

import json
import os
import time

import pytest

import apportion
from apportion import threadx

DEVICES = "cpu,sim:g:rate=2e8"


@pytest.fixture
def files(tmp_path, monkeypatch):
    """Profiles in tmp_path, named by ThreadX's variables, in the UTC zone; a default
    runtime over them, the previous one put back afterwards."""
    paths = {"multigpu": str(tmp_path / "multigpu.json"), "thresholds": str(tmp_path / "thresholds.json")}
    monkeypatch.delenv("APPORTION_PROFILES", raising=False)
    monkeypatch.setenv("THREADX_MULTIGPU_PROFILE_PATH", paths["multigpu"])
    monkeypatch.setenv("THREADX_GPU_THRESHOLD_PATH", paths["thresholds"])
    monkeypatch.setenv("TZ", "UTC0")
    time.tzset()
    yield paths
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def default_runtime(files):
    rt = apportion.Runtime(DEVICES, learn=False)
    previous = apportion.set_default_runtime(rt)
    yield rt
    apportion.set_default_runtime(previous)
    rt.close()


THREADX_KEY = "bollinger_bands:{'period': 20, 'size': 10000}"


def write_threadx_thresholds(path, stamp="2026-11-23T05:03:14.123456"):
    with open(path, "w") as f:
        json.dump({"updated_at": stamp, "entries": {THREADX_KEY: {"cpu_ms_avg": 150.0, "gpu_ms_avg": 50.0, "samples": 1}}}, f)


def test_a_threadx_file_stamped_by_isoformat_is_read(files):
    write_threadx_thresholds(files["thresholds"])
    profile = threadx.get_gpu_thresholds()
    # 2026-11-23T05:03:14 UTC (calendar.timegm gives 1795410194), written as RFC 3339.
    assert profile["updated_at"] == "2026-11-23T05:03:14Z"
    assert profile["entries"][THREADX_KEY] == {"cpu_ms_avg": 150.0, "gpu_ms_avg": 50.0, "samples": 1}


def test_a_write_adds_to_a_threadx_file_and_sets_nothing_aside(files, default_runtime):
    write_threadx_thresholds(files["thresholds"])
    threadx.update_gpu_threshold_entry(function_name="macd", params={"size": 500}, cpu_ms=2.0, gpu_ms=None)
    assert not os.path.exists(files["thresholds"] + ".corrupt")
    entries = threadx.get_gpu_thresholds()["entries"]
    assert entries[THREADX_KEY]["samples"] == 1  # ThreadX's entry kept
    assert entries["macd:{'size': 500}"]["cpu_ms_avg"] == 2.0


def test_the_profile_has_threadx_shape_and_finds_the_callers_key(files, default_runtime):
    threadx.update_gpu_threshold_entry(function_name="bollinger_bands", params={"period": 20, "size": 10000}, cpu_ms=150.0, gpu_ms=50.0)
    profile = threadx.get_gpu_thresholds()
    assert set(profile) == {"updated_at", "entries"}
    assert profile["updated_at"].endswith("Z")
    want = {"cpu_ms_avg": 150.0, "gpu_ms_avg": 50.0, "samples": 1}
    # The key ThreadX code wrote, and the same parameters in another order or spelling.
    assert profile["entries"][THREADX_KEY] == want
    assert profile["entries"]["bollinger_bands:{'size': 10000, 'period': 20.0}"] == want
    assert THREADX_KEY in profile["entries"]
    assert profile["entries"].get(THREADX_KEY) == want
    # The stored key, as docs/profiles.md gives it, is the one iteration shows.
    assert list(profile["entries"]) == ["bollinger:{'nbdev_dn': 2, 'nbdev_up': 2, 'period': 20, 'size': 10000}"]
    # Other parameters are other entries.
    assert "bollinger_bands:{'period': 21, 'size': 10000}" not in profile["entries"]
    assert profile["entries"].get("bollinger_bands:{'period': 20, 'size': 10000, 'nbdev_up': 3}") is None
    with pytest.raises(KeyError):
        profile["entries"]["bollinger_bands:{'period': 20}"]
    with pytest.raises(KeyError):
        profile["entries"]["not a key"]


def test_threadx_cpu_key_names_the_cpu(files):
    with open(files["multigpu"], "w") as f:
        json.dump({"updated_at": "2026-11-23T05:03:14.123456", "workload_tag": "w", "ratios": {"CPU": 0.25, "sim:g": 0.75}}, f)
    with apportion.Runtime(DEVICES, learn=False) as rt:
        assert rt.profile_files()["multigpu_state"] == "loaded"
        assert threadx.WorkloadManager(rt).get_device_ratios("w") == {"cpu": 0.25, "sim:g": 0.75}


def test_an_unreadable_threadx_file_is_kept_aside_and_the_write_goes_on(files, default_runtime):
    """A file valid in no format would fail every write for good: a write keeps it aside
    whole as .corrupt and stores its entry (docs/profiles.md, "An unusable file")."""
    text = '{"updated_at": "2026-11-23T05:03:14", "entries": {"k": {"cpu_ms_avg": 1, "samples": "many"}}}'
    with open(files["thresholds"], "w") as f:
        f.write(text)
    threadx.update_gpu_threshold_entry(function_name="macd", params={"size": 500}, cpu_ms=2.0, gpu_ms=None)
    with open(files["thresholds"] + ".corrupt") as f:
        assert f.read() == text
    with open(files["thresholds"]) as f:
        assert [key for key in json.load(f)["entries"] if key.startswith("macd:")]
