"""Read invoice lines from CSV text: description,unit price,quantity[,category]."""

import csv
import io

from ledger.invoice import Invoice, Line
from ledger.money import to_cents


def read_lines(text: str) -> list[Line]:
    lines = []
    for number, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        if not row or row[0].startswith("#"):
            continue
        if len(row) not in (3, 4):
            raise ValueError(f"line {number}: expected 3 or 4 fields, got {len(row)}")
        description, price, quantity = (field.strip() for field in row[:3])
        category = row[3].strip() if len(row) == 4 else "standard"
        try:
            qty = int(quantity)
        except ValueError:
            raise ValueError(f"line {number}: quantity {quantity!r} is not a whole number") from None
        lines.append(Line(description, to_cents(price), qty, category))
    return lines


def read_invoice(customer: str, text: str, coupon: str | None = None) -> Invoice:
    invoice = Invoice(customer, coupon=coupon)
    for line in read_lines(text):
        invoice.add(line)
    return invoice
