"""Drafting a record's three public summaries: the one way the importer, the admin's draft
action, the concept picker and the re-draft command make them.

A draft is built from the vocabulary only (``vocabulary.summaries``): the record's concepts
(CPV codes) and, for an imported record, the enumerated facts of its notice (kind of contract,
framework, lots, duration, procedure, the buyer's kind as a code). A record without a concept
names its category's broad concept (``summaries.CATEGORY_CONCEPTS``). No title, description,
name, number or date is an input, so none can reach a summary.
"""

from .vocabulary.summaries import CATEGORY_CONCEPTS, Facts, build, category_kind, kind_of


def facts_of(record, notice=None) -> Facts:
    """The facts of a record (anything with SourceTender's fields) and of its notice (an
    ``importers.notice.Notice``, or None for a record staff created)."""
    codes = tuple(record.concepts or ())
    if not codes and record.category.slug in CATEGORY_CONCEPTS:
        codes = (CATEGORY_CONCEPTS[record.category.slug],)
    nature = notice.nature if notice else ""
    return Facts(
        market=record.market,
        concepts=codes,
        category_en=record.category.name_en,
        category_zh=record.category.name_zh,
        kind=kind_of(codes[0] if codes else "", nature) or category_kind(record.category.slug),
        framework=notice.framework if notice else False,
        lots=notice.lots if notice else 0,
        duration_months=notice.duration_months if notice else 0,
        procedure=notice.procedure if notice else "",
        buyer_kind=notice.buyer_kind if notice else "",
    )


def draft(record, notice=None) -> dict[str, str]:
    """``{"en", "zh", "zht"}`` for the record. Deterministic."""
    return build(facts_of(record, notice))
