import pytest

from ledger.money import format_cents, to_cents


@pytest.mark.parametrize("text, cents", [("12.34", 1234), ("12.3", 1230), ("7", 700), ("-0.05", -5),
                                         ("1,234.50", 123450), ("1_000", 100000), (" 3.10 ", 310)])
def test_to_cents(text, cents):
    assert to_cents(text) == cents


@pytest.mark.parametrize("text", ["", "abc", "1.234", "--1", "1.2.3"])
def test_to_cents_rejects(text):
    with pytest.raises(ValueError):
        to_cents(text)


def test_format_cents():
    assert format_cents(1230) == "12.30"
    assert format_cents(-5) == "-0.05"
    assert format_cents(0) == "0.00"


def test_format_cents_thousands():
    assert format_cents(123456789) == "1,234,567.89"


def test_round_trip():
    for cents in (0, 1, 99, 100, 123456, -4200):
        assert to_cents(format_cents(cents)) == cents
