#!/usr/bin/env bash
# Typechecks the Apple-only sources on Linux against stand-in declarations of the Apple API they
# use (Tests/StandIns/<Framework>/: UIKit, Combine, Network, StoreKit, SwiftUI): TallyKit (the
# StoreKit 1 and 2 adapters, the models' ObservableObject conformance, the network monitor), TallyUI (SwiftUI views, UIKit view
# controllers) and the example apps in Examples/. Linux has no such frameworks, so `swift build`
# skips those files (`#if canImport(...)`); here the stand-ins make `canImport` true and each
# module is typechecked with them, in Swift 6 mode, so a wrong name, label or type, or a
# Sendable problem, fails the run.
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

# The upcoming features Package.swift turns on for TallyKit and TallyUI (`strict`): with
# InternalImportsByDefault a public declaration may use only what its file imports publicly.
features=(-enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault)

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# In dependency order: StoreKit and SwiftUI use UIKit's types, SwiftUI Combine's.
for name in os UIKit Combine Network StoreKit SwiftUI; do
  swiftc -emit-module -swift-version 6 -enable-library-evolution -parse-as-library -suppress-warnings -I "$work" \
    -module-name "$name" -emit-module-path "$work/$name.swiftmodule" Tests/StandIns/"$name"/*.swift
done

# Typechecks a copy of TallyKit's sources in $1; prints the compiler's errors. With a second
# argument, emits the module there instead, for TallyUI and the examples to typecheck against.
typecheck() {
  local sources=() mode=(-typecheck)
  [ -z "${2:-}" ] || mode=(-emit-module -emit-module-path "$2/TallyKit.swiftmodule")
  while IFS= read -r file; do sources+=("$file"); done < <(find "$1" -name '*.swift' | sort)
  swiftc "${mode[@]}" -swift-version 6 "${features[@]}" -package-name "$package_name" -module-name TallyKit \
    -I "$work" -I "$build/Modules" -Xcc -fmodule-map-file=Sources/CSQLite/module.modulemap \
    "${sources[@]}" "$build"/TallyKit.build/DerivedSources/*.swift 2>&1 | grep -E ": error: " || true
}

# Typechecks the module $1 made of the sources in $2, against the stand-ins and the TallyKit
# emitted with them (in $work, found before the Linux build's); prints the compiler's errors.
# TallyUI gets the package's upcoming features; the examples, whose package sets none, do not.
typecheck_user() {
  local module="$1" sources=() flags=()
  [ "$module" != TallyUI ] || flags=("${features[@]}")
  while IFS= read -r file; do sources+=("$file"); done < <(find "$2" -name '*.swift' | sort)
  swiftc -typecheck -swift-version 6 ${flags[@]+"${flags[@]}"} -module-name "$module" \
    -I "$work" -I "$build/Modules" -Xcc -fmodule-map-file=Sources/CSQLite/module.modulemap \
    "${sources[@]}" 2>&1 | grep -E ": error: " || true
}

errors="$(typecheck Sources/TallyKit "$work")"
if [ -n "$errors" ]; then
  echo "check_apple_sources: TallyKit does not typecheck against the Apple stand-ins:" >&2
  echo "$errors" >&2
  exit 1
fi
checked="$(grep -l -E "canImport\((StoreKit|UIKit|Combine|Network)\)" -r Sources/TallyKit | sort | tr '\n' ' ')"
echo "check_apple_sources: TallyKit typechecks with the StoreKit, UIKit, Combine and Network stand-ins ($checked)" >&2

# TallyUI, then each example app's sources (Examples/<App>/Sources/<Module>/), which import
# TallyUI: emitted too, from the same sources.
errors="$(typecheck_user TallyUI Sources/TallyUI)"
if [ -n "$errors" ]; then
  echo "check_apple_sources: TallyUI does not typecheck against the Apple stand-ins:" >&2
  echo "$errors" >&2
  exit 1
fi
tallyui_sources=()
while IFS= read -r file; do tallyui_sources+=("$file"); done < <(find Sources/TallyUI -name '*.swift' | sort)
swiftc -emit-module -swift-version 6 "${features[@]}" -module-name TallyUI -emit-module-path "$work/TallyUI.swiftmodule" \
  -I "$work" -I "$build/Modules" -Xcc -fmodule-map-file=Sources/CSQLite/module.modulemap "${tallyui_sources[@]}" >/dev/null 2>&1
echo "check_apple_sources: TallyUI typechecks with the SwiftUI, UIKit, StoreKit and Combine stand-ins" >&2
examples=0
for module in Examples/*/Sources/*/; do
  [ -d "$module" ] || continue
  name="$(basename "$module")"
  errors="$(typecheck_user "$name" "$module")"
  if [ -n "$errors" ]; then
    echo "check_apple_sources: the example $module does not typecheck against the Apple stand-ins:" >&2
    echo "$errors" >&2
    exit 1
  fi
  # The app target's own file (App/main.swift, top-level code), which imports the example's module.
  app="$(dirname "$(dirname "$module")")/App"
  [ -f "$app/main.swift" ] || { echo "check_apple_sources: $app/main.swift, the app target's file, is missing" >&2; exit 1; }
  if [ -d "$app" ]; then
    example_sources=()
    while IFS= read -r file; do example_sources+=("$file"); done < <(find "$module" -name '*.swift' | sort)
    swiftc -emit-module -swift-version 6 -module-name "$name" -emit-module-path "$work/$name.swiftmodule" \
      -I "$work" -I "$build/Modules" -Xcc -fmodule-map-file=Sources/CSQLite/module.modulemap "${example_sources[@]}" >/dev/null 2>&1
    errors="$(swiftc -typecheck -swift-version 6 -module-name "${name}App" -I "$work" -I "$build/Modules" \
      -Xcc -fmodule-map-file=Sources/CSQLite/module.modulemap "$app"/*.swift 2>&1 | grep -E ": error: " || true)"
    if [ -n "$errors" ]; then
      echo "check_apple_sources: the example app $app does not typecheck against the Apple stand-ins:" >&2
      echo "$errors" >&2
      exit 1
    fi
  fi
  examples=$((examples + 1))
done
[ "$examples" -ge 2 ] || { echo "check_apple_sources: expected the two example apps in Examples/, found $examples" >&2; exit 1; }
echo "check_apple_sources: the $examples example apps (their modules and app targets) typecheck with the stand-ins" >&2

# The self-test: each mistake must fail the check. "module|file|from|to": the module is
# TallyKit, TallyUI or an example app's.
mistakes=(
  "TallyKit|StoreKit1/StoreKit1Store.swift|queue.finishTransaction(queued)|queue.finish(queued)"
  "TallyKit|StoreKit1/StoreKit1Store.swift|func paymentQueueRestoreCompletedTransactionsFinished|func paymentQueueRestoreCompletedTransactionsDidFinish"
  "TallyKit|StoreKit1/StoreKit1Store.swift|didFailWithError error|didFail error"
  "TallyKit|StoreKit2/StoreKit2Store.swift|offerID: offer.offerID, keyID: offer.keyID|offerID: offer.offerID, keyIdentifier: offer.keyID"
  "TallyKit|StoreKit2/StoreKit2Store.swift|product.purchase(confirmIn: scene, options: options)|product.purchase(in: scene, options: options)"
  "TallyKit|Models/PaywallModel.swift|@Published var storage|@Published let storage"
  "TallyKit|StoreKit1/StoreKit1Store.swift|public import StoreKit|import StoreKit"
  "TallyKit|Connectivity/NetworkPathConnectivity.swift|monitor.start(queue:|monitor.begin(queue:"
  "TallyUI|PaywallView.swift|Link(model.termsTitle, destination: links.terms)|Link(model.termsTitle, url: links.terms)"
  "TallyUI|AppStoreSheets.swift|AppStore.showManageSubscriptions(in: scene)|AppStore.showManageSubscriptions(scene)"
  "TallyUI|AppStoreSheets.swift|beginRefundRequest(for: id, in: scene)|beginRefundRequest(id, in: scene)"
  "TallyUI|StoreMessages.swift|try message.display(in: scene)|try message.show(in: scene)"
  "TallyUI|InsufficientCreditsAlert+Views.swift|UIAlertController(title: title, message: message, preferredStyle: .alert)|UIAlertController(title: title, message: message, style: .alert)"
  "TallyUI|SubscriptionProfileView.swift|@ObservedObject private var model: SubscriptionProfileModel|@ObservedObject private var model: SubscriptionProfileModel.Plan"
  "AstrologyReports|ReportsViewController.swift|UIButton(type: .system)|UIButton(style: .system)"
  "PhotoCredits|PhotoCreditsApp.swift|.sheet(isPresented: \$studio.isShowingPaywall)|.sheet(presented: \$studio.isShowingPaywall)"
)
for mistake in "${mistakes[@]}"; do
  IFS='|' read -r module file from to <<<"$mistake"
  folder="Sources/$module"
  [ -d "$folder" ] || folder="$(echo Examples/*/Sources/"$module")"
  rm -rf "$work/copy" && cp -R "$folder" "$work/copy"
  grep -qF "$from" "$work/copy/$file" || { echo "check_apple_sources: self-test: '$from' is no longer in $module/$file" >&2; exit 1; }
  python3 - "$work/copy/$file" "$from" "$to" <<'PY'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
open(path, "w").write(text.replace(old, new, 1))
PY
  if [ "$module" = TallyKit ]; then found="$(typecheck "$work/copy")"; else found="$(typecheck_user "$module" "$work/copy")"; fi
  if [ -z "$found" ]; then
    echo "check_apple_sources: self-test: '$to' in $module/$file was not caught; the stand-ins are too lax" >&2
    exit 1
  fi
done
echo "check_apple_sources: self-test: ${#mistakes[@]} planted mistakes were each caught" >&2
