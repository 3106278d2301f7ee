#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Rejects lit tests whose checks could be skipped silently.

FileCheck ignores a directive that lacks its colon ("CHECK foo") and a prefix nobody asked
for, so a typo turns a check into a comment. Every test must have a RUN line, and every
FileCheck prefix used must be spelled with its colon.
"""
import re
import sys
from pathlib import Path

DIRECTIVE = re.compile(r"\b([A-Z][A-Z0-9-]*?)(-NEXT|-NOT|-SAME|-EMPTY|-DAG|-LABEL|-COUNT-\d+)?(:?)\s")
KNOWN_SUFFIXES = ("CHECK", "ERR", "OUT", "DIAG", "JSON", "WARN", "ASM", "DOCS")


def lint(path):
    problems = []
    text = path.read_text()
    if "RUN:" not in text:
        problems.append(f"{path}: no RUN: line")
    prefixes = set(re.findall(r"--check-prefix(?:es)?[= ]([A-Z0-9,-]+)", text))
    prefixes = {p for group in prefixes for p in group.split(",")} | {"CHECK"}
    for lineno, line in enumerate(text.splitlines(), 1):
        comment = re.match(r"\s*[;#/]+\s*(.*)", line)
        if not comment or "RUN:" in line:
            continue
        for match in DIRECTIVE.finditer(comment.group(1) + " "):
            name, _, colon = match.groups()
            if name in prefixes and not colon:
                problems.append(f"{path}:{lineno}: '{name}' directive without a colon")
            if colon and name not in prefixes and name.endswith(KNOWN_SUFFIXES) and name != "RUN":
                problems.append(f"{path}:{lineno}: prefix '{name}' is never passed to FileCheck")
    return problems


def main():
    root = Path(sys.argv[1])
    problems = []
    for path in sorted(root.glob("*.test")) + sorted(root.glob("*.wave")):
        problems += lint(path)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
