"""The documented Dask example (`examples/python-dask/scan_tree.py`) on a local cluster of two
worker processes, one task per file: over the corpus (testdata without it), every result equals the
line `flatmodel scan` prints for the same file, and the example's exit status is the command
line's."""

import importlib.util
import json
import subprocess

import pytest

from conftest import CORPUS, REPO, TESTDATA, cli_binary

distributed = pytest.importorskip("dask.distributed")

spec = importlib.util.spec_from_file_location("scan_tree", REPO / "examples" / "python-dask" / "scan_tree.py")
scan_tree = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scan_tree)


def test_a_two_worker_cluster_gives_the_command_lines_verdicts():
    binary = cli_binary()
    if binary is None:
        pytest.skip("no flatmodel command line built (set FLATMODEL_CLI)")
    root = str(CORPUS if CORPUS is not None else TESTDATA)
    items = scan_tree.items_under(root)
    assert len(items) >= 10
    cli = subprocess.run([binary, "scan", *items], capture_output=True, text=True, check=False)
    expected = {line["path"]: line for line in map(json.loads, cli.stdout.splitlines())}
    assert sorted(expected) == sorted(items)

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        results = list(scan_tree.scan_tree(root, client))

    assert len(results) == len(items)
    for result in results:
        assert result == expected[result["path"]], result["path"]
    status = max(scan_tree.exit_status(r) for r in results)
    assert status == cli.returncode
    assert {r["verdict"] for r in results} >= {"valid", "invalid"}
