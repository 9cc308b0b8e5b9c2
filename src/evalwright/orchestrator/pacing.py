"""The parts of an endpoint's limit (:mod:`evalwright.orchestrator.limits`): a value 429s cut
and answers grow back, and the reckoning of a budget the answers announce
(docs/targets.md#rate-limits)."""

from __future__ import annotations

from evalwright.providers.ratelimits import Budget

DECREASE = 0.5
"""A 429 cuts a limit to this share of what was in use."""
PROBE = 0.1
"""Past where a 429 last cut it, a limit grows by this per its own worth of answers."""
CALM = 2.0
"""After this many of its own worth of answers past the last cut without a 429, a limit
grows fast again, up to twice that."""
RESERVE = 0.1
"""The share of a budget's largest ``remaining`` seen that pacing leaves unspent."""


class Adaptive:
    """A limit that 429s cut and answers grow back (additive increase, multiplicative
    decrease): the window of attempts in flight, or the attempts a second.

    A 429 cuts it to :data:`DECREASE` of what was in use (the ``mark``); each answer then
    adds one, back up to the mark; past it, :data:`PROBE` per its own worth of answers,
    probing where the 429 came; after :data:`CALM` of those without a 429, the mark doubles.
    None until the first 429: nothing is limited.
    """

    def __init__(self, least: float) -> None:
        self.least = least
        self.value: float | None = None
        self.mark = 0.0
        self._calm = 0.0

    def cut(self, used: float) -> None:
        """A 429 came while ``used`` was in use."""
        if self.value is not None:
            used = min(used, self.value)
        self.mark = used
        self.value = max(self.least, used * DECREASE)
        self._calm = 0.0

    def grow(self) -> None:
        """An answer came, of an attempt sent since the last cut."""
        value = self.value
        if value is None:
            return
        if value + 1 <= self.mark:
            self.value = value + 1
            return
        self.value = value + PROBE / value
        self._calm += 1 / value
        if self._calm >= CALM:
            self.mark, self._calm = 2 * self.value, 0.0


class Reckoning:
    """The client's own reckoning of one announced budget: how much the server would still
    let through now (``credit``), refilled at ``rate`` units a second up to the largest
    ``remaining`` the server announced (``peak``)."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.credit = 0.0
        self.peak = 0.0
        self.at = 0.0

    def forward(self, now: float) -> None:
        """Refill for the time since the last reckoning."""
        self.credit = min(self.peak, self.credit + (now - self.at) * self.rate)
        self.at = now

    def wait(self, cost: float, now: float) -> float:
        """Seconds until ``cost`` fits with the reserve left over (0: now)."""
        self.forward(now)
        need = min(cost + RESERVE * self.peak, self.peak) - self.credit
        return need / self.rate if need > 0 else 0.0

    def sync(self, budget: Budget, sent_at: float, sent_since: float, now: float) -> None:
        """Reckon again from what an answer announced: ``remaining`` when its attempt was
        admitted (about ``sent_at``), refilled since, less what was sent after it."""
        if budget.limit is not None:
            self.rate = budget.limit / 60
        self.peak = max(self.peak, budget.remaining)
        refilled = min(self.peak, budget.remaining + (now - sent_at) * self.rate)
        self.credit = refilled - sent_since
        self.at = now


def synced(
    reckoning: Reckoning | None,
    budget: Budget | None,
    sent_at: float,
    sent_since: float,
    now: float,
) -> Reckoning | None:
    """``reckoning`` synced with an announced ``budget`` (the first one makes it, if the
    budget has a limit to refill at)."""
    if budget is None:
        return reckoning
    if reckoning is None:
        if budget.limit is None:
            return None
        reckoning = Reckoning(budget.limit / 60)
    reckoning.sync(budget, sent_at, sent_since, now)
    return reckoning
