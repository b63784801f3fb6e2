"""The one error contract of every JSON surface.

Body: ``{"error": {"code": "...", "message": "...", "param": "..."}}``; ``param`` only where one
input is at fault; extra top-level members (such as ``access_url``) where a code needs them.
Services and selectors raise ``ApiError``; each interface (REST view, tool, command) turns it
into its own shape with ``body()``, so codes and messages are written once.
"""

from dataclasses import dataclass, field


@dataclass
class ApiError(Exception):
    status: int
    code: str
    message: str
    param: str | None = None
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        super().__init__(self.message)

    def body(self) -> dict:
        return error_body(self.code, self.message, self.param, **self.extra)


def error_body(code: str, message: str, param: str | None = None, **extra) -> dict:
    error = {"code": code, "message": message}
    if param is not None:
        error["param"] = param
    return {"error": error, **extra}


# Seconds a client is asked to wait when the database does not answer (Retry-After).
DATABASE_RETRY_AFTER = 10


def database_unavailable() -> ApiError:
    """The answer of every surface when the database cannot be reached or does not answer."""
    return ApiError(
        503,
        "service_unavailable",
        "The service cannot reach its database just now; try again in "
        f"{DATABASE_RETRY_AFTER} seconds.",
    )
