"""Turn validated case specs into :class:`LoadedCase` objects: files resolved, segments built,
evaluators prepared, and every warning of ``validate`` recorded."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

from evalwright.evalfile.case_spec import (
    expected_messages_of,
    input_key,
    input_messages_of,
    plain_key,
    spec_outcome,
)
from evalwright.evalfile.evaluator_specs import CodeSpec, EvaluatorSpec, LlmJudgeSpec, default_judge
from evalwright.evalfile.located import Located, report_at
from evalwright.evalfile.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from evalwright.evalfile.models import (
    EvalCase,
    Execution,
    FileModel,
    PassRule,
    PromptSpec,
    Turn,
    merged_tags,
    raw_field,
)
from evalwright.evalfile.references import FileResolver, ReferenceProblem
from evalwright.evalfile.resolved import (
    CaseMessage,
    Evaluator,
    GuidelineSegment,
    LoadedCase,
    LoadedTurn,
    PromptVariant,
)
from evalwright.evalfile.segments import TEXT_CACHE_SIZE, SegmentBuilder
from evalwright.evalfile.template import Template, TemplateProblem, parse_template
from evalwright.evalfile.tools import ToolDeclarations, Tools, trajectory_check
from evalwright.files.diagnostics import Report
from evalwright.files.source import DataPath
from evalwright.targets.workspace import ResolvedWorkspace, WorkspaceSpec

# One line without spaces or ``{{`` that names a path (a ``/`` or a file extension): meant as a
# file, so it must resolve rather than silently become a one-word inline template.
_TEMPLATE_FILE = re.compile(r"(?!.*\{\{)[^\s]*(/[^\s]*|\.[A-Za-z0-9]+)")
_LEGACY_CASE_KEYS = {
    "outcome": "legacy key 'outcome': use 'expected_outcome'",
    "evaluators": "legacy key 'evaluators': use 'execution.evaluators'",
    "evaluator": "legacy key 'evaluator': use 'execution.evaluators' (llm_judge is the default)",
    "note": "legacy key 'note' is ignored",
}


class CaseBuilder:
    """Builds the cases of one eval file, reporting problems into its report."""

    def __init__(
        self,
        resolver: FileResolver,
        base_dir: str,
        report: Report,
        target_names: set[str] | None = None,
    ) -> None:
        self.resolver = resolver
        self.base_dir = base_dir
        self.report = report
        self.target_names = target_names
        self.tools = ToolDeclarations(resolver, base_dir, report)
        self.file_workspace: ResolvedWorkspace | None = None
        """The file's ``workspace:``, set when its header is read."""
        self.segments = SegmentBuilder(resolver, base_dir, report)
        self.file_execution: Execution | None = None
        """The file's ``execution:`` (its pass rule and rate), set when its header is read."""
        # Whole turns of plain text (a role and one string, no tool fields) repeat across
        # cases, as their texts do: each is built once and shared, immutable like its segment.
        self._plain: dict[tuple[str, str], CaseMessage] = {}

    def error(self, where: Located, message: str, *, key: bool = False) -> None:
        """Report an error at a location (its key with ``key=True``)."""
        report_at(self.report, where, "error", message, key=key)

    def warning(self, where: Located, message: str, *, key: bool = False) -> None:
        """Report a warning at a location (its key with ``key=True``)."""
        report_at(self.report, where, "warning", message, key=key)

    def check_target(self, name: str | None, where: Located) -> None:
        """An explicit target name must be defined in the project's targets file."""
        if name is not None and self.target_names is not None and name not in self.target_names:
            known = ", ".join(sorted(self.target_names)) or "none"
            self.error(where, f"unknown target {name!r} (the targets file defines: {known})")

    def evaluators(self, specs: list[EvaluatorSpec], where: Located) -> tuple[Evaluator, ...]:
        """Prepare a list of evaluators: judge templates parsed, script directories found."""
        return tuple(self._evaluator(spec, where.at(i)) for i, spec in enumerate(specs))

    def _evaluator(self, spec: EvaluatorSpec, where: Located) -> Evaluator:
        if isinstance(spec, LlmJudgeSpec):
            if raw_field(spec, "model") is not None:
                self.warning(
                    where.at("model"),
                    "legacy key 'model' is ignored: the judge is "
                    "its target (set 'target' or the target's judge_target)",
                    key=True,
                )
            self.check_target(spec.target, where.at("target"))
            for index, judge in enumerate(spec.judges or ()):
                self.check_target(judge, where.at("judges", index))
            return Evaluator(spec, template=self._template(spec.prompt, where.at("prompt")))
        if isinstance(spec, CodeSpec):
            cwd = self.base_dir
            if spec.cwd is not None:
                try:
                    cwd = self.resolver.resolve_dir(spec.cwd, self.base_dir)
                except ReferenceProblem as exc:
                    self.error(where.at("cwd"), str(exc))
            return Evaluator(spec, cwd=cwd)
        return Evaluator(spec)

    def _template(self, prompt: str | None, where: Located) -> Template | None:
        if prompt is None:
            return None
        source, text = "inline", prompt
        if _TEMPLATE_FILE.fullmatch(prompt):
            try:
                text = self.resolver.resolve(prompt, self.base_dir, classify=False).content
            except ReferenceProblem as exc:
                self.error(where, str(exc))
                return None
            source = prompt
        try:
            template = parse_template(text, source)
        except TemplateProblem as exc:
            detail = f"{source} line {exc.line}: " if source != "inline" else ""
            self.error(where, f"{detail}{exc}")
            return None
        if "candidate_answer" not in template.variables:
            self.warning(
                where,
                "the template never shows the judge the answer: add {{candidate_answer}}",
            )
        return template

    def build(
        self,
        spec: EvalCase,
        where: Located,
        defaults: tuple[Evaluator, ...],
        file_target: str | None,
        file_tags: Sequence[str] | None = None,
        file_tools: Tools = (),
        *,
        verbatim: bool = False,
    ) -> LoadedCase | None:
        """Build one case; ``None`` when it has an error (already reported). Its tags are
        ``file_tags`` and its own; its tools ``file_tools`` with its own
        (docs/tools.md#declaring-tools). With ``verbatim`` its message text is not tidied
        (a dataset's messages, docs/eval-files.md#foreign-formats)."""
        self.segments.verbatim = verbatim
        try:
            return self._build(spec, where, defaults, file_target, file_tags, file_tools)
        finally:
            self.segments.verbatim = False

    def _build(
        self,
        spec: EvalCase,
        where: Located,
        defaults: tuple[Evaluator, ...],
        file_target: str | None,
        file_tags: Sequence[str] | None,
        file_tools: Tools,
    ) -> LoadedCase | None:
        errors_before = len(self.report.errors)
        self._legacy_warnings(spec, where)
        displays: dict[str, str] = {}
        inputs = tuple(self._messages(input_messages_of(spec), where, "input", displays))
        expected = tuple(self._messages(expected_messages_of(spec), where, "expected", displays))
        evaluators = self._case_evaluators(spec, where, defaults)
        trajectory_check(spec, evaluators, expected, where, self.report)
        turns = self._turns(spec, where, displays)
        offered = self.tools.case_tools(spec, file_tools, where)
        if spec.turns is not None or spec.simulated_user is not None:
            self._history_check(inputs, where, "turns" if spec.turns else "simulated_user")
        elif not any(m.visible for m in inputs) and len(self.report.errors) == errors_before:
            self.error(
                where.at(input_key(spec)),
                "the case has nothing visible to send: every input message is empty",
                key=True,
            )
        else:
            self._conversation_warnings(inputs, where.at(input_key(spec)))
        execution = spec.execution
        self.check_target(execution.target if execution else None, where.at("execution", "target"))
        if spec.simulated_user is not None:
            self.check_target(spec.simulated_user.target, where.at("simulated_user", "target"))
        workspace = self.workspace(spec.workspace, where.at("workspace"))
        rule, rate = _gates(execution, self.file_execution)
        if len(self.report.errors) != errors_before:
            return None
        return LoadedCase(
            id=spec.id,
            expected_outcome=spec_outcome(spec),
            input_messages=inputs,
            expected_messages=expected,
            evaluators=evaluators,
            target=(execution.target if execution and execution.target else file_target),
            conversation_id=spec.conversation_id,
            metadata=spec.metadata,
            tags=merged_tags(file_tags, spec.tags),
            where=where,
            spec=spec,
            repeat=spec.repeat,
            pass_rule=rule,
            pass_rate=rate,
            turns=turns,
            simulated_user=spec.simulated_user,
            tools=offered.tools,
            tool_servers=offered.servers,
            workspace=workspace or self.file_workspace,
        )

    def workspace(self, spec: WorkspaceSpec | None, where: Located) -> ResolvedWorkspace | None:
        """A ``workspace:`` with its directory found (docs/agents.md#workspaces): relative to
        the eval file, inside the project; ``None`` when absent or wrong (reported)."""
        if spec is None:
            return None
        try:
            found = self.resolver.resolve_dir(spec.source, self.base_dir)
        except ReferenceProblem as exc:
            self.error(where.at(spec.kind), str(exc))
            return None
        return ResolvedWorkspace(spec, found)

    def _turns(
        self, spec: EvalCase, where: Located, displays: dict[str, str]
    ) -> tuple[LoadedTurn, ...]:
        """The live turns: each a user message, with its own evaluators
        (docs/conversations.md)."""
        loaded: list[LoadedTurn] = []
        for index, turn in enumerate(spec.turns or ()):
            here = where.at("turns", index)
            content = turn.content if isinstance(turn, Turn) else turn
            message = UserMessage(role="user", content=content)
            segments = tuple(
                self.segments.build(message, here, True, displays, bare=not isinstance(turn, Turn))
            )
            if not any(not isinstance(s, GuidelineSegment) for s in segments):
                self.error(here, "the turn has nothing visible to send: its content is empty")
            evaluators: tuple[Evaluator, ...] = ()
            if isinstance(turn, Turn) and turn.evaluators is not None:
                evaluators = self.evaluators(turn.evaluators, here.at("evaluators"))
            loaded.append(LoadedTurn(CaseMessage("user", segments), evaluators))
        return tuple(loaded)

    def _history_check(self, inputs: tuple[CaseMessage, ...], where: Located, key: str) -> None:
        """With ``turns:``, the input messages are what comes before the first turn: a last
        user message would be a second question the target never answers."""
        visible = [i for i, m in enumerate(inputs) if m.visible]
        if visible and inputs[visible[-1]].role == "user":
            self.error(
                where.at("input_messages", visible[-1]),
                f"with '{key}', input_messages holds only what comes before the first turn "
                "and must not end with a user message: make it the first turn",
            )

    def _case_evaluators(
        self, spec: EvalCase, where: Located, defaults: tuple[Evaluator, ...]
    ) -> tuple[Evaluator, ...]:
        if spec.execution and spec.execution.evaluators is not None:
            return self.evaluators(spec.execution.evaluators, where.at("execution", "evaluators"))
        legacy = raw_field(spec, "evaluators")
        if isinstance(legacy, list):
            return self.evaluators(legacy, where.at("evaluators"))  # pyright: ignore[reportUnknownArgumentType]
        if raw_field(spec, "evaluator") is not None:
            return (Evaluator(default_judge()),)
        return defaults

    def variants(
        self, prompts: Mapping[str, PromptSpec], where: Located
    ) -> tuple[PromptVariant, ...]:
        """A file's ``prompts:`` as variants, their messages built as a case's are: a text is
        one system message (docs/eval-files.md#prompt-variants)."""
        found: list[PromptVariant] = []
        for name, spec in prompts.items():
            given: list[tuple[Message, DataPath]]
            if isinstance(spec, str):
                given = [(SystemMessage(role="system", content=spec), (name,))]
            else:
                given = [(m, (name, "messages", i)) for i, m in enumerate(spec.messages)]
            built = tuple(self._messages(given, where, "input", {}))
            found.append(PromptVariant(name, built))
        return tuple(found)

    def _legacy_warnings(self, spec: FileModel, where: Located) -> None:
        for key, message in _LEGACY_CASE_KEYS.items():
            if raw_field(spec, key) is not None:
                self.warning(where.at(key), message, key=True)

    def _messages(
        self,
        messages: list[tuple[Message, DataPath]],
        where: Located,
        kind: str,
        displays: dict[str, str],
    ) -> Iterator[CaseMessage]:
        for message, path in messages:
            plain = None if self.segments.verbatim else plain_key(message)
            if plain is not None and (shared := self._plain.get(plain)) is not None:
                yield shared
                continue
            here = where.at(*path)
            segments = tuple(self.segments.build(message, here, kind == "input", displays))
            if isinstance(message, AssistantMessage):
                if message.tool_calls:
                    self._duplicate_call_ids(message, here.at("tool_calls"))
                built = CaseMessage(
                    "assistant", segments, tuple(message.tool_calls or ()), name=message.name
                )
            elif isinstance(message, ToolMessage):
                built = CaseMessage(
                    "tool", segments, tool_call_id=message.tool_call_id, name=message.name
                )
            else:
                built = CaseMessage(message.role, segments, name=message.name)
            if plain is not None and segments and self.segments.shared(plain[1], segments[0]):
                # Only a turn whose text was shared (it warned of nothing) is shared in turn.
                if len(self._plain) >= TEXT_CACHE_SIZE:
                    self._plain.clear()
                self._plain[plain] = built
            yield built

    def _duplicate_call_ids(self, message: AssistantMessage, where: Located) -> None:
        # The first id's line is looked up only for a duplicate: a YAML file's positions this
        # deep are composed only when a diagnostic needs one.
        first: dict[str, Located] = {}
        for index, call in enumerate(message.tool_calls or ()):
            here = where.at(index, "id")
            seen = first.get(call.id)
            if seen is None:
                first[call.id] = here
                continue
            line = seen.positions.line(seen.path)
            self.error(here, f"duplicate tool call id {call.id!r} (first at line {line})")

    def _conversation_warnings(self, inputs: tuple[CaseMessage, ...], where: Located) -> None:
        if not any(m.role == "user" for m in inputs):
            self.warning(where, "the conversation has no user turn", key=True)
        # A tool result is always sent, even an empty one: it is the last turn then.
        sent = [m for m in inputs if m.visible or m.role == "tool"]
        if sent and sent[-1].role == "assistant":
            self.warning(where, prefill_warning(), key=True)


def prefill_warning() -> str:
    """Which APIs continue a conversation's last assistant turn (their kinds' rows say)."""
    from evalwright.targets.kinds import prefill_vendors

    vendors = prefill_vendors()
    who = " and ".join(vendors) + (" continues" if len(vendors) == 1 else " continue")
    return (
        f"the conversation ends with an assistant turn: {who} it as a prefill, "
        "other APIs answer after it"
    )


def _gates(case: Execution | None, file: Execution | None) -> tuple[PassRule | None, float | None]:
    """The case's pass rule and pass rate: its ``execution``'s, else its file's, else
    ``None`` (the run's then applies; docs/eval-files.md#pass-rules)."""
    rule: PassRule | None = None
    rate: float | None = None
    for execution in (file, case):  # the case's, when given, wins
        if execution is not None:
            rule = execution.pass_rule or rule
            rate = rate if execution.pass_rate is None else execution.pass_rate
    return rule, rate
