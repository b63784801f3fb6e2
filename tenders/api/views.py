"""Public HTTP views of the feed. Thin: they call selectors and shape responses."""

from django.http import JsonResponse
from django.views.decorators.http import require_GET

from tenders.selectors import feed_health


@require_GET
def health(request):
    record = feed_health()
    response = JsonResponse(record, status=503 if record["status"] == "unavailable" else 200)
    response["Cache-Control"] = "no-store"
    response["Access-Control-Allow-Origin"] = "*"
    return response
