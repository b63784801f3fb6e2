"""What people read when the domain refuses a request, in the page's language.

The shared parser and the intake services decide what is refused, and their English messages
are the API's contract (REST and the tools send them). A page does not check anything again:
it words the refusal for people by its code and ``param``, from the catalogues in
``locale/``. A code a page cannot meet keeps the API's message.
"""

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.errors import ApiError
from tenders.read.query import MAX_Q
from tenders.read.search import MAX_TERMS


def listing_message(error: ApiError) -> str:
    """The browse form's refusal (``tenders.read.selectors.list_tenders``) for people."""
    if error.code == "invalid_parameter" and error.param == "q":
        return _(
            "This search could not be read. Use at most %(terms)s words or phrases and "
            "%(chars)s characters, and close every double quote."
        ) % {"terms": MAX_TERMS, "chars": MAX_Q}
    if error.code == "invalid_parameter" and error.param == "category":
        return _("This category is not in this week's issue. Choose one of the categories below.")
    if error.code == "invalid_parameter":
        # A market, closing, band or yes/no value, or a name, that the form never sends: the
        # address was typed or edited.
        return _(
            "The address of this page holds a filter the list does not know. Choose the "
            "filters again below."
        )
    if error.code == "invalid_cursor":
        return _("This page link is no longer valid.")
    if error.code == "snapshot_changed":
        return _("A new issue of the feed was published since this page was shown.")
    return error.message


def intake_message(error: ApiError) -> str:
    """A form's refusal that is about no one field (``rfq.services``) for people."""
    if error.code == "rate_limited":
        minutes = max(1, -(-int(error.extra.get("retry_after", 60)) // 60))
        return ngettext(
            "Too many requests were sent from your network. Please try again in %(n)s minute.",
            "Too many requests were sent from your network. Please try again in %(n)s minutes.",
            minutes,
        ) % {"n": minutes}
    if error.code == "service_unavailable":
        return _(
            "Your request could not be stored just now and nothing was recorded. Please send "
            "it again in a minute."
        )
    if error.code in ("invalid_parameter", "invalid_body"):
        # The form's own fields are worded by the form; this is its hidden key or its shape.
        return _("This form could not be read. Reload the page and send it again.")
    return error.message
