#!/usr/bin/env python3
"""Compiles every ```swift block of README.md, of docs/*.md and of the DocC articles, as an app
developer would paste it. run.sh runs it before the app package's tests (beside doccheck.py,
which checks the paths the documents name and runs the README's tour); it exits non-zero, naming
the file and the line of each block that does not compile.

Each block is written, as it is, into a Swift file of the DocSnippets target
(Sources/DocSnippets/Generated, not committed) behind a `#sourceLocation` directive, so that the
compiler reports errors at the markdown file and line. All of them build in one
`swift build --target DocSnippets`. A block is the body of a function that is `async throws`
when the block has an `await` of its own (not one inside a closure or a function it declares),
and `throws` otherwise, as Swift decides for a program's top-level code: a block without `await`
calls the synchronous overloads, one with `await` the async ones. The function is

- `func ...(store: Store)`, after `import Foundation` and `import QuakeStore`: the articles
  call the store they are about `store`;
- `func ...()` when the block has `import` lines of its own: it is a program, and needs no
  store. Its imports go before the function (`import SwiftUI` becomes `import SwiftUIStandIn`
  where SwiftUI is not, as on Linux: shapes of SwiftUI's views, so that the QuakeStore code in
  the view is still type-checked).

An HTML comment right before a block (markdown shows none) changes that, visibly:

- `<!-- snippet-context: CODE -->` compiles the Swift CODE just before the block, in the same
  function: what the block uses and the article defines elsewhere or not at all.
- `<!-- snippet-continues -->` compiles the block in the function of the previous block of the
  file, after it, as a reader reads it: it uses what that one defined.
- `<!-- snippet-manifest -->`: the block is the arguments of `Package(name: "QuakeApp", ...)`
  in a Package.swift; it is compiled by `swift package dump-package`.

A block that imports QuakeSync is compiled with swiftc against a build of the quakes package that
has QuakeSync (`--sync-build DIR`, as .build-test/release after `make test`'s build), with the
search flags SwiftPM compiled QuakeSync with: the app package does not build QuakeSync's networking
dependencies. Without such a build those blocks are listed as not checked, and do not fail the run.
A build that fails at no markdown line (the compiler crashed) is followed by compiling each block
alone in the same way, to name the one that fails.

Usage: snippets.py [--sync-build DIR] [--generate-only]
"""
import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DOCC = "Sources/QuakeStore/QuakeStore.docc"
GENERATED = os.path.join(HERE, "Sources", "DocSnippets", "Generated")
SCRATCH = os.path.join(HERE, ".build")
WORK = os.path.join(SCRATCH, "doc-snippets")
SWIFT = os.environ.get("SWIFT", "swift")

FRAGMENT_IMPORTS = ["Foundation", "QuakeStore"]
DIRECTIVE = re.compile(r"<!--\s*(snippet-[a-z]+)(?::\s*(.*?))?\s*-->", re.S)
IMPORT = re.compile(r"^import\s+(\w+)\s*$")
SWIFT_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})\s*swift\s*$", re.I)


@dataclass
class Block:
    """One ```swift block: where it is, its lines, and the directives before it."""
    path: str                 # relative to the repository
    fence: int                # the line of its opening fence, 1-based
    lines: list
    context: list = field(default_factory=list)   # (line of the comment, Swift code)
    continues: bool = False
    manifest: bool = False

    @property
    def where(self):
        return f"{self.path}:{self.fence}"

    @property
    def imports(self):
        return [m.group(1) for m in (IMPORT.match(line) for line in self.lines) if m]


def markdown_files():
    docc = os.path.join(REPO, DOCC)
    articles = sorted(os.path.join(DOCC, name) for name in os.listdir(docc) if name.endswith(".md"))
    docs = os.path.join(REPO, "docs")
    pages = sorted(os.path.join("docs", name) for name in os.listdir(docs) if name.endswith(".md")) \
        if os.path.isdir(docs) else []
    return ["README.md"] + pages + articles


def directives_before(lines, fence_index):
    """The snippet directives of the HTML comments that end right before line fence_index (0-based)."""
    end = fence_index
    start = end
    while start > 0 and lines[start - 1].rstrip().endswith("-->"):
        opening = start - 1
        while opening >= 0 and "<!--" not in lines[opening]:
            opening -= 1
        if opening < 0:
            break
        start = opening
    text = "".join(lines[start:end])
    found = []
    for match in DIRECTIVE.finditer(text):
        line = start + text[:match.start()].count("\n") + 1
        found.append((match.group(1), match.group(2), line))
    return found


def blocks_of(path):
    """The ```swift blocks of a markdown file (fenced by backticks or tildes, indented or not)."""
    with open(os.path.join(REPO, path), encoding="utf-8") as f:
        lines = f.readlines()
    blocks = []
    index = 0
    while index < len(lines):
        opening = SWIFT_FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, fence = opening.groups()
        closing = re.compile(rf"^ {{0,{len(indent)}}}{re.escape(fence)}{re.escape(fence[0])}*\s*$")
        close = index + 1
        while close < len(lines) and not closing.match(lines[close]):
            close += 1
        if close == len(lines):
            sys.exit(f"{path}:{index + 1}: error: a ```swift block that is never closed")
        code = [re.sub(rf"^ {{0,{len(indent)}}}", "", line) for line in lines[index + 1:close]]
        block = Block(path, index + 1, code)
        for name, value, line in directives_before(lines, index):
            if name == "snippet-context" and value:
                block.context.append((line, value + "\n"))
            elif name == "snippet-continues":
                block.continues = True
            elif name == "snippet-manifest":
                block.manifest = True
            else:
                sys.exit(f"{path}:{line}: error: unknown snippet directive {name}")
        blocks.append(block)
        index = close + 1
    return blocks


def units_of(blocks):
    """The blocks grouped by function: a block that continues joins the one before it."""
    units = []
    for block in blocks:
        if block.continues:
            if not units or units[-1][0].manifest or block.manifest:
                sys.exit(f"{block.where}: error: snippet-continues, but no Swift block before it to continue")
            units[-1].append(block)
        else:
            units.append([block])
    return units


STATEMENT_HEAD = re.compile(r"^\s*\}?\s*(do|if|guard|else|for|while|repeat|switch|catch|defer)\b")


def awaits_at_top_level(lines):
    """Whether the code has an `await` outside the closures and declarations it has: then Swift
    runs top-level code (and infers a closure) `async`. Braces after `do`, `if`, `for` and the
    other statements do not begin a closure; any other brace does."""
    code = "".join(lines)
    code = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', code)      # string literals
    code = re.sub(r"//[^\n]*", "", code)                          # comments
    closures = []                                                # for each open brace: a closure?
    for line in code.split("\n"):
        for match in re.finditer(r"[{}]|\bawait\b", line):
            token = match.group(0)
            if token == "{":
                closures.append(not STATEMENT_HEAD.match(line[:match.start()]))
            elif token == "}":
                if closures:
                    closures.pop()
            elif not any(closures):
                return True
    return False


def location(path, line):
    return f'#sourceLocation(file: "{os.path.join(REPO, path)}", line: {line})\n'


def import_lines(module):
    if module == "SwiftUI":
        return ["#if canImport(SwiftUI)\n", "import SwiftUI\n", "#else\n", "import SwiftUIStandIn\n", "#endif\n"]
    return [f"import {module}\n"]


def swift_file(unit, name):
    """The Swift source of one unit: its imports, then one function with its blocks as they are."""
    first = unit[0]
    program = bool(first.imports)
    out = [f"// Generated by Examples/AppPackage/snippets.py from {first.path}: do not edit.\n"]
    if not program:
        out += [f"import {module}\n" for module in FRAGMENT_IMPORTS]
    for block in unit:
        for number, line in enumerate(block.lines):
            match = IMPORT.match(line)
            if match:
                out.append(location(block.path, block.fence + 1 + number))
                out += import_lines(match.group(1))
    if program:
        out.append("#sourceLocation()\n")
    out.append("\n")
    parameters = "" if program else "store: Store"
    effects = "async throws" if any(awaits_at_top_level(block.lines) for block in unit) else "throws"
    out.append(f"func {name}({parameters}) {effects} {{\n")
    for block in unit:
        for line, code in block.context:
            out.append(location(block.path, line))
            out.append(code)
        out.append(location(block.path, block.fence + 1))
        out += ["\n" if IMPORT.match(line) else line for line in block.lines]
        out.append("#sourceLocation()\n")
    out.append("}\n")
    return "".join(out)


MANIFEST_HEAD = [
    "// swift-tools-version: 6.1\n",
    "// Generated by Examples/AppPackage/snippets.py: do not edit.\n",
    "import PackageDescription\n",
    "\n",
    "let package = Package(\n",
    '    name: "QuakeApp",\n',
]


def manifest_file(block):
    """A Package.swift around the block (which #sourceLocation cannot mark: it is not a statement)."""
    return "".join(MANIFEST_HEAD + block.lines + [")\n"])


def in_markdown(output, manifest, block):
    """The output with the manifest's lines named as the markdown's."""
    def markdown_line(match):
        line = int(match.group(1)) - len(MANIFEST_HEAD) + block.fence
        return f"{os.path.join(REPO, block.path)}:{line}:"
    return re.sub(rf"{re.escape(manifest)}:(\d+):", markdown_line, output)


def unit_name(block):
    stem = re.sub(r"\W", "", os.path.splitext(os.path.basename(block.path))[0])
    stem = stem.lower() if stem.isupper() else stem[0].lower() + stem[1:]
    return f"{stem}{block.fence}"


def write_if_changed(path, text):
    """Writes a file unless it holds the text already, so that a build has nothing to redo."""
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def run(command, quiet=False):
    """Runs a command; its output is shown (when quiet, only if it fails) and returned."""
    print("+ " + " ".join(command if len(command) < 12 else command[:3] + ["..."] + command[-1:]), flush=True)
    process = subprocess.run(command, cwd=HERE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if process.returncode or not quiet:
        sys.stdout.write(without_unused_values(process.stdout))
    return process.returncode, process.stdout


def without_unused_values(output):
    """The output without the warnings that a value is never used, and their excerpts: a block's
    `let` is a local of a function here, where in a program's top-level code it is a global, of
    which the compiler says nothing."""
    shown = []
    skipping = False
    left_out = set()
    for line in output.splitlines(keepends=True):
        if re.match(r"^\S.*: warning: .*\[#no-usage\]$", line):
            skipping = True
            left_out.add(line)
        elif skipping and re.match(r"^\s*\d*\s*\|", line):
            pass
        elif skipping and not line.strip():
            skipping = False
        else:
            skipping = False
            shown.append(line)
    if left_out:
        shown.append(f"({len(left_out)} warnings that a value of a block is never used are not shown)\n")
    return "".join(shown)


def failed_blocks(output, units):
    """The blocks at whose lines (or their context's) the output has an `error:`."""
    lines = [(match.group(1), int(match.group(2)))
             for match in re.finditer(r"^(.*?\.md):(\d+):\d+: error:", output, re.M)]
    failed = []
    for unit in units:
        for block in unit:
            first = min([line for line, _ in block.context] + [block.fence])
            last = block.fence + len(block.lines)
            markdown = os.path.join(REPO, block.path)
            if any(path == markdown and first <= line <= last for path, line in lines):
                failed.append(block)
    return failed


def search_flags(build, target):
    """The flags that say where modules are (-I, -target, -sdk and the -Xcc module maps and include
    folders) with which SwiftPM compiled a target in a build folder (SCRATCH/CONFIG, as .build/debug),
    read from the build's llbuild manifest (SCRATCH/CONFIG.yaml)."""
    manifest = os.path.normpath(build) + ".yaml"
    with open(manifest, encoding="utf-8") as f:
        text = f.read()
    command = re.search(rf'^  "C\.{target}-[^"]*\.module":\n((?:    .*\n)*)', text, re.M)
    if not command:
        sys.exit(f"snippets: {manifest} has no command that compiles {target}")
    arguments = json.loads(re.search(r"^    args: (\[.*\])$", command.group(1), re.M).group(1))
    flags = []
    index = 0
    while index < len(arguments) - 1:
        if arguments[index] in ("-I", "-target", "-sdk", "-Xcc"):
            flags += arguments[index:index + 2]
            index += 2
        else:
            index += 1
    return flags


def compile_alone(source, flags):
    """Compiles one generated file with swiftc, to nothing, with a build's search flags."""
    return run([SWIFT + "c", "-c", "-o", os.devnull, "-parse-as-library", "-swift-version", "6", *flags, source])


def check_alone(units, build):
    """The first blocks of the units (those that import QuakeSync) that do not compile with swiftc
    against a build of the quakes package that has it."""
    directory = os.path.join(WORK, "sync")
    os.makedirs(directory, exist_ok=True)
    flags = search_flags(build, "QuakeSync")
    failed = []
    for unit in units:
        name = unit_name(unit[0])
        source = os.path.join(directory, f"{name}.swift")
        with open(source, "w", encoding="utf-8") as f:
            f.write(swift_file(unit, name))
        status, _ = compile_alone(source, flags)
        if status:
            failed.append(unit[0])
    return failed


def check_manifest(unit):
    """Whether the manifest block does not compile, as `swift package dump-package` says."""
    block = unit[0]
    directory = os.path.join(WORK, unit_name(block))
    os.makedirs(directory, exist_ok=True)
    manifest = os.path.join(directory, "Package.swift")
    with open(manifest, "w", encoding="utf-8") as f:
        f.write(manifest_file(block))
    print("+ " + " ".join([SWIFT, "package", "--package-path", directory, "dump-package"]), flush=True)
    process = subprocess.run([SWIFT, "package", "--package-path", directory, "dump-package"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if process.returncode:
        sys.stdout.write(in_markdown(process.stdout, manifest, block))
    return process.returncode != 0


def crashed(units):
    """The first blocks of the units that fail compiled one by one: for a build that failed at no
    markdown line or crashed, as the compiler names no block then, only every file of its batch."""
    print("snippets: the compiler crashed or failed at no markdown line; compiling each block alone")
    flags = search_flags(os.path.join(SCRATCH, "debug"), "DocSnippets")
    failed = []
    for unit in units:
        status, _ = compile_alone(os.path.join(GENERATED, f"{unit_name(unit[0])}.swift"), flags)
        if status:
            failed.append(unit[0])
    return failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sync-build", help="a quakes build folder with QuakeSync, as .build-test/release")
    parser.add_argument("--generate-only", action="store_true", help="write the Swift files, build nothing")
    arguments = parser.parse_args()

    units = []
    for path in markdown_files():
        units += units_of(blocks_of(path))
    manifests = [unit for unit in units if unit[0].manifest]
    sync = [unit for unit in units if any("QuakeSync" in block.imports for block in unit)]
    compiled = [unit for unit in units if unit not in manifests and unit not in sync]

    os.makedirs(GENERATED, exist_ok=True)
    sources = {f"{unit_name(unit[0])}.swift": swift_file(unit, unit_name(unit[0])) for unit in compiled}
    for name in os.listdir(GENERATED):
        if name not in sources:
            os.remove(os.path.join(GENERATED, name))
    for name, text in sources.items():
        write_if_changed(os.path.join(GENERATED, name), text)
    count = sum(len(unit) for unit in units)
    print(f"snippets: {count} ```swift blocks in {len(markdown_files())} files: {len(compiled)} functions "
          f"in Sources/DocSnippets/Generated, {len(manifests)} manifest(s), {len(sync)} with QuakeSync")
    if arguments.generate_only:
        return 0

    status, output = run([SWIFT, "build", "--scratch-path", SCRATCH, "--target", "DocSnippets"])
    failed = failed_blocks(output, compiled)
    if status and (not failed or "failed due to signal" in output):
        failed += crashed([unit for unit in compiled if not any(block in failed for block in unit)])
    failed += [unit[0] for unit in manifests if check_manifest(unit)]
    unchecked = []
    if sync and arguments.sync_build:
        failed += check_alone(sync, arguments.sync_build)
    else:
        unchecked = [block for unit in sync for block in unit]

    for block in unchecked:
        print(f"{block.where}: not checked: it imports QuakeSync; pass --sync-build (make test does)")
    for block in failed:
        print(f"{block.where}: error: this ```swift block does not compile (see the output above)")
    if status and not failed:
        print("snippets: the build failed, but at no markdown line (see the output above)")
    checked = count - len(unchecked)
    print(f"snippets: {checked - len(failed)} of {checked} checked blocks compile" + (
        f", {len(unchecked)} not checked" if unchecked else ""))
    return 1 if status or failed else 0


if __name__ == "__main__":
    sys.exit(main())
