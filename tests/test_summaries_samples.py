"""Summaries by construction, on every shared sample: each imported record names what it buys
in the vocabulary's words, and nothing of its notice's text or private facts reaches them."""

import re
from datetime import UTC, datetime

import pytest

from tenders.importers.service import import_notices
from tenders.models import ImportedNotice, SourceTender
from tenders.publication import publish_issue
from tenders.read.selectors import list_tenders
from tenders.vocabulary.classify import words
from tenders.vocabulary.coverage import vocabulary
from tenders.vocabulary.cpv import concept
from tests.test_import_service import SAMPLES

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
IMPORTED = [SourceTender.Status.DRAFT, SourceTender.Status.CLOSED]


@pytest.fixture
def imported():
    for fmt, path, market in SAMPLES:
        import_notices(fmt, str(path), market=market)
    return list(SourceTender.objects.filter(imported__isnull=False).select_related("imported"))


def _secrets(record: SourceTender) -> set[str]:
    """The record's private facts as they could be written in a summary."""
    found = {record.buyer_name, record.reference, record.source_url}
    if record.deadline:
        day = record.deadline.astimezone(UTC)
        found |= {day.strftime("%Y-%m-%d"), day.strftime("%d/%m/%Y"), day.strftime("%B %-d")}
    if record.amount is not None:
        found |= {f"{record.amount:,.0f}", f"{record.amount:.0f}"}
    # Contacts: e-mail addresses and names of people in the private description.
    found |= set(re.findall(r"[\w.+-]+@[\w-]+\.[\w.]+", record.description))
    found |= set(
        re.findall(r"\b(?:Mr|Mrs|Ms|Dr)\.? [A-Z][a-z]+(?: [A-Z][a-z]+)?", record.description)
    )
    return {s.strip().lower() for s in found if s and len(s.strip()) >= 4}


def test_every_sample_record_says_what_it_buys_in_vocabulary_words_only(imported):
    assert len(imported) > 5500
    checked = vocabulary()
    by_chinese: dict[str, str] = {}
    for record in imported:
        # At least one concept, and the main one's label leads all three summaries.
        assert record.concepts, (record.title, record.imported.notes)
        main = concept(record.concepts[0])
        assert record.summary_en.startswith(main.en), record.summary_en
        assert main.zh in record.summary_zh and main.zht in record.summary_zht
        # Two records whose main concepts differ never share a Chinese summary.
        other = by_chinese.setdefault(record.summary_zh, main.code)
        assert other == main.code, (record.summary_zh, other, main.code)
        summaries = {"en": record.summary_en, "zh": record.summary_zh, "zht": record.summary_zht}
        for lang, text in summaries.items():
            assert checked.unknown(text, lang) == [], (lang, text)
        # No token of the title that the vocabulary lacks is in any summary.
        public_words = set(words(" ".join(summaries.values())))
        for token in checked.unknown(record.title, "zh"):
            for word in words(token):
                assert word not in public_words, (token, record.title, summaries)
            if not token.isascii():
                assert token not in record.summary_zh + record.summary_zht
        # No reference, buyer, contact, address, date or amount of the notice.
        text = " ".join(summaries.values()).lower()
        for secret in _secrets(record):
            assert secret not in text, (secret, text)


def test_the_ultrasound_notice_is_found_in_both_chinese_scripts(imported, settings, t0):
    ultrasound = next(r for r in imported if r.title.startswith("Portable Diagnostic Ultrasound"))
    assert ultrasound.concepts[0] == "33112200"
    SourceTender.objects.filter(pk=ultrasound.pk).update(
        status=SourceTender.Status.APPROVED, deadline=datetime(2026, 12, 31, tzinfo=UTC)
    )
    assert publish_issue(now=t0).published == 1
    for q in ("超声波", "超聲波", "ultrasonic"):
        rows = list_tenders({"q": q})["data"]
        assert [r["asaptic_id"] for r in rows] == [ultrasound.listing_id], q
    assert "超聲波設備" in list_tenders({"q": "超聲波", "lang": "zht"})["data"][0]["summary"]
    assert ImportedNotice.objects.filter(tender=ultrasound).exists()
