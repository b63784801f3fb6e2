"""The OpenAPI description of the capabilities document."""

from tenders import contract
from tenders.api.openapi import (
    IF_NONE_MATCH,
    METHOD_NOT_ALLOWED,
    NOT_MODIFIED,
    published,
    ref,
    response_headers,
)


def _capabilities() -> dict:
    schema = published(contract.CAPABILITIES)
    schema["properties"]["lanes"]["items"] = ref("Lane")
    schema["properties"]["engagement"] = ref("Engagement")
    return schema


COMPONENTS = {
    "Lane": published(contract.LANE),
    "Capabilities": _capabilities(),
    "Engagement": published(contract.ENGAGEMENT),
}


def components() -> dict:
    return COMPONENTS


GET_CAPABILITIES = dict(
    operation_id="getCapabilities",
    summary="Sourcing capabilities",
    description="Sourcing lanes, the markets served, compliance checks and the deposit-first "
    "engagement model (what is paid when, what the buyer gets, the reply promise), as staff "
    "keep them. Requests for quote go to the submit_rfq tool on /mcp or POST /rfq.",
    tags=["sourcing"],
    parameters=[IF_NONE_MATCH, *response_headers([200, 304])],
    responses={200: ref("Capabilities"), 304: NOT_MODIFIED},
)

GET_CAPABILITIES["responses"][405] = METHOD_NOT_ALLOWED
