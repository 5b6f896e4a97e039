#!/usr/bin/env python3
"""Checks that the documents stay true to the repository: run.sh runs it beside snippets.py (which
compiles their ```swift blocks). It exits non-zero, naming the markdown file and line of each
failure.

1. Paths. Every repository path that README.md, docs/*.md and the DocC articles name must exist:
   - in an inline code span (`...`), each word that begins with a top-level folder of the
     repository (Sources/, Tests/, Benchmarks/, Examples/, docs/, data/, .ci/, Tools/, Fuzz/) or
     is a top-level file (Makefile, Package.swift, README.md), from the repository's root; `*`
     matches as in a shell glob. A word that is a file path not from the root (`Parse/JSONCursor.swift`)
     must end the path of some file under Sources/, Tests/ or Examples/.
   - the target of a markdown link ([text](target)) that is not a URL or an anchor, from the
     markdown file's folder.
   - in a fenced block without a language that draws the tree (a line that begins with
     `Sources/`), each folder: a line's first column (`Sources/QuakeFormat/`, or indented
     `Codecs/` below it, or `Errors/, Model/`), and each `Name/` in its description, below the
     folder of its line (a line indented past the first column continues the line before); and a
     name in the description that is a Swift file under Sources/ (`OutputSink`, `Heap+Trim`) must
     be one under that folder, not elsewhere.
2. The tour. Every line of a ```sh, ```bash or ```console block of README.md (and of docs/*.md)
   that runs `quakes` is run with the built binary (--quakes FILE, or quakes in --build DIR)
   against a fresh store of the bundled sample (data/csv, data/geojson), in a scratch folder
   holding a link to data/: $QUAKES_STORE names the store, and a `--store` value is replaced by
   it. It must exit 0.
   A line is skipped, saying why, when its form cannot run here: it names a URL (the network),
   it is `serve` or `--watch` (they run until stopped) or `migrate` (it needs a format v1 store).
   `repair` runs on a copy of the store whose manifest was removed, the case it is for.
   Without a binary the tour is reported "skipped", never passed.

Usage: doccheck.py [--build DIR | --quakes FILE] [--paths-only]
"""
import argparse
import fnmatch
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DOCC = "Sources/QuakeStore/QuakeStore.docc"
ROOTS = ("Sources/", "Tests/", "Benchmarks/", "Examples/", "docs/", "data/", ".ci/", "Tools/", "Fuzz/")
ROOT_FILES = ("Makefile", "Package.swift", "README.md")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FOLDER_WORD = re.compile(r"(?<![\w./-])([A-Za-z][\w.+-]*/)(?![\w])")
TYPE_WORD = re.compile(r"(?<![\w+./-])([A-Z][A-Za-z0-9]*(?:\+[A-Z][A-Za-z0-9]*)?)(?![\w/])")
TOUR_TIMEOUT = 30


def markdown_files():
    docs = sorted(os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "docs", "*.md")))
    docc = sorted(os.path.join(DOCC, name) for name in os.listdir(os.path.join(REPO, DOCC)) if name.endswith(".md"))
    return ["README.md"] + docs + docc


def read_lines(path):
    with open(os.path.join(REPO, path), encoding="utf-8") as f:
        return f.read().split("\n")


def sections(lines):
    """(kind, language, first line number, lines): prose runs and fenced blocks, 1-based."""
    parts = []
    index = 0
    prose = []
    prose_start = 1
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            if not prose:
                prose_start = index + 1
            prose.append(lines[index])
            index += 1
            continue
        if prose:
            parts.append(("prose", "", prose_start, prose))
            prose = []
        fence, language = opening.groups()
        close = index + 1
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence)}{re.escape(fence[0])}*\s*$")
        while close < len(lines) and not closing.match(lines[close]):
            close += 1
        parts.append(("code", language.lower(), index + 2, lines[index + 1:close]))
        index = close + 1
    if prose:
        parts.append(("prose", "", prose_start, prose))
    return parts


_files_cache = None


def repository_files():
    global _files_cache
    if _files_cache is None:
        found = []
        for root in ("Sources", "Tests", "Examples"):
            for folder, folders, names in os.walk(os.path.join(REPO, root)):
                folders[:] = [name for name in folders if not name.startswith(".")]
                found += [os.path.relpath(os.path.join(folder, name), REPO) for name in names]
        _files_cache = found
    return _files_cache


def exists(path, base=REPO):
    target = os.path.normpath(os.path.join(base, path))
    if any(ch in path for ch in "*?["):
        return bool(glob.glob(target))
    return os.path.exists(target)


def path_words(span):
    """The words of a code span that name repository paths, from the root or as file-path tails."""
    rooted, tails = [], []
    for word in re.split(r"[\s,;()]+", span):
        word = word.strip("'\"").rstrip(".:")
        word = word[2:] if word.startswith("./") else word
        if not word or "://" in word or word.startswith(("../", "/", "~", "$")) or "=" in word:
            continue
        if word.startswith(ROOTS) or word in ROOT_FILES:
            rooted.append(word)
        elif "/" in word and re.search(r"\.(swift|py|sh|md|js|css|html)$", word) and not word.startswith("."):
            tails.append(word)
    return rooted, tails


def check_tail(tail):
    pattern = "*/" + tail
    return any(fnmatch.fnmatchcase("/" + path, pattern) for path in repository_files())


def check_prose(path, start, lines, problems):
    base = os.path.dirname(os.path.join(REPO, path))
    for offset, line in enumerate(lines):
        number = start + offset
        for match in CODE_SPAN.finditer(line):
            rooted, tails = path_words(match.group(2))
            for word in rooted:
                if not exists(word):
                    problems.append(f"{path}:{number}: error: no such path: {word}")
            for word in tails:
                if not check_tail(word):
                    problems.append(f"{path}:{number}: error: no file under Sources/, Tests/ or Examples/ "
                                    f"ends with {word}")
        for match in LINK.finditer(CODE_SPAN.sub("", line)):
            target = match.group(1).split("#")[0]
            if not target or re.match(r"^[a-z][\w+.-]*:", target, re.I):
                continue
            if not exists(target, base):
                problems.append(f"{path}:{number}: error: the link's target does not exist: {target}")


def swift_files_named(name):
    """The repository paths of the Swift files under Sources/ named NAME.swift."""
    return [path for path in repository_files()
            if path.startswith("Sources/") and os.path.basename(path) == name + ".swift"]


def check_tree(path, start, lines, problems):
    """A block that draws folders: each line's leading folders, and the `Name/` words after them."""
    if not any(line.startswith("Sources/") for line in lines):
        return
    parents = []      # (indent, folder) of the lines above, nearest last
    current = None    # the folder of the line being continued
    for offset, line in enumerate(lines):
        number = start + offset
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        words = line.split()
        heads = []
        while words and words[0].rstrip(",").endswith("/") and indent < 8:
            head = words.pop(0)
            heads.append(head.rstrip(","))
            if not head.endswith(","):
                break
        description = " ".join(words)
        if indent < 8:                      # else it continues the line before
            parents = [(level, folder) for level, folder in parents if level < indent]
            if not heads:
                current = None
                continue
            base = parents[-1][1] if parents and indent else ""
            folders = [base + head for head in heads]
            for folder in folders:
                if folder.startswith(ROOTS) and "<" not in folder and not os.path.isdir(os.path.join(REPO, folder)):
                    problems.append(f"{path}:{number}: error: no such folder: {folder}")
            current = folders[0] if len(folders) == 1 else None
            if current:
                parents.append((indent, current))
        if current is None or not current.startswith(ROOTS) or "<" in current:
            continue
        plain = re.sub(r"`[^`]*`", "", description)
        for match in FOLDER_WORD.finditer(plain):
            folder = current + match.group(1)
            if not os.path.isdir(os.path.join(REPO, folder)):
                problems.append(f"{path}:{number}: error: no such folder: {folder}")
        for match in TYPE_WORD.finditer(plain):
            elsewhere = swift_files_named(match.group(1))
            if elsewhere and not any(found.startswith(current) for found in elsewhere):
                problems.append(f"{path}:{number}: error: {match.group(1)} is not under {current}, "
                                f"but in {', '.join(sorted(elsewhere))}")


def check_paths():
    problems = []
    files = markdown_files()
    for path in files:
        for kind, language, start, lines in sections(read_lines(path)):
            if kind == "prose":
                check_prose(path, start, lines, problems)
            elif language in ("", "text"):
                check_tree(path, start, lines, problems)
    for problem in problems:
        print(problem)
    print(f"doccheck: paths: {len(files)} markdown files, {len(problems)} problem(s)")
    return not problems


def tour_commands():
    """(file, line, words) of each `quakes` command in the shell blocks of README.md and docs/*.md,
    continuations joined."""
    commands = []
    for path in [name for name in markdown_files() if not name.startswith(DOCC)]:
        commands += commands_of(path)
    return commands


def commands_of(path):
    commands = []
    for kind, language, start, lines in sections(read_lines(path)):
        if kind != "code" or language not in ("sh", "bash", "shell", "console"):
            continue
        index = 0
        while index < len(lines):
            first = index
            text = re.sub(r"^\$\s+", "", lines[index].strip()) if language == "console" else lines[index].strip()
            while text.endswith("\\") and index + 1 < len(lines):
                index += 1
                text = text[:-1] + " " + lines[index].strip()
            index += 1
            words = shlex.split(text, comments=True)
            if words and words[0] == "quakes":
                commands.append((path, start + first, words))
    return commands


def skip_reason(words):
    if any("://" in word for word in words):
        return "it needs the network"
    if len(words) > 1 and words[1] == "serve":
        return "it serves until stopped"
    if "--watch" in words:
        return "it watches until stopped"
    if len(words) > 1 and words[1] == "migrate":
        return "it needs a format v1 store"
    if "|" in words or ">" in words:
        return "it is a pipeline"
    return None


def with_store(words, store):
    out = list(words)
    for index, word in enumerate(out):
        if word == "--store" and index + 1 < len(out):
            out[index + 1] = store
        elif word.startswith("--store="):
            out[index] = "--store=" + store
    return out


def run_tour(binary):
    commands = tour_commands()
    if not binary or not os.access(binary, os.X_OK):
        print(f"doccheck: tour: skipped: no built quakes binary ({binary or 'pass --build DIR or --quakes FILE'}); "
              f"{len(commands)} commands not run")
        return True
    began = time.time()
    scratch = tempfile.mkdtemp(prefix="doccheck-")
    failures = []
    ran = skipped = 0
    try:
        os.symlink(os.path.join(REPO, "data"), os.path.join(scratch, "data"))
        store = os.path.join(scratch, "tour.store")
        environment = dict(os.environ, QUAKES_STORE=store, NO_COLOR="1")
        for sample in ("data/csv", "data/geojson"):
            process = subprocess.run([binary, "load", "--store", store, sample], cwd=scratch, env=environment,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
            if process.returncode:
                print(process.stdout)
                print(f"doccheck: tour: error: loading the bundled sample {sample} failed "
                      f"(exit {process.returncode})")
                return False
        for path, line, words in commands:
            shown = " ".join(shlex.quote(word) for word in words)
            reason = skip_reason(words)
            if reason:
                skipped += 1
                print(f"{path}:{line}: skipped: {shown} ({reason})")
                continue
            target = store
            if words[1] == "repair":
                target = os.path.join(scratch, f"damaged-{line}.store")
                shutil.copytree(store, target, symlinks=True)
                os.remove(os.path.join(target, "manifest.qkm"))
            argv = [binary] + with_store(words[1:], target)
            try:
                process = subprocess.run(argv, cwd=scratch, env=dict(environment, QUAKES_STORE=target),
                                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT, text=True, timeout=TOUR_TIMEOUT)
                status, output = process.returncode, process.stdout
            except subprocess.TimeoutExpired as timeout:
                status = f"timeout after {TOUR_TIMEOUT} s"
                output = (timeout.stdout or b"").decode("utf-8", "replace") if isinstance(timeout.stdout, bytes) \
                    else (timeout.stdout or "")
            ran += 1
            if status != 0:
                failures.append(f"{path}:{line}: error: `{shown}` exited {status}:\n" +
                                "".join("    " + text + "\n" for text in output.splitlines()[-12:]))
            else:
                print(f"{path}:{line}: ok: {shown}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for failure in failures:
        print(failure, end="")
    print(f"doccheck: tour: {ran - len(failures)} of {ran} commands ran, {skipped} skipped, "
          f"{time.time() - began:.1f} s")
    return not failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", help="a quakes build folder holding the quakes binary, as .build-test/release")
    parser.add_argument("--quakes", help="the quakes binary")
    parser.add_argument("--paths-only", action="store_true", help="check the paths only, run no command")
    arguments = parser.parse_args()
    binary = arguments.quakes or (os.path.join(arguments.build, "quakes") if arguments.build else None)
    paths = check_paths()
    tour = True if arguments.paths_only else run_tour(binary)
    return 0 if paths and tour else 1


if __name__ == "__main__":
    sys.exit(main())
