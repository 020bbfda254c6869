#!/usr/bin/env python3
"""A Standard Webhooks receiver that misbehaves, for the crash drill (see docs/chaos.md).

`scripts/chaos/driver.py` runs one inside its own process (an http.server
ThreadingHTTPServer on 127.0.0.1, one thread per request) and points a webhook endpoint of `tally serve` at it. Every
request is verified with the official package (`standardwebhooks.Webhook(secret).verify`),
trying each secret the receiver was told (the endpoint's first secret, then the one a
rotation returned: both stay known). A request that no secret verifies is answered 400 and
counted as a bad signature. A verified request is processed once per `webhook-id`: a later
request with the same id is answered 200 and counted as a redelivery, never processed again.

Misbehaviour, decided per event id from the run's seed (a hash of seed and id, so the same
event meets the same fate whatever the arrival order):
  - 500 to the first request seen for a share of the events (not processed; the retry is);
  - for a few events, the first request is processed and then held longer than the server's
    webhook timeout before its 200, so that the server gives up and delivers it again (which
    must arrive as a redelivery);
  - `go_down(seconds)`: stops listening (connections refused), then listens again on the
    same port (optionally answering everything at once for `calm_seconds` after; the drill's
    retry schedule does not need it: a 2.5 s down period costs at most 3 of the 6 attempts of
    0.5,1,2,4,8, a 500 or a held answer one more).

Also checked on every verified request: the body is under 20,000 bytes, the payload's `id`
equals `webhook-id`, and a redelivery carries the same payload as the delivery processed.
`webhook-timestamp` within 5 minutes of now is checked by the package's `verify`.

`python3 webhook_receiver.py --self-test` signs requests with the package and checks the
receiver itself: verification, a bad signature, dedupe, a 500, a held answer, a rotation and
a down period (about 2 s).
"""

import collections
import hashlib
import http.client
import http.server
import json
import socket
import threading
import time

try:
    import standardwebhooks
except ImportError as error:  # the driver turns this into a set-up error that says how to get it
    standardwebhooks = None
    IMPORT_ERROR = error
else:
    IMPORT_ERROR = None

MAX_BODY = 20_000


class Event:
    """What the receiver knows of one `webhook-id`."""

    __slots__ = ("id", "requests", "processed", "payload", "first_seen", "processed_at", "answered_500", "held")

    def __init__(self, event_id):
        self.id = event_id
        self.requests = 0  # verified requests with this id
        self.processed = 0  # times processed: the dedupe makes it 0 or 1
        self.payload = None  # the payload processed
        self.first_seen = time.time()
        self.processed_at = None
        self.answered_500 = False
        self.held = False

    @property
    def redeliveries(self):
        """Verified requests after the one processed."""
        return max(0, self.requests - self.processed - (1 if self.answered_500 else 0))


class Receiver:
    """The receiver; thread-safe. `start()`, then `url`; `stop()` at the end."""

    def __init__(self, secret, seed=0, host="127.0.0.1", port=0, fail_rate=0.15, hold_rate=0.01, hold_max=3,
                 hold_seconds=3.0, calm_seconds=0.0, max_body=MAX_BODY, path="/webhooks"):
        if standardwebhooks is None:
            raise RuntimeError(f"the Python package standardwebhooks is missing ({IMPORT_ERROR})")
        self.seed = seed
        self.host = host
        self.port = port
        self.fail_rate = fail_rate
        self.hold_rate = hold_rate
        self.hold_max = hold_max
        self.hold_seconds = hold_seconds
        self.calm_seconds = calm_seconds
        self.max_body = max_body
        self.path = path
        self.lock = threading.Lock()
        self.secrets = []  # [(secret, Webhook)]
        self.rotated_at = None  # time.time() when the second secret was added
        self.events = {}  # webhook-id -> Event
        self.bad_signatures = []  # (webhook-id, reason, signature header)
        self.problems = []  # anything else wrong with a verified request
        self.truncated = 0  # requests cut off before their body was whole (a killed sender)
        self.stats = collections.Counter()
        self.verified_by = collections.Counter()  # tuple of secret indices that verified one request -> count
        self.after_rotation = collections.Counter()  # "both", "old_only", "new_only": requests verified once a rotation was known
        self.down_periods = []  # (began, seconds)
        self.down = False
        self.calm_until = 0.0
        self.httpd = None
        self.thread = None
        if secret:  # else given later with add_secret (once the endpoint that points here exists)
            self.add_secret(secret)

    # -- control

    @property
    def url(self):
        return f"http://{self.host}:{self.port}{self.path}"

    def add_secret(self, secret):
        """Another secret that may sign (after a rotation); the ones known before stay known."""
        webhook = standardwebhooks.Webhook(secret)
        with self.lock:
            self.secrets.append((secret, webhook))
            if len(self.secrets) == 2:
                self.rotated_at = time.time()

    def start(self):
        self._listen()
        return self

    def stop(self):
        with self.lock:
            httpd, self.httpd = self.httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()

    def go_down(self, seconds):
        """Stops listening for `seconds` (connections are refused), then listens on the same port again."""
        began = time.monotonic()
        with self.lock:
            httpd, self.httpd = self.httpd, None
            self.down = True
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        time.sleep(max(0.0, seconds - (time.monotonic() - began)))
        self._listen()
        with self.lock:
            self.down = False
            self.calm_until = time.monotonic() + self.calm_seconds
            self.down_periods.append((began, time.monotonic() - began))

    def _listen(self):
        receiver = self

        class Handler(ReceiverHandler):
            pass

        Handler.receiver = receiver
        deadline = time.monotonic() + 10
        while True:
            try:
                httpd = ReceiverServer((self.host, self.port), Handler)
                break
            except OSError:
                # The same port again after a down period: retried briefly (SO_REUSEADDR is set).
                if self.port == 0 or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.port = httpd.server_address[1]
        thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True,
                                  name="webhook-receiver")
        thread.start()
        with self.lock:
            self.httpd = httpd
            self.thread = thread

    # -- what happened

    def roll(self, event_id):
        """A number in [0, 1) that the seed and the event id decide."""
        digest = hashlib.sha256(f"{self.seed}:{event_id}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2 ** 64

    def snapshot(self):
        """Copies of the counters, for the driver's checks and summary."""
        with self.lock:
            processed = {e.id: e.processed for e in self.events.values() if e.processed}
            return {
                "processed": processed,
                "requests": {e.id: e.requests for e in self.events.values()},
                "payloads": {e.id: e.payload for e in self.events.values() if e.payload is not None},
                "redeliveries": sum(e.redeliveries for e in self.events.values()),
                "answered_500": [e.id for e in self.events.values() if e.answered_500],
                "held": [e.id for e in self.events.values() if e.held],
                "bad_signatures": list(self.bad_signatures),
                "problems": list(self.problems),
                "stats": collections.Counter(self.stats),
                "verified_by": collections.Counter(self.verified_by),
                "after_rotation": collections.Counter(self.after_rotation),
                "down_periods": list(self.down_periods),
                "secrets": len(self.secrets),
                "truncated": self.truncated,
            }

    def requests_for(self, event_id):
        with self.lock:
            event = self.events.get(event_id)
            return event.requests if event else 0

    # -- one request

    def handle(self, method, path, headers, body):
        """Returns (status, text, hold_seconds): the answer, sent after `hold_seconds`."""
        with self.lock:
            self.stats["requests"] += 1
        if method != "POST" or path != self.path:
            with self.lock:
                self.problems.append(f"{method} {path}: the receiver only takes POST {self.path}")
            return 404, "not here", 0
        with self.lock:
            secrets = list(self.secrets)
            rotation_known = self.rotated_at is not None
        message_id = headers.get("webhook-id", "")
        verified = []
        payload = None
        reasons = []
        for index, (_, webhook) in enumerate(secrets):
            try:
                payload = webhook.verify(body, headers)
                verified.append(index)
            except Exception as error:  # WebhookVerificationError, and ValueError on a malformed header
                reasons.append(f"{type(error).__name__}: {error}")
        if not verified:
            with self.lock:
                self.bad_signatures.append((message_id, "; ".join(sorted(set(reasons))),
                                            headers.get("webhook-signature", "")[:200]))
            return 400, "bad signature", 0
        problems = []
        if len(body) >= self.max_body:
            problems.append(f"webhook-id {message_id}: a body of {len(body)} bytes, not under {self.max_body}")
        if not isinstance(payload, dict) or payload.get("id") != message_id:
            problems.append(f"webhook-id {message_id}: the payload's id is "
                            f"{payload.get('id') if isinstance(payload, dict) else type(payload).__name__!r}")
        with self.lock:
            self.problems += problems
            self.verified_by[tuple(verified)] += 1
            if rotation_known:
                last = len(secrets) - 1
                if 0 in verified and last in verified:
                    self.after_rotation["both"] += 1
                elif last in verified:
                    self.after_rotation["new_only"] += 1
                else:
                    self.after_rotation["old_only"] += 1
            event = self.events.get(message_id)
            first = event is None
            if first:
                event = self.events[message_id] = Event(message_id)
            event.requests += 1
            if event.processed:
                self.stats["redeliveries"] += 1
                if payload != event.payload:
                    self.problems.append(f"webhook-id {message_id}: a redelivery's payload differs from the one processed: "
                                         f"{json.dumps(payload, sort_keys=True)[:300]} vs "
                                         f"{json.dumps(event.payload, sort_keys=True)[:300]}")
                return 200, "already processed", 0
            calm = self.down or time.monotonic() < self.calm_until
            roll = self.roll(message_id)
            if first and not calm and roll < self.fail_rate:
                event.answered_500 = True
                self.stats["answered_500"] += 1
                return 500, "failing on purpose", 0
            hold = 0
            if (first and not calm and self.fail_rate <= roll < self.fail_rate + self.hold_rate
                    and self.stats["held"] < self.hold_max):
                event.held = True
                self.stats["held"] += 1
                hold = self.hold_seconds
            # Processed: once per id, whatever comes later.
            event.processed += 1
            event.payload = payload
            event.processed_at = time.time()
            self.stats["processed"] += 1
            return 200, "processed", hold


class ReceiverServer(http.server.ThreadingHTTPServer):
    # socketserver listens with a backlog of 5: the server's batches of concurrent deliveries
    # would meet resets and SYN retransmits (1 s) that are no misbehaviour of ours.
    request_queue_size = 256
    daemon_threads = True


class ReceiverHandler(http.server.BaseHTTPRequestHandler):
    receiver = None  # set per listening socket
    protocol_version = "HTTP/1.0"  # one request per connection: a down period leaves no open connection

    def do_POST(self):
        self._serve("POST")

    def do_GET(self):
        self._serve("GET")

    def _serve(self, method):
        length = self.headers.get("Content-Length")
        try:
            body = self.rfile.read(int(length)) if length else b""
        except (ValueError, OSError):
            return
        if length and len(body) < int(length):
            # The sender went away mid-request (SIGKILLed, or it gave up): nothing to verify.
            with self.receiver.lock:
                self.receiver.truncated += 1
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        path = self.path.split("?", 1)[0]
        try:
            status, text, hold = self.receiver.handle(method, path, headers, body)
        except Exception as error:  # a receiver defect: visible in the drill's failures
            with self.receiver.lock:
                self.receiver.problems.append(f"receiver error: {type(error).__name__}: {error}")
            status, text, hold = 500, "receiver error", 0
        if hold:
            time.sleep(hold)
        data = text.encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass  # the server gave up waiting (a held answer) or was killed

    def log_message(self, format, *args):
        pass


# --------------------------------------------------------------------------------------------
# Self-test: the receiver alone, requests signed with the package.


def self_test():
    import base64
    import datetime
    import os

    failures = []

    def check(condition, message):
        if not condition:
            failures.append(message)
            print(f"FAIL: {message}")

    def new_secret():
        return "whsec_" + base64.b64encode(os.urandom(24)).decode()

    def post(receiver, event_id, secrets, payload=None, timeout=5.0, timestamp=None, body=None):
        payload = payload if payload is not None else {"id": event_id, "type": "purchase.granted", "version": 1,
                                                      "sequence": 1, "ordering": "unordered", "data": {}}
        text = body if body is not None else json.dumps(payload, separators=(",", ":"))
        when = timestamp or datetime.datetime.now(tz=datetime.timezone.utc)
        signatures = " ".join(standardwebhooks.Webhook(s).sign(event_id, when, text) for s in secrets)
        headers = {"webhook-id": event_id, "webhook-timestamp": str(int(when.timestamp())),
                   "webhook-signature": signatures, "Content-Type": "application/json"}
        connection = http.client.HTTPConnection("127.0.0.1", receiver.port, timeout=timeout)
        try:
            connection.request("POST", "/webhooks", body=text.encode(), headers=headers)
            response = connection.getresponse()
            response.read()
            return response.status
        except OSError as error:
            return type(error).__name__
        finally:
            connection.close()

    old, new = new_secret(), new_secret()
    # fail_rate 0.4: the ids that roll under it answer 500 first; every other id is in the hold band,
    # and hold_max 1 holds the first of them only.
    receiver = Receiver(old, seed=7, fail_rate=0.4, hold_rate=0.6, hold_max=1, hold_seconds=0.6, calm_seconds=0.5).start()
    try:
        ids = [f"evt_selftest{n:04d}" for n in range(12)]
        first = {i: post(receiver, i, [old], timeout=0.3) for i in ids}
        failing = [i for i in ids if receiver.roll(i) < 0.4]
        check(all(first[i] == 500 for i in failing), f"a 500 for every id that rolls under the fail rate: {first}")
        check(failing and len(failing) < len(ids), f"the seed 7 puts some ids, not all, under the fail rate: {failing}")
        held = [i for i in ids if first[i] not in (200, 500)]
        check(len(held) == 1, f"one held answer (timed out on a 0.3 s client), got {held}: {first}")
        time.sleep(0.4)  # the held answer finishes
        second = {i: post(receiver, i, [old]) for i in ids}
        check(all(s == 200 for s in second.values()), f"every retry answers 200: {second}")
        snap = receiver.snapshot()
        check(set(snap["processed"]) == set(ids), "every id processed")
        check(all(c == 1 for c in snap["processed"].values()), "each id processed once")
        expected_redeliveries = len(ids) - len(failing)  # the retry of each id processed at once
        check(snap["redeliveries"] == expected_redeliveries,
              f"redeliveries {snap['redeliveries']}, expected {expected_redeliveries}")
        # The same id again: a redelivery; the seed decides the same way in another receiver.
        check(post(receiver, ids[0], [old]) == 200 and receiver.snapshot()["redeliveries"] == expected_redeliveries + 1,
              "a replay of a processed id is a redelivery")
        check(Receiver(old, seed=7).roll(ids[3]) == receiver.roll(ids[3]), "the roll depends on seed and id only")
        # Bad signatures: another secret, a tampered body, a stale timestamp, a malformed header.
        check(post(receiver, "evt_bad1", [new]) == 400, "another secret's signature answers 400")
        stale = datetime.datetime.now(tz=datetime.timezone.utc) - datetime.timedelta(minutes=6)
        check(post(receiver, "evt_bad2", [old], timestamp=stale) == 400, "a 6-minute-old timestamp answers 400")
        connection = http.client.HTTPConnection("127.0.0.1", receiver.port, timeout=5)
        connection.request("POST", "/webhooks", body=b'{"id":"evt_bad3"}',
                           headers={"webhook-id": "evt_bad3", "webhook-timestamp": str(int(time.time())),
                                    "webhook-signature": "v1"})
        check(connection.getresponse().status == 400, "a malformed signature header answers 400")
        connection.close()
        good = json.dumps({"id": "evt_bad4", "type": "x"})
        signature = standardwebhooks.Webhook(old).sign("evt_bad4", datetime.datetime.now(tz=datetime.timezone.utc), good)
        connection = http.client.HTTPConnection("127.0.0.1", receiver.port, timeout=5)
        connection.request("POST", "/webhooks", body=good.replace("x", "y").encode(),
                           headers={"webhook-id": "evt_bad4", "webhook-timestamp": str(int(time.time())),
                                    "webhook-signature": signature})
        check(connection.getresponse().status == 400, "a tampered body answers 400")
        connection.close()
        check(len(receiver.snapshot()["bad_signatures"]) == 4, f"4 bad signatures: {receiver.snapshot()['bad_signatures']}")
        check("evt_bad1" not in receiver.snapshot()["processed"], "a bad signature is not processed")
        # A payload whose id is not webhook-id, and a large body: problems, still verified.
        check(post(receiver, "evt_other", [old], payload={"id": "evt_else"}) in (200, 500), "a verified request is answered")
        post(receiver, "evt_large", [old], payload={"id": "evt_large", "pad": "x" * MAX_BODY})
        problems = receiver.snapshot()["problems"]
        check(any("evt_other" in p and "evt_else" in p for p in problems), f"the id mismatch is a problem: {problems}")
        check(any("evt_large" in p and "bytes" in p for p in problems), f"the large body is a problem: {problems}")
        # Rotation: both secrets known; a request signed with both counts as "both".
        receiver.add_secret(new)
        check(post(receiver, "evt_rot1", [new, old]) in (200, 500), "signed with both secrets: verified")
        check(post(receiver, "evt_rot2", [new]) in (200, 500), "signed with the new secret: verified")
        after = receiver.snapshot()["after_rotation"]
        check(after["both"] == 1 and after["new_only"] == 1, f"rotation counts: {dict(after)}")
        # Down: refused while down, the same port after, calm for a moment.
        port = receiver.port
        thread = threading.Thread(target=receiver.go_down, args=(0.5,))
        thread.start()
        time.sleep(0.2)
        refused = post(receiver, "evt_down", [old], timeout=1)
        check(refused == "ConnectionRefusedError", f"refused while down, got {refused}")
        thread.join()
        check(receiver.port == port, "the same port after the down period")
        calm_ids = [f"evt_calm{n}" for n in range(8)]
        check(all(post(receiver, i, [old]) == 200 for i in calm_ids), "calm after coming back: no 500")
        check(len(receiver.snapshot()["down_periods"]) == 1, "one down period counted")
    finally:
        receiver.stop()
    if failures:
        print(f"webhook receiver self-test: {len(failures)} failure(s)")
        return 1
    print("webhook receiver self-test: passed (verify, bad signatures, dedupe, 500, a held answer, rotation, down period)")
    return 0


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--self-test"]:
        print("usage: webhook_receiver.py --self-test   (the driver imports the receiver)", file=sys.stderr)
        sys.exit(2)
    if standardwebhooks is None:
        print(f"webhook receiver: {IMPORT_ERROR} (pip install standardwebhooks==1.1.0)", file=sys.stderr)
        sys.exit(2)
    sys.exit(self_test())
