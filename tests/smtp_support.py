"""A real SMTP server for tests: aiosmtpd on 127.0.0.1, collecting what it receives."""

import email
import email.policy
import re
import socket
import threading
import time
from contextlib import contextmanager
from urllib.parse import urlsplit

from aiosmtpd.controller import Controller


class Inbox:
    """What the server received, as parsed messages (with the envelope's recipients)."""

    def __init__(self, delay: float = 0.0):
        self.messages: list[email.message.EmailMessage] = []
        self.delay = delay
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        if self.delay:
            import asyncio

            await asyncio.sleep(self.delay)
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        message["X-Envelope-To"] = ",".join(envelope.rcpt_tos)
        with self.lock:
            self.messages.append(message)
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list:
        with self.lock:
            return [m for m in self.messages if m["X-Envelope-To"] == address]

    def wait(self, count: int, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.messages) < count:
            assert time.monotonic() < deadline, f"{len(self.messages)} of {count} mails arrived"
            time.sleep(0.02)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def smtp_server(delay: float = 0.0):
    inbox = Inbox(delay)
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    inbox.port = controller.port
    try:
        yield inbox
    finally:
        controller.stop()


def text_of(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def html_of(message) -> str:
    return message.get_body(preferencelist=("html",)).get_content()


def links(text: str) -> list[str]:
    return re.findall(r"https?://[^\s<>\"]+", text)


def path_of(url: str) -> str:
    return urlsplit(url).path
