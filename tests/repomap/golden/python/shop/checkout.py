from shop.models import Product, ShoppingCart, format_cents


def apply_discount(cart: ShoppingCart, percent: int) -> int:
    return cart.total_cents() * (100 - percent) // 100


def checkout(cart: ShoppingCart) -> str:
    total = apply_discount(cart, 10)
    return format_cents(total)


def demo() -> str:
    cart = ShoppingCart()
    cart.add_item(Product("a", 250), 2)
    return checkout(cart)
