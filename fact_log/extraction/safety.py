"""The safety filter: secrets are masked and never stored, identifiers only in sensitive fields,
instruction-like text is refused as a preference.

Masking is length-preserving (every non-space character of a secret becomes "*") so offsets
into the original message stay valid in the masked text: evidence quotes and offsets can be
stored against the archived (masked) input.

Patterns run on a normalised view of the text (NFKC per character, format characters such
as zero-width spaces dropped), so "pass\u200bword", full-width digits or a no-break space do
not hide a secret; every span found is mapped back to the original offsets before masking.

Checksummed numbers (IBAN mod-97, Chinese resident id, card Luhn) are validated with
python-stdnum rather than hand-written checksums. detect-secrets was evaluated and not adopted:
its keyword detector expects code syntax (`password = "x"`), its entropy detectors flag every
unquoted prose word and it costs ~1 ms a line (bench/secrets.py measures it).

All patterns are linear; PEM blocks are found with str.find rather than a regex spanning
the block, so a hostile 64 KiB string costs one pass. Each pattern declares the literals any
match of it contains (`prefilter.Needles`); a pattern whose literals are absent from the text
is skipped, so clean text (most record values, most of an archived file) skips nearly all.
"""

from __future__ import annotations

import functools
import json
import math
import re
import unicodedata
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Literal

from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.prefilter import Gate, Needles, Pool

Category = Literal["secret", "identifier", "instruction"]


@dataclass(frozen=True, slots=True)
class Finding:
    """Something the filter found: what, where, and (for identifiers) the field allowed."""

    category: Category
    kind: str
    start: int
    end: int
    allowed_path: str | None = None  # a sensitive catalog field this value may be stored in


@dataclass(frozen=True, slots=True)
class SafetyResult:
    """The masked text plus every finding, in order."""

    masked: str
    findings: tuple[Finding, ...]

    def overlapping(self, start: int, end: int) -> list[Finding]:
        """Findings that overlap the span [start, end)."""
        return [f for f in self.findings if f.start < end and start < f.end]

    def masked_quote(self, start: int, quote: str) -> str:
        """The quote at start as the archive holds it (masking keeps lengths, so same span)."""
        masked = self.masked[start : start + len(quote)]
        return masked if len(masked) == len(quote) else "*" * len(quote)


# Labels after which the value is a secret whatever the separator (":", "-", "is", "=", "/",
# "：", plain whitespace). Strong labels mask any value; weak ones ("key", "token", "login")
# only a value shaped like a credential (checked in `_labelled`), so "key point: be brief"
# stays readable.
_STRONG = (
    r"password|passcode|passwd|pwd|pass\s?phrase|pin(?:\s+(?:code|number))?|security\s+code|"
    r"cvv|cvc|one[\s-]time\s+(?:code|password)|otp|2fa\s+code|verification\s+code|"
    r"recovery\s+(?:code|phrase)|seed\s+phrase|credentials?|"
    # Spanish, French, German, Russian
    r"contrase[nñ]a|clave|mot\s+de\s+passe|passwort|kennwort|geheimzahl|пароль|пин(?:-?код)?"
)
# A bare "code" (or "código", "код") is a secret only before a short run of digits ("the code
# is 482913", "door code 4821"), and not after a word that makes it public (`_PUBLIC_CODE`):
# promo codes, post codes and error codes stay readable.
_CODE = r"code|c[oó]digo|код"
_WEAK = (
    r"secret\s+key|secret|key|token|login|api[\s_-]?key|access[\s_-]?token|auth[\s_-]?token|"
    r"user\s?name"
)
_SEPARATOR = (
    r"(?:\s{0,3}(?:is\s+now|will\s+be|is|was|are|es|est|ist|lautet|это|=|:|：|-|–|—|/)\s{0,3}|"
    r"\s{1,3})"
)
_VALUE = r"[\"'“‘]?([^\s\"'”’,;]{3,200}(?:\s{0,3}/\s{0,3}[^\s\"'”’,;.]{3,200})?)"
_LABELLED = lazy(
    rf"(?<![/_.-])\b(?P<label>{_STRONG}|{_WEAK}|{_CODE})(?:\s+(?:for|to|on|of|del|de|du|des|für|von|от|для)\s+[\w.-]{{1,40}}(?:\s[\w.-]{{1,40}})?)?"
    rf"(?P<sep>{_SEPARATOR}){_VALUE}",
    re.IGNORECASE,
)
_LABELLED_ZH = lazy(
    r"(?:密码|口令|验证码|校验码|密钥|秘钥|令牌|账号|帐号|账户|帐户|PIN码|pin码|登录名|用户名)"
    r"\s{0,3}(?:是|为|:|：|=|-|/)?\s{0,3}([^\s，。；、,;]{3,200})"
)
_CODE_LABEL = lazy(r"pin|cvv|cvc|otp|code|c[oó]digo|код|пин", re.IGNORECASE)
_WEAK_LABEL = lazy(rf"(?:{_WEAK})$", re.IGNORECASE)
_BARE_CODE = lazy(_CODE, re.IGNORECASE)
_SHORT_CODE = lazy(r"\d{4,10}")
_PUBLIC_CODE = lazy(
    r"\b(?:zip|post(?:al)?|area|country|dialling|dialing|promo(?:tion(?:al)?)?|discount|coupon|"
    r"voucher|referral|dress|source|qr|bar|tax|sort|error|status|exit|airport|airline|product|"
    r"item|colou?r|course|class|booking|confirmation|tracking|promocional|descuento|rabatt|"
    r"gutschein|fehler|промо|почтовый)[\s-]{0,2}$",
    re.IGNORECASE,
)
_NOT_VALUES = frozenset(
    (
        "the",
        "a",
        "an",
        "my",
        "your",
        "our",
        "their",
        "this",
        "that",
        "is",
        "was",
        "are",
        "be",
        "will",
        "for",
        "to",
        "on",
        "of",
        "and",
        "or",
        "in",
        "at",
        "with",
        "manager",
        "reset",
        "protected",
        "required",
        "changed",
        "expired",
        "here",
        "there",
        "again",
        "please",
    )
)


def _digits(min_len: int, floor: str) -> Needles:
    """A pattern whose every kept match holds a digit, at least min_len characters and a
    match of floor (the pattern without its lookarounds, or less)."""
    return Needles(digit=True, min_len=min_len, floor=lazy(floor))


_PEM_NEEDLES = Needles(("-----BEGIN ",))
_LABELLED_NEEDLES = Needles(
    folded=(
        "pass", "pwd", "pin", "code", "cvv", "cvc", "otp", "recovery", "seed", "credential",
        "secret", "key", "token", "login", "user", "contrase", "clave", "mot de passe",
        "passwort", "kennwort", "geheimzahl", "пароль", "пин", "código", "codigo", "код",
    )
)  # fmt: skip
# A credential-like run is 24+ characters with a digit; a card number 13+ digits.
# What every card window and every token run contains (13 characters of a digit run starting
# with a digit; 24 token characters).
_ENTROPY_NEEDLES = _digits(24, r"[A-Za-z0-9_/+=-]{24}")
_CARD_NEEDLES = _digits(13, r"\d[\d .-]{12}")
_LABELLED_ZH_NEEDLES = Needles(
    ("码", "口令", "密钥", "秘钥", "令牌", "账号", "帐号", "账户", "帐户", "登录名", "用户名")
)

_SECRETS: tuple[tuple[str, re.Pattern[str], int, Needles], ...] = (
    # (kind, pattern, group holding the secret: 0 = whole match, needles)
    (
        "api_key",
        lazy(r"\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,200}"),
        0,
        Needles(("sk-",)),
    ),
    ("aws_access_key", lazy(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), 0, Needles(("AKIA", "ASIA"))),
    (
        "github_token",
        lazy(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[\w]{20,255})"),
        0,
        Needles(("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    ),
    ("slack_token", lazy(r"\bxox[abprs]-[A-Za-z0-9-]{10,200}"), 0, Needles(("xox",))),
    ("google_api_key", lazy(r"\bAIza[0-9A-Za-z_-]{30,40}"), 0, Needles(("AIza",))),
    (
        "stripe_key",
        lazy(r"\b(?:rk|pk|sk)_(?:live|test)_[A-Za-z0-9]{10,200}"),
        0,
        Needles(("_live_", "_test_")),
    ),
    (
        "jwt",
        lazy(r"\beyJ[A-Za-z0-9_-]{8,2000}\.[A-Za-z0-9_-]{8,2000}\.[A-Za-z0-9_-]{8,2000}"),
        0,
        Needles(("eyJ",)),
    ),
    (
        "bearer_token",
        lazy(r"\b[Bb]earer\s{1,3}([A-Za-z0-9._~+/=-]{12,2000})"),
        1,
        Needles(("earer",)),
    ),
    ("npm_token", lazy(r"\bnpm_[A-Za-z0-9]{36}\b"), 0, Needles(("npm_",))),
    ("sendgrid_key", lazy(r"\bSG\.[\w-]{16,32}\.[\w-]{16,64}"), 0, Needles(("SG.",))),
    ("twilio_key", lazy(r"\b(?:SK|AC)[0-9a-f]{32}\b"), 0, Needles(("SK", "AC"))),
    ("gitlab_token", lazy(r"\bglpat-[\w-]{20,64}"), 0, Needles(("glpat-",))),
    ("mailchimp_key", lazy(r"\b[0-9a-f]{32}-us\d{1,2}\b"), 0, Needles(("-us",), digit=True)),
    (
        "connection_string",
        lazy(r"\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@]{1,100}:([^\s@/]{3,200})@", re.I),
        1,
        Needles(("://",)),
    ),
)
# An unlabelled credential: a long run of base64/url-safe characters mixing upper case, lower
# case and digits with high per-character entropy (an AWS secret access key, a random API
# key). Hex-only runs (git hashes, UUIDs) and codes without lower case (tracking and order
# numbers) never qualify.
_TOKEN_RUN = lazy(r"(?<![\w/+=.-])[A-Za-z0-9_/+=-]{24,500}(?![\w/+=-])")
_HEX = lazy(r"[0-9a-fA-F-]+")
_DIGEST_CONTEXT = lazy(
    r"\b(?:commit|commits|committed|revert|reverted|cherry-pick|merge|merged|rev|revision|"
    r"hash|sha|sha-?1|sha-?256|sha-?512|md5|checksum|digest|fingerprint|build|tree|blob|head)\b",
    re.IGNORECASE,
)
_PEM_BEGIN = lazy(r"-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY-----")

_DIGIT_RUN = lazy(r"(?<![\d-])\d{1,19}(?:[ .-]\d{1,19}){0,15}(?![\d-])")
_GROUP = lazy(r"\d+")
_IDENTIFIERS: tuple[tuple[str, re.Pattern[str], int, str | None, Needles], ...] = (
    # (kind, pattern, group, the catalog field such a value may be stored in, needles); every
    # kind is kept only with a digit in it (numbers, or the checks in `_scan_view`)
    (
        "passport_number",
        lazy(r"\bpassport\s+(?:number|no\.?|#)\s*(?:is\s+|:\s*)?([A-Z0-9]{5,12})\b", re.IGNORECASE),
        1,
        "identity.passport.number",
        Needles(folded=("passport",), digit=True),
    ),
    (
        "licence_number",
        lazy(
            r"\bdriv(?:ing|er'?s?)\s+licen[cs]e\s+(?:number|no\.?|#)\s*(?:is\s+|:\s*)?"
            r"([A-Z0-9]{5,18})\b",
            re.IGNORECASE,
        ),
        1,
        "identity.driver_licence.number",
        Needles(folded=("licen",), digit=True),
    ),
    (
        "us_ssn",
        lazy(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])"),
        0,
        None,
        _digits(11, r"\d{3}-\d{2}-\d{4}"),
    ),
    (
        "uk_nino",
        lazy(r"\b[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]\b"),
        0,
        None,
        Needles(  # case-sensitive capitals
            digit=True,
            min_len=9,
            upper=True,
            floor=lazy(r"[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]\s?\d{2}"),
        ),
    ),
    (
        "national_id",
        lazy(
            r"\b(?:national\s+id(?:entity)?|id\s+card|social\s+security|ssn|nino|"
            r"national\s+insurance|tax\s+id|tin|aadhaar|身份证)\s*(?:number|no\.?|#)?\s*"
            r"(?:is|:|=|号码是|号是)?\s*([A-Z0-9][A-Z0-9 -]{4,24}[A-Z0-9])",
            re.IGNORECASE,
        ),
        1,
        None,
        Needles(
            ("身份证",),
            ("national", "card", "social", "ssn", "nino", "tax", "tin", "aadhaar"),
            digit=True,
        ),
    ),
    ("cn_resident_id", lazy(r"(?<!\d)\d{17}[\dXx](?!\d)"), 0, None, _digits(18, r"\d{17}")),
    (
        "iban",
        lazy(r"\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){3,7}(?:\s?[A-Z0-9]{1,3})?\b"),
        0,
        None,
        Needles(  # case-sensitive country code
            digit=True, min_len=16, upper=True, floor=lazy(r"[A-Z]{2}\d{2}")
        ),
    ),
)

_IBAN_LABEL = lazy(r"iban|account|konto|账号|账户", re.IGNORECASE)

# What any "drop your rules" injection in Spanish, French, German or Russian contains.
_DROP_RULES_VERBS = tuple(
    ["ignor", "olvid", "omite", "descarta", "oubli", "vergiss", "vergessen", "игнор", "забуд"]
)
# Not "sin" / "sans" / "ohne" / "без", which "business", "Sansa", "Bohne" hold, but what the
# preposition must be followed by ("confirm" also covers confirmar, confirmer, confirmation,
# confirmación).
_WITHOUT_ASKING_NEEDLES = Needles(
    folded=(
        "preguntar", "permiso", "confirm", "demander", "rifier", "accord", "fragen", "ckfrage",
        "tigung", "zustimmung", "подтвержд", "вопрос", "спрос", "соглас",
    )
)  # fmt: skip
_INSTRUCTIONS: tuple[tuple[str, re.Pattern[str], Needles], ...] = (
    (
        "override_rules",
        lazy(
            r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+)?(?:of\s+)?"
            r"(?:your\s+|the\s+|my\s+)?(?:previous|prior|above|earlier|original|system|safety)?\s*"
            r"(?:rules|instructions|prompts?|guidelines|guardrails|policies|restrictions)\b",
            re.IGNORECASE,
        ),
        Needles(folded=("ignore", "disregard", "forget", "override", "bypass")),
    ),
    (
        "persona_change",
        lazy(
            r"\byou\s+are\s+now\b|\bact\s+as\s+(?:if\s+you\s+are\s+)?(?:an?\s+)?unrestricted|\b(?:developer|god|dan)\s+mode\b|\bjailbreak",
            re.IGNORECASE,
        ),
        Needles(folded=("you", "unrestricted", "mode", "jailbreak")),
    ),
    (
        "system_prompt",
        lazy(r"\bsystem\s+prompt\b|\bnew\s+instructions?\s*:", re.IGNORECASE),
        Needles(folded=("prompt", "instruction")),
    ),
    (
        "skip_confirmation",
        lazy(
            r"\b(?:approve|authori[sz]e|execute|confirm|make|send|transfer|wire|pay|buy|book|"
            r"delete|sign|accept)\b[^.!?\n]{0,60}\bwithout\s+(?:ask(?:ing)?|confirm(?:ing|ation)?|"
            r"check(?:ing)?|my\s+(?:approval|permission|consent)|telling|warning)",
            re.IGNORECASE,
        ),
        Needles(folded=("without",)),
    ),
    (
        "standing_payment",
        lazy(
            r"\b(?:always|automatically|whenever\s+asked)\s+(?:send|transfer|wire|pay|forward|"
            r"share|give|move)\b[^.!?\n]{0,60}\b(?:money|funds|payments?|passwords?|credentials|"
            r"bitcoin|crypto|\$|£|€|to\s+(?:account|iban|wallet|this))",
            re.IGNORECASE,
        ),
        Needles(folded=("always", "automatically", "whenever")),
    ),
    (
        "no_confirmation",
        lazy(
            r"\b(?:never|don't|do\s+not|stop)\s+(?:ask(?:ing)?|check(?:ing)?\s+with)\s+(?:me\s+)?"
            r"(?:for\s+)?(?:permission|confirmation|approval|before)",
            re.IGNORECASE,
        ),
        Needles(folded=("ask", "check")),
    ),
    (
        "reveal_secrets",
        lazy(
            r"\b(?:reveal|share|send|print|show|leak)\s+(?:your|the|all)\s+(?:system\s+prompt|"
            r"api\s+keys?|passwords?|secrets|credentials)",
            re.IGNORECASE,
        ),
        Needles(folded=("prompt", "api", "password", "secret", "credential")),
    ),
    (
        "override_rules",
        lazy(
            r"忽略(?:之前|以前|上面|所有)?的?(?:指令|规则|提示)|不用(?:问|确认|询问)我|无需确认|直接转账"
        ),
        Needles(("忽略", "不用", "无需确认", "直接转账")),
    ),
    # Spanish, French, German and Russian: the two shapes injections take in every language
    # seen (drop your rules; act without asking). Look-alike letters are already read as
    # Latin by the view, so a disguised word of these languages matches too.
    (
        "override_rules",
        lazy(
            r"\b(?:ignora|ignore[sz]?|olvida|olvide|omite|descarta|oublie[sz]?|ignoriere|"
            r"ignorieren\s+sie|vergiss|vergessen\s+sie)\s+(?:todas?\s+|toutes?\s+|tous\s+|alle\s+)?"
            r"(?:las\s+|tus\s+|sus\s+|les\s+|tes\s+|vos\s+|deine\s+|ihre\s+|die\s+)?"
            r"(?:(?:vorherigen|bisherigen|obigen|pr[eé]c[eé]dentes|anteriores|previas)\s+)?"
            r"(?:instrucciones|reglas|indicaciones|normas|instructions|r[eè]gles|consignes|"
            r"anweisungen|regeln|instruktionen|vorgaben)\b|"
            r"(?:игнорируй(?:те)?|проигнорируй(?:те)?|забудь(?:те)?)\s+(?:все\s+)?"
            r"(?:(?:предыдущие|прежние|свои|твои|эти)\s+)?(?:инструкции|правила|указания)",
            re.IGNORECASE,
        ),
        Needles(folded=_DROP_RULES_VERBS),
    ),
    (
        "skip_confirmation",
        lazy(
            r"\b(?:paga|pague|transfiere|env[ií]a|compra|reserva|borra|firma|acepta|aprueba|"
            r"paie[sz]?|payez|transf[eè]re[sz]?|envoie[sz]?|ach[eè]te[sz]?|r[eé]serve[sz]?|"
            r"supprime[sz]?|signe[sz]?|accepte[sz]?|approuve[sz]?|zahle|bezahle|[uü]berweise|"
            r"sende|schicke|kaufe|buche|l[oö]sche|unterschreibe|akzeptiere|genehmige)\b"
            r"[^.!?\n]{0,60}\b(?:sin\s+(?:preguntar(?:me)?|confirmar|mi\s+permiso|"
            r"pedir(?:me)?\s+(?:permiso|confirmaci[oó]n))|sans\s+(?:me\s+)?(?:demander|"
            r"confirmer|confirmation|v[eé]rifier|mon\s+accord)|ohne\s+(?:zu\s+fragen|"
            r"nachzufragen|r[uü]ckfrage|best[aä]tigung|mich\s+zu\s+fragen|meine\s+zustimmung))|"
            r"(?:оплати|переведи|отправь|купи|забронируй|удали|подпиши|прими|одобри)"
            r"[^.!?\n]{0,60}без\s+(?:подтверждения|вопросов|спроса|согласования|моего\s+согласия)",
            re.IGNORECASE,
        ),
        _WITHOUT_ASKING_NEEDLES,
    ),
)


# Every gated step of `_scan_view`: a text none of these may match has nothing to find.
_ALL_NEEDLES = (
    _PEM_NEEDLES,
    _LABELLED_NEEDLES,
    _LABELLED_ZH_NEEDLES,
    _ENTROPY_NEEDLES,
    _CARD_NEEDLES,
    *(n for *_, n in _SECRETS),
    *(n for *_, n in _IDENTIFIERS),
    *(n for *_, n in _INSTRUCTIONS),
)
_NEEDLES = Pool(_ALL_NEEDLES)


# python-stdnum's checksums are imported at their first use: its `util` module loads `ssl`
# and `pydoc` (~0.02 s CPU), which a message without a card- or IBAN-shaped number never needs.


def luhn_ok(digits: str) -> bool:
    """The Luhn checksum used by payment card numbers (python-stdnum)."""
    from stdnum import luhn

    return bool(luhn.is_valid(digits))


def _iban_ok(value: str) -> bool:
    from stdnum import iban

    return bool(iban.is_valid(value))


def _cn_resident_id_ok(value: str) -> bool:
    from stdnum.cn import ric

    return bool(ric.is_valid(value))


def _cards(text: str) -> list[tuple[int, int]]:
    """Spans of Luhn-valid 13-19 digit card numbers, also inside longer digit-group runs.

    Groups may be separated by spaces, dashes or dots ("4111.1111.1111.1111").
    "2025 4111 1111 1111 1111" must still find the card, so every window of whole digit
    groups is tried; a run without separators is only checked whole (a random 16-digit window
    of a long number passes Luhn one time in ten).
    """
    spans: list[tuple[int, int]] = []
    for run in _DIGIT_RUN.finditer(text):
        if run.end() - run.start() < 13:
            continue  # fewer than 13 characters hold fewer than 13 digits: no card in it
        groups = [(g.start() + run.start(), g.end() + run.start()) for g in _GROUP.finditer(run[0])]
        # Every Luhn-valid window is masked (their union): taking the first valid window and
        # skipping past it can misalign on "2025 4111 1111 ..." and leave a real card visible.
        for i in range(len(groups)):
            digits = ""
            for j in range(i, len(groups)):
                group = text[groups[j][0] : groups[j][1]]
                if len(group) < 3 or 6 < len(group) < 13:
                    break  # cards are printed whole or in groups of 3-6 digits, not "1 2 3"
                digits += group
                if len(digits) > 19:
                    break
                if len(digits) >= 13 and luhn_ok(digits):
                    start, end = groups[i][0], groups[j][1]
                    if spans and start <= spans[-1][1]:
                        spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
                    else:
                        spans.append((start, end))
    return spans


def _pem_blocks(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _PEM_BEGIN.finditer(text):
        if spans and m.start() < spans[-1][1]:
            continue
        end = text.find("PRIVATE KEY-----", m.end())
        end = len(text) if end < 0 else end + len("PRIVATE KEY-----")
        spans.append((m.start(), end))
    return spans


def normalised_view(text: str) -> tuple[str, list[int] | None]:
    """The text as the patterns see it, and for each of its characters the original offset.

    NFKC per character (full-width digits become digits, a no-break space a space), format
    characters (Unicode category Cf: zero-width spaces and joiners, bidi controls) dropped,
    and look-alike letters of other scripts read as the Latin letters they imitate (see
    `_skeleton`), so "Ignоre previous instructiоns" with Cyrillic o is the English sentence.
    None for the offsets when nothing changed (pure ASCII text: the common case).
    """
    if text.isascii():
        return text, None
    out: list[str] = []
    offsets: list[int] = []
    for i, ch in enumerate(text):
        if ch.isascii():
            out.append(ch)
            offsets.append(i)
            continue
        if unicodedata.category(ch) == "Cf":
            continue
        folded = unicodedata.normalize("NFKC", ch)
        out.append(folded)
        offsets.extend([i] * len(folded))
    view = _skeleton("".join(out))
    return (view, None) if view == text else (view, offsets)


_WORD = lazy(r"[^\W\d_]+")


def _skeleton(view: str) -> str:
    """Words written with look-alikes of Latin letters, read as those letters.

    Unicode TR39's confusables (the data of the confusable-homoglyphs package) give each
    look-alike its Latin prototype. A word is rewritten when it mixes Latin letters with
    look-alikes ("Ignоre"), or when every one of its letters has a Latin prototype ("рау"):
    a real word of another script ("инструкции", "忽略") has letters without one and is left
    as written, so the other languages' patterns still read it. One character maps to one,
    so the offsets of the view stay valid.
    """
    if view.isascii():
        return view
    table = _latin_prototypes()

    def word(m: re.Match[str]) -> str:
        w = m[0]
        if w.isascii():
            return w
        if any(c.isascii() for c in w) or all(c.isascii() or c in table for c in w):
            return w.translate(table)
        return w

    return _WORD.sub(word, view)


@functools.cache
def _latin_prototypes() -> dict[int, str]:
    """Look-alike letter -> the ASCII letter it imitates (loaded on the first non-ASCII word)."""
    data = json.loads(
        resources.files("confusable_homoglyphs")
        .joinpath("confusables.json")
        .read_text(encoding="utf-8")
    )
    table: dict[int, str] = {}
    for ch, glyphs in data.items():
        if len(ch) != 1 or ch.isascii() or not ch.isalpha():
            continue
        latin = [
            g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii() and g["c"].isalpha()
        ]
        if latin:
            # TR39's prototype of I-like letters is "l"; a capital one reads as "I".
            table[ord(ch)] = "I" if latin[0] == "l" and ch.isupper() else latin[0]
    return table


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _high_entropy(text: str) -> list[tuple[int, int]]:
    """Unlabelled keys: long mixed-case-and-digit runs of high entropy, and long hex runs.

    A run of 32+ hex digits (with letters and digits, no dashes: a UUID stays readable) is a
    key unless a word within the 24 characters before it says it is a published digest
    (`_DIGEST_CONTEXT`: "commit 3f78…", "sha256 …"): a git hash in a note stays readable, an
    API key pasted alone does not.
    """
    spans: list[tuple[int, int]] = []
    for m in _TOKEN_RUN.finditer(text):
        value = m[0]
        if _HEX.fullmatch(value):
            if (
                len(value) >= 32
                and "-" not in value
                and any(c.isdigit() for c in value)
                and any(c.isalpha() for c in value)
                and not _DIGEST_CONTEXT.search(text, max(0, m.start() - 24), m.start())
            ):
                spans.append((m.start(), m.end()))
            continue
        if not (
            any(c.islower() for c in value)
            and any(c.isupper() for c in value)
            and any(c.isdigit() for c in value)
        ):
            continue
        if _entropy(value) >= 3.7:
            spans.append((m.start(), m.end()))
    return spans


def _credential_like(value: str) -> bool:
    """A value after a weak label ("key", "login") that looks like a credential, not a word."""
    if value.lower().strip(".!?") in _NOT_VALUES:
        return False
    if any(c.isdigit() for c in value) and len(value) >= 4:
        return True
    inner_upper = any(c.isupper() for c in value[1:])
    return len(value) >= 6 and (inner_upper or any(not c.isalnum() for c in value.strip(".!?:;")))


def _labelled(text: str, gate: Gate) -> list[tuple[int, int]]:
    """Values after a secret label ("password - X", "login is user / pass", "密钥：X")."""
    spans: list[tuple[int, int]] = []
    for m in _LABELLED.finditer(text) if gate.may_match(_LABELLED_NEEDLES) else ():
        value = m[3].rstrip(".!?:;")
        if not value or value.lower() in _NOT_VALUES:
            continue
        weak = _WEAK_LABEL.fullmatch(m["label"]) is not None
        # With nothing but whitespace between label and value ("password manager"), or
        # after a weak label, the value must look like a credential.
        if (weak or not m["sep"].strip()) and not _credential_like(value):
            continue
        if _CODE_LABEL.search(m["label"]) and not any(c.isdigit() for c in value):
            continue  # "the pin on the map is blue": a PIN or code has digits
        if _BARE_CODE.fullmatch(m["label"]) and (
            not _SHORT_CODE.fullmatch(value)
            or _PUBLIC_CODE.search(text, max(0, m.start() - 24), m.start())
        ):
            continue  # "use code SAVE20", "zip code 94110": public codes stay readable
        spans.append((m.start(3), m.start(3) + len(value)))
    for m in _LABELLED_ZH.finditer(text) if gate.may_match(_LABELLED_ZH_NEEDLES) else ():
        if any(c.isascii() and c.isalnum() for c in m[1]):  # not "验证码收不到怎么办"
            spans.append((m.start(1), m.end(1)))
    return spans


def scan(text: str) -> SafetyResult:
    """Find secrets, identifiers and instruction-like text; mask secrets and identifiers."""
    view, offsets = normalised_view(text)
    return _result(text, view, offsets, Gate(view, _NEEDLES))


class Scanner:
    """`scan` for many texts known up front (an import chunk's values): same results, less work.

    The needles are looked for once in all the texts joined; each text then looks only for
    those found (a needle in a text is in the join, so its gate is the one `scan` builds), and
    a text none of whose patterns may match (too short for those needing only digits, say)
    skips the patterns outright. A text not given up front is scanned in full.
    """

    __slots__ = ("_alive", "_pool", "_texts")

    def __init__(self, texts: Iterable[str]) -> None:
        self._texts = frozenset(texts)
        # The view is per character, so the views joined are the join's view; text by text,
        # a big non-ASCII batch never holds one offsets list for all of it.
        view = "\n".join(t if t.isascii() else normalised_view(t)[0] for t in self._texts)
        gate = Gate(view, _NEEDLES)
        self._pool = Pool.found(gate)
        # A superset per text: the join is at least as long as any text and holds its needles.
        self._alive = tuple(n for n in _ALL_NEEDLES if gate.may_match(n))

    def scan(self, text: str) -> SafetyResult:
        """What `scan(text)` returns."""
        if text not in self._texts:
            return scan(text)
        view, offsets = normalised_view(text)
        gate = Gate(view, self._pool)
        if not any(map(gate.may_match, self._alive)):
            return SafetyResult(text, ())
        return _result(text, view, offsets, gate)


def _result(text: str, view: str, offsets: list[int] | None, gate: Gate) -> SafetyResult:
    findings = _scan_view(view, gate=gate)
    if offsets is not None:
        # Spans found in the view are mapped back: a hidden zero-width character inside a
        # secret is covered by the span, so it is masked with the rest.
        findings = [
            Finding(f.category, f.kind, offsets[f.start], offsets[f.end - 1] + 1, f.allowed_path)
            for f in findings
            if f.end > f.start
        ]
    findings = _merge(findings)
    return SafetyResult(
        mask(text, [f for f in findings if f.category != "instruction"]), tuple(findings)
    )


def _scan_view(text: str, prefilter: bool = True, gate: Gate | None = None) -> list[Finding]:
    # Each pattern runs only where the pre-filter says it may match: clean text (most record
    # values, most of an archived file) skips nearly all of them.
    gate = Gate(text, _NEEDLES, off=not prefilter) if gate is None else gate
    findings: list[Finding] = []
    if gate.may_match(_PEM_NEEDLES):
        for start, end in _pem_blocks(text):
            findings.append(Finding("secret", "private_key", start, end))
    for kind, pattern, group, needles in _SECRETS:
        if not gate.may_match(needles):
            continue
        for m in pattern.finditer(text):
            findings.append(Finding("secret", kind, m.start(group), m.end(group)))
    for start, end in _labelled(text, gate):
        findings.append(Finding("secret", "password", start, end))
    if gate.may_match(_ENTROPY_NEEDLES):
        for start, end in _high_entropy(text):
            findings.append(Finding("secret", "high_entropy", start, end))
    if gate.may_match(_CARD_NEEDLES):
        for start, end in _cards(text):
            findings.append(Finding("identifier", "payment_card", start, end))
    for kind, pattern, group, allowed, needles in _IDENTIFIERS:
        if not gate.may_match(needles):
            continue
        for m in pattern.finditer(text):
            value = m[group]
            if kind in ("national_id", "passport_number", "licence_number") and not any(
                ch.isdigit() for ch in value
            ):
                continue  # "passport number is here": no number, nothing to protect
            if kind == "iban" and not (
                _iban_ok(value) or _IBAN_LABEL.search(text, max(0, m.start() - 12), m.start())
            ):
                continue  # an IBAN-shaped order code: only a valid checksum or a label masks it
            if kind == "cn_resident_id" and not _cn_resident_id_ok(value):
                continue
            findings.append(Finding("identifier", kind, m.start(group), m.end(group), allowed))
    for kind, pattern, needles in _INSTRUCTIONS:
        if not gate.may_match(needles):
            continue
        for m in pattern.finditer(text):
            if not _asks_about_facts(text, m.start(), m.end()):
                findings.append(Finding("instruction", kind, m.start(), m.end()))
    return findings


# A plain question about what happened ("Did she ignore the rules of the tournament?",
# "Why did you stop asking for permission?") is not an order: a sentence opening with a
# question word or a tense auxiliary and ending in "?". "Can/could/would you ..." are polite
# orders and stay in scope, and so does a question about the assistant's own rules or prompt.
_QUESTION = lazy(
    r"(?:what|which|who|whom|whose|when|where|why|how|did|does|do|was|were|is|are|has|have|"
    r"had)\b[^.!?\n]*\?",
    re.IGNORECASE,
)
_ADDRESSED = lazy(
    r"\byour\b|\b(?:previous|prior|above|earlier)\b|system\s+prompt|instructions?\s*:",
    re.IGNORECASE,
)


def _asks_about_facts(text: str, start: int, end: int) -> bool:
    """Whether the match sits in a question about facts rather than an order (see above)."""
    opening = max(text.rfind(c, 0, start) for c in ".!?\n") + 1
    head = text[opening:start].lstrip(" \t\"'*-(")
    sentence = head + text[start:]
    m = _QUESTION.match(sentence)
    return (
        m is not None
        and m.end() >= len(head) + (end - start)
        and not _ADDRESSED.search(text, start, end)
    )


def _merge(findings: list[Finding]) -> list[Finding]:
    """Sort, and drop a finding fully covered by an earlier one of its category (one report).

    Sorted by (start, -end), an earlier finding always starts first, so the furthest end seen
    per category decides coverage: linear, where comparing pairs was quadratic on a hostile
    message with thousands of findings.
    """
    findings.sort(key=lambda f: (f.start, -f.end))
    out: list[Finding] = []
    reach: dict[str, int] = {}
    for f in findings:
        if reach.get(f.category, -1) >= f.end:
            continue
        reach[f.category] = max(reach.get(f.category, -1), f.end)
        out.append(f)
    return out


def mask(text: str, findings: list[Finding]) -> str:
    """Replace every non-space character in the findings' spans with '*' (same length)."""
    if not findings:
        return text
    chars = list(text)
    for f in findings:
        for i in range(f.start, f.end):
            if not chars[i].isspace():
                chars[i] = "*"
    return "".join(chars)


_SENSITIVE: weakref.WeakKeyDictionary[Catalog, frozenset[str]] = weakref.WeakKeyDictionary()


def sensitive_fields(catalog: Catalog) -> frozenset[str]:
    """Catalog paths (attributes and `collection.field`) whose sensitivity is not 'none'.

    Found once per catalog (a catalog does not change once built): the gate asks per message.
    """
    found = _SENSITIVE.get(catalog)
    if found is None:
        out = {p for p, a in catalog.attributes.items() if a.spec.sensitivity != "none"}
        for path, coll in catalog.collections.items():
            fields = coll.spec.fields.items()
            out |= {f"{path}.{f}" for f, spec in fields if spec.sensitivity != "none"}
        found = _SENSITIVE[catalog] = frozenset(out)
    return found
