"""The OpenAPI description of the capabilities document."""

from tenders.api.openapi import (
    IF_NONE_MATCH,
    METHOD_NOT_ALLOWED,
    NOT_MODIFIED,
    object_schema,
    ref,
    response_headers,
)

LANE = object_schema(
    {
        "id": {"type": "string", "description": "Stable lane id."},
        "name": {"type": "string"},
        "summary": {"type": "string"},
        "sources": {"type": "string", "description": "Where supply comes from."},
        "markets": {"type": "array", "items": {"type": "string"}, "description": "Market codes."},
        "compliance": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Compliance item ids (see compliance).",
        },
        "page": {"type": "string", "format": "uri"},
    }
)
COMPONENTS = {
    "Lane": LANE,
    "Capabilities": {
        "type": "object",
        "required": ["service", "lanes", "markets", "compliance", "engagement", "links"],
        "properties": {
            "service": object_schema(
                {"name": {"type": "string"}, "description": {"type": "string"}}
            ),
            "lanes": {"type": "array", "items": ref("Lane")},
            "markets": {
                "type": "array",
                "items": object_schema(
                    {
                        "code": {"type": "string"},
                        "name_en": {"type": "string"},
                        "name_zh": {"type": "string"},
                        "name_zht": {"type": "string"},
                        "notes": {"type": "string"},
                        "lanes": {"type": "array", "items": {"type": "string"}},
                    }
                ),
            },
            "compliance": {
                "type": "array",
                "items": object_schema(
                    {
                        "id": {"type": "string"},
                        "name": {"type": "string"},
                        "description": {"type": "string"},
                        "markets": {"type": "array", "items": {"type": "string"}},
                    }
                ),
            },
            "engagement": ref("Engagement"),
            "links": {"type": "object", "additionalProperties": {"type": "string"}},
        },
    },
    "Engagement": object_schema(
        {
            "model": {"type": "string", "const": "deposit-first"},
            "name": {"type": "string"},
            "summary": {"type": "string"},
            "reply": object_schema(
                {
                    "within_hours": {"type": "integer", "minimum": 1},
                    "promise": {"type": "string"},
                    "note": {"type": "string"},
                }
            ),
            "deposit": object_schema(
                {
                    "percent": {"type": "integer", "minimum": 1, "maximum": 100},
                    "terms": {"type": "string"},
                }
            ),
            "steps": {
                "type": "array",
                "items": object_schema(
                    {
                        "stage": {"type": "string"},
                        "buyer_pays": {"type": "string"},
                        "when": {"type": "string"},
                        "buyer_gets": {"type": "string"},
                    }
                ),
            },
        },
        description="How a buyer engages: what is paid when, what the buyer gets, how fast we "
        "reply.",
    ),
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
