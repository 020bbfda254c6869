#!/usr/bin/env python3
"""Crash-safety driver for `tally serve` (see docs/chaos.md).

Runs one `tally serve` on the database it is given, creates users, buys their purchases
from simulated App Stores (`tally appstore serve`, on loopback, sharing one certificate
folder that the server is told to trust), then posts every purchase (with duplicates: later,
concurrent, after a restart, and by the wrong user) and spends with idempotency keys
(repeated, concurrent, conflicting, and some that must fail) from concurrent workers while
it SIGKILLs and restarts the server at random moments. A request whose answer never came is
retried with the same signed transaction or idempotency key until it gets a definite
answer. At the end the server is killed once more, restarted, and every user's balances and
ledger are compared with what the accepted requests imply.

Webhooks: before any event, a webhook endpoint is created (admin API) for a receiver that
runs in this process (webhook_receiver.py beside this file), verifies every request with the
`standardwebhooks` package and misbehaves (500s, answers held past the server's webhook
timeout, a down period); the endpoint's secret is rotated during the load. At the end every
event of the run (GET /v1/admin/events) must have been processed by the receiver exactly once,
with no bad signature and no failed delivery; one replay must arrive as a redelivery.

Python 3 standard library, and `standardwebhooks` for the webhook receiver (scripts/chaos.sh
installs it in .build-test/webhooks-venv; --no-webhooks runs without it). Exit status: 0 when
every check passes, 1 when one fails, 2 for a usage or set-up error.
"""

import argparse
import collections
import http.client
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid

MUST_FAIL_AMOUNT = 1_000_000_000_000  # the largest amount a spend may ask for; no balance here ever reaches it


class SetupError(Exception):
    """Something before the chaos failed: not a finding about the server."""


class Aborted(Exception):
    """The run passed its deadline or met a failure it cannot continue after."""


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


# --------------------------------------------------------------------------------------------
# HTTP


class Answer:
    """One attempt: a status and a JSON body, or no answer (error set)."""

    __slots__ = ("status", "body", "headers", "error", "sent", "request_id", "sent_at", "received_at")

    def __init__(self, status=None, body=None, headers=None, error=None, sent=False, request_id=None,
                 sent_at=0.0, received_at=0.0):
        self.status = status
        self.body = body if body is not None else {}
        self.headers = headers or {}
        self.error = error
        self.sent = sent
        self.request_id = request_id
        self.sent_at = sent_at
        self.received_at = received_at

    @property
    def code(self):
        error = self.body.get("error") if isinstance(self.body, dict) else None
        return error.get("code") if isinstance(error, dict) else None


def http_call(host, port, method, path, token=None, body=None, timeout=30.0, request_id=None):
    """One request on a fresh connection. `sent` tells whether the request may have reached the server."""
    headers = {"Accept": "application/json", "Connection": "close"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if request_id:
        headers["X-Request-Id"] = request_id
    payload = None
    if body is not None:
        payload = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    sent_at = time.monotonic()
    try:
        try:
            connection.connect()
        except OSError as error:
            return Answer(error=f"connect: {error!r}", sent=False, request_id=request_id, sent_at=sent_at,
                          received_at=time.monotonic())
        try:
            connection.request(method, path, body=payload, headers=headers)
            response = connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as error:
            return Answer(error=f"{type(error).__name__}: {error}", sent=True, request_id=request_id,
                          sent_at=sent_at, received_at=time.monotonic())
        try:
            parsed = json.loads(data) if data else {}
        except ValueError:
            parsed = {"raw": data[:500].decode(errors="replace")}
        return Answer(status=response.status, body=parsed, headers={k.lower(): v for k, v in response.getheaders()},
                      sent=True, request_id=request_id, sent_at=sent_at, received_at=time.monotonic())
    finally:
        connection.close()


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --------------------------------------------------------------------------------------------
# The server under test


class Server:
    """`tally serve` as a child process: started, SIGKILLed, restarted on the same database."""

    def __init__(self, argv, cwd, env, log_dir, host, port, startup_timeout):
        self.argv = argv
        self.cwd = cwd
        self.env = env
        self.log_dir = log_dir
        self.host = host
        self.port = port
        self.startup_timeout = startup_timeout
        self.process = None
        self.starts = 0
        self.log_path = None
        self.unexpected_exits = []

    def start(self):
        self.starts += 1
        self.log_path = os.path.join(self.log_dir, f"server-{self.starts}.log")
        with open(self.log_path, "wb") as output:
            self.process = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env, stdout=output,
                                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        began = time.monotonic()
        while True:
            with open(self.log_path, "rb") as output:
                text = output.read().decode(errors="replace")
            if "listening" in text:
                break
            if self.process.poll() is not None:
                raise Aborted(f"tally serve exited with status {self.process.returncode} while starting:\n{tail(text)}")
            if time.monotonic() - began > self.startup_timeout:
                self.kill()
                raise Aborted(f"tally serve did not say 'listening' within {self.startup_timeout} s:\n{tail(text)}")
            time.sleep(0.02)
        answer = http_call(self.host, self.port, "GET", "/healthz", timeout=10)
        if answer.status != 200:
            raise Aborted(f"GET /healthz answered {answer.status} {answer.error or answer.body} after a start")
        return time.monotonic() - began

    def kill(self):
        """SIGKILL and reap; returns the pid killed."""
        process = self.process
        if process is None or process.poll() is not None:
            return None
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        return process.pid

    def exited_by_itself(self):
        return self.process is not None and self.process.poll() is not None

    def stop(self, timeout=30):
        """SIGTERM; returns the exit status, or None when it had to be killed."""
        process = self.process
        if process is None:
            return None
        if process.poll() is not None:
            return process.returncode
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            return None


class Store:
    """`tally appstore serve` on loopback with its own state file."""

    def __init__(self, tally, ca_dir, folder, cwd, startup_timeout):
        self.tally = tally
        self.ca_dir = ca_dir
        self.folder = folder
        self.cwd = cwd
        self.startup_timeout = startup_timeout
        self.port = None
        self.process = None

    def start(self):
        os.makedirs(self.folder, exist_ok=True)
        self.port = free_port()
        log_path = os.path.join(self.folder, "appstore.log")
        argv = [self.tally, "appstore", "serve", "--ca-dir", self.ca_dir, "--state", os.path.join(self.folder, "state.json"),
                "--host", "127.0.0.1", "--port", str(self.port)]
        with open(log_path, "wb") as output:
            self.process = subprocess.Popen(argv, cwd=self.cwd, stdout=output, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL)
        began = time.monotonic()
        while True:
            with open(log_path, "rb") as output:
                text = output.read().decode(errors="replace")
            if "listening" in text:
                return
            if self.process.poll() is not None:
                raise SetupError(f"the simulated App Store exited with status {self.process.returncode}:\n{tail(text)}")
            if time.monotonic() - began > self.startup_timeout:
                self.stop()
                raise SetupError(f"the simulated App Store did not say 'listening' within {self.startup_timeout} s")
            time.sleep(0.02)

    def stop(self):
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def tail(text, lines=15):
    return "\n".join(text.strip().splitlines()[-lines:])


# --------------------------------------------------------------------------------------------
# What is posted, and what came back


class User:
    def __init__(self, index, user_id, account_token, token, signup):
        self.index = index
        self.user_id = user_id
        self.account_token = account_token
        self.token = token
        self.signup = signup  # {currency: amount}


class Purchase:
    """One signed transaction and every definite answer to a post of it."""

    def __init__(self, user, product_id, quantity, transaction_id, jws, grants):
        self.user = user
        self.product_id = product_id
        self.quantity = quantity
        self.transaction_id = transaction_id
        self.jws = jws
        self.grants = grants  # {currency: amount} the catalog implies
        self.answers = []  # (Answer, after_ambiguous)
        self.foreign_answers = []  # (User, Answer)


class Spend:
    """One idempotency key and every definite answer to a post of it."""

    def __init__(self, user, key, currency, amount, must_fail, race=False):
        self.race = race  # the only spend of a user who does nothing else: a 403 can only be a lost replay
        self.user = user
        self.key = key
        self.currency = currency
        self.amount = amount
        self.must_fail = must_fail
        self.answers = []  # (Answer, after_ambiguous)
        self.conflict_answers = []
        self.first_accepted_at = None

    def body(self, amount=None):
        return {"currency": self.currency, "amount": amount if amount is not None else self.amount,
                "idempotency_key": self.key, "reference": self.key}

    @property
    def accepted(self):
        return any(200 <= a.status < 300 for a, _ in self.answers)


# --------------------------------------------------------------------------------------------
# The run


class Run:
    def __init__(self, options):
        self.options = options
        self.random = random.Random(options.seed)
        self.host = "127.0.0.1"
        self.port = options.port or free_port()
        self.deadline = time.monotonic() + options.deadline
        self.lock = threading.Lock()
        self.server_up = threading.Event()
        self.failures = []
        self.stats = collections.Counter()
        self.users = []
        self.purchases = []
        self.spends = []
        self.catalog = None
        self.server = None
        self.request_counter = 0
        self.inflight = 0
        self.kills = []  # (progress, in_flight, restart_seconds)
        # work queue
        self.queue = collections.deque()
        self.queue_cond = threading.Condition(self.lock)
        self.outstanding = 0
        self.initial_total = 0
        self.initial_done = 0
        self.load_done = threading.Event()
        self.stop_workers = False
        self.aborted = False
        self.store_count = 0
        self.stores = []
        # webhooks
        self.secret_key = "sk_test_chaos_" + secrets.token_hex(16)  # TALLY_SECRET_KEY, for the admin API
        self.admin_lock = threading.Lock()  # no SIGKILL while an admin call that must not be lost is in flight
        self.receiver = None
        self.endpoint = None
        self.webhook_random = random.Random(f"{options.seed}-webhooks")
        self.webhook_stats = collections.Counter()

    # -- bookkeeping

    def fail(self, message):
        with self.lock:
            self.failures.append(message)
        log(f"FAILURE: {message}")

    def count(self, name, by=1):
        with self.lock:
            self.stats[name] += by

    def next_request_id(self, label):
        with self.lock:
            self.request_counter += 1
            return f"chaos-{self.options.backend}-{self.request_counter:06d}-{label}"

    def check_deadline(self):
        if time.monotonic() > self.deadline:
            raise Aborted(f"the run passed its deadline of {self.options.deadline} s")

    # -- set-up

    def load_catalog(self):
        with open(os.path.join(self.options.repo, self.options.config), encoding="utf-8") as file:
            catalog = json.load(file)
        catalog.setdefault("limits", {})
        catalog["limits"]["user_requests_per_minute"] = self.options.user_rate_limit
        catalog["limits"]["ip_requests_per_minute"] = self.options.ip_rate_limit
        path = os.path.join(self.options.work_dir, "catalog.json")
        with open(path, "w", encoding="utf-8") as file:
            json.dump(catalog, file, indent=2, ensure_ascii=False)
        self.catalog = catalog
        self.catalog_path = path
        self.products = {p["product_id"]: p for p in catalog["products"]}
        self.signup = {}
        for grant in catalog.get("signup_grants", []):
            self.signup[grant["currency"]] = self.signup.get(grant["currency"], 0) + grant["amount"]
        self.currencies = [c["code"] for c in catalog["currencies"]]

    def start_server(self):
        argv = [self.options.tally, "serve", "--dev", "--trust-ca-dir", self.options.ca_dir, "--config", self.catalog_path,
                "--host", self.host, "--port", str(self.port), "--database", self.options.database]
        if not self.options.no_webhooks:
            argv += ["--webhook-retry-delays", self.options.webhook_retry_delays,
                     "--webhook-timeout", f"{self.options.webhook_timeout:g}",
                     "--webhook-poll-interval", f"{self.options.webhook_poll_interval:g}",
                     "--webhook-claim-lease", f"{self.options.webhook_claim_lease:g}"]
        env = dict(os.environ)
        env.setdefault("LOG_LEVEL", "info")
        env["TALLY_SECRET_KEY"] = self.secret_key
        self.server = Server(argv, self.options.repo, env, self.options.work_dir, self.host, self.port,
                             self.options.startup_timeout)
        seconds = self.server.start()
        self.server_up.set()
        log(f"tally serve listens on http://{self.host}:{self.port} ({self.options.backend}), started in {seconds:.1f} s")

    def create_users(self, count):
        created = []
        for _ in range(count):
            index = len(self.users)
            answer = http_call(self.host, self.port, "POST", "/v1/users", body={},
                               request_id=self.next_request_id("signup"))
            if answer.status != 201:
                raise Aborted(f"POST /v1/users answered {answer.status} {answer.error or answer.body}")
            body = answer.body
            granted = {}
            for grant in body.get("granted", []):
                granted[grant["currency"]] = granted.get(grant["currency"], 0) + grant["amount"]
            if granted != self.signup:
                self.fail(f"user {index}: the sign-up granted {granted}, the catalog says {self.signup}")
            user = User(index, body["user_id"], body["app_account_token"], body["user_token"], granted)
            self.users.append(user)
            created.append(user)
        return created

    def start_store(self):
        """A simulated App Store with a fresh state file, sharing the run's certificate folder."""
        with self.lock:
            self.store_count += 1
            number = self.store_count
        store = Store(self.options.tally, self.options.ca_dir, os.path.join(self.options.work_dir, f"store-{number}"),
                      self.options.repo, self.options.startup_timeout)
        with self.lock:
            self.stores.append(store)
        store.start()
        return store

    def mint_purchases(self, first_store):
        """Buys every purchase from simulated App Stores (their control API) before the chaos.

        A store rewrites its whole state file after every purchase, so each store sells at most
        --store-batch purchases and is then replaced by a fresh one (same certificate authority)."""
        weighted = [("com.tally.photo.credits.10", 30), ("com.tally.photo.credits.50", 25),
                    ("com.tally.photo.credits.100", 15), ("com.tally.echo.3hours", 10),
                    ("com.tally.zorya.report.personality", 5), ("com.tally.zorya.report.career", 5),
                    ("com.tally.zorya.report.relationship", 5), ("com.tally.zorya.report.wellness", 5)]
        weighted = [(p, w) for p, w in weighted if p in self.products and self.products[p]["kind"] == "consumable"]
        if not weighted:
            raise SetupError("the catalog has none of the consumable products the driver buys")
        names = [p for p, _ in weighted]
        weights = [w for _, w in weighted]
        plan = []
        for _ in range(self.options.purchases):
            product = self.random.choices(names, weights)[0]
            quantity = self.random.choices([1, 2, 3], [80, 15, 5])[0]
            plan.append((self.random.choice(self.users), product, quantity))

        batch = max(1, self.options.store_batch)
        chunks = [range(start, min(start + batch, len(plan))) for start in range(0, len(plan), batch)]
        minted = [None] * len(plan)
        errors = []

        def mint(store):
            while True:
                with self.lock:
                    if not chunks or errors:
                        break
                    chunk = chunks.pop(0)
                if store is None:
                    store = self.start_store()
                for index in chunk:
                    user, product, quantity = plan[index]
                    body = {"product_id": product, "app_account_token": user.account_token, "quantity": quantity,
                            "outcome": "success"}
                    answer = http_call("127.0.0.1", store.port, "POST", "/control/purchases", body=body, timeout=60)
                    if answer.status != 200 or answer.body.get("result") != "success":
                        with self.lock:
                            errors.append(f"the simulated App Store answered {answer.status} {answer.error or answer.body}")
                        return
                    grants = {}
                    for grant in self.products[product].get("grants", []):
                        grants[grant["currency"]] = grants.get(grant["currency"], 0) + grant["amount"] * quantity
                    minted[index] = Purchase(user, product, quantity, answer.body["transaction_id"],
                                             answer.body["signed_transaction"], grants)
                store.stop()
                store = None

        def guarded(store):
            try:
                mint(store)
            except Exception as error:
                with self.lock:
                    errors.append(f"{type(error).__name__}: {error}")

        began = time.monotonic()
        threads = [threading.Thread(target=guarded, args=(first_store if n == 0 else None,), daemon=True)
                   for n in range(max(1, self.options.stores))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for store in self.stores:
            store.stop()
        if errors:
            raise SetupError(errors[0])
        self.purchases = minted
        ids = {p.transaction_id for p in minted}
        if len(ids) != len(minted):
            raise SetupError("the simulated App Stores repeated a transaction identifier")
        log(f"{len(minted)} signed transactions bought from {self.store_count} simulated App Store(s) "
            f"in {time.monotonic() - began:.1f} s")

    def plan_spends(self):
        run_tag = uuid.uuid4().hex[:8]
        for index in range(self.options.spends):
            user = self.random.choice(self.users)
            must_fail = self.random.random() < self.options.must_fail_rate
            roll = self.random.random()
            if roll < 0.75:
                currency, amount = "credits", self.random.randint(1, 60)
            elif roll < 0.88:
                currency, amount = "seconds", self.random.randint(1, 9000)
            else:
                currency = self.random.choice([c for c in self.currencies if c.startswith("report.")] or ["credits"])
                amount = 1
            if currency not in self.currencies:
                currency = "credits"
            if must_fail:
                amount = MUST_FAIL_AMOUNT
            key = f"chaos-{run_tag}-{user.index}-{index}"
            self.spends.append(Spend(user, key, currency, amount, must_fail))
        # Race probes: users who only ever spend their whole sign-up grant, with one key posted
        # three times at once. Exactly one post spends; the others must answer as its replay.
        credits = self.signup.get("credits", 0)
        if credits > 0 and self.options.race_probes > 0:
            for user in self.create_users(self.options.race_probes):
                self.spends.append(Spend(user, f"chaos-{run_tag}-race-{user.index}", "credits", credits, False, race=True))

    def plan_tasks(self):
        """Every post, in a shuffled order: primaries, later duplicates, concurrent bursts, wrong-user posts."""
        items = []
        options = self.options
        for purchase in self.purchases:
            at = self.random.random()
            burst = 1
            if self.random.random() < options.concurrent_rate:
                burst = self.random.choice([2, 3])
            items.append((at, ("purchase", purchase, burst)))
            if self.random.random() < options.duplicate_rate:
                items.append((at + (1 - at) * self.random.random(), ("purchase", purchase, 1)))
            if self.random.random() < options.foreign_rate and len(self.users) > 1:
                other = self.random.choice([u for u in self.users if u is not purchase.user])
                items.append((self.random.random(), ("foreign", purchase, other)))
        for spend in self.spends:
            at = self.random.random()
            burst = 1
            if self.random.random() < options.concurrent_rate:
                burst = self.random.choice([2, 3])
            if spend.race:
                burst = 3
            items.append((at, ("spend", spend, burst)))
            if self.random.random() < options.duplicate_rate:
                items.append((at + (1 - at) * self.random.random(), ("spend", spend, 1)))
            if not spend.must_fail and self.random.random() < options.conflict_rate:
                items.append((at + (1 - at) * self.random.random(), ("conflict", spend, None)))
        items.sort(key=lambda item: item[0])
        self.planned = [task for _, task in items]
        self.initial_total = len(self.planned)

    # -- one logical request, retried until it has a definite answer

    def perform(self, method, path, token, body, label):
        """Returns (Answer, after_ambiguous): a definite answer (2xx or 4xx other than 429)."""
        ambiguous = False
        server_errors = 0
        attempt = 0
        while True:
            self.check_deadline()
            if self.aborted:
                raise Aborted("stopped")
            if not self.server_up.wait(timeout=1.0):
                continue
            request_id = self.next_request_id(label)
            with self.lock:
                self.inflight += 1
            answer = http_call(self.host, self.port, method, path, token=token, body=body,
                               timeout=self.options.request_timeout, request_id=request_id)
            with self.lock:
                self.inflight -= 1
            attempt += 1
            if answer.status is None:
                if answer.sent:
                    if not ambiguous:
                        self.count("ambiguous_requests")
                    ambiguous = True
                    self.count("ambiguous_attempts")
                else:
                    self.count("refused_attempts")
                time.sleep(min(1.0, 0.02 * (2 ** min(attempt, 6))) * (0.5 + self.random.random()))
                continue
            self.count("answers")
            if answer.status == 429:
                self.count("rate_limited")
                try:
                    wait = float(answer.headers.get("retry-after", "1"))
                except ValueError:
                    self.fail(f"{method} {path} [{request_id}]: 429 with a Retry-After that is not a number: "
                              f"{answer.headers.get('retry-after')!r}")
                    wait = 1.0
                time.sleep(min(wait, 60) + self.random.random() * 0.2)
                continue
            if answer.status >= 500:
                server_errors += 1
                self.count("server_errors")
                self.fail(f"{method} {path} [{request_id}] answered {answer.status} from a live server: {answer.body}")
                if server_errors >= 5:
                    raise Aborted(f"{method} {path}: {server_errors} answers of 5xx in a row")
                time.sleep(0.2)
                continue
            if ambiguous:
                self.count("ambiguous_resolved")
            return answer, ambiguous

    # -- tasks

    def run_task(self, task):
        kind = task[0]
        if kind == "purchase":
            _, purchase, burst = task
            if burst == 1:
                self.post_purchase(purchase)
            else:
                self.count("concurrent_bursts")
                self.in_burst(burst, lambda: self.post_purchase(purchase))
        elif kind == "spend":
            _, spend, burst = task
            if burst == 1:
                self.post_spend(spend)
            else:
                self.count("concurrent_bursts")
                self.in_burst(burst, lambda: self.post_spend(spend))
        elif kind == "foreign":
            _, purchase, other = task
            self.count("purchase_posts_foreign")
            answer, _ = self.perform("POST", "/v1/me/purchases", other.token, {"signed_transaction": purchase.jws},
                                     "foreign-purchase")
            with self.lock:
                purchase.foreign_answers.append((other, answer))
        elif kind == "conflict":
            _, spend, _ = task
            with self.lock:
                accepted = spend.accepted
            if not accepted:
                self.count("conflict_probes_skipped")
                return
            self.count("conflict_probes")
            answer, _ = self.perform("POST", "/v1/me/spend", spend.user.token, spend.body(spend.amount + 1), "conflict")
            with self.lock:
                spend.conflict_answers.append(answer)

    def in_burst(self, count, action):
        barrier = threading.Barrier(count)
        errors = []

        def member():
            try:
                barrier.wait(timeout=10)
                action()
            except Exception as error:  # re-raised in the worker below
                errors.append(error)

        threads = [threading.Thread(target=member, daemon=True) for _ in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]

    def post_purchase(self, purchase):
        self.count("purchase_posts")
        answer, ambiguous = self.perform("POST", "/v1/me/purchases", purchase.user.token,
                                         {"signed_transaction": purchase.jws}, "purchase")
        with self.lock:
            purchase.answers.append((answer, ambiguous))

    def post_spend(self, spend):
        self.count("spend_posts")
        answer, ambiguous = self.perform("POST", "/v1/me/spend", spend.user.token, spend.body(), "spend")
        with self.lock:
            if 200 <= answer.status < 300 and spend.first_accepted_at is None:
                spend.first_accepted_at = answer.received_at
            spend.answers.append((answer, ambiguous))

    # -- workers and the chaos monkey

    def worker(self):
        while True:
            with self.queue_cond:
                while not self.queue and not self.stop_workers:
                    self.queue_cond.wait(timeout=0.5)
                if self.stop_workers:
                    return
                task, initial = self.queue.popleft()
            try:
                self.run_task(task)
            except Aborted as error:
                if str(error) != "stopped":
                    self.fail(str(error))
                self.abort()
                return
            except Exception as error:  # a driver defect: stop, never hide it
                self.fail(f"driver error in {task[0]}: {type(error).__name__}: {error}")
                self.abort()
                return
            with self.queue_cond:
                self.outstanding -= 1
                if initial:
                    self.initial_done += 1
                if self.outstanding == 0:
                    self.load_done.set()
                    self.queue_cond.notify_all()

    def abort(self):
        with self.queue_cond:
            self.aborted = True
            self.stop_workers = True
            self.queue_cond.notify_all()
        self.load_done.set()
        self.server_up.set()

    def enqueue(self, tasks, front=False, initial=False):
        with self.queue_cond:
            for task in tasks:
                if front:
                    self.queue.appendleft((task, initial))
                else:
                    self.queue.append((task, initial))
            self.outstanding += len(tasks)
            self.queue_cond.notify_all()

    def progress(self):
        with self.lock:
            return self.initial_done / max(1, self.initial_total)

    def monkey(self):
        """SIGKILLs the server at random moments spread over the run, and restarts it."""
        kills = self.options.kills
        low, high = 0.05, 0.92
        thresholds = []
        for index in range(kills):
            start = low + (high - low) * index / kills
            width = (high - low) / kills
            thresholds.append(start + width * (0.15 + 0.7 * self.random.random()))
        try:
            for index, threshold in enumerate(thresholds):
                while self.progress() < threshold:
                    if self.load_done.is_set() or self.stop_workers:
                        return
                    self.watch_server()
                    time.sleep(0.01)
                # Kill while requests are in flight when possible (bounded wait).
                waited = time.monotonic()
                while time.monotonic() - waited < 2:
                    with self.lock:
                        if self.inflight >= min(2, self.options.workers):
                            break
                    time.sleep(0.002)
                time.sleep(self.random.random() * 0.03)
                self.watch_server()
                with self.lock:
                    in_flight = self.inflight
                progress = self.progress()
                with self.admin_lock:
                    self.server_up.clear()
                    pid = self.server.kill()
                    if pid is None:
                        self.fail(f"tally serve had exited by itself (status {self.server.process.returncode}) "
                                  f"before kill {index + 1}; log {self.server.log_path}")
                    down = self.random.random() * 0.5
                    time.sleep(down)
                    seconds = self.server.start()
                replays = self.replays_after_kill()
                self.enqueue(replays, front=True)
                self.server_up.set()
                self.kills.append((progress, in_flight, seconds))
                log(f"kill {index + 1}/{kills}: SIGKILL pid {pid} at {progress:.0%} of the load with {in_flight} "
                    f"request(s) in flight; down {down:.2f} s, restarted in {seconds:.1f} s; "
                    f"{len(replays)} replays queued")
            # Until the load is done, a server that dies by itself is reported (and restarted).
            while not self.load_done.is_set() and not self.stop_workers:
                self.watch_server()
                time.sleep(0.02)
        except Aborted as error:
            self.fail(str(error))
            self.abort()
        except Exception as error:
            self.fail(f"driver error in the chaos loop: {type(error).__name__}: {error}")
            self.abort()

    def watch_server(self):
        if self.server.exited_by_itself() and self.server_up.is_set():
            status = self.server.process.returncode
            with open(self.server.log_path, "rb") as output:
                text = output.read().decode(errors="replace")
            self.server_up.clear()
            self.fail(f"tally serve exited by itself with status {status} (log {self.server.log_path}):\n{tail(text)}")
            self.server.start()
            self.server_up.set()

    def replays_after_kill(self):
        """Posts that already had an answer, posted again after the restart."""
        with self.lock:
            answered_purchases = [p for p in self.purchases if p.answers]
            answered_spends = [s for s in self.spends if s.answers]
        count = self.options.replays_per_kill
        tasks = [("purchase", p, 1) for p in self.random.sample(answered_purchases, min(count, len(answered_purchases)))]
        tasks += [("spend", s, 1) for s in self.random.sample(answered_spends, min(count, len(answered_spends)))]
        self.count("replays_after_kill", len(tasks))
        return tasks

    def chaos(self):
        self.enqueue(self.planned, initial=True)
        began = time.monotonic()
        workers = [threading.Thread(target=self.worker, daemon=True) for _ in range(self.options.workers)]
        for thread in workers:
            thread.start()
        monkey = threading.Thread(target=self.monkey, daemon=True)
        monkey.start()
        webhook_threads = []
        if self.receiver is not None:
            down_at = 0.15 + 0.25 * self.webhook_random.random()
            rotate_at = 0.45 + 0.25 * self.webhook_random.random()
            webhook_threads = [threading.Thread(target=self.webhook_chaos, args=(what, at), daemon=True)
                               for what, at in (("down", down_at), ("rotate", rotate_at))]
            for thread in webhook_threads:
                thread.start()
        last = time.monotonic()
        while not self.load_done.wait(timeout=0.25):
            if time.monotonic() > self.deadline:
                self.fail(f"the run passed its deadline of {self.options.deadline} s")
                self.abort()
                break
            if time.monotonic() - last >= 10:
                last = time.monotonic()
                log(f"progress {self.progress():.0%}, kills {len(self.kills)}/{self.options.kills}")
        monkey.join(timeout=120)
        for thread in webhook_threads:
            thread.join(timeout=60)
        with self.queue_cond:
            self.stop_workers = True
            self.queue_cond.notify_all()
        for thread in workers:
            thread.join(timeout=60)
        self.load_seconds = time.monotonic() - began
        if not self.failures and len(self.kills) < self.options.kills:
            self.fail(f"only {len(self.kills)} of {self.options.kills} kills happened during the load")

    def final_kill(self):
        """Every acknowledged write must survive one more SIGKILL."""
        self.server_up.clear()
        pid = self.server.kill()
        seconds = self.server.start()
        self.server_up.set()
        log(f"final kill: SIGKILL pid {pid} after the load, restarted in {seconds:.1f} s; checking")

    # -- checks

    def database_check(self):
        """`tally check` on the database the kills left: every balance equals its ledger and lots,
        and every metrics rollup equals its recomputation from the transactions and the ledger."""
        result = subprocess.run([self.options.tally, "check", "--database", self.options.database],
                                capture_output=True, text=True, timeout=300)
        try:
            report = json.loads(result.stdout)
        except ValueError:
            return [f"tally check printed no report (exit {result.returncode}): {result.stdout[-500:]} {result.stderr[-500:]}"]
        audit = report.get("audit", {})
        if report.get("status") != "ok":
            return [f"tally check: {report.get('code')}: {report.get('message')} "
                    f"(rollup differences: {audit.get('rollup_differences', audit.get('rollupDifferences'))})"]
        self.rollups_checked = True
        return []

    def check(self):
        problems = []
        grant_responses = 0

        # Purchases: every one delivered, granted what its product says, at most one first delivery.
        for p in self.purchases:
            definite = [a for a, _ in p.answers]
            if not definite:
                problems.append(f"purchase {p.transaction_id} (user {p.user.index}) never got a definite answer")
                continue
            first_deliveries = 0
            for answer in definite:
                if answer.status != 200:
                    problems.append(f"purchase {p.transaction_id} (user {p.user.index}) [{answer.request_id}] answered "
                                    f"{answer.status} {answer.body}")
                    continue
                grant_responses += 1
                body = answer.body
                granted = {}
                for grant in body.get("granted", []):
                    granted[grant["currency"]] = granted.get(grant["currency"], 0) + grant["amount"]
                if body.get("transaction_id") != p.transaction_id or granted != p.grants:
                    problems.append(f"purchase {p.transaction_id} [{answer.request_id}]: answered transaction "
                                    f"{body.get('transaction_id')} granted {granted}, expected {p.grants}")
                if body.get("replayed") is False:
                    first_deliveries += 1
            if first_deliveries > 1:
                problems.append(f"purchase {p.transaction_id} (user {p.user.index}) was answered as a first delivery "
                                f"(replayed false) {first_deliveries} times: "
                                f"{[a.request_id for a, _ in p.answers if a.body.get('replayed') is False]}")
            for other, answer in p.foreign_answers:
                if answer.status != 409 or answer.code != "transaction_belongs_to_another_user":
                    problems.append(f"purchase {p.transaction_id} of user {p.user.index} posted by user {other.index} "
                                    f"[{answer.request_id}] answered {answer.status} {answer.body}, expected 409 "
                                    f"transaction_belongs_to_another_user")

        # Spends: one result per key, replays repeat it, a seen key never fails, must-fail ones fail.
        for s in self.spends:
            if not s.answers:
                problems.append(f"spend {s.key} never got a definite answer")
                continue
            accepted = [a for a, _ in s.answers if 200 <= a.status < 300]
            for answer, _ in s.answers:
                if 200 <= answer.status < 300:
                    continue
                if answer.status == 403 and answer.code == "insufficient_credits":
                    if s.race and accepted:
                        problems.append(f"spend {s.key} (user {s.user.index}, who has {s.amount} credits and makes no "
                                        f"other request) was posted 3 times at once: [{answer.request_id}] "
                                        f"answered 403 insufficient_credits (available "
                                        f"{answer.body.get('error', {}).get('available')}) while "
                                        f"{[a.request_id for a in accepted]} answered 200 for it: a duplicate of an accepted "
                                        f"key must answer as its replay")
                        continue
                    if s.first_accepted_at is not None and answer.sent_at > s.first_accepted_at:
                        problems.append(f"spend {s.key} (user {s.user.index}) [{answer.request_id}] answered 403 "
                                        f"insufficient_credits after the key was accepted: a seen key must replay")
                    continue
                problems.append(f"spend {s.key} (user {s.user.index}) [{answer.request_id}] answered {answer.status} "
                                f"{answer.body}")
            if s.must_fail and accepted:
                problems.append(f"spend {s.key} of {s.amount} {s.currency} was accepted: {accepted[0].body}")
            if accepted:
                ids = {a.body.get("spend_id") for a in accepted}
                if len(ids) != 1:
                    problems.append(f"spend {s.key} (user {s.user.index}) was answered with {len(ids)} different "
                                    f"spend_id values {sorted(map(str, ids))}: "
                                    f"{[a.request_id for a in accepted]}")
                firsts = [a for a in accepted if a.body.get("replayed") is False]
                if len(firsts) > 1:
                    problems.append(f"spend {s.key} (user {s.user.index}) answered replayed false {len(firsts)} times: "
                                    f"{[a.request_id for a in firsts]}")
                for answer in accepted:
                    body = answer.body
                    if body.get("amount") != s.amount or body.get("currency") != s.currency:
                        problems.append(f"spend {s.key} [{answer.request_id}] answered {body}, asked {s.amount} {s.currency}")
            for answer in s.conflict_answers:
                if answer.status != 409 or answer.code != "idempotency_key_reused":
                    problems.append(f"spend {s.key} (user {s.user.index}) posted again with another amount "
                                    f"[{answer.request_id}] answered {answer.status} {answer.body}, expected 409 "
                                    f"idempotency_key_reused")

        # Balances and ledgers, user by user.
        mismatched_users = 0
        ledger_entries = 0
        balances_checked = 0
        purchases_by_user = collections.defaultdict(list)
        for p in self.purchases:
            purchases_by_user[p.user.index].append(p)
        spends_by_user = collections.defaultdict(list)
        for s in self.spends:
            if s.accepted:
                spends_by_user[s.user.index].append(s)
        self.expected_totals = collections.Counter()
        self.actual_totals = collections.Counter()
        for user in self.users:
            expected = collections.Counter(user.signup)
            for p in purchases_by_user[user.index]:
                if any(a.status == 200 for a, _ in p.answers):
                    expected.update(p.grants)
            for s in spends_by_user[user.index]:
                expected[s.currency] -= s.amount
            me = self.get("/v1/me", user.token)
            balances = {b["currency"]: b for b in me.get("balances", [])}
            user_problems = []
            for currency in self.currencies:
                balance = balances.get(currency, {"available": 0, "held": 0, "debt": 0})
                balances_checked += 1
                self.expected_totals[currency] += expected[currency]
                self.actual_totals[currency] += balance.get("available", 0)
                if balance.get("available") != expected[currency] or balance.get("held", 0) != 0 or balance.get("debt", 0) != 0:
                    user_problems.append(
                        f"user {user.index} ({user.user_id}) {currency}: available {balance.get('available')} "
                        f"held {balance.get('held')} debt {balance.get('debt')}, expected available {expected[currency]} "
                        f"(signup {user.signup.get(currency, 0)} + {sum(p.grants.get(currency, 0) for p in purchases_by_user[user.index])} "
                        f"from {len(purchases_by_user[user.index])} purchases - "
                        f"{sum(s.amount for s in spends_by_user[user.index] if s.currency == currency)} "
                        f"from {sum(1 for s in spends_by_user[user.index] if s.currency == currency)} accepted spends)")
            entries = self.ledger(user.token)
            ledger_entries += len(entries)
            user_problems += self.check_ledger(user, entries, purchases_by_user[user.index], spends_by_user[user.index], balances)
            if user_problems:
                mismatched_users += 1
                problems += user_problems
        self.balances_checked = balances_checked
        self.ledger_entries = ledger_entries
        self.grant_responses = grant_responses
        return problems

    def check_ledger(self, user, entries, purchases, spends, balances):
        problems = []
        by_kind = collections.defaultdict(list)
        for entry in entries:
            by_kind[entry.get("kind")].append(entry)
        # One purchase entry per distinct transaction, for what its product grants.
        grants = collections.defaultdict(list)
        for entry in by_kind.pop("purchase", []):
            grants[entry.get("transaction_id")].append(entry)
        for p in purchases:
            found = grants.pop(p.transaction_id, [])
            got = collections.Counter()
            for entry in found:
                got[entry["currency"]] += entry["amount"]
            if len(found) != len(p.grants) or dict(got) != p.grants:
                problems.append(f"user {user.index} ledger: transaction {p.transaction_id} ({p.product_id} x{p.quantity}) "
                                f"has {len(found)} purchase entries totalling {dict(got)}, expected one per currency of {p.grants}")
        for transaction_id, found in grants.items():
            problems.append(f"user {user.index} ledger: {len(found)} purchase entries for transaction {transaction_id}, "
                            f"which is not one of this user's purchases")
        # One spend entry per accepted key (the reference is the key).
        spent = collections.defaultdict(list)
        for entry in by_kind.pop("spend", []):
            spent[entry.get("reference")].append(entry)
        for s in spends:
            found = spent.pop(s.key, [])
            if len(found) != 1 or found[0].get("amount") != -s.amount or found[0].get("currency") != s.currency:
                problems.append(f"user {user.index} ledger: accepted spend {s.key} ({s.amount} {s.currency}) has "
                                f"{len(found)} spend entries {[(e.get('amount'), e.get('currency')) for e in found]}, expected one of -{s.amount}")
        for key, found in spent.items():
            problems.append(f"user {user.index} ledger: {len(found)} spend entries with reference {key}, "
                            f"which is not an accepted spend (amounts {[e.get('amount') for e in found]})")
        signup = collections.Counter()
        for entry in by_kind.pop("signup", []):
            signup[entry["currency"]] += entry["amount"]
        if dict(signup) != user.signup:
            problems.append(f"user {user.index} ledger: signup entries {dict(signup)}, expected {user.signup}")
        for kind, found in by_kind.items():
            problems.append(f"user {user.index} ledger: {len(found)} unexpected entries of kind {kind}")
        # Balance = sum of ledger entries.
        sums = collections.Counter()
        for entry in entries:
            if entry.get("bucket", "balance") == "balance":
                sums[entry["currency"]] += entry["amount"]
        for currency in self.currencies:
            balance = balances.get(currency, {})
            position = balance.get("available", 0) + balance.get("held", 0) - balance.get("debt", 0)
            if sums[currency] != position:
                problems.append(f"user {user.index} ledger: {currency} entries sum to {sums[currency]}, the balance is {position}")
        return problems

    def get(self, path, token):
        answer, _ = self.perform("GET", path, token, None, "check")
        if answer.status != 200:
            raise Aborted(f"GET {path} answered {answer.status} {answer.body}")
        return answer.body

    def ledger(self, token):
        entries = []
        cursor = None
        for _ in range(100_000):
            path = "/v1/me/ledger?limit=200" + (f"&cursor={urllib.parse.quote(cursor)}" if cursor else "")
            page = self.get(path, token)
            entries += page.get("entries", [])
            cursor = page.get("next_cursor")
            if not cursor:
                break
        ids = [e.get("id") for e in entries]
        if len(ids) != len(set(ids)):
            self.fail("the ledger's pages repeated an entry")
        return entries

    # -- the whole run

    def execute(self):
        os.makedirs(self.options.work_dir, exist_ok=True)
        began = time.monotonic()
        self.load_catalog()
        # The first store creates the certificate folder (when new) that the server trusts.
        try:
            first_store = self.start_store()
            self.start_server()
            self.start_webhooks()  # before the first event: deliveries are queued when an event is written
            self.create_users(self.options.users)
            log(f"{len(self.users)} users created")
            self.mint_purchases(first_store)
            self.plan_spends()
            self.plan_tasks()
            log(f"chaos: {self.initial_total} posts from {self.options.workers} workers, {self.options.kills} kills")
            self.chaos()
            problems = []
            if not any("deadline" in f or "driver error" in f for f in self.failures):
                self.final_kill()
                problems = self.check()
                if not problems:
                    problems = self.apple_phase()
                if not problems and self.receiver is not None:
                    problems = self.webhook_phase()
            status = self.server.stop()
            if status != 0:
                problems.append(f"tally serve did not exit cleanly on SIGTERM (status {status}); log {self.server.log_path}")
            if not problems:
                problems = self.database_check()
        finally:
            for store in self.stores:
                store.stop()
            if self.receiver is not None:
                self.receiver.stop()
            if self.server is not None and self.server.process is not None and self.server.process.poll() is None:
                self.server.process.kill()
                self.server.process.wait()
        self.total_seconds = time.monotonic() - began
        for problem in problems:
            self.failures.append(problem)
        self.summary(problems)
        return 0 if not self.failures else 1

    def apple_phase(self):
        """The App Store Server API under SIGKILL. The server gets the store's API key and answers
        consumption requests; fresh users buy packs and post them; then, while the server is down,
        the store refunds half of them and asks consumption information for the other half, its
        notifications going nowhere. The server is restarted and SIGKILLed while it catches up and
        answers, then restarted for good: each refund must be taken back once (balances exact) and
        each request answered once (the store's count)."""
        count = self.options.apple_purchases
        if count <= 0:
            return []
        problems = []
        store = self.start_store()
        with open(os.path.join(self.options.ca_dir, "api-key.json"), encoding="utf-8") as file:
            ids = json.load(file)
        self.server.stop()
        self.server.argv = self.server.argv + [
            "--apple-key", os.path.join(self.options.ca_dir, "api-key.pem"), "--apple-key-id", ids["key_id"],
            "--apple-issuer-id", ids["issuer_id"], "--apple-api-url", f"http://127.0.0.1:{store.port}",
            "--answer-consumption-requests", "--consumption-answer-interval", "1", "--consumption-claim-lease", "10"]
        self.server.start()
        users = []
        for _ in range(2):
            answer = http_call(self.host, self.port, "POST", "/v1/users", body={})
            if answer.status != 201:
                raise Aborted(f"POST /v1/users answered {answer.status} {answer.error or answer.body}")
            users.append(answer.body)
        bought = []  # (user index, transaction id)
        for index in range(count):
            user = users[index % 2]
            answer = http_call("127.0.0.1", store.port, "POST", "/control/purchases", timeout=60,
                               body={"product_id": "com.tally.photo.credits.10", "app_account_token": user["app_account_token"],
                                     "outcome": "success"})
            if answer.status != 200:
                raise Aborted(f"the simulated App Store answered {answer.status} {answer.error or answer.body}")
            posted = http_call(self.host, self.port, "POST", "/v1/me/purchases", token=user["user_token"],
                               body={"signed_transaction": answer.body["signed_transaction"]})
            if posted.status != 200:
                raise Aborted(f"POST /v1/me/purchases answered {posted.status} {posted.error or posted.body}")
            bought.append((index % 2, answer.body["transaction_id"]))
        refunded = bought[0::2]
        requested = bought[1::2]

        self.server.kill()
        for _, transaction in refunded:
            answer = http_call("127.0.0.1", store.port, "POST", f"/control/transactions/{transaction}/refund")
            if answer.status != 200:
                raise Aborted(f"refund {transaction}: the simulated App Store answered {answer.status} {answer.error or answer.body}")
        for _, transaction in requested:
            answer = http_call("127.0.0.1", store.port, "POST", f"/control/transactions/{transaction}/consumption-request")
            if answer.status != 200:
                raise Aborted(f"consumption request {transaction}: the simulated App Store answered {answer.status}")
        # Killed while it catches up and answers, at a random moment after it listens.
        for _ in range(self.options.apple_kills):
            self.server.start()
            time.sleep(self.random.uniform(0.0, 0.3))
            self.server.kill()
        self.server.start()

        expected = [2 + 10 * sum(1 for owner, t in bought if owner == i and (owner, t) not in refunded) for i in range(2)]
        # A killed server's claims lapse after the 10-second lease; then the last server answers.
        deadline = time.monotonic() + 90
        while True:
            balances = []
            for user in users:
                answer = http_call(self.host, self.port, "GET", "/v1/me", token=user["user_token"])
                credits = next((b for b in answer.body.get("balances", []) if b.get("currency") == "credits"), {})
                balances.append((credits.get("available"), credits.get("debt")))
            answers = []
            for _, transaction in bought:
                answer = http_call("127.0.0.1", store.port, "GET", f"/control/transactions/{transaction}/consumption")
                answers.append(answer.body.get("count") if answer.status == 200 else None)
            settled = balances == [(e, 0) for e in expected] and all(
                (a or 0) >= 1 if (o, t) in requested else a == 0 for a, (o, t) in zip(answers, bought))
            if settled or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        for index, (available, debt) in enumerate(balances):
            if (available, debt) != (expected[index], 0):
                problems.append(f"apple: user {index} has {available} credits (debt {debt}); each refund taken back once leaves {expected[index]}")
        # An answer is lost never. It is sent twice only when a server is killed between Apple's
        # answer and the close of the request (Apple keeps the latest of the same information):
        # at most once per kill.
        twice = 0
        for count_sent, (owner, transaction) in zip(answers, bought):
            if (owner, transaction) not in requested:
                if count_sent != 0:
                    problems.append(f"apple: transaction {transaction} got {count_sent} consumption answers, asked for none")
            elif not count_sent:
                problems.append(f"apple: the consumption request of transaction {transaction} was never answered")
            else:
                twice += count_sent - 1
        if twice > self.options.apple_kills:
            problems.append(f"apple: {twice} consumption answers sent again, more than the {self.options.apple_kills} kills explain")
        self.stats["apple_sent_again"] = twice
        self.stats["apple_refunds"] = len(refunded)
        self.stats["apple_requests"] = len(requested)
        self.stats["apple_kills"] = self.options.apple_kills
        log(f"apple: {len(refunded)} refunds and {len(requested)} consumption requests made while down, "
            f"{self.options.apple_kills} kills while catching up: {'settled' if not problems else 'NOT settled'}")
        return problems

    # -- webhooks

    def admin(self, method, path, body=None, label="admin"):
        """One admin API call (Authorization: Bearer <TALLY_SECRET_KEY>), on a live server."""
        return http_call(self.host, self.port, method, path, token=self.secret_key, body=body,
                         timeout=self.options.request_timeout, request_id=self.next_request_id(label))

    def start_webhooks(self):
        """Starts the receiver and creates the endpoint that points at it (before any event)."""
        if self.options.no_webhooks:
            return
        try:
            import webhook_receiver
        except ImportError as error:
            raise SetupError(f"cannot import webhook_receiver.py beside the driver: {error}")
        if webhook_receiver.standardwebhooks is None:
            raise SetupError(f"the Python package standardwebhooks is missing ({webhook_receiver.IMPORT_ERROR}): run "
                             f"scripts/chaos.sh, which installs it in .build-test/webhooks-venv, or pip install "
                             f"standardwebhooks==1.1.0; --no-webhooks skips the webhook checks")
        options = self.options
        self.receiver = webhook_receiver.Receiver(
            None, seed=options.seed, fail_rate=options.webhook_fail_rate, hold_rate=0.02, hold_max=options.webhook_holds,
            hold_seconds=options.webhook_timeout + 1.5).start()
        body = {"url": self.receiver.url, "description": f"chaos drill {options.backend} seed {options.seed}",
                "event_types": []}
        answer = self.admin("POST", "/v1/admin/webhooks", body, "webhook-create")
        if answer.status != 201:
            raise Aborted(f"webhooks: POST /v1/admin/webhooks answered {answer.status} {answer.error or answer.body}, expected 201")
        endpoint = answer.body
        # Members without a value (disabled_reason of an enabled endpoint) are left out, as everywhere in the API.
        fields = ["id", "url", "description", "event_types", "disabled", "created_at", "updated_at", "secret"]
        missing = [f for f in fields if f not in endpoint]
        if missing:
            self.fail(f"webhooks: POST /v1/admin/webhooks answered 201 without {missing}: {endpoint}")
        secret = endpoint.get("secret")
        if not isinstance(secret, str) or not secret.startswith("whsec_"):
            raise Aborted(f"webhooks: POST /v1/admin/webhooks answered a secret that is not whsec_ + base64: {secret!r}")
        if endpoint.get("url") != body["url"] or endpoint.get("description") != body["description"] \
                or endpoint.get("disabled") is not False:
            self.fail(f"webhooks: POST /v1/admin/webhooks answered {endpoint}, asked {body} (enabled)")
        self.endpoint = endpoint
        self.receiver.add_secret(secret)
        listing = self.admin("GET", "/v1/admin/webhooks", label="webhook-list")
        listed = [e for e in listing.body.get("endpoints", [])] if listing.status == 200 else []
        if listing.status != 200 or [e.get("id") for e in listed] != [endpoint["id"]]:
            self.fail(f"webhooks: GET /v1/admin/webhooks answered {listing.status} {listing.error or listing.body}, "
                      f"expected the one endpoint {endpoint['id']}")
        elif listed[0].get("secret"):
            self.fail("webhooks: GET /v1/admin/webhooks shows the endpoint's secret (only create and rotate may)")
        log(f"webhooks: endpoint {endpoint['id']} -> {self.receiver.url} (all event types); receiver fails "
            f"{options.webhook_fail_rate:.0%} of first requests, holds {options.webhook_holds} past the "
            f"{options.webhook_timeout:g} s timeout")

    def webhook_chaos(self, what, at):
        """During the load: the receiver goes down once, and the endpoint's secret is rotated once."""
        try:
            while self.progress() < at and not self.load_done.is_set() and not self.stop_workers:
                time.sleep(0.01)
            if self.aborted:
                return
            progress = self.progress()
            if what == "down":
                self.receiver.go_down(self.options.webhook_down)
                self.webhook_stats["down_during_load"] += 1
                log(f"webhooks: the receiver refused connections for {self.options.webhook_down:g} s from "
                    f"{progress:.0%} of the load, then listened again on port {self.receiver.port}")
            else:
                self.rotate_secret(progress)
        except Exception as error:
            self.fail(f"webhooks: driver error while the receiver {what}: {type(error).__name__}: {error}")

    def rotate_secret(self, progress):
        old = self.endpoint["secret"]
        path = f"/v1/admin/webhooks/{self.endpoint['id']}/rotate-secret"
        # Under the admin lock: no SIGKILL in the middle, so that the new secret is not lost.
        with self.admin_lock:
            if not self.server_up.wait(timeout=30):
                self.fail("webhooks: no server to rotate the secret on for 30 s")
                return
            answer = self.admin("POST", path, {}, "webhook-rotate")
        if answer.status != 200:
            self.fail(f"webhooks: POST {path} answered {answer.status} {answer.error or answer.body}, expected 200")
            return
        new = answer.body.get("secret")
        if not isinstance(new, str) or not new.startswith("whsec_") or new == old:
            self.fail(f"webhooks: POST {path} answered the secret {new!r}: not a new whsec_ secret")
            return
        if answer.body.get("id") != self.endpoint["id"]:
            self.fail(f"webhooks: POST {path} answered {answer.body}, not the endpoint object")
        self.endpoint["secret"] = new
        self.receiver.add_secret(new)
        self.webhook_stats["rotations"] += 1
        log(f"webhooks: secret rotated at {progress:.0%} of the load; the receiver knows both")

    def fetch_events(self, after=0):
        """Every event after sequence `after`, through the admin API's pages."""
        events = []
        cursor = after
        for _ in range(100_000):
            answer = self.admin("GET", f"/v1/admin/events?after={cursor}&limit=1000", label="events")
            if answer.status != 200 or not isinstance(answer.body.get("events"), list):
                raise Aborted(f"webhooks: GET /v1/admin/events?after={cursor}&limit=1000 answered {answer.status} "
                              f"{answer.error or answer.body}")
            events += answer.body["events"]
            following = answer.body.get("next_cursor")
            if following is None:
                break
            if str(following) == str(cursor):
                raise Aborted(f"webhooks: GET /v1/admin/events?after={cursor} answered next_cursor {following}: no progress")
            cursor = following
        return events

    def deliveries(self, status, limit=200, pages=100_000):
        path = f"/v1/admin/webhooks/{self.endpoint['id']}/deliveries"
        found = []
        cursor = None
        for _ in range(pages):
            query = f"?status={status}&limit={limit}" + (f"&cursor={urllib.parse.quote(str(cursor))}" if cursor else "")
            answer = self.admin("GET", path + query, label="deliveries")
            if answer.status != 200 or not isinstance(answer.body.get("deliveries"), list):
                raise Aborted(f"webhooks: GET {path}{query} answered {answer.status} {answer.error or answer.body}")
            found += answer.body["deliveries"]
            cursor = answer.body.get("next_cursor")
            if cursor is None:
                break
        return found

    def settle_webhooks(self, timeout, known):
        """Waits (bounded) until no delivery is pending; `known` (id -> payload) gains the new events."""
        deadline = time.monotonic() + timeout
        after = max((e.get("sequence", 0) for e in known.values()), default=0)
        while True:
            for event in self.fetch_events(after):
                known[event.get("id")] = event
                after = max(after, event.get("sequence", 0))
            pending = self.deliveries("pending", limit=5, pages=1)
            if not pending:
                return []
            if time.monotonic() > deadline:
                return [f"webhooks: {len(pending)}+ deliveries still pending {timeout:g} s after the checks, e.g. {pending[:3]}"]
            time.sleep(0.25)

    def webhook_phase(self):
        """After the other checks: every event processed by the receiver exactly once, and so on."""
        problems = []
        receiver = self.receiver
        endpoint_id = self.endpoint["id"]
        began = time.monotonic()
        known = {}
        problems += self.settle_webhooks(self.options.webhook_settle, known)
        self.webhook_stats["settle_seconds"] = time.monotonic() - began

        # A replay of one delivered event: the receiver sees the same id again, as a redelivery.
        before = receiver.snapshot()
        candidates = sorted(i for i in before["processed"] if i in known)
        replayed = None
        if candidates:
            replayed = self.webhook_random.choice(candidates)
            requests_before = receiver.requests_for(replayed)
            path = f"/v1/admin/webhooks/{endpoint_id}/deliveries/{replayed}/replay"
            answer = self.admin("POST", path, label="webhook-replay")
            if answer.status != 202:
                problems.append(f"webhooks: POST {path} answered {answer.status} {answer.error or answer.body}, expected 202")
            else:
                deadline = time.monotonic() + 30
                while receiver.requests_for(replayed) <= requests_before and time.monotonic() < deadline:
                    time.sleep(0.05)
                if receiver.requests_for(replayed) > requests_before:
                    self.webhook_stats["replays_seen"] += 1
                else:
                    problems.append(f"webhooks: event {replayed} replayed (202) but the receiver got no request for it in 30 s")
                problems += self.settle_webhooks(30, known)
                after = receiver.snapshot()
                if after["processed"].get(replayed) != 1 or len(after["processed"]) != len(before["processed"]):
                    problems.append(f"webhooks: after the replay of {replayed} the receiver has processed "
                                    f"{len(after['processed'])} ids (before {len(before['processed'])}), this one "
                                    f"{after['processed'].get(replayed)} time(s): a replay must be a redelivery")
                attempts = self.admin("GET", f"/v1/admin/webhooks/{endpoint_id}/deliveries/{replayed}/attempts",
                                      label="webhook-attempts")
                listed = attempts.body.get("attempts") if attempts.status == 200 else None
                fields = {"attempted_at", "latency_ms"}  # status_code, response_excerpt and error are left out when there is none
                if not isinstance(listed, list):
                    problems.append(f"webhooks: GET .../deliveries/{replayed}/attempts answered {attempts.status} "
                                    f"{attempts.error or attempts.body}")
                else:
                    if sum(1 for a in listed if isinstance(a.get("status_code"), int) and 200 <= a["status_code"] < 300) < 2:
                        problems.append(f"webhooks: the attempts of the replayed event {replayed} are {listed}: expected at "
                                        f"least two 2xx (the delivery and the replay)")
                    absent = sorted(set().union(*(fields - set(a) for a in listed))) if listed else []
                    if absent:
                        problems.append(f"webhooks: GET .../deliveries/{replayed}/attempts answered attempts without "
                                        f"{absent} (the contract requires them): {listed}")
        else:
            problems.append("webhooks: no event was processed, nothing to replay")

        # Every event of the run, from the start, against what the receiver processed.
        events = self.fetch_events(0)
        ids = [e.get("id") for e in events]
        sequences = [e.get("sequence") for e in events]
        if len(set(ids)) != len(ids):
            duplicated = [i for i, n in collections.Counter(ids).items() if n > 1]
            problems.append(f"webhooks: GET /v1/admin/events lists {len(duplicated)} ids more than once, e.g. {duplicated[:3]}")
        if any(not isinstance(s, int) for s in sequences) or sequences != sorted(set(sequences)):
            problems.append("webhooks: GET /v1/admin/events is not in strictly ascending integer sequence order")
        snap = receiver.snapshot()
        processed = snap["processed"]
        missing = sorted(set(ids) - set(processed))
        extra = sorted(set(processed) - set(ids))
        if missing:
            problems.append(f"webhooks: {len(missing)} of {len(ids)} events never processed by the receiver, e.g. "
                            f"{[(i, snap['requests'].get(i, 0)) for i in missing[:5]]} (id, verified requests)")
        if extra:
            problems.append(f"webhooks: the receiver processed {len(extra)} ids that GET /v1/admin/events does not list, "
                            f"e.g. {extra[:5]}")
        twice = sorted(i for i, n in processed.items() if n != 1)
        if twice:
            problems.append(f"webhooks: {len(twice)} events processed more than once, e.g. {twice[:5]}")
        differing = [e.get("id") for e in events if e.get("id") in snap["payloads"] and snap["payloads"][e.get("id")] != e]
        if differing:
            first = differing[0]
            listed = next(e for e in events if e.get("id") == first)
            problems.append(f"webhooks: {len(differing)} payloads posted differ from GET /v1/admin/events, e.g. {first}: "
                            f"posted {json.dumps(snap['payloads'][first], sort_keys=True)[:400]} listed "
                            f"{json.dumps(listed, sort_keys=True)[:400]}")
        if snap["bad_signatures"]:
            problems.append(f"webhooks: {len(snap['bad_signatures'])} requests with a bad signature (answered 400), e.g. "
                            f"{snap['bad_signatures'][:3]}")
        for problem in snap["problems"][:20]:
            problems.append(f"webhooks: {problem}")
        failed = self.deliveries("failed")
        if failed:
            problems.append(f"webhooks: {len(failed)} deliveries failed, e.g. {failed[:3]}")
        delivered = self.deliveries("delivered")
        delivered_ids = {d.get("event_id") for d in delivered}
        if delivered_ids != set(ids) or len(delivered) != len(ids):
            problems.append(f"webhooks: {len(delivered)} deliveries delivered for {len(ids)} events; events without one "
                            f"{sorted(set(ids) - delivered_ids)[:5]}, unknown ones {sorted(delivered_ids - set(ids))[:5]}")
        # Held answers: the server gave up after --webhook-timeout and delivered again.
        not_retried = [i for i in snap["held"] if snap["requests"].get(i, 0) < 2]
        if not_retried:
            problems.append(f"webhooks: {len(not_retried)} requests held {receiver.hold_seconds:g} s (past --webhook-timeout "
                            f"{self.options.webhook_timeout:g}) were never delivered again: {not_retried[:5]}")
        # A 500 is an attempt the server records (checked on a few: a kill can lose the record of one).
        sample = sorted(snap["answered_500"])[:5]
        if sample:
            recorded = 0
            for event_id in sample:
                answer = self.admin("GET", f"/v1/admin/webhooks/{endpoint_id}/deliveries/{event_id}/attempts",
                                    label="webhook-attempts")
                if answer.status == 200 and any(a.get("status_code") == 500 for a in answer.body.get("attempts", [])):
                    recorded += 1
            if recorded == 0:
                problems.append(f"webhooks: none of {sample} shows its 500 among its attempts")
        # The rotation: after it, requests carry a signature of each secret (the old one signs for 24 h).
        after = snap["after_rotation"]
        if snap["secrets"] < 2:
            problems.append("webhooks: the secret was never rotated")
        elif after["both"] < 1:
            problems.append(f"webhooks: no request after the rotation verified with the old secret alone and with the new "
                            f"one alone ({dict(after)})")
        if after["new_only"]:
            problems.append(f"webhooks: {after['new_only']} requests after the rotation verified with the new secret but not "
                            f"the old one, which must keep signing for 24 h")
        if not snap["down_periods"]:
            problems.append("webhooks: the receiver never went down during the load")
        endpoint = self.admin("GET", f"/v1/admin/webhooks/{endpoint_id}", label="webhook-get")
        if endpoint.status != 200 or endpoint.body.get("disabled") is not False or endpoint.body.get("secret"):
            problems.append(f"webhooks: GET /v1/admin/webhooks/{endpoint_id} answered {endpoint.status} "
                            f"{endpoint.error or endpoint.body}: expected the endpoint, enabled, without its secret")

        types = collections.Counter(e.get("type") for e in events)
        self.webhook_summary = (
            f"webhooks: {len(ids)} events ({', '.join(f'{t} {n}' for t, n in sorted(types.items()))}), "
            f"{len(set(processed) & set(ids))} processed by the receiver, each once; {snap['redeliveries']} redeliveries "
            f"({self.webhook_stats['replays_seen']} of them the replay); answered 500 to {len(snap['answered_500'])} first requests, held {len(snap['held'])} past the "
            f"{self.options.webhook_timeout:g} s timeout, down {len(snap['down_periods'])} time(s) "
            f"({', '.join(f'{s:.1f} s' for _, s in snap['down_periods'])}); bad signatures {len(snap['bad_signatures'])}; "
            f"requests cut off by a kill {snap['truncated']}; "
            f"after the rotation {after['both']} requests verified with either secret alone ({after['old_only']} "
            f"signed before it with the old one only); failed deliveries {len(failed)}; settled "
            f"{self.webhook_stats['settle_seconds']:.1f} s after the checks")
        log(f"webhooks: {len(ids)} events, {len(processed)} processed, "
            f"{'settled' if not problems else 'NOT settled'}")
        return problems

    def summary(self, problems):
        s = self.stats
        delivered = sum(1 for p in self.purchases if any(a.status == 200 for a, _ in p.answers))
        accepted = [x for x in self.spends if x.accepted]
        insufficient = sum(1 for x in self.spends if not x.accepted and not x.must_fail)
        must_fail = sum(1 for x in self.spends if x.must_fail)
        spend_replays = sum(1 for x in self.spends for a, _ in x.answers if a.body.get("replayed") is True)
        purchase_replays = sum(1 for p in self.purchases for a, _ in p.answers if a.body.get("replayed") is True)
        committed_before_kill = sum(1 for p in self.purchases for a, amb in p.answers
                                    if amb and a.body.get("replayed") is True)
        committed_before_kill += sum(1 for x in self.spends for a, amb in x.answers if amb and a.body.get("replayed") is True)
        verdict = "PASS" if not self.failures else "FAIL"
        print()
        print(f"== chaos {self.options.backend}: {verdict} ({self.total_seconds:.0f} s, load {getattr(self, 'load_seconds', 0):.0f} s)")
        races = sum(1 for x in self.spends if x.race)
        print(f"   users {len(self.users) - races} (+{races} race probes: one spend of all they have, posted 3 times at once)")
        print(f"   purchases {len(self.purchases)} posted {s['purchase_posts']} times "
              f"({s['purchase_posts'] - len(self.purchases)} duplicates, {purchase_replays} answered as replays) "
              f"+ {s['purchase_posts_foreign']} by the wrong user; delivered {delivered}")
        print(f"   spends: {len(self.spends)} keys posted {s['spend_posts']} times; accepted {len(accepted)}, "
              f"insufficient_credits {insufficient}, must-fail {must_fail}; {spend_replays} answered as replays; "
              f"{s['conflict_probes']} conflicting reuses")
        print(f"   concurrent bursts {s['concurrent_bursts']}; replays after a restart {s['replays_after_kill']}")
        if s["apple_refunds"] or s["apple_requests"]:
            print(f"   App Store Server API: {s['apple_refunds']} refunds and {s['apple_requests']} consumption requests missed "
                  f"while down, {s['apple_kills']} kills while catching up; each refund taken back once, each request answered "
                  f"({s['apple_sent_again']} sent again after a kill between Apple's answer and the close)")
        print(f"   kills {len(self.kills)} during the load + 1 after it; requests without an answer (ambiguous) "
              f"{s['ambiguous_requests']} ({s['ambiguous_attempts']} attempts), all retried to a definite answer: "
              f"{s['ambiguous_resolved']}, of which {committed_before_kill} had been committed before the kill; "
              f"refused connections {s['refused_attempts']}; 429 answers {s['rate_limited']}; 5xx answers {s['server_errors']}")
        if hasattr(self, "webhook_summary"):
            print(f"   {self.webhook_summary}")
        if getattr(self, "rollups_checked", False):
            print("   tally check after the last kill: balances, ledger, lots and every metrics rollup add up")
        if hasattr(self, "balances_checked"):
            totals = ", ".join(f"{c} {self.actual_totals[c]}" for c in self.currencies if self.expected_totals[c] or self.actual_totals[c])
            print(f"   balances checked: {len(self.users)} users x {len(self.currencies)} currencies = {self.balances_checked}, "
                  f"{self.ledger_entries} ledger entries; totals {totals}")
        if self.failures:
            path = os.path.join(self.options.work_dir, "failures.txt")
            with open(path, "w", encoding="utf-8") as file:
                file.write("\n".join(self.failures) + "\n")
            groups = collections.OrderedDict()
            for failure in self.failures:
                groups.setdefault(failure_category(failure), []).append(failure)
            print(f"   {len(self.failures)} failure(s), all in {path}:")
            for category, failures in groups.items():
                print(f"   * {category}: {len(failures)}")
                for failure in failures[:3]:
                    print(f"     - {failure}")
                if len(failures) > 3:
                    print(f"     - … and {len(failures) - 3} more")
            print(f"   server logs: {self.options.work_dir}/server-*.log")
        sys.stdout.flush()


def failure_category(message):
    if "a duplicate of an accepted key must answer as its replay" in message:
        return "concurrent duplicates of one spend key: one spent, another answered 403 insufficient_credits"
    if "from a live server" in message:
        return "5xx answers"
    if message.startswith("user ") and " ledger:" in message:
        return "ledger entries"
    if message.startswith("user ") and "available" in message:
        return "balances"
    if message.startswith("purchase "):
        return "purchase answers"
    if message.startswith("spend "):
        return "spend answers"
    if message.startswith("webhooks"):
        return "webhooks"
    return "run"


def parse(argv):
    parser = argparse.ArgumentParser(description="Crash-safety driver for tally serve (see docs/chaos.md).")
    parser.add_argument("--tally", required=True, help="the tally executable")
    parser.add_argument("--backend", required=True, help="a label: sqlite or postgres")
    parser.add_argument("--database", required=True, help="an SQLite file path or a postgres:// URL")
    parser.add_argument("--ca-dir", required=True, help="the simulated App Store's certificate folder (created when missing)")
    parser.add_argument("--stores", type=int, default=2, help="simulated App Stores selling at once while purchases are made")
    parser.add_argument("--store-batch", type=int, default=100, help="purchases one simulated App Store sells before a fresh one replaces it")
    parser.add_argument("--work-dir", required=True, help="a folder for the catalog copy and server logs")
    parser.add_argument("--repo", default=os.getcwd(), help="the working directory of tally serve")
    parser.add_argument("--config", default="Examples/tally.json", help="the catalog to copy (limits are raised)")
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: a free one)")
    parser.add_argument("--users", type=int, default=20, help="users who buy and spend")
    parser.add_argument("--purchases", type=int, default=2000, help="signed transactions bought, each posted once or more")
    parser.add_argument("--spends", type=int, default=2000, help="spend idempotency keys, each posted once or more")
    parser.add_argument("--kills", type=int, default=5, help="SIGKILLs during the load (one more follows it)")
    parser.add_argument("--workers", type=int, default=8, help="concurrent client threads")
    parser.add_argument("--seed", type=int, default=None, help="the random seed (default: a random one, printed)")
    parser.add_argument("--duplicate-rate", type=float, default=0.3, help="share of posts repeated later")
    parser.add_argument("--concurrent-rate", type=float, default=0.1, help="share of posts sent 2-3 times at once")
    parser.add_argument("--foreign-rate", type=float, default=0.02, help="share of purchases also posted by another user")
    parser.add_argument("--conflict-rate", type=float, default=0.03, help="share of keys reused with another amount")
    parser.add_argument("--must-fail-rate", type=float, default=0.03, help="share of spends larger than any balance")
    parser.add_argument("--race-probes", type=int, default=20, help="extra users who post one spend of all they have 3 times at once")
    parser.add_argument("--replays-per-kill", type=int, default=20)
    parser.add_argument("--apple-purchases", type=int, default=20,
                        help="packs bought for the App Store Server API phase (half refunded, half asked about while the server is down); 0 skips it")
    parser.add_argument("--apple-kills", type=int, default=3, help="SIGKILLs while the server catches up and answers")
    parser.add_argument("--user-rate-limit", type=int, default=1_000_000, help="user_requests_per_minute of the catalog copy")
    parser.add_argument("--ip-rate-limit", type=int, default=10_000_000, help="ip_requests_per_minute of the catalog copy")
    parser.add_argument("--no-webhooks", action="store_true",
                        help="no webhook receiver, endpoint or checks (and no --webhook-* options for tally serve)")
    parser.add_argument("--webhook-retry-delays", default="0.5,1,2,4,8", help="tally serve --webhook-retry-delays")
    parser.add_argument("--webhook-timeout", type=float, default=2.0, help="tally serve --webhook-timeout (seconds)")
    parser.add_argument("--webhook-poll-interval", type=float, default=0.2, help="tally serve --webhook-poll-interval")
    parser.add_argument("--webhook-claim-lease", type=float, default=4.0,
                        help="tally serve --webhook-claim-lease: how soon a killed worker's claims are taken again")
    parser.add_argument("--webhook-fail-rate", type=float, default=0.15, help="share of events whose first request the receiver answers 500")
    parser.add_argument("--webhook-holds", type=int, default=3,
                        help="first requests the receiver processes, then holds past --webhook-timeout before answering")
    parser.add_argument("--webhook-down", type=float, default=2.5, help="seconds the receiver refuses connections, once during the load")
    parser.add_argument("--webhook-settle", type=float, default=120.0,
                        help="seconds to wait after the checks for no pending delivery")
    parser.add_argument("--request-timeout", type=float, default=30.0)
    parser.add_argument("--startup-timeout", type=float, default=120.0)
    parser.add_argument("--deadline", type=float, default=900.0, help="seconds after which the run gives up (and fails)")
    options = parser.parse_args(argv)
    if options.seed is None:
        options.seed = random.randrange(1, 1_000_000)
    if options.users < 2 or options.purchases < 1 or options.spends < 1 or options.kills < 0 or options.workers < 1:
        parser.error("need at least 2 users, 1 purchase, 1 spend, 0 kills and 1 worker")
    return options


def terminated(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv):
    signal.signal(signal.SIGTERM, terminated)
    options = parse(argv)
    log(f"driver: backend {options.backend}, seed {options.seed}, users {options.users}, purchases {options.purchases}, "
        f"spends {options.spends}, kills {options.kills}, workers {options.workers}")
    run = Run(options)
    try:
        return run.execute()
    except SetupError as error:
        print(f"chaos {options.backend}: set-up failed: {error}", file=sys.stderr)
        return 2
    except Aborted as error:
        run.failures.append(str(error))
        run.total_seconds = 0
        run.summary([])
        return 1
    except KeyboardInterrupt:
        print(f"chaos {options.backend}: interrupted", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
