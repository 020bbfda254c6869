#!/usr/bin/env python3
"""Rewrites Apple availability into availability domains the Linux compiler enforces.

Linux's Swift ignores `@available(iOS 15, *)` and treats `#available(...)` as always true, so a
use of an iOS 15 API from iOS 13 code typechecks here. With the experimental CustomAvailability
feature it does enforce *custom* domains declared by a Clang module: a use of an
`@available(iOS_15)` declaration outside `if #available(iOS_15)` or an `@available(iOS_15)`
context is an error. This script writes, for ONE Apple platform and its floor, a copy of the
stand-ins (Tests/StandIns) and of the modules' sources in which:

  * every `@available` naming that platform with a version above the floor becomes one domain
    attribute per known version up to it (`@available(iOS 16, macOS 13, *)` on iOS with floor 13
    becomes `@available(iOS_14) @available(iOS_15) @available(iOS_16)`): a declaration requires
    its version, and its body may use everything up to it. `@available(iOS, unavailable)`
    becomes every domain plus `iOS_unavailable`, which no context grants. Other platforms'
    attributes are dropped; `*` and `swift` ones are kept as written;
  * every `#available(...)` becomes `#available(D1), #available(D2), ...` for the domains up to
    the version it names for that platform, or `true` when it names none (on that platform `*`
    means the floor). On visionOS an iOS version does not count, as in Swift: only visionOS's;
  * `#if`/`#elseif` conditions are evaluated for that platform: `os(<it>)` becomes `true`,
    `os(<other>)` and `targetEnvironment(...)` `false`, and on macOS `canImport(UIKit)` `false`.

App extensions: `@available(<platform>ApplicationExtension, unavailable)` (on visionOS an iOS one
too, for the sources) becomes `@available(AppExtension_unavailable)`, a domain nothing grants, so
the package is checked as an app extension links it: what extensions may not use (the stand-ins
mark `UIApplication.shared`) is usable only from code itself kept out of extensions. With
APPLE_AVAILABILITY_BUILD=app (the example apps) those attributes are dropped, as in an app.

Versions at or below the floor need nothing. For a declaration of the checked sources that
names iOS but not visionOS, visionOS takes the iOS version as Swift does for declarations:
iOS 17 or lower is visionOS 1 (the floor), iOS 18 is visionOS 2, iOS 26 is visionOS 26.

The domains (one per version above the floor that some `@available` names) are declared in
<out>/Domains/AppleDomains.h, a Clang module `AppleDomains` to import implicitly
(`-Xfrontend -import-module -Xfrontend AppleDomains`).

Lint, reported as errors (exit status 1):
  * a stand-in declaration whose `@available` does not give all five platforms a version or
    `unavailable`, or that has no `// Apple: <documentation path>` line above its attributes;
  * a file-scope stand-in declaration (or member of a file-scope extension without its own
    attributes) with no `@available` at all;
  * a `#available` of the checked sources that is compiled for the platform but names no
    version of it: there `*` silently means the floor (the visionOS trap);
  * `#unavailable`, which this rewrite does not model.

Usage: apple_availability.py PLATFORM FLOOR OUT STANDINS_DIR NAME=DIR [NAME=DIR ...]
"""

import os
import re
import sys

PLATFORMS = ["iOS", "macOS", "tvOS", "watchOS", "visionOS"]
ALIASES = {"OSX": "macOS", "xrOS": "visionOS"}


def version_tuple(text):
    parts = [int(p) for p in text.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def version_name(platform, version):
    return platform + "_" + "_".join(str(p) for p in version)


# --- Lexing: which characters are code (not comments or string literals) ---------------------


def code_mask(text):
    """True for each character of code; False inside comments and string literals."""
    mask = [True] * len(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                mask[k] = False
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            for k in range(i, j):
                mask[k] = False
            i = j
        elif c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
            hashes = len(re.match(r'#*', text[i:]).group(0))
            start = i
            i += hashes
            triple = text.startswith('"""', i)
            quote = '"""' if triple else '"'
            i += len(quote)
            closing = quote + "#" * hashes
            while i < n:
                if hashes == 0 and text[i] == "\\":
                    if text.startswith("\\(", i):  # interpolation: skip balanced parens
                        depth, i = 1, i + 2
                        while i < n and depth:
                            if text[i] == "(":
                                depth += 1
                            elif text[i] == ")":
                                depth -= 1
                            i += 1
                        continue
                    i += 2
                    continue
                if text.startswith(closing, i):
                    i += len(closing)
                    break
                i += 1
            for k in range(start, i):
                mask[k] = False
        else:
            i += 1
    return mask


def balanced_end(text, mask, open_index):
    """Index just past the `)` matching the `(` at open_index (code characters only)."""
    depth = 0
    for j in range(open_index, len(text)):
        if not mask[j]:
            continue
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    raise ValueError("unbalanced parentheses")


def split_arguments(text, mask, start, end):
    """The comma-separated arguments between start and end, split at depth 0 in code."""
    arguments, depth, begin = [], 0, start
    for j in range(start, end):
        if not mask[j]:
            continue
        if text[j] in "([":
            depth += 1
        elif text[j] in ")]":
            depth -= 1
        elif text[j] == "," and depth == 0:
            arguments.append(text[begin:j].strip())
            begin = j + 1
    arguments.append(text[begin:end].strip())
    return [a for a in arguments if a]


class Spec:
    """One parsed availability argument list."""

    def __init__(self, arguments):
        self.versions = {}  # platform -> version tuple (short form or `introduced:`)
        self.unavailable = set()  # platforms
        self.star_or_swift = False  # `*` long form or `swift`: kept as written
        self.other = []
        short = all(a == "*" or re.fullmatch(r"[A-Za-z_]\w*\s+[\d.]+", a) for a in arguments)
        if short:
            for a in arguments:
                if a == "*":
                    continue
                name, version = a.split()
                self.versions[ALIASES.get(name, name)] = version_tuple(version)
            return
        head = ALIASES.get(arguments[0], arguments[0])
        if head in ("*", "swift", "_PackageDescription"):
            self.star_or_swift = True
            return
        for a in arguments[1:]:
            if a == "unavailable":
                self.unavailable.add(head)
            match = re.fullmatch(r"introduced\s*:\s*([\d.]+)", a)
            if match:
                self.versions[head] = version_tuple(match.group(1))
        self.other.append(head)


# --- The rewrite ----------------------------------------------------------------------------


class Rewriter:
    def __init__(self, platform, floor, extension_build=True):
        self.platform = platform
        self.extension_build = extension_build
        self.floor = version_tuple(floor)
        self.domains = set()
        self.errors = []

    def declaration_version(self, spec, is_source):
        """The version of this platform a declaration's attribute requires, or None."""
        if self.platform in spec.versions:
            return spec.versions[self.platform]
        if self.platform == "visionOS" and is_source and "iOS" in spec.versions:
            ios = spec.versions["iOS"]
            if ios[0] <= 17:
                return (1,)
            if ios[0] < 26:
                return (ios[0] - 16,) + ios[1:]
            return ios
        return None

    def declaration_unavailable(self, spec, is_source):
        if self.platform in spec.unavailable:
            return True
        return self.platform == "visionOS" and is_source and "iOS" in spec.unavailable and "visionOS" not in spec.versions

    def collect(self, text, is_source):
        mask = code_mask(text)
        for match in re.finditer(r"@available\s*\(", text):
            if not mask[match.start()]:
                continue
            end = balanced_end(text, mask, match.end() - 1)
            spec = Spec(split_arguments(text, mask, match.end(), end - 1))
            version = self.declaration_version(spec, is_source)
            if version and version > self.floor:
                self.domains.add(version)

    def grants(self, version):
        """The domains a context of this version may use: every known one up to it."""
        return [v for v in sorted(self.domains) if v <= version and v > self.floor]

    def rewrite(self, text, path, is_source):
        mask = code_mask(text)
        edits = []
        active = self.active_lines(text, mask)
        for match in re.finditer(r"(@|#)(available|unavailable)\s*\(", text):
            if not mask[match.start()]:
                continue
            end = balanced_end(text, mask, match.end() - 1)
            arguments = split_arguments(text, mask, match.end(), end - 1)
            line = text.count("\n", 0, match.start()) + 1
            where = f"{path}:{line}"
            if match.group(1) == "#" and match.group(2) == "unavailable":
                self.errors.append(f"{where}: error: #unavailable is not modelled by the availability check; use #available")
                continue
            if match.group(1) == "@" and match.group(2) == "unavailable":
                continue
            spec = Spec(arguments)
            if match.group(1) == "@":
                replacement = self.attribute(spec, is_source)
                if replacement is not KEEP:
                    edits.append((match.start(), end, replacement))
            else:
                if is_source and active[line] and self.platform not in spec.versions:
                    self.errors.append(
                        f"{where}: error: this #available names no {self.platform} version, so on {self.platform} "
                        f"its `*` means the floor ({self.platform} {'.'.join(map(str, self.floor))}); name {self.platform}")
                version = spec.versions.get(self.platform, self.floor)
                granted = self.grants(version)
                replacement = ", ".join(f"#available({version_name(self.platform, v)})" for v in granted)
                edits.append((match.start(), end, replacement or "true"))
        out = text
        for start, end, replacement in sorted(edits, reverse=True):
            out = out[:start] + replacement + out[end:]
        return self.rewrite_conditions(out)

    def extension_unavailable(self, spec, is_source):
        """Whether an attribute keeps a declaration out of app extensions on this platform
        (`@available(iOSApplicationExtension, unavailable)`); on visionOS an iOS one counts for the
        sources' declarations, as their other iOS attributes do."""
        if not self.extension_build:
            return False
        if self.platform + "ApplicationExtension" in spec.unavailable:
            return True
        return self.platform == "visionOS" and is_source and "iOSApplicationExtension" in spec.unavailable

    def attribute(self, spec, is_source):
        if spec.star_or_swift:
            return KEEP
        if self.extension_unavailable(spec, is_source):
            # The package must link into app extensions: what they may not use needs a domain no
            # context grants, so only code itself kept out of extensions may use it.
            return "@available(AppExtension_unavailable)"
        if self.declaration_unavailable(spec, is_source):
            # Unavailable on this platform: it needs a domain nothing grants, <platform>_unavailable,
            # so only another unavailable declaration may use it, and its own signature and body
            # may use anything, as in Swift. (`@available(*, unavailable)` with domains on nested
            # declarations trips the compiler's custom-domain check; this does not.)
            everything = [f"@available({version_name(self.platform, v)})" for v in self.grants((999,))]
            return " ".join(everything + [f"@available({self.platform}_unavailable)"])
        version = self.declaration_version(spec, is_source)
        if version is None or version <= self.floor:
            return ""
        return " ".join(f"@available({version_name(self.platform, v)})" for v in self.grants(version))

    def condition(self, condition):
        platform = self.platform

        def os_value(match):
            name = ALIASES.get(match.group(1), match.group(1))
            return "true" if name == platform else "false"

        condition = re.sub(r"\bos\s*\(\s*(\w+)\s*\)", os_value, condition)
        condition = re.sub(r"\btargetEnvironment\s*\(\s*\w+\s*\)", "false", condition)
        if platform == "macOS":
            condition = re.sub(r"\bcanImport\s*\(\s*UIKit\s*\)", "false", condition)
        return condition

    def rewrite_conditions(self, text):
        lines = text.split("\n")
        for index, line in enumerate(lines):
            match = re.match(r"(\s*#(?:if|elseif)\b)(.*)$", line)
            if match:
                body = match.group(2)
                comment = ""
                if "//" in body:
                    body, comment = body.split("//", 1)
                    comment = "//" + comment
                lines[index] = match.group(1) + self.condition(body) + comment
        return "\n".join(lines)

    def active_lines(self, text, mask):
        """For each line number, whether it is compiled for this platform (by #if evaluation).

        Only the conditions this rewrite decides (os, targetEnvironment, canImport(UIKit) on
        macOS) are evaluated; any other condition counts as true, so a line is reported as
        compiled unless the platform rules it out."""
        lines = text.split("\n")
        active = [True] * (len(lines) + 2)
        stack = []  # per open #if: [parent active, a previous branch is certainly taken]
        current = True
        for number, line in enumerate(lines, start=1):
            stripped = line.strip()
            directive = re.match(r"#(if|elseif|else|endif)\b(.*)", stripped)
            if directive:
                kind, rest = directive.groups()
                if kind == "if":
                    value = self.evaluate(rest)
                    stack.append([current, value is True])
                    current = current and value is not False
                elif kind == "elseif":
                    parent, certain = stack[-1]
                    value = self.evaluate(rest)
                    current = parent and not certain and value is not False
                    stack[-1][1] = certain or value is True
                elif kind == "else":
                    parent, certain = stack[-1]
                    current = parent and not certain
                else:
                    current = stack.pop()[0]
            active[number] = current
        return active

    def evaluate(self, condition):
        """False when the platform rules the condition out, else True/None (unknown)."""
        condition = condition.split("//")[0]
        expression = self.condition(condition)
        expression = re.sub(r"\b(canImport|compiler|swift|arch|hasFeature|hasAttribute)\s*\([^)]*\)", "None", expression)
        expression = re.sub(r"\b(?!true\b|false\b|None\b)[A-Za-z_]\w*\b", "None", expression)
        expression = expression.replace("&&", " and ").replace("||", " or ").replace("!", " not ")
        expression = expression.replace("true", "True").replace("false", "False")
        try:
            return three_valued(expression)
        except Exception:
            return None


KEEP = object()


def three_valued(expression):
    """Evaluates a boolean expression of True/False/None (unknown) in Kleene logic."""

    class K:
        def __init__(self, v):
            self.v = v

    tokens = re.findall(r"\(|\)|and|or|not|True|False|None", expression)
    position = 0

    def parse_or():
        nonlocal position
        left = parse_and()
        while position < len(tokens) and tokens[position] == "or":
            position += 1
            right = parse_and()
            left = True if left is True or right is True else (False if left is False and right is False else None)
        return left

    def parse_and():
        nonlocal position
        left = parse_not()
        while position < len(tokens) and tokens[position] == "and":
            position += 1
            right = parse_not()
            left = False if left is False or right is False else (True if left is True and right is True else None)
        return left

    def parse_not():
        nonlocal position
        if tokens[position] == "not":
            position += 1
            value = parse_not()
            return None if value is None else not value
        if tokens[position] == "(":
            position += 1
            value = parse_or()
            position += 1
            return value
        token = tokens[position]
        position += 1
        return {"True": True, "False": False, "None": None}[token]

    return parse_or()


# --- Lint of the stand-ins ------------------------------------------------------------------

DECLARATION = re.compile(
    r"^(\s*)((?:(?:public|open|internal|private|fileprivate|final|static|class|override|mutating|nonisolated|"
    r"indirect|convenience|required|@\w+(?:\([^)]*\))?)\s+)*)"
    r"(struct|class|enum|protocol|extension|func|var|let|init|typealias|case|subscript|actor|associatedtype)\b")


def lint_stand_in(text, path, errors):
    """Every file-scope declaration carries availability, sourced from Apple's documentation."""
    lines = text.split("\n")
    mask = code_mask(text)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    depth_at_line = []
    depth = 0
    extension_attributed = {}
    for number, line in enumerate(lines):
        depth_at_line.append(depth)
        for k in range(offsets[number], offsets[number] + len(line)):
            if mask[k]:
                if text[k] == "{":
                    depth += 1
                elif text[k] == "}":
                    depth -= 1
    # Which lines open a file-scope extension without attributes (its members then need them).
    open_extension_without = None
    for number, line in enumerate(lines):
        match = DECLARATION.match(line)
        depth = depth_at_line[number]
        if depth == 0:
            open_extension_without = None
        if not match or match.group(3) == "associatedtype":
            continue
        attributes = attribute_block(lines, number)
        has = any("@available" in a for a in attributes)
        needs = depth == 0 or (depth == 1 and open_extension_without is not None)
        if depth == 0 and match.group(3) == "extension" and not has:
            open_extension_without = number
            continue
        if depth == 0 and match.group(3) == "extension":
            open_extension_without = None
        if needs and not has:
            errors.append(f"{path}:{number + 1}: error: stand-in declaration without @available (give Apple's availability on all five platforms)")
        if has:
            check_attributes(lines, number, attributes, path, errors)


def attribute_block(lines, number):
    """The attribute lines directly above a declaration line (and on it)."""
    block = [lines[number]]
    k = number - 1
    while k >= 0 and lines[k].strip().startswith("@"):
        block.append(lines[k])
        k -= 1
    return block


def check_attributes(lines, number, attributes, path, errors):
    text = "\n".join(attributes)
    mask = code_mask(text)
    covered, star_only = set(), True
    for match in re.finditer(r"@available\s*\(", text):
        if not mask[match.start()]:
            continue
        end = balanced_end(text, mask, match.end() - 1)
        spec = Spec(split_arguments(text, mask, match.end(), end - 1))
        if not spec.star_or_swift:
            star_only = False
        covered |= set(spec.versions) | spec.unavailable
    if star_only:
        return
    missing = [p for p in PLATFORMS if p not in covered]
    if missing:
        errors.append(f"{path}:{number + 1}: error: stand-in availability names no {', '.join(missing)} (a version or `unavailable` for each)")
    k = number - len(attributes)
    if k < 0 or "// Apple: " not in lines[k]:
        errors.append(f"{path}:{number + 1}: error: stand-in availability without its source: put `// Apple: <documentation path>` above the attributes")


# --- Driver ---------------------------------------------------------------------------------


def swift_files(folder):
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            if name.endswith(".swift"):
                yield os.path.join(root, name)


def main(arguments):
    platform, floor, out, standins = arguments[:4]
    modules = [a.split("=", 1) for a in arguments[4:]]
    rewriter = Rewriter(platform, floor, os.environ.get("APPLE_AVAILABILITY_BUILD", "extension") != "app")
    inputs = []  # (source path, output path, is_source)
    for path in swift_files(standins):
        inputs.append((path, os.path.join(out, "StandIns", os.path.relpath(path, standins)), False))
    for name, folder in modules:
        for path in swift_files(folder):
            inputs.append((path, os.path.join(out, name, os.path.relpath(path, folder)), True))
    texts = {}
    for path, _, is_source in inputs:
        texts[path] = open(path, encoding="utf-8").read()
        rewriter.collect(texts[path], is_source)
        if not is_source:
            lint_stand_in(texts[path], path, rewriter.errors)
    for path, target, is_source in inputs:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(rewriter.rewrite(texts[path], path, is_source))
    domains = os.path.join(out, "Domains")
    os.makedirs(domains, exist_ok=True)
    with open(os.path.join(domains, "AppleDomains.h"), "w") as handle:
        handle.write("// Generated by scripts/apple_availability.py: one domain per " + platform + " version above "
                     + floor + " that an @available names.\n#include <availability_domain.h>\n"
                     "int tally_apple_domain_predicate(void);\n")
        handle.write(f"CLANG_DYNAMIC_AVAILABILITY_DOMAIN({platform}_unavailable, tally_apple_domain_predicate);\n")
        handle.write("CLANG_DYNAMIC_AVAILABILITY_DOMAIN(AppExtension_unavailable, tally_apple_domain_predicate);\n")
        for version in sorted(rewriter.domains):
            handle.write(f"CLANG_DYNAMIC_AVAILABILITY_DOMAIN({version_name(platform, version)}, tally_apple_domain_predicate);\n")
    with open(os.path.join(domains, "module.modulemap"), "w") as handle:
        handle.write('module AppleDomains {\n  header "AppleDomains.h"\n  export *\n}\n')
    for error in rewriter.errors:
        print(error, file=sys.stderr)
    return 1 if rewriter.errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
