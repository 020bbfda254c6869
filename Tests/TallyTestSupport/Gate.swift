/// Holds a task at a point until the test opens it, and tells the test when it got there.
///
/// ```swift
/// let gate = Gate()
/// let work = Task { await gate.wait(); return try await step() }
/// await gate.arrived()   // the task is held at the gate now
/// await gate.open()      // … and goes on
/// ```
public actor Gate {
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var watchers: [CheckedContinuation<Void, Never>] = []
    private var isOpen = false

    /// A closed gate.
    public init() {}

    /// Waits until the gate is opened; returns at once when it is open.
    public func wait() async {
        guard !isOpen else { return }
        await withCheckedContinuation { continuation in
            waiting.append(continuation)
            for watcher in watchers { watcher.resume() }
            watchers.removeAll()
        }
    }

    /// Returns once a task waits at the gate; at once when one does.
    public func arrived() async {
        guard waiting.isEmpty else { return }
        await withCheckedContinuation { watchers.append($0) }
    }

    /// Lets every waiting task go on, and every later one pass.
    public func open() {
        isOpen = true
        for continuation in waiting { continuation.resume() }
        waiting.removeAll()
    }
}
