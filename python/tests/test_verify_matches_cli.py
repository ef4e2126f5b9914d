"""`flatmodel.verify` gives the command line's verdict on every file of testdata and the corpus
(its corrupted files included): the same validity, the same reason, the same warnings."""

import pytest

import flatmodel
from conftest import CORPUS, TESTDATA, model_files

SHOWN = 100  # how many warnings the command line prints before "... and N more"


def roots():
    yield TESTDATA
    if CORPUS is not None:
        yield CORPUS


def check_same(cli_verdicts, runtime=None):
    assert cli_verdicts, "no files compared"
    for name, (status, reason, cli_warnings) in cli_verdicts.items():
        try:
            v = flatmodel.verify(name, runtime=runtime)
        except OSError:
            assert status == "error", name
            continue
        if v.ok:
            assert status == "ok", (name, status, reason)
            expected = v.warnings[:SHOWN]
            if len(v.warnings) > SHOWN:
                expected.append(f"... and {len(v.warnings) - SHOWN} more")
            assert cli_warnings == expected, name
        else:
            # The command line reports an inapplicable --runtime as a usage error.
            assert status == ("error" if v.error.kind == "RuntimeNotApplicable" else "invalid"), (name, status)
            assert reason == str(v.error), name


@pytest.mark.parametrize("root", list(roots()), ids=str)
def test_every_file_has_the_command_lines_verdict(cli, root):
    files = model_files(root)
    check_same(cli(files))


@pytest.mark.parametrize("root", list(roots()), ids=str)
def test_runtime_checks_have_the_command_lines_verdict(cli, root):
    files = [f for f in model_files(root) if f.suffix == ".tflite"]
    for runtime in ("tflm", "litert"):
        check_same(cli(files, "--runtime", runtime), runtime=runtime)


def test_bytes_give_the_verdict_of_the_path():
    for path in model_files(TESTDATA):
        if path.is_dir():
            continue
        data = path.read_bytes()
        by_path = flatmodel.verify(path)
        for source in (data, bytearray(data), memoryview(data)):
            v = flatmodel.verify(source)
            assert (v.ok, v.format, v.warnings) == (by_path.ok, by_path.format, by_path.warnings), path
            assert str(v.error) == str(by_path.error), path


def test_corrupted_corpus_files_are_invalid():
    if CORPUS is None:
        pytest.skip("FLATMODEL_CORPUS is not set")
    broken = [CORPUS / "tflite/invalid/litert_java_invalid_model.tflite", CORPUS / "tflite/invalid/litert_test_model_broken.tflite"]
    for path in broken:
        v = flatmodel.verify(path)
        assert not v.ok and v.error is not None, path
        with pytest.raises(flatmodel.InvalidModel):
            flatmodel.open(path)
