"""``POST /rfq`` (submitRfq): a thin view over ``rfq.services.rfq_submit``.

It reads the body with the one strict reader (``core.jsonbody``), passes the parsed body,
the client and the Idempotency-Key header to the service, and turns ``ApiError`` into the
contract's error body. Rules, limits and idempotency live in the service, shared with the tool
server.
"""

import json

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions
from rest_framework.parsers import JSONParser
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from core import jsonbody
from core.api import JsonOnly
from core.clients import client_info
from core.errors import ApiError
from rfq import services

from .openapi import RFQ_EXAMPLE, submit_rfq_schema


class SubmitRfqView(APIView):
    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = []
    # The body is read raw (see core.jsonbody); the parser only documents the media type.
    parser_classes = [JSONParser]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JsonOnly

    @extend_schema(**submit_rfq_schema())
    def post(self, request):
        jsonbody.check_content_type(request.META.get("CONTENT_TYPE"))
        raw = jsonbody.read_body(request, settings.RFQ_MAX_BODY_BYTES)
        payload = jsonbody.parse_json(raw, example=json.dumps(RFQ_EXAMPLE))
        receipt = services.rfq_submit(
            payload=payload,
            client=client_info(request),
            idempotency_key=request.headers.get("Idempotency-Key"),
        )
        response = Response(receipt.as_dict())
        if receipt.replayed:
            response["Idempotent-Replayed"] = "true"
        return response

    def handle_exception(self, exc):
        if isinstance(exc, exceptions.MethodNotAllowed):
            exc = ApiError(
                405, "method_not_allowed", "Send a request for quote with POST, as JSON."
            )
        if not isinstance(exc, ApiError):
            return super().handle_exception(exc)
        response = Response(exc.body(), status=exc.status)
        if "retry_after" in exc.extra:
            response["Retry-After"] = str(exc.extra["retry_after"])
        return response

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        # Answers are personal (a reference, a limit): never stored by a cache on the way.
        response["Cache-Control"] = "no-store"
        return response
