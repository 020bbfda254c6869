#!/usr/bin/env python3
"""Runs one step of scripts/test.sh and ends it if it stalls, saying where it stalled.

    scripts/watch.py --name NAME [--stall SECONDS] [--again-after-stall N] -- COMMAND [ARGUMENT ...]

The command's standard output and error are passed through as they come. When neither has
printed anything for --stall seconds (600 by default), the step is taken as hung: this prints
the tests that started and have not ended (Swift Testing's and XCTest's lines), the processes
still running under the step and, where gdb is installed, each one's threads' backtraces, then
ends the step's processes (SIGTERM, then SIGKILL 10 s later) and exits with 124. A test suite that deadlocks, or a server that stops
answering, then fails the run in minutes, with what is needed to find the cause, instead of
holding the machine until CI's own limit ends it without a word.

With --again-after-stall N a stalled step runs again, up to N times, after its report: for the
test suites, whose verdicts do not depend on one run's scheduling, so that one stall (seen once
on CI in a run that passes everywhere else) does not hide every other result. A failure is never
run again, and a step that stalls every time fails.
"""

import argparse
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import time

ANSI = re.compile(r"\x1b\[[0-9;]*m")
STARTED = re.compile(r"^\S+ Test (?P<name>.+?) started\.$")
ENDED = re.compile(r"^\S+ Test (?P<name>.+?)(?: with \d+ test cases?)? (?:passed after|failed after|skipped)")
XC_STARTED = re.compile(r"^Test Case '(?P<name>.+)' started")
XC_ENDED = re.compile(r"^Test Case '(?P<name>.+)' (?:passed|failed|skipped) \(")


class InFlight:
    """The tests that printed their start and not yet their end, in the order they started."""

    def __init__(self):
        self.open = {}

    def read(self, line):
        line = ANSI.sub("", line)
        # The run's own start, and a parameterized test's cases (its end is the test's).
        if line.endswith("Test run started.") or " Test case passing " in line:
            return
        for start, end in ((STARTED, ENDED), (XC_STARTED, XC_ENDED)):
            found = start.match(line)
            if found:
                self.open[found["name"]] = self.open.get(found["name"], 0) + 1
                return
            found = end.match(line)
            if found and found["name"] in self.open:
                self.open[found["name"]] -= 1
                if self.open[found["name"]] <= 0:
                    del self.open[found["name"]]
                return


def descendants(root):
    """The processes under root, parents before children, as (pid, command line)."""
    children = {}
    commands = {}
    if not os.path.isdir("/proc"):  # not Linux: the step's own process only
        return [(root, "?")]
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                commands[int(entry)] = cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry))
    found, queue = [], [root]
    while queue:
        pid = queue.pop(0)
        found.append((pid, commands.get(pid, "?")))
        queue.extend(sorted(children.get(pid, [])))
    return found


def backtraces(pid):
    """Every thread's backtrace of one process, demangled where swift-demangle is there."""
    gdb = shutil.which("gdb")
    if not gdb:
        return "(gdb is not installed: no backtraces)"
    # Attaching needs ptrace rights over the process: root's, or the user's where the system allows.
    prefix = ["sudo", "-n"] if os.geteuid() != 0 and shutil.which("sudo") else []
    try:
        result = subprocess.run(
            prefix + [gdb, "-p", str(pid), "-batch", "-nx", "-ex", "set pagination off", "-ex", "thread apply all bt 25"],
            capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "(gdb did not finish within 120 s)"
    text = result.stdout
    demangle = shutil.which("swift-demangle")
    if demangle:
        try:
            text = subprocess.run([demangle, "--simplified"], input=text, capture_output=True, text=True, timeout=60).stdout
        except subprocess.TimeoutExpired:
            pass
    lines = [line for line in text.splitlines() if line.startswith(("#", "Thread "))]
    return "\n".join(lines[:1500]) or result.stderr[-2000:]


def report(name, stall, in_flight, root):
    out = sys.stderr
    print("", file=out)
    print("#" * 96, file=out)
    print(f"## {name}: nothing printed for {stall} s; taken as hung and ended.", file=out)
    if in_flight.open:
        print(f"## Tests started and not ended ({len(in_flight.open)}):", file=out)
        for test in in_flight.open:
            print(f"##   {test}", file=out)
    else:
        print("## No test is between its start and its end.", file=out)
    processes = descendants(root)
    print("## Processes of the step:", file=out)
    for pid, command in processes:
        print(f"##   {pid} {command[:300]}", file=out)
    print("#" * 96, file=out)
    for pid, command in processes:
        program = os.path.basename(command.split(" ", 1)[0]) if command else "?"
        if program in ("bash", "sh", "swift", "swift-test", "swift-build", "tee", "sleep", "?") or program.startswith("python"):
            continue
        print(f"\n## Backtraces of {pid} ({program}):", file=out)
        print(backtraces(pid), file=out)
    out.flush()


current = None  # the step's process now running
signalled = None  # the signal this script was sent, passed on to the step; no step runs after it


def signal_all(pids, signum):
    """Sends a signal to each of these processes that is still there."""
    for pid in pids:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


def end(signum):
    """Sends a signal to the step's process and every process under it, while it runs (once it
    has been reaped, its id may belong to another process)."""
    if current is None or current.poll() is not None:
        return
    signal_all([pid for pid, _ in reversed(descendants(current.pid))], signum)


def forward(signum, _frame=None):
    """Passes a signal this script was sent to the step (a terminal's ^C reaches both)."""
    global signalled
    signalled = signum
    end(signum)


def stop(grace=10):
    """Ends the step: SIGTERM first, so that its scripts' traps clean up, then SIGKILL to the
    processes of the step as they were when it stalled (its process itself only until reaped)."""
    children = [pid for pid, _ in reversed(descendants(current.pid)) if pid != current.pid]
    signal_all(children, signal.SIGTERM)
    end(signal.SIGTERM)
    deadline = time.monotonic() + grace
    while current.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    signal_all(children, signal.SIGKILL)
    end(signal.SIGKILL)
    current.wait()


def run(command, name, stall):
    """Runs the step once; its exit status, or None when it stalled and was ended."""
    global current
    # In this script's own process group and session: a terminal's ^C and a CI runner's signal
    # to the group reach the step as they would without this script.
    current = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    selector = selectors.DefaultSelector()
    targets = {current.stdout: sys.stdout.buffer, current.stderr: sys.stderr.buffer}
    pending = {current.stdout: b"", current.stderr: b""}
    for stream in targets:
        selector.register(stream, selectors.EVENT_READ)
    in_flight = InFlight()
    last = time.monotonic()
    exited = None  # when the step's process was first seen ended
    while True:
        if selector.get_map():
            events = selector.select(timeout=1)
        else:
            events = []
            time.sleep(1)
        for key, _ in events:
            chunk = os.read(key.fileobj.fileno(), 65536)
            if not chunk:
                selector.unregister(key.fileobj)
                continue
            last = time.monotonic()
            target = targets[key.fileobj]
            target.write(chunk)
            target.flush()
            text = pending[key.fileobj] + chunk
            *lines, rest = text.split(b"\n")
            pending[key.fileobj] = rest[-65536:]  # a line without end is kept only so far
            for line in lines:
                in_flight.read(line.decode(errors="replace").rstrip("\r"))
        if current.poll() is not None:
            # Ended: what is left in the pipes is read for a few seconds; a process it left
            # behind holding them is not waited for, and the step's own status stands.
            exited = exited or time.monotonic()
            if not selector.get_map() or time.monotonic() - exited > 5:
                selector.close()
                current.stdout.close()
                current.stderr.close()
                status = current.returncode
                return 128 - status if status < 0 else status
        elif time.monotonic() - last > stall:
            # Silent for the limit, whether or not it still holds its output open.
            report(name, stall, in_flight, current.pid)
            stop()
            selector.close()
            return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--name", required=True, help="the step, as the report names it")
    parser.add_argument("--stall", type=int, default=600, help="seconds without output that count as hung")
    parser.add_argument("--again-after-stall", type=int, default=0, metavar="N",
                        help="run the step again, up to N times, after a stall (not after a failure, nor after a signal)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    arguments = parser.parse_args()
    command = arguments.command[1:] if arguments.command[:1] == ["--"] else arguments.command
    if not command:
        parser.error("no command")
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, forward)

    for attempt in range(arguments.again_after_stall + 1):
        if signalled is not None:
            return 128 + signalled
        status = run(command, arguments.name, arguments.stall)
        if signalled is not None:
            return 128 + signalled
        if status is not None:
            return status
        if attempt < arguments.again_after_stall:
            print(f"## {arguments.name}: the report above stands; the step runs again, and fails the run if it stalls again.\n",
                  file=sys.stderr, flush=True)
    return 124


if __name__ == "__main__":
    sys.exit(main())
