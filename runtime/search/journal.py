"""What the context block says about the past and the unfinished: episodes, tasks, questions.

Pure functions over what the API layer gathered (typed records from the checkpoint, facts),
rendered as lines for `context.assemble`:

* episodes similar to the request ("last time the VPN failed, re-installing the profile
  fixed it"): an episode matches when its problem shares a content word (stemmed by the
  search analyzer) with the query; ranked by shared words, then recency;
* open tasks (status not done/dropped) with where to pick up: the resume point, else the
  first step not done, and the due date;
* tentative preferences, shown as questions to confirm, never as rules: a preference value
  is tentative while every fact asserting it came from conversation (an automatic source),
  none with the confidence of an explicit, durable statement (EXPLICIT_CONFIDENCE), and it
  was said only once. Saying it again, or an explicit write (`uac set`, `uac confirm`),
  confirms it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from typing import Any

AUTOMATIC = ("automatic_rule", "automatic_llm")
EXPLICIT_CONFIDENCE = 0.85  # "from now on, ..." (0.9) is stated; a bare imperative (0.75) is not
CLOSED = ("done", "dropped")
# Words too common to make two problems similar (stemmed like the query before use).
COMMON = (
    "my our the a an it is was again last time when then and or but not with to of in on for "
    "failed fail fails broke broken stopped working work works worked won't wouldn't didn't "
    "problem issue help today yesterday week"
)


def similar_episodes(
    episodes: Iterable[Any], query: str | None, terms: Callable[[str], list[str]], k: int = 2
) -> list[str]:
    """Lines recalling the k past episodes whose problem is most like the query."""
    if not query:
        return []
    common = set(terms(COMMON))
    wanted = set(terms(query)) - common
    ranked = []
    for ep in episodes:
        shared = wanted & (set(terms(ep.problem)) - common)
        if shared and ep.worked:
            day = ep.date or dt.date.min
            ranked.append((-len(shared), -day.toordinal(), ep.problem, ep))
    ranked.sort(key=lambda r: r[:3])
    return [_episode_line(ep) for *_, ep in ranked[:k]]


def _episode_line(ep: Any) -> str:
    when = f"on {ep.date:%Y-%m-%d}" if ep.date else "before"
    line = f"- {when}, {ep.problem}: {ep.worked} fixed it"
    failed = [f for f in (ep.failed or ()) if f != ep.worked]
    if failed:
        line += f" ({'; '.join(failed)} did not help)"
    return line


def open_tasks(tasks: Iterable[Any], today: dt.date) -> list[str]:
    """One line per open task with where to pick up (and how soon it is due)."""
    lines = []
    keyed = sorted(
        (t for t in tasks if (t.status or "planned") not in CLOSED),
        key=lambda t: (t.due_date or dt.date.max, t.goal),
    )
    for task in keyed:
        done = set(task.done_steps or ())
        nxt = task.resume_point or next((s for s in (task.steps or ()) if s not in done), None)
        line = f"- {task.goal} [{task.status or 'planned'}]"
        if nxt:
            line += f": pick up at {nxt}"
        if task.steps:
            line += f" ({len(done & set(task.steps))}/{len(task.steps)} steps done)"
        if task.due_date:
            days = (task.due_date - today).days
            line += f"; due {task.due_date:%Y-%m-%d}" + (
                f" (in {days} days)" if days >= 0 else f" ({-days} days overdue)"
            )
        lines.append(line)
    return lines


def tentative(facts: Sequence[Any], value: Any) -> bool:
    """True when `value` (the current one at a path) rests on one inferred statement only."""
    retracted = {
        f.value.get("target") for f in facts if f.op == "retract" and isinstance(f.value, dict)
    }
    support = [f for f in facts if f.op == "assert" and f.id not in retracted and f.value == value]
    if not support:
        return False  # a default: nothing was said
    if any(f.source not in AUTOMATIC or f.confidence >= EXPLICIT_CONFIDENCE for f in support):
        return False
    return len({f.input_id or f.id for f in support}) < 2


def question(path: str, value: Any) -> str:
    """A tentative preference as a question for the agent to ask."""
    slot = path.rsplit(".", 1)[-1].replace("_", " ")
    return f"- {slot} = {value}? (inferred once from conversation: ask before relying on it)"


def gather(
    catalog: Any,
    facts_of: Callable[[str, str | None], list[Any]],
    terms: Callable[[str], list[str]],
    subject: str,
    checkpoint: Any | None,
    query: str | None,
    wishes: list[Any],
    today: dt.date,
) -> dict[str, Any]:
    """The context's episodes, open tasks and questions (tentative preferences).

    `catalog` is the workspace's (its `attributes`: the preference slots), `wishes` the
    recalled soft preferences (runtime/search/soft_preferences.py; one resting on a single
    inferred statement leaves them for a question).

    `facts_of(subject, path)` reads the subject's facts; `terms(text)` analyses a query as
    the search index does (called only when a query asks).
    """
    out: dict[str, Any] = {"episodes": [], "tasks": [], "questions": [], "tentative": frozenset()}
    if checkpoint is not None:
        user = checkpoint.user
        out["episodes"] = similar_episodes(getattr(user, "episodes", ()), query, terms)
        out["tasks"] = open_tasks(getattr(user, "tasks", ()), today)
        prefs = getattr(user, "preferences", None)
        waiting = set()
        for attr in catalog.attributes.values():
            if attr.domain != "preferences" or prefs is None:
                continue
            value = getattr(prefs, attr.name, None)
            if tentative(facts_of(subject, attr.path), value):
                waiting.add(attr.name)
                out["questions"].append(question(attr.path, value))
        out["tentative"] = frozenset(waiting)
    facts = {f.id: f for f in facts_of(subject, "preferences.soft")} if wishes else {}
    for wish in list(wishes):
        support = [facts[i] for i in wish.fact_ids if i in facts]
        if support and tentative(support, support[0].value):
            wishes.remove(wish)  # a style hint is a rule the agent follows: ask first
            out["questions"].append(f"- {wish.text}? (inferred once: ask before relying on it)")
    return out
