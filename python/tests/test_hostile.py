"""Hostile input: random bytes and mutations of testdata's models never crash the interpreter,
`verify` and `scan` never raise, `open` and `inspect` raise nothing but `InvalidModel`, whatever `open` accepts can be
walked in full, and memory stays within a small multiple of the input."""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import flatmodel
from conftest import TESTDATA, model_files

# Small models of every format to mutate (the larger ones make each example slow).
SEEDS = [p.read_bytes() for p in model_files(TESTDATA) if p.is_file() and p.stat().st_size <= 64 * 1024]
# An identifier at bytes 4..8 for each format, so random bytes reach each verifier.
HEADS = [b"TFL3", b"CIR0", b"ET12", b"VH00", b"VK00"]


def walk(obj):
    """Reads everything `obj` (what `open` returned) exposes, arrays included."""
    if isinstance(obj, flatmodel.Model):
        _ = (obj.format, obj.version, obj.description, obj.warnings)
        for s in obj.signatures:
            _ = (s.key, s.inputs, s.outputs, s.subgraph_index)
        for e in obj.metadata:
            _ = (e.name, e.data())
        for sg in obj.subgraphs:
            _ = (sg.name, sg.inputs, sg.outputs)
            for t in sg.tensors:
                _ = (t.name, t.dtype, t.shape, t.shape_signature, t.quantization, t.buffer, t.numpy())
            for op in sg.operators:
                _ = (op.name, op.code, op.version, op.inputs, op.outputs, op.intermediates, op.custom_options())
    elif isinstance(obj, flatmodel.Program):
        _ = (obj.version, obj.named_data_keys, obj.warnings)
        for plan in obj.plans:
            _ = (plan.name, plan.inputs, plan.outputs, plan.operators, plan.chains, plan.delegate_ids)
            for v in plan.values:
                _ = (v.kind, v.dtype, v.shape, v.value, v.numpy())
        for d in obj.delegates:
            _ = (d.id, d.plan, d.blob_range, d.data())
            if d.vulkan is not None:
                walk(d.vulkan)
            if d.xnnpack is not None:
                walk(d.xnnpack)
    elif isinstance(obj, flatmodel.VulkanBlob):
        _ = (obj.version, obj.inputs, obj.outputs, obj.has_header)
        for v in obj.values:
            _ = (v.kind, v.dtype, v.shape, v.constant_id, v.numpy())
        for op in obj.operators:
            _ = (op.name, op.node_id, op.args)
    elif isinstance(obj, flatmodel.XnnpackBlob):
        _ = (obj.version, obj.inputs, obj.outputs, obj.has_header, obj.warnings)
        for i in range(obj.constant_count):
            _ = (obj.constant_key(i), obj.constant(i))
        for v in obj.values:
            _ = (v.kind, v.dtype, v.shape, v.id, v.constant_index, v.external_id, v.flags, v.quantization(), v.numpy())
        for n in obj.nodes:
            _ = (n.kind, n.inputs, n.outputs, n.debug_handle)
    elif isinstance(obj, flatmodel.DataFile):
        _ = (obj.version, obj.segments, obj.warnings, len(obj))
        for key in obj.keys:
            _ = (key in obj, obj.layout(key), obj.named_data(key))
    elif isinstance(obj, flatmodel.LitertLm):
        _ = (obj.version, obj.system_metadata(), obj.warnings)
        for i, _section in enumerate(obj.sections):
            _ = (obj.section(i), obj.section_items(i))
    elif isinstance(obj, flatmodel.CviModel):
        _ = (obj.version, obj.chip, obj.name, obj.md5_ok, obj.programs, obj.warnings)
        for s in obj.sections:
            _ = (s.name, s.kind, s.range, s.data())
        for w in obj.weights:
            _ = (w.name, w.dtype, w.shape, w.numpy())


def exercise(data: bytes):
    v = flatmodel.verify(data)
    assert v.ok == (v.error is None)
    scanned = flatmodel.scan(data)
    assert (scanned["verdict"] == "valid") == v.ok
    try:
        flatmodel.inspect(data)
    except flatmodel.InvalidModel as e:
        # A valid model whose summary would be out of proportion to it is refused too.
        assert not v.ok or e.error.kind == "Invalid"
        assert isinstance(e.error, flatmodel.ModelError)
    try:
        model = flatmodel.open(data)
    except flatmodel.InvalidModel as e:
        assert not v.ok and isinstance(e.error, flatmodel.ModelError)
        return
    assert v.ok
    try:
        walk(model)
    except flatmodel.InvalidModel:
        pass  # a read the verified file refuses (a data range of its own kind), located


def resident_bytes():
    """This process's resident memory (Linux), or None."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return None


@st.composite
def mutated(draw):
    """A testdata model with a few bytes overwritten, inserted or cut."""
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 8))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        action = draw(st.sampled_from(["set", "insert", "cut", "word"]))
        if action == "set":
            data[at] = draw(st.integers(0, 255))
        elif action == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif action == "cut":
            del data[at : at + draw(st.integers(1, 64))]
        else:
            data[at : at + 4] = draw(st.sampled_from([b"\xff\xff\xff\x7f", b"\x00\x00\x00\x80", b"\x04\x00\x00\x00"]))
    return bytes(data)


@st.composite
def random_with_head(draw):
    """Random bytes carrying one format's identifier."""
    body = bytearray(draw(st.binary(min_size=8, max_size=512)))
    body[4:8] = draw(st.sampled_from(HEADS))
    return bytes(body)


@settings(max_examples=int(os.environ.get("FLATMODEL_HYPOTHESIS_EXAMPLES", "300")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.one_of(st.binary(max_size=256), random_with_head(), mutated()))
def test_hostile_bytes_never_crash_and_only_open_raises(data):
    exercise(data)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
def test_memory_stays_within_a_small_multiple_of_the_input(data):
    before = resident_bytes()
    if before is None:
        pytest.skip("no /proc/self/statm")
    for _ in range(3):
        exercise(data)
    grown = resident_bytes() - before
    # Loose: the input is read into memory once per call; allocator and interpreter noise.
    assert grown <= 16 * len(data) + (8 << 20), (grown, len(data))


def test_every_testdata_model_walks_in_full():
    opened = 0
    for path in model_files(TESTDATA):
        try:
            model = flatmodel.open(path)
        except flatmodel.InvalidModel:
            assert not flatmodel.verify(path).ok
            continue
        walk(model)
        opened += 1
    assert opened >= 20
