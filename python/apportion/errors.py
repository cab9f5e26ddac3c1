"""Exceptions raised for the library's status codes (docs/errors.md, docs/python.md).

Every failure of a libapportion call raises a subclass of :class:`ApportionError` whose
message is ``apo_last_error()``'s text for that call, with ``.status`` (the code) and
``.status_name`` (``"APO_ERR_BAD_PARAM"``). The subclasses also derive from the built-in
exception a Python caller would expect (``ValueError`` for a bad argument, ...), so code
that catches those keeps working.
"""

from . import _core


class ApportionError(Exception):
    """A libapportion call failed; ``str(e)`` is the library's detailed message."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status
        self.status_name = _NAMES.get(status, "APO_UNKNOWN")


class NullArgumentError(ApportionError, ValueError):
    pass


class InvalidArgumentError(ApportionError, ValueError):
    pass


class OverflowSizeError(ApportionError, OverflowError):
    pass


class OutOfMemoryError(ApportionError, MemoryError):
    pass


class UnknownKernelError(ApportionError, LookupError):
    pass


class BadParameterError(ApportionError, ValueError):
    pass


class BadDeviceSpecError(ApportionError, ValueError):
    pass


class NoDeviceError(ApportionError, RuntimeError):
    pass


class GpuRequiredError(ApportionError, RuntimeError):
    pass


class AllDevicesFailedError(ApportionError, RuntimeError):
    pass


class DeviceLostError(ApportionError, RuntimeError):
    pass


class KernelFailedError(ApportionError, RuntimeError):
    pass


class AlreadyExistsError(ApportionError, ValueError):
    pass


class NotFoundError(ApportionError, LookupError):
    pass


class ProfileIOError(ApportionError):
    """A profile file could not be read or written (APO_ERR_IO)."""


class InternalError(ApportionError, RuntimeError):
    pass


class NonFiniteOutputWarning(RuntimeWarning):
    """A call's outputs hold values that are not finite although every input sample that
    defines them is (the report's ``nonfinite_outputs``, docs/kernels.md "Range"): the input
    is beyond the range the kernel computes through. The text is the CLI's warning, word for
    word; ``.count`` is the number of such values and ``.kernel`` the kernel's name."""

    def __init__(self, kernel, count):
        super().__init__(
            f"{count} output value(s) of {kernel} are not finite although every input sample that "
            f"defines them is: the input is beyond the range {kernel} computes through "
            '(docs/kernels.md, "Range"); those values are not the exact ones'
        )
        self.kernel = kernel
        self.count = count


class ShortSeriesWarning(RuntimeWarning):
    """A series of a call of several series of different lengths is too short for the
    kernel's warm-up with these parameters (the command line's rule, docs/python.md
    "Series shorter than the warm-up"): its outputs are NaN and the others are computed.
    The text is the CLI's warning; ``.series`` is the series' name (its pandas name, else
    its position in the list), ``.length`` its samples and ``.kernel`` the kernel."""

    def __init__(self, kernel, series, length, why):
        super().__init__(f"series {series} ({length} samples) is too short for these parameters, so its outputs are NaN: {why}")
        self.kernel = kernel
        self.series = series
        self.length = length


_CLASSES = {
    "APO_ERR_NULL": NullArgumentError,
    "APO_ERR_INVALID_ARGUMENT": InvalidArgumentError,
    "APO_ERR_OVERFLOW": OverflowSizeError,
    "APO_ERR_OUT_OF_MEMORY": OutOfMemoryError,
    "APO_ERR_UNKNOWN_KERNEL": UnknownKernelError,
    "APO_ERR_BAD_PARAM": BadParameterError,
    "APO_ERR_BAD_DEVICE_SPEC": BadDeviceSpecError,
    "APO_ERR_NO_DEVICE": NoDeviceError,
    "APO_ERR_GPU_REQUIRED": GpuRequiredError,
    "APO_ERR_ALL_DEVICES_FAILED": AllDevicesFailedError,
    "APO_ERR_DEVICE_LOST": DeviceLostError,
    "APO_ERR_KERNEL_FAILED": KernelFailedError,
    "APO_ERR_ALREADY_EXISTS": AlreadyExistsError,
    "APO_ERR_NOT_FOUND": NotFoundError,
    "APO_ERR_IO": ProfileIOError,
    "APO_ERR_INTERNAL": InternalError,
}

_NAMES = {code: name for name, code in _core.status_codes.items()}
# Every code of the header's table has a class: a new code fails the import, not a call.
_core._set_error_classes({code: _CLASSES[name] for name, code in _core.status_codes.items() if code != 0})
