"""Generate the conversational retrieval set: long two-person dialogues with labelled questions.

Run from the repository root (deterministic: the same seed always writes the same bytes):

    python bench/convset.py            # writes bench/data/conv_dev.json, conv_heldout.json

Shaped like the public long-conversation benchmarks (LoCoMo-style): each dialogue is between
two friends, split into dated sessions over several months; most turns are chit-chat, some
state life events (a new pet, a trip, a job change ...) and later turns mention them again.
Questions are asked about one or two speakers and labelled with their evidence turns:

* single-hop — one event turn, asked in other words (synonyms, other verb forms: "met" vs
  "meet", "bought" vs "buy", a class noun instead of the named thing);
* multi-hop — two event turns of one dialogue joined in one question;
* temporal — "when did ...", "what did X do in March 2023", "last month", "yesterday" (each
  question carries the `today` it is asked on);
* open-domain — an inference from the evidence ("would X enjoy a hiking trip?").

Every turn is stored as "Speaker: text", the way a chat transcript is added as messages.
The split into dev and held-out is by dialogue and fixed here, before any tuning.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path

from uac.fact_log.calendar_words import MONTH_NAMES

SEED = 20261201
DIALOGUES = 12
OUT = Path(__file__).with_name("data")

PAIRS = [
    ("Maya", "Tom"),
    ("Sam", "Priya"),
    ("Jonas", "Elena"),
    ("Grace", "Diego"),
    ("Omar", "Lucy"),
    ("Hana", "Felix"),
    ("Ivy", "Marcus"),
    ("Nora", "Ben"),
    ("Zara", "Leo"),
    ("Caleb", "Rosa"),
    ("Aiko", "Pedro"),
    ("Kofi", "Ines"),
]
MONTHS = list(MONTH_NAMES)

# Each event: slot choices, ways the speaker states it (first person), ways the other reacts,
# later mentions (distractors sharing the entity), questions in other words, an open-domain
# inference question, and a short phrase for "when did X ..." questions.
EVENTS: list[dict] = [
    {
        "slots": {
            "breed": ["beagle", "corgi", "labrador", "border collie", "dachshund"],
            "pet": ["Biscuit", "Pepper", "Mochi", "Rusty", "Luna"],
        },
        "say": [
            "We adopted a {breed} puppy at the shelter last weekend, we named him {pet}!",
            "Big news, we finally got a {breed} puppy. His name is {pet} and he is chaos.",
        ],
        "react": ["Aww a {breed}! Send pictures of {pet} please", "No way, a puppy! Congrats!"],
        "later": [
            "{pet} chewed through my charger cable again lol",
            "Took {pet} to the vet for shots",
        ],
        "ask": [
            "What is the name of the dog {X} adopts?",
            "Which breed of dog does {X} have?",
        ],
        "open": "Is {X} a pet owner?",
        "when": "adopt a puppy",
    },
    {
        "slots": {"city": ["Lisbon", "Kyoto", "Reykjavik", "Marrakech", "Vancouver", "Prague"]},
        "say": [
            "Just got back from {city}, the trip was amazing, I walked everywhere.",
            "I flew to {city} for a week, honestly the best holiday I've had in years.",
        ],
        "react": ["{city}! Jealous. What was the food like?", "Welcome back! How was {city}?"],
        "later": ["Still dreaming about {city} to be honest", "I printed my photos from {city}"],
        "ask": ["Where did {X} travel for vacation?", "Which city did {X} visit on the trip?"],
        "open": "Has {X} been abroad recently?",
        "when": "travel to {city}",
    },
    {
        "slots": {"job": ["project manager", "data analyst", "head nurse", "sous chef", "teacher"]},
        "say": [
            "I got the promotion! Starting Monday I'm officially {job}.",
            "They offered me the {job} position and I said yes.",
        ],
        "react": ["Congrats on the new role!!", "You deserve it, {job} sounds great"],
        "later": ["Being {job} means so many meetings now", "New role is busy but good"],
        "ask": ["What position was {X} promoted to?", "What is {X}'s new job title?"],
        "open": "Is {X} doing well in their career?",
        "when": "get promoted",
    },
    {
        "slots": {"hobby": ["pottery", "salsa dancing", "rock climbing", "watercolour painting"]},
        "say": [
            "I signed up for a {hobby} class on Thursday evenings, first one was fun.",
            "Started taking {hobby} lessons, I'm terrible but I love it.",
        ],
        "react": ["{hobby}? That's so cool", "Ooh, how was the first lesson?"],
        "later": ["My {hobby} teacher said I'm improving", "Skipped {hobby} this week, too tired"],
        "ask": ["Which new hobby did {X} pick up?", "What kind of classes does {X} attend?"],
        "open": "Does {X} like creative or active pastimes?",
        "when": "start {hobby} lessons",
    },
    {
        "slots": {"race": ["half marathon", "10k run", "triathlon", "marathon"]},
        "say": [
            "I ran my first {race} on Sunday! My legs are destroyed.",
            "Finished the {race} this morning, way faster than I expected.",
        ],
        "react": ["You ran a {race}?! Amazing", "Wow, congrats runner!"],
        "later": ["Thinking about another {race} next year", "My knees still remember that {race}"],
        "ask": ["What race did {X} complete?", "Which running event did {X} take part in?"],
        "open": "Is {X} into fitness?",
        "when": "run the {race}",
    },
    {
        "slots": {"home": ["flat near the river", "house with a garden", "studio downtown"]},
        "say": [
            "We moved into a {home}, boxes everywhere but it feels like home.",
            "Moving day is done, we're finally living in the {home}.",
        ],
        "react": ["New place! Housewarming when?", "A {home} sounds lovely"],
        "later": ["Still unpacking boxes from the move", "The new neighbours are friendly"],
        "ask": ["Where does {X} live now after relocating?", "What kind of home did {X} move to?"],
        "open": "Did {X} change address this year?",
        "when": "move house",
    },
    {
        "slots": {"person": ["my cousin Ana", "my old roommate Jake", "my aunt Rita"]},
        "say": [
            "I met {person} for coffee after ten years, we talked for hours.",
            "Ran into {person} at the station and we went for lunch, so random.",
        ],
        "react": ["That's such a nice surprise", "Ten years! How are they doing?"],
        "later": ["{person} texted me again today", "Planning dinner with {person} next month"],
        "ask": [
            "Who did {X} meet up with after many years?",
            "Which relative or friend did {X} see again?",
        ],
        "open": "Does {X} keep in touch with old friends?",
        "when": "meet {person}",
    },
    {
        "slots": {"car": ["a used Volvo", "an electric Kia", "a red Mini", "a Toyota hybrid"]},
        "say": [
            "I bought {car} yesterday, no more buses for me.",
            "Finally got a car, {car}. The insurance was painful though.",
        ],
        "react": ["{car}, nice! Road trip?", "Congrats on the wheels"],
        "later": ["Took the car for its first service", "Parking is a nightmare with the car"],
        "ask": ["What vehicle did {X} buy?", "Which car does {X} drive now?"],
        "open": "Does {X} rely on public transport?",
        "when": "buy a car",
    },
    {
        "slots": {"book": ["Dune", "Middlemarch", "The Overstory", "Piranesi", "Beloved"]},
        "say": [
            "I finished reading {book} last night and I can't stop thinking about it.",
            "Book club picked {book}, I read it in three days.",
        ],
        "react": ["{book} is on my list!", "Was {book} worth it?"],
        "later": ["Lent my copy of {book} to a coworker", "Looking for something like {book}"],
        "ask": ["Which novel did {X} read recently?", "What book did {X} finish?"],
        "open": "Does {X} enjoy literature?",
        "when": "finish reading {book}",
    },
    {
        "slots": {"band": ["Arctic Monkeys", "Florence and the Machine", "Radiohead", "Adele"]},
        "say": [
            "We saw {band} live on Friday, the crowd was insane.",
            "The {band} concert was everything, I lost my voice singing.",
        ],
        "react": ["{band}!! So jealous", "Was the setlist good?"],
        "later": ["Still listening to {band} on repeat", "Bought a {band} shirt at the show"],
        "ask": ["Which band did {X} go to see perform?", "What concert did {X} attend?"],
        "open": "Does {X} like live music?",
        "when": "see {band} live",
    },
    {
        "slots": {"dish": ["ramen from scratch", "a lemon tart", "homemade dumplings", "paella"]},
        "say": [
            "I cooked {dish} for friends on Saturday and it actually worked!",
            "Spent the whole afternoon making {dish}, kitchen was a mess.",
        ],
        "react": ["Save me some of the {dish}", "You're becoming a chef"],
        "later": ["Going to try a new recipe this weekend", "Burnt the rice today, humbling"],
        "ask": ["What dish did {X} prepare for guests?", "What food did {X} make at home?"],
        "open": "Does {X} enjoy cooking?",
        "when": "cook {dish}",
    },
    {
        "slots": {"cause": ["the food bank", "an animal shelter", "a literacy charity"]},
        "say": [
            "I started volunteering at {cause} on Saturdays, it feels good.",
            "Did my first volunteer shift at {cause} today.",
        ],
        "react": ["That's really kind of you", "How did you find {cause}?"],
        "later": ["Busy shift at {cause} this morning", "{cause} needs more helpers"],
        "ask": ["Where does {X} do volunteer work?", "Which charity does {X} help at?"],
        "open": "Does {X} care about their community?",
        "when": "start volunteering",
    },
    {
        "slots": {"injury": ["sprained my ankle", "broke my wrist", "pulled a muscle in my back"]},
        "say": [
            "Ugh, I {injury} playing football, doctor says rest for weeks.",
            "Bad news, I {injury} on the stairs at work.",
        ],
        "react": ["Oh no, get well soon!", "Ouch, take it easy"],
        "later": ["Recovery is slow but getting there", "Physio again tomorrow"],
        "ask": ["How did {X} get hurt?", "What injury did {X} suffer?"],
        "open": "Has {X} had any health problems lately?",
        "when": "get injured",
    },
    {
        "slots": {"lang": ["Japanese", "Portuguese", "Italian", "Korean", "German"]},
        "say": [
            "I'm learning {lang} with an app every morning, 30 day streak!",
            "Signed up for {lang} evening classes, the grammar is hard.",
        ],
        "react": ["{lang}? Say something!", "Good luck with the grammar"],
        "later": ["My {lang} teacher is strict", "Practised {lang} with a tourist today"],
        "ask": ["Which language is {X} studying?", "What foreign language does {X} learn?"],
        "open": "Is {X} interested in other cultures?",
        "when": "start learning {lang}",
    },
    {
        "slots": {"plant": ["tomatoes", "herbs on the balcony", "sunflowers", "strawberries"]},
        "say": [
            "I planted {plant} this week, fingers crossed they grow.",
            "My {plant} finally sprouted, I'm weirdly proud.",
        ],
        "react": ["Green thumb!", "Send me some when they're ready"],
        "later": ["Watered the garden twice today, so hot", "Slugs ate half my garden"],
        "ask": ["What is {X} growing in the garden?", "What did {X} plant?"],
        "open": "Does {X} enjoy gardening?",
        "when": "plant {plant}",
    },
    {
        "slots": {"family": ["my sister had a baby girl", "my brother got engaged"]},
        "say": [
            "Family news: {family}! Everyone is over the moon.",
            "Guess what, {family} last week.",
        ],
        "react": ["Congratulations to them!", "That's wonderful news"],
        "later": ["Family dinner on Sunday was loud", "Mum keeps sending me photos"],
        "ask": ["What happy news did {X} share about family?", "What happened in {X}'s family?"],
        "open": "Is {X} close to their family?",
        "when": "share family news",
    },
]

FILLER = [
    "Hey {O}! How's your week going?",
    "Haha true",
    "See you!",
    "Talk soon, {O}!",
    "Long day at work, I'm beat.",
    "The weather has been so grey lately.",
    "Did you watch the game last night?",
    "lol yes",
    "Same here honestly",
    "I need more sleep",
    "What are you up to this weekend?",
    "Not much, just relaxing at home.",
    "Coffee soon?",
    "Sounds good to me",
    "Miss you, {O}!",
    "Work has been chaotic this month.",
    "I'm thinking about a new hobby, any ideas?",
    "Have you seen any good movies lately?",
    "My phone is dying, text you later",
    "Good morning {O}!",
    "That's so funny",
    "Ugh Mondays",
    "I'm so hungry right now",
    "Let's catch up properly soon",
    "Thanks {O}, you're the best",
    "Night!",
    "Honestly I just want a holiday",
    "My family is visiting next week",
    "Traffic was terrible today",
    "I tried a new café near work",
    "Are you still going to the gym?",
    "I should really read more",
    "Did you see the news?",
    "Can't believe it's already {month}",
]


def _fill(template: str, slots: dict[str, str]) -> str:
    return template.format(**slots)


def dialogue(n: int, rng: random.Random) -> dict:
    """One dialogue: sessions of turns, its events, and its labelled questions."""
    a, b = PAIRS[n]
    start = dt.datetime(2023, 1 + rng.randrange(4), 1 + rng.randrange(20), 18, 0)
    sessions = 18
    dates = []
    day = start
    for _ in range(sessions):
        dates.append(day)
        day += dt.timedelta(days=rng.randint(9, 16), minutes=rng.randint(-90, 90))
    # Each speaker gets 9 distinct event types, placed in distinct sessions.
    plan = []
    for who in (a, b):
        for e in rng.sample(range(len(EVENTS)), 9):
            slots = {k: rng.choice(v) for k, v in EVENTS[e]["slots"].items()}
            plan.append((who, e, slots))
    rng.shuffle(plan)
    at_session = {}
    free = list(range(1, sessions))
    rng.shuffle(free)
    for i, item in enumerate(plan):
        at_session.setdefault(free[i % len(free)], []).append(item)
    turns: list[dict] = []
    events: list[dict] = []
    mentions: list[tuple[int, str, dict]] = []  # (session, speaker, event) to mention later
    for s, when in enumerate(dates):
        t = when
        count = rng.randint(17, 23)
        body: list[tuple[str, str, dict | None]] = []
        for who, e, slots in at_session.get(s, []):
            body.append((who, "event", {"e": e, "slots": slots}))
        for ms, who, ev in mentions:
            if ms == s:
                body.append((who, "later", ev))
        while len(body) < count:
            body.append((a if rng.random() < 0.5 else b, "filler", None))
        rng.shuffle(body)
        # Greetings first, goodbyes last, like a real chat session.
        body.insert(0, (a, "hello", None))
        body.append((b, "bye", None))
        for who, what, info in body:
            other = b if who == a else a
            month = MONTHS[t.month - 1]
            if what == "hello":
                text = rng.choice(["Hey {O}! How's your week going?", "Good morning {O}!"])
            elif what == "bye":
                text = rng.choice(["See you!", "Talk soon, {O}!", "Night!"])
            elif what == "filler":
                text = rng.choice(FILLER)
            elif what == "later":
                text = rng.choice(EVENTS[info["e"]]["later"])
            else:
                text = rng.choice(EVENTS[info["e"]]["say"])
            slots = {"O": other, "month": month, **(info["slots"] if info else {})}
            turn = {
                "id": len(turns),
                "session": s,
                "speaker": who,
                "text": f"{who}: {_fill(text, slots)}",
                "at": t.isoformat(),
            }
            turns.append(turn)
            t += dt.timedelta(minutes=rng.randint(1, 6))
            if what == "event":
                events.append(
                    {**info, "who": who, "turn": turn["id"], "session": s, "at": turn["at"]}
                )
                # The other speaker reacts right away; a later session mentions it again.
                react = _fill(rng.choice(EVENTS[info["e"]]["react"]), {**slots, "O": who})
                turns.append(
                    {"id": len(turns), "session": s, "speaker": other,
                     "text": f"{other}: {react}", "at": t.isoformat()}
                )  # fmt: skip
                t += dt.timedelta(minutes=rng.randint(1, 6))
                later = rng.randint(s + 1, s + 6)
                if later < sessions:
                    mentions.append((later, who, info))
    questions = _questions(rng, n, a, b, events, turns, dates)
    return {"speakers": [a, b], "turns": turns, "questions": questions}


def _questions(rng, n, a, b, events, turns, dates) -> list[dict]:
    out: list[dict] = []
    last = dt.datetime.fromisoformat(turns[-1]["at"]).date()
    today = last + dt.timedelta(days=3)

    def add(kind: str, text: str, evidence: list[int], asked: dt.date = today) -> None:
        out.append(
            {
                "id": f"c{n}q{len(out)}",
                "dialogue": n,
                "category": kind,
                "question": text,
                "evidence": sorted(evidence),
                "today": asked.isoformat(),
            }
        )

    for ev in events:
        spec = EVENTS[ev["e"]]
        slots = {"X": ev["who"], **ev["slots"]}
        add("single-hop", rng.choice(spec["ask"]).format(**slots), [ev["turn"]])
        if rng.random() < 0.45:
            add("open-domain", spec["open"].format(**slots), [ev["turn"]])
        if rng.random() < 0.3:
            add("temporal", f"When did {ev['who']} {spec['when'].format(**slots)}?", [ev["turn"]])
    # Multi-hop: two events of one speaker, or one of each speaker, joined in one question.
    for _ in range(8):
        e1, e2 = rng.sample(events, 2)
        q1 = rng.choice(EVENTS[e1["e"]]["ask"]).format(X=e1["who"], **e1["slots"]).rstrip("?")
        q2 = rng.choice(EVENTS[e2["e"]]["ask"]).format(X=e2["who"], **e2["slots"]).rstrip("?")
        q2 = q2[0].lower() + q2[1:]
        add("multi-hop", f"{q1}, and {q2}?", [e1["turn"], e2["turn"]])
    # Temporal by period: the speaker's event turns in a month, last month, or yesterday.
    by_month: dict[tuple[str, int, int], list[int]] = {}
    for ev in events:
        at = dt.datetime.fromisoformat(ev["at"])
        by_month.setdefault((ev["who"], at.year, at.month), []).append(ev["turn"])
    keys = sorted(by_month)
    for who, year, month in rng.sample(keys, min(4, len(keys))):
        name = MONTHS[month - 1]
        phr = rng.choice([f"in {name} {year}", f"during {name} {year}", f"in {name}"])
        asked = today if "in " + name != phr else dt.date(year, month, 28) + dt.timedelta(days=40)
        text = rng.choice([f"What did {who} do {phr}?", f"What was going on with {who} {phr}?"])
        add("temporal", text, by_month[(who, year, month)], asked)
    for who, year, month in rng.sample(keys, min(2, len(keys))):
        asked = (dt.date(year, month, 1) + dt.timedelta(days=35)).replace(day=5)
        add("temporal", f"What was {who} up to last month?", by_month[(who, year, month)], asked)
    for ev in rng.sample(events, 2):
        at = dt.datetime.fromisoformat(ev["at"]).date()
        add(
            "temporal",
            f"What did {ev['who']} talk about yesterday?",
            [e["turn"] for e in events if e["who"] == ev["who"] and e["session"] == ev["session"]],
            at + dt.timedelta(days=1),
        )
    return out


def build(seed: int = SEED) -> tuple[dict, dict]:
    """The dev and held-out halves (split by dialogue, fixed before any tuning)."""
    rng = random.Random(seed)
    dialogues = [dialogue(n, rng) for n in range(DIALOGUES)]
    dev = [d for i, d in enumerate(dialogues) if i % 2 == 0]
    held = [d for i, d in enumerate(dialogues) if i % 2 == 1]
    meta = {"seed": seed, "generator": "bench/convset.py"}
    return {**meta, "split": "dev", "dialogues": dev}, {
        **meta,
        "split": "held-out",
        "dialogues": held,
    }


def main() -> None:
    """Write both halves under bench/data/ and print their sizes."""
    OUT.mkdir(exist_ok=True)
    for part, name in zip(build(), ("conv_dev.json", "conv_heldout.json"), strict=True):
        (OUT / name).write_text(json.dumps(part, indent=0, sort_keys=True) + "\n")
        turns = sum(len(d["turns"]) for d in part["dialogues"])
        qs = [q for d in part["dialogues"] for q in d["questions"]]
        cats: dict[str, int] = {}
        for q in qs:
            cats[q["category"]] = cats.get(q["category"], 0) + 1
        print(name, len(part["dialogues"]), "dialogues", turns, "turns", len(qs), "questions", cats)


if __name__ == "__main__":
    main()
