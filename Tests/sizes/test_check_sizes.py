"""check_sizes.py's own tests (make check-sizes runs them first): each budget is found when broken,
and braces inside strings, comments and interpolations do not move a function's end."""
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import check_sizes  # noqa: E402


def breaches(text):
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "File.swift").write_text(text)
        return [line.split(": ", 1)[1] for line in check_sizes.check(Path(folder))]


def function(name, body_lines, body="        _ = 1\n"):
    return f"    func {name}() {{\n" + body * body_lines + "    }\n"


class CheckSizesTests(unittest.TestCase):
    def test_within_every_budget(self):
        self.assertEqual(breaches("struct S {\n" + function("f", 78) + "}\n"), [])

    def test_a_function_over_80_lines(self):
        self.assertEqual(breaches("struct S {\n" + function("f", 79) + "}\n"),
                         ["function has 81 lines (at most 80): func f() {"])

    def test_a_line_over_120_characters(self):
        self.assertEqual(breaches("// " + "x" * 118 + "\n"), ["line has 121 characters (at most 120)"])

    def test_characters_not_bytes(self):
        self.assertEqual(breaches("// " + "é" * 117 + "\n"), [])

    def test_a_file_over_400_lines(self):
        self.assertEqual(breaches("\n" * 401), ["file has 401 lines (at most 400)"])

    def test_braces_in_strings_comments_and_interpolations(self):
        body = '        let s = "}}} \\(x.map { "}" }) {"  // }}\n        /* } */ _ = #"}"#\n'
        text = "struct S {\n" + function("f", 40, body) + function("g", 10) + "}\n"
        self.assertEqual(breaches(text), ["function has 82 lines (at most 80): func f() {"])

    def test_a_requirement_without_a_body_is_not_a_function(self):
        text = "protocol P {\n    func f()\n    func g()\n}\n" + "struct S {\n" + function("h", 70) + "}\n"
        self.assertEqual(breaches(text), [])


if __name__ == "__main__":
    unittest.main()
