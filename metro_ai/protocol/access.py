"""Who may talk to a WebSocket server (``metro-ai serve --ws`` and ``metro-ai web``): `Access`.

The token is the one credential: every WebSocket handshake presents it, the page of ``metro-ai
web`` included. Two more checks stand behind it, so that a web page the user visits cannot drive
the server even if it learnt the token:

- **Token**: ``?token=TOKEN`` in the handshake's URL (a fresh random one each start, printed with
  the address, or ``--token``). ``metro-ai web`` prints and opens its page's address with the
  token (``http://127.0.0.1:PORT/?token=TOKEN``); the page keeps it and passes it in the URL of
  its own handshake. The page's files (HTML, CSS, JavaScript) are served without it: they hold
  nothing private.
- **Host**: the ``Host`` header names the server as it listens (``127.0.0.1``, ``localhost`` or
  ``[::1]`` with the port on a loopback address; the ``--host`` it was given; the hosts of the
  ``--allow-origin`` origins). A page of another site whose name was made to resolve to 127.0.0.1
  (DNS rebinding) sends its own name, and is refused.
- **Origin** (a WebSocket handshake that carries one, as every browser's does): only the server's
  own origin (``http://`` and one of the names above) and those given with ``--allow-origin``.
  A program may send no ``Origin``; it still needs the token.

Listening beyond loopback takes ``allow_remote`` (``--allow-remote``) and prints a warning.
docs/security.md says all of it for users.
"""
from __future__ import annotations

import hmac
import ipaddress
import secrets
from typing import Any, Iterable, Optional
from urllib.parse import parse_qs, urlsplit

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    """Whether `host` (a name or an address to listen on) is this machine only."""
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def normal_origin(origin: str) -> str:
    """An origin as browsers send it (``scheme://host[:port]``, lower case); ValueError if it is
    not one."""
    parts = urlsplit(origin.strip().rstrip("/"))
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path or parts.query or parts.fragment \
            or "@" in parts.netloc:
        raise ValueError(f"--allow-origin takes an origin like http://localhost:3000, got {origin!r}")
    try:
        parts.port
    except ValueError:
        raise ValueError(f"--allow-origin: bad port in {origin!r}") from None
    return f"{parts.scheme}://{parts.netloc.lower()}"


class Access:
    """The Host, Origin and token rules of one server (see the module docstring). Call
    :meth:`bind` with the port once listening; :meth:`refuse` says why a request is refused
    (``(status, text)``), or None."""

    def __init__(self, host: str, token: Optional[str] = None, allow_origins: Iterable[str] = (),
                 allow_remote: bool = False):
        self.host = host.strip("[]")
        if not is_loopback(self.host) and not allow_remote:
            raise ValueError(f"listening on {host or '0.0.0.0'!r} lets other machines connect: add --allow-remote "
                             "if you mean it (see docs/security.md)")
        self.remote = not is_loopback(self.host)
        if token is not None and (len(token) < 16 or not token.isprintable() or any(c in token for c in " &#?%+/")):
            raise ValueError("--token must be at least 16 characters, printable, without spaces or &#?%+/")
        self.token = token if token is not None else secrets.token_urlsafe(24)
        self.allow_origins = {normal_origin(o) for o in allow_origins}
        self.hosts: set[str] = set()
        self.origins: set[str] = set()

    @property
    def names(self) -> list[str]:
        """The names the server answers to, as in a URL (IPv6 in brackets), without the port."""
        names = list(LOOPBACK_NAMES) if is_loopback(self.host) or self.host in WILDCARDS else []
        if self.host not in WILDCARDS:
            shown = f"[{self.host}]" if ":" in self.host else self.host
            if shown.lower() not in names:
                names.append(shown.lower())
        return names

    def bind(self, port: int) -> None:
        """The port is known: the Host values and origins of the server itself."""
        hosts = {f"{n}:{port}" for n in self.names}
        if port == 80:
            hosts |= set(self.names)
        self.origins = {f"http://{h}" for h in hosts} | self.allow_origins
        self.hosts = hosts | {urlsplit(o).netloc for o in self.allow_origins}

    def url_token(self) -> str:
        return f"token={self.token}"

    def refuse(self, request: Any) -> Optional[tuple[int, str]]:
        """Why `request` (a ``websockets`` Request) is refused, as (HTTP status, text); None if
        it may go on."""
        headers = request.headers
        hosts = headers.get_all("Host")
        if len(hosts) != 1 or hosts[0].strip().lower() not in self.hosts:
            return 421, "refused: the Host header does not name this server (see docs/security.md)\n"
        if not any("websocket" in value.lower() for value in headers.get_all("Upgrade")):
            return None                                 # a page's file: served to any origin, as files are
        origins = headers.get_all("Origin")
        if len(origins) > 1:
            return 403, "refused: more than one Origin header\n"
        if origins and origins[0].strip().lower().rstrip("/") not in self.origins:
            return 403, ("refused: a page of another origin may not use this server (start it with "
                         "--allow-origin ORIGIN to allow one; see docs/security.md)\n")
        if not self.token_given(request.path):
            return 403, ("refused: every client, this server's own page included, must present the server's token "
                         "(?token=TOKEN in the address it printed when it started; see docs/security.md)\n")
        return None

    def token_given(self, path: str) -> bool:
        """Whether the request `path` (``/ws?token=...``) carries this server's token, once."""
        given = parse_qs(urlsplit(path).query).get("token", [])
        return len(given) == 1 and hmac.compare_digest(given[0].encode(), self.token.encode())
