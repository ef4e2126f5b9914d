"""Model bundles (zip archives of models that are no nnpackage, such as MediaPipe's `.task`):
`flatmodel.verify` recognises them by content, by path and as bytes, and names a failing
member; `open` gives their members. testdata/bundle/make.py made the archives from testdata models."""

import zipfile

import pytest

import flatmodel
from conftest import TESTDATA

BUNDLES = TESTDATA / "bundle"


def test_a_bundle_verifies_by_path_and_as_bytes():
    path = BUNDLES / "two_models_stored.task"
    for source in (str(path), path.read_bytes()):
        v = flatmodel.verify(source)
        assert v.ok and v.format == "bundle" and v.error is None, v


def test_a_corrupt_member_is_named_and_located_in_it():
    path = BUNDLES / "corrupt_member.task"
    with zipfile.ZipFile(path) as z:
        member = z.read("hand_detector.tflite")
    expected = flatmodel.verify(member)  # the member alone, as a model file
    assert not expected.ok
    v = flatmodel.verify(str(path))
    assert not v.ok and v.format == "bundle"
    assert v.error.kind == expected.error.kind
    assert v.error.offset == expected.error.offset
    assert v.error.path == expected.error.path
    assert str(v.error).startswith(f"hand_detector.tflite: TFLite: {expected.error}, archive byte ")


def test_a_bundle_is_named_by_its_content_not_its_name(tmp_path):
    renamed = tmp_path / "model.tflite"
    renamed.write_bytes((BUNDLES / "llm_deflated.task").read_bytes())
    assert flatmodel.verify(str(renamed)).format == "bundle"
    doc = flatmodel.inspect(str(renamed))
    assert doc["format"] == "bundle"
    assert [m["name"] for m in doc["members"]] == ["TF_LITE_PREFILL_DECODE", "TOKENIZER_MODEL", "METADATA"]
    assert [m["type"] for m in doc["members"]] == ["tflite", None, None]


def test_open_gives_the_members_as_open_gives_their_files():
    path = BUNDLES / "llm_deflated.task"
    with zipfile.ZipFile(path) as z:
        expected = [(i.filename, i.file_size) for i in z.infolist()]
        model_bytes = z.read("TF_LITE_PREFILL_DECODE")
    for source in (str(path), path.read_bytes()):
        b = flatmodel.open(source)
        assert isinstance(b, flatmodel.Bundle) and b.format == "bundle"
        assert list(zip(b.member_names, b.member_sizes)) == expected
        assert b.member_types == ["tflite", None, None]
        model, tokenizer, metadata = b.members
        assert tokenizer is None and metadata is None
        alone = flatmodel.open(model_bytes)
        assert isinstance(model, flatmodel.Model)
        assert [t.name for t in model.subgraphs[0].tensors] == [t.name for t in alone.subgraphs[0].tensors]
        compared = 0
        for mine, theirs in zip(model.subgraphs[0].tensors, alone.subgraphs[0].tensors):
            a, b = mine.numpy(), theirs.numpy()
            if b is None:
                assert a is None
            else:
                assert a.tobytes() == b.tobytes()
                compared += 1
        assert compared > 0


def test_open_refuses_a_bundle_with_a_corrupt_member():
    path = BUNDLES / "corrupt_member.task"
    with pytest.raises(flatmodel.InvalidModel) as raised:
        flatmodel.open(str(path))
    assert str(raised.value).startswith("hand_detector.tflite: TFLite: ")
    assert raised.value.error.offset == flatmodel.verify(str(path)).error.offset
