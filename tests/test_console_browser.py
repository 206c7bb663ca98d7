"""The console in headless Chromium (Selenium with the system's chromium + chromium-driver).

A real `uac serve` subprocess, a real browser: log in with a key from the keyboard, open a
subject, follow a value to its evidence, sort a table from the keyboard, acknowledge an
alert, search, read the timeline, and check that another tenant's key sees nothing. Every
page is saved as a screenshot under tests/artifacts/console/ (gitignored; or under
$UAC_TEST_ARTIFACTS/console) to be looked at. A long collection is paged from the keyboard.

Without a browser the tests skip with one line saying how to install one; under CI=true a
missing browser is a failure (.ci/run installs it).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_console import OTHER_SECRET, SECRET_NUMBER, seed
from test_serve import _admin, _key, serving

pytestmark = pytest.mark.usefixtures("module_backend")  # runs on DuckDB and PostgreSQL

# Screenshots for review: tests/artifacts/console/ (gitignored), or $UAC_TEST_ARTIFACTS/console
# (CI can upload that directory).
ARTIFACTS = (
    Path(os.environ.get("UAC_TEST_ARTIFACTS") or Path(__file__).with_name("artifacts")) / "console"
)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
HOW = "install a browser to run them: apt-get install -y chromium chromium-driver"


def _browser_or_skip() -> tuple[str, str]:
    if CHROMIUM and DRIVER:
        try:
            import selenium  # noqa: F401
        except ImportError:
            pass
        else:
            return CHROMIUM, DRIVER
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests need chromium, chromium-driver and selenium under CI; {HOW}")
    pytest.skip(f"console browser tests skipped: {HOW} (and pip install selenium)")


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, module_backend: str
) -> Iterator[dict[str, Any]]:
    _browser_or_skip()
    home = tmp_path_factory.mktemp("console-browser") / "ws"
    seed(home)
    with serving(home) as info:
        admin = _admin(info)
        info["rw"] = _key(admin, "acme")
        info["other"] = _key(admin, "other")
        yield info


@pytest.fixture
def driver() -> Iterator[Any]:
    chromium, chromedriver = _browser_or_skip()
    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium Manager download
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in (
        "--headless=new",
        "--no-sandbox",  # tests may run as root in a container
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1200,900",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-sync",
        "--disable-component-update",
    ):
        options.add_argument(arg)
    # Chromium keeps its singleton socket in a directory under TMPDIR that a quit browser
    # leaves behind: a short one of the test's own (a socket's path has ~100 characters at
    # most), removed after it.
    scratch = tempfile.mkdtemp(prefix="uac-chromium-")
    service = Service(chromedriver, env={**os.environ, "TMPDIR": scratch})
    try:
        browser = webdriver.Chrome(options=options, service=service)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    browser.set_page_load_timeout(120)
    browser.implicitly_wait(5)  # a click that navigates returns before the next page is in
    try:
        yield browser
    finally:
        browser.quit()
        shutil.rmtree(scratch, ignore_errors=True)


def shot(driver: Any, name: str) -> Path:
    """Save a screenshot of the page as it is now."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    assert driver.save_screenshot(str(path)), name
    return path


def loads(driver: Any, action: Callable[[], object]) -> None:
    """Do action (a click or an Enter that loads another page) and wait until that page is in.

    A click can return before the browser has left the page: an element both pages have (h1,
    main, a caption) read then is the old page's. Waiting for the old document to go first
    makes the next read the new page's.
    """
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    old = driver.find_element(By.TAG_NAME, "html")

    def gone(_: object) -> bool:
        try:
            old.is_enabled()
        except StaleElementReferenceException:
            return True
        except WebDriverException as exc:
            # Mid-navigation chromedriver may answer for the old page's node with this
            # "unknown error" instead of a stale reference: the document is going all the same.
            if "does not belong to the document" in (exc.msg or ""):
                return True
            raise
        return False

    action()
    WebDriverWait(driver, 60).until(gone)


def login(driver: Any, url: str, key: str) -> None:
    """Log in from the keyboard: type the key, press Enter."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver.get(url + "/console/")
    assert driver.current_url.endswith("/console/login")
    field = driver.find_element(By.ID, "key")
    assert driver.switch_to.active_element == field  # focused on load: type at once
    loads(driver, lambda: field.send_keys(key, Keys.ENTER))
    assert driver.find_element(By.TAG_NAME, "h1").text == "Subjects"


def test_walk_through_the_console(served: dict[str, Any], driver: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    url = served["url"]
    driver.get(url + "/console/login")
    shot(driver, "01-login")
    login(driver, url, served["rw"])
    assert "uac_console" not in driver.execute_script("return document.cookie")  # HttpOnly
    shot(driver, "02-subjects")

    loads(driver, driver.find_element(By.LINK_TEXT, "user:maya").click)
    assert driver.find_element(By.CSS_SELECTOR, "h1.subject-name").text == "user:maya"
    body = driver.find_element(By.TAG_NAME, "main").text
    assert "Bangkok" in body and SECRET_NUMBER not in body
    shot(driver, "03-subject")

    # sort the trips table from the keyboard: focus the column's button, press Enter
    header = driver.find_element(By.XPATH, "//table//th[button[normalize-space()='city']]")
    header.find_element(By.TAG_NAME, "button").send_keys(Keys.ENTER)
    assert header.get_attribute("aria-sort") == "ascending"

    loads(driver, driver.find_element(By.LINK_TEXT, "2027-04-18").click)
    assert "why" in driver.current_url
    evidence = driver.find_element(By.TAG_NAME, "blockquote").text
    assert "My passport expires on 18 April 2027." in evidence
    assert "superseded by" in driver.find_element(By.TAG_NAME, "main").text
    shot(driver, "04-why")

    loads(driver, driver.find_element(By.LINK_TEXT, "Timeline").click)
    svg = driver.find_element(By.CSS_SELECTOR, "figure.plot svg")
    assert svg.size["width"] > 200 and svg.find_elements(By.CSS_SELECTOR, "rect.bar")
    events = driver.find_element(By.CSS_SELECTOR, "ol.events").text
    assert "alert raised" in events and "checkpoint published" in events
    shot(driver, "05-timeline")

    tabs = driver.find_element(By.CSS_SELECTOR, "nav.tabs")
    loads(driver, tabs.find_element(By.LINK_TEXT, "Alerts").click)
    assert "not valid long enough" in driver.find_element(By.TAG_NAME, "main").text
    shot(driver, "06-alerts")
    driver.find_element(By.XPATH, "//button[normalize-space()='Acknowledge']").click()
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    # The form posts and the page reloads: wait for the new page, not the old one (an element
    # of the old page read while the new one loads is stale: look again).
    WebDriverWait(driver, 30, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: any(
            "acknowledged" in e.text
            for e in d.find_elements(By.CSS_SELECTOR, "article.alert header")
        )
    )
    status = driver.find_element(By.CSS_SELECTOR, "article.alert header").text
    assert "acknowledged" in status
    assert not driver.find_elements(By.XPATH, "//button[normalize-space()='Acknowledge']")
    shot(driver, "07-alert-acknowledged")

    loads(driver, driver.find_element(By.LINK_TEXT, "Search notes").click)
    query = driver.find_element(By.ID, "q")
    loads(driver, lambda: query.send_keys("climbing gym", Keys.ENTER))
    table = driver.find_element(By.CSS_SELECTOR, "table.hits")
    assert "climbing gym membership" in table.text and "BM25 rank" in table.text
    shot(driver, "08-search")

    loads(driver, driver.find_element(By.LINK_TEXT, "Diff").click)
    assert "user.passport.expiry_date" in driver.find_element(By.TAG_NAME, "main").text
    shot(driver, "09-diff")

    loads(driver, driver.find_element(By.LINK_TEXT, "Export").click)
    assert SECRET_NUMBER not in driver.page_source and "•••" in driver.page_source
    shot(driver, "10-export")

    # readable on a phone: no horizontal scrolling of the page itself
    driver.set_window_size(390, 844)
    driver.get(url + "/console/s/user:maya")
    width = driver.execute_script("return document.documentElement.scrollWidth")
    assert width <= driver.execute_script("return window.innerWidth") + 1
    shot(driver, "11-subject-phone")


def test_page_through_a_long_collection_from_the_keyboard(
    served: dict[str, Any], driver: Any
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    url = served["url"]
    login(driver, url, served["rw"])
    pat = driver.find_element(By.LINK_TEXT, "user:pat")
    loads(driver, lambda: pat.send_keys(Keys.ENTER))
    caption = driver.find_element(By.CSS_SELECTOR, "#transactions caption")
    assert "450 records, 1–200 shown" in caption.text
    following = driver.find_element(By.CSS_SELECTOR, "#transactions a[rel=next]")
    loads(driver, lambda: following.send_keys(Keys.ENTER))
    assert "201–400 shown" in driver.find_element(By.CSS_SELECTOR, "#transactions caption").text
    header = driver.find_element(By.XPATH, "//th[a[normalize-space()='amount']]")
    sort = header.find_element(By.TAG_NAME, "a")
    loads(driver, lambda: sort.send_keys(Keys.ENTER))  # sorts all 450 rows
    header = driver.find_element(By.XPATH, "//th[a[normalize-space()='amount']]")
    assert header.get_attribute("aria-sort") == "ascending"
    heads = [
        th.get_attribute("textContent").strip()
        for th in driver.find_elements(By.CSS_SELECTOR, "#transactions thead th")
    ]
    column = heads.index("amount")
    rows = driver.find_elements(By.CSS_SELECTOR, "#transactions tbody tr")
    firsts = [
        r.find_elements(By.XPATH, "./*")[column].get_attribute("textContent") for r in rows[:3]
    ]
    assert firsts == ["0.25", "1.25", "2.25"] and len(rows) == 200, (heads, firsts)
    shot(driver, "13-paged-collection")


def test_other_tenant_sees_nothing_in_the_browser(served: dict[str, Any], driver: Any) -> None:
    from selenium.webdriver.common.by import By

    url = served["url"]
    login(driver, url, served["other"])
    main = driver.find_element(By.TAG_NAME, "main").text
    assert "user:eve" in main and "maya" not in main
    driver.get(url + "/console/s/user:maya")
    assert "has no subject user:maya" in driver.find_element(By.TAG_NAME, "main").text
    assert "Bangkok" not in driver.page_source and SECRET_NUMBER not in driver.page_source
    shot(driver, "12-other-tenant")
    driver.get(url + "/console/s/user:eve/export")
    assert OTHER_SECRET not in driver.page_source
