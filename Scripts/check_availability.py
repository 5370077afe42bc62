#!/usr/bin/env python3
"""Finds uses of Apple APIs that are newer than the package's minimum Apple platforms.

Scripts/check-availability.sh runs this; see its header for how to invoke it. In short:

1. The minimum versions come from Package.swift's `platforms:` (macOS, iOS, tvOS, watchOS).
2. Every reference the package's code makes (each target's Swift sources, tests included) is read from the
   index store a debug build writes (`.build/<triple>/debug/index/store`), through the toolchain's
   libIndexStore.so: the referenced declaration's USR, its file, line and column. A reference the index marks
   implicit counts only where the source names the API at that place (inside `#expect(...)` it does; the
   `next(isolation:)` a `for await` loop calls is named nowhere, and the compiler calls it only where it
   exists).
3. The Apple availability of every public declaration of the toolchain's Swift modules (Swift,
   _Concurrency, Foundation, FoundationEssentials, FoundationInternationalization, Dispatch, Testing, ...:
   those the package's units import, and those Foundation re-exports) comes from their symbol graphs
   (`swift-symbolgraph-extract`), cached under the build directory per toolchain. A member inherits the
   availability of the type it belongs to when the type's is later. A protocol requirement added later than
   one of its default implementations (FixedWidthInteger.&*: a requirement since macOS 15, implemented in a
   protocol extension long before) counts from the default implementation, which older systems call.
4. The package's own declarations that an `@available` makes newer than the minimums are APIs too: a use of
   one elsewhere needs a guard like a use of the toolchain's.
5. A reference is a finding when, for some Apple platform, the API was introduced after the package's minimum
   and the reference is not inside a region that guarantees that version: an `if` or `while` from its
   `#available` condition to the end of its body, the rest of the scope after `guard #available`, the `else`
   of `if #unavailable`, the body of `guard #unavailable`, or a declaration (or enclosing type or extension)
   marked `@available(<platform> <version>)`. `#available(macOS 15, *)` guarantees nothing for iOS, tvOS or
   watchOS. The regions come from the compiler's own parse of the file (`swiftc -dump-parse
   -dump-ast-format json`, on a copy whose `#if` directive lines are blanked so that every clause is parsed),
   so comments, strings and braces are the compiler's business, not a regular expression's.
6. References in code that no Apple platform compiles (a `#if os(Linux)` or `#if !canImport(Darwin)` clause,
   the `#else` of `#if canImport(Darwin)`) are not findings; they are counted and the count is printed.
7. A finding listed in the allow-list file (API and file) is reported as allowed, not as an error. An
   allow-list entry that matches nothing is an error, so the list cannot keep stale exemptions.

Exit status: 0 when there is no finding outside the allow-list, 1 when there is (or a stale allow-list
entry), 2 when the check cannot run (no index store, no libIndexStore.so, a malformed allow-list entry, a
source file edited after the build that indexed it).

Limits (what this check cannot see or may misjudge):
- Code that the Linux debug build does not compile (`#if canImport(Darwin)`, `#if os(macOS)`, `#if !DEBUG`
  clauses) is not in the index store, so its uses are not checked.
- The availability is what the toolchain's modules declare. swift-foundation (FoundationEssentials,
  FoundationInternationalization) and the standard library carry Apple's annotations; swift-corelibs-foundation
  (the `Foundation` module's classes such as NSKeyedArchiver) mostly carries none, so an API that is newer on
  Apple platforms only in Apple's SDK is not seen. APIs that Apple platforms lack entirely are not checked.
- The index holds the overloads the Linux type checker chose, with every API available. For an Apple
  deployment target the type checker sees overloads newer than the target as unavailable and may choose an
  older one that also fits: a finding such as `Int128.&*` for `$0 &* 7` over an untyped integer range may
  then compile on Apple platforms. Spelling the types out settles it on both (or allow-list it with that
  reason).
- The `#available` of a condition list is found by its text after the statement's start; a `#available`
  written in a comment inside the condition list would be taken for it.
- Deprecation and obsoletion are not checked, only "introduced".
"""

import argparse
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

APPLE_PLATFORMS = ("macOS", "iOS", "tvOS", "watchOS")

# Index store symbol roles (indexstore.h).
ROLE_DECLARATION = 1 << 0
ROLE_DEFINITION = 1 << 1
ROLE_REFERENCE = 1 << 2
ROLE_IMPLICIT = 1 << 8
# indexstore_unit_dependency_kind_t
DEPENDENCY_RECORD = 2
DEPENDENCY_UNIT = 1


def fail_setup(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


# MARK: - Versions

def parse_version(text):
    """'15', '15.0', '10.14.4' -> (15, 0, 0)-style tuple of three ints."""
    parts = [int(p) for p in re.findall(r"\d+", str(text))[:3]]
    return tuple(parts + [0] * (3 - len(parts)))


def version_text(version):
    major, minor, patch = version
    return f"{major}.{minor}" + (f".{patch}" if patch else "")


def package_minimums(package_swift):
    """The `platforms:` of Package.swift as {platform: version}; a platform it does not name is absent."""
    with open(package_swift, encoding="utf-8") as f:
        text = f.read()
    match = re.search(r"platforms\s*:\s*\[(.*?)\]", text, re.S)
    if not match:
        fail_setup(f"{package_swift} declares no platforms:")
    minimums = {}
    for m in re.finditer(r"\.(macOS|iOS|tvOS|watchOS)\(\s*(?:\.v([0-9_]+)|\"([0-9.]+)\")", match.group(1)):
        raw = m.group(2).replace("_", ".") if m.group(2) else m.group(3)
        minimums[m.group(1)] = parse_version(raw)
    return minimums


# MARK: - Index store

class StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_char_p), ("length", ctypes.c_size_t)]

    def text(self):
        if not self.data or self.length == 0:
            return ""
        return ctypes.string_at(self.data, self.length).decode("utf-8", "replace")


class IndexStore:
    """The subset of libIndexStore's C API (indexstore.h) that reading references needs."""

    def __init__(self, library_path, store_path):
        lib = ctypes.CDLL(library_path)
        vp = ctypes.c_void_p
        self.unit_applier = ctypes.CFUNCTYPE(ctypes.c_bool, vp, StringRef)
        self.dependency_applier = ctypes.CFUNCTYPE(ctypes.c_bool, vp, vp)
        self.occurrence_applier = ctypes.CFUNCTYPE(ctypes.c_bool, vp, vp)
        signatures = {
            "indexstore_store_create": (vp, [ctypes.c_char_p, ctypes.POINTER(vp)]),
            "indexstore_error_get_description": (ctypes.c_char_p, [vp]),
            "indexstore_store_units_apply_f": (ctypes.c_bool, [vp, ctypes.c_uint, vp, self.unit_applier]),
            "indexstore_unit_reader_create": (vp, [vp, ctypes.c_char_p, ctypes.POINTER(vp)]),
            "indexstore_unit_reader_dispose": (None, [vp]),
            "indexstore_unit_reader_get_main_file": (StringRef, [vp]),
            "indexstore_unit_reader_get_module_name": (StringRef, [vp]),
            "indexstore_unit_reader_is_system_unit": (ctypes.c_bool, [vp]),
            "indexstore_unit_reader_dependencies_apply_f": (ctypes.c_bool, [vp, vp, self.dependency_applier]),
            "indexstore_unit_dependency_get_kind": (ctypes.c_int, [vp]),
            "indexstore_unit_dependency_is_system": (ctypes.c_bool, [vp]),
            "indexstore_unit_dependency_get_filepath": (StringRef, [vp]),
            "indexstore_unit_dependency_get_modulename": (StringRef, [vp]),
            "indexstore_unit_dependency_get_name": (StringRef, [vp]),
            "indexstore_record_reader_create": (vp, [vp, ctypes.c_char_p, ctypes.POINTER(vp)]),
            "indexstore_record_reader_dispose": (None, [vp]),
            "indexstore_record_reader_occurrences_apply_f": (ctypes.c_bool, [vp, vp, self.occurrence_applier]),
            "indexstore_occurrence_get_symbol": (vp, [vp]),
            "indexstore_occurrence_get_roles": (ctypes.c_uint64, [vp]),
            "indexstore_occurrence_get_line_col": (None, [vp, ctypes.POINTER(ctypes.c_uint),
                                                          ctypes.POINTER(ctypes.c_uint)]),
            "indexstore_symbol_get_usr": (StringRef, [vp]),
            "indexstore_symbol_get_name": (StringRef, [vp]),
        }
        for name, (restype, argtypes) in signatures.items():
            function = getattr(lib, name)
            function.restype = restype
            function.argtypes = argtypes
        self.lib = lib
        error = vp()
        self.store = lib.indexstore_store_create(store_path.encode(), ctypes.byref(error))
        if not self.store:
            description = lib.indexstore_error_get_description(error) if error else b"unknown error"
            fail_setup(f"cannot open the index store at {store_path}: {description.decode()}")

    def unit_names(self):
        names = []

        def collect(_context, name):
            names.append(name.text())
            return True

        self.lib.indexstore_store_units_apply_f(self.store, 0, None, self.unit_applier(collect))
        return names

    def unit(self, name):
        """(main file, module name, [(record name, source file)], {system module names}) of one unit."""
        lib = self.lib
        error = ctypes.c_void_p()
        reader = lib.indexstore_unit_reader_create(self.store, name.encode(), ctypes.byref(error))
        if not reader:
            return None
        main_file = lib.indexstore_unit_reader_get_main_file(reader).text()
        module = lib.indexstore_unit_reader_get_module_name(reader).text()
        records, modules = [], set()

        def visit(_context, dependency):
            kind = lib.indexstore_unit_dependency_get_kind(dependency)
            if kind == DEPENDENCY_RECORD:
                records.append((lib.indexstore_unit_dependency_get_name(dependency).text(),
                                lib.indexstore_unit_dependency_get_filepath(dependency).text()))
            elif kind == DEPENDENCY_UNIT and lib.indexstore_unit_dependency_is_system(dependency):
                modules.add(lib.indexstore_unit_dependency_get_modulename(dependency).text())
            return True

        lib.indexstore_unit_reader_dependencies_apply_f(reader, None, self.dependency_applier(visit))
        lib.indexstore_unit_reader_dispose(reader)
        return main_file, module, records, modules

    def occurrences(self, record_name):
        """[(usr, name, line, column, roles)] of every reference and definition in one record."""
        lib = self.lib
        error = ctypes.c_void_p()
        reader = lib.indexstore_record_reader_create(self.store, record_name.encode(), ctypes.byref(error))
        if not reader:
            return []
        found = []
        line, column = ctypes.c_uint(), ctypes.c_uint()

        def visit(_context, occurrence):
            roles = lib.indexstore_occurrence_get_roles(occurrence)
            if roles & (ROLE_REFERENCE | ROLE_DEFINITION):
                symbol = lib.indexstore_occurrence_get_symbol(occurrence)
                lib.indexstore_occurrence_get_line_col(occurrence, ctypes.byref(line), ctypes.byref(column))
                found.append((lib.indexstore_symbol_get_usr(symbol).text(),
                              lib.indexstore_symbol_get_name(symbol).text(), line.value, column.value, roles))
            return True

        lib.indexstore_record_reader_occurrences_apply_f(reader, None, self.occurrence_applier(visit))
        lib.indexstore_record_reader_dispose(reader)
        return found


# MARK: - Symbol graphs (the toolchain's availability)

# Modules the check always reads (those the toolchain has), whether or not a unit names them: the standard
# library's implicit imports, and the modules that others re-export (`import Foundation` brings
# FoundationEssentials and FoundationInternationalization, whose APIs' USRs name those modules).
ALWAYS_MODULES = ("Swift", "_Concurrency", "_StringProcessing", "Synchronization", "RegexBuilder", "Observation",
                  "Foundation", "FoundationEssentials", "FoundationInternationalization", "Dispatch")
# Swift overlays of C libraries that no Apple platform has: nothing in them carries Apple availability.
NON_APPLE_MODULES = {"Glibc", "Musl", "Android", "WASILibc", "WinSDK", "ucrt", "CRT"}


def swift_module_exists(resource_dir, module):
    return os.path.exists(os.path.join(resource_dir, f"{module}.swiftmodule"))


def extract_symbol_graph(module, target, output_dir, log):
    os.makedirs(output_dir, exist_ok=True)
    result = subprocess.run(["swift-symbolgraph-extract", "-module-name", module, "-target", target,
                             "-output-dir", output_dir, "-minimum-access-level", "public"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        log(f"warning: swift-symbolgraph-extract -module-name {module} failed (its APIs are not checked):\n"
            + result.stdout.strip())
    else:
        # The graphs' file names vary (_Concurrency's are `_Concurrency@Swift.symbols.json`): a marker says
        # the folder is complete.
        with open(os.path.join(output_dir, "extracted"), "w") as f:
            f.write(module + "\n")
    return module


def load_availability(graph_dir, modules, target, log):
    """{usr: (name, {platform: version})} for every public symbol that has an Apple `introduced` version,
    its own or its enclosing type's (the later one wins per platform)."""
    pending = [m for m in modules if not os.path.exists(os.path.join(graph_dir, m, "extracted"))]
    if pending:
        log(f"extracting symbol graphs: {', '.join(pending)}")
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(lambda m: extract_symbol_graph(m, target, os.path.join(graph_dir, m), log), pending))

    own, names, parent, defaults = {}, {}, {}, {}
    for module in modules:
        folder = os.path.join(graph_dir, module)
        if not os.path.isdir(folder):
            continue
        for file_name in sorted(os.listdir(folder)):
            if not file_name.endswith(".symbols.json"):
                continue
            with open(os.path.join(folder, file_name), encoding="utf-8") as f:
                graph = json.load(f)
            for symbol in graph.get("symbols", []):
                usr = symbol["identifier"]["precise"]
                names[usr] = ".".join(symbol.get("pathComponents") or [symbol["names"]["title"]])
                introduced = {}
                for entry in symbol.get("availability") or []:
                    if entry.get("domain") in APPLE_PLATFORMS and "introduced" in entry:
                        v = entry["introduced"]
                        introduced[entry["domain"]] = (v.get("major", 0), v.get("minor", 0), v.get("patch", 0))
                if introduced:
                    own[usr] = introduced
            for relation in graph.get("relationships", []):
                if relation.get("kind") == "memberOf":
                    parent[relation["source"]] = relation["target"]
                elif relation.get("kind") == "defaultImplementationOf":
                    defaults.setdefault(relation["target"], []).append(relation["source"])

    effective = {}

    def resolve(usr, seen=()):
        if usr in effective:
            return effective[usr]
        merged = dict(own.get(usr, {}))
        up = parent.get(usr)
        if up and up not in seen:
            for platform, version in resolve(up, seen + (usr,)).items():
                if version > merged.get(platform, (0, 0, 0)):
                    merged[platform] = version
        effective[usr] = merged
        return merged

    # A requirement added to a protocol later, with a default implementation that older systems have
    # (FixedWidthInteger.&* since macOS 15, implemented in a protocol extension since Swift 4), is callable
    # there: the call reaches the default implementation. Per platform, the earliest of the requirement and
    # its default implementations counts.
    def callable_since(usr):
        versions = dict(resolve(usr))
        for implementation in defaults.get(usr, []):
            theirs = resolve(implementation)
            for platform in list(versions):
                versions[platform] = min(versions[platform], theirs.get(platform, (0, 0, 0)))
        return {p: v for p, v in versions.items() if v > (0, 0, 0)}

    result = {}
    for usr in names:
        versions = callable_since(usr)
        if versions:
            result[usr] = (names[usr], versions)
    return result


# MARK: - Conditional compilation

# What `#if` conditions are on every Apple platform the package supports: True, False, or None (unknown).
APPLE_CAN_IMPORT = {"Darwin": True, "Glibc": False, "Musl": False, "ucrt": False, "WinSDK": False,
                    "Android": False, "WASILibc": False, "Bionic": False}
APPLE_OS = {"macOS": None, "iOS": None, "tvOS": None, "watchOS": None, "visionOS": None,
            "Linux": False, "Windows": False, "Android": False, "FreeBSD": False, "OpenBSD": False,
            "WASI": False, "Cygwin": False, "Haiku": False, "none": False}


def apple_condition(text):
    """Evaluates an `#if` condition for the Apple platforms with three-valued logic: False only when no
    Apple platform takes it (os(Linux), canImport(Glibc), !canImport(Darwin)), True only when all do."""
    tokens = re.findall(r"\|\||&&|!|\(|\)|[A-Za-z_][A-Za-z0-9_]*\s*\([^()]*\)|[A-Za-z_][A-Za-z0-9_]*", text)
    position = 0

    def peek():
        return tokens[position] if position < len(tokens) else None

    def take():
        nonlocal position
        position += 1
        return tokens[position - 1]

    def atom():
        token = take()
        if token == "!":
            value = atom()
            return None if value is None else not value
        if token == "(":
            value = disjunction()
            if peek() == ")":
                take()
            return value
        call = re.match(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(\s*([^()]*?)\s*\)$", token or "")
        if call:
            function, argument = call.groups()
            if function == "os":
                return APPLE_OS.get(argument, None)
            if function == "canImport":
                return APPLE_CAN_IMPORT.get(argument.split(",")[0].strip(), None)
            return None
        return None  # a flag (DEBUG) or anything else: unknown

    def conjunction():
        value = atom()
        while peek() == "&&":
            take()
            right = atom()
            value = False if value is False or right is False else (True if value and right else None)
        return value

    def disjunction():
        value = conjunction()
        while peek() == "||":
            take()
            right = conjunction()
            value = True if value is True or right is True else (False if value is False and right is False
                                                                  else None)
        return value

    try:
        return disjunction()
    except IndexError:
        return None


DIRECTIVE = re.compile(rb"^[ \t]*#(if|elseif|else|endif)\b(.*)$")


def conditional_lines(source):
    """(lines no Apple platform compiles, the source with `#if` directive lines blanked).

    A line is dead on Apple platforms when the clause holding it, or an enclosing one, cannot be taken there:
    its condition is False, or an earlier clause of the same `#if` is True. Blanking the directives (spaces,
    same length, newlines kept) lets the parser see every clause's code at its own byte offsets."""
    dead_lines, out = set(), bytearray()
    # Each open #if: [this clause is dead on Apple, an earlier clause is taken on Apple for sure]
    stack = []
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        match = DIRECTIVE.match(line.rstrip(b"\r\n"))
        if match:
            kind, rest = match.group(1).decode(), match.group(2).decode("utf-8", "replace")
            rest = rest.split("//")[0]
            if kind == "if":
                value = apple_condition(rest)
                stack.append([value is False, value is True])
            elif kind == "elseif" and stack:
                value = apple_condition(rest)
                stack[-1] = [stack[-1][1] or value is False, stack[-1][1] or value is True]
            elif kind == "else" and stack:
                stack[-1] = [stack[-1][1], True]
            elif kind == "endif" and stack:
                stack.pop()
            newline = line[len(line.rstrip(b"\r\n")):]
            out += b" " * (len(line) - len(newline)) + newline
            continue
        if any(dead for dead, _ in stack):
            dead_lines.add(number)
        out += line
    return dead_lines, bytes(out)


# MARK: - Availability regions (from the compiler's parse)

FOREVER = (1 << 30, 0, 0)


def parse_file(path, source_with_all_clauses, scratch):
    """The compiler's parse (JSON) of a file whose `#if` directives are blanked."""
    copy = os.path.join(scratch, "parse-" + re.sub(r"[^A-Za-z0-9_.]", "_", path))
    with open(copy, "wb") as f:
        f.write(source_with_all_clauses)
    result = subprocess.run(["swiftc", "-dump-parse", "-dump-ast-format", "json", copy],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.remove(copy)
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError:
        return None


def spec_versions(condition):
    """{platform: version} of an availability condition, and whether it is `#unavailable` (no `*`)."""
    versions, wildcard = {}, False
    for spec in condition.get("queries", []):
        domain = spec.get("domain")
        if domain == "*":
            wildcard = True
        elif domain in APPLE_PLATFORMS and "version" in spec:
            versions[domain] = parse_version(spec["version"])
    return versions, not wildcard


def availability_regions(tree, source):
    """[(start offset, end offset, {platform: version})]: where code may use APIs of those versions."""
    regions = []
    condition_token = re.compile(rb"#(?:un)?available\s*\(")

    def attribute_versions(attrs):
        versions = {}
        for attr in attrs:
            if attr.get("_kind") != "available_attr":
                continue
            domain = attr.get("domainIdentifier")
            if domain == "*" and attr.get("unavailable"):
                return {p: FOREVER for p in APPLE_PLATFORMS}  # never called: nothing inside needs a guard
            if domain in APPLE_PLATFORMS:
                if attr.get("unavailable"):
                    versions[domain] = FOREVER
                elif "introduced" in attr:
                    versions[domain] = parse_version(attr["introduced"])
        return versions

    def conditions_regions(statement, end):
        """Regions of the `#available` conditions of an if/while/guard statement."""
        start = statement["range"]["start"]
        found = []
        for condition in statement.get("conditions", []):
            if condition.get("_kind") != "#available":
                continue
            versions, unavailable = spec_versions(condition)
            match = condition_token.search(source, start)
            position = match.start() if match else start
            if match:
                start = match.end()
            found.append((position, versions, unavailable))
        return found

    def walk(node, enclosing_block_end):
        if isinstance(node, list):
            previous_binding = None
            for item in node:
                if isinstance(item, dict) and item.get("_kind") == "pattern_binding_decl":
                    previous_binding = item
                if isinstance(item, dict) and item.get("_kind") == "var_decl" and previous_binding is not None:
                    versions = attribute_versions(item.get("attrs", []))
                    if versions and "range" in item:
                        binding = previous_binding["range"]
                        regions.append((min(binding["start"], item["range"]["start"]),
                                        max(binding["end"], item["range"]["end"]), versions))
                walk(item, enclosing_block_end)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("_kind")
        span = node.get("range")
        versions = attribute_versions(node.get("attrs", [])) if "attrs" in node else {}
        if versions and span:
            regions.append((span["start"], span["end"], versions))
        if kind in ("if_stmt", "while_stmt") and span:
            body = node.get("then_stmt") or node.get("body") or {}
            body_end = body.get("range", span)["end"]
            for position, versions, unavailable in conditions_regions(node, body_end):
                if not unavailable:
                    regions.append((position, body_end, versions))
                elif kind == "if_stmt" and isinstance(node.get("else_stmt"), dict):
                    else_span = node["else_stmt"].get("range")
                    if else_span:
                        regions.append((else_span["start"], else_span["end"], versions))
        if kind == "guard_stmt" and span:
            for position, versions, unavailable in conditions_regions(node, span["end"]):
                if not unavailable:
                    regions.append((span["end"], enclosing_block_end, versions))
                else:
                    body = node.get("body", {}).get("range")
                    if body:
                        regions.append((body["start"], body["end"], versions))
        if kind == "top_level_code_decl" and isinstance(node.get("body"), dict):
            # Each top-level statement has a brace of its own; a `guard` there guards the rest of the file.
            walk(node["body"].get("elements", []), len(source))
            return
        if kind == "brace_stmt" and span:
            enclosing_block_end = span["end"]
        for key, value in node.items():
            if key != "range" and isinstance(value, (dict, list)):
                walk(value, enclosing_block_end)

    walk(tree, len(source))
    return regions


def spelled_at(source, offset, name):
    """Whether the source names the API at `offset`.

    An implicit reference counts only where the API is spelled out: inside a macro's expansion
    (`#expect(s.dayOfYear == 9)`) the index marks the reference implicit but places it on the name as
    written. Where nothing names it (the iterator's `next(isolation:)` that a `for await` loop calls), the
    compiler picks for each platform what its deployment target has, so such a reference is no finding."""
    base = name.split("(")[0]
    text = source[offset:offset + max(len(base), 1) + 1]
    if base == "init":
        return bool(re.match(rb"[A-Za-z_]", text))  # `String(...)`, `.init(...)`
    if base == "subscript":
        return text.startswith(b"[")
    return text.startswith(base.encode())


def guaranteed_versions(regions, offset):
    """{platform: version} the code at `offset` may assume (the latest of all regions around it)."""
    guaranteed = {}
    for start, end, versions in regions:
        if start <= offset <= end:
            for platform, version in versions.items():
                if version > guaranteed.get(platform, (0, 0, 0)):
                    guaranteed[platform] = version
    return guaranteed


def line_offsets(source):
    offsets, position = [0], 0
    for line in source.splitlines(keepends=True):
        position += len(line)
        offsets.append(position)
    return offsets


# MARK: - Allow-list

def read_allowlist(path):
    """[(api, file, reason, line number)]: `API FILE REASON...`, '#' comments and blank lines skipped."""
    entries = []
    if not path or not os.path.exists(path):
        return entries
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            parts = text.split(None, 2)
            if len(parts) < 3:
                fail_setup(f"{path}:{number}: an entry is `API FILE REASON` (the reason is required): {text}")
            entries.append((parts[0], parts[1], parts[2], number))
    return entries


def allowed_by(entry, usr, name, file):
    api, entry_file, _reason, _number = entry
    return (api == usr or api == name) and (entry_file == "*" or entry_file == file)


# MARK: - The check

def check_regions(path):
    """The self-test of the guard and `#if` logic, without a build: every `X(` in the file must be judged as
    the comment ending its line says, one letter per `X(` in order: G (guarded for macOS 15), U (unguarded),
    D (in code no Apple platform compiles)."""
    with open(path, "rb") as f:
        source = f.read()
    dead_lines, all_clauses = conditional_lines(source)
    scratch = os.path.dirname(os.path.realpath(path))
    tree = parse_file(os.path.basename(path), all_clauses, scratch)
    if tree is None:
        fail_setup(f"the compiler could not parse {path}")
    regions = availability_regions(tree, all_clauses)
    offsets = line_offsets(source)
    checked, wrong = 0, 0
    for number, line in enumerate(source.splitlines(), start=1):
        marker = re.search(rb"// ([GUD ]+)$", line)
        if not marker:
            continue
        expected = marker.group(1).split()
        found = []
        for call in re.finditer(rb"X\(", line[:marker.start()]):
            if number in dead_lines:
                found.append(b"D")
            else:
                guaranteed = guaranteed_versions(regions, offsets[number - 1] + call.start())
                found.append(b"G" if guaranteed.get("macOS", (0, 0, 0)) >= (15, 0, 0) else b"U")
        checked += len(expected)
        if found != expected:
            wrong += 1
            print(f"{path}:{number}: expected {b' '.join(expected).decode()}, "
                  f"found {b' '.join(found).decode()}: {line.decode().strip()}")
    print(f"regions: {checked} uses checked, {wrong} line(s) misjudged")
    return 1 if wrong or not checked else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--package-path", default=".")
    parser.add_argument("--scratch-path", default=None, help="the build directory (default PACKAGE/.build)")
    parser.add_argument("--index-store", default=None,
                        help="default SCRATCH/<triple>/debug/index/store, as `swift build` writes it")
    parser.add_argument("--allowlist", default=None, help="default PACKAGE/Scripts/availability-allowlist.txt")
    parser.add_argument("--target", default=None,
                        help="the build's triple (default: the host's, from `swiftc -print-target-info`)")
    parser.add_argument("--library", default=None, help="libIndexStore.so (default: beside the swift in PATH)")
    parser.add_argument("--graph-cache", default=None,
                        help="where the toolchain's symbol graphs are kept (default SCRATCH/availability-check)")
    parser.add_argument("--only", action="append", default=[],
                        help="report only uses in files under this path from the package root (repeatable)")
    parser.add_argument("--verbose", action="store_true",
                        help="also list the uses that a guard covers or that only non-Apple code makes")
    parser.add_argument("--check-regions", metavar="FILE",
                        help="self-test: judge each `X(` of FILE as its line's `// G`, `// U` or `// D` says")
    options = parser.parse_args()
    if options.check_regions:
        return check_regions(options.check_regions)

    def log(message):
        print(message, file=sys.stderr)

    target_info = json.loads(subprocess.run(["swiftc", "-print-target-info"], stdout=subprocess.PIPE,
                                            text=True, check=True).stdout)
    options.target = options.target or target_info["target"]["unversionedTriple"]
    package = os.path.realpath(options.package_path)
    scratch = os.path.realpath(options.scratch_path or os.path.join(package, ".build"))
    store_path = options.index_store or os.path.join(scratch, options.target, "debug", "index", "store")
    allowlist_path = options.allowlist or os.path.join(package, "Scripts", "availability-allowlist.txt")
    if not os.path.isdir(store_path):
        fail_setup(f"no index store at {store_path}; build first (`swift build --build-tests`)")

    swift = shutil.which("swift")
    if not swift:
        fail_setup("no swift in PATH")
    toolchain_usr = os.path.dirname(os.path.dirname(os.path.realpath(swift)))
    library = options.library or os.path.join(toolchain_usr, "lib", "libIndexStore.so")
    if not os.path.exists(library):
        fail_setup(f"no libIndexStore.so at {library} (pass --library)")
    resource_dir = os.path.join(target_info["paths"]["runtimeResourcePath"], "linux")

    minimums = package_minimums(os.path.join(package, "Package.swift"))
    log("minimums (Package.swift): " + ", ".join(f"{p} {version_text(v)}" for p, v in minimums.items()))

    # The records of the package's own source files: those of every unit whose main file is in the package
    # and not in the build directory (which holds generated sources such as the test discovery's).
    store = IndexStore(library, store_path)
    records, indexed_at = {}, {}
    modules = {m for m in ALWAYS_MODULES if swift_module_exists(resource_dir, m)}
    for unit_name in store.unit_names():
        unit = store.unit(unit_name)
        if unit is None:
            continue
        main_file, _module, unit_records, unit_modules = unit
        if not main_file.startswith(package + os.sep) or main_file.startswith(scratch + os.sep):
            continue
        modules |= {m for m in unit_modules
                    if m not in NON_APPLE_MODULES and swift_module_exists(resource_dir, m)}
        for record, file in unit_records:
            if file == main_file and os.path.exists(file):
                records.setdefault(file, set()).add(record)
                unit_file = os.path.join(store_path, "v5", "units", unit_name)
                if os.path.exists(unit_file):
                    indexed_at[file] = max(indexed_at.get(file, 0), os.path.getmtime(unit_file))
    # A source edited after its last compile would be checked against references it no longer has.
    stale_sources = sorted(f for f, t in indexed_at.items() if os.path.getmtime(f) > t)
    if stale_sources:
        fail_setup(f"the index store is older than {len(stale_sources)} source file(s) "
                   f"({os.path.relpath(stale_sources[0], package)}, ...); build again first")

    version = subprocess.run(["swift", "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True).stdout
    toolchain_key = re.sub(r"[^A-Za-z0-9.]+", "-", version.splitlines()[0] if version else "unknown").strip("-")
    cache = os.path.realpath(options.graph_cache or os.path.join(scratch, "availability-check"))
    graph_dir = os.path.join(cache, toolchain_key, options.target)
    parse_dir = os.path.join(scratch, "availability-check", "parse")
    os.makedirs(parse_dir, exist_ok=True)
    availability = load_availability(graph_dir, sorted(modules), options.target, log)
    log(f"{len(records)} source files in the index store; {len(availability)} APIs with Apple availability "
        f"in {', '.join(sorted(modules))}")

    occurrences = {file: [o for record in sorted(file_records) for o in store.occurrences(record)]
                   for file, file_records in records.items()}

    analyses = {}

    def analysis(file):
        """(source, line offsets, lines no Apple platform compiles, availability regions) of one file."""
        if file not in analyses:
            with open(file, "rb") as f:
                source = f.read()
            dead_lines, all_clauses = conditional_lines(source)
            tree = parse_file(os.path.relpath(file, package), all_clauses, parse_dir)
            if tree is None:
                log(f"warning: the compiler could not parse {file}; its guards are not seen")
            regions = availability_regions(tree, all_clauses) if tree is not None else []
            analyses[file] = (source, line_offsets(source), dead_lines, regions)
        return analyses[file]

    def newer_than_minimums(versions):
        return {p: v for p, v in versions.items() if p in minimums and v > minimums[p]}

    # The package's own declarations that an `@available` (or an enclosing `#available`) makes newer than the
    # minimums are APIs like the toolchain's: a use elsewhere needs a guard too.
    for file in sorted(occurrences):
        with open(file, "rb") as f:
            if b"@available" not in f.read():
                continue
        source, offsets, _dead, regions = analysis(file)
        for usr, spelled_name, line, column, roles in occurrences[file]:
            if roles & ROLE_DEFINITION and usr not in availability:
                newer = newer_than_minimums(guaranteed_versions(regions, offsets[line - 1] + column - 1))
                if newer:
                    availability[usr] = (f"{spelled_name} ({os.path.relpath(file, package)}:{line})", newer)

    # Candidates: references to an API introduced after the minimum on some Apple platform.
    candidates = {}
    for file, file_occurrences in occurrences.items():
        if options.only and not os.path.relpath(file, package).startswith(tuple(options.only)):
            continue
        for usr, spelled_name, line, column, roles in file_occurrences:
            known = availability.get(usr)
            if not known or not roles & ROLE_REFERENCE or roles & (ROLE_DECLARATION | ROLE_DEFINITION):
                continue
            name, introduced = known
            newer = newer_than_minimums(introduced)
            if newer:
                candidates.setdefault(file, set()).add((line, column, usr, name, tuple(sorted(newer.items())),
                                                        roles & ROLE_IMPLICIT, spelled_name))

    findings, linux_only, guarded = [], 0, []
    for file in sorted(candidates):
        source, offsets, dead_lines, regions = analysis(file)
        for line, column, usr, name, newer, implicit, spelled_name in sorted(candidates[file]):
            if line in dead_lines:
                linux_only += 1
                if options.verbose:
                    guarded.append(f"not compiled on Apple platforms: {os.path.relpath(file, package)}:{line}:"
                                   f"{column}: {name}")
                continue
            offset = offsets[line - 1] + column - 1
            if implicit and not spelled_at(source, offset, spelled_name):
                continue
            guaranteed = guaranteed_versions(regions, offset)
            missing = {p: v for p, v in newer if guaranteed.get(p, minimums[p]) < v}
            if missing:
                findings.append((os.path.relpath(file, package), line, column, usr, name, dict(newer), missing))
            elif options.verbose:
                guarded.append(f"guarded: {os.path.relpath(file, package)}:{line}:{column}: {name}")

    # The same API at the same place is one finding (a property's read and its getter, say).
    unique = {}
    for finding in findings:
        unique.setdefault(finding[:3] + (finding[4],), finding)
    findings = sorted(unique.values(), key=lambda f: (f[0], f[1], f[2], f[4]))

    entries = read_allowlist(allowlist_path)
    used, errors, allowed = set(), [], []
    for finding in findings:
        file, line, column, usr, name, newer, missing = finding
        matches = [e for e in entries if allowed_by(e, usr, name, file)]
        if matches:
            used.update(e[3] for e in matches)
            allowed.append((finding, matches[0][2]))
        else:
            errors.append(finding)

    def describe(newer):
        return ", ".join(f"{p} {version_text(v)}" for p, v in sorted(newer.items()))

    for line in sorted(set(guarded)):
        print(line)
    for (file, line, column, usr, name, newer, missing), reason in allowed:
        print(f"allowed: {file}:{line}:{column}: {name} (introduced {describe(newer)}): {reason}")
    for file, line, column, usr, name, newer, missing in errors:
        print(f"{file}:{line}:{column}: error: {name} is introduced in {describe(newer)}, after the package's "
              f"minimum; not guarded for {describe(missing)} by #available or @available")
        print(f"    {usr}")
    stale = [e for e in entries if e[3] not in used]
    for api, file, reason, number in stale:
        shown = os.path.relpath(allowlist_path, package)
        shown = allowlist_path if shown.startswith("..") else shown
        print(f"{shown}:{number}: error: allow-list entry matches no finding: {api} {file}")
    print(f"availability check: {len(errors)} unguarded use(s) of newer Apple APIs, {len(allowed)} allowed, "
          f"{len(stale)} stale allow-list entr{'y' if len(stale) == 1 else 'ies'}, {linux_only} use(s) in code no "
          f"Apple platform compiles (skipped)")
    return 1 if errors or stale else 0


if __name__ == "__main__":
    sys.exit(main())
