"""The gate's planted-secret suite and clean corpus (tests/gate_corpus.py): every secret is
found, by the gate alone and through a real publication and every public surface; clean
summaries, plain or technical, are all published."""

import gzip
import json

import pytest
from django.core.files.storage import default_storage

from tenders import services
from tenders.directory import BodyEntry, BodyName, remember_bodies
from tenders.read.selectors import current_issue
from tenders.sanitize import Gate
from tests.conftest import add_vocabulary_words
from tests.factories import SourceTenderFactory
from tests.gate_corpus import (
    DEADLINE,
    IMPORTED,
    PLAIN,
    clean_corpus,
    directory_entries,
    planted,
    record_secrets,
)
from tests.gate_corpus_b import clean_b, planted_b

GATE = Gate.of_names(directory_entries())


def test_the_suite_covers_every_class_of_the_issue():
    counts: dict[str, int] = {}
    for item in planted():
        counts[item.cls] = counts.get(item.cls, 0) + 1
    assert set(counts) == {
        "other_name",
        "abbreviation",
        "short_form",
        "partial_name",
        "publisher_as_buyer",
        "money",
        "date",
        "reference",
        "contact",
        "source",
        "contact_name",
    }
    assert sum(counts.values()) == len(planted()) == 1508


def test_every_planted_secret_is_found_where_it_stands():
    missed = []
    for item in planted():
        start = item.text.index(item.secret)
        end = start + len(item.secret)
        findings = GATE.scan({item.lang: item.text}, record_secrets(item))
        if not any(f.start < end and start < f.end for f in findings):
            missed.append((item.cls, item.secret, item.text))
    assert missed == []


def test_clean_summaries_plain_or_technical_give_no_finding():
    corpus = clean_corpus()
    assert (len(corpus), sum(t for _, _, t in corpus)) == (1000, 500)
    held = [
        (text, [f.describe() for f in findings])
        for lang, text, _ in corpus
        if (findings := GATE.scan({lang: text}, PLAIN))
    ]
    assert held == []


def test_the_independent_suite_is_found_too():
    """The second suite (tests/gate_corpus_b.py), written apart from the first: other bodies,
    currencies, date forms, obfuscations, portals and people, in other sentences."""
    items = planted_b()
    assert len(items) > 1500
    missed = []
    for item in items:
        start = item.text.index(item.secret)
        end = start + len(item.secret)
        findings = GATE.scan({item.lang: item.text}, record_secrets(item))
        if not any(f.start < end and start < f.end for f in findings):
            missed.append((item.cls, item.secret, item.text))
    assert missed == []


def test_the_independent_clean_corpus_gives_no_finding():
    held = [
        (text, [f.describe() for f in findings])
        for lang, text, _ in clean_b()
        if (findings := GATE.scan({lang: text}, PLAIN))
    ]
    assert held == []


# --- through a real publication and the public surfaces ----------------------------------


def _public_texts(client) -> str:
    """Everything the public surfaces serve about the current issue, as one string."""
    parts = []
    with default_storage.open(current_issue().flat_file) as fh:
        flat = json.loads(gzip.decompress(fh.read()))
    parts.append(json.dumps(flat, ensure_ascii=False))
    cursor, pages = None, 0
    while True:
        query = {"closing_bucket": "all", "limit": 200, **({"cursor": cursor} if cursor else {})}
        page = client.get("/api/v1/tenders", query).json()
        parts.append(json.dumps(page, ensure_ascii=False))
        pages += 1
        cursor = page["meta"]["next_cursor"]
        if cursor is None:
            break
    for row in flat["rows"]:
        for lang in ("", "?lang=zht"):
            parts.append(client.get(f"/api/v1/tenders/{row['asaptic_id']}{lang}").content.decode())
    for name, arguments in [("list_tenders", {"closing_bucket": "all", "limit": 200})] + [
        ("get_tender", {"at_id": row["asaptic_id"]}) for row in flat["rows"][:50]
    ]:
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        response = client.post(
            "/mcp",
            json.dumps(body),
            content_type="application/json",
            headers={
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-11-25",
            },
        )
        assert response.status_code == 200
        result = response.json()["result"]
        assert result.get("isError") is not True, result
        parts.append(json.dumps(result, ensure_ascii=False))
    return "\n".join(parts)


@pytest.mark.django_db
def test_a_publication_withholds_every_planted_secret_and_publishes_the_clean_corpus(client, t0):
    remember_bodies(
        BodyEntry(e.market, [BodyName(e.name)], kind=e.kind, origin="import") for e in IMPORTED
    )
    items = planted()
    # One record per distinct secret and text (the suite repeats some spellings).
    distinct = list({(i.secret, i.text): i for i in items}.values())
    for n, item in enumerate(distinct):
        summaries = {"en": "Supply of office furniture.", "zh": "供应办公室家具。"}
        summaries["zht"] = "供應辦公室傢俱。"
        summaries[item.lang] = item.text
        SourceTenderFactory(
            listing_id=f"AT-TEST-P{n:09d}",
            buyer_name=item.buyer_name,
            description=item.description,
            market=item.market,
            deadline=DEADLINE,
            summary_en=summaries["en"],
            summary_zh=summaries["zh"],
            summary_zht=summaries["zht"],
        )
    corpus = clean_corpus(200, seed=48)
    for n, (lang, text, _) in enumerate(corpus):
        summaries = {"en": "Supply of office furniture.", "zh": "供应办公室家具。"}
        summaries["zht"] = "供應辦公室傢俱。"
        summaries[lang] = text
        SourceTenderFactory(
            listing_id=f"AT-TEST-C{n:09d}",
            deadline=DEADLINE,
            summary_en=summaries["en"],
            summary_zh=summaries["zh"],
            summary_zht=summaries["zht"],
        )

    # The clean corpus is free text: its words join the vocabulary, as a second person would
    # add them, so the detectors alone decide here.
    add_vocabulary_words((lang, text) for lang, text, _ in corpus)
    summary = services.publish_issue(now=t0)

    assert (summary.published, summary.withheld) == (len(corpus), len(distinct))
    assert summary.withheld_by_reason == {"sanitization": len(distinct)}
    public = _public_texts(client)
    # Every planted record is absent; secrets long enough to search for appear nowhere.
    leaked = sorted({i.secret for i in distinct if len(i.secret) >= 4 and i.secret in public})
    assert leaked == []
    assert public.count("AT-TEST-C") >= len(corpus) and "AT-TEST-P" not in public
