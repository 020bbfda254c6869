#!/usr/bin/env bash
# Typechecks TallyKit's Apple-only sources (StoreKit 1 and 2 adapters) on Linux, against
# stand-in declarations of the Apple API they use (Tests/StandIns/<Framework>/). Linux has no
# StoreKit, so `swift build` skips those files (`#if canImport(StoreKit)`); here the stand-ins
# make `canImport` true and the whole TallyKit module is typechecked with them, in Swift 6
# mode, so a wrong name, label or type, or a Sendable problem, fails the run.
#
# What it cannot see: availability (Linux does not check it), code under `#if os(...)` for an
# Apple system (false on Linux: the visionOS-only branch of StoreKit2Store), Apple's own behaviour, and
# declarations the stand-ins get wrong. A self-test then breaks the sources in ways the check
# must catch (a misspelt method, a misspelt observer callback, a wrong label), so that a
# stand-in that accepts anything fails too.
#
#   scripts/check_apple_sources.sh [BUILD_DIR]     # BUILD_DIR: the root package's debug build
#                                                  # folder, .build/debug by default
# Needs the client package built first (`swift build` or `swift test` at the root).
set -euo pipefail
cd "$(dirname "$0")/.."

build="${1:-.build/debug}"
[ -d "$build/Modules" ] || { echo "check_apple_sources: $build/Modules is missing; run swift build first" >&2; exit 2; }
yaml="$(dirname "$build")/$(basename "$build").yaml"
# The package name SwiftPM compiled TallyKit with (from the folder's name), for `package` access.
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
[ -n "$package_name" ] || { echo "check_apple_sources: no TallyKit compile command in $yaml" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# UIKit first: the StoreKit stand-in declares `purchase(confirmIn: some UIScene)`.
for name in UIKit StoreKit; do
  swiftc -emit-module -swift-version 6 -enable-library-evolution -parse-as-library -suppress-warnings -I "$work" \
    -module-name "$name" -emit-module-path "$work/$name.swiftmodule" Tests/StandIns/"$name"/*.swift
done

# Typechecks a copy of TallyKit's sources in $1; prints the compiler's errors.
typecheck() {
  local sources=()
  while IFS= read -r file; do sources+=("$file"); done < <(find "$1" -name '*.swift' | sort)
  swiftc -typecheck -swift-version 6 -package-name "$package_name" -module-name TallyKit \
    -I "$work" -I "$build/Modules" -Xcc -fmodule-map-file=Sources/CSQLite/module.modulemap \
    "${sources[@]}" "$build"/TallyKit.build/DerivedSources/*.swift 2>&1 | grep -E "error:" || true
}

errors="$(typecheck Sources/TallyKit)"
if [ -n "$errors" ]; then
  echo "check_apple_sources: TallyKit does not typecheck against the Apple stand-ins:" >&2
  echo "$errors" >&2
  exit 1
fi
checked="$(grep -l -E "canImport\((StoreKit|UIKit)\)" -r Sources/TallyKit | sort | tr '\n' ' ')"
echo "check_apple_sources: TallyKit typechecks with the StoreKit and UIKit stand-ins ($checked)" >&2

# The self-test: each mistake must fail the check.
mistakes=(
  "StoreKit1/StoreKit1Store.swift|queue.finishTransaction(queued)|queue.finish(queued)"
  "StoreKit1/StoreKit1Store.swift|func paymentQueueRestoreCompletedTransactionsFinished|func paymentQueueRestoreCompletedTransactionsDidFinish"
  "StoreKit1/StoreKit1Store.swift|didFailWithError error|didFail error"
  "StoreKit2/StoreKit2Store.swift|offerID: offer.offerID, keyID: offer.keyID|offerID: offer.offerID, keyIdentifier: offer.keyID"
  "StoreKit2/StoreKit2Store.swift|product.purchase(confirmIn: scene, options: options)|product.purchase(in: scene, options: options)"
)
for mistake in "${mistakes[@]}"; do
  IFS='|' read -r file from to <<<"$mistake"
  rm -rf "$work/copy" && cp -R Sources/TallyKit "$work/copy"
  grep -qF "$from" "$work/copy/$file" || { echo "check_apple_sources: self-test: '$from' is no longer in $file" >&2; exit 1; }
  python3 - "$work/copy/$file" "$from" "$to" <<'PY'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
open(path, "w").write(text.replace(old, new, 1))
PY
  if [ -z "$(typecheck "$work/copy")" ]; then
    echo "check_apple_sources: self-test: '$to' in $file was not caught; the stand-ins are too lax" >&2
    exit 1
  fi
done
echo "check_apple_sources: self-test: ${#mistakes[@]} planted mistakes were each caught" >&2
