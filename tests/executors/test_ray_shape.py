"""The issue's own shape on a real two-node Ray cluster (docs/scale.md): 200 ``cli`` cases of
1 s, each declaring ``num_cpus: 1``, over 2 + 2 slots. Every case runs, the rows name both
nodes, and the cases take within 20% of 200 s divided by the slots."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest

from tests.conftest import ProjectDir, run_cli
from tests.executors.ray_cluster import Cluster, agent_project, read_rows, require_ray, two_nodes

require_ray()

SLOTS = 2
"""CPUs of each node: with more, Ray's own processes on this 2-core machine take the time."""
CASES = 200


@pytest.fixture(scope="module")
def small_cluster() -> Iterator[Cluster]:
    with two_nodes(SLOTS, SLOTS) as started:
        yield started


def test_200_cases_of_one_second_take_their_slots_time(
    project: ProjectDir, small_cluster: Cluster
) -> None:
    agent_project(project, CASES, sleep=1)
    out = project.root / "r.jsonl"
    started = time.perf_counter()
    result = run_cli(
        "eval",
        project.root / "evals",
        "--target",
        "agent",
        "--executor",
        "ray",
        "--ray-address",
        small_cluster.address,
        "--workers",
        str(4 * SLOTS),
        "--out",
        out,
    )
    wall = time.perf_counter() - started
    assert result.code == 0, result.err
    rows = read_rows(out)
    assert len(rows) == CASES
    assert len({row["node"] for row in rows}) == 2
    # From the first case's start (its finish less its second) to the last finish: the run's
    # wall less joining the cluster and sending the project, which a longer suite amortizes.
    finishes = sorted(datetime.fromisoformat(row["timestamp"]) for row in rows)
    cases = (finishes[-1] - (finishes[0] - timedelta(seconds=1))).total_seconds()
    ideal = CASES * 1 / (2 * SLOTS)
    print(f"wall {wall:.1f} s, cases {cases:.1f} s, ideal {ideal:.1f} s")
    assert cases <= ideal * 1.2
