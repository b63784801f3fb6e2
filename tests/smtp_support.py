"""A small real SMTP server on 127.0.0.1 for tests: it speaks enough of RFC 5321 for Django's
SMTP backend (EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT; no TLS, no AUTH) and keeps every
message it receives as bytes."""

import socketserver
import threading
from contextlib import contextmanager
from email import message_from_bytes, policy


class _Session(socketserver.StreamRequestHandler):
    def reply(self, line: str) -> None:
        self.wfile.write(line.encode() + b"\r\n")

    def handle(self):
        self.reply("220 test-smtp ready")
        while line := self.rfile.readline():
            verb = line[:4].upper()
            if verb in (b"EHLO", b"HELO"):
                self.reply("250 test-smtp")
            elif verb in (b"MAIL", b"RCPT"):
                self.reply("250 OK")
            elif verb == b"DATA":
                self.reply("354 end with <CRLF>.<CRLF>")
                body = []
                while (part := self.rfile.readline()) not in (b".\r\n", b""):
                    body.append(part[1:] if part.startswith(b"..") else part)
                self.server.messages.append(
                    message_from_bytes(b"".join(body), policy=policy.default)
                )
                self.reply("250 OK queued")
            elif verb in (b"RSET", b"NOOP"):
                self.reply("250 OK")
            elif verb == b"QUIT":
                self.reply("221 bye")
                return
            else:
                self.reply("502 not implemented")


@contextmanager
def smtp_server():
    """Yield the server (``.port``, ``.messages``: email.message.EmailMessage objects)."""
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Session)
    server.daemon_threads = True
    server.messages = []
    server.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
