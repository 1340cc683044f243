"""Two readings of one test file compared: what the round took away from the judge.

Near-misses that are not weakening: a renamed test (same body), a new assertion, an assertion
moved into a helper (its text is still in the file), a reformatted one (whitespace is ignored),
a new test, a test whose assertions changed but still compare values.
"""

from __future__ import annotations

from valarmind_tui.agents.goal.weakening.model import Evidence, FileTests, TestCase

_MARKER_KIND = {"skip": "skip_added", "xfail": "skip_added", "only": "only_added",
                "ignored": "skip_added"}


def compare_tests(path: str, before: FileTests, after: FileTests) -> list[Evidence]:
    found: list[Evidence] = []
    for marker, line in after.file_markers.items():
        if marker not in before.file_markers:
            found.append(Evidence(path, line, _kind(marker),
                                  f"the whole file is now marked {marker}"))
    for name, (line, body) in after.hooks.items():
        if before.hooks.get(name, (0, ""))[1] != body:
            found.append(Evidence(path, line, "runner_config",
                                  f"the pytest hook {name} was added or changed: it decides "
                                  "what runs and how the run ends"))
    old_exits = {text for _, text in before.exits}
    for line, text in after.exits:
        if text not in old_exits:
            found.append(Evidence(path, line, "failure_ignored",
                                  f"a test file now ends the process itself: {text}"))
    renamed = _renames(before, after)
    for name, old in before.tests.items():
        new = after.tests.get(name) or after.tests.get(renamed.get(name, ""))
        if new is None:
            if old.assertions:
                found.append(Evidence(path, old.line, "test_deleted", (
                    f"test {name} was deleted with its {len(old.assertions)} assertion(s): "
                    + "; ".join(a.text for a in old.assertions[:3]))))
            continue
        found += _compare_one(path, old, new, after)
    for name, new in after.tests.items():
        if name not in before.tests and name not in renamed.values():
            for marker in sorted(new.markers & {"skip", "xfail", "only"}):
                if marker == "only":
                    found.append(Evidence(path, new.line, "only_added",
                                          f"new test {name} is marked only: the others "
                                          "no longer run"))
    return found


def _kind(marker: str) -> str:
    return next((kind for key, kind in _MARKER_KIND.items() if key in marker), "skip_added")


def _renames(before: FileTests, after: FileTests) -> dict[str, str]:
    """Old name → new name, for tests gone whose body reappears under a new name."""
    gone = {name: t for name, t in before.tests.items() if name not in after.tests}
    new = {name: t for name, t in after.tests.items() if name not in before.tests}
    out: dict[str, str] = {}
    for old_name, old in gone.items():
        for new_name, candidate in new.items():
            same_checks = sorted(a.text for a in old.assertions) == sorted(
                a.text for a in candidate.assertions)
            if new_name not in out.values() and (candidate.body == old.body or (
                    same_checks and old.assertions)):
                out[old_name] = new_name
                break
    return out


def _compare_one(path: str, old: TestCase, new: TestCase, after: FileTests) -> list[Evidence]:
    found: list[Evidence] = []
    for marker in sorted((new.markers - old.markers) & {"skip", "xfail", "only"}):
        kind = "only_added" if marker == "only" else "skip_added"
        found.append(Evidence(path, new.line, kind, f"test {new.name} is now marked {marker}"))
    if new.empty and not old.empty:
        found.append(Evidence(path, new.line, "test_emptied",
                              f"test {new.name}'s body was emptied (was: {old.body[:120]})"))
        return found
    kept = {a.text for a in new.assertions}
    elsewhere = [a for a in old.assertions if a.text not in kept
                 and a.text in after.assertion_texts]  # moved into a helper: still checked
    removed = [a for a in old.assertions if a.text not in after.assertion_texts]
    real_before = [a for a in old.assertions if not a.trivial]
    real_after = [a for a in (*new.assertions, *elsewhere) if not a.trivial]
    added = [a for a in new.assertions if a.text not in {b.text for b in old.assertions}]
    if len(real_after) < len(real_before) and removed and not added:
        found.append(Evidence(path, new.line, "assertion_removed", (
            f"test {new.name} lost {len(real_before) - len(real_after)} assertion(s): "
            + "; ".join(a.text for a in removed[:3]))))
    elif len(real_after) < len(real_before) and removed:
        found.append(Evidence(path, added[0].line, "assertion_loosened", (
            f"test {new.name}: " + "; ".join(a.text for a in removed[:2]) + " → "
            + "; ".join(a.text for a in added[:2]))))
    elif removed and (sum(a.compares for a in real_after) < sum(a.compares for a in real_before)
                      or any(a.trivial for a in added)):
        line = added[0].line if added else new.line
        found.append(Evidence(path, line, "assertion_loosened", (
            f"test {new.name}: " + "; ".join(a.text for a in removed[:2])
            + " → " + ("; ".join(a.text for a in added[:2]) or "(nothing)"))))
    return found
