"""Type stubs for flatmodel: verify, open and read ML model files (see the module docstring)."""

import mmap
import os
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, mmap.mmap]

def verify(
    source: Source,
    *,
    runtime: Optional[str] = None,
    schema: Union[str, "os.PathLike[str]", None] = None,
    root_type: Optional[str] = None,
    data: Optional[Sequence[Source]] = None,
) -> Verdict:
    """Verify a model file, nnpackage or bytes: the verdict ``flatmodel verify`` prints; never raises on bad bytes.

    ``data``: ``.ptd`` files a ``.pte`` program is checked with, as ``flatmodel verify --data``."""

def open(source: Source) -> Union[Model, Program, VulkanBlob, XnnpackBlob, DataFile, LitertLm, CviModel, Package, Bundle]:
    """Open a model file, nnpackage, model bundle or bytes, verified in full; raises ``InvalidModel``."""

def inspect(source: Source, *, tensors: bool = False) -> Dict[str, Any]:
    """The document ``flatmodel inspect --json`` prints; raises ``InvalidModel`` on a file that is not a valid model."""

def scan(source: Source) -> Dict[str, Any]:
    """The object ``flatmodel scan`` prints: verdict, located error and findings; never raises on bad bytes."""

class InvalidModel(ValueError):
    """A file ``open`` cannot read: not a model, or an invalid one."""

    error: ModelError

class ModelError:
    """Why a file is not a valid model; ``str()`` is the command line's sentence."""

    @property
    def kind(self) -> str:
        """The kind of error: ``"Truncated"``, ``"OutOfBounds"``, ``"Rule"``, ``"UnknownFormat"``, ..."""
    @property
    def rule(self) -> Optional[str]:
        """The rule's name when ``kind`` is ``"Rule"``."""
    @property
    def offset(self) -> Optional[int]:
        """The byte offset the error is at."""
    @property
    def path(self) -> Optional[str]:
        """The schema path (``Model.subgraphs[0].tensors[3].name``) or package path."""
    @property
    def message(self) -> str:
        """The whole message."""

class Verdict:
    """What ``verify`` found."""

    @property
    def ok(self) -> bool:
        """Whether the file is valid."""
    @property
    def format(self) -> Optional[str]:
        """``"tflite"``, ``"circle"``, ``"pte"``, ``"vkgraph"``, ``"cvimodel"``, ``"xnnpack"``, ``"ptd"``, ``"litertlm"``, ``"nnpackage"``, ``"bundle"``, ``"flatbuffer"``, or None."""
    @property
    def error(self) -> Optional[ModelError]:
        """Why the file is invalid; None when it is valid."""
    @property
    def warnings(self) -> List[str]:
        """The advisory findings of a valid file."""

class ArrayData:
    """Part of a model's bytes as NumPy sees it (read-only): the base object of ``numpy()`` arrays."""

    @property
    def nbytes(self) -> int:
        """How many bytes."""
    @property
    def offset(self) -> int:
        """Where the bytes start in the file."""
    @property
    def __array_interface__(self) -> Dict[str, Any]:
        """NumPy's array interface, read-only."""

class Items:
    """A lazy, read-only sequence of a model's items (tensors, operators, values)."""

    def __len__(self) -> int:
        """How many items."""
    def __getitem__(self, index: int) -> Any:
        """The item at ``index`` (negative counts from the end)."""
    def __iter__(self) -> Iterator[Any]:
        """Each item in turn."""

class Model:
    """A TFLite or Circle model, verified in full."""

    @property
    def format(self) -> str:
        """``"tflite"`` or ``"circle"``."""
    @property
    def version(self) -> int:
        """The schema version."""
    @property
    def description(self) -> Optional[str]:
        """``Model.description``."""
    @property
    def subgraphs(self) -> List[Subgraph]:
        """The subgraphs, the first the main one."""
    @property
    def signatures(self) -> List[Signature]:
        """The signatures (named entry points)."""
    @property
    def metadata(self) -> List[Metadata]:
        """The metadata entries."""
    @property
    def buffer_count(self) -> int:
        """How many buffers ``Model.buffers`` holds."""
    @property
    def warnings(self) -> List[str]:
        """The advisory findings."""
    @property
    def nbytes(self) -> int:
        """The file's size."""
    def data(self) -> npt.NDArray[np.uint8]:
        """The file's bytes as a read-only array (no copy)."""

class Subgraph:
    """One subgraph of a TFLite or Circle model."""

    @property
    def index(self) -> int:
        """Its index in ``Model.subgraphs``."""
    @property
    def name(self) -> Optional[str]:
        """``SubGraph.name``."""
    @property
    def tensors(self) -> Items:
        """The tensors (``Tensor``), lazily."""
    @property
    def operators(self) -> Items:
        """The operators (``Operator``) in execution order, lazily."""
    @property
    def inputs(self) -> Tuple[int, ...]:
        """The input tensors' indices."""
    @property
    def outputs(self) -> Tuple[int, ...]:
        """The output tensors' indices."""

class Tensor:
    """One tensor of a subgraph."""

    @property
    def index(self) -> int:
        """Its index in the subgraph."""
    @property
    def name(self) -> Optional[str]:
        """``Tensor.name``."""
    @property
    def dtype(self) -> str:
        """The element type, lower-case: ``"float32"``, ``"int8"``, ``"string"``, ..."""
    @property
    def shape(self) -> Tuple[int, ...]:
        """``Tensor.shape``."""
    @property
    def shape_signature(self) -> Optional[Tuple[int, ...]]:
        """``Tensor.shape_signature`` (-1: known at run time)."""
    @property
    def buffer(self) -> int:
        """The index of its buffer (0: none)."""
    @property
    def is_variable(self) -> bool:
        """``Tensor.is_variable``."""
    @property
    def quantization(self) -> Optional[Dict[str, Any]]:
        """``scale``, ``zero_point``, ``min``, ``max``, ``quantized_dimension`` (and ``blockwise``), or None."""
    def numpy(self) -> Optional[npt.NDArray[Any]]:
        """The data as a read-only array sharing memory with the file (no copy); None without data."""

class Operator:
    """One operator of a subgraph."""

    @property
    def index(self) -> int:
        """Its index in the subgraph."""
    @property
    def name(self) -> Optional[str]:
        """The builtin's name (``"CONV_2D"``) or the custom operator's code."""
    @property
    def code(self) -> Optional[int]:
        """The builtin code; None for a custom operator."""
    @property
    def custom(self) -> bool:
        """Whether it is a custom operator."""
    @property
    def version(self) -> Optional[int]:
        """``OperatorCode.version``."""
    @property
    def opcode_index(self) -> int:
        """``Operator.opcode_index``."""
    @property
    def inputs(self) -> Tuple[int, ...]:
        """The input tensors' indices (-1: optional input left out)."""
    @property
    def outputs(self) -> Tuple[int, ...]:
        """The output tensors' indices."""
    @property
    def intermediates(self) -> Tuple[int, ...]:
        """The intermediate tensors' indices."""
    def custom_options(self) -> Optional[npt.NDArray[np.uint8]]:
        """The custom options' bytes (no copy), or None."""

class Signature:
    """A signature: a named entry point."""

    @property
    def key(self) -> Optional[str]:
        """``SignatureDef.signature_key``."""
    @property
    def subgraph_index(self) -> int:
        """The subgraph it runs."""
    @property
    def inputs(self) -> Dict[str, int]:
        """Input name -> tensor index."""
    @property
    def outputs(self) -> Dict[str, int]:
        """Output name -> tensor index."""

class Metadata:
    """A metadata entry."""

    @property
    def name(self) -> Optional[str]:
        """``Metadata.name``."""
    @property
    def buffer(self) -> int:
        """``Metadata.buffer``."""
    def data(self) -> Optional[npt.NDArray[np.uint8]]:
        """The buffer's bytes (no copy)."""

class Program:
    """An ExecuTorch program (``.pte``), verified in full."""

    @property
    def format(self) -> str:
        """``"pte"``."""
    @property
    def version(self) -> int:
        """``Program.version``."""
    @property
    def plans(self) -> List[Plan]:
        """The execution plans."""
    @property
    def delegates(self) -> List[Delegate]:
        """Every plan's delegates, in order."""
    @property
    def segment_count(self) -> int:
        """How many data segments."""
    def segment(self, index: int) -> npt.NDArray[np.uint8]:
        """Segment ``index``'s bytes (no copy)."""
    @property
    def named_data_keys(self) -> List[str]:
        """The keys of the named data."""
    @property
    def external_keys(self) -> List[Tuple[str, str, int]]:
        """``(key, reader, bytes)`` of each key the program's own named data lacks: what its ``.ptd`` files must hold."""
    def named_data(self, key: str) -> Optional[npt.NDArray[np.uint8]]:
        """The named datum's bytes (no copy), or None."""
    @property
    def warnings(self) -> List[str]:
        """The advisory findings."""

class Plan:
    """One execution plan."""

    @property
    def index(self) -> int:
        """Its index in the program."""
    @property
    def name(self) -> Optional[str]:
        """``ExecutionPlan.name``."""
    @property
    def values(self) -> Items:
        """The values (``Value``), lazily."""
    @property
    def inputs(self) -> Tuple[int, ...]:
        """The input values' indices."""
    @property
    def outputs(self) -> Tuple[int, ...]:
        """The output values' indices."""
    @property
    def operators(self) -> List[str]:
        """The kernels it calls (``aten::add.out``)."""
    @property
    def chains(self) -> List[int]:
        """How many instructions each chain holds."""
    @property
    def delegate_ids(self) -> List[str]:
        """Its delegates' backend ids."""

class Value:
    """One value of an execution plan."""

    @property
    def index(self) -> int:
        """Its index in the plan's values."""
    @property
    def kind(self) -> str:
        """``"Tensor"``, ``"Int"``, ``"Double"``, ``"Bool"``, ``"String"``, ``"IntList"``, ..."""
    @property
    def dtype(self) -> Optional[str]:
        """A tensor's element type."""
    @property
    def shape(self) -> Optional[Tuple[int, ...]]:
        """A tensor's sizes."""
    @property
    def value(self) -> Union[int, float, bool, str, None]:
        """A scalar's value."""
    def numpy(self) -> Optional[npt.NDArray[Any]]:
        """A constant tensor's data (no copy); None otherwise."""

class Delegate:
    """One delegate of a program."""

    @property
    def id(self) -> Optional[str]:
        """The backend id."""
    @property
    def plan(self) -> int:
        """The plan it belongs to."""
    @property
    def blob_range(self) -> Tuple[int, int]:
        """The blob's offset in the file and length."""
    def data(self) -> npt.NDArray[np.uint8]:
        """The blob's bytes (no copy)."""
    @property
    def vulkan(self) -> Optional[VulkanBlob]:
        """The Vulkan delegate's graph, or None for another backend."""
    @property
    def xnnpack(self) -> Optional[XnnpackBlob]:
        """The XNNPACK delegate's graph, or None for another backend."""

class VulkanBlob:
    """A Vulkan delegate's graph (VkGraph)."""

    @property
    def format(self) -> str:
        """``"vkgraph"``."""
    @property
    def has_header(self) -> bool:
        """Whether it has its ``VH00`` header."""
    @property
    def version(self) -> Optional[str]:
        """``VkGraph.version``."""
    @property
    def values(self) -> Items:
        """The values (``VkValue``), lazily."""
    @property
    def operators(self) -> Items:
        """The operator calls (``VkOperator``), lazily."""
    @property
    def inputs(self) -> Tuple[int, ...]:
        """The input values' indices."""
    @property
    def outputs(self) -> Tuple[int, ...]:
        """The output values' indices."""
    @property
    def constant_count(self) -> int:
        """How many constants."""
    def constant(self, index: int) -> Optional[npt.NDArray[np.uint8]]:
        """Constant ``index``'s bytes (no copy); None for a named constant of a blob read alone."""
    @property
    def warnings(self) -> List[str]:
        """The advisory findings of a blob file."""

class VkValue:
    """One value of a Vulkan graph."""

    @property
    def index(self) -> int:
        """Its index."""
    @property
    def kind(self) -> str:
        """``"VkTensor"``, ``"Int"``, ..."""
    @property
    def dtype(self) -> Optional[str]:
        """A tensor's element type."""
    @property
    def shape(self) -> Optional[Tuple[int, ...]]:
        """A tensor's dimensions."""
    @property
    def constant_id(self) -> Optional[int]:
        """A tensor's constant id (negative: not constant)."""
    def numpy(self) -> Optional[npt.NDArray[Any]]:
        """A constant tensor's data (no copy); None otherwise."""

class VkOperator:
    """One operator call of a Vulkan graph."""

    @property
    def index(self) -> int:
        """Its index in the chain."""
    @property
    def name(self) -> Optional[str]:
        """The operator's name."""
    @property
    def node_id(self) -> int:
        """``OperatorCall.node_id``."""
    @property
    def args(self) -> Tuple[int, ...]:
        """The values it reads and writes."""

class XnnpackBlob:
    """An XNNPACK delegate's graph (XNNGraph)."""

    @property
    def format(self) -> str:
        """``"xnnpack"``."""
    @property
    def has_header(self) -> bool:
        """Whether it has its ``XH00`` header."""
    @property
    def version(self) -> Optional[str]:
        """``XNNGraph.version``."""
    @property
    def values(self) -> Items:
        """The values (``XnnValue``), lazily."""
    @property
    def nodes(self) -> Items:
        """The nodes (``XnnNode``), lazily."""
    @property
    def inputs(self) -> Tuple[int, ...]:
        """The external inputs' value ids."""
    @property
    def outputs(self) -> Tuple[int, ...]:
        """The external outputs' value ids."""
    @property
    def constant_count(self) -> int:
        """How many ``constant_data`` entries (entry 0 is "not constant")."""
    def constant_key(self, index: int) -> Optional[str]:
        """Constant ``index``'s named-data key, or None when its bytes are in the blob."""
    def constant(self, index: int) -> Optional[npt.NDArray[np.uint8]]:
        """Constant ``index``'s bytes (no copy); None when they are not in this file."""
    @property
    def warnings(self) -> List[str]:
        """The advisory findings of a blob file."""

class XnnValue:
    """One value of an XNNPACK graph."""

    @property
    def index(self) -> int:
        """Its index."""
    @property
    def kind(self) -> str:
        """``"XNNTensorValue"`` or ``"XNNQuantizedTensorValue"``."""
    @property
    def dtype(self) -> Optional[str]:
        """XNNPACK's element type without its prefix (``fp32``, ``qcint8``)."""
    @property
    def shape(self) -> Optional[Tuple[int, ...]]:
        """The dimensions."""
    @property
    def id(self) -> Optional[int]:
        """The id nodes use for it (``id_out``)."""
    @property
    def constant_index(self) -> Optional[int]:
        """Its ``constant_data`` entry, or None when not constant."""
    @property
    def external_id(self) -> Optional[int]:
        """``external_id``."""
    @property
    def flags(self) -> Optional[int]:
        """``flags``."""
    def quantization(self) -> Optional[Dict[str, Any]]:
        """A quantized value's parameters (``scheme`` and its fields); None otherwise."""
    def numpy(self) -> Optional[npt.NDArray[Any]]:
        """A constant's data in its stored type (no copy); None otherwise."""

class XnnNode:
    """One node of an XNNPACK graph."""

    @property
    def index(self) -> int:
        """Its index."""
    @property
    def kind(self) -> str:
        """The node type (``XNNFullyConnected``)."""
    @property
    def inputs(self) -> Tuple[int, ...]:
        """The value ids it reads."""
    @property
    def outputs(self) -> Tuple[int, ...]:
        """The value ids it writes."""
    @property
    def debug_handle(self) -> int:
        """``XNode.debug_handle``."""

class DataFile:
    """An ExecuTorch data file (``.ptd``), verified in full."""

    @property
    def format(self) -> str:
        """``"ptd"``."""
    @property
    def version(self) -> int:
        """``FlatTensor.version``."""
    @property
    def segments(self) -> List[Tuple[int, int]]:
        """The segments as (file offset, length)."""
    @property
    def keys(self) -> List[str]:
        """The named data's keys."""
    def layout(self, key: str) -> Optional[Tuple[str, Tuple[int, ...], Tuple[int, ...]]]:
        """``(dtype, shape, dim_order)`` of ``key``, or None without a tensor layout."""
    def named_data(self, key: str) -> npt.NDArray[Any]:
        """The named datum (no copy), typed by its layout where NumPy has the type."""
    def __len__(self) -> int:
        """How many named data."""
    def __contains__(self, key: str) -> bool:
        """Whether ``key`` is named."""
    @property
    def warnings(self) -> List[str]:
        """The advisory findings."""

class LitertLm:
    """A LiteRT-LM file (``.litertlm``), verified: header, metadata, section ranges, TFLite sections,
    protobuf sections, HF tokenizers' zlib streams."""

    @property
    def format(self) -> str:
        """``"litertlm"``."""
    @property
    def version(self) -> Tuple[int, int, int]:
        """``(major, minor, patch)``."""
    def system_metadata(self) -> Dict[str, Union[int, float, bool, str, None]]:
        """The system metadata's key-value pairs."""
    @property
    def sections(self) -> List[Tuple[str, int, int]]:
        """``(type, begin, end)`` of each section."""
    def section(self, index: int) -> npt.NDArray[np.uint8]:
        """Section ``index``'s bytes (no copy)."""
    def section_items(self, index: int) -> Dict[str, Union[int, float, bool, str, None]]:
        """Section ``index``'s items."""
    @property
    def warnings(self) -> List[str]:
        """The advisory findings."""

class CviModel:
    """A Sophgo cvimodel, verified in full."""

    @property
    def format(self) -> str:
        """``"cvimodel"``."""
    @property
    def version(self) -> Tuple[int, int]:
        """The header's version."""
    @property
    def chip(self) -> Optional[str]:
        """The chip it is built for."""
    @property
    def name(self) -> str:
        """``Model.name``."""
    @property
    def md5_ok(self) -> bool:
        """Whether the header's MD5 matches."""
    @property
    def programs(self) -> List[Dict[str, Any]]:
        """The programs with their tensors and routines."""
    @property
    def sections(self) -> List[Section]:
        """The sections."""
    @property
    def weights(self) -> List[Weight]:
        """The weight map."""
    @property
    def warnings(self) -> List[str]:
        """The advisory findings."""

class Section:
    """One section of a cvimodel."""

    @property
    def index(self) -> int:
        """Its index."""
    @property
    def name(self) -> str:
        """``Section.name``."""
    @property
    def kind(self) -> str:
        """``WEIGHT``, ``CMDBUF``, ``FUNC_X86``, ``FUNC_AARCH64``, ``DMABUF``."""
    @property
    def range(self) -> Tuple[int, int]:
        """The stored payload's offset and length."""
    @property
    def compressed(self) -> bool:
        """Whether LZ4-compressed."""
    @property
    def encrypted(self) -> bool:
        """Whether marked encrypted."""
    def data(self) -> npt.NDArray[np.uint8]:
        """The stored payload (no copy)."""

class Weight:
    """One weight of a cvimodel's weight map."""

    @property
    def name(self) -> Optional[str]:
        """``Weight.name``."""
    @property
    def dtype(self) -> str:
        """The element type."""
    @property
    def shape(self) -> Optional[Tuple[int, ...]]:
        """``Weight.shape``."""
    def numpy(self) -> Optional[npt.NDArray[Any]]:
        """The weight's data (no copy)."""

class Package:
    """A checked nnpackage."""

    @property
    def format(self) -> str:
        """``"nnpackage"``."""
    @property
    def version(self) -> Tuple[int, int]:
        """The MANIFEST's version."""
    @property
    def container(self) -> str:
        """``"directory"`` or ``"zip"``."""
    @property
    def model_paths(self) -> List[str]:
        """Each model's path in the package."""
    @property
    def model_types(self) -> List[str]:
        """Each model's type."""
    @property
    def models(self) -> List[Union[Model, Program, VulkanBlob, XnnpackBlob, DataFile, LitertLm, CviModel, None]]:
        """The models, as ``open`` gives them (None for an opaque binary)."""

class Bundle:
    """A model bundle (a zip archive of models that is no nnpackage, such as MediaPipe's ``.task``),
    every member a format claims verified by it."""

    @property
    def format(self) -> str:
        """``"bundle"``."""
    @property
    def member_names(self) -> List[str]:
        """Each member's name in the archive, in archive order."""
    @property
    def member_types(self) -> List[Optional[str]]:
        """Each member's format (``"tflite"``, ...), None for one no format claims."""
    @property
    def member_sizes(self) -> List[int]:
        """Each member's size in bytes."""
    @property
    def members(self) -> List[Union[Model, Program, VulkanBlob, XnnpackBlob, DataFile, LitertLm, CviModel, None]]:
        """The members, each model member as ``open`` gives it (None for the others); stored ones share the archive's bytes."""
