"""The checks of the MCP peer scripts: `check(cond, what)` stops the script
with `what` when `cond` does not hold and counts it when it does;
`passed()` is that count, for the closing 'N passed, 0 failed' line."""

_passed = 0


def check(cond, what):
    global _passed
    if not cond:
        raise AssertionError(what)
    _passed += 1


def passed():
    return _passed
