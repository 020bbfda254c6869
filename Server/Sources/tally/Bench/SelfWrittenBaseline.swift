import Foundation
import TallyBenchmarks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The purchase backend an app team writes without Tally (scripts/baseline/backend.py: Flask,
/// SQLite and Apple's app-store-server-library under gunicorn), started by
/// scripts/baseline/serve.sh for `tally bench server --self-written`.
enum SelfWrittenBaseline {
    /// How long the first start may take: it installs the Python packages.
    static let startTimeout: Duration = .seconds(300)

    /// - Parameter catalog: the catalog file: the backend reads its bundle ID and grants.
    static func backend(catalog: String) -> ServerBenchmark.SelfWrittenBackend {
        let workers = 2 * ProcessInfo.processInfo.activeProcessorCount + 1
        let catalogURL = URL(fileURLWithPath: catalog).standardizedFileURL
        return .init(name: "Flask + SQLite + app-store-server-library, gunicorn \(workers) workers × 4 threads") { root in
            let script = Subprocess.script("baseline/serve.sh")
            guard FileManager.default.isExecutableFile(atPath: script.path) else {
                throw BaselineError(description: "\(script.path) is missing: run from a clone of the repository")
            }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tally-self-written-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let log = folder.appendingPathComponent("serve.log")
            let process: Process
            do {
                let rootFile = folder.appendingPathComponent("root.der")
                try Data(root).write(to: rootFile)
                var environment = ProcessInfo.processInfo.environment
                environment["BASELINE_DATABASE"] = folder.appendingPathComponent("backend.sqlite").path
                environment["BASELINE_ROOT"] = rootFile.path
                environment["BASELINE_CATALOG"] = catalogURL.path
                // The benchmark mints sandbox transactions.
                environment["BASELINE_ENVIRONMENT"] = "Sandbox"
                guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw BaselineError(description: "cannot write \(log.path)") }
                let output = try FileHandle(forWritingTo: log)
                defer { try? output.close() }
                guard let started = Subprocess.start(script.path, [String(workers)], environment: environment, output: output) else {
                    throw BaselineError(description: "\(script.path) did not start")
                }
                process = started
            } catch {
                try? FileManager.default.removeItem(at: folder)
                throw error
            }
            let tail: @Sendable () -> String = {
                (try? String(contentsOf: log, encoding: .utf8)).map { $0.split(separator: "\n").suffix(8).joined(separator: " | ") } ?? ""
            }
            let stop: @Sendable () -> Void = {
                // The script runs in a process group of its own: stop all of it (pip, gunicorn and its workers).
                if process.isRunning {
                    kill(-process.processIdentifier, SIGTERM)
                    process.waitUntilExit()
                }
                try? FileManager.default.removeItem(at: folder)
            }
            do {
                let port = try await listeningPort(in: log, while: { process.isRunning })
                try await waitForHealth(port: port, while: { process.isRunning })
                return .init(port: port, stop: stop, log: tail)
            } catch {
                let lines = tail()
                stop()
                throw BaselineError(description: "\(error)\(lines.isEmpty ? "" : "; its log ends: " + lines)")
            }
        }
    }

    /// The port gunicorn bound, from its log line `Listening at: http://127.0.0.1:PORT (PID)`.
    static func listeningPort(in log: URL, while running: () -> Bool) async throws -> Int {
        let deadline = ContinuousClock.now + startTimeout
        while true {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains("Listening at: http://127.0.0.1:") }),
                let port = line.split(separator: "Listening at: http://127.0.0.1:").last?.prefix(while: \.isNumber), let number = Int(port)
            {
                return number
            }
            guard running() else { throw BaselineError(description: "the backend stopped before listening") }
            guard ContinuousClock.now < deadline else { throw BaselineError(description: "the backend did not listen in time") }
            try await Task.sleep(for: .milliseconds(250))
        }
    }

    /// Asks `GET /healthz` until it answers 200 (each try given 5 s), the process ends, or
    /// ``startTimeout`` passes.
    static func waitForHealth(port: Int, while running: () -> Bool) async throws {
        let deadline = ContinuousClock.now + startTimeout
        while true {
            guard running() else { throw BaselineError(description: "the backend stopped before answering") }
            if try await answersHealth(port: port, within: .seconds(5)) { return }
            guard ContinuousClock.now < deadline else { throw BaselineError(description: "the backend did not answer GET /healthz in time") }
            try await Task.sleep(for: .milliseconds(250))
        }
    }

    /// One `GET /healthz` on a connection of its own, abandoned (its client shut down) after `limit`.
    static func answersHealth(port: Int, within limit: Duration) async throws -> Bool {
        let client = HTTPLoadClient(host: "127.0.0.1", port: port)
        let phase = HTTPLoadClient.Phase(name: "GET /healthz", limit: 1, duration: nil) { _ in
            HTTPLoadClient.Request(.GET, "/healthz", host: "127.0.0.1:\(port)")
        }
        let answered = await withTaskGroup(of: Bool?.self) { group in
            group.addTask { (try? await client.run(phase, connections: 1))?.completed == 1 }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            // Closing the client's connections ends a request still waiting for its answer.
            try? await client.shutdown()
            group.cancelAll()
            return first ?? false
        }
        return answered
    }

    struct BaselineError: Error, CustomStringConvertible { var description: String }
}
