"""The plan's work items read again (docs/batch.md#memory): batch mode keeps only each batched
case's row key while its batch runs, and reads the case again when its answer is back, so that
memory does not grow with the suite."""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator, Sequence

from evalwright.evalfile.loader import SuiteReader
from evalwright.evalfile.resolved import LoadedCase
from evalwright.orchestrator.plan import Plan, WorkItem, work_key
from evalwright.results.index import RowKey


def reread(plan: Plan, wanted: Container[RowKey]) -> Iterator[WorkItem]:
    """The items of ``plan`` whose row key is in ``wanted``, in plan order: a file read whole
    (and a suite built in Python) is in memory already; a streamed JSONL file is read again.
    A case that can no longer be read is not yielded."""
    for source in plan.sources:
        info = source.info
        cases: Iterable[LoadedCase] = source.cases
        if not isinstance(cases, Sequence):
            cases = SuiteReader(info.path, plan.project, info.resolver).cases()
        for case in cases:
            for item in plan.runs_of(info, case):
                if work_key(item) in wanted:
                    yield item
