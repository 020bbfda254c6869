import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `tally` started for a test with `posix_spawn`, its standard streams on pipes.
///
/// Not Foundation's `Process`: on Linux its `run()` lists `/proc/self/fd` to find what to close
/// and reads past the end of the directory buffer once the process holds more than about 1,300
/// descriptors (swift-corelibs-foundation #5472, fixed after Swift 6.3.1), which this test
/// process does while hundreds of tests hold their databases open. Here the child closes every
/// descriptor above its three streams itself.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    /// The child's standard output (with its standard error, when started with `mergingErrors`).
    let output: FileHandle
    /// The child's standard error, when not merged.
    let errors: FileHandle?
    /// The child's standard input; nil when it reads nothing.
    let input: FileHandle?
    private let lock = NSLock()
    private var waitStatus: Int32?

    /// Starts `executable` with `arguments` in `directory`.
    /// - Parameters:
    ///   - environment: the child's whole environment; nil for this process's.
    ///   - mergingErrors: standard error on the output's pipe.
    ///   - withInput: a pipe for standard input; otherwise it reads `/dev/null`.
    init(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, directory: URL, mergingErrors: Bool,
        withInput: Bool
    ) throws {
        func makePipe() throws -> (read: Int32, write: Int32) {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw ServeCommandTests.CommandFailure(description: "pipe: errno \(errno)") }
            // Only the child's copies (made by dup2 below) cross into it.
            _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
            return (ends[0], ends[1])
        }
        var opened: [Int32] = []
        func makeOrClose() throws -> (read: Int32, write: Int32) {
            do {
                let ends = try makePipe()
                opened += [ends.read, ends.write]
                return ends
            } catch {
                for descriptor in opened { close(descriptor) }
                throw error
            }
        }
        let out = try makeOrClose()
        let err = mergingErrors ? nil : try makeOrClose()
        let inn = withInput ? try makeOrClose() : nil

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let inn {
            posix_spawn_file_actions_adddup2(&actions, inn.read, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, out.write, 1)
        posix_spawn_file_actions_adddup2(&actions, err?.write ?? out.write, 2)
        #if os(Linux)
        guard Self.addChdir(&actions, directory.path) == 0, Self.addCloseFrom(&actions, 3) == 0 else {
            for descriptor in opened { close(descriptor) }
            throw ServeCommandTests.CommandFailure(description: "posix_spawn's file actions refused")
        }
        #else
        posix_spawn_file_actions_addchdir_np(&actions, directory.path)
        #endif
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The spawning thread may block signals (libdispatch's threads block SIGINT, SIGTERM
        // and others): the child starts with none blocked and their default actions, as
        // Foundation's `Process` starts it.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        #if canImport(Darwin)
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let environment = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        // The child has its copies; the parent keeps its own ends only.
        close(out.write)
        if let err { close(err.write) }
        if let inn { close(inn.read) }
        guard result == 0 else {
            close(out.read)
            if let err { close(err.read) }
            if let inn { close(inn.write) }
            throw ServeCommandTests.CommandFailure(description: "posix_spawn \(executable.path): error \(result)")
        }
        self.pid = pid
        output = FileHandle(fileDescriptor: out.read, closeOnDealloc: true)
        errors = err.map { FileHandle(fileDescriptor: $0.read, closeOnDealloc: true) }
        input = inn.map { FileHandle(fileDescriptor: $0.write, closeOnDealloc: true) }
    }

    #if os(Linux)
    // glibc has these (2.29, 2.34), but the Glibc module leaves its GNU extensions out.
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addChdir = unsafeBitCast(symbol("posix_spawn_file_actions_addchdir_np"), to: AddChdir.self)
    private static let addCloseFrom = unsafeBitCast(symbol("posix_spawn_file_actions_addclosefrom_np"), to: AddCloseFrom.self)

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer {
        guard let pointer = dlsym(nil, name) else { fatalError("\(name) is not in this C library") }
        return pointer
    }
    #endif

    /// Asks it to stop (SIGTERM); nothing once it has been waited for (its pid may be another's).
    func terminate() { signal(SIGTERM) }

    /// Interrupts it (SIGINT), as Control-C would.
    func interrupt() { signal(SIGINT) }

    private func signal(_ number: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if waitStatus == nil { kill(pid, number) }
    }

    /// Waits until it has exited.
    func waitUntilExit() { _ = reap(blocking: true) }

    /// Whether it is still running.
    var isRunning: Bool { reap(blocking: false) == nil }

    /// Its exit status, or the signal that ended it (as `Process.terminationStatus` says).
    var terminationStatus: Int32 {
        guard let status = reap(blocking: true) else { return -1 }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// The raw status from `waitpid`, once it has exited; nil while it runs.
    private func reap(blocking: Bool) -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let waitStatus { return waitStatus }
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            if reaped == pid {
                waitStatus = status
                return status
            }
            if reaped == -1, errno == EINTR { continue }
            if reaped == -1, errno == ECHILD {
                // Reaped elsewhere: gone, its status unknown.
                waitStatus = -1 << 8
                return waitStatus
            }
            return nil
        }
    }
}
