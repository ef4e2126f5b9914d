"""Shared test helpers: where the test files are, and the command line to compare with."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TESTDATA = REPO / "testdata"
CORPUS = Path(os.environ["FLATMODEL_CORPUS"]) if os.environ.get("FLATMODEL_CORPUS") else None

# Reference dumps and notes beside the models: not inputs of their own.
NOT_MODELS = (".json", ".json.gz", ".txt", ".md", ".fbs", ".bfbs")


def model_files(root):
    """Every file under `root` that is not a reference dump, sorted; directories holding an
    nnpackage MANIFEST count as files."""
    found = []
    for path in sorted(Path(root).rglob("*")):
        if path.is_dir() and (path / "metadata" / "MANIFEST").exists():
            found.append(path)
        elif path.is_file() and not path.name.endswith(NOT_MODELS) and "metadata" not in path.parts:
            found.append(path)
    return found


def cli_binary():
    """The `flatmodel` command line: $FLATMODEL_CLI, else a build in the workspace's target
    directory ($CARGO_TARGET_DIR or target/), else one on PATH; None when there is none."""
    if os.environ.get("FLATMODEL_CLI"):
        return os.environ["FLATMODEL_CLI"]
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("release", "debug"):
        candidate = target / profile / "flatmodel"
        if candidate.exists():
            return str(candidate)
    return shutil.which("flatmodel")


@pytest.fixture(scope="session")
def cli():
    """A function running `flatmodel verify [ARGS] FILES` once over many files: for each file,
    ("ok" | "invalid" | "error", reason, warnings)."""
    binary = cli_binary()
    if binary is None:
        pytest.skip("no flatmodel command line built (set FLATMODEL_CLI)")

    def run(files, *args):
        names = [str(f) for f in files]
        out = subprocess.run(
            [binary, "verify", *args, *names], capture_output=True, text=True, check=False
        ).stdout
        verdicts = {}
        for name in names:
            verdicts[name] = parse(out, name)
        return verdicts

    return run


def parse(out, name):
    """The verdict the command line printed for `name`."""
    status, reason, warnings = None, None, []
    for line in out.splitlines():
        for kind in ("ok", "invalid", "error", "warning"):
            prefix = f"{name}: {kind}"
            if not line.startswith(prefix):
                continue
            rest = line[len(prefix):]
            if kind == "ok" and rest.startswith(" ("):
                status = "ok"
            elif kind in ("invalid", "error") and rest.startswith(": "):
                status, reason = kind, rest[2:]
            elif kind == "warning" and rest.startswith(": "):
                warnings.append(rest[2:])
    return status, reason, warnings
