"""Who sent a submission: the client's network address and software, for rate limits and abuse
handling.

The address is ``REMOTE_ADDR`` unless ``TRUSTED_PROXY_COUNT`` says the service runs behind that
many reverse proxies, each appending the address it received from to ``X-Forwarded-For``; then
the client is the entry that many places from the right. Entries further left are whatever the
client chose to send and are never trusted.
"""

import ipaddress
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest

USER_AGENT_MAX_LENGTH = 300


@dataclass(frozen=True)
class ClientInfo:
    ip: str | None
    user_agent: str = ""


def client_info(request: HttpRequest) -> ClientInfo:
    """The sender of a Django request (a DRF request works too)."""
    meta = request.META
    remote = _valid_ip(meta.get("REMOTE_ADDR"))
    ip = remote
    hops = settings.TRUSTED_PROXY_COUNT
    if hops > 0:
        forwarded = [p.strip() for p in meta.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        forwarded = [p for p in forwarded if p]
        # A shorter header means the request did not pass through every trusted proxy.
        if len(forwarded) >= hops:
            ip = _valid_ip(forwarded[-hops]) or remote
    return ClientInfo(ip=ip, user_agent=clean_user_agent(meta.get("HTTP_USER_AGENT", "")))


def clean_user_agent(value: str) -> str:
    return "".join(ch for ch in value if ch.isprintable())[:USER_AGENT_MAX_LENGTH]


def _valid_ip(value: str | None) -> str | None:
    if not value:
        return None
    try:
        return str(ipaddress.ip_address(value.strip()))
    except ValueError:
        return None


def rate_limit_subject(ip: str | None) -> str:
    """The bucket a client's submissions are counted in. One IPv6 host usually holds a whole
    /64 and can change addresses within it at will, so IPv6 is counted per /64."""
    if ip is None:
        return "unknown"
    address = ipaddress.ip_address(ip)
    if address.version == 6 and address.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    if address.version == 6:
        return str(address.ipv4_mapped)
    return str(address)
