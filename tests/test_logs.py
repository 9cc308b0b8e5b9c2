"""Log lines for ``-v``: redacted by every running run's redactor, one line each, no control
character; the logger left as it was."""

from __future__ import annotations

import asyncio
import logging

from evalwright import logs
from evalwright.redact import Redactor, redacting

logger = logging.getLogger("evalwright.tests")


def test_each_line_is_redacted_escaped_and_kept_on_one_line() -> None:
    lines: list[str] = []
    with logs.verbose(logging.INFO, lines.append, Redactor(["sk-from-the-env-123"])):
        with redacting(Redactor(["sk-from-the-run-456"])):
            logger.info("keys %s and %s", "sk-from-the-env-123", "sk-from-the-run-456")
            logger.warning("\x1b]0;title\x07two\nlines\u202e")
        logger.info("after the run: %s", "sk-from-the-run-456")
        logger.debug("not shown at INFO")
    assert lines == [
        "INFO evalwright.tests: keys [REDACTED] and [REDACTED]",
        "WARNING evalwright.tests: \\x1b]0;title\\x07two\\nlines\\u202e",
        "INFO evalwright.tests: after the run: sk-from-the-run-456",
    ]


def test_the_logger_is_left_as_it_was() -> None:
    root = logging.getLogger("evalwright")
    before = (root.level, list(root.handlers))
    with logs.verbose(logging.DEBUG, print):
        assert root.level == logging.DEBUG
    assert (root.level, root.handlers) == before
    assert any(isinstance(h, logging.NullHandler) for h in root.handlers)


def test_a_line_names_the_case_of_the_task_that_logged_it() -> None:
    lines: list[str] = []

    async def case(label: str) -> None:
        logs.set_context(label)
        await asyncio.sleep(0)
        logger.info("%sasking", logs.context())

    async def both() -> None:
        await asyncio.gather(case("a on t"), case("b on u"))

    with logs.verbose(logging.INFO, lines.append):
        asyncio.run(both())
        logger.info("%soutside", logs.context())
    assert sorted(lines) == [
        "INFO evalwright.tests: a on t: asking",
        "INFO evalwright.tests: b on u: asking",
        "INFO evalwright.tests: outside",
    ]
