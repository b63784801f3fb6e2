"""The search postings in PostgreSQL (tenders/read/postings_store.py): built from a published
snapshot, they count every term and filter exactly as the rows' LIKE does; they serve only the
snapshot they were built from; the job that builds them follows each publication."""

import random
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db.models import F

from tenders import publication
from tenders.models import IssueCount, Job, SearchPosting, SearchPostings, SnapshotRow
from tenders.read import postings, postings_store, selectors
from tenders.read.filters import parse_list_params
from tenders.read.postings import term_plan
from tenders.read.postings_store import PostingsError, build_postings, postings_count
from tenders.read.search import normalize
from tests.worker_support import work_off_the_queue

pytestmark = pytest.mark.django_db

FILTERS = [
    {},
    {"market": "HK"},
    {"market": "SG,GB", "closing_bucket": "all"},
    {"closing_bucket": "deadline_passed"},
    {"value_band": "unspecified,lt_500k"},
    {"new": "true", "lead_ok": "false"},
    {"category": "it-hardware"},
]


@pytest.fixture
def issue(t0):
    call_command("load_demo", "--rows", "400", "--seed", "11", "--at", "2026-11-23T06:00:00Z")
    publication.publish_issue(now=t0)
    return selectors.current_issue()


def sql_count(issue, query):
    return SnapshotRow.objects.filter(issue=issue).filter(query.row_filter()).count()


def terms_of(issue, rng, count):
    texts = list(SnapshotRow.objects.filter(issue=issue).values_list("search_text", flat=True))
    terms = ["a", "se", "services", "public", "医", "医疗", "醫療", "服务", "合约", "zzz", "qx"]
    terms += ["采购内", "医疗设", "疗医服"]
    while len(terms) < count:
        tokens = rng.choice(texts).split()
        i = rng.randrange(len(tokens))
        token = "".join(tokens[i : i + rng.choice((1, 2, 3))])
        a = rng.randrange(len(token))
        terms.append(token[a : rng.randint(a + 1, len(token))] if rng.random() < 0.3 else token)
    return [t for t in terms if term_plan(t) is not None]


def test_postings_count_every_term_and_filter_as_the_rows_do(issue):
    assert build_postings(issue) is not None
    vocabulary = selectors.vocabulary(issue)
    rng = random.Random(11)
    terms = terms_of(issue, rng, 80)
    checked = nonzero = 0
    for term in terms:
        for params in rng.sample(FILTERS, 3):
            for q in (term, f"{term} {rng.choice(terms)}"):
                query = parse_list_params({**params, "q": q}, vocabulary)
                expected = sql_count(issue, query)
                assert postings_count(issue, query.q, query.cell_filter()) == expected, (q, params)
                checked += 1
                nonzero += expected > 0
    assert checked > 400 and nonzero > checked // 3


def test_the_listing_total_comes_from_the_postings_once_built(issue):
    params = {"q": "services", "market": "HK"}
    rows = sql_count(issue, parse_list_params(params, selectors.vocabulary(issue)))
    build_postings(issue)
    assert selectors.list_tenders(params, issue=issue)["meta"]["total"] == rows > 0
    # Make the postings say something the rows cannot, to see which one answers.
    SearchPosting.objects.filter(issue=issue, key__contains="services").delete()
    params["lang"] = "en"  # another page of the same total: the count is cached too
    assert selectors.list_tenders(params, issue=issue)["meta"]["total"] == rows
    params["market"] = "HK,SG"
    assert selectors.list_tenders(params, issue=issue)["meta"]["total"] == 0
    # A term without a plan (four characters) is still counted from the rows.
    query = parse_list_params({"q": "医疗设备"}, selectors.vocabulary(issue))
    assert postings_count(issue, query.q, query.cell_filter()) is None


def test_postings_serve_only_the_snapshot_they_were_built_from(issue, t0):
    build_postings(issue)
    query = parse_list_params({"q": "public"}, selectors.vocabulary(issue))
    assert postings_count(issue, query.q, query.cell_filter()) == sql_count(issue, query) > 0
    # A same-week replacement: a new issue with its own etag has no postings until built.
    publication.publish_issue(now=t0 + timedelta(hours=1))
    again = selectors.current_issue()
    assert again.pk != issue.pk and again.snapshot_etag != issue.snapshot_etag
    assert postings_count(again, query.q, query.cell_filter()) is None
    # Postings keyed by another etag of the same issue are not used either.
    issue.snapshot_etag = "another"
    assert postings_count(issue, query.q, query.cell_filter()) is None
    # Building the new one removes those of issues no longer current.
    build_postings(again)
    assert set(SearchPostings.objects.values_list("issue", flat=True)) == {again.pk}
    assert set(SearchPosting.objects.values_list("issue", flat=True).distinct()) == {again.pk}
    assert postings_count(again, query.q, query.cell_filter()) == sql_count(again, query)


def test_rows_that_disagree_with_the_counts_fail_the_build_loudly(issue):
    cell = IssueCount.objects.filter(issue=issue, rows__gt=1).first()
    IssueCount.objects.filter(pk=cell.pk).update(rows=F("rows") - 1)
    other = IssueCount.objects.filter(issue=issue).exclude(pk=cell.pk).first()
    IssueCount.objects.filter(pk=other.pk).update(rows=F("rows") + 1)
    with pytest.raises(PostingsError, match="cell"):
        build_postings(issue)
    assert not SearchPostings.objects.exists()


def test_each_publication_queues_the_build_of_its_postings(t0, django_capture_on_commit_callbacks):
    call_command("load_demo", "--rows", "60", "--seed", "3", "--at", "2026-11-23T06:00:00Z")
    with django_capture_on_commit_callbacks(execute=True):
        publication.publish_issue(now=t0)
    issue = selectors.current_issue()
    job = Job.objects.get(kind="postings")
    assert (job.state, job.lock_key, job.arguments) == (
        "queued",
        f"postings:{issue.pk}",
        {"issue": issue.pk},
    )
    work_off_the_queue()
    job.refresh_from_db()
    built = SearchPostings.objects.get()
    assert (built.issue_id, built.snapshot_etag, built.rows) == (
        issue.pk,
        issue.snapshot_etag,
        issue.rows_total,
    )
    assert job.state == "succeeded" and f"over {issue.rows_total:,} rows" in job.message


def test_the_command_builds_the_current_issues_postings(issue, capsys):
    call_command("build_search_postings")
    out = capsys.readouterr().out
    assert f"Search postings of {issue.issue_id}" in out and "peak memory" in out
    keys = set(SearchPosting.objects.filter(issue=issue).values_list("key", flat=True))
    assert {"services", "医", "医疗"} <= keys and normalize("SERVICES") in keys


def test_a_term_in_too_many_postings_is_counted_from_the_rows(issue, monkeypatch):
    build_postings(issue)
    query = parse_list_params({"q": "a"}, selectors.vocabulary(issue))
    assert postings_count(issue, query.q, query.cell_filter()) == sql_count(issue, query)
    monkeypatch.setattr(postings_store, "READ_LIMIT", 1000)
    assert postings_count(issue, query.q, query.cell_filter()) is None
    assert selectors.list_tenders({"q": "a"}, issue=issue)["meta"]["total"] == sql_count(
        issue, query
    )


def test_postings_of_an_older_scheme_of_keys_count_as_not_built(issue):
    vocabulary = selectors.vocabulary(issue)
    three = parse_list_params({"q": "采购内"}, vocabulary)
    rows = sql_count(issue, three)
    build_postings(issue)
    assert postings_count(issue, three.q, three.cell_filter()) == rows > 0
    # What postings built before CJK trigrams were keys look like: no three-character keys.
    SearchPosting.objects.filter(issue=issue, key="采购内").delete()
    assert postings_count(issue, three.q, three.cell_filter()) == 0  # wrong, were it trusted
    SearchPostings.objects.filter(issue=issue).update(scheme=postings.SCHEME - 1)
    two = parse_list_params({"q": "医疗"}, vocabulary)
    assert postings_count(issue, two.q, two.cell_filter()) is None
    assert postings_count(issue, three.q, three.cell_filter()) is None
    assert selectors.list_tenders({"q": "采购内"}, issue=issue)["meta"]["total"] == rows
    # The next build replaces them with postings of the current scheme.
    build_postings(issue)
    assert SearchPostings.objects.get().scheme == postings.SCHEME
    assert postings_count(issue, three.q, three.cell_filter()) == rows
