"""The staff admin through Django's test client: pages render, forms re-check summaries,
actions call one service each, publication views report, and bad input is an error message,
never a 500."""

import re
from datetime import timedelta

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from tenders import curation
from tenders.models import Category, CurrencyRate, Issue, SourceTender
from tenders.read.selectors import current_issue
from tests.factories import SourceTenderFactory

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:tenders_sourcetender_changelist"


def change_url(record):
    return reverse("admin:tenders_sourcetender_change", args=[record.pk])


def form_data(record, **changes):
    data = {
        "market": record.market,
        "category": record.category_id,
        "concepts": ", ".join(record.concepts or []),
        "lead_ok": "on" if record.lead_ok else "",
        "summary_en": record.summary_en,
        "summary_zh": record.summary_zh,
        "summary_zht": record.summary_zht,
        "buyer_name": record.buyer_name,
        "reference": record.reference,
        "source_url": record.source_url,
        "deadline_0": record.deadline.strftime("%Y-%m-%d"),
        "deadline_1": record.deadline.strftime("%H:%M:%S"),
        "amount": str(record.amount) if record.amount is not None else "",
        "currency": record.currency,
        "title": record.title,
        "description": record.description,
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v != "" or k in changes}


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def test_index_reads_in_the_order_staff_work(admin_client):
    response = admin_client.get(reverse("admin:index"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Tender feed: staff" in html
    positions = [
        html.index(name) for name in ("Source tenders", "Issues", "Categories", "Currency rates")
    ]
    assert positions == sorted(positions)
    assert html.index("Tender feed") < html.index("Authentication and Authorization")


def test_changelist_shows_findings_counts_filters_and_search(admin_client):
    clean = SourceTenderFactory(title="Network switches")
    dirty = SourceTenderFactory(
        title="Lifts",
        status=SourceTender.Status.DRAFT,
        summary_en="Mail a@b.com or call +852 2345 6789",
    )
    response = admin_client.get(reverse(CHANGELIST))
    assert response.status_code == 200
    rows = {r.listing_id: r for r in response.context["cl"].result_list}
    assert set(rows) == {clean.listing_id, dirty.listing_id}
    html = response.content.decode()
    assert re.search(rf"{dirty.listing_id}.*?field-findings_badge.*?>2 findings</span>", html, re.S)
    assert re.search(rf"{clean.listing_id}.*?field-findings_badge.*?>clean</span>", html, re.S)
    # The public text beside a short private title.
    assert f'<span class="public-text" lang="en">{clean.summary_en}</span>' in html
    assert f'<span class="public-text" lang="zh">{clean.summary_zh}</span>' in html
    assert "Private title" in html
    # Has findings / clean, from counts kept until the text changes.
    found = admin_client.get(reverse(CHANGELIST), {"findings": "yes"})
    assert [r.pk for r in found.context["cl"].result_list] == [dirty.pk]
    found = admin_client.get(reverse(CHANGELIST), {"findings": "no"})
    assert [r.pk for r in found.context["cl"].result_list] == [clean.pk]
    SourceTender.objects.filter(pk=dirty.pk).update(summary_en="Supply of lifts.")
    found = admin_client.get(reverse(CHANGELIST), {"findings": "no"})
    assert {r.pk for r in found.context["cl"].result_list} == {clean.pk, dirty.pk}
    drafts = admin_client.get(reverse(CHANGELIST), {"status__exact": "draft"})
    assert [r.pk for r in drafts.context["cl"].result_list] == [dirty.pk]
    found = admin_client.get(reverse(CHANGELIST), {"q": "Harbour District"})
    assert len(found.context["cl"].result_list) == 2


def test_change_form_shows_private_and_public_side_by_side_with_findings(admin_client):
    record = SourceTenderFactory(
        status=SourceTender.Status.DRAFT, summary_en="Contact buyer@example.gov.hk for the notice."
    )
    response = admin_client.get(change_url(record))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'class="module aligned public-side"' in html and "private-side" in html
    assert "1 finding(s)" in html and "e-mail address" in html
    assert "Contact buyer@example.gov.hk for the notice." in html
    assert 'value="Save and approve"' in html
    assert "Withdraw from the current snapshot" not in html  # only for approved records
    approved = admin_client.get(change_url(SourceTenderFactory())).content.decode()
    assert "/admin/tenders/issue/withdraw/?id=AT-TEST-" in approved
    assert "Never published" in html or "never published" in html


def test_saving_cleans_html_and_warns_about_findings_on_a_draft(admin_client):
    record = SourceTenderFactory(status=SourceTender.Status.DRAFT)
    response = admin_client.post(
        change_url(record),
        form_data(record, summary_en="<p>Supply of switches.</p> Call 2345 6789&nbsp;today"),
        follow=True,
    )
    assert response.status_code == 200
    record.refresh_from_db()
    assert record.summary_en == "Supply of switches. Call 2345 6789 today"
    assert messages_of(response)[0] == (
        "Saved with 1 finding(s): the gate will withhold this record until they are fixed."
    )
    assert LogEntry.objects.filter(object_id=str(record.pk)).count() == 1


def test_an_approved_record_cannot_be_saved_with_findings(admin_client):
    record = SourceTenderFactory()
    before = record.summary_en
    response = admin_client.post(
        change_url(record), form_data(record, summary_en="Ask Harbour District Works Office.")
    )
    assert response.status_code == 200  # the form again, with the error on the field
    errors = response.context["adminform"].form.errors
    assert list(errors) == ["summary_en"]
    assert errors["summary_en"][0].startswith("the buyer's name (or its acronym): Ask Harbour")
    record.refresh_from_db()
    assert record.summary_en == before and record.status == "approved"


def test_live_findings_follow_the_form_as_typed(admin_client):
    record = SourceTenderFactory(status=SourceTender.Status.DRAFT)
    url = reverse("admin:tenders_sourcetender_findings", args=[record.pk])
    response = admin_client.post(url, form_data(record, summary_zh="请致电 2345 6789 查询"))
    assert response.status_code == 200
    body = response.json()
    assert [(f["kind"], f["field"]) for f in body["findings"]] == [("phone", "summary_zh")]
    assert "1 finding(s)" in body["html"]
    clean = admin_client.post(url, form_data(record)).json()
    assert clean["findings"] == [] and "ready to approve" in clean["html"]
    assert admin_client.get(url).status_code == 405
    record.refresh_from_db()
    assert record.summary_zh == "公营机构采购网络交换器及无线接入点。"  # nothing saved


def test_findings_are_for_staff_only(client):
    record = SourceTenderFactory()
    url = reverse("admin:tenders_sourcetender_findings", args=[record.pk])
    response = client.post(url, {"summary_en": "x"})
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_save_and_approve(admin_client):
    clean = SourceTenderFactory(status=SourceTender.Status.DRAFT)
    response = admin_client.post(
        change_url(clean), {**form_data(clean), "_approve": "1"}, follow=True
    )
    assert "Approved 1 record(s)." in messages_of(response)
    clean.refresh_from_db()
    assert clean.status == "approved"
    dirty = SourceTenderFactory(status=SourceTender.Status.DRAFT)
    response = admin_client.post(
        change_url(dirty),
        {**form_data(dirty, summary_en="Closes 15 April 2026."), "_approve": "1"},
        follow=True,
    )
    assert messages_of(response)[-1] == (
        f"{dirty.listing_id} not approved: exact date in summary_en: Closes 15 April 2026."
    )
    dirty.refresh_from_db()
    assert dirty.status == "draft" and dirty.summary_en == "Closes 15 April 2026."


def _action(client, action, records, **extra):
    return client.post(
        reverse(CHANGELIST),
        {"action": action, "_selected_action": [r.pk for r in records], **extra},
        follow=True,
    )


def test_bulk_approve_and_check_actions(admin_client):
    good = [SourceTenderFactory(status=SourceTender.Status.DRAFT) for _ in range(3)]
    bad = SourceTenderFactory(status=SourceTender.Status.DRAFT, summary_en="See tender.gov.hk")
    # First a confirmation page: the count, the rows as published, what is refused and why.
    page = _action(admin_client, "approve_records", [*good, bad])
    html = page.content.decode()
    assert page.status_code == 200 and "Approve 4 records?" in html
    assert '<strong id="bulk-count">4</strong> records selected.' in html
    assert "Of the first 4, <strong>1</strong> will be refused:" in html
    assert (
        f"<strong>{bad.listing_id}</strong>: domain name in summary_en: See tender.gov.hk" in html
    )
    rows = re.findall(r'<td class="public-text">([^<]+)</td>', html)
    assert rows == [g.summary_en for g in good]
    assert 'value="Approve 4 records"' in html and "Done as you confirm." in html
    assert not SourceTender.objects.filter(status="approved").exists()
    response = _action(admin_client, "approve_records", [*good, bad], apply="1")
    assert messages_of(response) == [
        "Approved 3 record(s).",
        f"{bad.listing_id} not approved: domain name in summary_en: See tender.gov.hk",
    ]
    assert SourceTender.objects.filter(status="approved").count() == 3
    response = _action(admin_client, "check_records", [*good, bad], apply="1")
    assert messages_of(response) == [
        "Checked 4 record(s): 3 clean, 1 with findings.",
        f"{bad.listing_id} not clean: domain name in summary_en: See tender.gov.hk",
    ]


def test_withhold_action_asks_for_a_reason(admin_client):
    records = [SourceTenderFactory(), SourceTenderFactory()]
    page = _action(admin_client, "withhold_records", records)
    assert page.status_code == 200 and b'name="reason"' in page.content
    assert b'<strong id="bulk-count">2</strong> records selected' in page.content
    empty = _action(admin_client, "withhold_records", records, apply="1", reason="   ")
    assert empty.status_code == 200 and b"This field is required." in empty.content
    assert not SourceTender.objects.filter(status="withheld").exists()
    done = _action(admin_client, "withhold_records", records, apply="1", reason="Duplicate")
    assert messages_of(done) == ["Withheld 2 record(s)."]
    assert set(SourceTender.objects.values_list("status", "withheld_reason")) == {
        ("withheld", "Duplicate")
    }


def test_draft_action_drafts_each_record_from_its_own_concepts(admin_client):
    blank = dict(status=SourceTender.Status.DRAFT, summary_en="", summary_zh="", summary_zht="")
    scanner = SourceTenderFactory(concepts=["33112200"], **blank)
    routers = SourceTenderFactory(concepts=["32413100"], market="SG", **blank)
    done = _action(admin_client, "draft_summaries", [scanner, routers], apply="1")
    assert messages_of(done) == [
        "Drafted summaries for 2 record(s) from their own concepts; read them and approve."
    ]
    scanner.refresh_from_db()
    routers.refresh_from_db()
    assert scanner.summary_en == "Ultrasonic unit. Supplies for a public buyer in Hong Kong."
    assert scanner.summary_zht == "採購內容：超聲波設備。香港公營機構採購貨物。"
    assert routers.summary_en.startswith(
        "Network routers. Supplies for a public buyer in Singapore"
    )


def test_concepts_are_found_in_three_languages_and_saving_them_drafts(admin_client):
    url = reverse("admin:tenders_sourcetender_concepts")
    for query in ("超声", "超聲", "ultrasonic"):
        found = admin_client.get(url, {"q": query}).json()["concepts"]
        assert {
            "code": "33112200",
            "en": "Ultrasonic unit",
            "zh": "超声波设备",
            "zht": "超聲波設備",
        } in found
    record = SourceTenderFactory(status=SourceTender.Status.DRAFT)
    response = admin_client.post(
        change_url(record), form_data(record, concepts="33112200, 33100000"), follow=True
    )
    assert response.status_code == 200
    record.refresh_from_db()
    assert record.concepts == ["33112200", "33100000"]
    assert record.summary_zh.startswith("采购内容：超声波设备（另含：医疗设备）。")
    assert "Summaries drafted from the concepts: read them." in messages_of(response)
    bad = admin_client.post(change_url(record), form_data(record, concepts="99999999"))
    assert bad.status_code == 200
    assert bad.context["adminform"].form.errors["concepts"] == [
        "Not CPV 2008 codes of the vocabulary: 99999999."
    ]


def test_preview_and_history(admin_client, t0):
    SourceTenderFactory()
    leak = SourceTenderFactory(summary_en="Write to a@b.org")
    preview = admin_client.get(reverse("admin:tenders_issue_preview"))
    html = preview.content.decode()
    assert preview.status_code == 200
    assert '<td id="count-published">1</td>' in html and '<td id="count-withheld">1</td>' in html
    assert reverse("admin:tenders_sourcetender_change", args=[leak.pk]) in html
    assert "email in summary_en: &#x27;Write to a@b.org&#x27;" in html
    assert not Issue.objects.exists()

    # Publishing is a job (tests/test_jobs.py); the form only posts.
    assert admin_client.get(reverse("admin:tenders_issue_publish")).status_code == 302
    curation.issue_publish(user=None, now=t0)
    issue = current_issue()
    history = admin_client.get(reverse("admin:tenders_issue_changelist"))
    assert history.status_code == 200 and issue.issue_id in history.content.decode()
    detail = admin_client.get(reverse("admin:tenders_issue_change", args=[issue.pk]))
    assert leak.listing_id in detail.content.decode()


def test_withdraw_view_errors_are_messages_and_success_rotates_the_snapshot(admin_client, t0):
    record = SourceTenderFactory()
    url = reverse("admin:tenders_issue_withdraw")
    assert admin_client.get(url).status_code == 200
    nothing = admin_client.post(url, {"listing_id": record.listing_id, "reason": "leak"})
    assert b"Nothing is published yet" in nothing.content
    curation.issue_publish(user=None, now=t0)
    before = current_issue()
    bad = admin_client.post(url, {"listing_id": "not-an-id", "reason": "leak"})
    assert bad.status_code == 200 and b"is not a listing id" in bad.content
    done = admin_client.post(url, {"listing_id": record.listing_id, "reason": "leak"}, follow=True)
    after = current_issue()
    assert after.snapshot_etag != before.snapshot_etag and after.rows_total == 0
    assert messages_of(done)[0].startswith(f"Withdrew {record.listing_id} from 2026-W48")


def test_category_and_rate_forms(admin_client):
    response = admin_client.post(
        reverse("admin:tenders_category_add"),
        {
            "slug": "printing",
            "name_en": "Printing",
            "name_zh": "印刷服务",
            "name_zht": "",
            "position": 30,
        },
    )
    assert response.status_code == 302
    assert Category.objects.get(slug="printing").name_zht == "印刷服務"
    bad = admin_client.post(
        reverse("admin:tenders_currencyrate_add"), {"currency": "J1Y", "usd_per_unit": "0.0067"}
    )
    assert b"three-letter ISO 4217 code" in bad.content
    ok = admin_client.post(
        reverse("admin:tenders_currencyrate_add"), {"currency": "jpy", "usd_per_unit": "0.0067"}
    )
    assert ok.status_code == 302
    assert CurrencyRate.objects.filter(currency="JPY").exists()
    negative = admin_client.post(
        reverse("admin:tenders_currencyrate_add"), {"currency": "CNY", "usd_per_unit": "-1"}
    )
    assert negative.status_code == 200 and not CurrencyRate.objects.filter(currency="CNY").exists()


def test_records_are_never_deleted_from_the_admin(admin_client):
    record = SourceTenderFactory()
    response = admin_client.get(reverse("admin:tenders_sourcetender_delete", args=[record.pk]))
    assert response.status_code == 403
    assert SourceTender.objects.filter(pk=record.pk).exists()


def test_a_record_can_be_added_in_the_admin(admin_client):
    template = SourceTenderFactory.build(category=Category.objects.get(slug="it-hardware"))
    response = admin_client.post(
        reverse("admin:tenders_sourcetender_add"),
        form_data(template, summary_en="Routers for <i>branch</i> offices.", currency="hkd"),
        follow=True,
    )
    assert response.status_code == 200
    record = SourceTender.objects.get()
    assert (record.status, record.summary_en, record.currency) == (
        "draft",
        "Routers for branch offices.",
        "HKD",
    )
    assert record.listing_id.startswith("AT-") and len(record.listing_id) == 13
    half = admin_client.post(
        reverse("admin:tenders_sourcetender_add"), form_data(template, amount="", currency="HKD")
    )
    assert half.status_code == 200
    assert b"Give both an amount and its currency, or neither." in half.content
    assert SourceTender.objects.count() == 1


def test_publishing_and_withdrawing_need_the_add_issue_permission(client):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission

    user = get_user_model().objects.create_user("reader", password="x", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_issue"))
    client.force_login(user)
    SourceTenderFactory()
    assert client.get(reverse("admin:tenders_issue_preview")).status_code == 200
    assert client.post(reverse("admin:tenders_issue_publish")).status_code == 403
    assert client.get(reverse("admin:tenders_issue_withdraw")).status_code == 403
    assert not Issue.objects.exists()


def test_the_list_shows_what_is_bought_and_finds_records_still_on_a_broad_concept(admin_client):
    specific = SourceTenderFactory(concepts=["33112200"], title="Portable ultrasound")
    broad = SourceTenderFactory(concepts=["33000000"], title="Medical things")
    none = SourceTenderFactory(concepts=[], title="Unclassified")
    url = reverse("admin:tenders_sourcetender_changelist")
    page = admin_client.get(url).content.decode()
    assert '<small class="public-concepts">Ultrasonic unit</small>' in page
    assert '<small class="public-concepts">超声波设备</small>' in page
    assert (
        "Medical equipments, pharmaceuticals and personal care products (broad: pick one)" in page
    )
    assert "医疗设备、药品和个人护理产品 (broad: pick one)" in page
    listed = admin_client.get(url, {"concept": "broad"}).context["cl"].result_list
    assert {r.pk for r in listed} == {broad.pk, none.pk}
    listed = admin_client.get(url, {"concept": "specific"}).context["cl"].result_list
    assert {r.pk for r in listed} == {specific.pk}


def test_the_list_filters_by_closing_source_run_and_edits(admin_client, t0):
    from datetime import timedelta

    from django.utils import timezone

    from tenders.models import ImportedNotice, ImportRun, ImportSource

    now = timezone.now()
    soon = SourceTenderFactory(deadline=now + timedelta(days=5))
    month = SourceTenderFactory(deadline=now + timedelta(days=20))
    later = SourceTenderFactory(deadline=now + timedelta(days=60))
    passed = SourceTenderFactory(deadline=now - timedelta(days=3), summary_en="", status="draft")
    url = reverse(CHANGELIST)

    def listed(**query):
        return {r.pk for r in admin_client.get(url, query).context["cl"].result_list}

    assert listed(closes="2w") == {soon.pk}
    assert listed(closes="4w") == {month.pk}
    assert listed(closes="later") == {later.pk}
    assert listed(closes="passed") == {passed.pk}
    assert listed(summary="missing") == {passed.pk}
    # Imported from a source, by a run; one edited by a person afterwards.
    source = ImportSource.objects.create(name="CA weekly", format="ocds", market="CA", url="/x")
    run = ImportRun.objects.create(source=source, format="ocds", location="/x")
    for record in (soon, month):
        ImportedNotice.objects.create(
            tender=record, scheme="ocds", notice_id=record.listing_id, source=source,
            raw=b"", raw_hash="x", first_run=run, last_run=run,
        )  # fmt: skip
    assert listed(source=str(source.pk)) == {soon.pk, month.pk}
    assert listed(source="staff") == {later.pk, passed.pk}
    assert listed(run=str(run.pk)) == {soon.pk, month.pk}
    assert listed(edited="no") == {soon.pk, month.pk}
    admin_client.post(change_url(month), form_data(month, summary_en="Supply of switches."))
    assert listed(edited="no") == {soon.pk}
    assert listed(edited="yes") == {month.pk, later.pk, passed.pk}


def test_the_preview_says_which_records_are_left_out_and_why_with_links(admin_client):
    from datetime import timedelta

    from django.utils import timezone

    now = timezone.now()
    SourceTenderFactory(deadline=now + timedelta(days=9))
    old = SourceTenderFactory.create_batch(2, deadline=now - timedelta(days=400))
    leak = SourceTenderFactory(deadline=now + timedelta(days=9), summary_en="Write to a@b.org")
    held = SourceTenderFactory(status="withheld", withheld_reason="duplicate")
    closed = SourceTenderFactory(status="closed")
    empty = SourceTenderFactory(status="draft", summary_zh="")
    draft = SourceTenderFactory(status="draft")
    html = admin_client.get(reverse("admin:tenders_issue_preview")).content.decode()
    rows = re.findall(
        r"<tr><th>([^<]+)</th><td class=\"excluded-count\"><a href=\"([^\"]+)\">(\d+)</a>", html
    )
    found = {reason: (url.replace("&amp;", "&"), int(n)) for reason, url, n in rows}
    expected = {
        "Deadline passed over 28 days ago (approved)": {r.pk for r in old},
        "Withheld by the gate at publication (findings, missing summary or rate)": {leak.pk},
        "Withheld by staff": {held.pk},
        "Closed at source (cancelled, awarded or withdrawn)": {closed.pk},
        "No summary (drafts missing one or more)": {empty.pk},
        "Not approved yet (drafts with their summaries)": {draft.pk},
    }
    assert set(found) == set(expected)
    for reason, pks in expected.items():
        url, count = found[reason]
        assert count == len(pks), reason
        listed = admin_client.get(url).context["cl"].result_list
        assert {r.pk for r in listed} == pks, reason


def test_an_issue_page_for_people(admin_client, t0):
    SourceTenderFactory()
    SourceTenderFactory(market="SG")
    leak = SourceTenderFactory(summary_en="Write to a@b.org")
    curation.issue_publish(user=None, now=t0)
    first = current_issue()
    curation.issue_publish(user=None, now=t0 + timedelta(hours=1))
    second = current_issue()
    assert first.issue_id == second.issue_id  # the same week, twice

    html = admin_client.get(reverse("admin:tenders_issue_change", args=[second.pk])).content
    html = html.decode()
    assert f"{second.issue_id} (#{second.pk}): publication 2 of 2 this week" in html
    assert "by a command (weekly publication)" in html
    assert '<td id="issue-rows">2</td>' in html and '<td id="issue-withheld">1</td>' in html
    assert re.search(r'id="issue-markets"><tbody><tr><th>Hong Kong</th><td>1</td></tr><tr>'
                     r"<th>Singapore</th><td>1</td></tr>", html)  # fmt: skip
    assert "<th>IT hardware and equipment</th><td>2</td>" in html
    assert re.search(
        rf"<th>sanitization</th><td>1</td><td><a href=\"[^\"]+/{leak.pk}/change/\"", html
    )
    assert 'id="issue-public" href="/en/tenders/"' in html
    assert "nothing yet" in html
    assert f'Follows</th><td><a href="/admin/tenders/issue/{first.pk}/change/">' in html

    old = admin_client.get(reverse("admin:tenders_issue_change", args=[first.pk])).content
    old = old.decode()
    assert "issue-public" not in old  # no public listing once replaced
    assert (
        f'<a href="/admin/tenders/issue/{second.pk}/change/">{second.issue_id}, publication 2 '
        f"(#{second.pk})</a>"
    ) in old
    listing = admin_client.get(reverse("admin:tenders_issue_changelist")).content.decode()
    assert f"{second.issue_id}, publication 2 (#{second.pk})" in listing
    assert f"{first.issue_id} (#{first.pk})" in listing


def test_one_menu_entry_for_jobs(admin_client):
    html = admin_client.get(reverse("admin:index")).content.decode()
    assert ">Jobs</a>" in html and "Task results" not in html
