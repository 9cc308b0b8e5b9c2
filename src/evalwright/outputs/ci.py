"""Writing a finished run's outputs for CI (docs/running.md#ci-outputs): the JUnit XML file,
the Markdown summary, and GitHub's job summary."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from evalwright.orchestrator.summary import RunSummary
from evalwright.outputs.outcome import check_output_path, results_rows, write_text

STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


@dataclass(frozen=True, slots=True)
class CiOutputs:
    """Where to write: ``--junit``, ``--summary-md``, and the file GitHub names in
    ``GITHUB_STEP_SUMMARY`` (appended to, as GitHub expects)."""

    junit: Path | None = None
    summary_md: Path | None = None
    step_summary: Path | None = None

    @classmethod
    def checked(
        cls,
        junit: str | os.PathLike[str] | None,
        summary_md: str | os.PathLike[str] | None,
        environ: Mapping[str, str],
    ) -> CiOutputs:
        """The outputs asked for, each path checked before the run starts (a configuration
        error when a file cannot be written there)."""
        step = environ.get(STEP_SUMMARY) or None
        return cls(
            junit=check_output_path(junit, "--junit") if junit else None,
            summary_md=check_output_path(summary_md, "--summary-md") if summary_md else None,
            step_summary=check_output_path(step, STEP_SUMMARY) if step else None,
        )

    def write(self, summary: RunSummary) -> None:
        """Write each output from the run's results file (its final row per case and target)."""
        if not (self.junit or self.summary_md or self.step_summary):
            return
        # Imported here: every run checks its outputs at start-up, few write them, and the
        # XML writer alone is a tenth of the time to the first request.
        from evalwright.outputs.junit import junit_xml
        from evalwright.outputs.markdown import summary_markdown

        rows = results_rows(summary.results_path)
        if self.junit:
            write_text(self.junit, junit_xml(rows, summary.pass_mark), "--junit")
        markdown = summary_markdown(summary, rows)
        if self.summary_md:
            write_text(self.summary_md, markdown, "--summary-md")
        if self.step_summary:
            write_text(self.step_summary, markdown, STEP_SUMMARY, append=True)
