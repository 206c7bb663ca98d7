"""`Memory`'s verbs, each the method of the service that holds it: generated.

Do not edit: run `python -m uac.runtime.api.verb_codegen` (runtime/api/verb_codegen.py);
tests/test_verb_table.py fails when this file is stale. Each line exposes one verb of the
verb table (runtime/api/verbs.py) with its service's signature and docstring (`via`,
runtime/api/workspace.py); `Memory` (memory.py) composes the services and inherits these.
"""

from __future__ import annotations

from uac.runtime.api.alerts import AlertDesk
from uac.runtime.api.journal import Journal
from uac.runtime.api.preview import Planner
from uac.runtime.api.reads import Reader
from uac.runtime.api.recall import Recall
from uac.runtime.api.sharing import Sharing
from uac.runtime.api.workspace import via
from uac.runtime.api.writes import Writer


class ServiceVerbs:
    """The verbs of the verb table a service holds, as `Memory` exposes them."""

    set = via("_writer", Writer.set)
    import_file = via("_writer", Writer.import_file)
    import_records = via("_writer", Writer.import_records)
    add = via("_writer", Writer.add)
    preview = via("_planner", Planner.preview)
    remember = via("_writer", Writer.remember)
    note = via("_writer", Writer.note)
    prefer = via("_writer", Writer.prefer)
    forget = via("_writer", Writer.forget)
    add_episode = via("_journal", Journal.add_episode)
    confirm = via("_journal", Journal.confirm)
    feedback = via("_recall", Recall.feedback)
    add_rule = via("_alerts", AlertDesk.add_rule)
    member_add = via("_sharing", Sharing.member_add)
    member_remove = via("_sharing", Sharing.member_remove)
    members = via("_sharing", Sharing.members)
    promote = via("_sharing", Sharing.promote)
    demote = via("_sharing", Sharing.demote)
    facts = via("_reader", Reader.facts)
    inputs = via("_reader", Reader.inputs)
    rejections = via("_reader", Reader.rejections)
    compile = via("_reader", Reader.compile)
    query = via("_reader", Reader.query)
    search = via("_recall", Recall.search)
    context = via("_recall", Recall.context)
    manifest = via("_reader", Reader.manifest)
    why = via("_reader", Reader.why)
    diff = via("_reader", Reader.diff)
    alerts = via("_alerts", AlertDesk.alerts)
    questions = via("_alerts", AlertDesk.questions)
    acknowledge = via("_alerts", AlertDesk.acknowledge)
    snooze = via("_alerts", AlertDesk.snooze)
    check = via("_alerts", AlertDesk.check)
    subjects = via("_reader", Reader.subjects)
    verify = via("_reader", Reader.verify)
    anchors = via("_reader", Reader.anchors)
    run_once = via("_alerts", AlertDesk.run_once)
