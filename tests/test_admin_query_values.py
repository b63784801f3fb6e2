"""Query values the database cannot compare (a NUL character) on every admin list: the admin's
own message, never a 500."""

import pytest
from django.contrib import admin
from django.contrib.messages import get_messages
from django.urls import reverse

pytestmark = pytest.mark.django_db


def _filter_parameters(model_admin) -> list[str]:
    names = []
    for entry in model_admin.list_filter:
        if isinstance(entry, str):
            names.append(f"{entry}__exact")
        elif hasattr(entry, "parameter_name"):
            names.append(entry.parameter_name)
    if model_admin.search_fields:
        names.append("q")
    return names


CHANGELISTS = [
    (model, model_admin)
    for model, model_admin in admin.site._registry.items()
    if _filter_parameters(model_admin)
]


@pytest.mark.parametrize(
    "model, model_admin", CHANGELISTS, ids=[m._meta.label for m, _ in CHANGELISTS]
)
def test_a_nul_in_any_filter_or_search_of_any_list_is_dropped_with_a_message(
    admin_client, model, model_admin
):
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    for name in _filter_parameters(model_admin):
        response = admin_client.get(url, {name: "a\x00b", "o": "1"})
        assert response.status_code == 302, name
        # The other parameters are kept.
        assert response["Location"] == f"{url}?o=1"
        assert [str(m) for m in get_messages(response.wsgi_request)] == [
            f"Ignored {name}: filter and search values cannot contain NUL characters."
        ]
        assert admin_client.get(response["Location"]).status_code == 200


def test_the_issue_named_lists_and_a_nul_in_a_parameter_name(admin_client):
    for url in (
        "/admin/rfq/rfq/?status__exact=%00",
        "/admin/rfq/accessrequest/?status__exact=%00",
        "/admin/tenders/sourcetender/?status__exact=%00",
    ):
        response = admin_client.get(url, follow=True)
        assert response.status_code == 200
        assert response.redirect_chain == [(url.split("?")[0], 302)]
        assert "filter and search values cannot contain NUL characters" in response.text
    response = admin_client.get("/admin/rfq/rfq/?sta%00tus=x")
    assert (response.status_code, response["Location"]) == (302, "/admin/rfq/rfq/")
