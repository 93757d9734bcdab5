"""ledger: small-business invoices in integer cents."""

from ledger.invoice import Invoice, Line
from ledger.money import format_cents, to_cents

__all__ = ["Invoice", "Line", "format_cents", "to_cents"]
