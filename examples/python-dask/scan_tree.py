"""Scan a directory tree for model files with Dask's distributed scheduler, one task per file.

Each task calls ``flatmodel.scan`` on one path inside a worker process, so a hostile file costs one
task's bounded work and never the driver. The results are printed as JSON lines, the same objects
``flatmodel scan`` prints, and the exit status is the command line's: 0 every file clean, 1 a finding,
an invalid model or an unknown format, 2 a file that could not be read.

    python examples/python-dask/scan_tree.py DIR                  # a local cluster of 2 workers
    python examples/python-dask/scan_tree.py DIR --workers 8
    python examples/python-dask/scan_tree.py DIR --scheduler tcp://10.0.0.5:8786

An nnpackage directory (one holding ``metadata/MANIFEST``) is one item, as the command line reads it;
every other regular file below DIR is one item. Symbolic links are not followed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Iterator

import flatmodel


def items_under(root: str) -> list[str]:
    """Every path to scan below ``root``, sorted: nnpackage directories whole, regular files."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        if os.path.isfile(os.path.join(dirpath, "metadata", "MANIFEST")):
            found.append(dirpath)
            dirnames[:] = []
            continue
        for name in filenames:
            path = os.path.join(dirpath, name)
            if os.path.isfile(path) and not os.path.islink(path):
                found.append(path)
    return sorted(found)


def scan_one(path: str) -> dict:
    """One task: ``flatmodel.scan`` of ``path``; an unreadable file is a result, not a failure."""
    try:
        return flatmodel.scan(path)
    except OSError as e:
        return {"path": path, "verdict": "unreadable", "error": {"message": str(e)}, "findings": []}


def exit_status(result: dict) -> int:
    """The command line's status for one result: 0 clean, 1 a finding or not valid, 2 unreadable."""
    if result.get("verdict") == "unreadable":
        return 2
    return 0 if result.get("verdict") == "valid" and not result.get("findings") else 1


def scan_tree(root: str, client) -> Iterator[dict]:
    """The results of scanning every item under ``root`` on ``client``'s cluster, as they finish."""
    from dask.distributed import as_completed

    futures = client.map(scan_one, items_under(root), pure=False)
    for future in as_completed(futures):
        yield future.result()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", help="the directory tree to scan")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of a local cluster")
    parser.add_argument("--scheduler", help="the address of a running Dask scheduler instead")
    args = parser.parse_args(argv)

    from dask.distributed import Client, LocalCluster

    if args.scheduler:
        client, cluster = Client(args.scheduler), None
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    status = 0
    try:
        for result in scan_tree(args.root, client):
            print(json.dumps(result, sort_keys=True))
            status = max(status, exit_status(result))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
