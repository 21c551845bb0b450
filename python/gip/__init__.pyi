# SPDX-License-Identifier: MIT
# Type stubs of the gip package (see gip/__init__.py for the documentation of each function).
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from ._errors import (Aliasing, BadState, CorruptData, DeviceError, DeviceOutOfMemory, Error,
                      InternalError, InvalidArgument, IOError, LocationMismatch, NoDevice,
                      NotBuilt, NotFound, OutOfMemory, ShapeMismatch, TooLarge, UnknownFormat,
                      Unsupported)

__version__: str
ArrayLike = Any  # numpy arrays, gip.Image, CuPy arrays, torch tensors (DLPack / CUDA array interface)
DeviceSpec = Union[str, int, "Device", None]
Result = Union[np.ndarray, "Image"]

IMREAD_UNCHANGED: int
IMREAD_GRAYSCALE: int
IMREAD_COLOR: int
IMREAD_ANYDEPTH: int
IMWRITE_JPEG_QUALITY: int
IMWRITE_JPEG_PROGRESSIVE: int
IMWRITE_JPEG_SAMPLING_FACTOR: int
IMWRITE_PNG_COMPRESSION: int
IMWRITE_JPEG_SAMPLING_FACTOR_420: int
IMWRITE_JPEG_SAMPLING_FACTOR_422: int
IMWRITE_JPEG_SAMPLING_FACTOR_444: int
BORDER_CONSTANT: int
BORDER_REPLICATE: int
BORDER_REFLECT: int
BORDER_WRAP: int
BORDER_REFLECT_101: int
BORDER_REFLECT101: int
BORDER_DEFAULT: int
CV_8U: int
CV_16U: int
CV_16S: int
CV_32F: int
COLOR_BGR2BGRA: int
COLOR_RGB2RGBA: int
COLOR_BGRA2BGR: int
COLOR_RGBA2RGB: int
COLOR_BGR2RGBA: int
COLOR_RGB2BGRA: int
COLOR_RGBA2BGR: int
COLOR_BGRA2RGB: int
COLOR_BGR2RGB: int
COLOR_RGB2BGR: int
COLOR_BGRA2RGBA: int
COLOR_RGBA2BGRA: int
COLOR_BGR2GRAY: int
COLOR_RGB2GRAY: int
COLOR_GRAY2BGR: int
COLOR_GRAY2RGB: int
COLOR_GRAY2BGRA: int
COLOR_GRAY2RGBA: int
COLOR_BGRA2GRAY: int
COLOR_RGBA2GRAY: int


class Image:
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    dtype: np.dtype
    ndim: int
    ptr: int
    is_cuda: bool
    device: str
    device_index: int
    closed: bool
    typestr: str
    context: Any
    __cuda_array_interface__: Dict[str, Any]
    __array_interface__: Dict[str, Any]
    def download(self, out: Optional[np.ndarray] = ...) -> np.ndarray: ...
    @classmethod
    def upload(cls, array: npt.ArrayLike, device: DeviceSpec = ...) -> "Image": ...
    def sync(self) -> None: ...
    def close(self) -> None: ...
    def __dlpack__(self, *, stream: Optional[int] = ..., max_version: Optional[Tuple[int, int]] = ...,
                   dl_device: Optional[Tuple[int, int]] = ..., copy: Optional[bool] = ...) -> Any: ...
    def __dlpack_device__(self) -> Tuple[int, int]: ...


class Device:
    kind: str
    index: int
    def __init__(self, spec: DeviceSpec = ...) -> None: ...
    @property
    def context(self) -> Any: ...
    @property
    def name(self) -> str: ...
    @property
    def describe(self) -> str: ...
    @property
    def stream(self) -> int: ...
    def sync(self) -> None: ...
    def __enter__(self) -> "Device": ...
    def __exit__(self, *exc: Any) -> bool: ...


class Pointer:
    value: int
    def __init__(self, value: int) -> None: ...


class Kernel:
    name: str
    module: "Module"
    def __call__(self, *args: Any, grid: Any = ..., block: Any = ..., shared: int = ...,
                 size_from: Any = ..., sync: bool = ...) -> None: ...


class Module:
    device: Device
    def __init__(self, source: str, name: str = ..., options: Sequence[str] = ...,
                 include_paths: Sequence[str] = ..., *, cache: bool = ...,
                 device: DeviceSpec = ...) -> None: ...
    @property
    def info(self) -> Dict[str, Any]: ...
    def get_function(self, name: str) -> Kernel: ...
    def kernel(self, name: str) -> Kernel: ...
    def __getitem__(self, name: str) -> Kernel: ...


def devices() -> List[Dict[str, Any]]: ...
def unavailable_reason() -> str: ...
def build_info() -> str: ...
def set_default_device(spec: DeviceSpec) -> None: ...
def default_device() -> Device: ...
def sync(device: DeviceSpec = ...) -> None: ...
def upload(array: npt.ArrayLike, device: DeviceSpec = ...) -> Image: ...
def asimage(obj: ArrayLike, device: DeviceSpec = ...) -> Image: ...
def cache_dir() -> str: ...
def compile(source: str, name: str = ..., options: Sequence[str] = ...,
            include_paths: Sequence[str] = ..., *, cache: bool = ..., device: DeviceSpec = ...) -> Module: ...

def imread(filename: Any, flags: int = ..., *, bgr: bool = ...) -> np.ndarray: ...
def imdecode(buf: Any, flags: int = ..., *, bgr: bool = ...) -> np.ndarray: ...
def imwrite(filename: Any, img: ArrayLike, params: Optional[Sequence[int]] = ..., *,
            bgr: bool = ...) -> bool: ...
def imencode(ext: str, img: ArrayLike, params: Optional[Sequence[int]] = ..., *,
             bgr: bool = ...) -> Tuple[bool, np.ndarray]: ...

def invert(src: ArrayLike, dst: Any = ..., *, max: Optional[float] = ..., device: DeviceSpec = ...) -> Result: ...
def box_filter(src: ArrayLike, ddepth: Any, ksize: Any, dst: Any = ..., anchor: Tuple[int, int] = ...,
               normalize: bool = ..., borderType: int = ..., *, device: DeviceSpec = ...) -> Result: ...
def blur(src: ArrayLike, ksize: Any, dst: Any = ..., anchor: Tuple[int, int] = ...,
         borderType: int = ..., *, device: DeviceSpec = ...) -> Result: ...
def filter2d(src: ArrayLike, ddepth: Any, kernel: npt.ArrayLike, dst: Any = ...,
             anchor: Tuple[int, int] = ..., delta: float = ..., borderType: int = ..., *,
             method: str = ..., device: DeviceSpec = ...) -> Result: ...
def fft_convolve(src: ArrayLike, ddepth: Any, kernel: npt.ArrayLike, dst: Any = ...,
                 anchor: Tuple[int, int] = ..., delta: float = ..., borderType: int = ..., *,
                 device: DeviceSpec = ...) -> Result: ...
def conv2d(src: ArrayLike, weight: npt.ArrayLike, bias: Optional[npt.ArrayLike] = ...,
           padding: Union[int, Tuple[int, int]] = ..., out_dtype: Any = ..., *, dst: Any = ...,
           device: DeviceSpec = ...) -> Result: ...
def sobel(src: ArrayLike, ddepth: Any, dx: int, dy: int, dst: Any = ..., ksize: int = ...,
          scale: float = ..., delta: float = ..., borderType: int = ..., *,
          device: DeviceSpec = ...) -> Result: ...
def scharr(src: ArrayLike, ddepth: Any, dx: int, dy: int, dst: Any = ..., scale: float = ...,
           delta: float = ..., borderType: int = ..., *, device: DeviceSpec = ...) -> Result: ...
def sobel_magnitude(src: ArrayLike, ddepth: Any = ..., ksize: int = ..., scale: float = ...,
                    delta: float = ..., borderType: int = ..., *, dst: Any = ...,
                    device: DeviceSpec = ...) -> Result: ...
def gaussian_blur(src: ArrayLike, ksize: Any, sigmaX: float = ..., dst: Any = ...,
                  sigmaY: float = ..., borderType: int = ..., *, method: str = ...,
                  device: DeviceSpec = ...) -> Result: ...
def cvt_color(src: ArrayLike, code: int, dst: Any = ..., dstCn: int = ..., *,
              device: DeviceSpec = ...) -> Result: ...
def convert(src: ArrayLike, dtype: Any, alpha: float = ..., beta: float = ..., *, dst: Any = ...,
            device: DeviceSpec = ...) -> Result: ...
def fft2(a: ArrayLike, norm: Optional[str] = ..., *, device: DeviceSpec = ...) -> Result: ...
def ifft2(a: ArrayLike, norm: Optional[str] = ..., *, device: DeviceSpec = ...) -> Result: ...
def rfft2(a: ArrayLike, norm: Optional[str] = ..., *, device: DeviceSpec = ...) -> Result: ...
def irfft2(a: ArrayLike, s: Optional[Tuple[int, int]] = ..., norm: Optional[str] = ..., *,
           device: DeviceSpec = ...) -> Result: ...
def fftshift(x: ArrayLike, axes: Any = ..., *, device: DeviceSpec = ...) -> Result: ...
def ifftshift(x: ArrayLike, axes: Any = ..., *, device: DeviceSpec = ...) -> Result: ...
def magnitude(F: ArrayLike, *, device: DeviceSpec = ...) -> Result: ...
def log_magnitude(F: ArrayLike, log1p: bool = ..., *, device: DeviceSpec = ...) -> Result: ...
def normalize_minmax(src: ArrayLike, *, device: DeviceSpec = ...) -> Result: ...
def spectrum(src: ArrayLike, *, log1p: bool = ..., bgr: bool = ..., dst: Any = ...,
             device: DeviceSpec = ...) -> Result: ...
def map(expr: str, inputs: Union[ArrayLike, Sequence[ArrayLike]], dtype: Any = ..., *,
        scalars: Optional[Dict[str, float]] = ..., dst: Any = ..., device: DeviceSpec = ...) -> Result: ...
def stencil(expr: str, src: ArrayLike, dtype: Any = ..., *, radius: int = ..., borderType: int = ...,
            border_value: float = ..., scalars: Optional[Dict[str, float]] = ..., dst: Any = ...,
            device: DeviceSpec = ...) -> Result: ...

boxFilter = box_filter
filter2D = filter2d
Sobel = sobel
Scharr = scharr
GaussianBlur = gaussian_blur
cvtColor = cvt_color

def style_transfer(content: ArrayLike, style: ArrayLike, dst: Any = ..., *, size: Optional[int] = ...,
                   iterations: int = ..., content_weight: float = ..., style_weight: float = ...,
                   tv_weight: float = ..., pool: str = ..., init: str = ..., seed: int = ...,
                   history: int = ..., optimizer: str = ..., line_search: str = ..., lr: float = ...,
                   tf32: bool = ..., layer_norm: bool = ..., weights: Any = ...,
                   progress: Optional[Callable[[Dict[str, Any]], Any]] = ...,
                   progress_every: int = ..., bgr: bool = ..., device: DeviceSpec = ...) -> Result: ...
