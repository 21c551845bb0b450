# SPDX-License-Identifier: MIT
# Type stubs of the gip package (see gip/__init__.py for the documentation of each function).
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import op as op
from ._errors import (Aliasing, BadState, CorruptData, DeviceError, DeviceOutOfMemory, Error,
                      InternalError, InvalidArgument, InvalidType, IOError, LocationMismatch,
                      NoDevice, NotBuilt, NotFound, OutOfMemory, ShapeMismatch, TooLarge,
                      UnknownFormat, Unsupported)

__version__: str
ArrayLike = Any  # numpy arrays, gip.Image, CuPy arrays, torch tensors (DLPack / CUDA array interface)
DeviceSpec = Union[str, int, "Device", None]
Result = Union[np.ndarray, "Image"]

IMREAD_UNCHANGED: int
IMREAD_GRAYSCALE: int
IMREAD_COLOR: int
IMREAD_ANYDEPTH: int
IMREAD_IGNORE_ORIENTATION: int
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
    def __array__(self, dtype: Any = ..., copy: Optional[bool] = ...) -> np.ndarray: ...
    def __buffer__(self, flags: int) -> memoryview: ...


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
    def set_memory_limit(self, nbytes: int) -> None: ...
    @property
    def memory_used(self) -> int: ...
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
def empty_pinned(shape: Tuple[int, ...], dtype: npt.DTypeLike = ...,
                 device: DeviceSpec = ...) -> npt.NDArray[Any]: ...
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

# ---- the registry (gip/op.h): every registered operation --------------------------------------
def ops() -> List[Dict[str, Any]]: ...
def op_info(name: str) -> Dict[str, Any]: ...
def apply(name: str, src: ArrayLike, /, dst: Any = ..., *, device: DeviceSpec = ...,
          **params: Any) -> Result: ...
def explain(name: str, src: ArrayLike, /, *, device: DeviceSpec = ...,
            **params: Any) -> Dict[str, Any]: ...
# Generated from the registry when gip is imported (gip.op has every operation): those whose
# names no cv2-named function has, as the registry holds them today; later ones through
# __getattr__.
def gaussian(src: ArrayLike, /, ksize: Union[int, Tuple[int, int]] = ...,
             sigma: Union[float, Sequence[float]] = ..., *, dst: Any = ...,
             device: DeviceSpec = ..., **params: Any) -> Result: ...
def box(src: ArrayLike, /, ksize: Union[int, Tuple[int, int]] = ..., *, dst: Any = ...,
        device: DeviceSpec = ..., **params: Any) -> Result: ...
def filter(src: ArrayLike, /, kernel: Any, *, dst: Any = ..., device: DeviceSpec = ...,  # noqa: A001
           **params: Any) -> Result: ...
def edges(src: ArrayLike, /, *, dst: Any = ..., device: DeviceSpec = ...,
          **params: Any) -> Result: ...
def gray(src: ArrayLike, /, *, dst: Any = ..., device: DeviceSpec = ...) -> Result: ...
def flip(src: ArrayLike, /, code: Union[int, str], *, dst: Any = ...,
         device: DeviceSpec = ...) -> Result: ...
def __getattr__(name: str) -> Callable[..., Result]: ...

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

# ---- pipelines and batches ---------------------------------------------------------------------
class Pipeline:
    def __init__(self, text: Optional[str] = ..., device: DeviceSpec = ..., *, threads: int = ...,
                 fusion: bool = ...) -> None: ...
    def step(self, name: str, /, **params: Any) -> "Pipeline": ...
    def add(self, text: str) -> "Pipeline": ...
    def parse(self, text: str) -> "Pipeline": ...
    def invert(self, max: Optional[float] = ...) -> "Pipeline": ...
    def gaussian(self, ksize: Union[int, Tuple[int, int]], sigmaX: float = ..., sigmaY: float = ...,
                 borderType: int = ..., *, method: str = ...) -> "Pipeline": ...
    def gaussian_blur(self, ksize: Union[int, Tuple[int, int]], sigmaX: float = ...,
                      sigmaY: float = ..., borderType: int = ..., *,
                      method: str = ...) -> "Pipeline": ...
    def box(self, ksize: Union[int, Tuple[int, int]] = ..., normalize: bool = ...,
            anchor: Tuple[int, int] = ..., borderType: int = ...) -> "Pipeline": ...
    def box_filter(self, ksize: Union[int, Tuple[int, int]] = ..., normalize: bool = ...,
                   anchor: Tuple[int, int] = ..., borderType: int = ...) -> "Pipeline": ...
    def filter2d(self, kernel: npt.ArrayLike, anchor: Tuple[int, int] = ..., delta: float = ...,
                 borderType: int = ..., *, method: str = ...) -> "Pipeline": ...
    def sobel(self, dx: int = ..., dy: int = ..., ksize: int = ..., scale: float = ...,
              delta: float = ..., dtype: Any = ..., borderType: int = ...) -> "Pipeline": ...
    def edges(self, ksize: int = ..., scale: float = ..., delta: float = ...,
              borderType: int = ...) -> "Pipeline": ...
    def gray(self) -> "Pipeline": ...
    def convert(self, dtype: Any, alpha: float = ..., beta: float = ...) -> "Pipeline": ...
    def map(self, expr: str, **scalars: float) -> "Pipeline": ...
    def stencil(self, expr: str, radius: int = ..., borderType: int = ...,
                border_value: float = ..., **scalars: float) -> "Pipeline": ...
    def spectrum(self, log1p: bool = ...) -> "Pipeline": ...
    # Every other registered operation is a step method of its name (generated).
    def filter(self, kernel: Any, **params: Any) -> "Pipeline": ...  # noqa: A003
    def flip(self, code: Union[int, str]) -> "Pipeline": ...
    def __getattr__(self, name: str) -> Callable[..., "Pipeline"]: ...
    def __len__(self) -> int: ...
    @property
    def halo(self) -> Optional[Tuple[int, int]]: ...
    @property
    def context(self) -> Any: ...
    @property
    def device(self) -> str: ...
    @property
    def recipe(self) -> Tuple[Any, ...]: ...
    def describe(self, channels: int = ..., dtype: npt.DTypeLike = ...) -> str: ...
    def output_shape(self, shape: Sequence[int],
                     dtype: npt.DTypeLike = ...) -> Tuple[Tuple[int, ...], np.dtype]: ...
    def run(self, src: ArrayLike, dst: Optional[ArrayLike] = ...) -> Result: ...
    def __call__(self, src: ArrayLike, dst: Optional[ArrayLike] = ...) -> Result: ...
    def run_file(self, input: Any, output: Any, *, quality: int = ...,
                 flags: int = ..., max_memory: int = ...) -> str: ...
    def sync(self) -> None: ...


class BatchResult:
    ok: List[Tuple[str, str]]
    skipped: List[Tuple[str, str]]
    failed: List[Tuple[str, str]]
    total: int
    wall: float
    stages: Dict[str, float]
    peak_in_flight: int
    in_flight_bound: int
    device: str
    decoder: str
    decode_calls: int
    setup: float
    def __init__(self, ok: Sequence[Tuple[str, str]] = ...,
                 skipped: Sequence[Tuple[str, str]] = ..., failed: Sequence[Tuple[str, str]] = ..., total: int = ..., wall: float = ...,
                 stages: Optional[Dict[str, float]] = ..., peak_in_flight: int = ...,
                 in_flight_bound: int = ..., device: str = ..., decoder: str = ...,
                 decode_calls: int = ..., setup: float = ...) -> None: ...
    @property
    def images_per_second(self) -> float: ...
    @classmethod
    def merge(cls, results: Sequence["BatchResult"],
              wall: Optional[float] = ...) -> "BatchResult": ...


def list_inputs(pattern: Any) -> List[str]: ...
def run_batch(pipeline: Union[str, Pipeline], inputs: Union[str, Sequence[Any]], out_dir: Any, *,
              jobs: int = ..., format: Optional[str] = ..., quality: int = ...,
              overwrite: bool = ..., device: DeviceSpec = ..., streams: Optional[int] = ...,
              queue_depth: int = ..., cpu_mode: str = ..., unchanged: bool = ...,
              progress: bool = ..., decoder: str = ..., decode_batch: int = ...) -> BatchResult: ...


# ---- morphology (gip._morph) --------------------------------------------------------------------
MORPH_RECT: int
MORPH_CROSS: int
MORPH_ELLIPSE: int
MORPH_DIAMOND: int
MORPH_ERODE: int
MORPH_DILATE: int
MORPH_OPEN: int
MORPH_CLOSE: int
MORPH_GRADIENT: int
MORPH_TOPHAT: int
MORPH_BLACKHAT: int
MORPH_HITMISS: int
def get_structuring_element(shape: int, ksize: Union[int, Tuple[int, int]],
                            anchor: Tuple[int, int] = ...) -> np.ndarray: ...
getStructuringElement = get_structuring_element
def erode(src: ArrayLike, kernel: Any, dst: Any = ..., anchor: Tuple[int, int] = ...,
          iterations: int = ..., borderType: int = ..., borderValue: Any = ..., *,
          device: DeviceSpec = ...) -> Any: ...
def dilate(src: ArrayLike, kernel: Any, dst: Any = ..., anchor: Tuple[int, int] = ...,
           iterations: int = ..., borderType: int = ..., borderValue: Any = ..., *,
           device: DeviceSpec = ...) -> Any: ...
def morphology_ex(src: ArrayLike, op: int, kernel: Any, dst: Any = ...,
                  anchor: Tuple[int, int] = ..., iterations: int = ..., borderType: int = ...,
                  borderValue: Any = ..., *, device: DeviceSpec = ...) -> Any: ...
morphologyEx = morphology_ex
def median_blur(src: ArrayLike, ksize: int, dst: Any = ..., *, device: DeviceSpec = ...) -> Any: ...
medianBlur = median_blur
def laplacian(src: ArrayLike, ddepth: Any, dst: Any = ..., ksize: int = ..., scale: float = ...,
              delta: float = ..., borderType: int = ..., *, device: DeviceSpec = ...) -> Any: ...
Laplacian = laplacian
def sep_filter2d(src: ArrayLike, ddepth: Any, kernelX: Any, kernelY: Any, dst: Any = ...,
                 anchor: Tuple[int, int] = ..., delta: float = ..., borderType: int = ..., *,
                 device: DeviceSpec = ...) -> Any: ...
sepFilter2D = sep_filter2d
def canny(image: ArrayLike, threshold1: Any, threshold2: Any, edges: Any = ...,
          apertureSize: Any = ..., L2gradient: bool = ..., *, device: DeviceSpec = ...) -> Any: ...
Canny = canny
def bilateral_filter(src: ArrayLike, d: int, sigmaColor: float, sigmaSpace: float, dst: Any = ...,
                     borderType: int = ..., *, device: DeviceSpec = ...) -> Any: ...
bilateralFilter = bilateral_filter
def unsharp_mask(src: ArrayLike, ksize: Any = ..., sigma: float = ..., amount: float = ...,
                 threshold: float = ..., dst: Any = ..., borderType: int = ..., *,
                 device: DeviceSpec = ...) -> Any: ...
# ---- geometry (gip/_geometry.py) ----------------------------------------------------------------
INTER_NEAREST: int
INTER_LINEAR: int
INTER_CUBIC: int
INTER_AREA: int
INTER_LANCZOS4: int
INTER_LINEAR_EXACT: int
INTER_NEAREST_EXACT: int
ROTATE_90_CLOCKWISE: int
ROTATE_180: int
ROTATE_90_COUNTERCLOCKWISE: int
WARP_INVERSE_MAP: int
BORDER_TRANSPARENT: int
CV_16UC1: int
CV_32FC1: int
CV_16SC2: int
CV_32FC2: int
IMREAD_REDUCED_GRAYSCALE_2: int
IMREAD_REDUCED_COLOR_2: int
IMREAD_REDUCED_GRAYSCALE_4: int
IMREAD_REDUCED_COLOR_4: int
IMREAD_REDUCED_GRAYSCALE_8: int
IMREAD_REDUCED_COLOR_8: int

def resize(src: ArrayLike, dsize: Optional[Tuple[int, int]], dst: Any = ..., fx: float = ...,
           fy: float = ..., interpolation: int = ..., *, antialias: bool = ...,
           device: DeviceSpec = ...) -> Result: ...
def rotate(src: ArrayLike, rotateCode: int, dst: Any = ..., *,
           device: DeviceSpec = ...) -> Result: ...
def transpose(src: ArrayLike, dst: Any = ..., *, device: DeviceSpec = ...) -> Result: ...
def copy_make_border(src: ArrayLike, top: int, bottom: int, left: int, right: int,
                     borderType: int, dst: Any = ..., value: Any = ..., *,
                     device: DeviceSpec = ...) -> Result: ...
def warp_affine(src: ArrayLike, M: Any, dsize: Optional[Tuple[int, int]], dst: Any = ...,
                flags: int = ..., borderMode: int = ..., borderValue: Any = ..., *,
                device: DeviceSpec = ...) -> Result: ...
def warp_perspective(src: ArrayLike, M: Any, dsize: Optional[Tuple[int, int]], dst: Any = ...,
                     flags: int = ..., borderMode: int = ..., borderValue: Any = ..., *,
                     device: DeviceSpec = ...) -> Result: ...
def remap(src: ArrayLike, map1: ArrayLike, map2: Optional[ArrayLike], interpolation: int,
          dst: Any = ..., borderMode: int = ..., borderValue: Any = ..., *,
          device: DeviceSpec = ...) -> Result: ...
def convert_maps(map1: ArrayLike, map2: Optional[ArrayLike], dstmap1type: int,
                 dstmap1: Any = ..., dstmap2: Any = ..., nninterpolation: bool = ..., *,
                 device: DeviceSpec = ...) -> Tuple[Result, Optional[Result]]: ...
def pyr_down(src: ArrayLike, dst: Any = ..., dstsize: Optional[Tuple[int, int]] = ...,
             borderType: int = ..., *, device: DeviceSpec = ...) -> Result: ...
def pyr_up(src: ArrayLike, dst: Any = ..., dstsize: Optional[Tuple[int, int]] = ...,
           borderType: int = ..., *, device: DeviceSpec = ...) -> Result: ...
def thumbnail(src: Any, size: Union[int, Tuple[int, int]], dst: Any = ...,
              interpolation: int = ..., *, antialias: bool = ..., shrink_only: bool = ...,
              shrink_on_load: bool = ..., device: DeviceSpec = ...) -> Result: ...
def get_rotation_matrix_2d(center: Tuple[float, float], angle: float,
                           scale: float) -> np.ndarray: ...
def get_affine_transform(src: Any, dst: Any) -> np.ndarray: ...
def get_perspective_transform(src: Any, dst: Any, solveMethod: int = ...) -> np.ndarray: ...
def invert_affine_transform(M: Any) -> np.ndarray: ...

warpAffine = warp_affine
warpPerspective = warp_perspective
copyMakeBorder = copy_make_border
getRotationMatrix2D = get_rotation_matrix_2d
getAffineTransform = get_affine_transform
getPerspectiveTransform = get_perspective_transform
invertAffineTransform = invert_affine_transform
convertMaps = convert_maps
pyrDown = pyr_down
pyrUp = pyr_up
# ---- colour and per-pixel functions (gip._colorops) ----
THRESH_BINARY: int
THRESH_BINARY_INV: int
THRESH_TRUNC: int
THRESH_TOZERO: int
THRESH_TOZERO_INV: int
THRESH_MASK: int
THRESH_OTSU: int
THRESH_TRIANGLE: int
ADAPTIVE_THRESH_MEAN_C: int
ADAPTIVE_THRESH_GAUSSIAN_C: int
COLOR_BGR2HSV: int
COLOR_RGB2HSV: int
COLOR_HSV2BGR: int
COLOR_HSV2RGB: int
COLOR_BGR2HSV_FULL: int
COLOR_RGB2HSV_FULL: int
COLOR_HSV2BGR_FULL: int
COLOR_HSV2RGB_FULL: int
COLOR_BGR2HLS: int
COLOR_RGB2HLS: int
COLOR_HLS2BGR: int
COLOR_HLS2RGB: int
COLOR_BGR2HLS_FULL: int
COLOR_RGB2HLS_FULL: int
COLOR_HLS2BGR_FULL: int
COLOR_HLS2RGB_FULL: int
COLOR_BGR2YUV: int
COLOR_RGB2YUV: int
COLOR_YUV2BGR: int
COLOR_YUV2RGB: int
COLOR_BGR2XYZ: int
COLOR_RGB2XYZ: int
COLOR_XYZ2BGR: int
COLOR_XYZ2RGB: int
COLOR_YUV2BGR_NV12: int
COLOR_YUV2BGR_NV21: int
COLOR_YUV2BGR_I420: int
COLOR_YUV2BGR_IYUV: int
COLOR_YUV2BGR_YV12: int
COLOR_YUV2BGR_YUY2: int
COLOR_YUV2BGR_YUYV: int
COLOR_YUV2BGR_YUNV: int
COLOR_YUV2BGR_UYVY: int
COLOR_YUV2BGR_UYNV: int
COLOR_YUV2BGR_Y422: int
COLOR_YUV2BGR_YVYU: int
COLOR_YUV2RGB_NV12: int
COLOR_YUV2RGB_NV21: int
COLOR_YUV2RGB_I420: int
COLOR_YUV2RGB_IYUV: int
COLOR_YUV2RGB_YV12: int
COLOR_YUV2RGB_YUY2: int
COLOR_YUV2RGB_YUYV: int
COLOR_YUV2RGB_YUNV: int
COLOR_YUV2RGB_UYVY: int
COLOR_YUV2RGB_UYNV: int
COLOR_YUV2RGB_Y422: int
COLOR_YUV2RGB_YVYU: int
COLOR_YUV2BGRA_NV12: int
COLOR_YUV2BGRA_NV21: int
COLOR_YUV2BGRA_I420: int
COLOR_YUV2BGRA_IYUV: int
COLOR_YUV2BGRA_YV12: int
COLOR_YUV2BGRA_YUY2: int
COLOR_YUV2BGRA_YUYV: int
COLOR_YUV2BGRA_YUNV: int
COLOR_YUV2BGRA_UYVY: int
COLOR_YUV2BGRA_UYNV: int
COLOR_YUV2BGRA_Y422: int
COLOR_YUV2BGRA_YVYU: int
COLOR_YUV2RGBA_NV12: int
COLOR_YUV2RGBA_NV21: int
COLOR_YUV2RGBA_I420: int
COLOR_YUV2RGBA_IYUV: int
COLOR_YUV2RGBA_YV12: int
COLOR_YUV2RGBA_YUY2: int
COLOR_YUV2RGBA_YUYV: int
COLOR_YUV2RGBA_YUNV: int
COLOR_YUV2RGBA_UYVY: int
COLOR_YUV2RGBA_UYNV: int
COLOR_YUV2RGBA_Y422: int
COLOR_YUV2RGBA_YVYU: int
COLOR_YUV2GRAY_NV12: int
COLOR_YUV2GRAY_NV21: int
COLOR_YUV2GRAY_I420: int
COLOR_YUV2GRAY_IYUV: int
COLOR_YUV2GRAY_YV12: int
COLOR_YUV2GRAY_420: int
COLOR_YUV2GRAY_YUY2: int
COLOR_YUV2GRAY_YUYV: int
COLOR_YUV2GRAY_YUNV: int
COLOR_YUV2GRAY_UYVY: int
COLOR_YUV2GRAY_UYNV: int
COLOR_YUV2GRAY_Y422: int
COLOR_YUV2GRAY_YVYU: int
NORM_INF: int
NORM_L1: int
NORM_L2: int
NORM_MINMAX: int
LUT: int
Scalar = Union[float, Sequence[float]]
Operand = Union[ArrayLike, float, Sequence[float]]


def threshold(src: ArrayLike, thresh: float, maxval: float, type: int, dst: Any = ..., *,
              device: DeviceSpec = ...) -> Tuple[float, Result]: ...
def adaptiveThreshold(src: ArrayLike, maxValue: float, adaptiveMethod: int, thresholdType: int,
                      blockSize: int, C: float, dst: Any = ..., *,
                      device: DeviceSpec = ...) -> Result: ...
def inRange(src: ArrayLike, lowerb: Scalar, upperb: Scalar, dst: Any = ..., *,
            device: DeviceSpec = ...) -> Result: ...
def add(src1: Operand, src2: Operand, dst: Any = ..., mask: Optional[ArrayLike] = ...,
        dtype: int = ..., *, device: DeviceSpec = ...) -> Result: ...
def subtract(src1: Operand, src2: Operand, dst: Any = ..., mask: Optional[ArrayLike] = ...,
             dtype: int = ..., *, device: DeviceSpec = ...) -> Result: ...
def multiply(src1: Operand, src2: Operand, dst: Any = ..., scale: float = ..., dtype: int = ...,
             *, device: DeviceSpec = ...) -> Result: ...
def divide(src1: Operand, src2: Operand, dst: Any = ..., scale: float = ..., dtype: int = ...,
           *, device: DeviceSpec = ...) -> Result: ...
def absdiff(src1: Operand, src2: Operand, dst: Any = ..., *,
            device: DeviceSpec = ...) -> Result: ...
def min(src1: Operand, src2: Operand, dst: Any = ..., *, device: DeviceSpec = ...) -> Result: ...
def max(src1: Operand, src2: Operand, dst: Any = ..., *, device: DeviceSpec = ...) -> Result: ...
def bitwise_and(src1: Operand, src2: Operand, dst: Any = ..., mask: Optional[ArrayLike] = ...,
                *, device: DeviceSpec = ...) -> Result: ...
def bitwise_or(src1: Operand, src2: Operand, dst: Any = ..., mask: Optional[ArrayLike] = ...,
               *, device: DeviceSpec = ...) -> Result: ...
def bitwise_xor(src1: Operand, src2: Operand, dst: Any = ..., mask: Optional[ArrayLike] = ...,
                *, device: DeviceSpec = ...) -> Result: ...
def bitwise_not(src: ArrayLike, dst: Any = ..., mask: Optional[ArrayLike] = ..., *,
                device: DeviceSpec = ...) -> Result: ...
def addWeighted(src1: ArrayLike, alpha: float, src2: ArrayLike, beta: float, gamma: float,
                dst: Any = ..., dtype: int = ..., *, device: DeviceSpec = ...) -> Result: ...
def scaleAdd(src1: ArrayLike, alpha: float, src2: ArrayLike, dst: Any = ..., *,
             device: DeviceSpec = ...) -> Result: ...
def convertScaleAbs(src: ArrayLike, dst: Any = ..., alpha: float = ..., beta: float = ..., *,
                    device: DeviceSpec = ...) -> Result: ...
def LUT(src: ArrayLike, lut: Any, dst: Any = ..., *, device: DeviceSpec = ...) -> Result: ...
def normalize(src: ArrayLike, dst: Any = ..., alpha: float = ..., beta: float = ...,
              norm_type: int = ..., dtype: Any = ..., mask: Optional[ArrayLike] = ..., *,
              device: DeviceSpec = ...) -> Result: ...
def extractChannel(src: ArrayLike, coi: int, dst: Any = ..., *,
                   device: DeviceSpec = ...) -> Result: ...
def insertChannel(src: ArrayLike, dst: Any, coi: int, *, device: DeviceSpec = ...) -> Result: ...
def split(m: ArrayLike, *, device: DeviceSpec = ...) -> Tuple[Result, ...]: ...
def merge(mv: Sequence[ArrayLike], dst: Any = ..., *, device: DeviceSpec = ...) -> Result: ...

# ---- statistics (gip._stats) -------------------------------------------------------------------
NORM_RELATIVE: int

def equalize_hist(src: ArrayLike, /, *, dst: Any = ..., device: DeviceSpec = ...) -> Result: ...
def clahe(src: ArrayLike, /, clip_limit: float = ..., *, tiles: Union[int, Tuple[int, int]] = ...,
          dst: Any = ..., device: DeviceSpec = ...) -> Result: ...
def equalizeHist(src: ArrayLike, dst: Any = ..., *, device: DeviceSpec = ...) -> Result: ...

class CLAHE:
    def __init__(self, clipLimit: float = ..., tileGridSize: Tuple[int, int] = ...) -> None: ...
    def apply(self, src: ArrayLike, dst: Any = ..., *, device: DeviceSpec = ...) -> Result: ...
    def setClipLimit(self, clipLimit: float) -> None: ...
    def getClipLimit(self) -> float: ...
    def setTilesGridSize(self, tileGridSize: Tuple[int, int]) -> None: ...
    def getTilesGridSize(self) -> Tuple[int, int]: ...
    def collectGarbage(self) -> None: ...

def createCLAHE(clipLimit: float = ..., tileGridSize: Tuple[int, int] = ...) -> CLAHE: ...
create_clahe = createCLAHE
def calc_hist(images: Union[ArrayLike, Sequence[ArrayLike]], channels: Sequence[int],
              mask: Optional[ArrayLike], histSize: Sequence[int], ranges: Sequence[Any],
              hist: Optional[np.ndarray] = ..., accumulate: bool = ..., *, uniform: bool = ...,
              device: DeviceSpec = ...) -> np.ndarray: ...
def min_max_loc(src: ArrayLike, mask: Optional[ArrayLike] = ..., *, device: DeviceSpec = ...
                ) -> Tuple[float, float, Tuple[int, int], Tuple[int, int]]: ...
def mean(src: ArrayLike, mask: Optional[ArrayLike] = ..., *,
         device: DeviceSpec = ...) -> Tuple[float, float, float, float]: ...
def mean_std_dev(src: ArrayLike, mean: Optional[np.ndarray] = ...,
                 stddev: Optional[np.ndarray] = ..., mask: Optional[ArrayLike] = ..., *,
                 device: DeviceSpec = ...) -> Tuple[np.ndarray, np.ndarray]: ...
def sum_elems(src: ArrayLike, *, device: DeviceSpec = ...) -> Tuple[float, float, float, float]: ...
def count_non_zero(src: ArrayLike, *, device: DeviceSpec = ...) -> int: ...
def norm(src1: ArrayLike, src2: Any = ..., normType: int = ..., mask: Optional[ArrayLike] = ...,
         *, device: DeviceSpec = ...) -> float: ...
def PSNR(src1: ArrayLike, src2: ArrayLike, R: float = ..., *, device: DeviceSpec = ...) -> float: ...
psnr = PSNR
calcHist = calc_hist
minMaxLoc = min_max_loc
meanStdDev = mean_std_dev
sumElems = sum_elems
countNonZero = count_non_zero

# ---- statistics, analysis (gip._stats) -------------------------------------------------------
CV_32S: int
CV_64F: int
HISTCMP_CORREL: int
HISTCMP_CHISQR: int
HISTCMP_INTERSECT: int
HISTCMP_BHATTACHARYYA: int
HISTCMP_HELLINGER: int
HISTCMP_CHISQR_ALT: int
HISTCMP_KL_DIV: int
TM_SQDIFF: int
TM_SQDIFF_NORMED: int
TM_CCORR: int
TM_CCORR_NORMED: int
TM_CCOEFF: int
TM_CCOEFF_NORMED: int
CC_STAT_LEFT: int
CC_STAT_TOP: int
CC_STAT_WIDTH: int
CC_STAT_HEIGHT: int
CC_STAT_AREA: int

def min_max_idx(src: ArrayLike, mask: Optional[ArrayLike] = ..., *, device: DeviceSpec = ...
                ) -> Tuple[float, float, Optional[Tuple[int, int]], Optional[Tuple[int, int]]]: ...
def compare_hist(H1: ArrayLike, H2: ArrayLike, method: int) -> float: ...
def integral(src: ArrayLike, sum: Optional[np.ndarray] = ..., sdepth: int = ..., *,
             device: DeviceSpec = ...) -> np.ndarray: ...
def integral2(src: ArrayLike, sum: Optional[np.ndarray] = ..., sqsum: Optional[np.ndarray] = ...,
              sdepth: int = ..., sqdepth: int = ..., *,
              device: DeviceSpec = ...) -> Tuple[np.ndarray, np.ndarray]: ...
def integral3(src: ArrayLike, sum: Optional[np.ndarray] = ..., sqsum: Optional[np.ndarray] = ...,
              tilted: Optional[np.ndarray] = ..., sdepth: int = ..., sqdepth: int = ..., *,
              device: DeviceSpec = ...) -> Tuple[np.ndarray, np.ndarray, np.ndarray]: ...
def moments(array: ArrayLike, binaryImage: bool = ..., *,
            device: DeviceSpec = ...) -> Dict[str, float]: ...
def hu_moments(m: Dict[str, float], hu: Optional[np.ndarray] = ...) -> np.ndarray: ...
def match_template(image: ArrayLike, templ: ArrayLike, method: int,
                   result: Optional[np.ndarray] = ..., mask: Optional[ArrayLike] = ..., *,
                   device: DeviceSpec = ...) -> np.ndarray: ...
def connected_components(image: ArrayLike, labels: Optional[np.ndarray] = ...,
                         connectivity: int = ..., ltype: int = ..., *,
                         device: DeviceSpec = ...) -> Tuple[int, np.ndarray]: ...
def connected_components_with_stats(
    image: ArrayLike, labels: Optional[np.ndarray] = ..., stats: Optional[np.ndarray] = ...,
    centroids: Optional[np.ndarray] = ..., connectivity: int = ..., ltype: int = ..., *,
    device: DeviceSpec = ...) -> Tuple[int, np.ndarray, np.ndarray, np.ndarray]: ...
minMaxIdx = min_max_idx
compareHist = compare_hist
HuMoments = hu_moments
matchTemplate = match_template
connectedComponents = connected_components
connectedComponentsWithStats = connected_components_with_stats
# ---- colour, issue 40 continued (gip._colorops) ---------------------------------------------
COLOR_RGB2YUV_UYVY: int
COLOR_RGB2YUV_UYNV: int
COLOR_RGB2YUV_Y422: int
COLOR_BGR2YUV_UYVY: int
COLOR_BGR2YUV_UYNV: int
COLOR_BGR2YUV_Y422: int
COLOR_RGBA2YUV_UYVY: int
COLOR_RGBA2YUV_UYNV: int
COLOR_RGBA2YUV_Y422: int
COLOR_BGRA2YUV_UYVY: int
COLOR_BGRA2YUV_UYNV: int
COLOR_BGRA2YUV_Y422: int
COLOR_RGB2YUV_YUY2: int
COLOR_RGB2YUV_YUYV: int
COLOR_RGB2YUV_YUNV: int
COLOR_BGR2YUV_YUY2: int
COLOR_BGR2YUV_YUYV: int
COLOR_BGR2YUV_YUNV: int
COLOR_RGB2YUV_YVYU: int
COLOR_BGR2YUV_YVYU: int
COLOR_RGBA2YUV_YUY2: int
COLOR_RGBA2YUV_YUYV: int
COLOR_RGBA2YUV_YUNV: int
COLOR_BGRA2YUV_YUY2: int
COLOR_BGRA2YUV_YUYV: int
COLOR_BGRA2YUV_YUNV: int
COLOR_RGBA2YUV_YVYU: int
COLOR_BGRA2YUV_YVYU: int
COLOR_Lab2BGR: int
COLOR_Lab2RGB: int
COLOR_BayerBG2BGR_VNG: int
COLOR_BayerGB2BGR_VNG: int
COLOR_BayerRG2BGR_VNG: int
COLOR_BayerGR2BGR_VNG: int
COLOR_BayerBG2RGB_VNG: int
COLOR_BayerGB2RGB_VNG: int
COLOR_BayerRG2RGB_VNG: int
COLOR_BayerGR2RGB_VNG: int
COLOR_BGR2Luv: int
COLOR_RGB2Luv: int
COLOR_Luv2BGR: int
COLOR_Luv2RGB: int
COLOR_BayerBG2BGR_EA: int
COLOR_BayerGB2BGR_EA: int
COLOR_BayerRG2BGR_EA: int
COLOR_BayerGR2BGR_EA: int
COLOR_BayerBG2RGB_EA: int
COLOR_BayerGB2RGB_EA: int
COLOR_BayerRG2RGB_EA: int
COLOR_BayerGR2RGB_EA: int

def mixChannels(src: Union[ArrayLike, Sequence[ArrayLike]], dst: Any, fromTo: Sequence[int], *,
                device: DeviceSpec = ...) -> Any: ...

# Colour codes with mixed-case names (cv2 spells them so)
COLOR_BGR2Lab: int
COLOR_BGR2YCrCb: int
COLOR_BGR2YUV_I420: int
COLOR_BGR2YUV_IYUV: int
COLOR_BGR2YUV_YV12: int
COLOR_BGRA2YUV_I420: int
COLOR_BGRA2YUV_IYUV: int
COLOR_BGRA2YUV_YV12: int
COLOR_BayerBG2BGR: int
COLOR_BayerBG2BGRA: int
COLOR_BayerBG2GRAY: int
COLOR_BayerBG2RGB: int
COLOR_BayerBG2RGBA: int
COLOR_BayerGB2BGR: int
COLOR_BayerGB2BGRA: int
COLOR_BayerGB2GRAY: int
COLOR_BayerGB2RGB: int
COLOR_BayerGB2RGBA: int
COLOR_BayerGR2BGR: int
COLOR_BayerGR2BGRA: int
COLOR_BayerGR2GRAY: int
COLOR_BayerGR2RGB: int
COLOR_BayerGR2RGBA: int
COLOR_BayerRG2BGR: int
COLOR_BayerRG2BGRA: int
COLOR_BayerRG2GRAY: int
COLOR_BayerRG2RGB: int
COLOR_BayerRG2RGBA: int
COLOR_RGB2Lab: int
COLOR_RGB2YCrCb: int
COLOR_RGB2YUV_I420: int
COLOR_RGB2YUV_IYUV: int
COLOR_RGB2YUV_YV12: int
COLOR_RGBA2YUV_I420: int
COLOR_RGBA2YUV_IYUV: int
COLOR_RGBA2YUV_YV12: int
COLOR_YCrCb2BGR: int
COLOR_YCrCb2RGB: int

# ---- the batch loader (gip/_loader.py, gip/loader.h) ------------------------------------------
class Loader:
    output: str
    device: Device
    batch_size: int
    dtype: str
    layout: str
    shuffle: bool
    drop_last: bool
    last_skipped: List[Tuple[int, str]]
    def __init__(self, files: Union[str, Sequence[Union[str, bytes]], Any],
                 batch_size: int = ..., size: int = ..., train: bool = ...,
                 mean: Optional[Sequence[float]] = ..., std: Optional[Sequence[float]] = ...,
                 device: Any = ..., dtype: Any = ..., layout: str = ..., seed: int = ...,
                 shard: Tuple[int, int] = ..., *, shuffle: Optional[bool] = ...,
                 drop_last: Optional[bool] = ..., hflip: Optional[float] = ...,
                 scale: Tuple[float, float] = ..., ratio: Tuple[float, float] = ...,
                 resize: Optional[int] = ..., mode: Optional[str] = ..., fill: int = ...,
                 brightness: float = ..., contrast: float = ..., saturation: float = ...,
                 labels: Optional[Sequence[int]] = ..., prefetch: int = ...,
                 threads: Optional[int] = ..., on_error: str = ...,
                 output: Optional[str] = ..., decoder: str = ...) -> None: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Any: ...  # an iterator of (images, indices) or (images, labels, indices)
    def __enter__(self) -> "Loader": ...
    def __exit__(self, *exc: Any) -> None: ...
    @property
    def samples(self) -> int: ...
    @property
    def epoch(self) -> int: ...
    def set_epoch(self, epoch: int) -> None: ...
    def stats(self) -> Dict[str, float]: ...
    def close(self) -> None: ...
