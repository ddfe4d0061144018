#!/usr/bin/env python3
"""Drives the Documents page of a running `sandbox share` in headless Chromium (Selenium).

    python3 share_page.py URL CODE SCRATCH SCENARIO DOCUMENTS

URL is the server's (http://127.0.0.1:PORT/), CODE its pairing code, SCRATCH a folder of the test's
own (downloads, the Chromium profile, files to upload, screenshots go there), SCENARIO one of
`page`, `security`, `leak`, `lockout`, `large`, `cancel`, `limit`, `details`, `tls`, `listing`, DOCUMENTS the host path of the shared
folder (the "app"
writes a file there to see the page pick it up, and the outcome of each step is checked there).

Prints progress lines, then one line `RESULT {json}`; exits 0 when every check passed, 1 otherwise
(the JSON's "failed" says which check, "error" what happened; a screenshot of the moment is in
SCRATCH/failure.png).

With an https:// URL, SHARE_SPKI_PIN (the base64 SHA-256 of the server's public key) is the one key
Chromium trusts (`--ignore-certificate-errors-spki-list`).
"""

import http.client
import http.server
import json
import os
import ssl
import sys
import threading
import time
import urllib.parse
import zipfile

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

XSS_NAME = "<img src=x onerror=alert(1)>.txt"


class CheckFailed(Exception):
    pass


class Page:
    """The browser and the server under test, with the waits and checks the scenarios share."""

    def __init__(self, url, code, scratch, documents):
        parsed = urllib.parse.urlsplit(url)
        self.host, self.port = parsed.hostname, parsed.port
        self.secure = parsed.scheme == "https"
        self.base = f"{parsed.scheme}://{self.host}:{self.port}"
        self.code, self.scratch, self.documents = code, scratch, documents
        self.downloads = os.path.join(scratch, "downloads")
        os.makedirs(self.downloads, exist_ok=True)
        self.result = {"checks": []}
        self.step = "starting Chromium"
        options = webdriver.ChromeOptions()
        options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        for argument in (
            "--headless=new",
            "--no-sandbox",  # root in CI containers
            "--disable-dev-shm-usage",
            "--disable-gpu",
            "--window-size=1280,860",
            "--no-first-run",
            "--password-store=basic",
            f"--user-data-dir={os.path.join(scratch, 'chromium-profile')}",
        ):
            options.add_argument(argument)
        if self.secure:
            options.add_argument(f"--ignore-certificate-errors-spki-list={os.environ['SHARE_SPKI_PIN']}")
        options.add_experimental_option(
            "prefs",
            {
                "download.default_directory": self.downloads,
                "download.prompt_for_download": False,
                "safebrowsing.enabled": False,
            },
        )
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_page_load_timeout(60)
        self.driver.execute_cdp_cmd(
            "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": self.downloads}
        )

    # ---- Reporting ----

    def begin(self, step):
        self.step = step
        print(f"- {step}", flush=True)

    def check(self, condition, what):
        if not condition:
            raise CheckFailed(what)
        self.result["checks"].append(what)

    def wait(self, condition, what, timeout=20):
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(lambda _: condition())
        except TimeoutException:
            raise CheckFailed(f"{what} (not within {timeout} s)") from None

    # ---- Raw HTTP (no browser): what a client without the session gets ----

    def http(self, method, path, body=None, headers=None):
        if self.secure:  # the raw client checks nothing: the browser is what is tested
            connection = http.client.HTTPSConnection(
                self.host, self.port, timeout=30, context=ssl._create_unverified_context()
            )
        else:
            connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    # ---- The page ----

    def js(self, script, *arguments):
        return self.driver.execute_script(script, *arguments)

    def open(self, path="/"):
        self.driver.get(self.base + path)

    def login(self, code=None):
        self.open("/")
        self.wait(lambda: self.driver.current_url.endswith("/.sandbox/login"), "/ redirects to the login page")
        field = self.driver.find_element(By.ID, "code")
        field.clear()
        field.send_keys(code or self.code)
        self.driver.find_element(By.ID, "login-submit").click()
        if code is None:
            self.wait_for_app()

    def wait_for_app(self):
        self.wait(lambda: self.js("return document.querySelector('#breadcrumbs li') !== null"), "the app page loads")

    def row(self, name):
        """The row of `name` (found in one script: a live refresh can replace the rows any time)."""
        return self.js(
            "return [...document.querySelectorAll('#listing tr')].find(tr => tr.dataset.name === arguments[0]) ?? null",
            name,
        )

    def names(self):
        return self.js("return [...document.querySelectorAll('#listing tr')].map(tr => tr.dataset.name)")

    def wait_row(self, name, present=True, timeout=20):
        what = f"the row “{name}” {'appears' if present else 'goes away'}"
        self.wait(lambda: (self.row(name) is not None) == present, what, timeout)

    def click(self, selector):
        """Clicks the element `selector` finds, again if a refresh replaced it meanwhile."""
        for _ in range(10):
            try:
                self.driver.find_element(By.CSS_SELECTOR, selector).click()
                return
            except StaleElementReferenceException:
                continue
        raise CheckFailed(f"{selector} kept being replaced")

    def act(self, name, action):
        """Clicks the `action` control of the row `name`, again if a refresh replaced the row meanwhile."""
        for _ in range(10):
            row = self.row(name)
            self.check(row is not None, f"a row “{name}” to {action}")
            try:
                row.find_element(By.CSS_SELECTOR, f'[data-action="{action}"]').click()
                return
            except StaleElementReferenceException:
                continue
        raise CheckFailed(f"the row “{name}” kept being replaced")

    def dialog_open(self, dialog_id):
        return self.js("return document.getElementById(arguments[0]).open", dialog_id)

    def name_dialog(self, text):
        self.wait(lambda: self.dialog_open("name-dialog"), "the name dialog opens")
        field = self.driver.find_element(By.ID, "name-input")
        field.clear()
        field.send_keys(text)
        self.driver.find_element(By.ID, "name-ok").click()
        self.wait(lambda: not self.dialog_open("name-dialog"), "the name dialog closes")

    def upload_rows(self):
        return self.js(
            "return [...document.querySelectorAll('#uploads li')].map(li => ({target: li.dataset.upload,"
            " state: li.dataset.state, percent: Number(li.dataset.percent), saved: li.dataset.saved ?? null,"
            " value: li.querySelector('progress').value, max: li.querySelector('progress').max,"
            " note: li.querySelector('.upload-note').textContent}))"
        )

    def upload_row(self, target):
        return next((row for row in self.upload_rows() if row["target"] == target), None)

    def wait_uploaded(self, targets, timeout=60):
        def done():
            rows = [self.upload_row(target) for target in targets]
            failed = [row for row in rows if row and row["state"] in ("failed", "cancelled")]
            if failed:
                raise CheckFailed(f"upload failed: {failed}")
            return all(row and row["state"] == "done" for row in rows)

        self.wait(done, f"the uploads {targets} finish", timeout)
        for target in targets:
            row = self.upload_row(target)
            self.check(
                row["percent"] == 100 and row["value"] == row["max"],
                f"the progress of {target} reaches 100 % ({row})",
            )

    def status_text(self):
        return self.js("const s = document.getElementById('status'); return s.hidden ? '' : s.textContent")

    def wait_download(self, name, timeout=30):
        path = os.path.join(self.downloads, name)

        def finished():
            partial = [entry for entry in os.listdir(self.downloads) if entry.endswith(".crdownload")]
            return os.path.exists(path) and not partial

        self.wait(finished, f"{name} is downloaded into {self.downloads}", timeout)
        with open(path, "rb") as handle:
            return handle.read()

    def no_alert(self):
        try:
            text = self.driver.switch_to.alert.text
        except NoAlertPresentException:
            return True
        raise CheckFailed(f"a script ran: an alert says {text!r}")

    def screenshot(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.driver.save_screenshot(path)

    def all_cookies(self):
        """Every cookie the browser holds, whatever its path (get_cookies() sees only the current page's)."""
        return self.driver.execute_cdp_cmd("Network.getAllCookies", {})["cookies"]

    def session_cookies(self):
        return [cookie for cookie in self.all_cookies() if cookie["name"].startswith("sandbox_session")]

    def on_disk(self, relative):
        return os.path.exists(os.path.join(self.documents, relative))

    def disk(self, relative):
        with open(os.path.join(self.documents, relative), "rb") as handle:
            return handle.read()

    def mtime_ns(self, relative):
        return os.stat(os.path.join(self.documents, relative)).st_mtime_ns

    def write(self, relative, data):
        path = os.path.join(self.scratch, "files", relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(data)
        return path


# ---- Scenarios ----


def page_scenario(page):
    """Log in, upload (picker, folder picker, drop), folders, move, rename, delete, download,
    ZIP, live refresh, sorting, filter, the XSS name, screenshots."""
    page.begin("a wrong code is refused")
    page.login(code="wrong-code-0000")
    page.wait(
        lambda: page.driver.find_element(By.ID, "login-error").text.strip() != "", "the login page says why"
    )
    page.check(page.driver.current_url.endswith("/.sandbox/login"), "a wrong code stays on the login page")
    page.check(
        not page.session_cookies(), "a wrong code sets no cookie"
    )
    page.result["loginError"] = page.driver.find_element(By.ID, "login-error").text

    page.begin("the right code logs in")
    page.login()
    page.check(page.driver.current_url.startswith(page.base + "/.sandbox/s/"), "at the app page")
    page.js("window.notReloaded = true")

    page.begin("two files through the picker")
    alpha = os.urandom(200_000)
    beta = os.urandom(3_000_000)
    paths = [page.write("alpha.txt", alpha), page.write("beta.bin", beta)]
    picked_mtime_ns = 1_600_000_000_123_000_000  # File.lastModified keeps milliseconds
    os.utime(paths[0], ns=(picked_mtime_ns, picked_mtime_ns))
    page.driver.find_element(By.ID, "upload-files").send_keys("\n".join(paths))
    page.wait_uploaded(["/alpha.txt", "/beta.bin"])
    page.wait_row("alpha.txt")
    page.wait_row("beta.bin")
    page.check(page.disk("alpha.txt") == alpha and page.disk("beta.bin") == beta, "the picked files' bytes on disk")
    page.check(
        page.mtime_ns("alpha.txt") == picked_mtime_ns,
        f"the picked file keeps its modification time ({page.mtime_ns('alpha.txt')})",
    )

    page.begin("a file and the XSS name by a synthetic drag and drop")
    page.js(
        """
        const transfer = new DataTransfer();
        transfer.items.add(new File(["dropped by drag and drop"], "dropped.txt", {type: "text/plain", lastModified: 1500000000456}));
        transfer.items.add(new File(["a name that is markup"], arguments[0], {type: "text/plain"}));
        const target = document.getElementById("listing");
        for (const type of ["dragenter", "dragover", "drop"]) {
            target.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, dataTransfer: transfer}));
        }
        """,
        XSS_NAME,
    )
    page.wait_uploaded(["/dropped.txt", "/" + XSS_NAME])
    page.wait_row("dropped.txt")
    page.check(page.disk("dropped.txt") == b"dropped by drag and drop", "the dropped file's bytes on disk")
    page.check(
        page.mtime_ns("dropped.txt") == 1_500_000_000_456_000_000,
        f"the dropped file keeps its lastModified ({page.mtime_ns('dropped.txt')})",
    )

    page.begin("the XSS name renders as text")
    page.wait_row(XSS_NAME)
    page.no_alert()
    page.check(page.js("return document.querySelectorAll('img').length") == 0, "no img element on the page")
    link_text = page.js(
        "return [...document.querySelectorAll('#listing tr')].find(tr => tr.dataset.name === arguments[0])"
        ".querySelector('a.item').textContent",
        XSS_NAME,
    )
    page.check(link_text == XSS_NAME, f"the name is shown as its text ({link_text!r})")
    upload_name = page.js(
        "return [...document.querySelectorAll('#uploads li')].find(li => li.dataset.upload === '/' + arguments[0])"
        ".querySelector('.upload-name').textContent",
        XSS_NAME,
    )
    page.check(upload_name == XSS_NAME, "the upload row shows the name as text")

    page.begin("a folder through the folder picker keeps its structure")
    photo = os.urandom(50_000)
    folder = os.path.dirname(os.path.dirname(page.write("Album/2024/photo.jpg", photo)))
    page.write("Album/notes.txt", b"notes")
    page.write("Album/.hidden", b"skipped")
    page.driver.find_element(By.ID, "upload-folder").send_keys(folder)
    page.wait_uploaded(["/Album/2024/photo.jpg", "/Album/notes.txt"])
    page.check(page.disk("Album/2024/photo.jpg") == photo, "the folder's file is at its place on disk")
    page.check(not page.on_disk("Album/.hidden"), "hidden files in a folder are skipped")
    page.wait_row("Album")

    page.begin("a name clash is saved as “name 2.ext”")
    page.driver.find_element(By.ID, "upload-files").send_keys(paths[0])
    page.wait(lambda: page.upload_row("/alpha.txt") and page.upload_rows()[-1]["state"] == "done", "the second alpha")
    saved = page.upload_rows()[-1]
    page.check(saved["saved"] == "/alpha 2.txt" and "alpha 2.txt" in saved["note"], f"the clash is said: {saved}")
    page.wait_row("alpha 2.txt")
    page.check(page.disk("alpha 2.txt") == alpha and page.disk("alpha.txt") == alpha, "both copies on disk")

    page.begin("create a folder")
    page.driver.find_element(By.ID, "new-folder").click()
    page.name_dialog("Reports")
    page.wait_row("Reports")
    page.check(os.path.isdir(os.path.join(page.documents, "Reports")), "the folder is on disk")

    page.begin("move a file into it")
    page.act("beta.bin", "move")
    page.wait(lambda: page.dialog_open("move-dialog"), "the move dialog opens")
    Select(page.driver.find_element(By.ID, "move-select")).select_by_value("/Reports")
    page.driver.find_element(By.ID, "move-ok").click()
    page.wait_row("beta.bin", present=False)
    page.check(page.disk("Reports/beta.bin") == beta and not page.on_disk("beta.bin"), "moved on disk")
    page.js("[...document.querySelectorAll('#listing tr')].find(tr => tr.dataset.name === 'Reports').querySelector('a.item').focus()")
    ActionChains(page.driver).send_keys(Keys.ENTER).perform()  # the keyboard opens the folder
    page.wait_row("beta.bin")
    crumbs = page.js("return [...document.querySelectorAll('#breadcrumbs a')].map(a => a.textContent)")
    page.check(crumbs == ["Documents", "Reports"], f"breadcrumbs {crumbs}")
    page.click('#breadcrumbs a[data-path="/"]')
    page.wait_row("Reports")

    page.begin("rename a file")
    page.act("alpha.txt", "rename")
    page.name_dialog("alpha renamed.txt")
    page.wait_row("alpha renamed.txt")
    page.check(page.disk("alpha renamed.txt") == alpha and not page.on_disk("alpha.txt"), "renamed on disk")

    page.begin("a rename onto a taken name shows the server's message")
    page.act("alpha 2.txt", "rename")
    page.name_dialog("alpha renamed.txt")
    page.wait(lambda: page.status_text() != "", "the status area shows an error")
    page.result["nameTakenMessage"] = page.status_text()
    page.check(page.on_disk("alpha 2.txt"), "the clashing file is still there")

    page.begin("delete with confirmation")
    page.act("dropped.txt", "delete")
    page.wait(lambda: page.dialog_open("confirm-dialog"), "the confirmation opens")
    page.driver.find_element(By.ID, "confirm-cancel").click()
    page.wait(lambda: not page.dialog_open("confirm-dialog"), "the confirmation closes")
    page.check(page.on_disk("dropped.txt") and page.row("dropped.txt") is not None, "Cancel keeps the file")
    page.act("dropped.txt", "delete")
    page.wait(lambda: page.dialog_open("confirm-dialog"), "the confirmation opens again")
    page.driver.find_element(By.ID, "confirm-ok").click()
    page.wait_row("dropped.txt", present=False)
    page.check(not page.on_disk("dropped.txt"), "deleted on disk")

    page.begin("download a file and compare its bytes")
    page.act("alpha renamed.txt", "download")
    page.check(page.wait_download("alpha renamed.txt") == alpha, "the downloaded bytes equal the uploaded ones")

    page.begin("download a folder as a ZIP")
    page.act("Album", "zip")
    page.wait_download("Album.zip", timeout=60)
    with zipfile.ZipFile(os.path.join(page.downloads, "Album.zip")) as archive:
        names = sorted(archive.namelist())
        page.check(archive.testzip() is None, "the ZIP's CRCs check")
        photo_entry = next((name for name in names if name.endswith("2024/photo.jpg")), None)
        page.check(photo_entry is not None and archive.read(photo_entry) == photo, f"the ZIP holds the folder: {names}")

    page.begin("a file the app adds appears without a reload")
    started = time.monotonic()
    with open(os.path.join(page.documents, "added by the app.txt"), "wb") as handle:
        handle.write(b"written by the app")
    page.wait_row("added by the app.txt", timeout=10)
    page.result["liveSeconds"] = round(time.monotonic() - started, 3)
    page.check(page.js("return window.notReloaded === true"), "the page was not reloaded")

    page.begin("sorting and the filter")
    page.driver.find_element(By.CSS_SELECTOR, 'button[data-sort-key="size"]').click()
    names = page.names()
    page.check(names[:2] == ["Album", "Reports"], f"folders first: {names}")
    sizes = page.js(
        "return [...document.querySelectorAll('#listing tr[data-folder=false] td.num')].map(td => Number(td.dataset.size))"
    )
    page.check(sizes == sorted(sizes), f"files by size, ascending: {sizes}")
    page.driver.find_element(By.CSS_SELECTOR, 'button[data-sort-key="size"]').click()
    sizes = page.js(
        "return [...document.querySelectorAll('#listing tr[data-folder=false] td.num')].map(td => Number(td.dataset.size))"
    )
    page.check(sizes == sorted(sizes, reverse=True), f"then descending: {sizes}")
    page.driver.find_element(By.CSS_SELECTOR, 'button[data-sort-key="name"]').click()
    page.driver.find_element(By.ID, "filter").send_keys("ALPHA")
    page.wait(lambda: page.names() == ["alpha 2.txt", "alpha renamed.txt"], "the filter keeps the alpha files")
    page.driver.find_element(By.ID, "filter").clear()
    page.js("document.getElementById('filter').dispatchEvent(new Event('input'))")
    page.wait(lambda: len(page.names()) > 2, "the filter cleared")

    page.begin("keyboard: Tab reaches the row buttons and Enter opens a dialog")
    page.js("document.getElementById('filter').focus()")
    keys = ActionChains(page.driver)  # keys to whatever has focus, as a person types
    for _ in range(40):
        keys.send_keys(Keys.TAB).perform()
        if page.js("return document.activeElement.dataset.action ?? null") == "rename":
            break
    page.check(page.js("return document.activeElement.dataset.action ?? null") == "rename", "Tab reaches a Rename button")
    page.check(
        page.js("return getComputedStyle(document.activeElement).outlineStyle") != "none", "the focus is visible"
    )
    keys.send_keys(Keys.ENTER).perform()
    page.wait(lambda: page.dialog_open("name-dialog"), "Enter on it opens the dialog")
    keys.send_keys(Keys.ESCAPE).perform()
    page.wait(lambda: not page.dialog_open("name-dialog"), "Escape closes it")

    page.begin("screenshots")
    page.js("document.getElementById('clear-uploads').click()")
    page.driver.find_element(By.ID, "upload-files").send_keys(paths[1])
    page.wait(lambda: page.upload_rows() and page.upload_rows()[-1]["state"] == "done", "one more upload")
    page.wait_row("beta.bin")
    page.js("window.scrollTo(0, 0); document.activeElement.blur()")
    ActionChains(page.driver).move_to_element(page.driver.find_element(By.TAG_NAME, "h1")).perform()  # no hover
    page.screenshot(os.path.join(page.scratch, "share-page.png"))
    page.driver.set_window_size(375, 800)
    page.wait(lambda: page.js("return window.innerWidth") <= 375, "a 375 px wide window")
    overflow = page.js("return document.documentElement.scrollWidth - window.innerWidth")
    page.check(overflow <= 0, f"nothing wider than a 375 px screen (overflow {overflow} px)")
    page.screenshot(os.path.join(page.scratch, "share-page-phone.png"))
    page.driver.set_window_size(1280, 860)

    page.begin("no script error and nothing the Content-Security-Policy refused")
    console = [entry["message"] for entry in page.driver.get_log("browser")]
    broken = [line for line in console if "Content Security Policy" in line or "Uncaught" in line]
    page.check(not broken, f"the console: {broken}")

    page.begin("log out")
    page.driver.find_element(By.ID, "logout").click()
    page.wait(lambda: page.driver.current_url.endswith("/.sandbox/login"), "logging out goes to the login page")
    page.open("/")
    page.wait(lambda: page.driver.current_url.endswith("/.sandbox/login"), "after logging out / asks to log in")
    page.no_alert()


def security_scenario(page):
    """Logged-out requests, the cookie's flags, a cross-site form post, a same-origin POST
    without the CSRF token."""
    page.begin("logged-out requests are refused")
    status, headers, _ = page.http("GET", "/", headers={"Accept": "text/html"})
    page.check(
        status == 303 and headers.get("Location", "").endswith("/.sandbox/login"),
        f"GET / from a browser without a session: 303 to the login page ({status} {headers.get('Location')})",
    )
    for method, path in [
        ("GET", "/.sandbox/api/list?path=%2F"),
        ("GET", "/.sandbox/api/storage"),
        ("GET", "/.sandbox/download?path=%2Fkept.txt"),
        ("GET", "/.sandbox/events"),
        ("POST", "/.sandbox/api/delete"),
    ]:
        status, _, _ = page.http(method, path, body=b'{"path": "/kept.txt"}' if method == "POST" else None)
        page.check(status == 401, f"{method} {path} without a session: 401 ({status})")
    page.check(page.on_disk("kept.txt"), "kept.txt is still there")

    page.begin("the session cookie's flags")
    page.login()
    app = page.driver.current_url.split("#")[0]
    scope = urllib.parse.urlsplit(app).path
    cookies = page.session_cookies()
    page.check(len(cookies) == 1, f"one session cookie ({[c['name'] for c in page.all_cookies()]})")
    session = cookies[0]
    flags = {key: session.get(key) for key in ("httpOnly", "sameSite", "path", "secure")}
    page.check(flags["httpOnly"] is True, f"HttpOnly ({flags})")
    page.check(flags["sameSite"] == "Strict", f"SameSite=Strict ({flags})")
    page.check(
        flags["path"] == scope and scope.startswith("/.sandbox/s/") and len(scope) > 40,
        f"Path is the session's own random folder, the app page's ({flags}, {scope})",
    )
    page.check(session["name"] not in page.js("return document.cookie"), "scripts cannot read it")
    page.result["cookie"] = flags
    token = page.js("return document.querySelector('meta[name=csrf-token]').content")
    page.check(len(token) >= 32 and token != "{{csrf}}", "the page carries a CSRF token")

    page.begin("a same-origin POST without the CSRF token changes nothing")
    statuses = page.driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const post = (headers) => fetch("api/delete", {method: "POST", credentials: "same-origin",
            headers: Object.assign({"Content-Type": "application/json"}, headers), body: JSON.stringify({path: "/kept.txt"})})
            .then(response => response.status);
        Promise.all([post({}), post({"X-CSRF-Token": "0".repeat(64)})]).then(done, error => done(String(error)));
        """
    )
    page.check(statuses == [403, 403], f"no token and a wrong token: 403 ({statuses})")
    page.check(page.on_disk("kept.txt"), "kept.txt is still there after the token-less POSTs")

    page.begin("a cross-site form post changes nothing")
    target = f"{app}api/delete"
    attack = (
        "<!doctype html><title>elsewhere</title>"
        f'<form method="post" action="{target}" enctype="text/plain">'
        '<input type="hidden" name=\'{"path": "/kept.txt", "x": "\' value=\'"}\'></form>'
        f'<form method="post" action="{app}api/mkdir" enctype="text/plain">'
        '<input type="hidden" name=\'{"path": "/made by another site", "x": "\' value=\'"}\'></form>'
        "<script>document.forms[0].submit();</script>"
    )
    page.driver.get("data:text/html;charset=utf-8," + urllib.parse.quote(attack))
    page.wait(lambda: page.driver.current_url.startswith(page.base), "the form was sent")
    page.wait(lambda: page.js("return document.readyState") == "complete", "its answer loaded")
    page.result["crossSiteAnswer"] = page.js("return document.body ? document.body.innerText.slice(0, 200) : ''")
    page.check(page.on_disk("kept.txt"), "kept.txt is still there after the cross-site delete")
    # A second form, submitted from the attacking page by the browser itself (a user's click).
    page.driver.get("data:text/html;charset=utf-8," + urllib.parse.quote(attack.replace("forms[0]", "forms[1]")))
    page.wait(lambda: page.driver.current_url.startswith(page.base), "the second form was sent")
    page.check(not page.on_disk("made by another site"), "no folder made by the cross-site post")

    page.begin("the session still works and logging out ends it on the server")
    page.driver.get(app)
    page.wait_for_app()
    page.wait_row("kept.txt")
    page.driver.find_element(By.ID, "logout").click()
    page.wait(lambda: page.driver.current_url.endswith("/.sandbox/login"), "logged out")
    status, _, _ = page.http(
        "GET", f"{scope}api/list?path=%2F", headers={"Cookie": f"{session['name']}={session['value']}"}
    )
    page.check(status == 401, f"the old cookie is refused after logout ({status})")


class OtherService:
    """Another web server on 127.0.0.1 (another port: the same site as the share, another origin),
    as any local tool or a hostile page's server would be: it logs the `Cookie` field of every
    request it gets and serves `pages[path]`."""

    def __init__(self, pages):
        received = self.received = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                received.append((self.path, self.headers.get("Cookie")))
                body = pages.get(self.path.split("?")[0], "<!doctype html><title>other</title>").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *arguments):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def cookies(self):
        return [cookie for _, cookie in self.received if cookie]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def leak_scenario(page):
    """Logged in, the browser visits another service on 127.0.0.1: it must not receive the
    session cookie, and whatever it received, replayed to the share, gets nothing."""
    page.begin("log in")
    page.login()
    app = page.driver.current_url.split("#")[0]
    session = page.session_cookies()
    page.check(len(session) == 1, f"one session cookie ({session})")

    page.begin("another service on 127.0.0.1 receives no session cookie")
    other = OtherService({})
    try:
        for path in ("/", "/.sandbox/login", "/.sandbox/api/list?path=%2F", "/.sandbox/s/", "/index.html"):
            page.driver.get(other.base + path)
            page.wait(lambda: page.js("return document.readyState") == "complete", f"{path} on the other port loads")
        received = other.cookies()
    finally:
        other.close()
    page.result["otherServiceCookies"] = received
    leaked = [cookie for cookie in received if session[0]["value"] in cookie]
    page.check(not leaked, f"the other port got the session cookie: {leaked}")

    page.begin("what the other service received, replayed, gets nothing")
    for cookie in received + [f"{session[0]['name']}={session[0]['value']}"]:
        for path, headers in [
            ("/", {"Accept": "text/html", "Sec-Fetch-Site": "same-origin"}),
            ("/.sandbox/api/list?path=%2F", {"Sec-Fetch-Site": "same-origin"}),
            ("/.sandbox/download?path=%2Fkept.txt", {}),
        ]:
            status, _, body = page.http("GET", path, headers=dict(headers, Cookie=cookie))
            page.check(status in (303, 401, 404), f"GET {path} with {cookie[:40]}…: {status}")
            page.check(b"csrf-token" not in body and b"kept" not in body, f"GET {path} hands out nothing")

    page.begin("a read the browser makes from another site is refused, even on the session's own path")
    status, _, body = page.http(
        "GET", urllib.parse.urlsplit(app).path + "api/list?path=%2F",
        headers={"Cookie": f"{session[0]['name']}={session[0]['value']}", "Sec-Fetch-Site": "same-site"},
    )
    page.check(status == 403 and b"kept" not in body, f"a same-site (other port) read: 403 ({status})")
    page.driver.get(app)
    page.wait_for_app()
    page.wait_row("kept.txt")


def tls_scenario(page):
    """Over HTTPS with the device certificate trusted by its key alone: log in (the session
    cookie is Secure), list a planted file, upload one."""
    page.begin("log in over HTTPS")
    page.login()
    page.check(page.driver.current_url.startswith(page.base + "/.sandbox/s/"), "at the app page over https")
    session = page.session_cookies()
    page.check(len(session) == 1 and session[0].get("secure") is True, f"one Secure session cookie ({session})")
    page.begin("the planted file is listed")
    page.wait_row("kept.txt")
    page.begin("an upload through the picker")
    data = os.urandom(300_000)
    page.driver.find_element(By.ID, "upload-files").send_keys(page.write("sent over tls.bin", data))
    page.wait_uploaded(["/sent over tls.bin"])
    page.wait_row("sent over tls.bin")
    page.check(page.disk("sent over tls.bin") == data, "the uploaded bytes on disk")


def pairing_scenario(page):
    """A phone scanning the QR code: the pairing link (SHARE_PAIRING_LINK) logs the browser in at
    once and shows the certificate's fingerprint (SHARE_FINGERPRINT); the link again, from a
    browser without the cookie (a fresh profile, as the server sees it), is refused."""
    link = os.environ["SHARE_PAIRING_LINK"]
    fingerprint = os.environ["SHARE_FINGERPRINT"]
    page.begin("open the pairing link")
    page.driver.get(link)
    page.wait(lambda: page.driver.current_url.endswith("/paired"), "the link redirects to the paired page")
    page.check("/.sandbox/pair/" not in page.driver.current_url, "the token left the address bar")
    title = page.driver.find_element(By.ID, "pairing-title").text
    page.check(title == "Paired", f"the page says paired ({title})")
    text = page.driver.find_element(By.ID, "pairing-text").text
    page.check(fingerprint in text, f"the certificate's fingerprint is shown ({text})")
    page.check(len(page.session_cookies()) == 1, f"one session cookie ({page.session_cookies()})")
    page.begin("on to the documents")
    page.driver.find_element(By.ID, "pairing-next").click()
    page.wait_for_app()
    page.wait_row("kept.txt")
    page.begin("the link again, without the cookie")
    page.driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    page.driver.get(link)
    page.wait(lambda: page.js("return document.readyState") == "complete", "its answer loaded")
    title = page.driver.find_element(By.ID, "pairing-title").text
    page.check(title == "This pairing link was used", f"the second visit is refused ({title})")
    page.check(not page.session_cookies(), f"no session cookie ({page.session_cookies()})")


def lockout_scenario(page):
    """A page on another port posts wrong codes to the login form (fetch and a form): none
    counts, and the owner's right code then logs in."""
    attempts = 12
    target = f"{page.base}/.sandbox/login"
    attack = (
        "<!doctype html><title>attack</title>"
        f'<form method="post" action="{target}"><input type="hidden" name="code" value="wrong-0000-0000"></form>'
        "<script>"
        f"const posts = Array.from({{length: {attempts}}}, (_, i) => fetch({json.dumps(target)}, "
        "{method: 'POST', mode: 'no-cors', credentials: 'include', "
        "headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: 'code=wrong-' + i}));"
        "Promise.allSettled(posts).then(() => { document.title = 'posted'; });"
        "</script>"
    )
    other = OtherService({"/attack": attack})
    try:
        page.begin(f"{attempts} cross-site login posts from a page on another port")
        page.driver.get(other.base + "/attack")
        page.wait(lambda: page.driver.title == "posted", "the page's posts were sent")
        page.begin("and a form it submits")
        page.js("document.forms[0].submit()")
        page.wait(lambda: page.driver.current_url.startswith(page.base), "the form was sent")
        page.wait(lambda: page.js("return document.readyState") == "complete", "its answer loaded")
        page.result["crossSiteAnswer"] = page.js("return document.body ? document.body.innerText.slice(0, 300) : ''")
    finally:
        other.close()

    page.begin("the owner's right code still logs in")
    page.open("/.sandbox/login")
    page.driver.find_element(By.ID, "code").send_keys(page.code)
    page.driver.find_element(By.ID, "login-submit").click()
    page.wait(
        lambda: page.js("return document.querySelector('#breadcrumbs li') !== null")
        or page.js("const e = document.getElementById('login-error'); return e !== null && e.textContent.trim() !== ''"),
        "the login is answered",
    )
    error = page.js("const e = document.getElementById('login-error'); return e ? e.textContent.trim() : ''")
    page.check(not error, f"the owner is not locked out: {error}")
    page.wait_for_app()


def large_scenario(page, cancel_only=False):
    """Upload SCRATCH/large.bin (made by the test) from the page through the file picker: first
    cancelled midway (nothing may be left), then to the end, timed."""
    source = os.path.join(page.scratch, "large.bin")
    size = os.path.getsize(source)
    page.login()

    page.begin("cancel an upload midway")
    page.driver.find_element(By.ID, "upload-files").send_keys(source)
    page.wait(lambda: (page.upload_row("/large.bin") or {"percent": 0})["percent"] >= 1, "the upload gets going", 60)
    page.js("document.querySelector('#uploads li[data-upload=\"/large.bin\"] button').click()")
    page.wait(lambda: page.upload_row("/large.bin")["state"] == "cancelled", "the upload is cancelled")
    page.result["cancelledAtPercent"] = page.upload_row("/large.bin")["percent"]
    page.js("document.getElementById('clear-uploads').click()")
    if cancel_only:
        return

    page.begin(f"upload {size} bytes from the page")
    samples = []
    started = time.monotonic()
    page.driver.find_element(By.ID, "upload-files").send_keys(source)
    while True:
        row = page.upload_row("/large.bin")
        if row and row["state"] in ("done", "failed", "cancelled"):
            break
        if row:
            samples.append(row["percent"])
        if time.monotonic() - started > 600:
            raise CheckFailed("the 1 GiB upload did not finish within 600 s")
        time.sleep(0.25)
    seconds = time.monotonic() - started
    page.check(row["state"] == "done", f"the upload finished: {row}")
    page.check(row["percent"] == 100 and row["value"] == row["max"], f"its progress reached 100 % ({row})")
    between = sorted({sample for sample in samples if 0 < sample < 100})
    page.check(len(between) >= 2, f"progress was shown along the way ({between})")
    page.check(os.path.getsize(os.path.join(page.documents, "large.bin")) == size, "all its bytes are on disk")
    page.result["pageSeconds"] = round(seconds, 3)
    page.result["progressSamples"] = between


def limit_scenario(page):
    """An upload past the server's --max-upload (2 MB against 1 MiB): the row and the status area
    show the server's message."""
    page.login()
    page.begin("an upload past the limit is refused with the server's message")
    source = page.write("too large.bin", os.urandom(2_000_000))
    page.driver.find_element(By.ID, "upload-files").send_keys(source)
    page.wait(lambda: (page.upload_row("/too large.bin") or {}).get("state") == "failed", "the upload fails")
    page.check(page.status_text() != "", "the status area shows why")
    page.result["limitMessage"] = page.status_text()
    page.result["limitRow"] = page.upload_row("/too large.bin")["note"]


def details_scenario(page):
    """Against a server with --max-upload 1M and Documents holding "Résumé.pdf", its decomposed
    twin "Résumé draft.txt" (as macOS writes names), "resolve.txt", "Other.txt" and "Folder/": the
    filter ignores accents and case; finished uploads leave the Uploads panel when a folder is
    entered; a folder upload refused for its size leaves no folder behind; on a touch screen
    every control is at least 44 px."""
    page.login()

    page.begin("the filter folds accents and case")
    page.wait_row("Other.txt")
    decomposed = "Re\u0301sume\u0301 draft.txt"
    expected = sorted(["Résumé.pdf", decomposed, "resolve.txt"])
    for typed in ["res", "RÉS", "re\u0301s"]:
        field = page.driver.find_element(By.ID, "filter")
        field.clear()
        field.send_keys(typed)
        page.wait(lambda: sorted(page.names()) == expected, f"“{typed}” finds {expected} ({page.names()})")
    page.driver.find_element(By.ID, "filter").clear()
    page.js("document.getElementById('filter').dispatchEvent(new Event('input'))")
    page.wait(lambda: len(page.names()) == 5, "the filter cleared")

    page.begin("finished uploads leave the panel when a folder is entered")
    small = page.write("small.txt", b"small")
    page.driver.find_element(By.ID, "upload-files").send_keys(small)
    page.wait_uploaded(["/small.txt"])
    page.check(page.js("return !document.getElementById('uploads-panel').hidden"), "the panel shows the upload")
    page.click('#listing tr[data-name="Folder"] a.item')
    page.wait_row("inside.txt")
    page.check(page.upload_rows() == [], f"no finished upload is listed in the folder ({page.upload_rows()})")
    page.check(page.js("return document.getElementById('uploads-panel').hidden"), "the panel is gone")
    page.click('#breadcrumbs a[data-path="/"]')
    page.wait_row("Folder")

    page.begin("a folder upload refused for its size leaves no folder")
    big = page.write("Big/Deep/too large.bin", os.urandom(2_000_000))
    page.driver.find_element(By.ID, "upload-folder").send_keys(os.path.dirname(os.path.dirname(big)))
    page.wait(lambda: (page.upload_row("/Big/Deep/too large.bin") or {}).get("state") == "failed", "the upload fails")
    page.check(not page.on_disk("Big"), f"no folder Big on disk ({os.listdir(page.documents)})")
    page.wait_row("Big", present=False)

    page.begin("touch targets of 44 px on a touch screen")
    page.driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    page.driver.set_window_size(375, 800)
    page.wait(lambda: page.js("return matchMedia('(pointer: coarse)').matches && window.innerWidth <= 375"), "a phone")
    small_targets = page.js(
        """
        return [...document.querySelectorAll('button, a.button, label.button, input[type=search], #listing a.item')]
          .filter(element => element.getClientRects().length > 0 && !element.closest('dialog'))
          .map(element => ({text: (element.textContent || element.id || element.tagName).trim().slice(0, 30),
                            width: element.getBoundingClientRect().width, height: element.getBoundingClientRect().height}))
          .filter(box => box.height < 44 || box.width < 44)
        """
    )
    page.check(small_targets == [], f"controls smaller than 44 px: {small_targets}")
    page.screenshot(os.path.join(page.scratch, "share-page-touch.png"))
    page.driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
    page.driver.set_window_size(1280, 860)


def listing_scenario(page):
    """Documents/Big holds many files (f00000.txt…): entering it shows its first rows at once (the
    server sends the first page of 200, the rest follows in pages of 5,000), timed in the page from
    the click to the first row in the table; scrolling reaches the last one with at most 600 rows in
    the table, and scrolling back reaches the first."""
    names = sorted(os.listdir(os.path.join(page.documents, "Big")))
    page.login()
    page.wait_row("Big")
    page.begin(f"a folder of {len(names)} files shows its first screen")
    page.js(
        """
        const first = arguments[0];
        window.firstRowMilliseconds = null;
        const listing = document.getElementById("listing");
        const started = performance.now();
        new MutationObserver((_, observer) => {
          if (listing.rows[0]?.dataset.name !== first) return;
          window.firstRowMilliseconds = performance.now() - started;
          observer.disconnect();
        }).observe(listing, { childList: true });
        [...listing.rows].find((tr) => tr.dataset.name === "Big").querySelector("a.item").click();
        """,
        names[0],
    )
    page.wait(lambda: page.js("return window.firstRowMilliseconds") is not None, f"the first row {names[0]} appears")
    page.result["pageSeconds"] = round(page.js("return window.firstRowMilliseconds") / 1000, 3)
    rows = len(page.names())
    page.check(rows < len(names), f"the rows are put in the table a page at a time ({rows} of {len(names)})")
    page.check(page.names()[:3] == names[:3], f"in order: {page.names()[:3]}")
    page.begin("scrolling reaches the last row")
    # Scrolled from inside the page, a frame at a time: the time is the page's, not WebDriver's.
    page.driver.set_script_timeout(200)
    milliseconds = page.driver.execute_async_script(
        """
        const [last, done] = [arguments[0], arguments[arguments.length - 1]];
        const rows = document.getElementById("listing").rows;
        const started = performance.now();
        const step = () => {
          if (rows.length > 0 && rows[rows.length - 1].dataset.name === last) return done(performance.now() - started);
          if (performance.now() - started > 180000) return done(-rows.length);
          window.scrollTo(0, document.body.scrollHeight);
          requestAnimationFrame(() => setTimeout(step, 0));
        };
        step();
        """,
        names[-1],
    )
    if milliseconds < 0:
        raise CheckFailed(f"the last row {names[-1]} did not appear within 180 s ({-milliseconds} rows)")
    page.result["scrollSeconds"] = round(milliseconds / 1000, 3)
    rows = page.names()
    page.check(len(rows) <= 600, f"the table holds a window of rows, not all {len(names)} ({len(rows)})")
    at = names.index(rows[0])
    page.check(rows == names[at : at + len(rows)], f"the window's rows are in order, from {rows[0]}")
    page.wait(lambda: page.js("return document.getElementById('more').hidden"), "the marker is gone at the end")
    page.begin("scrolling back reaches the first row")
    milliseconds = page.driver.execute_async_script(
        """
        const [first, done] = [arguments[0], arguments[arguments.length - 1]];
        const rows = document.getElementById("listing").rows;
        const started = performance.now();
        const step = () => {
          if (rows.length > 0 && rows[0].dataset.name === first && window.scrollY === 0) return done(performance.now() - started);
          if (performance.now() - started > 120000) return done(-1);
          window.scrollTo(0, 0);
          requestAnimationFrame(() => setTimeout(step, 0));
        };
        step();
        """,
        names[0],
    )
    page.check(milliseconds >= 0, f"the first row {names[0]} came back ({page.names()[:1]})")
    rows = page.names()
    page.check(rows == names[: len(rows)], f"from the first row on, in order ({len(rows)} rows)")


def devices_scenario(page):
    """The owner's page lists a second browser paired with the pairing link (SHARE_PAIRING_LINK),
    which sees no devices section itself; the owner revokes it, and its next request is refused
    and its page goes to the login page."""
    link = os.environ["SHARE_PAIRING_LINK"]
    page.begin("the owner logs in with the code")
    page.login()
    page.wait(lambda: page.js("return !document.getElementById('devices-panel').hidden"), "the owner sees Devices")
    page.check(
        page.js("return document.querySelectorAll('#devices tr').length") == 1, "one device: the owner's browser"
    )
    second_scratch = os.path.join(page.scratch, "second")
    os.makedirs(second_scratch, exist_ok=True)
    page.begin("a second browser opens the pairing link")
    second = Page(page.base, page.code, second_scratch, page.documents)
    try:
        second.driver.get(link)
        second.wait(lambda: second.driver.current_url.endswith("/paired"), "the link logs the second browser in")
        second.driver.find_element(By.ID, "pairing-next").click()
        second.wait_for_app()
        second.wait_row("kept.txt")
        second.check(
            second.js("return document.getElementById('devices-panel').hidden"), "a paired browser sees no Devices"
        )
        page.begin("the owner sees it listed, with when it was last seen")
        other = "[...document.querySelectorAll('#devices tr')].find(tr => tr.dataset.current === 'false')"
        deadline = time.monotonic() + 20
        while page.js(f"return {other} ?? null") is None:
            if time.monotonic() > deadline:
                raise CheckFailed("the paired browser is not listed on the owner's page")
            page.driver.refresh()
            page.wait_for_app()
            page.wait(lambda: page.js("return !document.getElementById('devices-panel').hidden"), "Devices loads")
        row_text = page.js(f"return {other}.textContent")
        page.check("Chrome" in row_text, f"the row names the browser ({row_text})")
        times = page.js(f"return {other}.querySelectorAll('time').length")
        page.check(times == 2, f"logged in and last seen are shown ({times} times)")
        page.begin("the owner revokes it")
        page.js(f"{other}.querySelector('button[data-revoke]').click()")
        page.wait(lambda: page.js(f"return {other} ?? null") is None, "the revoked browser leaves the list")
        page.begin("the revoked browser's next request is refused")
        status = second.js(
            "return fetch('api/list?path=%2F', {credentials: 'same-origin'}).then(r => r.status)"
        )
        second.check(status == 401, f"its next request is refused ({status})")
        second.driver.refresh()
        second.wait(lambda: second.driver.current_url.endswith("/.sandbox/login"), "its page goes to the login page")
        page.begin("the owner goes on")
        page.driver.refresh()
        page.wait_for_app()
        page.wait_row("kept.txt")
    finally:
        second.driver.quit()


SCENARIOS = {
    "page": page_scenario,
    "security": security_scenario,
    "leak": leak_scenario,
    "lockout": lockout_scenario,
    "large": large_scenario,
    "limit": limit_scenario,
    "details": details_scenario,
    "tls": tls_scenario,
    "pairing": pairing_scenario,
    "listing": listing_scenario,
    "devices": devices_scenario,
    "cancel": lambda page: large_scenario(page, cancel_only=True),
}


def main():
    if len(sys.argv) != 6 or sys.argv[4] not in SCENARIOS:
        print(__doc__, file=sys.stderr)
        return 2
    url, code, scratch, scenario, documents = sys.argv[1:]
    page = None
    result = {}
    try:
        page = Page(url, code, scratch, documents)
        result = page.result
        SCENARIOS[scenario](page)
        result["ok"] = True
    except Exception as error:  # every failure ends as the JSON line, whatever raised it
        result["ok"] = False
        result["failed"] = page.step if page else "starting Chromium"
        message = getattr(error, "msg", None) or str(error)  # Selenium's without its stack of addresses
        result["error"] = f"{type(error).__name__}: {message}"
        if page:
            try:
                page.screenshot(os.path.join(scratch, "failure.png"))
                result["console"] = [entry["message"] for entry in page.driver.get_log("browser")][-20:]
                result["url"] = page.driver.current_url
            except Exception as secondary:  # the browser itself is gone: the first error is the one to report
                result["screenshotError"] = str(secondary)
    finally:
        if page:
            page.driver.quit()
    print("RESULT " + json.dumps(result), flush=True)
    return 0 if result.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
