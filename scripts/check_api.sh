#!/usr/bin/env bash
# Pins the public API of TallyKit, TallyUI and TallyKitTesting (what apps compile against):
# Tests/APITesters/<Module>API.swift reference every public declaration once, with its type
# written out, in functions that are never called. This script
#   1. typechecks them: TallyKitAPI.swift and TallyUIAPI.swift against TallyKit and TallyUI
#      emitted with the Apple stand-ins (Tests/StandIns, as scripts/check_apple_sources.sh does),
#      so the StoreKit adapters and the SwiftUI/UIKit views are in; TallyKitTestingAPI.swift
#      against the Linux build's modules. A changed name, label, type or effect fails here.
#   2. checks coverage: every public symbol of the three modules (from the symbol graph of those
#      same module builds, by qualified name) is referenced by its tester (from the typechecked
#      AST's references). A public symbol added without a tester line fails with the list.
#   3. self-test: a copy of TallyKit with one public method removed must fail step 1.
# A tester line for a removed or renamed symbol fails step 1.
#
#   scripts/check_api.sh [BUILD_DIR] [--graphs DIR]   # BUILD_DIR: .build/debug by default;
#                                                     # --graphs keeps the symbol graphs in DIR
# Needs the client package built first. To add the lines of new symbols (a draft, fix by hand):
#   scripts/check_api.sh --graphs /tmp/graphs   (the failure lists the missing symbols), then
#   scripts/api_tester.py TallyKit /tmp/graphs --missing USR...   (USRs from the list).
set -euo pipefail
cd "$(dirname "$0")/.."

build=".build/debug" keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --graphs) keep="$2"; shift 2 ;;
    *) build="$1"; shift ;;
  esac
done
[ -d "$build/Modules" ] || { echo "check_api: $build/Modules is missing; run swift build first" >&2; exit 2; }
yaml="$(dirname "$build")/$(basename "$build").yaml"
package_name="$(python3 - "$yaml" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    if '"-module-name","TallyKit"' in line:
        found = re.search(r'"-package-name","([^"]*)"', line)
        if found:
            print(found.group(1))
            break
PY
)"
[ -n "$package_name" ] || { echo "check_api: no TallyKit compile command in $yaml" >&2; exit 2; }
features=(-enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault)
start=$SECONDS

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/apple" "$work/linux" "$work/graphs"
for name in os UIKit Combine Network StoreKit SwiftUI; do
  swiftc -emit-module -swift-version 6 -enable-library-evolution -parse-as-library -suppress-warnings -I "$work/apple" \
    -module-name "$name" -emit-module-path "$work/apple/$name.swiftmodule" Tests/StandIns/"$name"/*.swift
done

common=(-swift-version 6 -suppress-warnings -I "$build/Modules" -Xcc -fmodule-map-file=Sources/CSQLite/module.modulemap)
# Emits module $1 from the sources in $2 into folder $3 (with its symbol graph when $4 is set);
# more arguments go to swiftc. Prints the compiler's errors.
emit() {
  local module="$1" folder="$2" out="$3" graphs="$4" sources=()
  shift 4
  while IFS= read -r file; do sources+=("$file"); done < <(find "$folder" -name '*.swift' | sort)
  local graph=()
  [ -z "$graphs" ] || graph=(-emit-symbol-graph -emit-symbol-graph-dir "$graphs")
  swiftc -emit-module -emit-module-path "$out/$module.swiftmodule" ${graph[@]+"${graph[@]}"} -module-name "$module" \
    "${features[@]}" -I "$out" "${common[@]}" "$@" "${sources[@]}" 2>&1 | grep -E ": error: " || true
}
derived=("$build"/TallyKit.build/DerivedSources/*.swift)
errors="$(emit TallyKit Sources/TallyKit "$work/apple" "$work/graphs" -package-name "$package_name" "${derived[@]}")
$(emit TallyUI Sources/TallyUI "$work/apple" "$work/graphs")
$(emit TallyKitTesting Sources/TallyKitTesting "$work/linux" "$work/graphs" -package-name "$package_name")"
if [ -n "$(echo "$errors" | tr -d '[:space:]')" ]; then
  echo "check_api: the modules do not build:" >&2
  echo "$errors" >&2
  exit 1
fi
[ -z "$keep" ] || { mkdir -p "$keep" && cp "$work/graphs"/*.json "$keep"/; }

# Typechecks tester $1 against the modules in $2; the AST (its references) goes to $3.
typecheck_tester() {
  swiftc -dump-ast -module-name "$(basename "$1" .swift)Tester" -I "$2" "${common[@]}" "$1" 2>"$3.errors" >"$3" || true
  grep -E ": error: " "$3.errors" || true
}
errors="$(typecheck_tester Tests/APITesters/TallyKitAPI.swift "$work/apple" "$work/TallyKit.ast")
$(typecheck_tester Tests/APITesters/TallyUIAPI.swift "$work/apple" "$work/TallyUI.ast")
$(typecheck_tester Tests/APITesters/TallyKitTestingAPI.swift "$work/linux" "$work/TallyKitTesting.ast")"
if [ -n "$(echo "$errors" | tr -d '[:space:]')" ]; then
  echo "check_api: the public API changed: the testers in Tests/APITesters no longer typecheck (update them if the change is meant):" >&2
  echo "$errors" >&2
  exit 1
fi
echo "check_api: Tests/APITesters typecheck against TallyKit, TallyUI (with the Apple stand-ins) and TallyKitTesting" >&2

# Coverage: every public symbol in the graphs is referenced by its module's tester. The
# modules (and their ASTs, $work/<Module>.ast) are the arguments.
cat >"$work/coverage.py" <<'PY'
import glob, json, os, re, sys
work = sys.argv[1]
failed = False
for module in sys.argv[2:]:
    ast = open(os.path.join(work, f"{module}.ast")).read()
    referenced = set()
    for match in re.finditer(r'decl="([A-Za-z0-9_]+)\.\(file\)\.([^"@\[]+)', ast):
        referenced.add(match.group(1) + ":" + match.group(2).strip().replace(" extension.", "."))
    types = set()
    for match in re.finditer(r'typerepr="([^"]*)"', ast):
        types.update(re.findall(r"[A-Za-z_][A-Za-z0-9_.]*", match.group(1)))
    missing = []
    graphs = [os.path.join(work, "graphs", f"{module}.symbols.json")]
    graphs += sorted(glob.glob(os.path.join(work, "graphs", f"{module}@*.symbols.json")))
    total = 0
    for path in graphs:
        for symbol in json.load(open(path))["symbols"]:
            usr = symbol["identifier"]["precise"]
            if "::SYNTHESIZED::" in usr:
                continue
            total += 1
            name = ".".join(symbol["pathComponents"])
            kind = symbol["kind"]["identifier"]
            # The AST spells a name whose labels are all `_` without them: `record(_:)` is `record`.
            spelt = re.sub(r"\((_:)+\)$", "", name)
            if f"{module}:{name}" in referenced or f"{module}:{spelt}" in referenced:
                continue
            if kind in ("swift.struct", "swift.enum", "swift.class", "swift.protocol", "swift.typealias") and (
                name in types or f"{module}.{name}" in types
            ):
                continue
            missing.append(f"  {name} ({kind}) {usr}")
    if missing:
        failed = True
        print(f"check_api: {len(missing)} public symbols of {module} are not referenced by Tests/APITesters/{module}API.swift"
              " (add a line for each; scripts/api_tester.py drafts them):", file=sys.stderr)
        print("\n".join(missing), file=sys.stderr)
    else:
        print(f"check_api: all {total} public symbols of {module} are referenced by its tester", file=sys.stderr)
sys.exit(1 if failed else 0)
PY
python3 "$work/coverage.py" "$work" TallyKit TallyUI TallyKitTesting

# Self-tests: a tester without the line of PurchaseManager.balance(of:policy:) must fail the
# coverage, and TallyKit without that public method must fail the typecheck.
mkdir -p "$work/short"
grep -v -F ").balance(of: value() as String, policy: value() as FetchPolicy)" Tests/APITesters/TallyKitAPI.swift >"$work/short/TallyKitAPI.swift"
[ "$(wc -l <"$work/short/TallyKitAPI.swift")" = "$(($(wc -l <Tests/APITesters/TallyKitAPI.swift) - 1))" ] || {
  echo "check_api: self-test: the line of balance(of:policy:) is no longer in Tests/APITesters/TallyKitAPI.swift as the self-test expects" >&2; exit 1; }
typecheck_tester "$work/short/TallyKitAPI.swift" "$work/apple" "$work/short/TallyKit.ast" >/dev/null
cp "$work/graphs"/TallyKit*.json "$work/short/" && mkdir -p "$work/short/graphs" && mv "$work/short"/*.json "$work/short/graphs/"
if python3 "$work/coverage.py" "$work/short" TallyKit 2>/dev/null; then
  echo "check_api: self-test: a tester without the line of balance(of:policy:) was not caught" >&2
  exit 1
fi

rm -rf "$work/copy" "$work/self" && cp -R Sources/TallyKit "$work/copy" && mkdir -p "$work/self"
cp "$work/apple"/{os,UIKit,Combine,Network,StoreKit,SwiftUI}.swiftmodule "$work/self"/
file="$work/copy/Manager/PurchaseManager+Credits.swift" from="public func balance(of currency: String"
grep -qF "$from" "$file" || { echo "check_api: self-test: '$from' is no longer in TallyKit/Manager/PurchaseManager+Credits.swift" >&2; exit 1; }
sed -i "s/$from/func balance(of currency: String/" "$file"
errors="$(emit TallyKit "$work/copy" "$work/self" "" -package-name "$package_name" "${derived[@]}")"
[ -z "$errors" ] || { echo "check_api: self-test: the copy of TallyKit does not build: $errors" >&2; exit 1; }
if [ -z "$(typecheck_tester Tests/APITesters/TallyKitAPI.swift "$work/self" "$work/self.ast")" ]; then
  echo "check_api: self-test: TallyKit without the public balance(of:policy:) was not caught" >&2
  exit 1
fi
echo "check_api: self-test: a tester line missing and a public method removed were each caught; done in $((SECONDS - start)) s" >&2
