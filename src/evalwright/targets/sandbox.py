"""``sandbox:``, what an agent's command and its workspace checks run inside
(docs/agents.md#sandboxes): ``none`` (as they are, on this machine) or ``bwrap``
(bubblewrap: the host read-only, the workspace writable, no network unless allowed).

A plain string is the sandbox's type; ``{type: bwrap, network: allow}`` lets the command
reach the network."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, model_validator

from evalwright.files.base import EnvName, FileModel, field_error

SandboxType = Literal["none", "bwrap"]
"""The sandboxes there are; a container runtime would be one more (docs/agents.md#sandboxes)."""


class SandboxSpec(FileModel):
    """A sandbox and what it lets through."""

    type: SandboxType
    network: Literal["none", "allow"] = "none"
    """``allow`` shares the machine's network with the command (its API host, a local
    server); ``none`` gives it a network of its own with nothing but loopback."""
    pass_env: list[EnvName] = Field(default_factory=list[str])
    """Variables of this process let into the sandbox, for agents whose target has no
    ``pass_env`` of its own (Codex's API key, say)."""

    @model_validator(mode="after")
    def _keys_need_a_sandbox(self) -> SandboxSpec:
        if self.type == "none" and (self.network != "none" or self.pass_env):
            key = "network" if self.network != "none" else "pass_env"
            raise field_error(
                "sandbox", f"'{key}' goes with a sandbox (type: bwrap): none restricts nothing", key
            )
        return self


def _plain_type(value: object) -> object:
    return {"type": value} if isinstance(value, str) else value


Sandbox = Annotated[
    SandboxSpec, BeforeValidator(_plain_type, json_schema_input_type=SandboxType | SandboxSpec)
]
"""``sandbox:`` as written: ``none``, ``bwrap``, or a :class:`SandboxSpec`."""
