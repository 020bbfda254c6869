#!/usr/bin/env python3
"""Drafts an API tester (Tests/APITesters/<Module>API.swift) from a module's symbol graph.

    scripts/api_tester.py MODULE GRAPH_DIR > draft.swift   # the whole module
    scripts/api_tester.py MODULE GRAPH_DIR --missing USR... # only these symbols' lines

GRAPH_DIR holds MODULE.symbols.json (and MODULE@Other.symbols.json for extensions of other
modules' types), as `swiftc -emit-module -emit-symbol-graph -emit-symbol-graph-dir GRAPH_DIR`
writes it (scripts/check_api.sh --graphs DIR keeps the graphs it makes). The draft references
each public declaration once with its type pinned: types as `T.self`, properties by key path
with their type (`let _: KeyPath<PaywallModel.Item, String> = \\.billingText`; an actor's, or a
protocol's, read with `await`), methods and initializers called on a value of the declaring type
with every argument's type, `try`/`await` and the result's type written out
(`let _: Balance = try await (value() as PurchaseManager).balance(of: value() as String, ...)`),
enum cases as values. With --missing, paste each statement into the existing function of its
type in the tester. It is a draft: what the generator cannot spell (generic signatures,
closures with attributes, protocol requirements with associated types) is fixed by hand, and
the hand-fixed tester is what scripts/check_api.sh checks; regenerate only to add symbols.
"""

import glob
import json
import os
import sys


def load(module, folder):
    """The module's public symbols (not the ones the compiler synthesizes from protocol
    extensions of other modules), keyed by precise identifier, and USR -> qualified name."""
    symbols, names = {}, {}
    for path in sorted(glob.glob(os.path.join(folder, f"{module}.symbols.json"))) + sorted(
        glob.glob(os.path.join(folder, f"{module}@*.symbols.json"))
    ):
        for symbol in json.load(open(path))["symbols"]:
            usr = symbol["identifier"]["precise"]
            if "::SYNTHESIZED::" in usr:
                continue
            symbols[usr] = symbol
            names[usr] = ".".join(symbol["pathComponents"])
    return symbols, names


def spell(fragments, names):
    """The fragments as source text, with the module's own types written by their full path."""
    text = ""
    for fragment in fragments:
        usr = fragment.get("preciseIdentifier")
        if fragment["kind"] == "typeIdentifier" and usr in names and "." in names[usr] and not text.endswith("."):
            text += names[usr]
        else:
            text += fragment["spelling"]
    return text


def after_colon(text):
    """`label: Type` -> `Type` (the first colon at depth 0)."""
    depth = 0
    for index, character in enumerate(text):
        if character in "([<":
            depth += 1
        elif character in ")]>":
            depth -= 1
        elif character == ":" and depth == 0:
            return text[index + 1 :].strip()
    return text.strip()


def labels(name):
    """`balance(of:policy:)` -> ['of', 'policy']."""
    if "(" not in name:
        return []
    inner = name[name.index("(") + 1 : -1]
    return [label for label in inner.split(":")[:-1]]


def base(name):
    return name.split("(")[0]


def keywords(symbol):
    return {f["spelling"] for f in symbol["declarationFragments"] if f["kind"] == "keyword"}


def arguments(symbol, names):
    """`of: value() as String, policy: value() as X` for a function's parameters."""
    parameters = symbol.get("functionSignature", {}).get("parameters", [])
    parts = []
    for label, parameter in zip(labels(symbol["pathComponents"][-1]), parameters):
        kind = after_colon(spell(parameter["declarationFragments"], names))
        kind = kind.replace("@escaping ", "").removesuffix("...")
        expression = f"value() as {kind}"
        if kind.startswith("inout "):
            expression = f"&inout_{len(parts)}"
        parts.append(expression if label == "_" else f"{label}: {expression}")
    return ", ".join(parts)


def result(symbol, names):
    returns = spell(symbol.get("functionSignature", {}).get("returns", []), names).strip()
    return returns if returns and returns not in ("()", "Void") else ""


def effects(symbol):
    words = keywords(symbol)
    prefix = "try " if {"throws", "rethrows"} & words else ""
    return prefix + "await "


def line(symbol, names, symbols):
    """One statement referencing the symbol, or None when the generator cannot spell it."""
    kind = symbol["kind"]["identifier"]
    path = symbol["pathComponents"]
    name = path[-1]
    owner = ".".join(path[:-1])
    owner_usr = next(
        (usr for usr, other in symbols.items() if ".".join(other["pathComponents"]) == owner), None
    )
    owner_kind = symbols[owner_usr]["kind"]["identifier"] if owner_usr else ""
    instance = "instance" if owner_kind == "swift.protocol" else f"(value() as {owner})"
    if kind in ("swift.struct", "swift.enum", "swift.class", "swift.typealias"):
        return f"_ = {'.'.join(path)}.self"
    if kind == "swift.protocol":
        return f"_ = (any {'.'.join(path)}).self"
    if kind == "swift.enum.case":
        declaration = spell(symbol["declarationFragments"], names)
        if "(" not in declaration:
            return f"let _: {owner} = .{name}"
        inner, depth, parts, current = declaration[declaration.index("(") + 1 : declaration.rindex(")")], 0, [], ""
        for character in inner:
            depth += character in "([<"
            depth -= character in ")]>"
            if character == "," and depth == 0:
                parts.append(current)
                current = ""
            else:
                current += character
        parts.append(current)
        values = []
        for label, part in zip(labels(name) or ["_"] * len(parts), parts):
            expression = f"value() as {after_colon(part) if ':' in part else part.strip()}"
            values.append(expression if label == "_" else f"{label}: {expression}")
        return f"let _: {owner} = .{base(name)}({', '.join(values)})"
    if kind in ("swift.property", "swift.type.property"):
        declaration = spell(symbol["declarationFragments"], names)
        kind_text = after_colon(declaration.split(" {")[0])
        subject = owner if kind == "swift.type.property" else instance
        actor = owner_usr and "actor" in keywords(symbols[owner_usr])
        if kind == "swift.property" and owner_kind != "swift.protocol" and not actor:
            return f"let _: KeyPath<{owner}, {kind_text}> = \\.{name}"
        if owner_kind == "swift.protocol" and kind == "swift.type.property":
            subject = "Instance"
        return f"let _: {kind_text} = await {subject}.{name}"
    if kind in ("swift.method", "swift.type.method"):
        subject = owner if kind == "swift.type.method" else instance
        if owner_kind == "swift.protocol" and kind == "swift.type.method":
            subject = "Instance"
        if "mutating" in keywords(symbol):
            subject = "mutable"
        returns = result(symbol, names)
        call = f"{effects(symbol)}{subject}.{base(name)}({arguments(symbol, names)})"
        if "mutating" in keywords(symbol):
            call = f"var mutable = value() as {owner}; " + (f"let _: {returns} = " if returns else "") + call
            return call
        if returns.startswith("some "):
            return f"_ = {call}"
        return f"let _: {returns} = {call}" if returns else f"{call}"
    if kind == "swift.init":
        made = "Instance" if owner_kind == "swift.protocol" else owner
        optional = "?" if "init?" in spell(symbol["declarationFragments"], names) else ""
        return f"let _: {made}{optional} = {effects(symbol)}{made}({arguments(symbol, names)})"
    return None


HEADER = """// The public API of MODULE, pinned: every public declaration is referenced once, with its
// type written out, in functions that are never called. scripts/check_api.sh typechecks this
// file and checks that every public symbol of the module is referenced here, so a change of the
// public surface (a symbol added, removed, renamed, or its type changed) fails the test command.
// Drafted by scripts/api_tester.py from the module's symbol graph, then fixed by hand.

import Foundation
import TallyCore
import TallyKit
import TallyTesting
import TallyVerify

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A value of any type, for arguments of the right type in calls that never run.
private func value<T>(_: T.Type = T.self) -> T { fatalError("never called") }

"""


def main():
    module, folder = sys.argv[1], sys.argv[2]
    only = set(sys.argv[4:]) if len(sys.argv) > 3 and sys.argv[3] == "--missing" else None
    symbols, names = load(module, folder)
    if only is None:
        print(HEADER.replace("MODULE", module), end="")
    groups = {}
    for usr, symbol in symbols.items():
        if only is not None and usr not in only:
            continue
        top = symbol["pathComponents"][0]
        groups.setdefault(top, []).append(symbol)
    for top in sorted(groups):
        protocol = any(
            s["kind"]["identifier"] == "swift.protocol" and len(s["pathComponents"]) == 1
            for s in symbols.values()
            if s["pathComponents"][0] == top
        )
        signature = f"<Instance: {top}>(_ instance: Instance)" if protocol else "()"
        print(f"@MainActor func check{top.replace('.', '')}{signature} async throws {{")
        for symbol in sorted(groups[top], key=lambda s: ".".join(s["pathComponents"])):
            statement = line(symbol, names, symbols)
            qualified = ".".join(symbol["pathComponents"])
            if statement is None:
                print(f"    // TODO {qualified} ({symbol['kind']['identifier']})")
            else:
                print(f"    {statement}")
        print("}\n")


if __name__ == "__main__":
    main()
