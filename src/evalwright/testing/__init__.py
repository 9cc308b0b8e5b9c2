"""A fake chat API server for tests: real HTTP on 127.0.0.1, scripted answers.

Start it with ``async with FakeServer() as server`` (or ``with FakeServer.in_thread()``), point a
client at ``server.url``, queue answers with ``server.enqueue(Text("hi"), Fault(429))`` and read
back ``server.requests``. ``python -m evalwright.testing --port 8123`` runs one by hand.
"""

from evalwright.testing.actions import (
    Action,
    Answer,
    Blocked,
    Drop,
    Fault,
    Flood,
    FunctionCall,
    Malformed,
    Stall,
    Text,
    Thought,
    ToolCalls,
    Verdict,
)
from evalwright.testing.fake_server import JUDGE_PROMPT_PREFIX, FakeServer, Responder
from evalwright.testing.ratelimits import RateLimits, Storm
from evalwright.testing.recorded import ApiName, ReceivedRequest

__all__ = [
    "JUDGE_PROMPT_PREFIX",
    "Action",
    "Answer",
    "ApiName",
    "Blocked",
    "Drop",
    "FakeServer",
    "Fault",
    "Flood",
    "FunctionCall",
    "Malformed",
    "RateLimits",
    "ReceivedRequest",
    "Responder",
    "Stall",
    "Storm",
    "Text",
    "Thought",
    "ToolCalls",
    "Verdict",
]
