"""An invoice: lines, coupon, subtotal, tax per category and total."""

from dataclasses import dataclass, field

from ledger.discounts import apply_bulk, apply_coupon
from ledger.money import format_cents
from ledger.tax import compute_tax


@dataclass(frozen=True)
class Line:
    description: str
    unit_cents: int
    quantity: int = 1
    category: str = "standard"

    @property
    def amount(self) -> int:
        return apply_bulk(self.unit_cents, self.quantity)


@dataclass
class Invoice:
    customer: str
    lines: list[Line] = field(default_factory=list)
    coupon: str | None = None

    def add(self, line: Line) -> "Invoice":
        if line.quantity <= 0:
            raise ValueError("quantity must be positive")
        self.lines.append(line)
        return self

    @property
    def subtotal(self) -> int:
        return sum(line.amount for line in self.lines)

    def _discounted(self) -> dict[str, int]:
        """Amount per category after the coupon, spread over categories in proportion (remainder to the last)."""
        by_cat: dict[str, int] = {}
        for line in self.lines:
            by_cat[line.category] = by_cat.get(line.category, 0) + line.amount
        total = self.subtotal
        after = apply_coupon(total, self.coupon)
        if total == 0 or after == total:
            return by_cat
        cats = sorted(by_cat)
        out, given = {}, 0
        for cat in cats[:-1]:
            out[cat] = by_cat[cat] * after // total
            given += out[cat]
        out[cats[-1]] = after - given
        return out

    @property
    def tax(self) -> int:
        return sum(compute_tax(amount, cat) for cat, amount in self._discounted().items())

    @property
    def total(self) -> int:
        return sum(self._discounted().values()) + self.tax

    def render(self) -> str:
        rows = [f"Invoice for {self.customer}"]
        for line in self.lines:
            rows.append(f"  {line.description:<20} {line.quantity:>4} x {format_cents(line.unit_cents):>10}"
                        f" = {format_cents(line.amount):>10}")
        rows.append(f"  {'subtotal':<20} {format_cents(self.subtotal):>28}")
        if self.coupon:
            rows.append(f"  {'coupon ' + self.coupon.upper():<20} {format_cents(sum(self._discounted().values()) - self.subtotal):>28}")
        rows.append(f"  {'tax':<20} {format_cents(self.tax):>28}")
        rows.append(f"  {'total':<20} {format_cents(self.total):>28}")
        return "\n".join(rows)
