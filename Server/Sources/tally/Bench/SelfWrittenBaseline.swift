import Foundation
import TallyBenchmarks

#if canImport(Glibc)
import Glibc
#endif

/// The purchase backend an app team writes without Tally (scripts/baseline/backend.py: Flask,
/// SQLite and Apple's app-store-server-library under gunicorn), started by
/// scripts/baseline/serve.sh for `tally bench server --self-written`.
enum SelfWrittenBaseline {
    /// How long the first start may take: it installs the Python packages.
    static let startTimeout: Duration = .seconds(300)

    static func backend(catalog: String, environment: String = "Sandbox") -> ServerBenchmark.SelfWrittenBackend {
        let workers = 2 * ProcessInfo.processInfo.activeProcessorCount + 1
        let catalogURL = URL(fileURLWithPath: catalog).standardizedFileURL
        return .init(name: "Flask + SQLite + app-store-server-library, gunicorn \(workers) workers × 4 threads") { root in
            let script = Subprocess.script("baseline/serve.sh")
            guard FileManager.default.isExecutableFile(atPath: script.path) else {
                throw BaselineError(description: "\(script.path) is missing: run from a clone of the repository")
            }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tally-self-written-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let rootFile = folder.appendingPathComponent("root.der")
            try Data(root).write(to: rootFile)
            let port = try freePort()
            var environment = ProcessInfo.processInfo.environment
            environment["BASELINE_DATABASE"] = folder.appendingPathComponent("backend.sqlite").path
            environment["BASELINE_ROOT"] = rootFile.path
            environment["BASELINE_CATALOG"] = catalogURL.path
            environment["BASELINE_ENVIRONMENT"] = environment["BASELINE_ENVIRONMENT"] ?? "Sandbox"
            let log = folder.appendingPathComponent("serve.log")
            guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw BaselineError(description: "cannot write \(log.path)") }
            let output = try FileHandle(forWritingTo: log)
            guard let process = Subprocess.start(script.path, [String(port)], environment: environment, output: output) else {
                throw BaselineError(description: "\(script.path) did not start")
            }
            let stop: @Sendable () -> Void = {
                if process.isRunning {
                    process.terminate()
                    process.waitUntilExit()
                }
                try? FileManager.default.removeItem(at: folder)
            }
            do {
                try await waitForHealth(port: port, while: { process.isRunning })
            } catch {
                let tail = (try? String(contentsOf: log, encoding: .utf8)).map { $0.split(separator: "\n").suffix(5).joined(separator: " | ") } ?? ""
                stop()
                throw BaselineError(description: "\(error)\(tail.isEmpty ? "" : ": " + tail)")
            }
            return (port, stop)
        }
    }

    /// Polls `GET /healthz` until it answers 200, the process ends, or ``startTimeout`` passes.
    static func waitForHealth(port: Int, while running: () -> Bool) async throws {
        let deadline = ContinuousClock.now + startTimeout
        let client = HTTPLoadClient(host: "127.0.0.1", port: port)
        defer { Task { try? await client.shutdown() } }
        let phase = HTTPLoadClient.Phase(name: "GET /healthz", limit: 1, duration: nil) { _ in
            HTTPLoadClient.Request(.GET, "/healthz", host: "127.0.0.1:\(port)")
        }
        while true {
            guard running() else { throw BaselineError(description: "the backend stopped before answering") }
            if (try? await client.run(phase, connections: 1))?.completed == 1 { return }
            guard ContinuousClock.now < deadline else { throw BaselineError(description: "the backend did not answer GET /healthz in time") }
            try await Task.sleep(for: .milliseconds(250))
        }
    }

    /// A port no one listens on now: the kernel's pick for a socket bound to port 0.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BaselineError(description: "socket() failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else { throw BaselineError(description: "cannot bind a port on 127.0.0.1") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    struct BaselineError: Error, CustomStringConvertible { var description: String }
}
