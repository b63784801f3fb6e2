"""The text content of the read tools: what a model reads, compact. Pure (plain values in,
text out).

A listing page is a head line (how many rows match, how many are shown, the issue and the
language), one line per row (id | market | category | closing bucket | value band | summary)
and a last line saying how to read on. A row adds its two flags; the facets are one line per
group, each value with its count. The structured content carries the same values as JSON; the
text never adds anything it does not hold.
"""

from collections.abc import Mapping, Sequence

LANG_NAMES = {"en": "English", "zh": "Simplified Chinese", "zht": "Traditional Chinese"}
COLUMNS = "id | market | category | closing_bucket | value_band | summary"
NO_BAND = "-"


def _flat(text: str) -> str:
    # One row, one line: a summary never breaks the rendering.
    return " ".join(str(text).split())


def row_line(row: Mapping) -> str:
    """One row of one language on one line."""
    return " | ".join(
        (
            row["asaptic_id"],
            row["market"],
            _flat(row["category"]["name"]),
            row["closing_bucket"],
            row["value_band"] or NO_BAND,
            _flat(row["summary"]),
        )
    )


def page_text(page: Mapping) -> str:
    """A listing page (rows of one language) as a model reads it."""
    meta, rows = page["meta"], page["data"]
    language = LANG_NAMES.get(meta.get("lang"), "")
    head = (
        f"{meta['total']:,} rows match; {meta['returned']} shown (issue {meta['issue_id']}, "
        f"{language})."
    )
    if not rows:
        return (
            f"{head} No rows: tender_facets lists the values that have rows; deadline_passed "
            "rows show only with closing_bucket all or deadline_passed."
        )
    lines = [f"{head} Columns: {COLUMNS} ({NO_BAND}: no amount known)."]
    lines += [row_line(row) for row in rows]
    cursor = meta["next_cursor"]
    if cursor:
        lines.append(f'More: call again with the same arguments and cursor "{cursor}".')
    else:
        lines.append("Last page.")
    return "\n".join(lines)


def one_text(one: Mapping) -> str:
    """One row of one language, with its flags."""
    row, meta = one["data"], one["meta"]
    flags = [
        "accepts supplier interest" if row["lead_ok"] else "no supplier interest",
        "new this issue" if row["new_this_issue"] else "listed in an earlier issue too",
    ]
    return (
        f"Columns: {COLUMNS} ({NO_BAND}: no amount known). Issue {meta['issue_id']}, "
        f"{LANG_NAMES.get(meta.get('lang'), '')}.\n{row_line(row)}\n{'; '.join(flags)}."
    )


def _counted(items: Sequence[Mapping], label) -> str:
    return ", ".join(f"{label(item)} {item['count']:,}" for item in items)


def facets_text(facets: Mapping, lang: str = "en") -> str:
    """The filter vocabulary with counts, names in one language; then the feed's state."""
    data, meta = facets["data"], facets["meta"]
    name = f"name_{lang}"
    lines = [
        f"Issue {meta['issue_id']} (generated {meta['generated']}): {meta['rows_total']:,} rows, "
        f"{meta['withheld']:,} withheld; status {meta['status']}"
        f"{'' if meta['feed_fresh'] else ' (feed not fresh)'}.",
        "Filters of list_tenders, each value with its row count:",
        "market: " + _counted(data["markets"], lambda m: f"{m['code']} ({_flat(m[name])})"),
        "category (slug, name): "
        + _counted(data["categories"], lambda c: f"{c['slug']} ({_flat(c[name])})"),
        "closing_bucket: " + _counted(data["closing_buckets"], lambda b: b["value"]),
        "value_band: " + _counted(data["value_bands"], lambda b: b["value"]),
    ]
    return "\n".join(lines)
