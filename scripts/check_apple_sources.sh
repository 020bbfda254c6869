#!/usr/bin/env bash
# Typechecks the Apple-only sources on Linux against stand-in declarations of the Apple API they
# use (Tests/StandIns/<Framework>/: UIKit, Combine, Network, StoreKit, SwiftUI): TallyKit (the
# StoreKit 1 and 2 adapters, the models' ObservableObject conformance, the network monitor),
# TallyUI (SwiftUI views, UIKit view controllers) and the example apps in Examples/. Linux has no such frameworks, so `swift build`
# skips those files (`#if canImport(...)`); here the stand-ins make `canImport` true and each
# module is typechecked with them, in Swift 6 mode, so a wrong name, label or type, or a
# Sendable problem, fails the run.
#
# Then availability, proved by the compiler (decision 0023): scripts/apple_availability.py
# rewrites the stand-ins (which carry Apple's availability, Tests/StandIns/AVAILABILITY.md) and
# the sources once per platform and floor the manifests declare (iOS 13, macOS 10.15, tvOS 13,
# watchOS 6.2, visionOS 1; the examples at iOS 14 and macOS 14) into availability domains that
# Linux's compiler enforces (the experimental CustomAvailability feature), with `#if os(...)`
# decided for that platform. Every use of an Apple API, or of a TallyKit/TallyUI declaration,
# outside a context that guarantees it there (the floor, an enclosing `@available`, `if` or
# `guard #available`) is then a compiler error, as Xcode would report it; an iOS version in
# `#available` does not cover visionOS, as in Swift; and a `#available` compiled for a platform
# must name it (on that platform `*` means the floor).
#
# What it proves: with the stand-ins' figures, no use of an Apple API needs more than what is
# guaranteed where it is used, on each floor; names, labels, types, imports and Sendable hold;
# code under `#if os(visionOS)` and the other platforms' branches typechecks.
# What only Xcode can prove: that the stand-ins match Apple's SDK (they are hand-written, and
# figures marked "page not re-read" follow the headers as known); the availability of the Swift
# standard library, Foundation and Observation (Linux's modules carry none: decision 0014's
# audit); Mac Catalyst and app-extension restrictions; `canImport` of frameworks without a
# stand-in (Darwin, AppKit, WatchKit: false here); deprecations; Apple's compiler version
# (6.1 in the Xcode workflow) and back-deployment at run time; and behaviour.
#
# Self-tests then break the sources in ways the check must catch (a misspelt method, a
# misspelt observer callback, a wrong label; an API used below its version on a platform), so
# that a stand-in that accepts anything fails too.
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
for name in os UIKit Combine Network StoreKit StoreKitTest SwiftUI; do
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
    # Its Xcode-only tests (AppTests/: XCTest, which Linux has, and StoreKit Test's session).
    tests="$(dirname "$app")/AppTests"
    [ -n "$(find "$tests" -name '*.swift' 2>/dev/null)" ] || { echo "check_apple_sources: $tests has no tests" >&2; exit 1; }
    errors="$(swiftc -typecheck -swift-version 6 -module-name "${name}AppTests" -I "$work" -I "$build/Modules" \
      -Xcc -fmodule-map-file=Sources/CSQLite/module.modulemap "$tests"/*.swift 2>&1 | grep -E ": error: " || true)"
    if [ -n "$errors" ]; then
      echo "check_apple_sources: the example's tests $tests do not typecheck against the Apple stand-ins:" >&2
      echo "$errors" >&2
      exit 1
    fi
  fi
  examples=$((examples + 1))
done
[ "$examples" -ge 2 ] || { echo "check_apple_sources: expected the two example apps in Examples/, found $examples" >&2; exit 1; }
echo "check_apple_sources: the $examples example apps (their modules, app targets and Xcode-only tests) typecheck with the stand-ins" >&2

# --- Availability ----------------------------------------------------------------------------
# The same sources, once per Apple platform the package declares, with Apple's availability
# enforced by the compiler: scripts/apple_availability.py rewrites the stand-ins' and the
# sources' `@available`/`#available` for that platform into availability domains (one per
# version above the floor; CustomAvailability makes Linux's compiler enforce those) and
# evaluates `#if os(...)` for it. A use of an API outside a context that guarantees it on that
# platform's floor is then a compiler error. Each package is checked at its own floors: TallyKit
# and TallyUI at the root package's five, the examples at their package's two (iOS 14, macOS 14).
# "platform=floor=scope": scope `library` checks TallyKit and TallyUI, `examples` the example
# apps (with TallyKit and TallyUI rebuilt at that floor under them).
floors=(iOS=13=library macOS=10.15=library tvOS=13=library watchOS=6.2=library visionOS=1=library iOS=14=examples macOS=14=examples)
# The floors the manifests declare must be these.
declared="$(grep -E '^\s*platforms:' Package.swift Examples/Package.swift | tr -d ' ')"
[ "$declared" = 'Package.swift:platforms:[.macOS(.v10_15),.iOS(.v13),.tvOS(.v13),.watchOS("6.2"),.visionOS(.v1)],
Examples/Package.swift:platforms:[.macOS(.v14),.iOS(.v14)],' ] || {
  echo "check_apple_sources: a manifest's platforms changed ($declared): update floors= in this script" >&2; exit 1; }
availability=(-enable-experimental-feature CustomAvailability -Xfrontend -import-module -Xfrontend AppleDomains)

# Checks one platform: $1 platform, $2 floor, $3 folder to work in, $4 the one module to
# typecheck again (the self-test; empty: build everything), then NAME=FOLDER for the modules'
# sources (TallyKit, TallyUI, the examples' modules and app targets). Prints the compiler's
# errors (and the rewrite's), with the original files' paths.
check_platform() {
  local platform="$1" floor="$2" out="$3" only="$4" modules=("${@:5}") flags replace=() sources=() name
  [ -n "$only" ] || { rm -rf "$out" && mkdir -p "$out/modules"; }
  flags=(-swift-version 6 "${availability[@]}" -Xfrontend -no-serialize-debugging-options -I "$out/Domains"
    -module-cache-path "$out/cache" -I "$out/modules" -I "$build/Modules" -Xcc -fmodule-map-file=Sources/CSQLite/module.modulemap)
  for pair in "${modules[@]}"; do replace+=(-e "s|$out/${pair%%=*}/|${pair#*=}/|g"); done
  replace+=(-e "s|$out/StandIns/|Tests/StandIns/|g")
  {
    python3 scripts/apple_availability.py "$platform" "$floor" "$out" Tests/StandIns "${modules[@]}" 2>&1 || true
    if [ -z "$only" ]; then
      for name in os UIKit Combine Network StoreKit SwiftUI; do
        swiftc -emit-module "${flags[@]}" -enable-library-evolution -parse-as-library -module-name "$name" \
          -emit-module-path "$out/modules/$name.swiftmodule" "$out/StandIns/$name"/*.swift 2>&1
      done
    fi
    for pair in "${modules[@]}"; do
      name="${pair%%=*}" sources=()
      [ -z "$only" ] || [ "$name" = "$only" ] || continue
      while IFS= read -r file; do sources+=("$file"); done < <(find "$out/$name" -name '*.swift' | sort)
      local mode=(-emit-module -emit-module-path "$out/modules/$name.swiftmodule") module_flags=()
      [ -z "$only" ] || mode=(-typecheck)
      case "$name" in
        TallyKit) module_flags=("${features[@]}" -package-name "$package_name")
          sources+=("$build"/TallyKit.build/DerivedSources/*.swift) ;;
        TallyUI) module_flags=("${features[@]}") ;;
        *App) mode=(-typecheck) ;;
      esac
      swiftc "${mode[@]}" "${flags[@]}" ${module_flags[@]+"${module_flags[@]}"} -module-name "$name" "${sources[@]}" 2>&1
    done
  } | grep -E ": error: " | sed "${replace[@]}" || true
}

# The modules checked in a configuration, as NAME=FOLDER; $1 is the platform, $2 the scope,
# $3 replaces one module's folder (NAME=FOLDER, for the self-test). The app targets are iOS
# apps (AstrologyReports' imports UIKit), so they are checked on iOS.
platform_modules() {
  local list=(TallyKit=Sources/TallyKit TallyUI=Sources/TallyUI) module name
  if [ "$2" = examples ]; then
    for module in Examples/*/Sources/*/; do
      name="$(basename "$module")"
      list+=("$name=${module%/}")
      [ "$1" != iOS ] || list+=("${name}App=$(dirname "$(dirname "$module")")/App")
    done
  fi
  for module in "${list[@]}"; do
    [ -n "${3:-}" ] && [ "${module%%=*}" = "${3%%=*}" ] && module="$3"
    echo "$module"
  done
}

availability_start=$SECONDS
# The configurations run side by side, as many at a time as there are cores.
parallel="$(nproc 2>/dev/null || echo 2)"
for entry in "${floors[@]}"; do
  IFS='=' read -r platform floor scope <<<"$entry"
  modules=()
  while IFS= read -r module; do modules+=("$module"); done < <(platform_modules "$platform" "$scope")
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  # The library is checked as an app extension links it (what extensions may not use, only
  # from code kept out of them); the examples are apps.
  build_kind=extension
  [ "$scope" != examples ] || build_kind=app
  APPLE_AVAILABILITY_BUILD="$build_kind" check_platform "$platform" "$floor" "$work/availability/$platform-$floor" "" "${modules[@]}" \
    >"$work/availability-$platform-$floor.log" &
done
wait
failed=0
for entry in "${floors[@]}"; do
  IFS='=' read -r platform floor scope <<<"$entry"
  if [ -s "$work/availability-$platform-$floor.log" ]; then
    echo "check_apple_sources: on $platform $floor ($scope), these uses of Apple API are not guaranteed available:" >&2
    cat "$work/availability-$platform-$floor.log" >&2
    failed=1
  fi
done
[ "$failed" = 0 ] || exit 1
echo "check_apple_sources: availability holds on iOS 13, macOS 10.15, tvOS 13, watchOS 6.2 and visionOS 1 (the examples: iOS 14, macOS 14) in $((SECONDS - availability_start)) s" >&2

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

# The availability self-test: each mistake must fail the check on its platform.
# "platform|module|file|from|to", as above.
availability_mistakes=(
  "iOS|TallyUI|StoreMessages.swift|@available(iOS 16, visionOS 1, *)|@available(iOS 15, visionOS 1, *)"
  "iOS|TallyKit|StoreKit2/StoreKit2Store.swift|if #available(iOS 16, macOS 13, tvOS 16, watchOS 9, visionOS 1, *) {|if #available(iOS 15, macOS 13, tvOS 16, watchOS 9, visionOS 1, *) {"
  "visionOS|TallyKit|StoreKit2/StoreKit2Store.swift|guard #available(iOS 18, macOS 15, tvOS 18, watchOS 11, visionOS 2, *),|guard #available(iOS 18, macOS 15, tvOS 18, watchOS 11, visionOS 1, *),"
  "iOS|TallyUI|AppStoreSheets.swift|if #available(iOS 14, *) {|if #available(iOS 13, *) {"
  "iOS|TallyUI|CreditsBalanceView.swift|.onAppear { Task { await model.update() } }|.task { await model.update() }"
  "iOS|TallyKit|StoreKit2/StoreKit2Store.swift|if #available(iOS 17, tvOS 17, visionOS 1, *),|if #available(iOS 16, tvOS 17, visionOS 1, *),"
  "visionOS|TallyKit|StoreKit2/StoreKit2Store.swift|if #available(iOS 17, tvOS 17, visionOS 1, *), let scene = given?.scene {|if #available(iOS 17, tvOS 17, visionOS 1, *), let scene = (given ?? .inFront)?.scene {"
  "iOS|TallyUI|PaywallView.swift|@available(iOSApplicationExtension, unavailable)|@available(iOS 14, *)"
)
for mistake in "${availability_mistakes[@]}"; do
  IFS='|' read -r platform module file from to <<<"$mistake"
  folder="Sources/$module"
  [ -d "$folder" ] || folder="$(echo Examples/*/Sources/"$module")"
  rm -rf "$work/copy" && cp -R "$folder" "$work/copy"
  grep -qF "$from" "$work/copy/$file" || { echo "check_apple_sources: availability self-test: '$from' is no longer in $module/$file" >&2; exit 1; }
  python3 - "$work/copy/$file" "$from" "$to" <<'PY'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
open(path, "w").write(text.replace(old, new, 1))
PY
  # The configuration that checks the module on that platform.
  for entry in "${floors[@]}"; do
    IFS='=' read -r candidate floor scope <<<"$entry"
    [ "$candidate" = "$platform" ] || continue
    case "$module" in TallyKit | TallyUI) [ "$scope" = library ] && break ;; *) [ "$scope" = examples ] && break ;; esac
  done
  modules=()
  while IFS= read -r entry; do modules+=("$entry"); done < <(platform_modules "$platform" "$scope" "$module=$work/copy")
  found="$(check_platform "$platform" "$floor" "$work/availability/$platform-$floor" "$module" "${modules[@]}")"
  if [ -z "$found" ]; then
    echo "check_apple_sources: availability self-test: '$to' in $module/$file was not caught on $platform" >&2
    exit 1
  fi
done
echo "check_apple_sources: availability self-test: ${#availability_mistakes[@]} planted mistakes were each caught" >&2
