#!/usr/bin/env python3
"""The texture figures of issue 70 for Sources/: one-letter let/var names, lines that join
statements with ';', lines past 120 columns, functions of 60 lines or more, README lines,
and the Swift lines each folder holds directly.

    python3 Tools/texture.py [--folders] [--functions]
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINDING = re.compile(r"\b(?:let|var)\s+(\(?[^=:{]*)")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
JOINED = re.compile(r";\s*\S")
FUNCTION = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|private|fileprivate|internal|static|"
                      r"final|override|mutating|nonmutating|nonisolated|convenience|required|@inline\(__always\))\s+)*"
                      r"(?:func\s+[^\s(<]+|init[?!]?|subscript)\s*[(<]")


def code_of(line):
    """The line without a trailing // comment and without string literals' contents."""
    out = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    at = out.find("//")
    return out if at < 0 else out[:at]


def binding_names(code):
    names = []
    for match in BINDING.finditer(code):
        pattern = match.group(1).strip()
        if pattern.startswith("("):
            depth, end = 0, 0
            for index, char in enumerate(pattern):
                depth += char == "("
                depth -= char == ")"
                if depth == 0:
                    end = index
                    break
            names += [n for n in NAME.findall(pattern[1:end]) if n not in ("let", "var", "_")]
        else:
            first = NAME.match(pattern)
            if first and first.group(0) != "_":
                names.append(first.group(0))
    return names


def function_lengths(lines):
    """(first line, length) of each func/init/subscript body, by brace depth."""
    found = []
    for index, line in enumerate(lines):
        if not FUNCTION.match(line) or "{" not in "".join(lines[index:index + 8]):
            continue
        depth, started = 0, False
        for end in range(index, len(lines)):
            code = code_of(lines[end])
            depth += code.count("{") - code.count("}")
            started = started or "{" in code
            if started and depth <= 0:
                found.append((index + 1, end - index + 1))
                break
    return found


def main():
    total_names = one_letter = joined = wide = 0
    long_functions = []
    folders = {}
    for base, _, files in os.walk(os.path.join(ROOT, "Sources")):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(base, name)
            with open(path, encoding="utf-8") as handle:
                lines = handle.read().split("\n")
            folders[os.path.relpath(base, ROOT)] = folders.get(os.path.relpath(base, ROOT), 0) + len(lines) - 1
            for line in lines:
                if line.strip().startswith("//"):
                    continue
                code = code_of(line)
                names = binding_names(code)
                total_names += len(names)
                one_letter += sum(1 for n in names if len(n) == 1)
                joined += bool(JOINED.search(code.rstrip().rstrip(";")))
                wide += len(line) > 120
            for first, length in function_lengths(lines):
                if length >= 60:
                    long_functions.append((length, os.path.relpath(path, ROOT), first))
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        readme = len(handle.read().split("\n")) - 1
    share = 100.0 * one_letter / max(total_names, 1)
    print(f"one-letter let/var names: {one_letter} of {total_names} ({share:.1f} %)")
    print(f"lines joining statements with ';': {joined}")
    print(f"lines over 120 columns: {wide}")
    print(f"functions of 60 lines or more: {len(long_functions)}")
    print(f"README lines: {readme}")
    if "--functions" in sys.argv:
        for length, path, first in sorted(long_functions, reverse=True):
            print(f"  {length:4d}  {path}:{first}")
    if "--folders" in sys.argv:
        for folder, count in sorted(folders.items(), key=lambda item: -item[1]):
            print(f"  {count:6d}  {folder}")


if __name__ == "__main__":
    main()
