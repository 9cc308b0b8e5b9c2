from calc import add
from units import km_to_m


def test_add() -> None:
    assert add(2, 3) == 5


def test_km_to_m() -> None:
    assert km_to_m(2) == 2000
