"""The Python API against independent references: flatc's JSON dumps of testdata (names, shapes,
types, buffers, operators), the bytes of the file itself (arrays share them), and the rules
of the API (types accepted, errors raised, arrays read-only and kept alive)."""

import gc
import gzip
import hashlib
import json
import mmap
import re
import zipfile
from math import prod
from pathlib import Path

import numpy as np
import pytest

import flatmodel
from conftest import TESTDATA

TFLITE = sorted((TESTDATA / "tflite").glob("*.tflite")) + sorted((TESTDATA / "circle").glob("*.circle"))


def flatc_json(model: Path):
    """flatc's dump beside `model` (`NAME.flatc.json` or `.flatc.json.gz`), or None."""
    plain = model.with_name(model.stem + ".flatc.json")
    if plain.exists():
        return json.loads(plain.read_text())
    packed = model.with_name(model.stem + ".flatc.json.gz")
    if packed.exists():
        return json.loads(gzip.decompress(packed.read_bytes()))
    return None


def buffer_bytes(dump, file_bytes, index):
    """Buffer `index`'s bytes as flatc dumped them (inline `data`, else `offset`/`size`)."""
    b = dump["buffers"][index]
    if b.get("data"):
        return bytes(b["data"])
    offset, size = int(b.get("offset", 0)), int(b.get("size", 0))
    return file_bytes[offset : offset + size] if offset > 1 else b""


@pytest.mark.parametrize("path", TFLITE, ids=lambda p: p.name)
def test_models_read_as_flatc_dumps_them(path):
    dump = flatc_json(path)
    if dump is None:
        pytest.skip("no flatc dump")
    data = path.read_bytes()
    m = flatmodel.open(path)
    assert m.format == path.suffix[1:]
    assert m.version == dump["version"]
    assert len(m.subgraphs) == len(dump["subgraphs"])
    codes = dump["operator_codes"]
    for sg, sg_dump in zip(m.subgraphs, dump["subgraphs"]):
        assert sg.name == sg_dump.get("name")
        assert sg.inputs == tuple(sg_dump["inputs"]) and sg.outputs == tuple(sg_dump["outputs"])
        assert len(sg.tensors) == len(sg_dump["tensors"])
        for t, t_dump in zip(sg.tensors, sg_dump["tensors"]):
            assert t.name == t_dump["name"]
            assert t.shape == tuple(t_dump.get("shape", []))
            assert t.dtype == t_dump["type"].lower()
            assert t.buffer == t_dump["buffer"]
            expected = buffer_bytes(dump, data, t.buffer)
            a = t.numpy()
            if not expected:
                assert a is None
                continue
            assert a.tobytes() == expected
            if t.dtype in ("float32", "int8", "uint8", "int32", "int64", "float16", "int16") and prod(t.shape) * a.itemsize == len(expected):
                assert a.shape == t.shape and a.dtype == np.dtype(t.dtype)
        assert len(sg.operators) == len(sg_dump.get("operators", []))
        for op, op_dump in zip(sg.operators, sg_dump.get("operators", [])):
            assert op.inputs == tuple(op_dump.get("inputs", []))
            assert op.outputs == tuple(op_dump.get("outputs", []))
            assert op.opcode_index == op_dump.get("opcode_index", 0)
            code = codes[op.opcode_index]
            assert op.version == code.get("version", 1)
            if code.get("builtin_code") == "CUSTOM" or code.get("deprecated_builtin_code") == 32:
                assert op.custom and op.name == code.get("custom_code", "")
            elif code.get("builtin_code", "ADD") != "ADD":
                assert op.name == code["builtin_code"]
    assert [s.key for s in m.signatures] == [s.get("signature_key") for s in dump.get("signature_defs", [])]
    assert [e.name for e in m.metadata] == [e.get("name") for e in dump.get("metadata", [])]


def constant_tensor(m):
    """The first tensor of `m` with data, and its data."""
    for sg in m.subgraphs:
        for t in sg.tensors:
            a = t.numpy()
            if a is not None:
                return t, a
    raise AssertionError("no constant tensor")


def test_arrays_share_the_bytes_object_and_keep_it_alive():
    data = (TESTDATA / "tflite" / "sine_float.tflite").read_bytes()
    m = flatmodel.open(data)
    t, a = constant_tensor(m)
    whole = np.frombuffer(data, np.uint8)
    assert np.shares_memory(a, whole)
    assert isinstance(a.base, flatmodel.ArrayData)
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[...] = 0
    expected = a.copy()
    del m, t, whole
    gc.collect()
    assert np.array_equal(a, expected)


def test_arrays_of_a_path_share_one_read_of_the_file():
    path = TESTDATA / "tflite" / "tf_convnet_int8_full.tflite"
    m = flatmodel.open(path)
    whole = np.asarray(m.data())
    for sg in m.subgraphs:
        for t in sg.tensors:
            a = t.numpy()
            if a is not None:
                assert np.shares_memory(a, whole)
                start = a.__array_interface__["data"][0] - whole.__array_interface__["data"][0]
                assert path.read_bytes()[start : start + a.nbytes] == a.tobytes()


def test_mutable_buffers_are_copied_once():
    data = bytearray((TESTDATA / "tflite" / "sine_float.tflite").read_bytes())
    m = flatmodel.open(data)
    _, a = constant_tensor(m)
    before = a.copy()
    data[:] = bytes(len(data))  # the caller's buffer changes; the model's bytes do not
    assert np.array_equal(a, before)
    assert not np.shares_memory(a, np.frombuffer(data, np.uint8))


def test_a_memoryview_of_a_whole_bytes_object_is_borrowed():
    data = (TESTDATA / "tflite" / "sine_float.tflite").read_bytes()
    _, a = constant_tensor(flatmodel.open(memoryview(data)))
    assert np.shares_memory(a, np.frombuffer(data, np.uint8))


def test_mmap_and_memoryview_sources(tmp_path):
    path = TESTDATA / "tflite" / "sine_float.tflite"
    with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        assert flatmodel.verify(mm).ok
        assert flatmodel.open(mm).format == "tflite"
    data = path.read_bytes()
    assert flatmodel.verify(memoryview(data)[0:]).ok
    assert not flatmodel.verify(memoryview(data)[:100]).ok


def test_wrong_types_and_unreadable_paths_raise():
    with pytest.raises(TypeError):
        flatmodel.verify(123)
    with pytest.raises(TypeError):
        flatmodel.open([1, 2])
    with pytest.raises(OSError):
        flatmodel.verify("/nonexistent/model.tflite")
    with pytest.raises(OSError):
        flatmodel.open("/nonexistent/model.tflite")
    with pytest.raises(ValueError):
        flatmodel.verify(b"", runtime="tensorrt")


def test_bad_bytes_give_a_located_error():
    data = (TESTDATA / "tflite" / "sine_float.tflite").read_bytes()
    v = flatmodel.verify(data[:200])
    assert not v.ok and v.format == "tflite"
    assert v.error.offset is not None and v.error.path.startswith("Model")
    assert str(v.error) == v.error.message and v.error.kind
    with pytest.raises(flatmodel.InvalidModel) as raised:
        flatmodel.open(data[:200])
    assert isinstance(raised.value, ValueError)
    assert raised.value.error.kind == v.error.kind and str(raised.value) == str(v.error)
    unknown = flatmodel.verify(b"\x00" * 64)
    assert not unknown.ok and unknown.format is None and unknown.error.kind == "UnknownFormat"


def test_schema_verification():
    schemas = TESTDATA / "schemas"
    for schema in ("features.fbs", "features.bfbs"):
        v = flatmodel.verify(schemas / "features.bin", schema=schemas / schema)
        assert v.ok and v.format == "flatbuffer", v
    bad = (schemas / "features.bin").read_bytes()[:40]
    v = flatmodel.verify(bad, schema=str(schemas / "features.fbs"), root_type="Monster")
    assert not v.ok and v.error.path
    with pytest.raises(ValueError):
        flatmodel.verify(bad, schema=str(schemas / "features.fbs"), root_type="NoSuchTable")


def test_programs_read_as_flatc_dumps_them():
    for path in sorted((TESTDATA / "vkgraph").glob("*.pte")):
        dump = json.loads(path.with_name(path.stem + ".flatc.json").read_text())
        p = flatmodel.open(path)
        assert p.format == "pte" and p.version == dump.get("version", 0)
        assert [plan.name for plan in p.plans] == [e["name"] for e in dump["execution_plan"]]
        for plan, plan_dump in zip(p.plans, dump["execution_plan"]):
            values = plan_dump.get("values", [])
            assert len(plan.values) == len(values)
            for value, value_dump in zip(plan.values, values):
                assert value.kind == value_dump["val_type"]
                if value.kind == "Tensor":
                    assert value.shape == tuple(value_dump["val"].get("sizes", []))
                    a = value.numpy()
                    if a is not None:
                        assert a.nbytes == prod(value.shape) * a.itemsize or a.dtype == np.uint8
            assert plan.delegate_ids == [d["id"] for d in plan_dump.get("delegates", [])]
        for d in p.delegates:
            vk = d.vulkan
            if vk is not None:
                assert len(vk.values) > 0 and len(vk.operators) > 0
                assert d.data().nbytes == d.blob_range[1]


def test_vulkan_blobs_read_as_flatc_dumps_them():
    for path in sorted((TESTDATA / "vkgraph").glob("*.vk00.bin")):
        dump = json.loads(path.with_name(path.name.replace(".bin", ".flatc.json")).read_text())
        blob_path = path.with_name(path.name.replace(".vk00.bin", ".vh00"))
        for source in (path, blob_path):
            if not source.exists():
                continue
            b = flatmodel.open(source)
            assert b.format == "vkgraph"
            assert [op.name for op in b.operators] == [c.get("name") for c in dump.get("chain", [])]
            assert len(b.values) == len(dump.get("values", []))
            assert b.inputs == tuple(dump.get("input_ids", [])) and b.outputs == tuple(dump.get("output_ids", []))
            for v, v_dump in zip(b.values, dump.get("values", [])):
                assert v.kind == v_dump["value_type"]
                if v.kind == "VkTensor":
                    assert v.shape == tuple(v_dump["value"].get("dims", []))
                    if source == blob_path and v.constant_id >= 0:
                        constant = dump["constants"][v.constant_id]
                        if int(constant.get("offset", 0)) != 2**64 - 1:
                            assert v.numpy().nbytes == int(constant["length"])


def test_cvimodels_read_as_flatc_dumps_them():
    for path in sorted((TESTDATA / "cvimodel").glob("*.cvimodel")):
        dump = json.loads(path.with_name(path.stem + ".flatc.json").read_text())
        c = flatmodel.open(path)
        assert c.format == "cvimodel" and c.name == dump["name"]
        assert [s.name for s in c.sections] == [s["name"] for s in dump["sections"]]
        assert [s.kind for s in c.sections] == [s.get("type", "WEIGHT") for s in dump["sections"]]
        for s, s_dump in zip(c.sections, dump["sections"]):
            assert s.data().nbytes == s_dump["size"]
        for w, w_dump in zip(c.weights, dump.get("weight_map", [])):
            assert w.name == w_dump["name"]
            assert w.numpy().nbytes == w_dump["size"]
        assert len(c.programs) == len(dump["programs"])


def test_nnpackages_give_their_models(tmp_path):
    model = (TESTDATA / "tflite" / "sine_float.tflite").read_bytes()
    manifest = {"major-version": "1", "minor-version": "3", "patch-version": "0", "models": ["m.tflite"], "model-types": ["tflite"]}
    package = tmp_path / "pkg"
    (package / "metadata").mkdir(parents=True)
    (package / "metadata" / "MANIFEST").write_text(json.dumps(manifest))
    (package / "m.tflite").write_bytes(model)
    archive = tmp_path / "pkg.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("metadata/MANIFEST", json.dumps(manifest))
        z.writestr("m.tflite", model)
    for source, container in ((package, "directory"), (archive, "zip")):
        v = flatmodel.verify(source)
        assert v.ok and v.format == "nnpackage", v
        p = flatmodel.open(source)
        assert p.container == container and p.model_paths == ["m.tflite"] and p.version == (1, 3)
        [m] = p.models
        assert m.format == "tflite" and len(m.subgraphs[0].tensors) == 10
    empty = tmp_path / "empty"
    empty.mkdir()
    assert not flatmodel.verify(empty).ok
    with pytest.raises(flatmodel.InvalidModel):
        flatmodel.open(empty)


def test_lazy_sequences_index_like_lists():
    m = flatmodel.open(TESTDATA / "tflite" / "sine_float.tflite")
    tensors = m.subgraphs[0].tensors
    assert len(list(tensors)) == len(tensors) == 10
    assert tensors[-1].index == 9 and tensors[0].index == 0
    with pytest.raises(IndexError):
        tensors[10]
    with pytest.raises(TypeError):
        tensors["a"]


def test_threads_verify_and_open_the_same_bytes_at_once():
    from concurrent.futures import ThreadPoolExecutor

    data = (TESTDATA / "tflite" / "tf_convnet_int8_full.tflite").read_bytes()
    expected = flatmodel.verify(data)

    def one(_):
        v = flatmodel.verify(data)
        m = flatmodel.open(data)
        return v.ok, v.warnings, len(m.subgraphs[0].tensors)

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(one, range(32)))
    assert results == [(expected.ok, expected.warnings, len(flatmodel.open(data).subgraphs[0].tensors))] * 32


def flatc_json_with_bare_floats(path: Path):
    """flatc's dump at `path`, whose bare ``inf``/``-inf``/``nan`` JSON cannot hold read as Python's."""
    text = re.sub(r"(?<=[\s:\[,])(-?)(inf|nan)(?=[\s,\]}])", lambda m: '"' + m.group(1) + m.group(2) + '"', path.read_text())
    return json.loads(text)


XNNPACK = sorted((TESTDATA / "xnnpack").glob("*.xh00")) + sorted((TESTDATA / "ptd").glob("*.xh00"))
SCHEMES = {
    "PerTensorQuant": "per_tensor",
    "PerChannelQuant": "per_channel",
    "PerChannelGroupQuant": "per_channel_group",
    "PerTokenDynamicQuant": "per_token_dynamic",
}


def check_xnnpack_graph(b, dump):
    """`b` (an XnnpackBlob) against flatc's dump of its XNNGraph."""
    assert [n.kind for n in b.nodes] == [n["xnode_union_type"] for n in dump["xnodes"]]
    assert [n.debug_handle for n in b.nodes] == [n.get("debug_handle", 0) for n in dump["xnodes"]]
    assert b.inputs == tuple(dump.get("input_ids", [])) and b.outputs == tuple(dump.get("output_ids", []))
    assert b.constant_count == len(dump.get("constant_data", []))
    assert len(b.values) == len(dump["xvalues"])
    for v, v_dump in zip(b.values, dump["xvalues"]):
        assert v.kind == v_dump["xvalue_union_type"]
        quantized = v.kind == "XNNQuantizedTensorValue"
        t = v_dump["xvalue_union"]["tensor_value"] if quantized else v_dump["xvalue_union"]
        assert v.dtype == t["datatype"].removeprefix("xnn_datatype_")
        assert v.shape == tuple(t.get("dims", []))
        assert v.id == t.get("id_out", 0)
        assert v.constant_index == (t.get("constant_buffer_idx") or None)
        q = v.quantization()
        if quantized:
            assert q["scheme"] == SCHEMES[v_dump["xvalue_union"]["quant_params_type"]]
            if "group_size" in q:
                assert q["group_size"] == v_dump["xvalue_union"]["quant_params"]["group_size"]
        else:
            assert q is None


def test_xnnpack_blobs_read_as_flatc_dumps_them():
    checked = 0
    for path in XNNPACK:
        dump = flatc_json_with_bare_floats(path.with_name(path.name.replace(".xh00", ".xn.flatc.json")))
        blob_bytes = path.read_bytes()
        # The constant region's offset, read from the XH00 header (u32 at byte 18).
        region = int.from_bytes(blob_bytes[18:22], "little")
        for source in (path, path.with_name(path.name.replace(".xh00", ".xn.bin"))):
            b = flatmodel.open(source)
            assert b.format == "xnnpack" and b.has_header == (source == path)
            check_xnnpack_graph(b, dump)
            for i, entry in enumerate(dump.get("constant_data", [])):
                offset, size = int(entry.get("offset", 0)), int(entry.get("size", 0))
                if entry.get("named_key"):
                    assert offset == 2**64 - 1
                    assert b.constant_key(i) == entry["named_key"] and b.constant(i) is None
                elif source == path:
                    assert b.constant_key(i) is None
                    assert bytes(b.constant(i)) == blob_bytes[region + offset : region + offset + size]
            checked += 1
    assert checked >= 16


def test_xnnpack_programs_read_their_delegates_and_weights():
    checked = 0
    for path in sorted((TESTDATA / "xnnpack").glob("*.pte")) + sorted((TESTDATA / "ptd").glob("*.pte")):
        p = flatmodel.open(path)
        named = set(p.named_data_keys)
        for n, d in enumerate(p.delegates):
            assert d.id == "XnnpackBackend" and d.vulkan is None
            b = d.xnnpack
            blob_file = path.with_name(f"{path.stem}.delegate{n}.xh00")
            assert bytes(d.data()) == blob_file.read_bytes()
            dump = flatc_json_with_bare_floats(blob_file.with_name(blob_file.name.replace(".xh00", ".xn.flatc.json")))
            check_xnnpack_graph(b, dump)
            for v in b.values:
                if v.constant_index is None:
                    assert v.numpy() is None
                    continue
                entry = dump["constant_data"][v.constant_index]
                key = entry.get("named_key")
                if key and key not in named:
                    assert v.numpy() is None  # in the program's .ptd, not this file
                else:
                    assert v.numpy().nbytes == int(entry["size"])
                    if key:
                        assert bytes(v.numpy()) == bytes(p.named_data(key))[: int(entry["size"])]
            checked += 1
    assert checked >= 9


def test_ptd_files_give_their_named_tensors():
    for path in sorted((TESTDATA / "ptd").glob("*.ptd")):
        dump = json.loads(path.with_name(path.name + ".flatc.json").read_text())
        data = path.read_bytes()
        # segment_base_offset: u64 at byte 32 of the FH01 header.
        base = int.from_bytes(data[32:40], "little")
        f = flatmodel.open(path)
        assert f.format == "ptd" and f.version == dump.get("version", 0)
        assert f.keys == [d["key"] for d in dump["named_data"]] and len(f) == len(dump["named_data"])
        assert f.segments == [(base + int(s["offset"]), int(s["size"])) for s in dump["segments"]]
        for d in dump["named_data"]:
            segment = dump["segments"][d.get("segment_index", 0)]
            start = base + int(segment["offset"])
            a = f.named_data(d["key"])
            assert d["key"] in f
            layout = d.get("tensor_layout")
            if layout is None:
                assert f.layout(d["key"]) is None
                assert a.dtype == np.uint8 and bytes(a) == data[start : start + int(segment["size"])]
            else:
                assert layout["scalar_type"] == "FLOAT" and a.dtype == np.float32
                assert a.shape == tuple(layout["sizes"])
                assert bytes(a) == data[start : start + a.nbytes]
                dtype, shape, order = f.layout(d["key"])
                assert (dtype, shape, order) == ("float32", tuple(layout["sizes"]), tuple(layout["dim_order"]))
        assert "no-such-key" not in f
        with pytest.raises(KeyError):
            f.named_data("no-such-key")


def test_programs_verify_with_their_data_files():
    ptd = TESTDATA / "ptd"
    for name in ("ptd_mlp_portable", "ptd_xnnpack_mlp_fp32"):
        program, data = ptd / f"{name}.pte", ptd / f"{name}.ptd"
        data_dump = json.loads(data.with_name(data.name + ".flatc.json").read_text())
        keys = [d["key"] for d in data_dump["named_data"]]
        # Alone, the program is valid and says which keys its .ptd must hold.
        assert flatmodel.verify(program).ok
        assert sorted(k for k, _, _ in flatmodel.open(program).external_keys) == sorted(keys)
        # With its data (as a path, then as bytes), every key resolves.
        assert flatmodel.verify(program, data=[data]).ok
        assert flatmodel.verify(program.read_bytes(), data=[data.read_bytes()]).ok
    # The XNNPACK program with the portable program's data: its first key is missing.
    xnn = ptd / "ptd_xnnpack_mlp_fp32.pte"
    blob_dump = flatc_json_with_bare_floats(ptd / "ptd_xnnpack_mlp_fp32.delegate0.xn.flatc.json")
    first_key = next(c["named_key"] for c in blob_dump["constant_data"] if c.get("named_key"))
    v = flatmodel.verify(xnn, data=[ptd / "ptd_mlp_portable.ptd"])
    assert not v.ok and v.format == "pte" and v.error.kind == "NotFound"
    assert first_key in str(v.error) and "is missing" in str(v.error)
    v = flatmodel.verify(xnn, data=[])
    assert not v.ok and first_key in str(v.error)
    # A data file cut short of its segments is reported as that data file's error.
    cut = (ptd / "ptd_xnnpack_mlp_fp32.ptd").read_bytes()[:-100]
    v = flatmodel.verify(xnn, data=[cut])
    assert not v.ok and str(v.error).startswith("data[0]: ")
    # Not a program, or data that is not a .ptd: the command line's usage errors.
    with pytest.raises(ValueError):
        flatmodel.verify(ptd / "ptd_mlp_portable.ptd", data=[ptd / "ptd_mlp_portable.ptd"])
    with pytest.raises(ValueError):
        flatmodel.verify(xnn, data=[xnn])
    with pytest.raises(ValueError):
        flatmodel.verify(xnn, data=[ptd / "ptd_xnnpack_mlp_fp32.ptd"], runtime="tflm")
    with pytest.raises(TypeError):
        flatmodel.verify(xnn, data=ptd / "ptd_xnnpack_mlp_fp32.ptd")


def test_litertlm_files_give_their_sections():
    for path in sorted((TESTDATA / "litertlm").glob("*.litertlm")):
        told = json.loads(path.with_name(path.stem + ".header.json").read_text())
        data = path.read_bytes()
        f = flatmodel.open(path)
        h = told["header"]
        assert f.format == "litertlm" and f.version == (h["major"], h["minor"], h["patch"])
        assert f.sections == [(s["data_type"], s["begin_offset"], s["end_offset"]) for s in told["sections"]]
        for i, s in enumerate(told["sections"]):
            assert hashlib.sha256(bytes(f.section(i))).hexdigest() == s["sha256"]
            assert bytes(f.section(i)) == data[s["begin_offset"] : s["end_offset"]]
        dump = json.loads(path.with_name(path.stem + ".metadata.flatc.json").read_text())
        entries = dump.get("system_metadata", {}).get("entries", [])
        assert sorted(f.system_metadata()) == sorted({e["key"] for e in entries})
        for e in entries:
            got = f.system_metadata()[e["key"]]
            want = e["value"]["value"] if "value" in e["value"] else None
            if isinstance(got, float):
                assert got == pytest.approx(want, rel=1e-6)
            elif want is not None:
                assert got == want
    with pytest.raises(IndexError):
        f.section(len(f.sections))
