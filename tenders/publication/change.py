"""Whether a change of the gate's data since a row was planned can change that row.

``sources.gate_change`` works out what changed between the gate's data an issue (or a pass of
the gate) recorded and today's; ``GateChange.affects`` then asks it of each reusable record,
in the planning workers. Like planning, this imports no Django.
"""

from dataclasses import dataclass
from functools import cached_property

from ..sanitize.allow import could_allow
from ..sanitize.names import NameMatcher, Pattern
from ..sanitize.view import View


@dataclass(frozen=True)
class GateChange:
    """How the gate's data changed since the plan of the issue rows are reused from, as far as
    a row published then is concerned (``sources.gate_change`` works it out).

    A published row had no finding. Directory names added since can only add findings, and
    only where one of their patterns matches; allowances added can only remove findings;
    an allowance removed can bring one back only in a text where its phrase occurs (its own
    record's texts, for a record's allowance). So a reusable row is planned again when one
    of the ``patterns`` matches its public texts (the gate's own directory pass, restricted
    to them), when a removed allowance's phrase occurs in them (``phrases``: those of the
    global list), when its record lost an allowance of its own (``records``), or, for any
    other change (a name edited or removed, a body changed), always (``everything``).
    """

    everything: bool = False
    patterns: tuple[Pattern, ...] = ()
    phrases: tuple[str, ...] = ()
    records: frozenset = frozenset()

    @cached_property
    def any(self) -> bool:
        """Whether anything changed that can have a reusable row planned again."""
        return self.everything or bool(self.patterns or self.phrases or self.records)

    @cached_property
    def _matcher(self) -> NameMatcher | None:
        return NameMatcher(self.patterns, hints=False) if self.patterns else None

    def __getstate__(self) -> dict:
        # Sent to planning workers without the automaton (each builds its own on first use).
        return {k: v for k, v in self.__dict__.items() if k != "_matcher"}

    def affects(self, tender) -> bool:
        """Whether the row of ``tender`` (a reusable record, with its summaries) may now be
        decided differently."""
        if self.everything or tender.pk in self.records:
            return True
        if self._matcher is None and not self.phrases:
            return False
        for text in (tender.summary_en, tender.summary_zh, tender.summary_zht):
            if not text:
                continue
            if any(could_allow(text, phrase) for phrase in self.phrases):
                return True
            matcher = self._matcher
            if matcher is not None and matcher.may_find(text) and matcher.spans(View(text)):
                return True
        return False


NO_CHANGE = GateChange()
