"""The sourcing offer: selectors the capabilities document and the MCP tools share, and the
admin staff keep it in."""

import pytest
from django.contrib.auth import get_user_model

from core.errors import ApiError
from sourcing import selectors
from sourcing.models import Engagement, Lane
from tests.staff_support import sign_in

pytestmark = pytest.mark.django_db
BASE = "https://feed.example.com"


def test_lanes_are_plain_dicts_with_the_contract_fields():
    lanes = selectors.list_lanes(base_url=BASE)
    assert len(lanes) == 4
    for lane in lanes:
        assert set(lane) == {"id", "name", "summary", "sources", "markets", "compliance", "page"}
        assert isinstance(lane["sources"], str) and lane["sources"]
        assert lane["markets"] and all(len(code) == 2 for code in lane["markets"])
        assert all(isinstance(item, str) for item in lane["compliance"])
        assert lane["page"] == f"{BASE}/lanes/{lane['id']}/"


def test_one_lane_and_an_unknown_lane():
    assert selectors.get_lane("solar-energy-equipment", base_url=BASE)["markets"] == [
        "HK",
        "SG",
        "GB",
        "EU",
        "AU",
        "CA",
    ]
    for lane_id in ("nothing", "", None, 3):
        with pytest.raises(ApiError) as error:
            selectors.get_lane(lane_id, base_url=BASE)
        assert error.value.body() == {
            "error": {
                "code": "not_found",
                "message": f"lane_id: no sourcing lane {lane_id!r}; lanes: medical-consumables, "
                "it-network-hardware, office-school-furniture, solar-energy-equipment.",
                "param": "lane_id",
            }
        }


def test_inactive_lanes_are_not_public():
    Lane.objects.filter(slug="medical-consumables").update(active=False)
    assert "medical-consumables" not in [lane["id"] for lane in selectors.list_lanes(base_url=BASE)]
    with pytest.raises(ApiError):
        selectors.get_lane("medical-consumables", base_url=BASE)


def test_the_engagement_model_says_what_is_paid_when_and_the_reply_promise():
    engagement = selectors.get_engagement()
    assert engagement["model"] == "deposit-first"
    assert engagement["reply"] == {
        "within_hours": 4,
        "promise": "Every request for quote is answered within 4 hours.",
        "note": "The first reply confirms the lane, asks what the quote still needs, and gives "
        "an indicative price where the specification allows.",
    }
    assert engagement["deposit"]["percent"] == 30
    assert [step["when"] for step in engagement["steps"]] == [
        "-",
        "On signing the order",
        "-",
        "After the inspection passes, before shipment",
    ]


def test_without_an_engagement_model_the_answer_is_unavailable():
    Engagement.objects.all().delete()
    with pytest.raises(ApiError) as error:
        selectors.get_engagement()
    assert (error.value.status, error.value.code) == (503, "service_unavailable")


def test_staff_keep_the_offer_in_the_admin(client):
    staff = get_user_model().objects.create_superuser("staff", "staff@example.com", "pw-12345-x")
    sign_in(client, staff)
    for url in (
        "/admin/sourcing/lane/",
        "/admin/sourcing/lane/add/",
        f"/admin/sourcing/lane/{Lane.objects.first().pk}/change/",
        "/admin/sourcing/market/",
        "/admin/sourcing/complianceitem/",
        f"/admin/sourcing/engagement/{Engagement.objects.get().pk}/change/",
    ):
        assert client.get(url).status_code == 200, url
    # One engagement model: no second one, and it cannot be deleted.
    assert client.get("/admin/sourcing/engagement/add/").status_code == 403
    engagement = Engagement.objects.get()
    assert client.get(f"/admin/sourcing/engagement/{engagement.pk}/delete/").status_code == 403
