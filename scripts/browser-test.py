#!/usr/bin/env python3
"""A real browser against `handover demo --keep-running`: headless Chromium through selenium.

It signs in to the dashboard with the demo's admin key, registers an app through the form, finds
the demo's phone in the out-of-service queue and puts it back in service (refused without a note,
then with one), runs the ULC tester against a simulated conformant app and sees the verdict appear without the
page reloading, then does the same with a silent app and sees the timeout verdict, and hands the phone over
from its page. It imports a Jamf Pro export (site "Ward 7") through the import's preview, deletes
an imported device and retires another from their pages. It reads who is signed in in
the header, makes a viewer key on the Keys page (refused first, by field), signs in with it and
fails if any page it visits offers the viewer a form it cannot use. Every page
is saved as a PNG under .ci/artifacts/ (and the dashboard once more at phone size). Last, against a
`handover serve` whose MDM policy is erase, it confirms an erase on a device's page: refused with a
wrong name, sent with the right one. It reads the week's usage report and the alerts page. It signs a person in through the identity provider's own page
(oidc-provider-mock, Tests/Peers/identity_provider.py) and out again at the provider; then an
admin gives that person a local role on the People page.

Usage: python3 scripts/browser-test.py [path/to/handover]   (default .build/debug/handover)
Needs: Debian chromium and chromium-driver, and selenium from PyPI (bash .ci/run installs them).
"""
import os
import re
import subprocess
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARTIFACTS = os.path.join(ROOT, ".ci", "artifacts")


def start_demo(binary):
    """Starts the demo and returns (process, base URL, admin key) once it prints them."""
    process = subprocess.Popen([binary, "demo", "--keep-running"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    base = key = None
    deadline = time.time() + 180
    while time.time() < deadline and (base is None or key is None):
        line = process.stdout.readline()
        if not line:
            raise SystemExit("the demo exited before printing its dashboard URL")
        print("demo> " + line.rstrip())
        match = re.match(r"Dashboard: (http://\S+)/dashboard", line)
        if match:
            base = match.group(1)
        match = re.match(r"Admin key: (\S+)", line)
        if match:
            key = match.group(1)
    if base is None or key is None:
        raise SystemExit("the demo did not print its dashboard URL and admin key within 180 s")
    return process, base, key


def browser():
    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000"]:
        options.add_argument(argument)
    for candidate in ["/usr/bin/chromium", "/usr/bin/chromium-browser"]:
        if os.path.exists(candidate):
            options.binary_location = candidate
    driver_path = next((p for p in ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"] if os.path.exists(p)), None)
    service = Service(driver_path) if driver_path else Service()
    return webdriver.Chrome(service=service, options=options)


def text_of(driver, element_id):
    """The text of an element, read through the DOM: a page that is navigating or replacing
    its live blocks leaves no stale element behind."""
    return driver.execute_script(
        "var e=document.getElementById(arguments[0]);return e?e.innerText:'';", element_id) or ""


def texts_of(driver, selector):
    """The text of every element a CSS selector matches, read in one script: a page that
    navigates between finding a row and reading it leaves no stale element behind."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).map(function(e){return e.innerText;});",
        selector) or []


def shot(driver, name):
    path = os.path.join(ARTIFACTS, name + ".png")
    driver.save_screenshot(path)
    print("screenshot: " + os.path.relpath(path, ROOT))


def run_tester(driver, base, behaviour, expected_status, expected_text, name):
    driver.get(base + "/tester")
    Select(driver.find_element(By.ID, "simulate")).select_by_value(behaviour)
    driver.find_element(By.CSS_SELECTOR, "#tester-form button[type=submit]").click()
    WebDriverWait(driver, 20).until(EC.presence_of_element_located((By.ID, "verdict")))
    # A marker on the window: it survives only if the page is never reloaded.
    driver.execute_script("window.__handoverNoReload = 'still here';")
    # The live block is replaced on every update, so read it through the DOM, never a held element.
    read = "var v=document.getElementById('verdict');return v?[v.getAttribute('data-status'),v.innerText]:['missing',''];"
    WebDriverWait(driver, 120).until(lambda d: d.execute_script(read)[0] not in ("running", "missing"))
    status, text = driver.execute_script(read)
    marker = driver.execute_script("return window.__handoverNoReload;")
    driver.execute_script("document.getElementById('verdict').scrollIntoView();")
    shot(driver, name)
    if marker != "still here":
        raise SystemExit(f"{behaviour}: the page reloaded; the verdict must arrive live")
    if status != expected_status or expected_text not in text:
        raise SystemExit(f"{behaviour}: expected {expected_status} with '{expected_text}', got {status}:\n{text}")
    print(f"ok: simulated {behaviour} app -> {status} ({expected_text})")


def start_serve_with_mdm(binary, folder, badge_lookup=None):
    """`handover serve` whose MDM policy is erase through the webhook connector (and whose badge
    lookup is `badge_lookup`); returns (process, base URL, admin key)."""
    env = dict(os.environ, HANDOVER_MDM="webhook", HANDOVER_MDM_ACTION="erase")
    if badge_lookup:
        env["HANDOVER_BADGE_LOOKUP_URL"] = badge_lookup
    process = subprocess.Popen([binary, "serve", "--port", "0", "--data-dir", folder], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=env)
    base = key = None
    deadline = time.time() + 60
    while time.time() < deadline and (base is None or key is None):
        line = process.stdout.readline()
        if not line:
            raise SystemExit("handover serve exited before printing its address and admin key")
        match = re.match(r"Handover is listening on (http://\S+) ", line)
        if match:
            base = match.group(1)
        if line.startswith("Press Ctrl-C"):  # the first start's admin key is in the data directory, not the output
            with open(os.path.join(folder, "first-admin-key")) as file:
                key = file.read().strip()
    return process, base, key


def api(base, key, method, path, body=None):
    import json
    import urllib.request
    request = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def erase_confirmation(binary):
    """An erase waits for a person to type the device's name on its page."""
    import tempfile
    folder = tempfile.mkdtemp(prefix="handover-browser-mdm-")
    # The customer's badge directory, for a launcher's check-out by badge.
    badges = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests", "Peers", "badge_directory.py"),
                               "04217733=grace@hospital.example"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lookup = "http://127.0.0.1:" + badges.stdout.readline().strip() + "/lookup"
    process, base, key = start_serve_with_mdm(binary, folder, badge_lookup=lookup)
    driver = None
    try:
        app = api(base, key, "POST", "/api/v1/apps", {"name": "Mail", "appIDs": ["ABCDE12345.com.example.mail"],
                                                      "logoutAction": "https://mail.example.com/logout", "deadlineSeconds": 1,
                                                      "maxReissues": 0})
        created = api(base, key, "POST", "/api/v1/devices", {"name": "ward-9-phone-4", "serialNumber": "C02BROWSER01"})
        device = created["device"]["id"]
        api(base, created["key"], "POST", f"/api/v1/devices/{device}/logout-runs", {"apps": [app["id"]]})
        time.sleep(3)  # the run times out after a second; the device goes out of service and owes an erase
        driver = browser()
        driver.get(base + "/dashboard")
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.NAME, "key")))
        driver.find_element(By.NAME, "key").send_keys(key)
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "overview")))
        driver.get(f"{base}/dashboard/devices/{device}")
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "erase")))
        driver.execute_script("document.getElementById('mdm').scrollIntoView();")
        shot(driver, "09-erase-waits")
        driver.find_element(By.ID, "confirm").send_keys("ward-9-phone-5")
        driver.find_element(By.CSS_SELECTOR, "#erase button[type=submit]").click()
        WebDriverWait(driver, 10).until(lambda d: "type the device's name" in text_of(d, "erase"))
        driver.find_element(By.ID, "confirm").send_keys("ward-9-phone-4")
        driver.find_element(By.CSS_SELECTOR, "#erase button[type=submit]").click()
        WebDriverWait(driver, 10).until(lambda d: "erase confirmed" in text_of(d, "history"))
        # The webhook connector sends it on the server's next pass (every second).
        deadline = time.time() + 10
        while time.time() < deadline and "sent" not in text_of(driver, "mdm"):
            time.sleep(0.5)
            driver.refresh()
        if "sent" not in text_of(driver, "mdm") or driver.find_elements(By.ID, "erase"):
            raise SystemExit("the confirmed erase was not sent:\n" + text_of(driver, "mdm"))
        shot(driver, "10-erase-confirmed")
        print("ok: an erase waits for the device's name, then goes to the MDM")

        # A launcher checks a nurse out by badge: the device page shows who holds it now.
        held = api(base, key, "POST", "/api/v1/devices", {"name": "ward-9-phone-6"})
        api(base, held["key"], "POST", f"/api/v1/devices/{held['device']['id']}/custody", {"badge": "04217733"})
        driver.get(f"{base}/dashboard/devices/{held['device']['id']}")
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "holder")))
        holder = text_of(driver, "holder")
        if "Held by grace@hospital.example" not in holder or "(badge)" not in holder:
            raise SystemExit("the device page does not show who holds it:\n" + holder)
        driver.execute_script("document.getElementById('custody').scrollIntoView();")
        shot(driver, "11-device-held")
        print("ok: the device page shows its holder, checked out by badge")
    finally:
        if driver is not None:
            driver.quit()
        badges.terminate()
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def provider_sign_in(binary):
    """A person signs in through the organisation's identity provider (oidc-provider-mock, its
    own sign-in page), gets the role their groups map to, and signs out at the provider too."""
    import json
    import tempfile
    import urllib.request
    peer = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests", "Peers", "identity_provider.py")],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    issuer = "http://127.0.0.1:" + peer.stdout.readline().strip()
    request = urllib.request.Request(issuer + "/users/ada", method="PUT", headers={"Content-Type": "application/json"},
                                     data=json.dumps({"name": "Ada Lovelace", "email": "ada@hospital.example",
                                                      "groups": ["ward-leads"]}).encode())
    urllib.request.urlopen(request, timeout=10).close()
    folder = tempfile.mkdtemp(prefix="handover-browser-people-")
    env = dict(os.environ, HANDOVER_ADMIN_OIDC_ISSUER=issuer, HANDOVER_ADMIN_OIDC_CLIENT_ID="handover-dashboard",
               HANDOVER_ADMIN_OIDC_CLIENT_SECRET="s3cret", HANDOVER_ADMIN_ROLE_MAP="handover-admins=admin,ward-leads=operator")
    process = subprocess.Popen([binary, "serve", "--port", "0", "--data-dir", folder], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=env)
    base = None
    deadline = time.time() + 60
    while time.time() < deadline and base is None:
        line = process.stdout.readline()
        if not line:
            raise SystemExit("handover serve exited before printing its address")
        match = re.match(r"Handover is listening on (http://\S+) ", line)
        if match:
            base = match.group(1)
    driver = None
    try:
        driver = browser()
        driver.get(base + "/")
        if "sign in with your organisation" not in driver.page_source or "admin API key" in driver.page_source:
            raise SystemExit("the home page should speak of the identity provider, not of admin keys")
        driver.get(base + "/dashboard")
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.LINK_TEXT, "Sign in with your organisation")))
        if driver.find_elements(By.NAME, "key"):
            raise SystemExit("admin keys should not open the dashboard while a provider is configured")
        shot(driver, "16-sign-in-with-provider")
        driver.find_element(By.LINK_TEXT, "Sign in with your organisation").click()
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.NAME, "sub")))
        shot(driver, "17-provider-sign-in-page")
        driver.find_element(By.NAME, "sub").send_keys("ada")
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "overview")))
        if "Sign out everywhere" not in driver.page_source or "/dashboard/people" in driver.page_source:
            raise SystemExit("an operator's dashboard should offer 'sign out everywhere' and no People page")
        who = text_of(driver, "signed-in")
        if "Ada Lovelace" not in who or "operator at every site" not in who:
            raise SystemExit("the header should name the person and their role:\n" + who)
        shot(driver, "18-signed-in-as-operator")
        driver.find_element(By.CSS_SELECTOR, "form[action='/dashboard/sign-out'] button").click()
        WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(issuer + "/oauth2/end_session"))
        shot(driver, "19-signed-out-at-the-provider")
        driver.get(base + "/dashboard")
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.LINK_TEXT, "Sign in with your organisation")))
        print("ok: signed in through the identity provider's page as an operator, and out again at the provider")

        # Grace, an admin at the provider, gives Ada a local role on the People page (a wrong
        # entry refused by field first); the history records it.
        request = urllib.request.Request(issuer + "/users/grace", method="PUT", headers={"Content-Type": "application/json"},
                                         data=json.dumps({"name": "Grace Hopper", "email": "grace@hospital.example",
                                                          "groups": ["handover-admins"]}).encode())
        urllib.request.urlopen(request, timeout=10).close()
        driver.find_element(By.LINK_TEXT, "Sign in with your organisation").click()
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.NAME, "sub")))
        driver.find_element(By.NAME, "sub").send_keys("grace")
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "overview")))
        driver.get(base + "/dashboard/people")

        def ada_row():
            return next(row for row in driver.find_elements(By.CSS_SELECTOR, "#people tr") if "ada@hospital.example" in row.text)

        box = ada_row().find_element(By.NAME, "roles")
        box.send_keys("superuser")
        ada_row().find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        WebDriverWait(driver, 10).until(lambda d: "roles: entry 1" in text_of(d, "people"))
        box = ada_row().find_element(By.NAME, "roles")
        box.clear()
        box.send_keys("viewer@Ward 7")
        ada_row().find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        WebDriverWait(driver, 10).until(lambda d: "local roles to viewer@Ward 7" in text_of(d, "sign-ins"))
        shot(driver, "29-people-local-role")
        print("ok: an admin gave a person a local role on the People page (a wrong entry refused by field first)")
    finally:
        if driver is not None:
            driver.quit()
        for child in (process, peer):
            child.terminate()
            try:
                child.wait(timeout=20)
            except subprocess.TimeoutExpired:
                child.kill()


def fleet_scale(binary):
    """10,000 devices (imported from a CSV file): the overview shows counts, and the device list
    is paged and searched on the server."""
    import tempfile
    folder = tempfile.mkdtemp(prefix="handover-browser-fleet-")
    csv_path = os.path.join(folder, "fleet.csv")
    with open(csv_path, "w") as handle:
        handle.write("name,serialNumber\n")
        for ward in range(1, 101):
            for phone in range(1, 101):
                handle.write(f"ward-{ward:03d}-phone-{phone:03d},C0{ward:03d}{phone:03d}FLT\n")
    process, base, key = start_serve_with_mdm(binary, os.path.join(folder, "data"))
    driver = None
    try:
        started = time.time()
        subprocess.run([binary, "admin", "import-devices", csv_path, "--data-dir", os.path.join(folder, "data"),
                        "--keys-out", os.path.join(folder, "keys.csv")], check=True, stdout=subprocess.DEVNULL)
        print(f"imported 10,000 devices in {time.time() - started:.1f} s")
        driver = browser()
        driver.get(base + "/dashboard")
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.NAME, "key")))
        driver.find_element(By.NAME, "key").send_keys(key)
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "fleet")))
        if "Devices (10000)" not in text_of(driver, "fleet") or "ward-050-phone-050" in driver.page_source:
            raise SystemExit("the overview of 10,000 devices should count them, not list them:\n" + text_of(driver, "fleet"))
        shot(driver, "11-overview-10000-devices")
        driver.find_element(By.LINK_TEXT, "Search the devices →").click()
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "devices")))
        if "page 1 of 200" not in text_of(driver, "matches"):
            raise SystemExit("expected 200 pages of 50: " + text_of(driver, "matches"))
        driver.find_element(By.CSS_SELECTOR, "a[rel=next]").click()
        WebDriverWait(driver, 10).until(lambda d: "page 2 of 200" in text_of(d, "matches"))
        if "ward-001-phone-051" not in text_of(driver, "devices"):
            raise SystemExit("page 2 should start at the 51st device:\n" + text_of(driver, "devices")[:300])
        box = driver.find_element(By.NAME, "q")
        box.clear()
        box.send_keys("WARD-042-phone-01")
        driver.find_element(By.CSS_SELECTOR, "form.search button[type=submit]").click()
        WebDriverWait(driver, 10).until(lambda d: "10 devices match" in text_of(d, "matches"))
        shot(driver, "12-devices-search")
        driver.find_element(By.NAME, "q").clear()
        driver.find_element(By.NAME, "q").send_keys("C0042017")
        driver.find_element(By.CSS_SELECTOR, "form.search button[type=submit]").click()
        WebDriverWait(driver, 10).until(lambda d: "1 device match" in text_of(d, "matches"))
        if "ward-042-phone-017" not in text_of(driver, "devices"):
            raise SystemExit("the serial number search found the wrong device")
        print("ok: 10,000 devices, counted on the overview, paged and searched by name and serial number")

        # A small storm on this fleet (100 more phones, 5 apps, a tenth of links stalled), then
        # the scorecards IT compares the apps by.
        started = time.time()
        subprocess.run([binary, "bench", "shift-change", "--server", base, "--admin-key", key, "--devices", "100", "--apps", "5",
                        "--window", "10", "--deadline", "2", "--stall-rate", "0.1", "--page-samples", "0"],
                       check=True, stdout=subprocess.DEVNULL)
        print(f"played 100 hand-overs in {time.time() - started:.1f} s")
        driver.get(base + "/dashboard/scorecards")
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "scorecards")))
        if "%" not in text_of(driver, "scorecards"):
            raise SystemExit("the scorecards show no success rate:\n" + text_of(driver, "scorecards"))
        driver.find_element(By.CSS_SELECTOR, "#scorecards a").click()
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#chart svg rect")))
        windows = text_of(driver, "windows")
        if "Last 7 days" not in windows or "Last 30 days" not in windows:
            raise SystemExit("the scorecard lacks its windows:\n" + windows)
        shot(driver, "14-scorecard")
        driver.execute_script("document.getElementById('chart').scrollIntoView();")
        shot(driver, "15-scorecard-chart")
        print("ok: the scorecards after a storm, and an app's chart")
    finally:
        if driver is not None:
            driver.quit()
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def forms_refused_to(driver):
    """The actions of the page's forms that post, other than signing out."""
    from urllib.parse import urlparse
    actions = [urlparse(form.get_attribute("action")).path for form in driver.find_elements(By.CSS_SELECTOR, "form[method=post]")]
    return [action for action in actions if not action.startswith("/dashboard/sign-out")]


def import_retire_delete(driver, base, key):
    """An admin imports a Jamf Pro export whose site is "Ward 7" on the dashboard: a preview with
    nothing written (the refused row with its line, field and reason), then the import. One
    imported device, which no hand-over names, is deleted from its page; the other is retired
    (refused without a note first), and the device list shows it only under Retired."""
    import tempfile
    folder = tempfile.mkdtemp(prefix="handover-browser-import-")
    path = os.path.join(folder, "jamf-export.csv")
    with open(path, "w") as handle:
        handle.write("Display Name,Serial Number,UDID,Model,Management ID,Site\n"
                     "Ward 7 phone 1,C02BRWSR0001,00008030-00A1,iPhone 13,0a7e5c3c-1111-4f0b-9a51-6d7b9f1d2c01,Ward 7\n"
                     "Ward 7 phone 2,C02BRWSR0002,00008030-00A2,iPhone 13,0a7e5c3c-2222-4f0b-9a51-6d7b9f1d2c02,Ward 7\n"
                     "Ward 7 phone 3,C02BRWSR0001,00008030-00A3,iPhone 13,0a7e5c3c-3333-4f0b-9a51-6d7b9f1d2c03,Ward 7\n")
    driver.get(base + "/dashboard/devices")
    driver.find_element(By.LINK_TEXT, "Import devices (CSV)").click()
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "import-form")))
    driver.find_element(By.CSS_SELECTOR, "#import-form input[type=file]").send_keys(path)
    driver.find_element(By.CSS_SELECTOR, "#import-form button[type=submit]").click()
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "to-add")))
    added, refused = text_of(driver, "to-add"), text_of(driver, "refused")
    if "To add (2)" not in added or "Ward 7 phone 2" not in added or "Ward 7" not in added:
        raise SystemExit("the preview should list the two devices to add at Ward 7:\n" + added)
    if "Refused (1)" not in refused or "serialNumber" not in refused or "already on line 2" not in refused:
        raise SystemExit("the preview should list the refused row with its line, field and reason:\n" + refused)
    if any(device["name"].startswith("Ward 7 phone") for device in api(base, key, "GET", "/api/v1/devices")):
        raise SystemExit("the preview wrote devices")
    shot(driver, "26-import-preview")
    driver.find_element(By.CSS_SELECTOR, "#confirm-import button[type=submit]").click()
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "imported")))
    if "Imported 2 devices" not in text_of(driver, "imported"):
        raise SystemExit("the import did not import what was previewed:\n" + text_of(driver, "imported"))
    shot(driver, "27-imported")
    print("ok: a Jamf Pro export with site 'Ward 7' previewed with nothing written, then imported")

    ids = {device["name"]: device["id"] for device in api(base, key, "GET", "/api/v1/devices")}
    driver.get(f"{base}/dashboard/devices/{ids['Ward 7 phone 2']}")
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "retire")))
    driver.find_element(By.CSS_SELECTOR, "#retire form[action$='/delete'] button").click()
    WebDriverWait(driver, 10).until(lambda d: "Ward 7 phone 2 is deleted" in d.page_source)
    print("ok: an imported device no hand-over names deleted from its page")

    driver.get(f"{base}/dashboard/devices/{ids['Ward 7 phone 1']}")
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "retire")))
    driver.find_element(By.CSS_SELECTOR, "#retire form[action$='/retire'] button").click()  # no note: refused
    WebDriverWait(driver, 10).until(lambda d: "note: say why the device leaves the fleet" in text_of(d, "retire"))
    driver.find_element(By.ID, "retire-note").send_keys("Screen broken; sent for recycling, ticket 5120.")
    driver.find_element(By.CSS_SELECTOR, "#retire form[action$='/retire'] button").click()
    WebDriverWait(driver, 10).until(lambda d: "sent for recycling" in text_of(d, "history"))
    # No hand-over, key or retire form is left; delete stays while no hand-over names the device.
    left = [action for action in forms_refused_to(driver) if not action.endswith("/delete")]
    if driver.find_elements(By.ID, "hand-over") or left:
        raise SystemExit(f"a retired device's page should offer no hand-over, key or retire form: {left}")
    shot(driver, "28-retired")
    driver.get(base + "/dashboard/devices")
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "matches")))
    if "Ward 7 phone 1" in driver.page_source:
        raise SystemExit("the device list should leave a retired device out")
    driver.find_element(By.LINK_TEXT, "Retired").click()
    WebDriverWait(driver, 10).until(lambda d: "Ward 7 phone 1" in text_of(d, "devices"))
    print("ok: a device retired from its page (refused without a note first), listed apart")


def keys_and_viewer(driver, base, device_page, admin_key):
    """The header names who is signed in; an admin makes a viewer key on the Keys page (refused
    first with a wrong lifetime, by field), then the viewer signs in with it and is offered no
    form it cannot use on any page it visits."""
    driver.get(base + "/dashboard")
    who = text_of(driver, "signed-in")
    if "admin at every site" not in who or "Sign out" not in who:
        raise SystemExit("the header does not say who is signed in, their role and sites:\n" + who)
    driver.get(base + "/tester")
    tests = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "a[href^='/tester/']")]
    driver.get(base + "/dashboard/keys")
    driver.find_element(By.CSS_SELECTOR, "#key-form input[name=name]").send_keys("ward-7 wall screen")
    Select(driver.find_element(By.CSS_SELECTOR, "#key-form select[name=role]")).select_by_value("viewer")
    driver.find_element(By.CSS_SELECTOR, "#key-form input[name=expiresIn]").send_keys("forever")
    driver.find_element(By.CSS_SELECTOR, "#key-form button[type=submit]").click()
    WebDriverWait(driver, 10).until(lambda d: "expiresIn:" in text_of(d, "form-error"))
    shot(driver, "22-key-form-refused")
    box = driver.find_element(By.CSS_SELECTOR, "#key-form input[name=expiresIn]")
    box.clear()
    box.send_keys("90d")
    driver.find_element(By.CSS_SELECTOR, "#key-form button[type=submit]").click()
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "new-key")))
    viewer_key = text_of(driver, "new-key").strip()
    if not viewer_key.startswith("hov_"):
        raise SystemExit("the new key is not shown: " + viewer_key)
    shot(driver, "23-key-made")
    driver.get(base + "/dashboard/keys")
    if "ward-7 wall screen" not in text_of(driver, "keys") or viewer_key in driver.page_source:
        raise SystemExit("the keys list should show the new key by name, never the key itself")
    print("ok: an admin made a viewer key on the Keys page (a wrong lifetime refused by field first)")

    driver.find_element(By.CSS_SELECTOR, "#signed-in form[action='/dashboard/sign-out'] button").click()
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.NAME, "key")))
    driver.find_element(By.NAME, "key").send_keys(viewer_key)
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "overview")))
    who = text_of(driver, "signed-in")
    if "ward-7 wall screen" not in who or "viewer at every site" not in who:
        raise SystemExit("the viewer's header does not name the key and its role:\n" + who)
    shot(driver, "24-signed-in-as-viewer")
    pages = ["/dashboard", "/dashboard/devices", device_page, "/dashboard/apps", "/dashboard/webhooks", "/dashboard/custody",
             "/dashboard/scorecards", "/dashboard/alerts", "/dashboard/reports/usage", "/tester"] + tests[:1]
    for page in pages:
        driver.get(page if page.startswith("http") else base + page)
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "signed-in")))
        offered = forms_refused_to(driver)
        if offered:
            shot(driver, "25-viewer-offered-a-form")
            raise SystemExit(f"{page} offers a viewer forms it cannot use: {offered}")
    for page in ["/dashboard/keys", "/dashboard/devices/import", "/dashboard/people"]:
        driver.get(base + page)
        if "Not allowed" not in driver.find_element(By.TAG_NAME, "h1").text:
            raise SystemExit(f"a viewer should not see {page}")
    print(f"ok: a viewer signed in with the new key, was offered no form it cannot use on {len(pages)} pages")
    driver.find_element(By.CSS_SELECTOR, "#signed-in form[action='/dashboard/sign-out'] button").click()
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.NAME, "key")))
    driver.find_element(By.NAME, "key").send_keys(admin_key)
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "overview")))


def keys_revoked_rekeyed_and_for_a_site(driver, base, device_page):
    """An admin revokes the viewer key on the Keys page, makes a key for one site (refused first for a
    site name that cannot be one), and replaces, then revokes, a device's key from its page."""
    driver.get(base + "/dashboard/keys")
    row = [r for r in driver.find_elements(By.CSS_SELECTOR, "#keys tr") if "ward-7 wall screen" in r.text][0]
    row.find_element(By.CSS_SELECTOR, "form[action$='/revoke'] button").click()
    WebDriverWait(driver, 10).until(lambda d: any("ward-7 wall screen" in r and "revoked" in r
                                                  for r in texts_of(d, "#keys tr")))
    print("ok: the viewer key revoked on the Keys page")
    for site in ["Ward+7", "Ward 7"]:
        driver.find_element(By.CSS_SELECTOR, "#key-form input[name=name]").clear()
        driver.find_element(By.CSS_SELECTOR, "#key-form input[name=name]").send_keys("ward-7 desk")
        Select(driver.find_element(By.CSS_SELECTOR, "#key-form select[name=role]")).select_by_value("operator")
        box = driver.find_element(By.CSS_SELECTOR, "#key-form input[name=site]")
        box.clear()
        box.send_keys(site)
        driver.find_element(By.CSS_SELECTOR, "#key-form button[type=submit]").click()
        if site == "Ward+7":
            WebDriverWait(driver, 10).until(lambda d: "site:" in text_of(d, "form-error"))
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "new-key")))
    if "at Ward 7 only" not in driver.page_source:
        raise SystemExit("the site's key page does not say it is for Ward 7 only")
    driver.get(base + "/dashboard/keys")
    if not any("ward-7 desk" in r and "Ward 7" in r for r in texts_of(driver, "#keys tr")):
        raise SystemExit("the keys list does not show the site's key with its site:\n" + text_of(driver, "keys"))
    print("ok: a key for one site made on the Keys page (a site name with '+' refused by field first)")
    driver.get(device_page)
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "key")))
    driver.find_element(By.CSS_SELECTOR, "#key form[action$='/key/new'] button").click()
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "new-key")))
    if not text_of(driver, "new-key").strip().startswith("hov_"):
        raise SystemExit("the device's new key is not shown")
    shot(driver, "29-device-rekeyed")
    print("ok: a device's key replaced from its page")
    driver.get(device_page)
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "key")))
    driver.find_element(By.CSS_SELECTOR, "#key form[action$='/key/revoke'] button").click()
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#key form[action$='/key/new'] button")
                                    and "Give it a new key" in text_of(d, "key"))
    print("ok: a device's key revoked from its page (it is offered a new one)")


def usage_report_and_alerts(driver, base):
    """The week's usage report counts the demo's hand-overs and names the app that did not sign
    out; its CSV link is there; the alerts page reads as a page with nothing to acknowledge."""
    driver.get(base + "/dashboard/reports/usage")
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "usage-sites")))
    sites, failures = text_of(driver, "usage-sites"), text_of(driver, "usage-failures")
    if "no site" not in sites or not driver.find_elements(By.CSS_SELECTOR, "a[href^='/dashboard/reports/usage.csv?week=']"):
        raise SystemExit("the usage report lacks the demo's devices or its CSV link:\n" + sites)
    if "Times" not in failures:
        raise SystemExit("the usage report does not name the demo's app that did not sign out:\n" + failures)
    shot(driver, "23-usage-report")
    driver.get(base + "/dashboard/alerts")
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "alerts")))
    if "Alerts (0 to acknowledge)" not in text_of(driver, "alerts"):
        raise SystemExit("the alerts page is not the empty one:\n" + text_of(driver, "alerts"))
    print("ok: the week's usage report with the demo's failed app, and the alerts page")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "handover")
    os.makedirs(ARTIFACTS, exist_ok=True)
    process, base, key = start_demo(binary)
    driver = None
    try:
        driver = browser()
        driver.get(base + "/dashboard")
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.NAME, "key")))
        shot(driver, "01-sign-in")
        driver.find_element(By.NAME, "key").send_keys(key)
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "overview")))
        cookie = driver.get_cookie("handover_session")
        if not cookie or not cookie.get("httpOnly") or cookie.get("sameSite") != "Strict":
            raise SystemExit(f"the session cookie lacks its flags: {cookie}")
        shot(driver, "02-dashboard")

        # A dashboard address that leads nowhere is a page a person can read, not an API error body.
        driver.get(base + "/dashboard/no-such-page")
        heading = driver.find_elements(By.TAG_NAME, "h1")
        if not heading or heading[0].text != "Nothing here" or not driver.find_elements(By.CSS_SELECTOR, "a[href='/dashboard']"):
            raise SystemExit(f"/dashboard/no-such-page is not the HTML not-found page: {driver.page_source[:300]}")
        shot(driver, "02b-not-found")

        driver.get(base + "/dashboard/apps")
        driver.find_element(By.NAME, "name").send_keys("ward-notes")
        Select(driver.find_element(By.NAME, "role")).select_by_value("target")
        driver.find_element(By.NAME, "appIDs").send_keys("ABCDE12345.com.example.wardnotes")
        driver.find_element(By.NAME, "logoutAction").send_keys("https://notes.example.com/ulc/logout")
        driver.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]").click()
        WebDriverWait(driver, 10).until(lambda d: "ward-notes" in text_of(d, "apps"))
        shot(driver, "03-apps")
        print("ok: registered an app through the form")

        # The demo's hand-over left apps signed in: its phone waits in the out-of-service queue.
        driver.get(base + "/dashboard")
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "attention")))
        queue = text_of(driver, "attention")
        if "Needs attention (1)" not in queue or "simulated-phone" not in queue or "timed out" not in queue:
            raise SystemExit(f"the out-of-service queue does not show the demo's phone and why:\n{queue}")
        driver.execute_script("document.getElementById('attention').scrollIntoView();")
        shot(driver, "04-out-of-service-queue")
        driver.find_element(By.CSS_SELECTOR, "#attention a").click()
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "back-in-service")))
        driver.find_element(By.CSS_SELECTOR, "#back-in-service button[type=submit]").click()  # no note: refused
        WebDriverWait(driver, 10).until(lambda d: "say why the device may be handed on again" in text_of(d, "back-in-service"))
        driver.find_element(By.ID, "note").send_keys("Slow and silent apps signed out by hand; checked at the IT desk.")
        driver.find_element(By.CSS_SELECTOR, "#back-in-service button[type=submit]").click()
        WebDriverWait(driver, 10).until(lambda d: "checked at the IT desk" in text_of(d, "history"))
        if driver.find_elements(By.ID, "back-in-service"):
            raise SystemExit("the device page still offers 'back in service' after it went back")
        shot(driver, "05-back-in-service")
        print("ok: the out-of-service queue, and back in service only with a note")

        # The demo's person signed in on the phone before its hand-over: the device page shows who
        # held it, and their name opens the person's page with every device they held.
        history = text_of(driver, "custody")
        if "Nobody holds this device now." not in history or not driver.find_elements(By.CSS_SELECTOR, "#custody-history a"):
            raise SystemExit("the device page lacks its custody history:\n" + history)
        driver.execute_script("document.getElementById('custody').scrollIntoView();")
        shot(driver, "20-device-custody")
        device_page = driver.current_url
        driver.find_element(By.CSS_SELECTOR, "#custody-history a[href^='/dashboard/custody?person=']").click()
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "custody")))
        if "simulated-phone" not in text_of(driver, "custody") or "timeline" not in text_of(driver, "custody"):
            raise SystemExit("the person's page lacks the device they held:\n" + text_of(driver, "custody"))
        shot(driver, "21-person-custody")
        print("ok: a device page shows who held it, and the person's page every device they held")
        driver.get(device_page)
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "history")))

        # The device's history links each run to its timeline: the demo's silent app was
        # reissued, then timed out.
        driver.find_element(By.CSS_SELECTOR, "#history a[href^='/dashboard/runs/']").click()
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "timeline-entries")))
        timeline = text_of(driver, "timeline-entries")
        for expected in ["Run started", "Link issued (attempt 1)", "Answered", "Timed out"]:
            if expected not in timeline:
                raise SystemExit(f"the run's timeline lacks '{expected}':\n{timeline}")
        shot(driver, "13-run-timeline")
        print("ok: a run's timeline, from the device's history")

        run_tester(driver, base, "conformant", "passed", "Passed", "06-tester-conformant")
        run_tester(driver, base, "silent", "failed", "timed out", "07-tester-silent")

        keys_and_viewer(driver, base, device_page, key)
        keys_revoked_rekeyed_and_for_a_site(driver, base, device_page)

        # "Hand over now" on the device's page starts a run of every target app and opens its timeline.
        driver.get(device_page)
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "hand-over")))
        driver.find_element(By.CSS_SELECTOR, "#hand-over button[type=submit]").click()
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "timeline-entries")))
        if "Run started" not in text_of(driver, "timeline-entries"):
            raise SystemExit("'Hand over now' did not open a started run's timeline:\n" + text_of(driver, "timeline-entries"))
        shot(driver, "22-hand-over-now")
        print("ok: 'Hand over now' on a device's page started a run and opened its timeline")

        usage_report_and_alerts(driver, base)
        import_retire_delete(driver, base, key)

        driver.set_window_size(390, 844)
        driver.get(base + "/dashboard")
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "overview")))
        width = driver.execute_script("return document.documentElement.scrollWidth;")
        shot(driver, "08-dashboard-phone")
        if width > 400:
            raise SystemExit(f"the dashboard is {width} px wide on a 390 px screen")
        print("ok: the dashboard fits a phone-sized screen")
    finally:
        if driver is not None:
            driver.quit()
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
    erase_confirmation(binary)
    provider_sign_in(binary)
    fleet_scale(binary)
    print("browser test passed")


if __name__ == "__main__":
    main()
