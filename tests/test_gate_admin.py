"""The gate's inputs in the admin: the directory (seeded, editable) and the audited allow-lists,
seen by the record form, the approval and the publication alike."""

import pytest
from django.contrib.admin.models import ADDITION, DELETION, LogEntry
from django.contrib.auth.models import Permission
from django.urls import reverse

from tenders import allowances, curation, services
from tenders.models import GateAllowance, PublicBody, PublicBodyName, SourceTender
from tenders.sanitize.loading import current_gate, gate_fingerprint
from tests.conftest import add_vocabulary_words
from tests.factories import SourceTenderFactory
from tests.staff_support import sign_in

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _summary_words(db):
    """This module's free-text summaries are about the gate's detectors: their words join the
    public vocabulary, as a second person would add them."""
    add_vocabulary_words(
        [
            ("en", "Road works for HyD depots."),
            ("en", "Cleaning for the Lantau Ferry Trust."),
            ("en", "Parts JL008 for the depot."),
            ("en", "Printers from the HP LaserJet range for HyD."),
            ("zh", "由食环署负责清洁。"),
        ]
    )


def test_the_seed_list_is_in_the_directory_and_the_gate_reads_it():
    assert PublicBody.objects.filter(origin="seed").count() == 689
    # 2,138 spellings in the file, one of them a repeat of another's folded key.
    assert PublicBodyName.objects.filter(body__origin="seed").count() == 2137
    hyd = PublicBodyName.objects.get(name="HyD")
    assert (hyd.body.name, hyd.body.market, hyd.form) == (
        "Highways Department",
        "HK",
        "abbreviation",
    )
    record = SourceTenderFactory(summary_en="Road works for HyD depots.")
    [finding] = curation.tender_findings(record)
    assert (finding.kind, finding.why) == (
        "public_body",
        "abbreviation of Highways Department (HK) in the directory",
    )


def test_a_name_added_in_the_admin_is_found_at_once(admin_client):
    record = SourceTenderFactory(summary_en="Cleaning for the Lantau Ferry Trust.")
    assert curation.tender_findings(record) == []
    before = gate_fingerprint()
    response = admin_client.post(
        reverse("admin:tenders_publicbody_add"),
        {
            "name": "Lantau Ferry Trust",
            "market": "HK",
            "kind": "body",
            "origin": "staff",
            "notes": "",
            "names-TOTAL_FORMS": "1",
            "names-INITIAL_FORMS": "0",
            "names-0-name": "Lantau Ferry Trust",
            "names-0-form": "full",
            "names-0-lang": "en",
        },
    )
    assert response.status_code == 302
    assert gate_fingerprint() != before
    assert [f.kind for f in curation.tender_findings(record)] == ["public_body"]
    assert LogEntry.objects.filter(action_flag=ADDITION, object_repr="Lantau Ferry Trust (HK)")


def test_marking_a_finding_as_not_a_leak_is_logged_and_scoped_to_the_record(admin_client):
    record = SourceTenderFactory(summary_en="Parts JL008 for the depot.")
    other = SourceTenderFactory(summary_en="Parts JL008 for the depot.")
    url = reverse("admin:tenders_sourcetender_allow", args=[record.pk])
    page = admin_client.get(url, {"kind": "reference_like", "phrase": "JL008"})
    assert page.status_code == 200
    assert 'value="JL008"' in page.content.decode()
    response = admin_client.post(
        url,
        {"kind": "reference_like", "phrase": "JL008", "scope": "record", "reason": "A part code"},
    )
    assert response.status_code == 302
    allowance = GateAllowance.objects.exclude(kind="out_of_vocabulary").get()
    assert (allowance.tender, allowance.kind, allowance.phrase, allowance.reason) == (
        record,
        "reference_like",
        "JL008",
        "A part code",
    )
    assert curation.tender_findings(record) == []
    assert [f.kind for f in curation.tender_findings(other)] == ["reference_like"]
    messages = {e.change_message for e in LogEntry.objects.filter(object_id__in=[str(record.pk)])}
    assert messages == {
        f"Allowed reference-number-like code 'JL008' for {record.listing_id}: A part code"
    }
    summary = services.publish_issue()
    assert (summary.published, summary.withheld) == (1, 1)


def test_refused_allowances_write_nothing():
    record = SourceTenderFactory(summary_en="Write to a@b.gov.hk.")
    cases = [
        ("email", "a@b.gov.hk", "fine", record, "An e-mail address"),
        ("buyer_name", "HDWO", "fine", None, "This finding is one of the record's own"),
        ("reference_like", "JL008", "", record, "Say why"),
        ("nonsense", "x", "fine", record, "nonsense is not a kind of finding."),
    ]
    for kind, phrase, reason, tender, message in cases:
        with pytest.raises(allowances.AllowanceError) as refused:
            allowances.allowance_add(
                kind=kind, phrase=phrase, reason=reason, tender=tender, user=None
            )
        assert str(refused.value).startswith(message)
    assert not GateAllowance.objects.exclude(kind="out_of_vocabulary").exists()
    assert not LogEntry.objects.exists()


def test_a_global_allowance_needs_the_permission_and_removal_is_logged(
    client, admin_user, django_user_model
):
    curator = django_user_model.objects.create_user("curator", password="pw", is_staff=True)
    curator.user_permissions.add(
        *Permission.objects.filter(codename__in=["change_sourcetender", "view_sourcetender"])
    )
    record = SourceTenderFactory(summary_en="Printers from the HP LaserJet range for HyD.")
    client.force_login(curator)
    page = client.get(reverse("admin:tenders_sourcetender_allow", args=[record.pk]))
    assert page.status_code == 200
    assert 'value="everywhere"' not in page.content.decode()
    sign_in(client, admin_user)
    page = client.get(reverse("admin:tenders_sourcetender_allow", args=[record.pk]))
    assert 'value="everywhere"' in page.content.decode()
    admin = admin_user
    allowance = allowances.allowance_add(
        kind="public_body", phrase="for HyD", reason="A depot's name", tender=None, user=admin
    )
    assert curation.tender_findings(record) == []
    version = current_gate().version
    allowances.allowance_remove(allowance=allowance, user=admin)
    assert current_gate().version != version
    assert [f.kind for f in curation.tender_findings(record)] == ["public_body"]
    assert list(LogEntry.objects.values_list("action_flag", flat=True).order_by("pk")) == [
        ADDITION,
        DELETION,
    ]


def test_approval_refuses_a_record_naming_another_body(admin_client):
    record = SourceTenderFactory(status=SourceTender.Status.DRAFT, summary_zh="由食环署负责清洁。")
    result = curation.tenders_approve(ids=[record.pk], user=None)
    assert result.refused == {
        record.listing_id: ["a public body's name in summary_zh: 由食环署负责清洁。"]
    }
    record.refresh_from_db()
    assert record.status == SourceTender.Status.DRAFT


def test_a_word_joins_the_vocabulary_only_by_a_second_person_with_the_permission(
    client, django_user_model
):
    def staff(name: str, *codenames: str):
        user = django_user_model.objects.create_user(name, password="pw", is_staff=True)
        user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
        return user

    curator = staff("curator", "change_sourcetender", "view_sourcetender")
    reviewer = staff("reviewer", "change_sourcetender", "view_sourcetender", "add_vocabulary_word")
    record = SourceTenderFactory(summary_en="Ultrasonic unit for the Kelowna clinic.")
    [finding] = curation.tender_findings(record)
    assert (finding.kind, finding.excerpt) == ("out_of_vocabulary", "Kelowna")
    url = reverse("admin:tenders_sourcetender_allow", args=[record.pk])
    form = {"kind": "out_of_vocabulary", "phrase": "Kelowna", "scope": "record", "reason": "x"}

    client.force_login(curator)
    refused = client.post(url, form)
    assert refused.status_code == 200
    assert "needs a second person with the *Can add vocabulary word* permission" in (
        refused.content.decode()
    )
    assert not GateAllowance.objects.filter(phrase="Kelowna").exists()

    sign_in(client, reviewer)
    for_one_record = client.post(url, form)
    assert "for every record" in for_one_record.content.decode()  # never for one record
    done = client.post(url, {**form, "scope": "everywhere", "reason": "A city, not a buyer"})
    assert done.status_code == 302
    added = GateAllowance.objects.get(phrase="Kelowna")
    assert (added.phrase, added.tender, added.created_by) == ("Kelowna", None, reviewer)
    assert curation.tender_findings(record) == []
    assert LogEntry.objects.filter(user=reviewer, action_flag=ADDITION).exists()
