import TallyCore
import Testing

@Suite struct PeriodicLoopTests {
    struct StepFailed: Error {}

    @Test func runsStepsUntilTheOwnerIsStopping() async {
        var steps = 0
        await PeriodicLoop(clock: ContinuousClock(), interval: .zero).run(until: { steps == 3 }) {
            steps += 1
        } failed: { _ in
            Issue.record("no step failed")
        }
        #expect(steps == 3)
    }

    @Test func aFailedStepIsReportedAndTheNextOneRuns() async {
        var steps = 0
        var failures = 0
        await PeriodicLoop(clock: ContinuousClock(), interval: .zero).run(until: { steps == 4 }) {
            steps += 1
            if steps.isMultiple(of: 2) { throw StepFailed() }
        } failed: { error in
            #expect(error is StepFailed)
            failures += 1
        }
        #expect(steps == 4)
        #expect(failures == 2)
    }

    @Test(.timeLimit(.minutes(1))) func cancellationEndsTheLoopDuringItsPause() async {
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let loop = Task {
            var steps = 0
            await PeriodicLoop(clock: ContinuousClock(), interval: .seconds(3_600)).run(until: { false }) {
                steps += 1
                startedContinuation.yield()
            } failed: { _ in
            }
            return steps
        }
        for await _ in started { break }
        loop.cancel()
        // An hour's pause that cancellation did not cut short would run into the time limit.
        #expect(await loop.value == 1)
    }
}
