"""Requests to phoneauthd's console as a browser would send them, without following redirects
(the console answers each action with a 303 to the page that says its outcome)."""

from __future__ import annotations

import http.client
import urllib.parse
from typing import Dict, Optional, Sequence, Tuple, Union

Form = Union[Dict[str, str], Sequence[Tuple[str, str]]]


def raw(server, method: str, path: str, body: str = "", headers: Optional[Dict[str, str]] = None
        ) -> Tuple[int, Dict[str, str], str]:
    """One request: its status, headers (names in lower case) and body."""
    host, port = server.host_port.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.request(method, path, body=body or None, headers=headers or {})
    answer = connection.getresponse()
    result = answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read().decode()
    connection.close()
    return result


def send(server, method: str, path: str, cookie: Optional[str], form: Optional[Form] = None
         ) -> Tuple[int, Dict[str, str], str]:
    """A request with the session's cookie and, when given, a form."""
    headers = {"Cookie": cookie} if cookie else {}
    if form is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    return raw(server, method, path, urllib.parse.urlencode(form) if form is not None else "", headers)
