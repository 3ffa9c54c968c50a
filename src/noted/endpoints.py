"""Whether a model endpoint is on this machine: the one local/remote rule of chat and embeddings.

An endpoint is local only when its host is loopback (127.0.0.0/8, ``::1``, ``localhost``). LAN
addresses (192.168.x, 10.x, a host name that happens to resolve locally) count as remote, and
nothing is resolved through DNS, so the answer cannot change under a person's feet. Sending notes
to a remote endpoint needs ``ai.allowRemote``.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def is_loopback_url(url: str) -> bool:
    """Whether ``url`` points at this machine. A URL that does not parse is remote."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return False
    if not host:
        return False
    host = host.rstrip(".").lower()
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback
