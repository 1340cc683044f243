"""Domain objects."""

from dataclasses import dataclass


@dataclass
class Product:
    sku: str
    price_cents: int

    def display_price(self) -> str:
        return format_cents(self.price_cents)


class ShoppingCart:
    def __init__(self) -> None:
        self.lines: list[tuple[Product, int]] = []

    def add_item(self, product: Product, quantity: int = 1) -> None:
        self.lines.append((product, quantity))

    def total_cents(self) -> int:
        return sum(p.price_cents * q for p, q in self.lines)


def format_cents(cents: int) -> str:
    return f"${cents / 100:.2f}"
