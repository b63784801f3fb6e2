"""Atom feeds of the current issue: ``/feeds/tenders.atom`` and ``/feeds/new.atom``.

Each is the first page of ``tenders.read.selectors.list_tenders`` (up to 200 rows; ``limit`` may
ask for fewer) with the listing's filters and ``lang`` (default ``en``; the pages' names
``zh-hans`` and ``zh-hant`` are taken too), written with Django's
feed generator. ``new.atom`` is the same with ``new=true`` fixed. Entry ids are tag URIs of
``asaptic_id`` (stable across issues, so a reader sees a row once); every ``updated`` is the
issue's ``generated``. Conditional GETs and bad parameters behave as on the API: ``ETag`` is
the snapshot etag, ``If-None-Match`` gives 304, and a bad parameter gets the API's 400 JSON
error body.
"""

from urllib.parse import urlencode, urlsplit

from django.http import HttpResponse, JsonResponse
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.feedgenerator import Atom1Feed, Stylesheet
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.utils.xmlutils import SimplerXMLGenerator
from django.views.decorators.http import require_safe

from core.api import (
    base_url,
    cache_headers,
    etag_matches,
    named_snapshots,
    not_modified,
    query_params,
)
from core.errors import ApiError
from tenders.labels import API_LANG, CLOSING, HTML_LANG, PAGE_LANG, market_name
from tenders.read import selectors
from tenders.read.query import LIST_PARAMS, MAX_LIMIT, check_params

# The year in every entry id: ids were minted under this authority from then on (RFC 4151).
TAG_YEAR = 2026
# The listing's parameters without paging; new.atom fixes ``new`` itself.
FEED_PARAMS = tuple(p for p in LIST_PARAMS if p != "cursor")
NEW_FEED_PARAMS = tuple(p for p in FEED_PARAMS if p != "new")


class IssueAtomFeed(Atom1Feed):
    """Atom whose feed-level ``updated`` is the issue's, even when no entry matches (Django's
    generator would write the time of the request), with an XSLT stylesheet."""

    def latest_post_date(self):
        return self.feed["updated"]

    def write(self, outfile, encoding):
        # Atom1Feed.write, with the stylesheet instructions RssFeed writes (Django 5.2 writes
        # them for RSS only), before the first tag.
        handler = SimplerXMLGenerator(outfile, encoding, short_empty_elements=True)
        handler.startDocument()
        for stylesheet in self.feed["stylesheets"] or []:
            handler.processingInstruction("xml-stylesheet", stylesheet)
        handler.startElement("feed", self.root_attributes())
        self.add_root_elements(handler)
        self.write_items(handler)
        handler.endElement("feed")


def tag_uri(authority: str, at_id: str) -> str:
    return f"tag:{authority},{TAG_YEAR}:{at_id}"


def feed_lang(params: dict) -> dict:
    """The feeds take the pages' language names too (``zh-hans``, ``zh-hant``, any case) for
    ``lang``: they become the listing's (``zh``, ``zht``); anything else is the listing's to
    accept or refuse."""
    value = params.get("lang")
    if isinstance(value, str) and value.lower() in API_LANG:
        return {**params, "lang": API_LANG[value.lower()]}
    return params


def _feed(request, *, only_new: bool):
    params = query_params(request)
    check_params(params, NEW_FEED_PARAMS if only_new else FEED_PARAMS)
    params = feed_lang(params)
    params = {"lang": "en", "limit": str(MAX_LIMIT), **params}
    if only_new:
        params["new"] = "true"
    issue = selectors.require_current_issue(naming=named_snapshots(request))
    # A bad request is an error even when cached; the plan's issue is the one to answer.
    plan = selectors.plan_list(params, issue)
    issue = plan.issue
    if etag_matches(request, issue.snapshot_etag):
        return not_modified(issue.snapshot_etag)
    page = selectors.plan_answer(plan).data()
    lang = page["meta"]["lang"]
    with translation.override(PAGE_LANG[lang]):
        return cache_headers(
            _write(request, params, page, issue, only_new, lang), issue.snapshot_etag
        )


def _write(request, params, page, issue, only_new, lang) -> HttpResponse:
    base = base_url(request)
    authority = urlsplit(base).hostname or "localhost"
    meta = page["meta"]
    filters = {k: v for k, v in params.items() if k not in ("lang", "limit")}
    browse = base + reverse("pages:tender-list")
    title = _("New tenders in issue %(issue)s") if only_new else _("Tenders in issue %(issue)s")
    feed = IssueAtomFeed(
        title=title % {"issue": meta["issue_id"]},
        link=browse + ("?" + urlencode(filters, doseq=True) if filters else ""),
        description="",
        subtitle=_(
            "%(shown)s of %(total)s matching tenders. Sanitized: no buyer, reference, exact "
            "deadline or amount."
        )
        % {"shown": meta["returned"], "total": meta["total"]},
        language=HTML_LANG[PAGE_LANG[lang]],
        feed_url=request.build_absolute_uri(),
        feed_guid=request.build_absolute_uri(),
        author_name=_("Tender feed"),
        updated=issue.generated,
        # A browser shows the feed as a page through this stylesheet (feed readers ignore it).
        stylesheets=[Stylesheet(static("pages/feed.xsl"), mimetype="text/xsl")],
    )
    for row in page["data"]:
        market = market_name(row["market"], lang)
        feed.add_item(
            title=f"{row['category']['name']} · {market} · {CLOSING[row['closing_bucket']]}",
            link=base + reverse("pages:tender", kwargs={"at_id": row["asaptic_id"]}),
            description=escape(row["summary"]),
            unique_id=tag_uri(authority, row["asaptic_id"]),
            updateddate=issue.generated,
            categories=[row["category"]["name"], row["market"]],
        )
    # A browser (it asks for HTML first) gets the same document as XML, which it renders
    # through the stylesheet; feed readers get Atom's own type.
    browser = _wants_html(request)
    response = HttpResponse(
        content_type="application/xml; charset=utf-8" if browser else feed.content_type
    )
    feed.write(response, "utf-8")
    patch_vary_headers(response, ("Accept",))
    return response


def _wants_html(request) -> bool:
    """True when ``Accept`` ranks text/html above every Atom and XML type (a browser's
    navigation), False for feed readers and for no Accept at all."""
    accept = request.headers.get("Accept", "")
    ranked = [part.split(";")[0].strip().lower() for part in accept.split(",")]
    for media in ranked:
        if media in ("text/html", "application/xhtml+xml"):
            return True
        if media in ("application/atom+xml", "application/xml", "text/xml", "*/*"):
            return False
    return False


def _json_errors(view):
    def wrapped(request):
        try:
            return view(request)
        except ApiError as error:
            return JsonResponse(error.body(), status=error.status)

    return require_safe(wrapped)


@_json_errors
def tenders_feed(request):
    return _feed(request, only_new=False)


@_json_errors
def new_feed(request):
    return _feed(request, only_new=True)
