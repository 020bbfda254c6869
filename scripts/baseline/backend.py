"""A purchase backend written without Tally, as an app team writes one: Flask, SQLite and
Apple's app-store-server-library. `tally bench server --self-written` runs it under gunicorn
and sends it the same requests as Tally's server, so that Tally's rates can be given as
multiples of it.

It serves what the benchmark sends, with the guarantees a correct backend needs for those
requests, so that the comparison is not with a broken one:
- POST /v1/users: a user, a bearer token (kept as its SHA-256) and an appAccountToken;
- POST /v1/me/purchases: the JWS verified by Apple's library against the configured root,
  its appAccountToken matched to the caller, the product's credits granted once per
  transaction (a primary key);
- POST /v1/me/spend: at most once per idempotency key (a unique key), never below zero;
- GET /v1/me: the caller's balances; GET /healthz: one query.
Commits are durable as Tally's are on SQLite (WAL, synchronous=FULL).

It is set up to be quick rather than naive, so that the comparison favours it: the verifier
is made with online checks on, as the library's README makes it, so that it keeps a verified
chain for 15 minutes as Tally keeps one (the OCSP request, which needs Apple's servers, is
answered "good" here); each thread keeps its SQLite connection, so that no request pays for
opening one and the WAL is not checkpointed each time the last connection closes.

Configuration, from the environment: BASELINE_DATABASE (SQLite file), BASELINE_ROOT (the
trusted root certificate, DER), BASELINE_CATALOG (Tally's catalog JSON: the bundle ID and
each product's grants), BASELINE_ENVIRONMENT (Sandbox or Production).
"""

import contextlib
import hashlib
import json
import os
import secrets
import sqlite3
import threading
import uuid

from appstoreserverlibrary import signed_data_verifier
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException
from flask import Flask, jsonify, request

DATABASE = os.environ["BASELINE_DATABASE"]
with open(os.environ["BASELINE_CATALOG"], encoding="utf-8") as file:
    CATALOG = json.load(file)
with open(os.environ["BASELINE_ROOT"], "rb") as file:
    ROOT = file.read()
BUNDLE_ID = CATALOG["app"]["bundle_id"]
ENVIRONMENT = Environment(os.environ.get("BASELINE_ENVIRONMENT", "Sandbox"))
# Each product's grants: {product_id: [(currency, amount), ...]}.
GRANTS = {
    product["product_id"]: [(grant["currency"], int(grant["amount"])) for grant in product.get("grants", [])]
    for product in CATALOG["products"]
}
CURRENCIES = {currency["code"] if isinstance(currency, dict) else currency for currency in CATALOG["currencies"]}

# Apple's servers cannot be reached here: the answer they give for a certificate in good standing.
signed_data_verifier._ChainVerifier.check_ocsp_status = lambda self, certificate, issuer, root: None
VERIFIER = SignedDataVerifier(
    [ROOT], True, ENVIRONMENT, BUNDLE_ID, CATALOG["app"].get("app_apple_id") if ENVIRONMENT == Environment.PRODUCTION else None
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    app_account_token TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS transactions (
    transaction_id TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    product_id TEXT NOT NULL,
    quantity INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS spends (
    user_id INTEGER NOT NULL REFERENCES users(id),
    idempotency_key TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount INTEGER NOT NULL,
    reference TEXT,
    PRIMARY KEY (user_id, idempotency_key)
);
CREATE TABLE IF NOT EXISTS balances (
    user_id INTEGER NOT NULL REFERENCES users(id),
    currency TEXT NOT NULL,
    balance INTEGER NOT NULL CHECK (balance >= 0),
    PRIMARY KEY (user_id, currency)
);
"""

app = Flask(__name__)


def connect():
    db = sqlite3.connect(DATABASE, isolation_level=None, timeout=30)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    return db


CONNECTIONS = threading.local()


def get_db():
    db = getattr(CONNECTIONS, "db", None)
    if db is None:
        db = CONNECTIONS.db = connect()
    return db


class Refused(Exception):
    """A request refused inside a write: its transaction is rolled back, and it is answered with the error."""

    def __init__(self, status, code, message):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@contextlib.contextmanager
def write(db):
    """BEGIN IMMEDIATE (the write lock up front, so that two writers never deadlock on an
    upgrade), COMMIT at the end, ROLLBACK when the body raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def migrate():
    db = connect()
    try:
        db.executescript(SCHEMA)
    finally:
        db.close()


def error(status, code, message):
    return jsonify(error={"code": code, "message": message}), status


@app.errorhandler(Refused)
def refused(failure):
    return error(failure.status, failure.code, failure.message)


def authenticate():
    """The caller's user row, from its bearer token; refused with 401 without a known one."""
    header = request.headers.get("Authorization", "")
    user = None
    if header.startswith("Bearer "):
        digest = hashlib.sha256(header[len("Bearer ") :].encode()).hexdigest()
        user = get_db().execute("SELECT id, app_account_token FROM users WHERE token_hash = ?", (digest,)).fetchone()
    if user is None:
        raise Refused(401, "unauthorized", "a bearer token is required")
    return user


def balances(db, user_id):
    rows = db.execute("SELECT currency, balance FROM balances WHERE user_id = ? ORDER BY currency", (user_id,))
    return [{"currency": row["currency"], "amount": row["balance"]} for row in rows]


@app.get("/healthz")
def health():
    get_db().execute("SELECT 1").fetchone()
    return jsonify(status="ok")


@app.post("/v1/users")
def create_user():
    token = secrets.token_urlsafe(32)
    account = str(uuid.uuid4())
    db = get_db()
    cursor = db.execute(
        "INSERT INTO users (token_hash, app_account_token) VALUES (?, ?)", (hashlib.sha256(token.encode()).hexdigest(), account)
    )
    body = {"user_id": str(cursor.lastrowid), "app_account_token": account, "user_token": token, "created": True, "granted": []}
    return jsonify(body), 201


@app.post("/v1/me/purchases")
def purchase():
    user = authenticate()
    body = request.get_json(silent=True)
    signed = body.get("signed_transaction") if isinstance(body, dict) else None
    if not isinstance(signed, str):
        return error(400, "invalid_request", "signed_transaction is required")
    try:
        transaction = VERIFIER.verify_and_decode_signed_transaction(signed)
    except VerificationException as failure:
        return error(422, "verification_failed", failure.status.name)
    if (transaction.appAccountToken or "").lower() != user["app_account_token"]:
        return error(403, "account_mismatch", "the transaction belongs to another account")
    grants = GRANTS.get(transaction.productId)
    if grants is None:
        return error(422, "unknown_product", transaction.productId or "")
    quantity = max(1, transaction.quantity or 1)
    db = get_db()
    with write(db):
        owner = db.execute("SELECT user_id FROM transactions WHERE transaction_id = ?", (transaction.transactionId,)).fetchone()
        if owner is None:
            db.execute(
                "INSERT INTO transactions (transaction_id, user_id, product_id, quantity) VALUES (?, ?, ?, ?)",
                (transaction.transactionId, user["id"], transaction.productId, quantity),
            )
            for currency, amount in grants:
                db.execute(
                    "INSERT INTO balances (user_id, currency, balance) VALUES (?, ?, ?) "
                    "ON CONFLICT (user_id, currency) DO UPDATE SET balance = balance + excluded.balance",
                    (user["id"], currency, amount * quantity),
                )
        elif owner["user_id"] != user["id"]:
            raise Refused(409, "transaction_owned", "the transaction was credited to another user")
        answer = balances(db, user["id"])
    return jsonify(transaction_id=transaction.transactionId, credited=owner is None, balances=answer)


@app.post("/v1/me/spend")
def spend():
    user = authenticate()
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        return error(400, "invalid_request", "a JSON object is required")
    currency, amount, key = body.get("currency"), body.get("amount"), body.get("idempotency_key")
    reference = body.get("reference")
    if (
        currency not in CURRENCIES
        or not isinstance(amount, int)
        or isinstance(amount, bool)
        or not 0 < amount < 2**63
        or not isinstance(key, str)
        or not key
        or not (reference is None or isinstance(reference, str))
    ):
        return error(400, "invalid_request", "currency, a positive amount and idempotency_key are required")
    db = get_db()
    with write(db):
        prior = db.execute(
            "SELECT currency, amount FROM spends WHERE user_id = ? AND idempotency_key = ?", (user["id"], key)
        ).fetchone()
        if prior is None:
            changed = db.execute(
                "UPDATE balances SET balance = balance - ? WHERE user_id = ? AND currency = ? AND balance >= ?",
                (amount, user["id"], currency, amount),
            ).rowcount
            if changed == 0:
                raise Refused(409, "insufficient_balance", f"not enough {currency}")
            db.execute(
                "INSERT INTO spends (user_id, idempotency_key, currency, amount, reference) VALUES (?, ?, ?, ?, ?)",
                (user["id"], key, currency, amount, reference),
            )
        elif (prior["currency"], prior["amount"]) != (currency, amount):
            raise Refused(409, "idempotency_conflict", "the key was used for another spend")
        answer = balances(db, user["id"])
    return jsonify(balances=answer)


@app.get("/v1/me")
def me():
    user = authenticate()
    return jsonify(balances=balances(get_db(), user["id"]))


migrate()
