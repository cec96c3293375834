"""Skip logic as the engine sees it: a hidden question's answer is one more value of its attribute.

A question shown only if an earlier categorical answer is one of some values has one more value, "not asked" (the
last of its domain). The browser writes that value for a hidden question and then randomizes the record like any
other (``apply``; static/js/skip.mjs mirrors it, proved equal by shared vectors), so every mechanism keeps its own
rule on the enlarged domain: a frequency oracle runs over d + 1 values, MRR's stand-in covers "not asked" with a
positive share, and the exact ε (SPEC §2, "Exact ε") is taken over records in which "not asked" is one more answer.
The report then tells the branch a respondent took only as far as it tells any answer: by at most e^ε in likelihood.

Numbers never take part (a value that is not a number has no randomized form there); the caller refuses them.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["SkipRule", "apply", "apply_rows", "check"]


@dataclass(frozen=True)
class SkipRule:
    """Attribute ``target`` (an index into the record) is shown only if attribute ``gate`` (an earlier index) has one
    of the codes ``shown``; hidden, it takes the code ``not_asked`` (the last of its domain)."""

    target: int
    gate: int
    shown: frozenset[int]
    not_asked: int

    @classmethod
    def from_dict(cls, data: dict) -> SkipRule:
        """A rule from its JSON form ``{"target", "gate", "shown": [...], "not_asked"}``."""
        return cls(int(data["target"]), int(data["gate"]), frozenset(int(v) for v in data["shown"]),
                   int(data["not_asked"]))

    def to_dict(self) -> dict:
        return {"target": self.target, "gate": self.gate, "shown": sorted(self.shown), "not_asked": self.not_asked}


def check(rules: Sequence[SkipRule], domains: Sequence[int]) -> None:
    """``ValueError`` unless every rule fits records whose attribute ``i`` takes ``domains[i]`` values: its gate
    comes earlier, its shown codes are codes of the gate other than the gate's own "not asked", and its target's
    "not asked" is the target's last code."""
    hidden = {rule.target: rule for rule in rules}
    if len(hidden) != len(rules):
        raise ValueError("a question has one condition at most")
    for rule in rules:
        if not 0 <= rule.gate < rule.target < len(domains):
            raise ValueError("a question's condition must be on an earlier question")
        gate_codes = set(range(domains[rule.gate]))
        if rule.gate in hidden:
            gate_codes.discard(hidden[rule.gate].not_asked)
        if not rule.shown or not rule.shown <= gate_codes:
            raise ValueError("a condition's answers must be answers of its question")
        if rule.not_asked != domains[rule.target] - 1:
            raise ValueError("a hidden question's answer is the last of its domain")


def apply(record: Sequence[int], rules: Sequence[SkipRule]) -> list[int]:
    """``record`` (one code per attribute) as the browser randomizes it: every question hidden by its rule, in the
    order of the record (so a question behind a hidden one is hidden too), has its ``not_asked`` code; the others
    keep theirs."""
    out = list(record)
    by_target = {rule.target: rule for rule in rules}
    for index in range(len(out)):
        rule = by_target.get(index)
        if rule is not None and out[rule.gate] not in rule.shown:
            out[index] = rule.not_asked
    return out


def apply_rows(X, rules: Sequence[SkipRule]) -> np.ndarray:
    """``apply`` to every row of the code matrix ``X`` at once (a copy; simulations and tests)."""
    out = np.array(X, copy=True)
    for rule in sorted(rules, key=lambda r: r.target):
        hidden = ~np.isin(out[:, rule.gate], sorted(rule.shown))
        out[hidden, rule.target] = rule.not_asked
    return out
