"""A target's ``price:``: its own price per million tokens, or ``lookup`` to use the price
database for a target the lookup would otherwise skip (docs/targets.md#price)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Discriminator, Field, Tag

from evalwright.files.base import FileModel

MAX_USD_PER_MILLION = 1_000_000
"""The highest price taken: a dollar a token, thousands of times any model's (a larger one is
a typo, and 1e308 would make every cost infinite)."""
UsdPerMillion = Annotated[float, Field(ge=0, le=MAX_USD_PER_MILLION, allow_inf_nan=False)]


class Price(FileModel):
    """USD per million tokens; ``cached_input`` (tokens read from the API's prompt cache)
    defaults to ``input``."""

    input: UsdPerMillion
    output: UsdPerMillion
    cached_input: UsdPerMillion | None = None

    @property
    def cached_rate(self) -> float:
        """The price of a cached input token per million (``input`` unless given)."""
        return self.input if self.cached_input is None else self.cached_input


def _form(value: object) -> str:
    # One error for a wrong price, not one per form it might have meant.
    return "lookup" if isinstance(value, str) else "prices"


PriceSetting = Annotated[
    Annotated[Price, Tag("prices")] | Annotated[Literal["lookup"], Tag("lookup")],
    Discriminator(_form),
]
"""A target's ``price:``: its own prices, or ``lookup`` (docs/targets.md#price)."""
