#!/usr/bin/env python3
"""Browser walk of the Tally web console (`tally serve`, under /console).

A real headless Chromium, driven by Selenium, uses the console as an operator would: signs in
(a wrong password first), visits every page through the navigation, filters, searches (by
user id, app account token, app user id, transaction id, order id), pages and exports
transactions, filters and exports the ledger, adjusts a user's credits and grants an
entitlement (and checks through the public API that the ledger agrees), repeats an
adjustment with its idempotency key, tries adjustments without the CSRF token or without the
console's own Origin, bad amounts, switches to Ukrainian and back, reads the audit log and its
CSV, signs out, signs in as a read-only operator who must not be able to adjust, and
signs in with the secret key. Along the way it searches an app user id with a `+` and a token
that is another user's app user id (a choice of two), refuses the amount `+-5` and exports
without the session's token, reads the Ukrainian timelines for English words, and measures
every list at 1,280 and 1,400 px (no sideways scrolling, user links on screen, short rows).
Last, with --base6, it signs in to a second server on IPv6 ([::1]), adjusts a balance through
its form and exports through its link. What the browser cannot show (status codes, headers, CSV) is
read with plain HTTP requests carrying the browser's session cookie.

Before the browser starts the walk seeds the server through its public HTTP API: 5 users
(with app user ids), 64 signed purchases from `tally appstore purchase` (three consumables in
turn and one non-consumable; the first pays an order), one more bought from `tally appstore
serve` and refunded there (so that an App Store notification and a revoked transaction
exist), and two spends.

It expects a running `tally serve --dev --trust-ca-dir CA` with the operators already added
(scripts/console_walk.sh does all of that and then runs this file):

    walk.py --base http://127.0.0.1:PORT --tally PATH --ca-dir CA --secret KEY \
            --alice PASSWORD --bob PASSWORD --out SCREENSHOT_DIR --work TEMP_DIR

alice is an admin operator, bob a read-only one. One line per step is printed ("ok ..." or
"FAIL ..."); the first failure stops the walk with exit status 1 after saving failure.png
and failure.html in the screenshot folder. Exit status 2 is a set-up error (seeding, the
browser), not a finding about the console.

Python 3 standard library and Selenium only; Chromium and chromedriver from Debian
(/usr/bin/chromium, /usr/bin/chromedriver).
"""

import argparse
import concurrent.futures
import csv
import datetime
import http.client
import io
import json
import os
import re
import socket
import subprocess
import sys
import time
import traceback
import urllib.parse
import uuid

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

# The consumables that make up most of the seeded purchases (Examples/tally.json), in turn.
SEEDED_PRODUCTS = ["com.tally.photo.credits.10", "com.tally.photo.credits.50", "com.tally.zorya.report.personality"]
NON_CONSUMABLE = "com.tally.zorya.lifetime"
FILTER_PRODUCT = "com.tally.photo.credits.50"  # the product the walk filters and exports by
USERS = 5
CONSUMABLE_PURCHASES = 63  # + 1 non-consumable + 1 bought and refunded in the simulated store = 65
PAGE_SIZE = 20
ADJUSTMENT = 7
GRANT_REASON = '=HYPERLINK("https://evil.example","<b>support</b>")'

# The tallest a row of the transactions or ledger list may be from 1,280 px up: two lines of text.
ROW_HEIGHT_BOUND = 64

NAV_PAGES = ["overview", "metrics", "transactions", "ledger", "products", "notifications", "audit"]
CYRILLIC = re.compile("[\u0400-\u04FF]")


class WalkFailure(Exception):
    """Something a person using the console would notice is wrong: a finding."""


class SetupError(Exception):
    """The walk could not be set up (seeding, browser): not a finding about the console."""


def check(condition, message):
    if not condition:
        raise WalkFailure(message)


def parse_int(text):
    """The first integer in a cell's text: '1,234', '1 234' (Ukrainian), '−7', '+7 credits'."""
    cleaned = text.replace("\u2212", "-").replace("\u00a0", "").replace("\u202f", "").replace(",", "").replace(" ", "")
    match = re.search(r"[-+]?\d+", cleaned)
    if not match:
        raise WalkFailure(f"no number in {text!r}")
    return int(match.group(0))


# --------------------------------------------------------------------------------------------
# Plain HTTP (the API, and what the browser cannot show: status codes, headers, CSV)


class Answer:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers  # [(name, value)], names as sent
        self.body = body

    def header(self, name):
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    @property
    def text(self):
        return self.body.decode("utf-8", errors="replace")

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            raise WalkFailure(f"expected JSON, got {self.status}: {self.text[:300]!r}")


def http_request(url, method="GET", body=None, headers=None, timeout=30):
    """One request on a fresh connection; redirects are not followed (they are checked)."""
    parsed = urllib.parse.urlsplit(url)
    path = parsed.path or "/"
    if parsed.query:
        path += "?" + parsed.query
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=dict(headers or {}))
        response = connection.getresponse()
        return Answer(response.status, response.getheaders(), response.read())
    finally:
        connection.close()


def has_error_alert(html):
    """<p class="error" role="alert"> (attributes in any order)."""
    for tag in re.findall(r"<p\b[^>]*>", html):
        if re.search(r"""class\s*=\s*["'][^"']*\berror\b""", tag) and re.search(r"""role\s*=\s*["']alert["']""", tag):
            return True
    return False


# --------------------------------------------------------------------------------------------
# Seeding through the public API


class User:
    def __init__(self, index, app_user_id, body):
        self.index = index
        self.app_user_id = app_user_id
        self.user_id = body["user_id"]
        self.account_token = body["app_account_token"]
        self.token = body["user_token"]


class Purchase:
    def __init__(self, user, product_id, transaction_id):
        self.user = user
        self.product_id = product_id
        self.transaction_id = transaction_id
        self.order_id = None  # the order it paid, if any


class Seed:
    """Users, purchases, a refunded purchase with its notification, spends."""

    def __init__(self, options):
        self.options = options
        self.base = options.base
        self.users = []
        self.purchases = []
        self.refunded = None  # the Purchase refunded through the simulated App Store
        self.named = {}  # plus, space, token_named: users with app user ids a search must read exactly

    def api(self, method, path, token=None, body=None, expect=(200, 201), base=None):
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        answer = http_request((base or self.base) + path, method, payload, headers)
        if expect and answer.status not in expect:
            raise SetupError(f"{method} {path} answered {answer.status}: {answer.text[:300]}")
        return answer.json()

    def run(self):
        began = time.monotonic()
        for index in range(USERS):
            app_user_id = f"walk-user-{index}-{uuid.uuid4().hex[:8]}"
            body = self.api("POST", "/v1/users", self.options.secret, {"app_user_id": app_user_id})
            self.users.append(User(index, app_user_id, body))

        # App user ids a search must read exactly: one with a '+' (and its twin with a space), and one
        # that is another user's app account token (a search for that token names two users).
        mark = uuid.uuid4().hex[:8]
        for key, app_user_id in (("plus", f"jo+{mark}@example.com"), ("space", f"jo {mark}@example.com"),
                                 ("token_named", self.users[4].account_token)):
            body = self.api("POST", "/v1/users", self.options.secret, {"app_user_id": app_user_id})
            self.named[key] = User(len(self.users) + len(self.named), app_user_id, body)

        plan = [(self.users[i % USERS], SEEDED_PRODUCTS[i % len(SEEDED_PRODUCTS)]) for i in range(CONSUMABLE_PURCHASES)]
        plan.append((self.users[1], NON_CONSUMABLE))
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            self.purchases = list(pool.map(lambda item: self.buy(*item), plan[1:]))
        # One purchase pays an order, so that the console can be searched by order id.
        self.purchases.insert(0, self.buy(*plan[0], with_order=True))

        self.buy_and_refund(self.users[2], "com.tally.photo.credits.10")

        for user, amount in ((self.users[0], 3), (self.users[1], 5)):
            self.api("POST", "/v1/me/spend", user.token,
                     {"currency": "credits", "amount": amount, "idempotency_key": "walk-spend-" + uuid.uuid4().hex,
                      "reference": "console walk"})
        print(f"seeded {len(self.users)} users, {len(self.purchases)} purchases (1 refunded), 2 spends "
              f"in {time.monotonic() - began:.1f} s", flush=True)

    def buy(self, user, product_id, with_order=False):
        """A signed transaction from `tally appstore purchase`, posted as the user's purchase (paying an order)."""
        account_token, body = user.account_token, {}
        if with_order:
            order = self.api("POST", "/v1/me/orders", user.token, {"product_id": product_id}, expect=(201,))
            account_token, body = order["app_account_token"], {"order_id": order["order_id"]}
        argv = [self.options.tally, "appstore", "purchase", "--ca-dir", self.options.ca_dir, "--product", product_id,
                "--account-token", account_token]
        result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise SetupError(f"{' '.join(argv)} failed ({result.returncode}): {result.stderr.strip()}")
        body["signed_transaction"] = result.stdout.strip()
        answer = self.api("POST", "/v1/me/purchases", user.token, body, expect=(200,))
        if answer.get("replayed"):
            raise SetupError(f"a new purchase of {product_id} was answered as a replay: {answer}")
        purchase = Purchase(user, product_id, answer["transaction_id"])
        purchase.order_id = body.get("order_id")
        return purchase

    def buy_and_refund(self, user, product_id):
        """One purchase from `tally appstore serve`, refunded there: its REFUND notification reaches the server."""
        port = free_port()
        log_path = os.path.join(self.options.work, "appstore.log")
        argv = [self.options.tally, "appstore", "serve", "--ca-dir", self.options.ca_dir,
                "--state", os.path.join(self.options.work, "store-state.json"), "--host", "127.0.0.1",
                "--port", str(port), "--notify", self.base + "/v1/notifications/appstore"]
        with open(log_path, "wb") as log:
            store = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while b"listening" not in open(log_path, "rb").read():
                if store.poll() is not None or time.monotonic() > deadline:
                    raise SetupError(f"tally appstore serve did not start:\n{open(log_path).read()[-2000:]}")
                time.sleep(0.05)
            store_url = f"http://127.0.0.1:{port}"
            answer = http_request(store_url + "/control/purchases", "POST", json.dumps(
                {"product_id": product_id, "app_account_token": user.account_token, "outcome": "success"}).encode(),
                {"Content-Type": "application/json"})
            if answer.status != 200:
                raise SetupError(f"the simulated App Store's purchase answered {answer.status}: {answer.text[:300]}")
            bought = answer.json()
            posted = self.api("POST", "/v1/me/purchases", user.token, {"signed_transaction": bought["signed_transaction"]},
                              expect=(200,))
            purchase = Purchase(user, product_id, posted["transaction_id"])
            self.purchases.append(purchase)
            answer = http_request(f"{store_url}/control/transactions/{purchase.transaction_id}/refund", "POST")
            if answer.status != 200:
                raise SetupError(f"the simulated App Store's refund answered {answer.status}: {answer.text[:300]}")
            # The store posts the notification itself; wait until the server shows the revocation.
            deadline = time.monotonic() + 30
            while True:
                page = self.api("GET", "/v1/admin/transactions?status=revoked", self.options.secret)
                items = next((value for value in page.values() if isinstance(value, list)), [])
                if any(purchase.transaction_id in json.dumps(item) for item in items):
                    break
                if time.monotonic() > deadline:
                    raise SetupError(f"the refund of {purchase.transaction_id} did not reach the server within 30 s")
                time.sleep(0.2)
            self.refunded = purchase
        finally:
            store.terminate()
            try:
                store.wait(timeout=10)
            except subprocess.TimeoutExpired:
                store.kill()
                store.wait()

    def credits(self, user):
        """The user's credits `available`, as the API (GET /v1/me) says."""
        account = self.api("GET", "/v1/me", user.token, expect=(200,))
        for balance in account["balances"]:
            if balance["currency"] == "credits":
                return balance["available"]
        return 0


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --------------------------------------------------------------------------------------------
# The walk


class Walk:
    def __init__(self, options, seed):
        self.options = options
        self.base = options.base
        self.origin = options.base.rstrip("/")
        self.seed = seed
        self.out = options.out
        self.shots = 0
        self.driver = None
        self.notes = []  # things worth a look that are no failure
        self.user = seed.users[0]  # the user whose credits are adjusted
        self.adjust_url = None
        self.credits_after = None

    # --- the browser -------------------------------------------------------------------------

    def start_browser(self):
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                         "--disable-dev-shm-usage", "--lang=en-US"):
            options.add_argument(argument)
        try:
            self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        except WebDriverException as error:
            raise SetupError(f"Chromium did not start through {CHROMEDRIVER}: {error.msg}")
        self.driver.set_page_load_timeout(20)

    def url(self, path):
        return self.base + path

    def path(self):
        return urllib.parse.urlsplit(self.driver.current_url).path

    def query(self):
        return urllib.parse.parse_qs(urllib.parse.urlsplit(self.driver.current_url).query)

    def find(self, css, within=None):
        try:
            return (within or self.driver).find_element(By.CSS_SELECTOR, css)
        except NoSuchElementException:
            raise WalkFailure(f"no {css} on {self.driver.current_url}")

    def find_all(self, css, within=None):
        return (within or self.driver).find_elements(By.CSS_SELECTOR, css)

    def exists(self, css):
        return bool(self.driver.find_elements(By.CSS_SELECTOR, css))

    def text_of(self, css):
        """The text of the first element matching css, or '' (for messages: never raises)."""
        elements = self.driver.find_elements(By.CSS_SELECTOR, css)
        return elements[0].text.strip() if elements else ""

    def open(self, path):
        self.driver.get(self.url(path))

    def page(self, name, timeout=10):
        """The page now shown must be `<main id="page-NAME">`."""
        try:
            return WebDriverWait(self.driver, timeout).until(
                lambda driver: driver.find_element(By.CSS_SELECTOR, f"main#page-{name}"))
        except TimeoutException:
            mains = [element.get_attribute("id") for element in self.find_all("main")]
            raise WalkFailure(f"expected main#page-{name} at {self.driver.current_url}; the page has "
                              f"{'main#' + ', main#'.join(mains) if mains else 'no <main>'} "
                              f"(title {self.driver.title!r})"
                              + (f", saying {self.text_of('p.error')!r}" if self.text_of("p.error") else ""))

    def click_and_load(self, element, what):
        """Click something that loads a new document, and wait for it."""
        # A mark on the old document's window: gone once another document has loaded. (Waiting for the old
        # <html> to go stale races with chromedriver, which then reports a node of no document.)
        self.driver.execute_script("window.__walkOldDocument = true")
        element.click()

        def loaded(driver):
            try:
                return driver.execute_script(
                    "return window.__walkOldDocument !== true && document.readyState === 'complete'")
            except WebDriverException:  # between documents
                return False

        try:
            WebDriverWait(self.driver, 15).until(loaded)
        except TimeoutException:
            raise WalkFailure(f"{what} loaded no new page within 15 s (still {self.driver.current_url})")

    def submit(self, form_css, button_css=None, what=None):
        """Submit a form as a person does: with its submit button."""
        form = self.find(form_css)
        button = None
        if button_css:
            button = self.find(button_css)
        else:
            buttons = self.find_all("button[type=submit], input[type=submit], button:not([type])", form)
            button = buttons[0] if buttons else None
        if button is None:
            raise WalkFailure(f"{form_css} has no submit button on {self.driver.current_url}")
        self.click_and_load(button, what or f"submitting {form_css}")

    def fill(self, form, name, value):
        """Set a form field by name: a select by option value, a date by its value, else by typing."""
        try:
            field = form.find_element(By.CSS_SELECTOR, f"[name='{name}']")
        except NoSuchElementException:
            raise WalkFailure(f"form#{form.get_attribute('id')} has no field named {name} on {self.driver.current_url}")
        if field.tag_name == "select":
            try:
                Select(field).select_by_value(value)
            except NoSuchElementException:
                options = [option.get_attribute("value") for option in Select(field).options]
                raise WalkFailure(f"the {name} select has no option {value!r} (it has {options})")
        elif field.get_attribute("type") in ("date", "datetime-local", "month"):
            # Typing into a date control depends on the browser's locale; a picker sets the value.
            self.driver.execute_script(
                "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change'))", field, value)
        else:
            field.clear()
            field.send_keys(value)
        return field

    def screenshot(self, name):
        """NN-name.png of the whole page (the window grows to the page's height for the shot)."""
        self.shots += 1
        path = os.path.join(self.out, f"{self.shots:02d}-{name}.png")
        height = self.driver.execute_script(
            "return Math.max(document.body ? document.body.scrollHeight : 0, document.documentElement.scrollHeight)")
        self.driver.set_window_size(1280, max(900, min(int(height or 900) + 120, 6000)))
        self.driver.save_screenshot(path)
        self.driver.set_window_size(1280, 900)
        return path

    def save_failure(self):
        if self.driver is None:
            return
        try:
            self.driver.save_screenshot(os.path.join(self.out, "failure.png"))
            with open(os.path.join(self.out, "failure.html"), "w", encoding="utf-8") as file:
                file.write(f"<!-- {self.driver.current_url} -->\n" + self.driver.page_source)
        except WebDriverException as error:
            print(f"  (could not save the failure page: {error.msg})", flush=True)

    # --- the browser's session, for plain HTTP --------------------------------------------------

    def cookie_header(self):
        return "; ".join(f"{cookie['name']}={cookie['value']}" for cookie in self.driver.get_cookies())

    def fetch(self, url, method="GET", body=None, headers=None, cookies=None):
        """A request with the browser's cookies (or the given Cookie header)."""
        all_headers = {"Cookie": cookies if cookies is not None else self.cookie_header()}
        all_headers.update(headers or {})
        if isinstance(body, dict):
            body = urllib.parse.urlencode(body).encode()
            all_headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        return http_request(urllib.parse.urljoin(self.base + "/", url), method, body, all_headers)

    def check_headers(self, path):
        """The security headers every console page carries (the browser cannot show them)."""
        answer = self.fetch(path)
        check(answer.status == 200, f"GET {path} with the session answered {answer.status}, not 200")
        policy = answer.header("Content-Security-Policy") or ""
        check("default-src 'self'" in policy,
              f"GET {path}: Content-Security-Policy {policy!r} lacks default-src 'self'")
        return answer

    # --- what the console shows ----------------------------------------------------------------

    def rows(self):
        table = self.find("table#rows")
        return self.find_all("tr.row", table)

    def transaction_ids(self):
        ids = []
        for row in self.rows():
            cells = self.find_all(".transaction-id", row)
            check(len(cells) == 1, f"a transaction row without exactly one .transaction-id: {row.text!r}")
            ids.append(cells[0].text.strip())
        return ids

    def credits_shown(self):
        """The credits `available` in the user page's balances table (0 when no credits row)."""
        table = self.find("table#balances")
        rows = self.find_all("tr.balance[data-currency='credits']", table)
        check(len(rows) <= 1, "more than one credits row in table#balances")
        if not rows:
            return 0
        return parse_int(self.find("td.available", rows[0]).text)

    def open_user(self, user):
        self.open(f"/console/users/{urllib.parse.quote(user.user_id)}")
        self.page("user")

    def sign_in(self, operator, password):
        self.open("/console/login")
        self.page("login")
        form = self.find("form#sign-in")
        check(form.get_attribute("method").lower() == "post", "form#sign-in is not method=post")
        check(urllib.parse.urlsplit(form.get_attribute("action")).path == "/console/login",
              f"form#sign-in posts to {form.get_attribute('action')}, not /console/login")
        self.fill(form, "operator", operator)
        self.fill(form, "password", password)
        self.submit("form#sign-in", "#sign-in-submit", "signing in")

    def sign_out(self):
        self.submit("form#sign-out", "#sign-out-submit", "signing out")

    def csrf_value(self):
        fields = self.find_all("input[name='csrf']")
        check(fields, f"no hidden csrf field on {self.driver.current_url}")
        return fields[0].get_attribute("value")

    def api_credits(self):
        return self.seed.credits(self.user)

    # --- the steps -------------------------------------------------------------------------------

    def step_sign_in(self):
        """1. A wrong password is refused on the login page; alice signs in to the overview."""
        answer = http_request(self.url("/console/login"))
        check(answer.status == 200, f"GET /console/login answered {answer.status}, not 200")
        policy = answer.header("Content-Security-Policy") or ""
        check("default-src 'self'" in policy, f"GET /console/login: Content-Security-Policy {policy!r} lacks default-src 'self'")

        self.sign_in("alice", self.options.alice + "-wrong")
        self.page("login")
        check(self.path() == "/console/login", f"a wrong password left the login page for {self.driver.current_url}")
        alert = self.find("p.error[role='alert']")
        check(alert.text.strip(), "the sign-in error is empty")
        self.screenshot("login-refused")
        before = {cookie["name"]: cookie["value"] for cookie in self.driver.get_cookies()}

        self.sign_in("alice", self.options.alice)
        main = self.page("overview")
        check(self.path() in ("/console", "/console/"), f"sign-in led to {self.driver.current_url}, not /console")
        check(self.find_all("svg", main), "the overview has no chart (no <svg> inside main)")
        count = self.overview_purchases(main)
        check(count > 0, f"the overview shows {count} purchases")

        # The session cookie: whatever sign-in set or changed must be HttpOnly and SameSite=Strict.
        session = [cookie for cookie in self.driver.get_cookies() if before.get(cookie["name"]) != cookie["value"]]
        check(session, "signing in set no cookie")
        for cookie in session:
            check(cookie.get("httpOnly"), f"the session cookie {cookie['name']} is not HttpOnly")
            check(str(cookie.get("sameSite")).lower() == "strict",
                  f"the session cookie {cookie['name']} has SameSite={cookie.get('sameSite')}, not Strict")
        return f"wrong password refused; alice sees the overview with a chart and {count} purchases"

    def overview_purchases(self, main):
        """The purchase count on the overview: an element marked as such, else the number beside 'Purchases'."""
        for css in ("#purchases", "[data-metric='purchases']", ".purchases", "#purchase-count", ".purchase-count"):
            elements = self.find_all(css, main)
            if elements:
                return parse_int(elements[0].text)
        text = main.text
        match = re.search(r"(?i)purchases?\s*[:\n ]\s*([\d,\u00a0\u202f ]+)", text) or \
            re.search(r"(?i)([\d,\u00a0\u202f]+)\s+purchases?", text)
        check(match, f"no purchase count on the overview (its text: {text[:400]!r})")
        return parse_int(match.group(1))

    def step_navigation(self):
        """2. Every page through the nav, each with its security headers; a user page and a notification page."""
        visited = []
        for name in NAV_PAGES:
            link = self.find(f"nav#nav a#nav-{name}")
            self.click_and_load(link, f"the nav link to {name}")
            self.page(name)
            self.check_common_chrome()
            self.check_headers(self.driver.current_url)
            self.screenshot(name)
            visited.append(name)

        # A user page, from the first transaction's user link.
        self.find("nav#nav a#nav-transactions").click()
        self.page("transactions")
        links = self.find_all("table#rows tr.row a.user-link")
        check(links, "no a.user-link in the transactions list")
        self.click_and_load(links[0], "a user link")
        self.page("user")
        self.check_headers(self.driver.current_url)
        self.screenshot("user")
        visited.append("user")

        # The refunded purchase's notification.
        self.find("nav#nav a#nav-notifications").click()
        self.page("notifications")
        rows = self.rows()
        check(rows, "the notifications list is empty, but the seeded refund was notified")
        if self.exists("a#export"):  # not in the first contract; checked where the page has it
            href = self.find("a#export").get_attribute("href")
            answer = self.fetch(href)
            check(answer.status == 200 and "REFUND" in answer.text,
                  f"the notifications' export {href} answered {answer.status} without the REFUND: {answer.text[:300]!r}")
            visited.append("notifications.csv")
            self.open("/console/notifications")
            self.page("notifications")
            rows = self.rows()
        links = self.find_all("a", rows[0])
        check(links, f"the first notification row has no link: {rows[0].text!r}")
        self.click_and_load(links[0], "a notification link")
        self.page("notification")
        self.check_headers(self.driver.current_url)
        self.screenshot("notification")
        visited.append("notification")
        return "visited " + ", ".join(visited)

    def check_common_chrome(self):
        """Search form, language links and sign-out form on every signed-in page."""
        search = self.find("form#search")
        check(search.get_attribute("method").lower() == "get", "form#search is not method=get")
        check(urllib.parse.urlsplit(search.get_attribute("action")).path == "/console/search",
              f"form#search goes to {search.get_attribute('action')}")
        self.find("input[name='q']", search)
        self.find("a#lang-en")
        self.find("a#lang-uk")
        sign_out = self.find("form#sign-out")
        check(sign_out.get_attribute("method").lower() == "post", "form#sign-out is not method=post")
        check(urllib.parse.urlsplit(sign_out.get_attribute("action")).path == "/console/logout",
              f"form#sign-out posts to {sign_out.get_attribute('action')}")
        self.find("#sign-out-submit", sign_out)
        for name in NAV_PAGES:
            self.find(f"nav#nav a#nav-{name}")

    def filter_transactions(self, **fields):
        """The transactions page, with the filter form filled in and submitted."""
        self.open("/console/transactions")
        self.page("transactions")
        form = self.find("form#filters")
        check((form.get_attribute("method") or "get").lower() == "get", "form#filters is not method=get")
        for name, value in fields.items():
            self.fill(form, name, value)
        self.submit("form#filters", what="the filter form")
        self.page("transactions")

    def all_pages(self, start_path, limit=None, page="transactions", read=None):
        """Every row (a transaction id, or what `read` gives) from start_path on, following a#next; and the page count."""
        read = read or self.transaction_ids
        self.open(start_path)
        self.page(page)
        ids, pages = [], 0
        while True:
            pages += 1
            page_ids = read()
            if limit:
                check(len(page_ids) <= limit, f"page {pages} has {len(page_ids)} rows with limit={limit}")
            ids.extend(page_ids)
            following = self.find_all("a#next")
            if not following:
                break
            check(following[0].get_attribute("rel") == "next", "a#next has no rel=next")
            check(pages < 50, "more than 50 pages: a#next never ends")
            check(page_ids, f"page {pages} is empty but has a#next")
            self.click_and_load(following[0], "the next page link")
            self.page(page)
            if limit:
                check(self.query().get("limit") == [str(limit)],
                      f"the next page link lost limit={limit}: {self.driver.current_url}")
        return ids, pages

    def step_transactions(self):
        """3. Filter by product, search by id, the other filters, paging with limit=20."""
        seeded = {purchase.transaction_id for purchase in self.seed.purchases}
        by_product = {p.transaction_id for p in self.seed.purchases if p.product_id == FILTER_PRODUCT}

        # Filter by product through the form: every row is of that product, none missing.
        self.filter_transactions(product=FILTER_PRODUCT)
        check(self.query().get("product") == [FILTER_PRODUCT], f"the filter form led to {self.driver.current_url}")
        rows = self.rows()
        check(rows, f"no rows for product {FILTER_PRODUCT}")
        for row in rows:
            cells = self.find_all("td.product", row)
            shown = cells[0].text if cells else row.text
            check(FILTER_PRODUCT in shown, f"a row of the {FILTER_PRODUCT} filter shows another product: {row.text!r}")
        ids, _ = self.all_pages(self.driver.current_url.replace(self.base, ""))
        check(set(ids) == by_product and len(ids) == len(by_product),
              f"the {FILTER_PRODUCT} filter shows {len(ids)} rows ({len(set(ids))} distinct), "
              f"{len(by_product)} were bought; missing {sorted(by_product - set(ids))[:5]}, "
              f"extra {sorted(set(ids) - by_product)[:5]}")
        self.screenshot("transactions-product")

        # Search by a known transaction id: exactly that one row.
        known = self.seed.purchases[10]
        self.filter_transactions(q=known.transaction_id)
        ids = self.transaction_ids()
        check(ids == [known.transaction_id], f"searching {known.transaction_id} shows {ids}")
        row = self.rows()[0]
        user_link = self.find("a.user-link", row)
        check(known.user.user_id in urllib.parse.unquote(user_link.get_attribute("href")),
              f"the row's user link {user_link.get_attribute('href')} is not its user {known.user.user_id}")

        # The other filters, through the same form.
        checks = [
            ({"status": "revoked"}, {self.seed.refunded.transaction_id}),
            ({"status": "refunded"}, {self.seed.refunded.transaction_id}),
            ({"status": "granted"}, seeded - {self.seed.refunded.transaction_id}),
            ({"kind": "non_consumable"}, {p.transaction_id for p in self.seed.purchases if p.product_id == NON_CONSUMABLE}),
            ({"user": self.user.user_id}, {p.transaction_id for p in self.seed.purchases if p.user is self.user}),
        ]
        today = datetime.datetime.now(datetime.timezone.utc).date()
        checks.append(({"from": (today + datetime.timedelta(days=1)).isoformat()}, set()))
        checks.append(({"from": (today - datetime.timedelta(days=1)).isoformat(), "to": (today + datetime.timedelta(days=1)).isoformat()}, seeded))
        for fields, expected in checks:
            self.filter_transactions(**fields)
            ids, _ = self.all_pages(self.driver.current_url.replace(self.base, ""))
            check(set(ids) == expected and len(ids) == len(expected),
                  f"the filter {fields} shows {len(ids)} rows, expected {len(expected)}; "
                  f"missing {sorted(expected - set(ids))[:5]}, extra {sorted(set(ids) - expected)[:5]}")

        # Paging with limit=20 to the end: every seeded purchase once.
        ids, pages = self.all_pages(f"/console/transactions?limit={PAGE_SIZE}", PAGE_SIZE)
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        check(not duplicates, f"paging shows these transactions twice: {duplicates[:5]}")
        check(set(ids) == seeded, f"paging shows {len(ids)} transactions, {len(seeded)} were bought; "
                                  f"missing {sorted(seeded - set(ids))[:5]}, extra {sorted(set(ids) - seeded)[:5]}")
        expected_pages = -(-len(seeded) // PAGE_SIZE)
        check(pages == expected_pages, f"{len(seeded)} transactions took {pages} pages of {PAGE_SIZE}, not {expected_pages}")

        # The page size's bounds: 1 and 200 are taken; outside them the console must not fail.
        self.open("/console/transactions?limit=1")
        self.page("transactions")
        check(len(self.rows()) == 1 and self.exists("a#next"), f"limit=1 shows {len(self.rows())} rows")
        self.open("/console/transactions?limit=200")
        self.page("transactions")
        check(len(self.rows()) == len(seeded) and not self.exists("a#next"),
              f"limit=200 shows {len(self.rows())} rows of {len(seeded)}{' and a next page' if self.exists('a#next') else ''}")
        outside = []
        for limit in ("0", "201", "abc"):
            answer = self.fetch(f"/console/transactions?limit={limit}")
            check(answer.status < 500, f"limit={limit} answered {answer.status}")
            outside.append(f"{limit}: {answer.status}")
        return (f"product filter ({len(by_product)} rows), search by transaction id, status/kind/user/date filters; "
                f"{pages} pages of {PAGE_SIZE} with all {len(seeded)} transactions once; "
                f"the refunded one under status revoked and refunded; limit 1 and 200 work, "
                f"limit {', '.join(outside)}")

    def step_search(self):
        """3b. The search box: a user id, app account token or app user id opens the user; a transaction id the list."""
        user = self.seed.users[3]
        for label, value in (("user id", user.user_id), ("app account token", user.account_token),
                             ("app user id", user.app_user_id)):
            self.open("/console")
            self.page("overview")
            form = self.find("form#search")
            self.fill(form, "q", value)
            self.submit("form#search", what="the search form")
            self.page("user")
            check(urllib.parse.unquote(self.path()) == f"/console/users/{user.user_id}",
                  f"searching the {label} led to {self.driver.current_url}, not /console/users/{user.user_id}")
        known = self.seed.purchases[20]
        self.open("/console")
        self.fill(self.find("form#search"), "q", known.transaction_id)
        self.submit("form#search", what="the search form")
        self.page("transactions")
        check(self.query().get("q") == [known.transaction_id], f"searching a transaction id led to {self.driver.current_url}")
        ids = self.transaction_ids()
        check(ids == [known.transaction_id], f"searching transaction {known.transaction_id} lists {ids}")
        ordered = self.seed.purchases[0]
        self.open("/console")
        self.fill(self.find("form#search"), "q", ordered.order_id)
        self.submit("form#search", what="the search form")
        self.page("transactions")
        ids = self.transaction_ids()
        check(ids == [ordered.transaction_id], f"searching order {ordered.order_id} lists {ids}, not {ordered.transaction_id}")
        # An app user id with a '+': the browser sends %2B, and the search opens that user, not its
        # twin whose app user id has a space there.
        plus, space = self.seed.named["plus"], self.seed.named["space"]
        for user in (plus, space):
            self.open("/console")
            self.fill(self.find("form#search"), "q", user.app_user_id)
            self.submit("form#search", what="the search form")
            self.page("user")
            check(urllib.parse.unquote(self.path()) == f"/console/users/{user.user_id}",
                  f"searching {user.app_user_id!r} led to {self.driver.current_url}, not /console/users/{user.user_id}")
        # A '+' in a filter stays a '+' in the form it fills again.
        self.filter_transactions(q="no+such+id")
        shown = self.find("form#filters input[name='q']").get_attribute("value")
        check(shown == "no+such+id", f"the filter q='no+such+id' comes back as {shown!r}")
        # A token that is also another user's app user id: a choice, the token's owner first.
        owner, named = self.seed.users[4], self.seed.named["token_named"]
        self.open("/console")
        self.fill(self.find("form#search"), "q", owner.account_token)
        self.submit("form#search", what="the search form")
        self.page("search")
        choices = [urllib.parse.unquote(urllib.parse.urlsplit(link.get_attribute("href")).path)
                   for link in self.find_all("table#matches a.user-link")]
        check(choices == [f"/console/users/{owner.user_id}", f"/console/users/{named.user_id}"],
              f"searching the token {owner.account_token} offers {choices}, not its owner then the user named like it")
        fields = [cell.text.strip() for cell in self.find_all("table#matches td.field")]
        self.screenshot("search-choice")
        self.click_and_load(self.find("table#matches a.user-link"), "the first choice")
        self.page("user")
        check(urllib.parse.unquote(self.path()) == f"/console/users/{owner.user_id}", f"the first choice led to {self.driver.current_url}")
        return ("user id, app account token and app user id open the user; a transaction id and an order id "
                f"list that one transaction; {plus.app_user_id!r} opens its user, not {space.app_user_id!r}'s; "
                f"a token that is another's app user id offers both ({', '.join(fields)})")

    def ledger_amounts(self):
        return [parse_int(self.find("td.amount", row).text) for row in self.rows()]

    def filter_ledger(self, **fields):
        """The ledger page, with the filter form filled in and submitted."""
        self.open("/console/ledger")
        self.page("ledger")
        form = self.find("form#filters")
        for name, value in fields.items():
            self.fill(form, name, value)
        self.submit("form#filters", what="the ledger's filter form")
        self.page("ledger")

    def step_ledger(self):
        """3c. Ledger filters (kind, currency, user) and its CSV export."""
        self.filter_ledger(kind="spend")
        spends, _ = self.all_pages(self.driver.current_url.replace(self.base, ""), page="ledger", read=self.ledger_amounts)
        check(sorted(spends) == [-5, -3], f"the ledger's spends are {spends}, not -3 and -5")
        self.filter_ledger(kind="refund", currency="credits")
        refunds, _ = self.all_pages(self.driver.current_url.replace(self.base, ""), page="ledger", read=self.ledger_amounts)
        check(refunds == [-10], f"the ledger's credit refunds are {refunds}, not the one -10")
        personality = sum(1 for p in self.seed.purchases if p.product_id == "com.tally.zorya.report.personality")
        self.filter_ledger(currency="report.personality")
        amounts, _ = self.all_pages(self.driver.current_url.replace(self.base, ""), page="ledger", read=self.ledger_amounts)
        check(amounts == [1] * personality, f"report.personality in the ledger: {amounts}, expected {personality} times +1")
        user = self.seed.users[4]
        self.filter_ledger(user=user.user_id, currency="credits")
        amounts, _ = self.all_pages(self.driver.current_url.replace(self.base, ""), page="ledger", read=self.ledger_amounts)
        check(sum(amounts) == self.seed.credits(user), f"the ledger of {user.user_id} sums to {sum(amounts)} credits, "
                                                        f"GET /v1/me says {self.seed.credits(user)}")
        # The export of the spends.
        self.filter_ledger(kind="spend")
        href = self.find("a#export").get_attribute("href")
        parsed = urllib.parse.urlsplit(href)
        check(parsed.path == "/console/ledger.csv", f"the ledger's a#export points to {href}")
        check(urllib.parse.parse_qs(parsed.query).get("kind") == ["spend"], f"the ledger's a#export {href} lost kind=spend")
        answer = self.fetch(href)
        check(answer.status == 200 and "text/csv" in (answer.header("Content-Type") or ""),
              f"GET {href} answered {answer.status} {answer.header('Content-Type')}")
        lines = [line for line in csv.reader(io.StringIO(answer.body.decode("utf-8-sig"))) if line]
        check(len(lines) == 3, f"the spends' CSV has {len(lines) - 1} lines, not 2: {lines}")
        column = next((i for i, name in enumerate(lines[0]) if name.strip().lower() == "amount"), None)
        check(column is not None, f"no amount column in the ledger CSV header {lines[0]}")
        check(sorted(parse_int(line[column]) for line in lines[1:]) == [-5, -3], f"the spends' CSV: {lines}")
        return "kind=spend (-3, -5), refund, currency and user filters agree with the API; the CSV has the 2 spends"

    def step_export(self):
        """4. The CSV export of the product filter: a header and one line per transaction of the filter."""
        by_product = {p.transaction_id for p in self.seed.purchases if p.product_id == FILTER_PRODUCT}
        self.filter_transactions(product=FILTER_PRODUCT)
        shown, _ = self.all_pages(self.driver.current_url.replace(self.base, ""))
        self.filter_transactions(product=FILTER_PRODUCT)
        href = self.find("a#export").get_attribute("href")
        parsed = urllib.parse.urlsplit(href)
        check(parsed.path == "/console/transactions.csv", f"a#export points to {href}, not /console/transactions.csv")
        check(urllib.parse.parse_qs(parsed.query).get("product") == [FILTER_PRODUCT],
              f"a#export {href} does not carry the product filter")
        answer = self.fetch(href)
        check(answer.status == 200, f"GET {href} answered {answer.status}")
        check("text/csv" in (answer.header("Content-Type") or ""), f"the export's Content-Type is {answer.header('Content-Type')}")
        lines = list(csv.reader(io.StringIO(answer.body.decode("utf-8-sig"))))
        lines = [line for line in lines if line]
        check(len(lines) >= 1, "the CSV is empty")
        header, records = lines[0], lines[1:]
        check(not any(value in by_product for value in header), f"the CSV's first line is a transaction, not a header: {header}")
        column = self.csv_column(header, records, by_product)
        ids = [record[column] for record in records]
        check(len(records) == len(shown), f"the CSV has {len(records)} lines for the {len(shown)} rows of the filter")
        check(sorted(ids) == sorted(by_product), f"the CSV's transaction ids differ from the filter's: "
                                                 f"missing {sorted(by_product - set(ids))[:5]}, extra {sorted(set(ids) - by_product)[:5]}")
        # Without the session's token (what an <img> on another page of the site would load): refused.
        query = urllib.parse.parse_qs(parsed.query)
        check(query.get("csrf"), f"a#export {href} does not carry the session's token")
        bare = parsed.path + "?" + urllib.parse.urlencode({name: values[0] for name, values in query.items() if name != "csrf"})
        forged = parsed.path + "?" + urllib.parse.urlencode(dict({name: values[0] for name, values in query.items()}, csrf="forged"))
        for address in (bare, forged, "/console/audit.csv", "/console/ledger.csv", "/console/notifications.csv"):
            refused = self.fetch(address)
            check(refused.status == 403 and has_error_alert(refused.text) and "text/csv" not in (refused.header("Content-Type") or ""),
                  f"GET {address} without the session's token answered {refused.status} {refused.header('Content-Type')}")
        return (f"{href.replace(self.base, '')}: header {header[:4]}... and {len(records)} lines, the filter's ids; "
                "without the token (or with another) 403")

    def admin_transactions(self):
        """Every store transaction, as the admin API lists them."""
        items, cursor = [], None
        while True:
            path = "/v1/admin/transactions?limit=200" + (f"&cursor={urllib.parse.quote(cursor)}" if cursor else "")
            page = self.seed.api("GET", path, self.options.secret)
            items += page["transactions"]
            cursor = page.get("next_cursor")
            if not cursor:
                return items

    @staticmethod
    def milliunits(text):
        """A price as ConsoleFormat writes it ('312.37', '-1.234') in milliunits."""
        whole, _, fraction = text.strip().replace("\u2212", "-").partition(".")
        sign = -1 if whole.startswith("-") else 1
        return sign * (abs(int(whole)) * 1000 + int((fraction + "000")[:3]))

    def step_metrics(self):
        """4b. Metrics of the seeded purchases' environment: revenue per currency as the API's transactions add up, a count's
        link lists the transactions it counts, the revenue CSV downloads; in Ukrainian too."""
        today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
        seeded = {purchase.transaction_id for purchase in self.seed.purchases}
        listed = [item for item in self.admin_transactions() if item["transaction_id"] in seeded]
        environments = {item["environment"] for item in listed}
        check(len(environments) == 1, f"the seeded purchases are of several environments: {environments}")
        environment = environments.pop()
        expected = {}
        for item in listed:
            if (item.get("purchase_date") or "").startswith(today):
                count, amount = expected.get(item.get("currency") or "—", (0, 0))
                expected[item.get("currency") or "—"] = (count + 1, amount + (item.get("price") or 0))
        check(expected, f"no seeded purchase is dated today ({today})")

        self.open(f"/console/metrics?window=7d&environment={environment}&lang=en")
        main = self.page("metrics")
        check(self.find_all("svg", main), "the metrics page has no chart (no <svg> inside main)")
        shown = {}
        for row in self.find_all("table#refund-rates tr.row"):
            cells = self.find_all("td", row)
            shown[cells[0].text.strip()] = (parse_int(cells[1].text), self.milliunits(cells[2].text))
        check(shown == expected, f"the metrics' revenue per currency is {shown}; the seeded purchases of today add up to {expected}")
        self.screenshot("metrics")

        # A count links to the transactions it counts.
        link = self.find("table#revenue tr.row a.purchases-link")
        count = parse_int(link.text)
        href = link.get_attribute("href")
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(href).query)
        check(query.get("purchased_from") == [today] and query.get("environment") == [environment],
              f"the purchases count links to {href}")
        ids, _ = self.all_pages(href.replace(self.base, ""))
        check(len(ids) == count and set(ids) <= seeded, f"the link of the count {count} lists {len(ids)} transactions")

        # The revenue table as CSV: the same payments.
        self.open(f"/console/metrics?window=7d&environment={environment}")
        self.page("metrics")
        export = self.find("a#export-revenue").get_attribute("href")
        answer = self.fetch(export)
        check(answer.status == 200 and "text/csv" in (answer.header("Content-Type") or ""),
              f"GET {export} answered {answer.status} {answer.header('Content-Type')}")
        lines = [line for line in csv.reader(io.StringIO(answer.body.decode("utf-8"))) if line]
        check(lines and lines[0][:3] == ["day", "currency", "purchases"], f"the revenue CSV's header is {lines[:1]}")
        total = sum(int(line[2]) for line in lines[1:] if line[0] == today)
        check(total == sum(count for count, _ in expected.values()), f"the revenue CSV counts {total} payments today: {lines}")

        # In Ukrainian, then back to English.
        self.open(f"/console/metrics?window=7d&environment={environment}&lang=uk")
        self.page("metrics")
        lang = self.driver.find_element(By.TAG_NAME, "html").get_attribute("lang")
        heading = self.text_of("main h1")
        check(lang == "uk" and heading == "Метрики", f"the Ukrainian metrics page is <html lang={lang!r}> titled {heading!r}")
        uk_shown = {parse_int(cell.text) for cell in self.find_all("table#refund-rates tr.row td:nth-child(2)")}
        check(uk_shown == {count for count, _ in expected.values()}, f"the Ukrainian page counts {uk_shown}")
        self.screenshot("metrics-uk")
        self.open("/console/metrics?lang=en")
        self.page("metrics")
        return (f"{environment}: {expected} today, the same on the page (English and Ukrainian); the link of {count} lists "
                f"{len(ids)}; {export.replace(self.base, '')} has {len(lines) - 1} lines")

    @staticmethod
    def csv_column(header, records, ids):
        """The transaction id column: named so, else the one whose values are the ids."""
        for index, name in enumerate(header):
            normalized = name.strip().lower().replace(" ", "_")
            if normalized in ("transaction_id", "transactionid", "id") and "original" not in normalized:
                return index
        for index in range(len(header)):
            if records and all(len(record) > index and record[index] in ids for record in records):
                return index
        raise WalkFailure(f"no transaction id column in the CSV header {header}")

    def step_adjust(self):
        """5. +7 credits on a user page: notice, the page and the API agree; the same idempotency key again changes nothing."""
        # Through the search box, as a person would find the user.
        self.open("/console")
        self.fill(self.find("form#search"), "q", self.user.user_id)
        self.submit("form#search", what="the search form")
        self.page("user")
        check(self.user.user_id in self.find("main").text, f"the user page does not show the user id {self.user.user_id}")
        self.find("ol#timeline")
        check(self.find_all("ol#timeline li.event"), "the user's timeline has no events (a sign-up, purchases and a spend happened)")
        self.find("table#entitlements")
        self.find("form#grant")
        before = self.credits_shown()
        api_before = self.api_credits()
        check(before == api_before, f"the page shows {before} credits, the API {api_before}")

        form = self.find("form#adjust")
        check(form.get_attribute("method").lower() == "post", "form#adjust is not method=post")
        self.adjust_url = form.get_attribute("action") or self.driver.current_url
        key = self.find("input[name='idempotency_key']", form).get_attribute("value")
        csrf = self.find("input[name='csrf']", form).get_attribute("value")
        check(key, "form#adjust has an empty idempotency_key")
        check(csrf, "form#adjust has an empty csrf")
        check(self.find("input[name='idempotency_key']", form).get_attribute("type") == "hidden", "idempotency_key is not hidden")
        check(self.find("input[name='csrf']", form).get_attribute("type") == "hidden", "csrf is not hidden")
        reason = f"console walk: goodwill credit {uuid.uuid4().hex[:6]}"
        self.fill(form, "currency", "credits")
        self.fill(form, "amount", str(ADJUSTMENT))
        self.fill(form, "reason", reason)
        self.submit("form#adjust", "#adjust-submit", "the adjustment form")
        self.page("user")
        notice = self.find("p.notice[role='status']").text.strip()
        check(not self.exists("p.error[role='alert']"), f"an error beside the notice: {self.text_of('p.error')!r}")
        after = self.credits_shown()
        check(after == before + ADJUSTMENT, f"after +{ADJUSTMENT} the page shows {after} credits (was {before})")
        api_after = self.api_credits()
        check(api_after == api_before + ADJUSTMENT, f"after +{ADJUSTMENT} the API says {api_after} credits (was {api_before})")
        self.screenshot("user-adjusted")

        # The same form again, with the same idempotency key (a double submit): nothing more.
        answer = self.fetch(self.adjust_url, "POST", {"currency": "credits", "amount": str(ADJUSTMENT), "reason": reason,
                                                      "idempotency_key": key, "csrf": csrf},
                            headers={"Origin": self.origin})
        check(answer.status in (200, 303, 302), f"re-posting the adjustment answered {answer.status}")
        check(self.api_credits() == api_after, f"re-posting the same idempotency key changed the credits: {self.api_credits()}")
        self.driver.refresh()
        self.page("user")
        check(self.credits_shown() == after, f"after the re-post the page shows {self.credits_shown()} credits, not {after}")
        self.credits_after = api_after
        self.adjustment_reason = reason

        # The ledger lists the adjustment for this user.
        self.open(f"/console/ledger?user={urllib.parse.quote(self.user.user_id)}&currency=credits")
        self.page("ledger")
        amounts = [parse_int(self.find("td.amount", row).text) for row in self.rows()]
        check(amounts.count(ADJUSTMENT) == 1, f"the user's credits ledger shows amounts {amounts}: not one +{ADJUSTMENT}")
        href = self.find("a#export").get_attribute("href")
        check(urllib.parse.urlsplit(href).path == "/console/ledger.csv", f"the ledger's a#export points to {href}")
        return (f"notice {notice!r}; {before} -> {after} on the page, {api_before} -> {api_after} in GET /v1/me; "
                f"the same key again ({answer.status}) changed nothing; the ledger shows it once")

    def step_grant(self):
        """5b. An entitlement granted by hand until a date: notice, the page and the API agree."""
        entitlement = "echo.season"
        until = (datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=30)).isoformat()
        self.open_user(self.user)
        form = self.find("form#grant")
        check(form.get_attribute("method").lower() == "post", "form#grant is not method=post")
        self.find("input[name='csrf']", form)
        self.fill(form, "entitlement", entitlement)
        self.fill(form, "until", until)
        # A reason a spreadsheet would run as a formula, with markup in it: the page must show it as text,
        # and the audit CSV must defuse it (step 9).
        self.fill(form, "reason", GRANT_REASON)
        self.submit("form#grant", "#grant-submit", "the grant form")
        self.page("user")
        check(not self.exists("p.error[role='alert']"), f"the grant answered an error: {self.text_of('p.error')!r}")
        notice = self.find("p.notice[role='status']").text.strip()
        table = self.find("table#entitlements")
        check(entitlement in table.text, f"table#entitlements does not list {entitlement}: {table.text!r}")
        main = self.find("main")
        check(GRANT_REASON in main.text, f"the grant's reason {GRANT_REASON!r} is not shown as text on the user page")
        check(not [b for b in self.find_all("b", main) if b.text == "support"],
              "the grant's reason was rendered as HTML (a <b> element), not escaped")
        account = self.seed.api("GET", "/v1/me", self.user.token, expect=(200,))
        granted = [e for e in account["entitlements"] if e["id"] == entitlement]
        check(granted and granted[0]["active"], f"GET /v1/me has no active {entitlement}: {account['entitlements']}")
        expires = granted[0].get("expires_at", "")
        check(expires.startswith(until) or expires.startswith((datetime.date.fromisoformat(until) + datetime.timedelta(days=1)).isoformat()),
              f"GET /v1/me says {entitlement} expires {expires!r}, the form said until {until}")
        check(self.api_credits() == self.credits_after, "granting an entitlement changed the credits")
        return f"notice {notice!r}; {entitlement} until {until} on the page and in GET /v1/me (expires {expires})"

    def step_csrf(self):
        """6. Adjustments without the csrf field, without Origin/Referer, or from another origin: 403, nothing changes."""
        self.open_user(self.user)
        csrf = self.csrf_value()
        base_fields = {"currency": "credits", "amount": "5", "reason": "console walk: forged"}
        attempts = [
            ("no csrf field, own Origin", dict(base_fields), {"Origin": self.origin}),
            ("csrf field, no Origin or Referer", dict(base_fields, csrf=csrf), {}),
            ("csrf field, a foreign Origin", dict(base_fields, csrf=csrf), {"Origin": "http://evil.example"}),
            ("a wrong csrf field, own Origin", dict(base_fields, csrf=csrf[:-1] + ("A" if csrf[-1:] != "A" else "B")), {"Origin": self.origin}),
            ("csrf field, Origin null", dict(base_fields, csrf=csrf), {"Origin": "null"}),
            ("csrf field, a foreign Referer only", dict(base_fields, csrf=csrf), {"Referer": "http://evil.example/console"}),
        ]
        for label, fields, headers in attempts:
            fields["idempotency_key"] = "walk-forged-" + uuid.uuid4().hex
            answer = self.fetch(self.adjust_url, "POST", fields, headers=headers)
            check(answer.status == 403, f"an adjustment with {label} answered {answer.status}, not 403")
            check(has_error_alert(answer.text), f"the 403 for {label} has no <p class=\"error\" role=\"alert\">")
            check(self.api_credits() == self.credits_after, f"an adjustment with {label} changed the credits to {self.api_credits()}")
        # Signing out is a POST too: without Origin it is refused and the session stays.
        answer = self.fetch("/console/logout", "POST", {"csrf": csrf})
        check(answer.status == 403, f"a sign-out without Origin answered {answer.status}, not 403")
        check(self.fetch("/console").status == 200, "a refused sign-out ended the session")
        # The sign-in form posted from another site (login CSRF): refused, no session.
        answer = self.fetch("/console/login", "POST", {"operator": "alice", "password": self.options.alice},
                            headers={"Origin": "http://evil.example"}, cookies="")
        check(answer.status == 403, f"a sign-in posted from another origin answered {answer.status}, not 403")
        check(not any("tally_console=" in value and "Max-Age=0" not in value for value in
                      [v for k, v in answer.headers if k.lower() == "set-cookie"]),
              "a sign-in posted from another origin set a session cookie")
        return ("403 with an error for " + "; ".join(label for label, _, _ in attempts)
                + "; sign-out without Origin 403; sign-in from another origin 403")

    def step_bad_input(self):
        """7. Amount 'abc' and amount 0 through the form: an error, nothing changes."""
        results = []
        for amount in ("abc", "0", "+-5", "--5"):
            self.open_user(self.user)
            form = self.find("form#adjust")
            field = self.find("input[name='amount']", form)
            if field.get_attribute("type") == "number":
                # The browser's own check would keep 'abc' out of a number field; the server must refuse it
                # too (any client can post), so the field is made plain text as in a browser without it.
                self.driver.execute_script("arguments[0].type = 'text'; arguments[1].noValidate = true", field, form)
            else:
                self.driver.execute_script("arguments[0].noValidate = true", form)
            self.fill(form, "currency", "credits")
            self.fill(form, "amount", amount)
            self.fill(form, "reason", "console walk: bad amount")
            self.submit("form#adjust", "#adjust-submit", f"the adjustment form with amount {amount!r}")
            alert = self.find("p.error[role='alert']")
            check(not self.exists("p.notice[role='status']"), f"amount {amount!r} was taken: {self.text_of('p.notice')!r}")
            check(self.api_credits() == self.credits_after, f"amount {amount!r} changed the credits to {self.api_credits()}")
            if self.exists("main#page-user") and self.exists("table#balances"):
                check(self.credits_shown() == self.credits_after, f"after amount {amount!r} the page shows {self.credits_shown()}")
            results.append(f"{amount!r}: {alert.text.strip()!r}")
        self.screenshot("user-bad-amount")
        return "; ".join(results)

    def step_ukrainian(self):
        """8. ?lang=uk: the console in Ukrainian, remembered across pages; ?lang=en back."""
        self.open("/console/transactions")
        self.page("transactions")
        self.click_and_load(self.find("a#lang-uk"), "the Ukrainian link")
        self.page("transactions")
        lang = self.driver.find_element(By.TAG_NAME, "html").get_attribute("lang")
        check(lang == "uk", f"after a#lang-uk the page is <html lang={lang!r}>")
        nav = " · ".join(link.text.strip() for link in self.find_all("nav#nav a"))
        check(CYRILLIC.search(nav), f"the nav is not in Ukrainian: {nav!r}")
        self.screenshot("transactions-uk")
        self.click_and_load(self.find("a#nav-overview"), "the nav link to the overview")
        self.page("overview")
        lang = self.driver.find_element(By.TAG_NAME, "html").get_attribute("lang")
        check(lang == "uk", f"the next page forgot Ukrainian: <html lang={lang!r}>")
        self.screenshot("overview-uk")
        # The timelines of the refunded purchase's user and of the user granted an entitlement: in Ukrainian,
        # with the environment, the arrival, the refund's reason and the grant's end worded.
        worded = []
        for user in (self.seed.refunded.user, self.user):
            self.open_user(user)
            timeline = self.find("ol#timeline").text
            english = re.findall(r"(?i)\b(received|reason|until|sandbox,)", timeline)
            check(not english, f"the Ukrainian timeline of {user.user_id} has English words {sorted(set(english))}: {timeline[:400]!r}")
            worded.append(timeline)
        timeline = "\n".join(worded)
        for words in ("отримано", "повернено", " до "):
            check(words in timeline, f"the Ukrainian timelines do not say {words!r}: {timeline[:400]!r}")
        self.screenshot("user-uk")
        self.open("/console/audit?lang=en")
        self.page("audit")
        lang = self.driver.find_element(By.TAG_NAME, "html").get_attribute("lang")
        check(lang == "en", f"?lang=en gives <html lang={lang!r}>")
        check(not CYRILLIC.search(self.find("nav#nav").text), f"the nav is still Ukrainian after ?lang=en")
        self.open("/console/products")
        check(self.driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en", "English was not remembered")
        return (f"<html lang=\"uk\">, nav {nav!r}; remembered across pages; the timelines say отримано, повернено, до "
                "(no received, reason, until); back to English")

    def step_audit(self):
        """9. The audit log shows alice's adjustment and sign-in; its CSV has the adjustment."""
        self.open("/console")
        self.click_and_load(self.find("a#nav-audit"), "the nav link to the audit log")
        self.page("audit")
        rows = self.rows()
        entries = [(self.find("td.actor", row).text.strip(), self.find("td.action", row).text.strip(), row.text) for row in rows]
        adjustments = [entry for entry in entries if "alice" in entry[0] and re.search(r"(?i)adjust", entry[1])]
        check(adjustments, f"no adjustment by alice in the audit log: {[(a, b) for a, b, _ in entries][:10]}")
        check(len(adjustments) == 1, f"{len(adjustments)} adjustments by alice in the audit log (one was made; "
                                     f"the replay and the refused ones must not count): {[e[2] for e in adjustments]}")
        sign_ins = [entry for entry in entries if "alice" in entry[0] and re.search(r"(?i)sign.?in|log.?in", entry[1])
                    and not re.search(r"(?i)fail|refus|denied", entry[1])]
        check(sign_ins, f"no sign-in by alice in the audit log: {[(a, b) for a, b, _ in entries][:10]}")
        self.screenshot("audit-after")
        href = self.find("a#export").get_attribute("href")
        check(urllib.parse.urlsplit(href).path == "/console/audit.csv", f"the audit's a#export points to {href}")
        answer = self.fetch(href)
        check(answer.status == 200, f"GET {href} answered {answer.status}")
        lines = [line for line in csv.reader(io.StringIO(answer.body.decode("utf-8-sig"))) if line]
        found = [line for line in lines[1:] if any("alice" in cell for cell in line)
                 and any(re.search(r"(?i)adjust", cell) for cell in line)]
        check(found, f"the audit CSV has no adjustment by alice: {lines[:5]}")
        exports = [entry for entry in entries if "alice" in entry[0] and re.search(r"(?i)export", entry[1])]
        check(exports, f"the CSV exports of steps 3c and 4 are not in the audit log: {[(a, b) for a, b, _ in entries][:10]}")
        formulas = [cell for line in lines for cell in line if "HYPERLINK" in cell]
        check(formulas, f"the grant's reason {GRANT_REASON!r} is not in the audit CSV")
        check(all(not cell.startswith(("=", "+", "-", "@")) for cell in formulas),
              f"the audit CSV writes the grant's reason as a live formula: {formulas}")
        return (f"{len(rows)} audit rows: alice's adjustment, sign-in and exports; the CSV has {len(lines) - 1} lines with "
                f"the adjustment, and the formula reason written as {formulas[0][:12]!r}...")

    def step_read_only(self):
        """10. Sign-out ends alice's session; read-only bob cannot adjust."""
        alice_cookies = self.cookie_header()
        self.open("/console")
        self.page("overview")
        self.sign_out()
        self.page("login")
        self.open("/console/transactions")
        self.page("login")
        check(self.path() == "/console/login", f"after sign-out /console/transactions shows {self.driver.current_url}")
        answer = self.fetch("/console/transactions", cookies=alice_cookies)
        check(answer.status in (302, 303, 307) and urllib.parse.urlsplit(answer.header("Location") or "").path == "/console/login",
              f"alice's old session cookie still opens /console/transactions: {answer.status} {answer.header('Location')}")

        self.sign_in("bob", self.options.bob)
        self.page("overview")
        self.open_user(self.user)
        form = self.find_all("form#adjust")
        browser_result = "no adjustment form"
        if form and self.find("#adjust-submit").is_displayed() and self.find("#adjust-submit").is_enabled():
            self.fill(form[0], "currency", "credits")
            self.fill(form[0], "amount", str(ADJUSTMENT))
            self.fill(form[0], "reason", "console walk: read-only")
            self.submit("form#adjust", "#adjust-submit", "bob's adjustment form")
            check(not self.exists("p.notice[role='status']"), f"bob's adjustment was taken: {self.text_of('p.notice')!r}")
            self.find("p.error[role='alert']")
            browser_result = "the form answered an error"
        check(self.api_credits() == self.credits_after, f"bob changed the credits to {self.api_credits()}")
        self.screenshot("bob-user")

        # A well-formed POST with bob's own session, csrf and Origin: refused all the same.
        self.open_user(self.user)
        answer = self.fetch(self.adjust_url, "POST", {"currency": "credits", "amount": str(ADJUSTMENT),
                                                      "reason": "console walk: read-only", "csrf": self.csrf_value(),
                                                      "idempotency_key": "walk-bob-" + uuid.uuid4().hex},
                            headers={"Origin": self.origin})
        check(answer.status == 403 or (answer.status == 200 and has_error_alert(answer.text)),
              f"bob's adjustment POST answered {answer.status}")
        check(self.api_credits() == self.credits_after, f"bob's POST changed the credits to {self.api_credits()}")
        self.sign_out()
        self.page("login")
        return f"sign-out ends the session (old cookie redirected to login); bob: {browser_result}, POST {answer.status}"

    def step_secret_key(self):
        """11. Sign-in with the secret key (no operator name)."""
        self.sign_in("", self.options.secret + "-wrong")
        self.page("login")
        self.find("p.error[role='alert']")
        self.sign_in("", self.options.secret)
        self.page("overview")
        self.screenshot("overview-secret-key")
        return "a wrong key refused, the secret key signs in"

    def step_layout(self):
        """3d. Every list reads well at 1,280 and 1,400 px: no sideways scrolling, user links on screen, rows short."""
        results = []
        try:
            for width in (1280, 1400):
                self.driver.set_window_size(width, 900)
                for name, path, bound in (("transactions", "/console/transactions", ROW_HEIGHT_BOUND),
                                          ("ledger", "/console/ledger", ROW_HEIGHT_BOUND),
                                          ("notifications", "/console/notifications", None), ("audit", "/console/audit", None)):
                    self.open(path)
                    self.page(name)
                    measured = self.driver.execute_script("""
                        const root = document.documentElement;
                        const rows = [...document.querySelectorAll('table#rows tr.row')];
                        const links = [...document.querySelectorAll('table#rows a.user-link')];
                        return {
                            viewport: root.clientWidth, scroll: root.scrollWidth,
                            main: document.querySelector('main').scrollWidth - document.querySelector('main').clientWidth,
                            rows: rows.length, tallest: Math.max(0, ...rows.map(r => r.getBoundingClientRect().height)),
                            linkRight: Math.max(0, ...links.map(a => a.getBoundingClientRect().right)),
                            narrowestLink: Math.min(10000, ...links.map(a => a.getBoundingClientRect().width)),
                        };""")
                    check(measured["rows"], f"the {name} list at {width} px has no rows")
                    check(measured["scroll"] <= measured["viewport"] and measured["main"] <= 0,
                          f"the {name} list at {width} px scrolls sideways: {measured}")
                    check(measured["linkRight"] <= measured["viewport"], f"a user link of the {name} list at {width} px is off screen: {measured}")
                    if bound:
                        check(measured["tallest"] <= bound, f"a row of the {name} list at {width} px is {measured['tallest']:.0f} px tall "
                                                            f"(at most {bound}): {measured}")
                    if name == "transactions":
                        check(measured["narrowestLink"] >= 200, f"the user ids of the transactions list at {width} px are broken up: {measured}")
                        self.shots += 1
                        height = self.driver.execute_script("return document.documentElement.scrollHeight")
                        self.driver.set_window_size(width, min(int(height) + 120, 6000))
                        self.driver.save_screenshot(os.path.join(self.out, f"{self.shots:02d}-transactions-{width}.png"))
                        self.driver.set_window_size(width, 900)
                    results.append(f"{name} {width} px: rows <= {measured['tallest']:.0f} px")
        finally:
            self.driver.set_window_size(1280, 900)
        return "; ".join(results[:2] + results[4:6]) + "; no list scrolls sideways, every user link on screen"

    def step_ipv6(self):
        """12. The console served on [::1]: sign-in, an adjustment through its form, an export through its link."""
        base6 = self.options.base6
        if not base6:
            return "skipped: this machine has no IPv6 loopback (::1)"
        user = self.seed.api("POST", "/v1/users", self.options.secret, {"app_user_id": "walk-ipv6-" + uuid.uuid4().hex[:8]},
                             base=base6)
        self.driver.delete_all_cookies()
        self.driver.get(base6 + "/console/login")
        self.page("login")
        form = self.find("form#sign-in")
        self.fill(form, "operator", "alice")
        self.fill(form, "password", self.options.alice)
        self.submit("form#sign-in", "#sign-in-submit", "the sign-in form on [::1]")
        self.page("overview")
        self.driver.get(f"{base6}/console/users/{user['user_id']}")
        self.page("user")
        form = self.find("form#adjust")
        self.fill(form, "currency", "credits")
        self.fill(form, "amount", str(ADJUSTMENT))
        self.fill(form, "reason", "console walk: IPv6")
        self.submit("form#adjust", "#adjust-submit", "the adjustment form on [::1]")
        self.page("user")
        check(not self.exists("p.error[role='alert']"), f"the adjustment on [::1] was refused: {self.text_of('p.error')!r}")
        notice = self.find("p.notice[role='status']").text.strip()
        account = self.seed.api("GET", "/v1/me", user["user_token"], expect=(200,), base=base6)
        credits = next((b["available"] for b in account["balances"] if b["currency"] == "credits"), 0)
        check(credits == 2 + ADJUSTMENT, f"after +{ADJUSTMENT} on [::1] GET /v1/me says {credits} credits")
        self.driver.get(base6 + "/console/audit")
        self.page("audit")
        href = self.find("a#export").get_attribute("href")
        check(href.startswith(base6 + "/console/audit.csv?csrf="), f"the audit's a#export on [::1] is {href}")
        cookie = "; ".join(f"{c['name']}={c['value']}" for c in self.driver.get_cookies())
        answer = http_request(href, "GET", None, {"Cookie": cookie})
        check(answer.status == 200 and "adjust" in answer.text, f"the audit export on [::1] answered {answer.status}")
        self.screenshot("ipv6-audit")
        return f"{base6}: signed in, notice {notice!r}, GET /v1/me {credits} credits, the audit CSV exported"

    def run(self):
        steps = [
            ("1 sign-in", self.step_sign_in),
            ("2 navigation", self.step_navigation),
            ("3 transactions", self.step_transactions),
            ("3b search", self.step_search),
            ("3c ledger", self.step_ledger),
            ("3d layout", self.step_layout),
            ("4 CSV export", self.step_export),
            ("4b metrics", self.step_metrics),
            ("5 adjustment", self.step_adjust),
            ("5b entitlement grant", self.step_grant),
            ("6 CSRF", self.step_csrf),
            ("7 bad input", self.step_bad_input),
            ("8 Ukrainian", self.step_ukrainian),
            ("9 audit", self.step_audit),
            ("10 read-only operator", self.step_read_only),
            ("11 secret key", self.step_secret_key),
            ("12 IPv6", self.step_ipv6),
        ]
        for title, step in steps:
            began = time.monotonic()
            try:
                detail = step()
            except (WalkFailure, SetupError, WebDriverException, OSError, http.client.HTTPException, KeyError,
                    ValueError) as error:
                message = error.msg if isinstance(error, WebDriverException) else str(error)
                print(f"FAIL {title}: {type(error).__name__ + ': ' if not isinstance(error, WalkFailure) else ''}{message}",
                      flush=True)
                if not isinstance(error, WalkFailure):
                    traceback.print_exc()
                print(f"     at {self.driver.current_url if self.driver else '-'}; see failure.png and failure.html",
                      flush=True)
                self.save_failure()
                return 1
            print(f"ok   {title} ({time.monotonic() - began:.1f} s): {detail}", flush=True)
        return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="http://127.0.0.1:PORT of a running tally serve")
    parser.add_argument("--tally", required=True, help="the tally binary (for appstore purchase / serve)")
    parser.add_argument("--ca-dir", required=True, help="the simulated App Store's certificate folder the server trusts")
    parser.add_argument("--secret", required=True, help="the server's secret key")
    parser.add_argument("--alice", required=True, help="the admin operator alice's password")
    parser.add_argument("--bob", required=True, help="the read-only operator bob's password")
    parser.add_argument("--out", required=True, help="the folder for screenshots")
    parser.add_argument("--work", required=True, help="a scratch folder (the simulated store's state and log)")
    parser.add_argument("--base6", default="", help="http://[::1]:PORT of a second tally serve on IPv6 (same operators), if any")
    options = parser.parse_args()
    options.base = options.base.rstrip("/")
    options.base6 = options.base6.rstrip("/")
    os.makedirs(options.out, exist_ok=True)
    for name in os.listdir(options.out):
        if name.endswith((".png", ".html")):
            os.remove(os.path.join(options.out, name))

    began = time.monotonic()
    seed = Seed(options)
    walk = None
    try:
        seed.run()
        walk = Walk(options, seed)
        walk.start_browser()
    except (SetupError, OSError, subprocess.SubprocessError) as error:
        print(f"error: set-up failed: {error}", file=sys.stderr, flush=True)
        return 2
    try:
        status = walk.run()
    finally:
        walk.driver.quit()
    print(f"{'walk passed' if status == 0 else 'walk failed'} in {time.monotonic() - began:.0f} s", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
