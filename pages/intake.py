"""Forms for people over the two intakes: a request for quote and a request for tender access.

Each form posts to the service its JSON surface calls (``rfq_submit`` behind ``POST /rfq``,
``access_request_submit`` behind the ``request_tender_access`` tool), so fields, limits,
rate limits and refusals are the intake's own (``rfq.validation``); the page adds labels, help
texts, the words for each field's refusal in the page's language (``FieldText``; the intake's
English messages are the API's) and CSRF protection. Every form carries a fresh idempotency
key, so a double click stores one request, and a success is answered with a redirect to a
receipt (POST, redirect, GET), so reloading never sends twice.
"""

import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_safe

from core.clients import client_info
from core.errors import ApiError
from rfq import references, services, timing, validation
from tenders.labels import API_LANG
from tenders.read import selectors

from .messages import intake_message

CONTACT_HELP = _(
    "An e-mail address, a phone number starting with + and the country code (such as "
    "+852 2123 4567), or a messenger contact: WeChat: your ID, WhatsApp: +852…, Line: your ID "
    "or Telegram: @your_name. Only our staff see it."
)
CONTACT_REQUIRED = _(
    "Give an e-mail address, a phone number or a messenger contact, so we can answer you."
)
CONTACT_INVALID = _(
    "Give a valid e-mail address, a phone number starting with + and the country code (such "
    "as +852 2123 4567), or a messenger contact written as WeChat: your_id, WhatsApp: "
    "+852 9123 4567, Line: your_id or Telegram: @your_name."
)
TOO_LONG = _("Write plain text of at most %(max)s characters.")


@dataclass(frozen=True)
class FieldText:
    """What a person reads about one field: its label and help, and, when the intake refuses
    it, ``required`` (left empty) or ``invalid`` (any other refusal; by default the text
    rules every field has, plain text within its length)."""

    label: Promise
    help: Promise
    required: Promise | None = None
    invalid: Promise = TOO_LONG


@dataclass(frozen=True)
class Intake:
    name: str
    form: validation.Form
    submit: Callable[..., services.Receipt]
    reference: re.Pattern
    title: Promise
    intro: Promise
    button: Promise
    sent_title: Promise
    texts: dict[str, FieldText]
    prefill: Callable[[str, str], dict[str, str]]


def _rfq_prefill(at_id: str, lang: str) -> dict[str, str]:
    try:
        row = selectors.get_tender(at_id, {"lang": lang})["data"]
    except ApiError:
        return {}
    (product,) = (f for f in validation.RFQ_FORM.fields if f.name == "product")
    text = f"{row['asaptic_id']}: {row['summary']}"
    return {
        "product": text[: product.max_length],
        "target_market": row["market"],
        "asaptic_id": row["asaptic_id"],
    }


def _access_prefill(at_id: str, lang: str) -> dict[str, str]:
    return {"at_id": at_id}


RFQ = Intake(
    name="rfq",
    form=validation.RFQ_FORM,
    submit=services.rfq_submit,
    reference=references.RFQ_REFERENCE_RE,
    title=_("Ask for a quote"),
    intro=_(
        "Tell us what you need to source for a tender. We supply along our sourcing lanes on a "
        "deposit-first basis and answer every request for quote within a few hours."
    ),
    button=_("Send the request for quote"),
    sent_title=_("Your request for quote is stored"),
    texts={
        "product": FieldText(
            _("What you want to source"),
            _("A product, a specification or a sourcing lane, up to 500 characters."),
            required=_("Say what you want to source."),
        ),
        "quantity": FieldText(
            _("Quantity (optional)"), _("How many or how much, in your own words.")
        ),
        "target_market": FieldText(
            _("Where the goods are needed (optional)"),
            _("A market code (HK, MO, SG, GB, EU, AU, CA) or a country code such as DE."),
            invalid=_("This is not a market or country code we know; give one such as HK or DE."),
        ),
        "buyer_contact": FieldText(
            _("Your contact"), CONTACT_HELP, required=CONTACT_REQUIRED, invalid=CONTACT_INVALID
        ),
        "asaptic_id": FieldText(
            _("Listing id (optional)"),
            _("The tender this request is about, such as AT-7K3M9Q2X4B."),
            invalid=_(
                "Give the listing id of a tender in this week's issue, such as AT-7K3M9Q2X4B, "
                "or leave it empty."
            ),
        ),
    },
    prefill=_rfq_prefill,
)

ACCESS = Intake(
    name="access",
    form=validation.ACCESS_REQUEST_FORM,
    submit=services.access_request_submit,
    reference=references.ACCESS_REQUEST_REFERENCE_RE,
    title=_("Ask for access to spec-coded detail"),
    intro=_(
        "Spec-coded detail is released to approved suppliers and bidders. Tell us who you are "
        "and why you need it; our team reviews each request and replies to your contact."
    ),
    button=_("Send the access request"),
    sent_title=_("Your access request is stored"),
    texts={
        "at_id": FieldText(
            _("Listing id (optional)"),
            _("The tender you want detail for, such as AT-7K3M9Q2X4B."),
            invalid=_("A listing id is AT- and 10 letters and digits, such as AT-7K3M9Q2X4B."),
        ),
        "organisation": FieldText(
            _("Organisation"),
            _("The organisation asking for access."),
            required=_("Name the organisation asking for access."),
        ),
        "contact": FieldText(
            _("Your contact"), CONTACT_HELP, required=CONTACT_REQUIRED, invalid=CONTACT_INVALID
        ),
        "purpose": FieldText(
            _("Why you need the detail"),
            _("What you supply and how you intend to bid, up to 1,000 characters."),
            required=_("Say why you need the detail."),
        ),
    },
    prefill=_access_prefill,
)


def field_message(intake: Intake, error: ApiError) -> str:
    """The intake's refusal of one field, for people: worded by the field, not checked again
    (a required field's own message says it was left empty)."""
    (spec,) = (f for f in intake.form.fields if f.name == error.param)
    text = intake.texts[spec.name]
    if text.required is not None and error.message == spec.required_message:
        return str(text.required)
    return str(text.invalid) % {"max": spec.max_length}


def _fields(intake: Intake, values: dict[str, str], field_error: dict | None) -> list[dict]:
    return [
        {
            "spec": spec,
            "label": intake.texts[spec.name].label,
            "help": intake.texts[spec.name].help,
            "value": values.get(spec.name, ""),
            "error": field_error["message"]
            if field_error and field_error["param"] == spec.name
            else "",
        }
        for spec in intake.form.fields
    ]


def _render(request, intake, values, *, key=None, error=None, notice="", status=200):
    field_error = None
    if error is not None and error.param in intake.form.names:
        field_error = {"param": error.param, "message": field_message(intake, error)}
    response = render(
        request,
        "pages/intake_form.html",
        {
            "intake": intake,
            "fields": _fields(intake, values, field_error),
            "key": key or uuid.uuid4().hex,
            "error": None if error is None or field_error else intake_message(error),
            "field_error": field_error,
            "notice": notice,
        },
        status=status,
    )
    if error is not None and "retry_after" in error.extra:
        response["Retry-After"] = str(error.extra["retry_after"])
    return response


def form_view(intake: Intake):
    @never_cache
    @require_http_methods(["GET", "HEAD", "POST"])
    def view(request):
        if request.method != "POST":
            at_id = request.GET.get("at_id", "")
            values = intake.prefill(at_id, API_LANG[request.LANGUAGE_CODE]) if at_id else {}
            return _render(request, intake, values)
        values = {name: request.POST.get(name, "") for name in intake.form.names}
        key = request.POST.get("idempotency_key") or None
        try:
            receipt = intake.submit(
                payload=values, client=client_info(request), idempotency_key=key
            )
        except ApiError as error:
            if error.code == "idempotency_conflict":
                # The form was sent before with other content (a page restored from history):
                # a fresh key lets the person send what they see now.
                notice = _(
                    "This form was already sent with other content. Check it and send it again."
                )
                return _render(request, intake, values, notice=notice, status=error.status)
            return _render(request, intake, values, key=key, error=error, status=error.status)
        target = reverse(f"pages:{intake.name}-sent")
        return HttpResponseRedirect(
            f"{target}?{urlencode({'reference': receipt.reference})}", status=303
        )

    return view


def sent_view(intake: Intake):
    @never_cache
    @require_safe
    def view(request):
        reference = request.GET.get("reference", "")
        if not intake.reference.fullmatch(reference):
            raise Http404
        return render(
            request,
            "pages/intake_sent.html",
            {"intake": intake, "reference": reference, "hours": timing.reply_hours()},
        )

    return view
