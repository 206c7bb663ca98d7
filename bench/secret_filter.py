"""Secret-filter benchmark: detection per kind and scan cost, this tree against a baseline.

Run from the repository root with the project's virtualenv:

    python bench/secret_filter.py                  # baseline: main's fact_log/extraction/safety.py
    python bench/secret_filter.py --baseline HEAD~4 --repeat 7
    python bench/secret_filter.py --baseline REV --records 20000   # + an import's screen

The labelled set is written here (no download): >= 150 strings, real-looking secrets of
>= 20 kinds, each with the raw bytes that must not survive masking, and benign look-alikes
that must come out unchanged. Three scanners are run over the same set:

* before: the baseline revision's `scan` (loaded from `git show REV:fact_log/...`);
* after: this tree's `scan`;
* detect-secrets 1.5 (`scan_line` with its default plugins), for the evaluation only.

A positive counts as found when none of its raw strings is left in the masked text (for
detect-secrets: when a reported secret overlaps one); a benign string is a false positive
when anything in it is masked (reported). Cost: median microseconds per message over the
whole set, `--repeat` passes, the ratio taken against the baseline in the same run.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import time
import types
from collections import defaultdict
from collections.abc import Callable

# (kind, text, raw strings that must be masked); an empty list means benign: nothing masked.
P = "positive"


def _cases() -> list[tuple[str, str, list[str]]]:
    c: list[tuple[str, str, list[str]]] = []

    def add(kind: str, template: str, secrets: list[str]) -> None:
        for s in secrets:
            parts = s.split(" || ")
            c.append((kind, template.format(*parts), parts))

    add("aws_access_key", "aws key {0}", ["AKIAIOSFODNN7EXAMPLE", "AKIAZ7Q3M5N8P2R4T6V9"])
    add("aws_access_key", "use {0} for the bucket", ["ASIAY34FZKBOKMUTVV7A"])
    add(
        "aws_secret_key",
        "aws secret access key {0}",
        ["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "Zq8vR2mK9xL4pT7wN3bY6cF1hJ5sD0gA2eU8iO4k"],
    )
    add(
        "unlabelled_key",
        "my deploy key: {0}",
        ["h7Gk2LmP9qRs4TvWx8Yz1AbCdEfGh3JkLmNoPq5R", "Qm9Xr2Tb7Kp4Wz6Lc8Vn1Hs3Jd5Fg0Ay2Eu"],
    )
    add("unlabelled_key", "here it is {0} thanks", ["Ab3Cd5Ef7Gh9Ij1Kl3Mn5Op7Qr9St1Uv3Wx"])
    add(
        "github_token",
        "token {0}",
        [
            "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5",
            "gho_16C7e42F292c6912E7710c838347Ae178B4a",
            "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEFGHIJKLMN",
        ],
    )
    add(
        "gitlab_token",
        "gitlab {0}",
        ["glpat-xYz12AbC34dEf56GhI78j", "glpat-Q1w2E3r4T5y6U7i8O9p0AsDf"],
    )
    add(
        "slack_token",
        "slack bot {0}",
        ["xoxb-2222222222-3333333333333-AbCdEfGhIjKlMnOpQrStUvWx", "xoxp-1234567890-abcdefABCDEF"],
    )
    add(
        "stripe_key",
        "stripe {0}",
        [
            "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
            "rk_test_51H8abcDEFghiJKLmnoPQR",
            "pk_live_a1B2c3D4e5F6",
        ],
    )
    add(
        "openai_key",
        "OPENAI {0}",
        ["sk-proj-abc123def456ghi789jkl012mno", "sk-ant-api03-AbCdEfGhIjKlMnOpQrSt"],
    )
    add("google_api_key", "maps {0}", ["AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"])
    add("npm_token", "npm {0}", ["npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"])
    add(
        "sendgrid_key",
        "mail {0}",
        ["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"],
    )
    add("twilio_key", "twilio {0}", ["SK2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d"])
    add(
        "jwt",
        "Authorization {0}",
        [
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
        ],
    )
    add("bearer_token", "Authorization: Bearer {0}", ["abcdefghijklmnop1234", "Zx9Yw8Vu7Ts6Rq5P"])
    add(
        "private_key",
        "{0}",
        [
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
            "-----END OPENSSH PRIVATE KEY-----",
        ],
    )
    add(
        "connection_string",
        "db at {0}",
        ["postgres://app:S3cr3tPw@db.internal:5432/app || S3cr3tPw"],
    )
    c[-1] = (c[-1][0], c[-1][1].split(" || ")[0], ["S3cr3tPw"])
    # Labelled passwords, English, every separator.
    for i, sep in enumerate([" is ", ": ", " - ", " = ", " ", "=", ":", " was ", " / "]):
        c.append(("password_en", f"my password{sep}Tr0ub4dor&{i}x", [f"Tr0ub4dor&{i}x"]))
    for label in ("passcode", "PIN", "pin code", "one-time code", "verification code", "OTP"):
        c.append(("pin_code", f"the {label} is 48{len(label)}21", [f"48{len(label)}21"]))
    for label in ("api key", "access token", "secret", "token"):
        c.append(("labelled_key", f"{label}: Xk29-Lm3P-qq81Z", ["Xk29-Lm3P-qq81Z"]))
    c.append(("login", "router login is mayak / Qu1etRiver", ["Qu1etRiver", "mayak"]))
    c.append(("login", "login: admin / hunter22", ["hunter22"]))
    c.append(("login", "username and password: jdoe / Pa55word!", ["Pa55word!"]))
    # Obfuscated: zero-width, full-width, no-break space.
    c.append(("obfuscated", "my pass\u200bword is velvet-otter-42", ["velvet-otter-42"]))
    c.append(("obfuscated", "pass\u200dword: Kettle9Blue", ["Kettle9Blue"]))
    c.append(("obfuscated", "ｐａｓｓｗｏｒｄ：ｈｕｎｔｅｒ９９", ["ｈｕｎｔｅｒ９９"]))
    c.append(("obfuscated", "password\u00a0is\u00a0Birch7Lamp", ["Birch7Lamp"]))
    # Chinese labels.
    for label, sep, value in [
        ("密码", "是", "abc12345"),
        ("密码", "：", "m1m2m3m4x"),
        ("口令", " ", "88776655"),
        ("验证码", "为", "493021"),
        ("密钥", ":", "K9x8Y7w6V5"),
        ("令牌", " ", "tk-88qq77ww66ee"),
        ("账号", "是", "6222020200112233"),
        ("支付密码", "是", "202408"),
    ]:
        c.append(("password_zh", f"我的{label}{sep}{value}", [value]))
    # Cards: spaces, dashes, dots, none, inside a longer run.
    for card in (
        "4111 1111 1111 1111",
        "4111-1111-1111-1111",
        "4111.1111.1111.1111",
        "4111111111111111",
        "5500 0000 0000 0004",
        "3782 822463 10005",
        "6011-0009-9013-9424",
    ):
        c.append(("payment_card", f"card {card} exp 09/27", [card]))
    c.append(("payment_card", "2025 4111 1111 1111 1111 paid", ["4111 1111 1111 1111"]))
    for iban in (
        "GB82 WEST 1234 5698 7654 32",
        "DE89370400440532013000",
        "FR14 2004 1010 0505 0001 3M02 606",
        "NL91ABNA0417164300",
    ):
        c.append(("iban", f"send it to {iban} please", [iban]))
    for ssn in ("123-45-6789", "078-05-1120", "536-22-1234"):
        c.append(("us_ssn", f"SSN {ssn}", [ssn]))
    c.append(("uk_nino", "NI number AB 12 34 56 C", ["AB 12 34 56 C"]))
    c.append(("cn_resident_id", "身份证号码是11010519491231002X", ["11010519491231002X"]))
    c.append(("passport", "My passport number is X4839201.", ["X4839201"]))
    c.append(("passport", "passport no. 533380006", ["533380006"]))
    c.append(("licence", "driving licence number MORGA753116SM9IJ", ["MORGA753116SM9IJ"]))
    for i, value in enumerate(["Plum7Tiger", "s3cr3t!", "correct-horse-9", "Za!9qL"]):
        c.append(("password_en", f"wifi password for the cabin{' :'[i % 2]} {value}", [value]))
    c.append(("labelled_key", "secret key = 9f8e7d6c5b4aQ", ["9f8e7d6c5b4aQ"]))
    c.append(("labelled_key", "my openai token is tok_77AbC99xYz", ["tok_77AbC99xYz"]))
    c.append(("pin_code", "card PIN 0427", ["0427"]))
    c.append(("pin_code", "CVV: 381", ["381"]))
    c.append(("obfuscated", "p​a​s​s​w​o​r​d is Fjord88", ["Fjord88"]))
    c.append(("password_zh", "登录密码：Qwe!2345", ["Qwe!2345"]))
    c.append(
        (
            "payment_card",
            "visa ４１１１ １１１１ １１１１ １１１１",
            ["４１１１ １１１１ １１１１ １１１１"],
        )
    )

    # Unlabelled hex keys and short codes after a code/PIN/password label, in five languages.
    for key in (
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "a3f1c9e07b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a",
        "0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f6",
    ):
        c.append(("hex_key", f"use {key} for the api", [key]))
    alone = "9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c0b2d4f6e"
    c.append(("hex_key", f"{alone} here you go", [alone]))
    c.append(("short_code", "the code is 482913", ["482913"]))
    c.append(("short_code", "door code 4821, come in", ["4821"]))
    c.append(("short_code", "my otp is 550913", ["550913"]))
    c.append(("short_code", "mi código de verificación: 739104", ["739104"]))
    c.append(("short_code", "le code de la porte est 773164", ["773164"]))
    c.append(("short_code", "Meine PIN lautet 4821", ["4821"]))
    c.append(("short_code", "пин-код: 551903", ["551903"]))
    c.append(("short_code", "код: 440912", ["440912"]))
    c.append(("password_intl", "mi contraseña es Gato!Azul88", ["Gato!Azul88"]))
    c.append(("password_intl", "mot de passe : soleil99x", ["soleil99x"]))
    c.append(("password_intl", "Passwort: Sommer2024!", ["Sommer2024"]))
    c.append(("password_intl", "пароль: qwerty123", ["qwerty123"]))

    # Benign look-alikes: nothing may be masked.
    benign = [
        ("order_number", "order #A-2024-118733 shipped"),
        ("order_number", "Order 112-7788123-5566123 arrives Friday"),
        ("order_number", "invoice INV-000981 due on 2025-03-01"),
        ("tracking", "tracking 1Z999AA10123456784"),
        ("tracking", "parcel JD014600006281234567 is out for delivery"),
        ("tracking", "USPS 9400111899223197428490"),
        ("git_hash", "fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b"),
        ("git_hash", "revert a94a8fe5ccb19ba61c4c0873d391e987982fbbd3 please"),
        ("git_hash", "short hash 3f78685 is enough"),
        ("uuid", "request id 123e4567-e89b-12d3-a456-426614174000"),
        ("uuid", "session 9b2c1e34-0f6a-4d8e-b1c2-3e4f5a6b7c8d ended"),
        ("date", "flight on 2025-03-05 at 14:30"),
        ("date", "born 12/04/1990"),
        ("date", "meeting 2025.03.05"),
        ("phone", "call me on +44 20 7946 0958"),
        ("phone", "mobile 555-123-4567"),
        ("phone", "电话 138 0013 8000"),
        ("price", "it cost $1,299.99"),
        ("price", "the rent is £1,450 a month"),
        ("price", "budget 2.500,00 EUR"),
        ("prose", "my password manager is great"),
        ("prose", "the key point: be brief"),
        ("prose", "I forgot my password again"),
        ("prose", "token ring networks were slow"),
        ("prose", "the login page is down"),
        ("prose", "secret santa is on Friday"),
        ("prose", "I keep the spare key under the mat"),
        ("prose", "密码忘了，明天再说"),
        ("prose", "from now on keep answers short"),
        ("prose", "I'm flying to Tokyo on March 5"),
        ("prose", "My dining budget is £300 a month"),
        ("code_like", "run pip install -e .[dev] first"),
        ("code_like", "the file is docs/architecture.md"),
        ("code_like", "see https://example.com/docs/getting-started"),
        ("code_like", "variable getUserAccountSettings returns None"),
        ("ids", "flight BA0283 seat 14C"),
        ("ids", "booking ref XK7P2Q"),
        ("ids", "room 4111 on floor 11"),
        ("ids", "ISBN 978-3-16-148410-0"),
        ("ids", "VIN 1HGCM82633A004352"),
        ("ids", "postcode SW1A 1AA"),
        ("ids", "zip 94103-1234"),
        ("ids", "the pin on the map is blue"),
        ("numbers", "I ran 4111 metres today"),
        ("numbers", "population 1234 5678 9012 3456 in total"),
        ("numbers", "counts 100 200 300 400 500"),
        ("git_hash", "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ok"),
        ("git_hash", "merged 0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f6a7b8c9d0 into main"),
        ("public_code", "zip code 94110"),
        ("public_code", "use code SAVE20 at checkout"),
        ("public_code", "error code 4040 again"),
        ("public_code", "the dress code is smart casual"),
        ("public_code", "código postal 28013"),
        ("public_code", "promo code 2024 gives 10% off"),
        ("prose", "Olvidé la contraseña del banco"),
        ("prose", "Я забыла пароль от почты"),
        ("prose", "Ich habe mein Passwort vergessen"),
        ("prose", "the code review is on Friday"),
        ("numbers", "order 4111 1111 1111 1112"),
        ("base64ish", "the colour is #FF8800"),
        ("base64ish", "hashtag #ThrowbackThursday2024"),
        ("prose", "the password reset link expired"),
        ("prose", "I changed my PIN last week"),
        ("prose", "two-factor codes arrive by SMS"),
        ("prose", "验证码收不到怎么办"),
        ("prose", "she is the key to the project"),
        ("code_like", "branch feature/secret-filter-v2"),
        ("ids", "gate B12, terminal 5"),
        ("ids", "policy number is on the card"),
        ("numbers", "scores 98 87 76 65"),
        ("date", "2024-12-31T23:59:59Z"),
        ("price", "¥12,800 per night"),
        ("tracking", "UPS tracking 1Z12345E0205271688"),
    ]
    c.extend((k, t, []) for k, t in benign)
    return c


CASES = _cases()
_KEEP: list[object] = []


def _masker_ours(scan: Callable) -> Callable[[str], str]:
    return lambda text: scan(text).masked


def _load_baseline(rev: str) -> Callable:
    source = subprocess.run(
        ["git", "show", f"{rev}:fact_log/extraction/safety.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    module = types.ModuleType("baseline_safety")
    sys.modules["baseline_safety"] = module  # dataclasses look their module up
    exec(compile(source, f"{rev}:safety.py", "exec"), module.__dict__)
    return module.scan


def _detect_secrets() -> Callable[[str], list[str]] | None:
    try:
        from detect_secrets.core.scan import scan_line
        from detect_secrets.settings import default_settings
    except ImportError:
        return None
    ctx = default_settings()
    ctx.__enter__()  # the settings stay on for the whole run
    _KEEP.append(ctx)  # (a collected context manager would restore the empty settings)
    return lambda text: [s.secret_value or "" for s in scan_line(text)]


def _score(name: str, found: Callable[[str, list[str]], bool]) -> dict[str, list[int]]:
    """Per kind: [true positives, false negatives, false positives, true negatives]."""
    table: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for kind, text, secrets in CASES:
        hit = found(text, secrets)
        row = table[kind]
        if secrets:
            row[0 if hit else 1] += 1
        else:
            row[2 if hit else 3] += 1
    return table


def _timing(fn: Callable[[str], object], repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _kind, text, _s in CASES:
            fn(text)
        runs.append((time.perf_counter() - start) / len(CASES) * 1e6)
    return statistics.median(runs)


def main() -> None:
    """Print the detection table and the scan cost (markdown)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", default="main")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--records", type=int, default=0, help="also time an import's screen")
    args = ap.parse_args()
    from uac.fact_log.extraction.safety import scan as after_scan

    before_scan = _load_baseline(args.baseline)
    scanners: dict[str, Callable[[str], str]] = {
        "before": _masker_ours(before_scan),
        "after": _masker_ours(after_scan),
    }

    def masked_check(fn: Callable[[str], str]) -> Callable[[str, list[str]], bool]:
        def found(text: str, secrets: list[str]) -> bool:
            out = fn(text)
            return all(s not in out for s in secrets) if secrets else out != text

        return found

    tables = {name: _score(name, masked_check(fn)) for name, fn in scanners.items()}
    ds = _detect_secrets()
    if ds is not None:

        def ds_found(text: str, secrets: list[str]) -> bool:
            got = [v for v in ds(text) if len(v) >= 4]
            if not secrets:
                return bool(got)
            return all(any(v in s or s in v for v in got) for s in secrets)

        tables["detect-secrets"] = _score("detect-secrets", ds_found)

    positives = sum(1 for c in CASES if c[2])
    kinds = sorted({c[0] for c in CASES})
    print(
        f"{len(CASES)} strings: {positives} secrets of {len({c[0] for c in CASES if c[2]})} "
        f"kinds, {len(CASES) - positives} benign look-alikes; machine: {platform.machine()}, "
        f"{platform.python_implementation()} {platform.python_version()}\n"
    )
    names = list(tables)
    print("| kind | n | " + " | ".join(f"{n} TP/FN/FP" for n in names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for kind in kinds:
        n = sum(1 for c in CASES if c[0] == kind)
        cells = ["{}/{}/{}".format(*tables[name][kind][:3]) for name in names]
        print(f"| {kind} | {n} | " + " | ".join(cells) + " |")
    totals = {name: [sum(r[i] for r in t.values()) for i in range(4)] for name, t in tables.items()}
    print(
        "| **total** | "
        + f"{len(CASES)} | "
        + " | ".join("**{}/{}/{}**".format(*totals[n][:3]) for n in names)
        + " |"
    )
    print()
    t_before = _timing(scanners["before"], args.repeat)
    t_after = _timing(scanners["after"], args.repeat)
    line = f"scan cost, median of {args.repeat} passes over the set: before {t_before:.1f} µs/msg, "
    line += f"after {t_after:.1f} µs/msg (ratio {t_after / t_before:.2f}x)"
    if ds is not None:
        t_ds = _timing(ds, max(1, args.repeat // 2))
        line += f"; detect-secrets {t_ds:.1f} µs/msg ({t_ds / t_before:.1f}x)"
    print(line)
    if args.records:
        _import_screen(before_scan, after_scan, args.records, args.repeat)
    for ctx in _KEEP:
        ctx.__exit__(None, None, None)  # type: ignore[attr-defined]


def _import_screen(before: Callable, after: Callable, n: int, repeat: int) -> None:
    """What an import of n trip records scans: each distinct value once, then the file text."""
    import json
    import random

    rng = random.Random(20261201)
    cities = ("Paris", "Lyon", "Berlin", "Rome", "Lisbon", "Vienna", "Tokyo", "Dublin")
    records = [
        {
            "city": rng.choice(cities),
            "depart": f"20{rng.randint(10, 29)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            "purpose": rng.choice(("leisure", "business", "family")),
            "cost": f"{rng.randint(2_000, 500_000) / 100:.2f}",
            "currency": "GBP",
            "note": rng.choice(("window seat", "", "met Anna", "conference")),
        }
        for _ in range(n)
    ]
    values = sorted({v for r in records for v in r.values()})
    text = "\n".join(json.dumps(r, separators=(",", ":")) for r in records)
    times: dict[str, list[float]] = {"before": [], "after": []}
    for _ in range(repeat):
        for name, fn in (("before", before), ("after", after)):  # interleaved
            start = time.perf_counter()
            for v in values:
                fn(v)
            fn(text)
            times[name].append(time.perf_counter() - start)
    b, a = (statistics.median(times[k]) for k in ("before", "after"))
    print(
        f"import screen, {n:,} records ({len(values):,} distinct values + {len(text) / 2**20:.1f}"
        f" MiB of file text), median of {repeat}: before {b:.3f} s, after {a:.3f} s "
        f"(ratio {a / b:.2f}x)"
    )


if __name__ == "__main__":
    sys.path.insert(0, ".")
    main()
