"""What every public operation shares in the OpenAPI document, and its published components.

drf-spectacular generates the document from the views. A view names its operation with
``public_get`` (an ``extend_schema`` that adds CORS, the conditional GET and the 405 every
keyless GET has) and its answers with ``ref`` to a component. The components are the published
JSON Schema files of ``tenders_client``, added once by the ``published_components`` hook.
"""

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from tenders_client import contract

from core.api import NO_STORE, PUBLIC_CACHE, READ_ONLY_METHODS, not_allowed_message
from core.errors import ApiError, error_body

HEADER = OpenApiParameter.HEADER

# Components that are published schema files. Where one contains another, the document says
# so with a $ref (the files themselves stand alone).
PUBLISHED = {
    "TenderRow": contract.ROW,
    "TenderRowOneLanguage": contract.LANG_ROW,
    "TenderList": contract.PAGE,
    "TenderOne": contract.ONE,
    "TenderFacets": contract.FACETS,
    "FeedHealth": contract.HEALTH,
    "FlatFile": contract.FLAT_FILE,
    "Error": contract.ERROR,
    "Lane": contract.LANE,
    "Engagement": contract.ENGAGEMENT,
    "Capabilities": contract.CAPABILITIES,
    "RfqReceipt": contract.RFQ_RECEIPT,
}
# The RFQ receipt has always been the bare file.
UNLINKED = {"RfqReceipt"}


class Schema(AutoSchema):
    """The schema class of every view (DEFAULT_SCHEMA_CLASS): a docstring is the description,
    its lines joined within each paragraph."""

    def get_description(self) -> str:
        paragraphs = super().get_description().split("\n\n")
        return "\n\n".join(" ".join(paragraph.split()) for paragraph in paragraphs)


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _with_refs(schema, whole: dict, top: bool = False):
    """``schema`` with each part that is a whole published schema replaced by its $ref."""
    if isinstance(schema, list):
        return [_with_refs(item, whole) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if not top:
        for name, published in whole.items():
            if schema == published:
                return ref(name)
    return {key: _with_refs(value, whole) for key, value in schema.items()}


def published_components(result, generator, request, public):
    """drf-spectacular postprocessing hook: the published schemas as components."""
    whole = {name: contract.embedded(contract.load(file)) for name, file in PUBLISHED.items()}
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, file in PUBLISHED.items():
        schemas[name] = _with_refs(whole[name], whole, top=True)
        if name not in UNLINKED:
            schemas[name]["externalDocs"] = {
                "description": "The same schema as a JSON Schema file",
                "url": contract.URL_PREFIX + file,
            }
    # The one answer that is not a file of its own: the error body with access_url required.
    schemas["GatedError"] = {
        "allOf": [
            ref("Error"),
            {
                "required": ["error", "access_url"],
                "properties": {"error": {"properties": {"code": {"const": "SPEC_CODED_GATED"}}}},
            },
        ]
    }
    result["components"]["schemas"] = dict(sorted(schemas.items()))
    return result


def answer(component: str, description: str, *examples: OpenApiExample) -> OpenApiResponse:
    return OpenApiResponse(ref(component), description=description, examples=list(examples))


def error(description: str, *examples: OpenApiExample) -> OpenApiResponse:
    """An answer with the one error body (``core.errors``)."""
    return answer("Error", description, *examples)


def example(name: str, value, summary: str = "") -> OpenApiExample:
    return OpenApiExample(name, value=value, summary=summary)


def raised(call, *args, **kwargs) -> dict:
    """The error body of what ``call`` raises or returns: an example made by the real code."""
    try:
        result = call(*args, **kwargs)
    except ApiError as refused:
        return refused.body()
    if isinstance(result, ApiError):
        return result.body()
    raise AssertionError(f"{call.__name__}{args} was accepted")


IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    str,
    HEADER,
    description="An ETag from an earlier response; 304 when the snapshot is unchanged.",
)
NOT_MODIFIED = OpenApiResponse(description="Not modified: the snapshot is the one you have.")
METHOD_NOT_ALLOWED = error(
    "method_not_allowed: only GET, HEAD and OPTIONS; the Allow header lists them.",
    example(
        "method_not_allowed",
        error_body("method_not_allowed", not_allowed_message("POST", READ_ONLY_METHODS)),
    ),
)


def _header(name: str, schema, codes: list, description: str = "") -> OpenApiParameter:
    return OpenApiParameter(name, schema, HEADER, response=codes, description=description)


def _headers(codes: list, cache: str | None, vary: str | None) -> list:
    ok = [code for code in codes if code in (200, 304)]
    headers = [
        _header(
            "Access-Control-Allow-Origin",
            {"type": "string", "const": "*"},
            codes,
            "Any origin may read this keyless response.",
        )
    ]
    if cache == PUBLIC_CACHE:
        headers += [
            _header("ETag", str, ok, 'The snapshot etag, quoted: "<snapshot_etag>".'),
            _header(
                "Cache-Control",
                {"type": "string", "const": PUBLIC_CACHE},
                ok,
                "Caches may store the response but must revalidate it.",
            ),
        ]
    elif cache == NO_STORE:
        headers.append(
            _header("Cache-Control", {"type": "string", "const": NO_STORE}, codes, "Never cached.")
        )
    if vary:
        headers.append(_header("Vary", {"type": "string", "const": vary}, ok))
    return headers


def public_get(
    operation_id: str | None,
    summary: str | None,
    tag: str,
    responses: dict,
    *,
    parameters: list = (),
    cache: str | None = PUBLIC_CACHE,
    vary: str | None = None,
):
    """``extend_schema`` of a keyless GET (the view's docstring is its description): CORS on
    every answer to a GET, 405 for other methods; with the public cache also If-None-Match,
    304, ETag and Cache-Control."""
    if cache == PUBLIC_CACHE:
        ok = {code: answer for code, answer in responses.items() if code < 300}
        responses = {**ok, 304: NOT_MODIFIED, **responses}
        parameters = [*parameters, IF_NONE_MATCH]
    headers = _headers(list(responses), cache, vary)
    return extend_schema(
        operation_id=operation_id,
        summary=summary,
        tags=[tag],
        parameters=[*parameters, *headers],
        responses={**responses, 405: METHOD_NOT_ALLOWED},
    )
