import sys

from shop.checkout import demo


def main(argv: list[str]) -> int:
    print(demo())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
