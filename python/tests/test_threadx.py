"""apportion.threadx: ThreadX's calls, on the same files the C tools read. Files written
from Python are read back by `apportion show` (the C library), and files the tool writes
are read from Python. The files live in a folder of the test, named by ThreadX's
variables THREADX_MULTIGPU_PROFILE_PATH and THREADX_GPU_THRESHOLD_PATH."""

import json
import os
import subprocess

import numpy as np
import pytest

import apportion
from apportion import threadx
from conftest import assert_bitwise

DEVICES = "cpu,sim:g:rate=2e8"


@pytest.fixture
def files(tmp_path, monkeypatch):
    """Profiles on, in tmp_path, found through ThreadX's variables; a default runtime over
    them for the module-level calls, the previous one put back afterwards."""
    paths = {"multigpu": str(tmp_path / "multigpu.json"), "thresholds": str(tmp_path / "thresholds.json")}
    monkeypatch.delenv("APPORTION_PROFILES", raising=False)
    monkeypatch.setenv("THREADX_MULTIGPU_PROFILE_PATH", paths["multigpu"])
    monkeypatch.setenv("THREADX_GPU_THRESHOLD_PATH", paths["thresholds"])
    rt = apportion.Runtime(DEVICES, learn=False)
    previous = apportion.set_default_runtime(rt)
    yield paths
    apportion.set_default_runtime(previous)
    rt.close()


def show(cli_path):
    out = subprocess.run([cli_path, "show", "--json", "--devices", DEVICES], check=True, capture_output=True, text=True, env=os.environ)
    return json.loads(out.stdout)


@pytest.fixture
def tool():
    path = os.environ.get("APPORTION_CLI")
    if not path:
        pytest.skip("APPORTION_CLI is not set")
    return path


def test_update_gpu_threshold_entry_is_read_by_the_tool(files, tool):
    threadx.update_gpu_threshold_entry(function_name="bollinger_bands", params={"period": 20, "size": 10000}, cpu_ms=150.0, gpu_ms=50.0)
    threadx.update_gpu_threshold_entry(function_name="bollinger_bands", params={"period": 20, "size": 10000}, cpu_ms=250.0, gpu_ms=None)
    key = "bollinger:{'nbdev_dn': 2, 'nbdev_up': 2, 'period': 20, 'size': 10000}"
    entries = {e["key"]: e for e in show(tool)["thresholds"]["entries"]}
    assert entries[key]["cpu_ms_avg"] == 200.0  # (150 + 250) / 2
    assert entries[key]["gpu_ms_avg"] == 50.0  # measured once
    assert entries[key]["samples"] == 2
    # And back through Python, from the file.
    got = threadx.get_gpu_thresholds()["entries"]
    assert got[key] == {"cpu_ms_avg": 200.0, "gpu_ms_avg": 50.0, "samples": 2}
    with pytest.raises(ValueError, match="size"):
        threadx.update_gpu_threshold_entry(function_name="bollinger_bands", params={"period": 20}, cpu_ms=1.0, gpu_ms=1.0)
    with pytest.raises(apportion.InvalidArgumentError):
        threadx.update_gpu_threshold_entry(function_name="custom", params={"size": 10}, cpu_ms=-1.0, gpu_ms=None)


def test_thresholds_written_by_the_tool_are_read(files, tool):
    subprocess.run([tool, "profile", "--kernels", "returns_stats", "--sizes", "2000,8000", "--runs", "1", "--devices", DEVICES],
                   check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, APPORTION_SIM_CLOCK="virtual"))
    got = threadx.get_gpu_thresholds()["entries"]
    assert set(got) == {"returns_stats:{'size': 2000}", "returns_stats:{'size': 8000}"}
    assert all(e["samples"] == 1 and e["cpu_ms_avg"] > 0 and e["gpu_ms_avg"] > 0 for e in got.values())
    # The tool's file as stored, and the ratios it solved, seen by a Python runtime.
    with apportion.Runtime(DEVICES, learn=False) as rt:
        ratios = threadx.WorkloadManager(rt).get_device_ratios("returns_stats")
    assert set(ratios) == {"cpu", "sim:g"} and abs(sum(ratios.values()) - 1) < 1e-12


def test_use_gpu_decision_follows_recorded_thresholds(files):
    rows = [(1000, 0.1, 5.0), (100000, 10, 5.5), (1000000, 100, 10)]
    for size, cpu, gpu in rows:
        threadx.update_gpu_threshold_entry(function_name="bollinger", params={"period": 20, "size": size}, cpu_ms=cpu, gpu_ms=gpu)
    rt = threadx.get_default_manager().runtime
    # The documented decision (docs/api.md): the GPU side from 49950 samples on.
    assert rt.should_use_gpu("bollinger", 49949) is False
    assert rt.should_use_gpu("bollinger", 49950) is True
    assert rt.should_use_gpu("macd", 49950) is None
    x = np.linspace(1, 2, 4000)
    assert_bitwise(threadx.bollinger(x, use_dynamic=True).upper, apportion.bollinger(x, runtime=rt).upper)


def test_update_multigpu_ratio_profile_is_read_by_the_tool(files, tool):
    threadx.update_multigpu_ratio_profile(ratios={"CPU": 0.25, "sim:g": 0.75}, workload_tag="custom_workload")
    workloads = {w["tag"]: w for w in show(tool)["multigpu"]["workloads"]}
    entry = workloads["custom_workload"]
    assert entry["source"] == "explicit"
    assert {d["id"]: d["ratio"] for d in entry["devices"]} == {"cpu": 0.25, "sim:g": 0.75}
    rt = threadx.get_default_manager().runtime
    plan = rt.plan("bollinger", (64, 10000), tag="custom_workload")
    assert plan["ratio_source"] == "explicit" and plan["shares"] == {"cpu": 0.25, "sim:g": 0.75}
    # ThreadX's GPU names become cuda:N, which this machine's runtime does not have.
    with pytest.raises(apportion.InvalidArgumentError, match="cuda:0"):
        threadx.update_multigpu_ratio_profile(ratios={"GPU0": 0.6, "GPU1": 0.4}, workload_tag="custom_workload")


def test_profile_auto_balance_stores_the_profile(files, tool):
    manager = threadx.get_default_manager()
    ratios = manager.profile_auto_balance(sample_size=20000, runs=1, workload_tag="bollinger_computation")
    assert set(ratios) == {"cpu", "sim:g"} and abs(sum(ratios.values()) - 1) < 1e-9
    workloads = {w["tag"]: w for w in show(tool)["multigpu"]["workloads"]}
    assert workloads["bollinger_computation"]["source"] == "profile"
    stored = {d["id"]: d["ratio"] for d in workloads["bollinger_computation"]["devices"]}
    assert stored == pytest.approx(ratios, rel=1e-12)
    assert any(k.startswith("bollinger:") for k in threadx.get_gpu_thresholds()["entries"])
    with pytest.raises(ValueError, match="names no kernel"):
        manager.profile_auto_balance(sample_size=20000, runs=1, workload_tag="something_else")


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_distribute_workload(files, walk):
    manager = threadx.get_default_manager()
    x = walk(0, 30000)
    doubled = manager.distribute_workload(x, lambda chunk: 2.0 * chunk - 1.0, seed=42)
    assert_bitwise(doubled, 2.0 * x - 1.0)
    x2 = np.abs(walk(3, 5000))
    assert_bitwise(manager.distribute_workload(x2, np.sqrt, axis=-1), np.sqrt(x2))
    bands = manager.distribute_workload(x, "bollinger_bands", seed=42, period=30)
    assert_bitwise(bands.middle, apportion.bollinger(x, period=30).middle)
    with pytest.raises(apportion.KernelFailedError):
        manager.distribute_workload(x, lambda chunk: chunk[:-1])
