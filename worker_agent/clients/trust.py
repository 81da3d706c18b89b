"""How a client (a rank, a watched job's reporter, `ringside run`, `ringside up` asking its own
server) trusts a server's TLS certificate. By default as any site's: the system's certificate
authorities and the name in the URL. With a certificate file (RINGSIDE_SERVER_CA, or the one
`ringside up` serves, which it hands its local ranks), that file alone is trusted, and may hold
the server's own certificate (a self-signed one) or any of its chain; on a loopback address the
name is not checked, as the certificate is pinned and a local rank dials 127.0.0.1, which a
certificate for a lecture hall's name does not name."""

from __future__ import annotations

import ipaddress
import os
import ssl
from urllib.parse import urlsplit

CA_VARIABLE = "RINGSIDE_SERVER_CA"


def _loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def context_for(url: str, ca: str | None = None) -> ssl.SSLContext | None:
    """The TLS context for `url` (http(s)://, ws(s)://) trusting `ca` (default $RINGSIDE_SERVER_CA);
    None for a plain URL, or for the default trust (the client's library makes that)."""
    parts = urlsplit(url)
    ca = ca or os.environ.get(CA_VARIABLE)
    if parts.scheme not in ("https", "wss") or not ca:
        return None
    context = ssl.create_default_context(cafile=ca)
    # the server's own certificate, or an intermediate of its chain, as the anchor
    context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN
    context.check_hostname = not _loopback(parts.hostname or "")
    return context
