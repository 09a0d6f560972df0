"""Headless Chromium (Debian's `chromium`), driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: messages are JSON, each ended by a NUL byte, on file descriptors 3 and 4),
so no extra package and no port are needed.

    with Browser(tmp_path) as browser:
        tab = browser.open(url)
        navigation = tab.wait_for_navigation(lambda url: url.startswith("com.example.app:"))
        tab.screenshot(path)
"""

from __future__ import annotations

import base64
import json
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

EXECUTABLE = shutil.which("chromium") or shutil.which("chromium-browser")
# Long enough for a busy machine: each wait ends on an event the browser sends, never on this.
TIMEOUT = 60.0


class BrowserError(AssertionError):
    pass


class Browser:
    def __init__(self, directory: Path):
        if EXECUTABLE is None:
            raise BrowserError("chromium is not installed (make deps installs it)")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()
        self._log = open(directory / "chromium.log", "wb")
        arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                     "--no-default-browser-check", "--disable-extensions", "--disable-sync",
                     "--disable-background-networking", "--disable-component-update", "--window-size=412,760",
                     f"--user-data-dir={directory / 'chromium-profile'}", "--remote-debugging-pipe", "about:blank"]
        # The protocol's descriptors are 3 and 4. bash moves the pipes there (preexec_fn is unsafe in
        # a process with threads; dash takes one-digit descriptors only), in a session of its own
        # so all of it can be killed.
        self.process = subprocess.Popen(
            ["/bin/bash", "-c", f'exec "$0" "$@" 3<&{to_browser_read} 4>&{from_browser_write}', EXECUTABLE, *arguments],
            pass_fds=(to_browser_read, from_browser_write), stdout=self._log, stderr=self._log,
            start_new_session=True)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._next_id = 0
        self._lock = threading.Lock()
        self._replies: Dict[int, "queue.Queue[Dict[str, Any]]"] = {}
        self._sessions: Dict[str, "queue.Queue[Dict[str, Any]]"] = {}
        self._closed = False
        threading.Thread(target=self._read, daemon=True).start()

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                try:
                    message = json.loads(raw)
                except ValueError:
                    message = {"method": "unreadable", "params": {"text": raw[:200].decode(errors="replace")}}
                if "id" in message and message["id"] in self._replies:
                    self._replies[message["id"]].put(message)
                elif "sessionId" in message:
                    self.events(message["sessionId"]).put(message)
        with self._lock:
            self._closed = True
            for waiting in list(self._replies.values()) + list(self._sessions.values()):
                waiting.put({"method": "closed", "error": {"message": "the browser closed"}})

    def events(self, session: str) -> "queue.Queue[Dict[str, Any]]":
        """The events of one tab, kept until it reads them."""
        with self._lock:
            return self._sessions.setdefault(session, queue.Queue())

    def call(self, method: str, params: Optional[Dict[str, Any]] = None,
             session: Optional[str] = None) -> Dict[str, Any]:
        with self._lock:
            if self._closed:
                raise BrowserError(f"{method}: the browser has closed")
            self._next_id += 1
            ident = self._next_id
            reply: "queue.Queue[Dict[str, Any]]" = queue.Queue()
            self._replies[ident] = reply
            message = {"id": ident, "method": method, "params": params or {}}
            if session:
                message["sessionId"] = session
            try:
                os.write(self._to_browser, json.dumps(message).encode() + b"\0")
            except OSError as error:
                raise BrowserError(f"{method}: {error}") from None
        try:
            answer = reply.get(timeout=TIMEOUT)
        except queue.Empty:
            raise BrowserError(f"{method}: no answer from the browser") from None
        finally:
            self._replies.pop(ident, None)
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    def open(self, url: str) -> "Tab":
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        tab = Tab(self, session)
        self.events(session)
        for domain in ("Page", "Runtime", "Log"):
            tab.call(f"{domain}.enable")
        tab.call("Page.navigate", {"url": url})
        return tab

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.call("Browser.close")
                self.process.wait(timeout=TIMEOUT)
            except (BrowserError, subprocess.TimeoutExpired):
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # what is left of it: renderers, helpers
        except OSError:
            pass
        self.process.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()


class Tab:
    def __init__(self, browser: Browser, session: str):
        self.browser, self.session = browser, session
        self.seen: List[Dict[str, Any]] = []  # every event of this tab, for the assertions' messages

    def call(self, method: str, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        return self.browser.call(method, params, self.session)

    def wait_for(self, matches: Callable[[Dict[str, Any]], bool], what: str) -> Dict[str, Any]:
        """The next event of this tab that `matches`; fails when the browser closes first, or
        when none comes within TIMEOUT (a bound for a broken page, not part of any test's logic)."""
        deadline = time.monotonic() + TIMEOUT
        events = self.browser.events(self.session)
        while True:
            try:
                event = events.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise BrowserError(f"waiting for {what}: nothing came; the page logged: {self.console()}") from None
            if event.get("method") == "closed":
                raise BrowserError(f"the browser closed while waiting for {what}")
            self.seen.append(event)
            if matches(event):
                return event

    def wait_for_navigation(self, where: Callable[[str], bool]) -> str:
        """The URL of the next navigation the page asks for (a script's `location.replace`, say)
        that satisfies `where`: seen before the browser decides what to do with it, so a custom
        scheme no browser handles is seen too."""
        event = self.wait_for(lambda e: e.get("method") == "Page.frameRequestedNavigation"
                              and where(e["params"]["url"]), "a navigation")
        return event["params"]["url"]

    def wait_for_console(self, text: str) -> None:
        """Until the page logs a line containing `text` (console.log)."""
        self.wait_for(lambda e: e.get("method") == "Runtime.consoleAPICalled"
                      and any(text in str(a.get("value")) for a in e["params"].get("args", [])),
                      f"the page to log {text!r}")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element, scrolled into view first (of its first
        line box: the middle of a link that wraps may fall between its lines)."""
        box = self.evaluate(f"(function () {{ var e = document.querySelector({json.dumps(selector)});"
                            " e.scrollIntoView({block: 'center'}); var r = e.getClientRects()[0];"
                            " return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent",
                      {"type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1})

    def screenshot(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"]))

    def console(self) -> List[str]:
        """What the page logged (CSP reports included), from the events seen so far."""
        lines = []
        for event in self.seen:
            if event.get("method") == "Log.entryAdded":
                lines.append(event["params"]["entry"].get("text", ""))
            elif event.get("method") == "Runtime.consoleAPICalled":
                lines.append(" ".join(str(a.get("value")) for a in event["params"].get("args", [])))
        return lines
