#!/usr/bin/env python3
"""make check-sizes: the size budget of the Swift code in Sources/.

No file over 400 lines, no function (func, init, deinit, subscript) over 80 lines from its
declaration to its closing brace, no line over 120 characters. Prints each breach as
path:line: what, and exits 1 if there is any. HTML, SQL or other text that is data belongs in a
resource file, not in a Swift string.

    check_sizes.py [ROOT]     (default: the repository's Sources/)
"""
import re
import sys
from pathlib import Path

MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 80
MAX_LINE_CHARACTERS = 120

DECLARATION = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|private|fileprivate|internal|package|open|static|class|final|override|mutating|"
    r"nonmutating|nonisolated|convenience|required|dynamic|isolated|consuming|borrowing)(?:\([^)]*\))?\s+)*"
    r"(?:func\s|init[?!]?\s*[(<]|deinit\b|subscript\s*[(<])"
)
# A signature continued on the next line.
CONTINUATION = re.compile(r"^\s*(?:->|throws|rethrows|async|where|\))")


def code_only(text):
    """The text with comments and string literals blanked (newlines kept), so that braces and
    parentheses can be counted. String interpolations stay code."""
    out = []
    i, n = 0, len(text)
    # Each entry: ("code", paren depth inside an interpolation or None) or ("string", quote, hashes).
    stack = [("code", None)]
    while i < n:
        c = text[i]
        top = stack[-1]
        if top[0] == "code":
            if text.startswith("//", i):
                end = text.find("\n", i)
                end = n if end < 0 else end
                out.append(" " * (end - i))
                i = end
                continue
            if text.startswith("/*", i):
                depth, j = 1, i + 2
                while j < n and depth:
                    if text.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif text.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                    else:
                        j += 1
                out.append(re.sub(r"[^\n]", " ", text[i:j]))
                i = j
                continue
            match = re.match(r'(#*)("""|")', text[i:i + 8])
            if match and (match.group(1) or c == '"'):
                hashes, quote = match.group(1), match.group(2)
                out.append(" " * len(match.group(0)))
                i += len(match.group(0))
                stack.append(("string", quote, hashes))
                continue
            if top[1] is not None:
                if c == "(":
                    stack[-1] = ("code", top[1] + 1)
                elif c == ")":
                    if top[1] == 0:
                        stack.pop()
                        out.append(" ")
                        i += 1
                        continue
                    stack[-1] = ("code", top[1] - 1)
            out.append(c)
            i += 1
            continue
        _, quote, hashes = top
        if text.startswith("\\" + hashes, i):
            after = i + 1 + len(hashes)
            if after < n and text[after] == "(":
                out.append(" " * (after + 1 - i))
                i = after + 1
                stack.append(("code", 0))
                continue
            if hashes == "" and after < n:
                out.append(" " if text[after] != "\n" else " \n")
                i = after + 1
                continue
        if text.startswith(quote + hashes, i):
            out.append(" " * (len(quote) + len(hashes)))
            i += len(quote) + len(hashes)
            stack.pop()
            continue
        out.append("\n" if c == "\n" else " ")
        i += 1
    return "".join(out)


def function_lengths(lines):
    """(first line number, line count, declaration) of each function with a body."""
    found = []
    for start, line in enumerate(lines):
        if not DECLARATION.match(line):
            continue
        parens, braces, body_line = 0, 0, None
        for number in range(start, len(lines)):
            for c in lines[number]:
                if body_line is None:
                    if c in "([":
                        parens += 1
                    elif c in ")]":
                        parens -= 1
                    elif c == "{" and parens == 0:
                        body_line, braces = number, 1
                    elif c == "}" and parens == 0:
                        break
                else:
                    braces += 1 if c == "{" else -1 if c == "}" else 0
                    if braces == 0:
                        break
            if body_line is not None and braces == 0:
                found.append((start + 1, number - start + 1, lines[start].strip()))
                break
            if body_line is None:
                following = lines[number + 1] if number + 1 < len(lines) else ""
                if parens == 0 and not CONTINUATION.match(following):
                    break
    return found


def check(root):
    breaches = []
    for path in sorted(root.rglob("*.swift")):
        text = path.read_text(encoding="utf-8")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if len(lines) > MAX_FILE_LINES:
            breaches.append(f"{path}:{len(lines)}: file has {len(lines)} lines (at most {MAX_FILE_LINES})")
        for number, line in enumerate(lines, 1):
            if len(line) > MAX_LINE_CHARACTERS:
                breaches.append(f"{path}:{number}: line has {len(line)} characters (at most {MAX_LINE_CHARACTERS})")
        for number, count, declaration in function_lengths(code_only(text).split("\n")):
            if count > MAX_FUNCTION_LINES:
                breaches.append(f"{path}:{number}: function has {count} lines (at most {MAX_FUNCTION_LINES}): "
                                f"{declaration[:60]}")
    return breaches


def main():
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "Sources"
    breaches = check(root)
    for breach in breaches:
        print(breach)
    if breaches:
        print(f"check-sizes: {len(breaches)} over budget in {root}", file=sys.stderr)
        return 1
    print(f"check-sizes: every Swift file in {root} within {MAX_FILE_LINES} lines, its functions within "
          f"{MAX_FUNCTION_LINES}, its lines within {MAX_LINE_CHARACTERS} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
