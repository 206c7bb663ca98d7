"""The operator's view of the console in headless Chromium: the Operations page (health and
version, the scheduler, the alert outbox with retry and drop, jobs, API keys for the admin),
the timeline on the facts' time axis with typed rows, and a diff of any two versions.

A real `uac serve` with a webhook nobody listens on (so deliveries wait in the outbox) and a
schedule; screenshots under tests/artifacts/console/ like test_console_browser.py's.
"""

from __future__ import annotations

import datetime as dt
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_console import seed
from test_console_browser import _browser_or_skip, loads, login, shot
from test_console_browser import driver as browser  # noqa: F401 (a fixture)
from test_serve import _admin, _key, serving

from uac import Memory
from uac.runtime.api.console_context import count
from uac.runtime.api.outbox import OutboxSink

pytestmark = pytest.mark.usefixtures("module_backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("wording alone: no log")

DAY = dt.datetime(2026, 11, 20, 9)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _queue_alert(home: Path) -> str:
    """An alert of tenant acme queued for the `webhook` sink (delivered once the server runs)."""
    with Memory(home, tenant="acme", react=False) as mem:
        for n, date in enumerate(("2031-01-01", "2030-06-01", "2026-12-01")):  # versions 1-3
            mem.set("zed", "identity.passport.expiry_date", date, now=DAY + dt.timedelta(days=n))
            mem.compile("zed")
        (alert,) = mem.check(
            "zed", today=DAY.date(), sinks=[OutboxSink(mem.store, ["webhook"])]
        ).new
        return alert.id


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, module_backend: str
) -> Iterator[dict[str, Any]]:
    _browser_or_skip()
    home = tmp_path_factory.mktemp("console-ops") / "ws"
    seed(home)
    alert_id = _queue_alert(home)
    hook = f"http://127.0.0.1:{_closed_port()}/"
    with serving(home, "--webhook", hook, "--every", "1h", "--outbox-max-delay", "3600") as info:
        admin = _admin(info)
        info["rw"] = _key(admin, "acme")
        info["bound"] = _key(admin, "acme", subject="user:maya")
        info["alert_id"] = alert_id
        yield info


def _admin_login(chrome: Any, url: str, token: str, tenant: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    chrome.get(url + "/console/login")
    chrome.find_element(By.ID, "tenant").send_keys(tenant)
    field = chrome.find_element(By.ID, "key")
    loads(chrome, lambda: field.send_keys(token, Keys.ENTER))
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Subjects"


def _post(chrome: Any, xpath: str) -> None:
    from selenium.webdriver.common.by import By

    loads(chrome, chrome.find_element(By.XPATH, xpath).click)


def test_the_admin_operates_outbox_and_keys(
    served: dict[str, Any],
    browser: Any,  # noqa: F811 (the fixture)
) -> None:
    from selenium.webdriver.common.by import By

    url = served["url"]
    _admin_login(browser, url, served["admin_token"], "acme")
    loads(browser, browser.find_element(By.LINK_TEXT, "Operations").click)
    assert browser.find_element(By.TAG_NAME, "h1").text == "Operations"
    main = browser.find_element(By.TAG_NAME, "main").text
    import uac

    assert f"uac {uac.__version__}" in main
    assert "Schedule" in main and "Next run" in main
    # The webhook is down: the queued alert waits, its row says why.
    outbox = browser.find_element(By.CSS_SELECTOR, "table.outbox").text
    assert served["alert_id"][:12] in outbox and "pending" in outbox
    pending = len(browser.find_elements(By.CSS_SELECTOR, "table.outbox tbody tr"))
    assert pending >= 1 and count(pending, "delivery", "deliveries") + " pending" in main
    shot(browser, "20-ops")

    _post(browser, "//table[contains(@class,'outbox')]//button[normalize-space()='Retry']")
    assert "pending" in browser.find_element(By.CSS_SELECTOR, "table.outbox").text

    # Keys: create one (its token shown once), then revoke it.
    browser.find_element(By.ID, "key-label").send_keys("ops page key")
    _post(browser, "//button[normalize-space()='Create key']")
    token = browser.find_element(By.ID, "new-token").text
    assert token.startswith("uac_")
    keys = browser.find_element(By.CSS_SELECTOR, "table.keys").text
    assert "ops page key" in keys
    shot(browser, "21-ops-key-created")
    key_id = token.split("_")[1]
    _post(browser, f"//button[@aria-label='Revoke key {key_id}']")
    row = browser.find_element(By.XPATH, f"//table[@class='keys']//tr[th/code='{key_id}']")
    assert not row.find_elements(By.TAG_NAME, "button")  # revoked: nothing left to revoke

    for _ in range(pending):
        _post(browser, "//table[contains(@class,'outbox')]//button[normalize-space()='Drop']")
    assert "No outbox rows for tenant acme." in browser.find_element(By.TAG_NAME, "main").text
    shot(browser, "22-ops-outbox-dropped")


def test_a_tenant_key_sees_no_keys_and_a_bound_key_no_operations(
    served: dict[str, Any],
    browser: Any,  # noqa: F811 (the fixture)
) -> None:
    from selenium.webdriver.common.by import By

    url = served["url"]
    login(browser, url, served["rw"])
    loads(browser, browser.find_element(By.LINK_TEXT, "Operations").click)
    assert browser.find_element(By.TAG_NAME, "h1").text == "Operations"
    assert not browser.find_elements(By.ID, "keys") and "API keys" not in browser.page_source
    shot(browser, "23-ops-tenant-key")
    browser.delete_all_cookies()
    login(browser, url, served["bound"])
    assert not browser.find_elements(By.LINK_TEXT, "Operations")
    browser.get(url + "/console/ops")
    assert "needs a tenant key" in browser.find_element(By.TAG_NAME, "main").text


@NO_LOG
def test_counts_are_pluralised() -> None:
    assert count(1, "alert") + " raised" == "1 alert raised"
    assert count(4, "alert") + " raised" == "4 alerts raised"
    assert count(0, "delivery", "deliveries") == "0 deliveries"
    assert count(1_200, "key") == "1,200 keys"


def test_the_timeline_reads_on_fact_dates_and_the_diff_picks_any_two_versions(
    served: dict[str, Any],
    browser: Any,  # noqa: F811 (the fixture)
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    url = served["url"]
    login(browser, url, served["rw"])
    browser.get(url + "/console/s/user:zed/timeline")
    meta = browser.find_element(By.CSS_SELECTOR, "p.meta").text
    assert "3 facts asserted" in meta and "3 checkpoints published" in meta
    for item in meta.split(" · "):  # every count in words: "1 alert raised", "2 alerts raised"
        n, noun, *_ = item.split()
        assert noun.endswith("s") == (n != "1"), item
    events = browser.find_elements(By.CSS_SELECTOR, "ol.events li")
    days = [e.find_element(By.TAG_NAME, "time").get_attribute("datetime") for e in events]
    kinds = [e.find_element(By.CSS_SELECTOR, ".badge").text for e in events]
    # One axis: each checkpoint stands on the date of the newest fact it compiled (the fact
    # dates are in 2026-11, the compiles ran today), right above that fact.
    fact_days = {d for d, k in zip(days, kinds, strict=True) if k.startswith("fact")}
    checkpoint_days = [d for d, k in zip(days, kinds, strict=True) if k.startswith("checkpoint")]
    assert len(checkpoint_days) >= 3 and set(checkpoint_days) <= fact_days
    assert days == sorted(days, reverse=True)
    typed = browser.find_elements(By.CSS_SELECTOR, "ol.events dl.typed")
    assert typed and {"value 2026-12-01", "value 2031-01-01"} <= {
        t.text.replace("\n", " ") for t in typed
    }
    shot(browser, "24-timeline-fact-dates")

    browser.get(url + "/console/s/user:zed/diff")
    options = Select(browser.find_element(By.ID, "v1")).options
    assert [o.text for o in options][-3:] == ["3", "2", "1"]  # every version, not the newest
    Select(browser.find_element(By.ID, "v1")).select_by_visible_text("1")
    Select(browser.find_element(By.ID, "v2")).select_by_visible_text("3")
    loads(browser, browser.find_element(By.XPATH, "//button[normalize-space()='Compare']").click)
    main = browser.find_element(By.TAG_NAME, "main").text
    # Versions 1 and 3, not the default newest two (2 → 3 would show 2030, not 2031).
    assert "Version 1 → 3: 1 change." in main and "user.passport.expiry_date" in main
    assert "2031" in main and "2030" not in main
    shot(browser, "25-diff-any-two")
