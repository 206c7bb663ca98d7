"""The console's Operations page in headless Chromium: health and version, the scheduler,
the alert outbox (retry, drop), jobs, and API keys (admin only: create, revoke).

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

DAY = dt.datetime(2026, 11, 20, 9)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _queue_alert(home: Path) -> str:
    """An alert of tenant acme queued for the `webhook` sink (delivered once the server runs)."""
    with Memory(home, tenant="acme", react=False) as mem:
        mem.set("zed", "identity.passport.expiry_date", "2026-12-01", now=DAY)
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


def test_counts_are_pluralised() -> None:
    assert count(1, "alert") + " raised" == "1 alert raised"
    assert count(4, "alert") + " raised" == "4 alerts raised"
    assert count(0, "delivery", "deliveries") == "0 deliveries"
    assert count(1_200, "key") == "1,200 keys"
