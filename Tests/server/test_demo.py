"""`make demo > demo.log 2>&1` keeps the whole log: nothing the demo runs reopens the caller's
stdout or stderr (`tee /dev/stderr` reopened the log file and truncated it to the last lines)."""

from __future__ import annotations

import subprocess

from conftest import BINARY, ROOT


def test_the_server_demo_keeps_its_whole_log(tmp_path):
    log = tmp_path / "demo.log"
    with open(log, "w") as out:  # truncating, as a shell's `>` opens it
        result = subprocess.run(["bash", str(ROOT / "examples" / "server" / "demo.sh"), BINARY],
                                stdout=out, stderr=subprocess.STDOUT, timeout=120)
    text = log.read_text()
    assert result.returncode == 0, text
    assert text.startswith("phoneauthd listening on http://127.0.0.1:"), text[:300]
    steps = ["1. sendVerificationCode", '"sessionInfo"', "2. verifyPhoneNumber", "3. getAccountInfo", "4. the keys",
             "phoneauthd stopped cleanly"]
    positions = [text.find(step) for step in steps]
    assert -1 not in positions and positions == sorted(positions), text


def test_no_script_of_make_reopens_the_callers_output():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    scripts = [name for name in tracked if name == ".ci/run" or name.endswith(("Makefile", ".sh"))]
    assert "Makefile" in scripts and "examples/server/demo.sh" in scripts, scripts
    for name in scripts:
        text = (ROOT / name).read_text()
        for device in ("/dev/stdout", "/dev/stderr", "/proc/self/fd/1", "/proc/self/fd/2", "/dev/fd/1", "/dev/fd/2"):
            assert device not in text, f"{name} writes through {device}"
