# SPDX-License-Identifier: MIT
"""gip's exceptions: one class per libgip status group, each also a subclass of the Python
exception a caller would catch for it (ValueError for bad arguments, TypeError for unsupported
dtypes, MemoryError, RuntimeError for device errors, OSError for files). Every exception carries
libgip's message as its text, the status name in ``.status`` and the numeric code in ``.code``."""

__all__ = [
    "Error", "InvalidArgument", "InvalidType", "ShapeMismatch", "LocationMismatch", "Aliasing",
    "Unsupported",
    "NotBuilt", "TooLarge", "OutOfMemory", "DeviceOutOfMemory", "DeviceError", "NoDevice",
    "BadState", "IOError", "NotFound", "CorruptData", "UnknownFormat", "InternalError",
]


class Error(Exception):
    """Base of every gip error. ``status``: libgip's status name, ``code``: its number."""
    status = "GIP_ERR_INTERNAL"
    code = 900


class InvalidArgument(Error, ValueError):
    """GIP_ERR_INVALID_ARGUMENT: a bad value, shape, parameter or a closed image."""


class InvalidType(InvalidArgument, TypeError):
    """GIP_ERR_INVALID_ARGUMENT for a value of the wrong type: a float, bool or str where an
    integer is required (cv2 refuses ksize=(1.5, 3) and 3.0 alike), a str where an image is.
    Also a TypeError, as Python and cv2 raise for these. Raised by the Python layer only."""
    status = "GIP_ERR_INVALID_ARGUMENT"
    code = 100


class ShapeMismatch(InvalidArgument):
    """GIP_ERR_SHAPE_MISMATCH: sizes or channels of inputs and outputs do not agree."""


class LocationMismatch(InvalidArgument):
    """GIP_ERR_LOCATION_MISMATCH: host and device data mixed, or arrays of different devices."""


class Aliasing(InvalidArgument):
    """GIP_ERR_ALIASING: an output overlaps an input where that is not allowed."""


class Unsupported(Error, TypeError):
    """GIP_ERR_UNSUPPORTED: a dtype, channel count or mode the operation does not handle."""


class NotBuilt(Unsupported):
    """GIP_ERR_NOT_BUILT: the library was built without the component (CUDA, nvJPEG), or its
    shared library (cuFFT, NVRTC, cuBLAS) is missing at run time."""


class TooLarge(Error, ValueError):
    """GIP_ERR_TOO_LARGE: sizes beyond gip's limits."""


class OutOfMemory(Error, MemoryError):
    """GIP_ERR_OUT_OF_MEMORY: a host allocation failed."""


class DeviceOutOfMemory(OutOfMemory):
    """GIP_ERR_DEVICE_OUT_OF_MEMORY: a device allocation failed."""


class DeviceError(Error, RuntimeError):
    """GIP_ERR_DEVICE: a CUDA call failed (the message names it)."""


class NoDevice(DeviceError):
    """GIP_ERR_NO_DEVICE: a CUDA device was required and none is usable."""


class BadState(DeviceError):
    """GIP_ERR_BAD_STATE: the context hit a sticky device error earlier and refuses work."""


class IOError(Error, OSError):  # noqa: A001 - gip.IOError, deliberately named as libgip's group
    """GIP_ERR_IO: reading or writing a file failed."""


class NotFound(IOError, FileNotFoundError):
    """GIP_ERR_NOT_FOUND: the path does not exist."""


class CorruptData(Error, ValueError):
    """GIP_ERR_CORRUPT: truncated or corrupt data."""


class UnknownFormat(CorruptData):
    """GIP_ERR_UNKNOWN_FORMAT: the bytes are in no format gip reads."""


class InternalError(Error, RuntimeError):
    """GIP_ERR_INTERNAL: a bug in gip."""


BY_CODE = {
    100: InvalidArgument, 101: ShapeMismatch, 102: LocationMismatch, 103: Aliasing,
    200: Unsupported, 201: NotBuilt, 300: TooLarge, 400: OutOfMemory, 401: DeviceOutOfMemory,
    500: DeviceError, 501: NoDevice, 502: BadState, 600: IOError, 601: NotFound,
    700: CorruptData, 701: UnknownFormat, 900: InternalError,
}
