"""Which reusable rows a change of the gate's data affects (``sources.gate_change``,
``change.GateChange``), without a database: whatever names are added and allowances removed,
every record the old gate published and the new gate holds is planned again."""

import pickle
import random
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from tenders.chinese import to_traditional
from tenders.demo import demo_records
from tenders.directory import DirectoryName
from tenders.publication import sources
from tenders.publication.change import GateChange
from tenders.publication.planning import (
    Candidate,
    CategoryNames,
    PlanContext,
    for_planning,
    plan_batch,
)
from tenders.sanitize import RecordSecrets
from tenders.sanitize.allow import could_allow
from tenders.sanitize.loading import GateData, name_entry
from tenders.sanitize.names import NameMatcher, Pattern, compile_patterns, seed_entries
from tenders.sanitize.view import View

PLACES = [
    "Jurong",
    "Marina",
    "Kowloon",
    "Wanchai",
    "Tampines",
    "Ashford",
    "Wyre",
    "Canning",
    "Leeds",
    "Yarra",
]
THINGS = [
    "Harbour",
    "Ferry",
    "Canal",
    "Water",
    "Port",
    "Transit",
    "Housing",
    "Library",
    "Parks",
    "Fleet",
    "Energy",
]
HEADS = [
    "Authority",
    "Board",
    "Trust",
    "Council",
    "Department",
    "Agency",
    "Office",
    "Corporation",
    "Bureau",
]
PROSE = [
    "supply",
    "of",
    "repairs",
    "for",
    "the",
    "and",
    "works",
    "services",
    "at",
    "two",
    "sites",
    "a",
    "public",
    "body",
    "maintenance",
    "new",
    "contract",
    "term",
    "months",
    "scope",
    "includes",
    "cleaning",
    "design",
    "review",
    "by",
    "with",
    "to",
]
GIVEN = ["Mary", "John", "Peter", "Wong", "Chan", "Tan", "Lee", "Ian"]
CJK = "海港渡轮管理局码头维修采购服务署处公共房屋图书馆能源运输水务"
KINDS = ("public_body", "contact_person", "person_name", "money", "date", "reference_like")


def a_name(rng: random.Random) -> tuple[str, str, str]:
    """(name, kind, form) as imports and staff add them."""
    roll = rng.random()
    if roll < 0.45:
        words = rng.sample(PLACES, rng.randint(0, 2)) + rng.sample(THINGS, rng.randint(1, 2))
        return " ".join([*words, rng.choice(HEADS)]), "body", "full"
    if roll < 0.65:
        return "".join(rng.choices(CJK, k=rng.randint(3, 6))), "body", "full"
    if roll < 0.8:
        letters = "".join(rng.choices("ABCDEFGHLMPRST", k=rng.randint(2, 4)))
        if rng.random() < 0.3:
            letters = letters[0] + letters[1].lower() + letters[2:] + "D"
        return letters, "body", "abbreviation"
    return f"{rng.choice(GIVEN)} {rng.choice(PLACES)}", "person", "full"


def directory_name(pk: int, name: str, kind: str, form: str, origin: str) -> DirectoryName:
    return DirectoryName(name, "HK", kind, form, "", pk, name, origin, pk)


def spelled(rng: random.Random, name: str) -> str:
    """A name as a summary may write it: as written, in capitals or lower case, with a leading
    "the", in the other Chinese script."""
    return rng.choice([name, name, name.upper(), name.lower(), f"the {name}", to_traditional(name)])


def a_text(rng: random.Random, names: list[str]) -> str:
    words = []
    for _ in range(rng.randint(6, 16)):
        roll = rng.random()
        if roll < 0.04 and names:
            words.append(spelled(rng, rng.choice(names)))
        elif roll < 0.2:
            words.append("".join(rng.choices(CJK, k=rng.randint(1, 4))))
        elif roll < 0.3:
            words.append(rng.choice(PLACES + THINGS + HEADS + GIVEN))
        else:
            words.append(rng.choice(PROSE))
    return "".join(w + rng.choice([" ", " ", " ", ", ", ". ", "-", "("]) for w in words).strip()


def allowances_of(rng: random.Random, gate, records: dict, start: int = 1) -> list[tuple]:
    """Allowances as curators add them: of findings the gate made, for their record or (some)
    for every record."""
    findings = [
        (pk, f)
        for pk, summaries in records.items()
        for f in gate.scan(summaries, RecordSecrets(market="HK"), record=pk)
    ]
    allowances = []
    for n, (pk, f) in enumerate(rng.sample(findings, min(80, len(findings))), start):
        phrase = records[pk][f.lang][f.start : f.end]
        allowances.append((n, None if rng.random() < 0.3 else pk, f.kind, phrase))
    return allowances


SEED = [(e.name, e.kind, e.form) for e in seed_entries()[::7]]  # a part of the seed list


@pytest.mark.parametrize("seed", range(12))
def test_every_record_the_new_gate_holds_is_planned_again(seed):
    rng = random.Random(seed)
    old_names = [directory_name(pk, *entry, "seed") for pk, entry in enumerate(SEED, 1)]
    old_names += [
        directory_name(pk, *a_name(rng), "import") for pk in range(len(old_names) + 1, 400)
    ]
    added = [directory_name(pk, *a_name(rng), "import") for pk in range(400, 440)]
    spellings = [n.name for n in old_names[-40:] + added]
    records = {
        pk: {lang: a_text(rng, spellings) for lang in ("en", "zh", "zht")} for pk in range(1, 151)
    }
    old_allowances = allowances_of(rng, GateData(tuple(old_names), ()).gate(), records)
    kept = rng.sample(old_allowances, len(old_allowances) - 10)
    new_allowances = sorted(kept + allowances_of(rng, GateData((), ()).gate(), records, 1000)[:5])
    before = GateData(tuple(old_names), tuple(old_allowances))
    after = GateData(tuple(old_names + added), tuple(new_allowances))
    old_gate, new_gate = before.gate(), after.gate()

    change = sources.gate_change(sources.plan_gate(before), after)

    assert not change.everything and change.patterns
    newly_held = reused = 0
    for pk, summaries in records.items():
        secrets = RecordSecrets(market="HK")
        if old_gate.scan(summaries, secrets, record=pk):
            continue  # withheld: planned every week anyway
        held = bool(new_gate.scan(summaries, secrets, record=pk))
        affected = change.affects(candidate(pk, summaries))
        newly_held += held
        reused += not affected
        assert affected or not held, (pk, summaries, new_gate.scan(summaries, secrets, record=pk))
    # Each round has published records that the new gate holds, and records still reused.
    assert newly_held > 0 and reused > 0


def candidate(pk: int, summaries: dict[str, str]) -> Candidate:
    weekly = dict.fromkeys(Candidate._fields[:13])
    weekly.update(pk=pk, digest="d", last_digest="d")
    return Candidate(
        **weekly,
        summary_en=summaries["en"],
        summary_zh=summaries["zh"],
        summary_zht=summaries["zht"],
    )


def names(*spellings: str, start: int = 1) -> tuple[DirectoryName, ...]:
    return tuple(
        directory_name(pk, name, "body", "full", "import")
        for pk, name in enumerate(spellings, start)
    )


def test_names_edited_removed_or_moved_plan_everything_again():
    before = GateData(names("Harbour Ferry Authority", "Jurong Canal Board"), ())
    recorded = sources.plan_gate(before)
    assert recorded == {
        "directory_mark": 2,
        "directory": sources.names_fingerprint(before.names),
        "allowances": [],
    }
    edited = (before.names[0], replace(before.names[1], name="Jurong Canal Boards"))
    moved = (before.names[0], replace(before.names[1], market="SG"))
    removed = before.names[:1]
    for now in (edited, moved, removed):
        assert sources.gate_change(recorded, GateData(now, ())).everything
    assert sources.gate_change({}, before).everything  # an issue from before it was recorded
    assert sources.gate_change(recorded, before) == GateChange(patterns=())
    added = names("Tampines Port Office", start=3)
    change = sources.gate_change(recorded, GateData(before.names + added, ()))
    assert not change.everything
    assert "tampines port office" in {p.needle for p in change.patterns}
    assert "harbour ferry authority" not in {p.needle for p in change.patterns}


def test_removed_allowances_affect_their_record_or_the_texts_holding_their_phrase():
    mine, everywhere = (1, 7, "public_body", "HyD"), (2, None, "money", "Plotters of HK$5")
    recorded = sources.plan_gate(GateData((), (mine, everywhere)))
    change = sources.gate_change(recorded, GateData((), ((3, 8, "date", "Monday"),)))
    assert change == GateChange(phrases=("Plotters of HK$5",), records=frozenset({7}))
    plain = {"en": "Supply of plotters.", "zh": "", "zht": ""}
    holding = {"en": "Supply of PLOTTERS OF HK$5 each.", "zh": "", "zht": ""}
    assert change.affects(candidate(7, plain))
    assert change.affects(candidate(8, holding))
    assert not change.affects(candidate(8, plain))
    assert could_allow("Supply of PLOTTERS of hk$5.", "Plotters of HK$5")
    assert not could_allow("Supply of plotters.", "")


def test_a_candidate_travels_cut_when_reused_and_whole_when_the_gate_changed():
    summaries = {"en": "Repairs for the Harbour Ferry Authority.", "zh": "", "zht": ""}
    row = tuple(candidate(5, summaries))
    change = sources.gate_change(
        sources.plan_gate(GateData((), ())), GateData(names("Harbour Ferry Authority"), ())
    )
    assert for_planning(row, GateChange()) == row[:13]
    # Whole: the planner asks the change whether it affects the record.
    assert for_planning(row, change) == row
    changed = tuple(candidate(5, summaries)._replace(digest="d2"))
    assert for_planning(changed, GateChange()) == changed


def planned_candidate(pk: int, summaries: dict[str, str]) -> tuple:
    """A whole candidate whose row was published last week (its digest held)."""
    return tuple(
        candidate(pk, summaries)._replace(
            listing_id=f"AT-TEST-{pk:010d}",
            status="approved",
            withheld_reason="",
            market="HK",
            category_id=1,
            deadline=datetime(2026, 12, 31, tzinfo=UTC),
            currency="",
            lead_ok=True,
            in_previous=True,
            buyer_name="Kowloon Water Board",
        )
    )


def test_the_planner_plans_again_the_reusable_records_a_change_affects():
    affected = {
        "en": "Repairs for the Harbour Ferry Authority.",
        "zh": "渡轮维修。",
        "zht": "渡輪維修。",
    }
    untouched = {"en": "Repairs for a ferry pier.", "zh": "码头维修。", "zht": "碼頭維修。"}
    added = GateData(names("Harbour Ferry Authority"), ())
    change = sources.gate_change(sources.plan_gate(GateData((), ())), added)
    # Sent to a worker process: pickled without its automaton, which it builds again.
    assert not change.affects(candidate(2, untouched))
    change = pickle.loads(pickle.dumps(change))
    context = PlanContext(
        generated=datetime(2026, 11, 23, 6, tzinfo=UTC),
        rates={},
        secret="s" * 32,
        categories={1: CategoryNames("it-hardware", "IT", "信息", "資訊")},
        gate=added.gate(),
        change=change,
    )
    rows = [for_planning(planned_candidate(1, affected), change)]
    rows.append(for_planning(planned_candidate(2, untouched), change))
    batch = plan_batch(context, rows)
    assert (batch.records, batch.affected, batch.reused_count) == (2, 1, 1)
    # The affected record was planned afresh: the new gate holds it (a directory name).
    assert [pk for pk, _listing, _reasons in batch.withheld] == [1]
    assert [r[0] for r in batch.reused] == ["AT-TEST-0000000002"]
    # Nothing changed: both reused as they were, and travel cut.
    unchanged = replace(context, change=None)
    cut = [for_planning(planned_candidate(pk, affected), GateChange()) for pk in (1, 2)]
    assert all(len(row) == 13 for row in cut)
    batch = plan_batch(unchanged, cut)
    assert (batch.affected, batch.reused_count, batch.withheld) == (0, 2, [])


# Ways a summary may dress a name that folding undoes: case, full-width forms, accents,
# punctuation for spaces, the other Chinese script.
def dressed(rng: random.Random, text: str) -> str:
    roll = rng.random()
    if roll < 0.2:
        return text.upper()
    if roll < 0.35:
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)
    if roll < 0.5:
        return text.replace("e", "é").replace("a", "à").replace("o", "ö")
    if roll < 0.65:
        return text.replace(" ", rng.choice(["-", ", ", "  ", "/", "_"]))
    if roll < 0.8:
        return to_traditional(text)
    return text


@pytest.mark.parametrize("seed", range(8))
def test_the_quick_test_never_says_no_where_the_matcher_finds_a_name(seed):
    rng = random.Random(seed)
    added = [directory_name(pk, *a_name(rng), "import") for pk in range(1, 80)]
    matcher = NameMatcher(compile_patterns(name_entry(n) for n in added), hints=False)
    spellings = [n.name for n in added]
    texts = [dressed(rng, a_text(rng, spellings)) for _ in range(1500)]
    at = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)
    texts += [
        text
        for record in demo_records(300, seed=seed, at=at)
        for text in (record.summary_en, record.summary_zh, record.summary_zht)
    ]
    found = passed = 0
    for text in texts:
        spans = matcher.spans(View(text))
        may = matcher.may_find(text)
        assert may or not spans, (text, spans)
        found += bool(spans)
        passed += may
    # Names are found, and the quick test lets through far fewer texts than there are.
    assert found > 50
    assert passed < len(texts) / 2


def test_the_quick_test_of_a_matcher_without_names_or_with_a_wordless_one():
    assert not NameMatcher((), hints=False).may_find("Ashford Water Authority")
    wordless = Pattern(" - ", "name", "public_body", "a test")
    assert NameMatcher((wordless,), hints=False).may_find("anything at all")
