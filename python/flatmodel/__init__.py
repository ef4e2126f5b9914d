"""flatmodel: verify, open and read ML model files with a verifier in front of every read.

Reads TFLite, Circle, ExecuTorch programs (``.pte``) and their Vulkan delegate blobs, Sophgo
cvimodels and nnpackages (directories or zips). Every file is verified in full before any of it
is read; ``verify`` gives a verdict and never raises on bad bytes, ``open`` raises
``InvalidModel`` (a ``ValueError``) on a file it cannot read. ``inspect`` and ``scan`` give the
documents the command line prints (``flatmodel inspect --json``, ``flatmodel scan``) as ``dict``s,
made by the same code.

What the functions accept (``_source``):

- a path (``str`` or ``os.PathLike``): read whole into memory as one consistent snapshot, as
  the ``flatmodel`` command line reads files (a file written meanwhile is read again, then
  refused; never memory-mapped, so nothing can change under a view and no signal can end the
  process);
- ``bytes``: used in place, never copied (a ``bytes`` object cannot change);
- ``bytearray``, ``memoryview`` or ``mmap.mmap``: copied once into a ``bytes`` object, because
  their content can change while it is read (a ``memoryview`` of a whole ``bytes`` object is
  used in place).

Arrays returned by ``numpy()`` are read-only views of those bytes (no copy); each keeps the
bytes alive for as long as it lives.
"""

from __future__ import annotations

import json
import mmap
import os
from typing import Optional, Sequence, Union

from . import _flatmodel as _native
from ._flatmodel import (
    ArrayData,
    Bundle,
    CviModel,
    DataFile,
    Delegate,
    InvalidModel,
    Items,
    LitertLm,
    Metadata,
    Model,
    ModelError,
    Operator,
    Package,
    Plan,
    Program,
    Section,
    Signature,
    Subgraph,
    Tensor,
    Value,
    Verdict,
    VkOperator,
    VkValue,
    VulkanBlob,
    Weight,
    XnnNode,
    XnnpackBlob,
    XnnValue,
)

__all__ = [
    "verify",
    "open",
    "inspect",
    "scan",
    "InvalidModel",
    "ModelError",
    "Verdict",
    "Model",
    "Subgraph",
    "Tensor",
    "Operator",
    "Signature",
    "Metadata",
    "Program",
    "Plan",
    "Value",
    "Delegate",
    "VulkanBlob",
    "VkValue",
    "VkOperator",
    "XnnpackBlob",
    "XnnValue",
    "XnnNode",
    "DataFile",
    "LitertLm",
    "CviModel",
    "Section",
    "Weight",
    "Package",
    "Bundle",
    "Items",
    "ArrayData",
]

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, mmap.mmap]


def _source(source: Source) -> Union[str, bytes]:
    """The argument the native functions take for ``source``: a path as ``str``, or ``bytes``.

    ``bytes`` and paths pass as they are; a buffer whose content can change (``bytearray``,
    ``mmap``, a ``memoryview`` of anything but a whole ``bytes`` object) is copied once, so
    the bytes verified are the bytes read. Any other type is a ``TypeError``. Every function
    taking "a path or bytes" goes through here.
    """
    if isinstance(source, (bytes, str)):
        return source
    if isinstance(source, os.PathLike):
        path = os.fspath(source)
        return path if isinstance(path, str) else os.fsdecode(path)
    if isinstance(source, memoryview):
        whole = isinstance(source.obj, bytes) and source.c_contiguous and source.nbytes == len(source.obj)
        return source.obj if whole else source.tobytes()
    if isinstance(source, (bytearray, mmap.mmap)):
        with memoryview(source) as view:
            return view.tobytes()
    raise TypeError(
        f"expected a path (str or os.PathLike), bytes, bytearray, memoryview or mmap, not {type(source).__name__}"
    )


def verify(
    source: Source,
    *,
    runtime: Optional[str] = None,
    schema: Union[str, "os.PathLike[str]", None] = None,
    root_type: Optional[str] = None,
    data: Optional[Sequence[Source]] = None,
) -> Verdict:
    """Verify a model file, nnpackage, model bundle or bytes: the verdict ``flatmodel verify`` prints.

    A model bundle (a zip archive of models that is no nnpackage, such as MediaPipe's ``.task``)
    has format ``"bundle"``: each member a format claims is verified by it, its warnings after
    ``NAME: ``; a failing member's ``ModelError`` is located in that member.

    Never raises on bad bytes: ``Verdict.ok`` is False and ``Verdict.error`` says why. Raises
    ``TypeError`` for an argument of the wrong type, ``OSError`` for a path that cannot be read,
    ``ValueError`` for an unknown ``runtime`` or a schema that does not parse.

    ``runtime`` (``"litert"`` or ``"tflm"``) adds that runtime's own load checks of a TFLite
    model, as ``flatmodel verify --runtime``. ``schema`` (a ``.fbs`` or ``.bfbs`` file) verifies
    the bytes as any flatbuffer of that schema instead, rooted at ``root_type`` (else the
    schema's ``root_type``), as ``flatmodel verify --schema``. ``data`` (ExecuTorch ``.ptd``
    files, as paths or bytes) checks a ``.pte`` program with its data, as ``flatmodel verify
    P.pte --data W.ptd``: every key the program and its delegates read must be in the program's
    named data or one of them, with the bytes its reader needs; the first that is not makes the
    verdict invalid, naming the key (a ``ValueError`` when the source is no program or a data
    file no ``.ptd``). The GIL is released while the bytes are verified.
    """
    schema_path = None if schema is None else os.fspath(schema)
    if isinstance(schema_path, bytes):
        schema_path = os.fsdecode(schema_path)
    if data is not None:
        if isinstance(data, (str, bytes, os.PathLike)):
            raise TypeError("data= takes a sequence of .ptd files (paths or bytes), not one")
        data = [_source(d) for d in data]
    return _native.verify(_source(source), runtime=runtime, schema=schema_path, root_type=root_type, data=data)


def open(  # noqa: A001
    source: Source,
) -> Union[Model, Program, VulkanBlob, XnnpackBlob, DataFile, LitertLm, CviModel, Package, Bundle]:
    """Open a model file, nnpackage, model bundle or bytes, verified in full.

    Returns a ``Model`` (TFLite, Circle), ``Program`` (``.pte``), ``VulkanBlob``,
    ``XnnpackBlob``, ``DataFile`` (``.ptd``), ``LitertLm`` (``.litertlm``), ``CviModel`` or ``Package``
    (nnpackage). Raises ``InvalidModel`` (a ``ValueError``, with ``.error`` the
    ``ModelError``) when the file is not a valid model, ``OSError`` when a path cannot be read,
    ``TypeError`` for an argument of the wrong type. A model bundle (a zip archive of models
    that is no nnpackage, such as MediaPipe's ``.task``) gives a ``Bundle``: its members' names,
    types and sizes, and each model member as ``open`` gives a file.
    """
    return _native.open(_source(source))


def inspect(source: Source, *, tensors: bool = False) -> dict:
    """What a model file, nnpackage or bytes holds: the document ``flatmodel inspect --json`` prints.

    The document follows the command line's ``inspect.schema.json``; ``tensors=True`` adds every
    tensor, as ``--tensors`` does. Raises ``InvalidModel`` (with ``.error``) when the file is not a
    valid model, ``OSError`` when a path cannot be read, ``TypeError`` for an argument of the wrong
    type. The GIL is released while the file is read, verified and summarised.
    """
    return json.loads(_native.inspect(_source(source), tensors))


def scan(source: Source) -> dict:
    """An upload scanner's verdict on a file, nnpackage or bytes: the object ``flatmodel scan`` prints.

    Never raises on bad bytes. The ``dict`` holds ``verdict`` (``"valid"``, ``"invalid"`` or
    ``"unknown-format"``), ``format``, ``error`` (``None``, or the located error: ``kind``,
    ``offset``, ``path``, ``message``) and ``findings``: each with a stable ``id`` (custom and
    Flex operators, delegates, data outside the flatbuffer, appended bytes, nested flatbuffers,
    each runtime's refusals, warnings; the list is in the project's ``docs/scan.md``), a
    ``message``, and the byte range (``offset``, ``length``) or schema ``path`` it concerns.
    ``path`` is the path given, or ``None`` for bytes. Raises ``OSError`` when a path cannot be
    read (the command line's status 2), ``TypeError`` for an argument of the wrong type.
    """
    return json.loads(_native.scan(_source(source)))
