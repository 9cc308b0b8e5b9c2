"""Unit conversions the calculator's users rely on."""


def km_to_m(km: float) -> float:
    """Kilometres in metres."""
    return km * 1000
