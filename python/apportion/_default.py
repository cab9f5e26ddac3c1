"""The runtime that the module-level functions use, created on first use."""

import atexit
import threading

_lock = threading.Lock()
_runtime = None


def default_runtime():
    """The default Runtime (devices and settings from the environment, docs/env.md), created
    once, on first use, whichever threads ask at the same time."""
    rt = _runtime
    if rt is None:
        with _lock:
            if _runtime is None:
                from .runtime import Runtime

                _set(Runtime())
            rt = _runtime
    return rt


def set_default_runtime(runtime):
    """Makes ``runtime`` the default (None: the next use creates a fresh one); returns the
    previous default, which the caller may close."""
    with _lock:
        previous = _runtime
        _set(runtime)
    return previous


def _set(runtime):
    global _runtime
    _runtime = runtime


@atexit.register
def _close_at_exit():
    # Refined models not yet stored are written by apo_runtime_destroy().
    rt = _runtime
    if rt is not None and not rt.closed:
        try:
            rt.close()
        except RuntimeError:
            pass  # another thread is still inside a call: the process ends anyway
