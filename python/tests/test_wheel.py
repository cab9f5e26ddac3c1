"""The installed package's wheel (pip builds one and records its tags in the dist-info's
WHEEL file): it holds the compiled extension apportion._core, so it must be tagged for the
interpreter and platform that built it, never py3-none-any, which pip would install on any
Python where the extension cannot load."""

import importlib.metadata
import sys
import sysconfig

import apportion


def test_the_wheel_is_tagged_for_this_interpreter_and_platform():
    wheel = importlib.metadata.distribution("apportion").read_text("WHEEL")
    assert wheel is not None, "the package was not installed from a wheel"
    fields = dict(line.split(": ", 1) for line in wheel.splitlines() if ": " in line)
    assert fields["Root-Is-Purelib"] == "false", wheel
    interpreter, abi, platform = fields["Tag"].split("-")
    cp = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert interpreter == cp and abi.startswith(cp), wheel
    assert platform == sysconfig.get_platform().replace("-", "_").replace(".", "_"), wheel
    assert apportion._core.__file__.endswith(sysconfig.get_config_var("EXT_SUFFIX"))
