"""`flatmodel.inspect` and `flatmodel.scan` give the documents the command line prints
(`flatmodel inspect --json`, `flatmodel scan`) on every file of testdata and the corpus, read by
path and as bytes; their errors are Python's."""

import json
import subprocess

import pytest

import flatmodel
from conftest import CORPUS, TESTDATA, cli_binary, model_files


def roots():
    yield TESTDATA
    if CORPUS is not None:
        yield CORPUS


def run_cli(*args):
    binary = cli_binary()
    if binary is None:
        pytest.skip("no flatmodel command line built (set FLATMODEL_CLI)")
    return subprocess.run([binary, *args], capture_output=True, text=True, check=False)


@pytest.mark.parametrize("root", list(roots()), ids=str)
def test_scan_gives_the_command_lines_line_for_every_file(root):
    files = model_files(root)
    out = run_cli("scan", *map(str, files)).stdout.splitlines()
    assert len(out) == len(files)
    verdicts = set()
    for path, line in zip(files, out):
        expected = json.loads(line)
        assert expected["path"] == str(path)
        assert flatmodel.scan(str(path)) == expected, path
        verdicts.add(expected["verdict"])
        if path.is_file():
            by_bytes = flatmodel.scan(path.read_bytes())
            assert by_bytes == dict(expected, path=None), path
    assert "valid" in verdicts


@pytest.mark.parametrize("root", list(roots()), ids=str)
def test_inspect_gives_the_command_lines_document_for_every_valid_file(root):
    compared = 0
    for path in model_files(root):
        tensors = compared % 2 == 1  # both forms, over different files
        args = ["inspect", "--json"] + (["--tensors"] if tensors else []) + [str(path)]
        result = run_cli(*args)
        if result.returncode == 1:
            with pytest.raises(flatmodel.InvalidModel) as raised:
                flatmodel.inspect(path, tensors=tensors)
            assert f"{path}: invalid: {raised.value}" in result.stdout + result.stderr, path
            assert isinstance(raised.value.error, flatmodel.ModelError)
            continue
        assert result.returncode == 0, (path, result.stderr)
        expected = json.loads(result.stdout)
        assert flatmodel.inspect(path, tensors=tensors) == expected, path
        if path.is_file():
            assert flatmodel.inspect(path.read_bytes(), tensors=tensors) == expected, path
        compared += 1
    assert compared >= 10


def test_scan_never_raises_on_bad_bytes_and_reports_the_verdict():
    assert flatmodel.scan(b"")["verdict"] == "unknown-format"
    data = (TESTDATA / "tflite" / "sine_float.tflite").read_bytes()
    cut = flatmodel.scan(data[: len(data) // 2])
    assert cut["verdict"] == "invalid" and cut["format"] == "tflite"
    assert cut["error"]["offset"] == flatmodel.verify(data[: len(data) // 2]).error.offset
    whole = flatmodel.scan(bytearray(data))
    assert whole["verdict"] == "valid" and whole["format"] == "tflite"


def test_unreadable_paths_and_wrong_types_raise(tmp_path):
    missing = tmp_path / "missing.tflite"
    with pytest.raises(OSError):
        flatmodel.scan(missing)
    with pytest.raises(OSError):
        flatmodel.inspect(str(missing))
    with pytest.raises(TypeError):
        flatmodel.scan(42)
    with pytest.raises(flatmodel.InvalidModel):
        flatmodel.inspect(b"not a model at all")
