import Foundation
import TallyBenchmarks

#if canImport(Glibc)
import Glibc
#endif

/// The machine a benchmark ran on, for the record.
enum MachineInfo {
    static var summary: String {
        let cpu =
            (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        return "\(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.operatingSystemVersionString)"
    }
}

/// How `tally bench` commands print what they measured.
enum BenchReport {
    /// One JSON object (snake_case keys, sorted, with the machine) with `json`, else the table.
    static func print<Result: Encodable>(_ result: Result, json: Bool, table: (Result) -> String) throws {
        guard json else {
            Swift.print(table(result))
            return
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        var object = try JSONSerialization.jsonObject(with: encoder.encode(result)) as? [String: Any] ?? [:]
        object["machine"] = MachineInfo.summary
        Swift.print(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self))
    }
}

/// Runs programs for the benchmarks' baselines.
enum Subprocess {
    /// Runs a program and returns its status and its output (standard output and error), or nil when it cannot start.
    static func output(_ executable: String, _ arguments: [String]) -> (status: Int32, output: String)? {
        let pipe = Pipe()
        guard let process = start(executable, arguments, output: pipe) else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Starts a program with its standard output and error to `output` (a `Pipe` or a
    /// `FileHandle`, as `Process` takes them); nil when it cannot start.
    static func start(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, output: Any) -> Process? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        if let environment { process.environment = environment }
        process.standardOutput = output
        process.standardError = output
        // A child inherits the spawning thread's signal mask, and the concurrency runtime's
        // threads block signals: `openssl speed` times itself with SIGALRM and would never
        // stop, and a server would not stop on SIGTERM.
        #if canImport(Glibc)
        var all = sigset_t()
        var previous = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_UNBLOCK, &all, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        #endif
        do { try process.run() } catch { return nil }
        return process
    }

    /// A script in the repository's `scripts` folder, found from this source file: the
    /// baselines that run one need a clone of the repository.
    static func script(_ relativePath: String) -> URL {
        // This file is Server/Sources/tally/Bench/Baselines.swift.
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts").appendingPathComponent(relativePath)
    }
}

/// `openssl speed ecdsap256`: the raw P-256 verification rate of OpenSSL on this core.
enum OpenSSLSpeed {
    static func verifyRate() -> Double? {
        guard let (status, output) = Subprocess.output("openssl", ["speed", "-seconds", "3", "ecdsap256"]), status == 0 else { return nil }
        // "256 bits ecdsa (nistp256)   0.0000s   0.0000s  60864.1  21440.5": verify/s is last.
        guard let line = output.split(separator: "\n").last(where: { $0.contains("nistp256") }),
            let last = line.split(separator: " ").last
        else { return nil }
        return Double(last)
    }
}

/// Apple's Python library verifying the same JWS, through scripts/bench_python_verify.py.
enum PythonBaseline {
    static func verifyRate(folder: URL) -> Result<Double, PythonError> {
        let script = Subprocess.script("bench_python_verify.py")
        guard let (status, output) = Subprocess.output("python3", [script.path, folder.path]) else {
            return .failure(PythonError(description: "python3 did not start"))
        }
        guard status == 0,
            let line = output.split(separator: "\n").last(where: { $0.hasPrefix("verifications_per_second=") }),
            let rate = Double(line.dropFirst("verifications_per_second=".count))
        else {
            return .failure(PythonError(description: output.split(separator: "\n").suffix(2).joined(separator: " | ")))
        }
        return .success(rate)
    }

    struct PythonError: Error, CustomStringConvertible { var description: String }
}

/// PostgreSQL's own benchmark against the server `tally bench server` uses: what the database
/// does on this machine without Tally, for its PostgreSQL goals (reads at least a quarter of
/// `pgbench -S`, purchases and spends at least half of its TPC-B-like rate).
///
/// It initialises pgbench's tables in the throwaway database at scale `clients` (one branch
/// per client, so the TPC-B-like updates do not all wait on one row), runs the select-only and
/// the TPC-B-like scripts with `clients` connections, and drops the tables.
enum PgbenchBaseline {
    /// Runs both scripts for `seconds` each; nil when pgbench is not installed, with the reason.
    static func run(url: String, clients: Int, seconds: Int) -> Result<ServerBenchmark.PgbenchFigures, PgbenchError> {
        guard let pgbench = executable() else { return .failure(PgbenchError(description: "pgbench is not installed")) }
        let threads = String(max(1, min(clients, ProcessInfo.processInfo.activeProcessorCount)))
        guard let (status, _) = Subprocess.output(pgbench, ["-i", "-q", "-s", String(clients), url]), status == 0 else {
            return .failure(PgbenchError(description: "pgbench -i failed"))
        }
        defer { _ = Subprocess.output(pgbench, ["-i", "-I", "d", url]) }
        func tps(_ extra: [String]) -> Double? {
            let arguments = extra + ["-n", "-c", String(clients), "-j", threads, "-T", String(seconds), url]
            guard let (status, output) = Subprocess.output(pgbench, arguments), status == 0 else { return nil }
            // "tps = 36325.123456 (without initial connection time)"
            guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
                let value = line.dropFirst("tps = ".count).split(separator: " ").first
            else { return nil }
            return Double(value)
        }
        guard let selectOnly = tps(["-S"]), let tpcb = tps([]) else { return .failure(PgbenchError(description: "pgbench did not report tps")) }
        return .success(.init(clients: clients, scale: clients, seconds: seconds, selectOnly: selectOnly, tpcbLike: tpcb))
    }

    /// `pgbench` on the PATH, or in Debian's versioned folder.
    static func executable() -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let debian = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).sorted(by: >)
            .map { "/usr/lib/postgresql/\($0)/bin" }
        return (folders + debian).map { $0 + "/pgbench" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    struct PgbenchError: Error, CustomStringConvertible { var description: String }
}
