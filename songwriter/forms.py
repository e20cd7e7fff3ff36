"""Named forms: regulated Chinese verse, 对联, English stanza forms, and the 词牌 library.

`named_form(name)` is the one entry point: it knows the built-in forms and falls back to the
cipai library (assets/cipai.json) for tune names.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Callable

from songwriter.prosody.regulated import template_tones
from songwriter.template import (
    TONE_LEVEL as P, TONE_OBLIQUE as Z, Line, Slot, Template, TemplateError,
)

# Line sequences of a quatrain by start: (平起/仄起, first line rhymes) -> base line names.
_QUATRAINS = {
    ("仄", False): "ABab",
    ("仄", True): "bBab",
    ("平", False): "abAB",
    ("平", True): "BbAB",
}


def _seq_for(length: int, start: str, first_rhymes: bool) -> str:
    """五言 starts are read from the second character; 七言 adds two characters in front, which
    flips which 五言 start gives the 七言 start."""
    if length == 7:
        start = "仄" if start == "平" else "平"
    return _QUATRAINS[(start, first_rhymes)]


def regulated_verse(length: int, lines: int, start: str, first_rhymes: bool, name: str) -> Template:
    seq = _seq_for(length, start, first_rhymes)
    if lines == 8:
        # The second half repeats the quatrain, its first line always 仄收 (it does not rhyme).
        second = _seq_for(length, start, False)
        seq = seq + second
    out: list[Line] = []
    for i, base in enumerate(seq):
        tones = template_tones(base, length)
        rhymes = i % 2 == 1 or (i == 0 and first_rhymes)
        slots = [Slot(tone=t) for t in tones]
        slots[-1].punct = "。" if i % 2 == 1 else "，"
        out.append(Line(slots=slots, rhyme="A" if rhymes else None))
    family = f"{'五' if length == 5 else '七'}{'绝' if lines == 4 else '律'}"
    return Template(lines=out, lang="zh", tone_system="classical", kind="shi", name=name,
                    meta={"family": family})


def regulated_variants(family: str) -> list[Template]:
    """The four variants of 五绝/七绝/五律/七律 (平起/仄起 × 首句入韵 or not), the default first."""
    length = 5 if family[0] == "五" else 7
    lines = 4 if family[1] == "绝" else 8
    default = ("仄", False) if length == 5 else ("平", True)
    order = [default] + [(s, r) for s in ("平", "仄") for r in (True, False) if (s, r) != default]
    return [regulated_verse(length, lines, s, r, f"{family}·{s}起·首句{'入韵' if r else '不入韵'}")
            for s, r in order]


def old_style_quatrain(length: int, name: str) -> Template:
    """古绝: four lines, the second and fourth rhyming (平水韵, any tone), no 平仄 pattern."""
    lines = []
    for i in range(4):
        slots = [Slot() for _ in range(length)]
        slots[-1].punct = "。" if i % 2 else "，"
        lines.append(Line(slots=slots, rhyme="A" if i % 2 else None))
    return Template(lines=lines, lang="zh", tone_system="classical", kind="shi", name=name)


def couplet(length: int, name: str) -> Template:
    """对联: the upper line ends 仄, the lower 平, tones opposed position by position."""
    lines = []
    for base, punct in (("A", "，"), ("B", "。")):
        slots = [Slot(tone=t) for t in template_tones(base, length)]
        slots[-1].punct = punct
        lines.append(Line(slots=slots))
    return Template(lines=lines, lang="zh", tone_system="classical", kind="shi", name=name)


def english_form(name: str, meters: list[str], scheme: str, puncts: list[str],
                 stanza_sizes: list[int] | None = None, family: str = "", kind: str = "poem") -> Template:
    """A metrical English form. Its marks are what generation writes at line ends; a check asks
    for none of them (punctuation is the writer's). ``meta["verse"]``: the check accepts the
    standard substitutions and a feminine ending; rhymes are heard as slant rhymes with the
    period's (see docs/prosody-en.md). ``family``: the form this is a variant of (a hymn metre
    rhymed across or in couplets). ``kind``: a poem, or a hymn for a hymn metre (the register the
    engine writes in)."""
    lines = []
    stanza, left = 0, (stanza_sizes or [len(meters)])[0]
    sizes = list(stanza_sizes or [len(meters)])
    for i, (meter, label, punct) in enumerate(zip(meters, scheme, puncts)):
        if left == 0:
            stanza += 1
            left = sizes[stanza]
        slots = [Slot(tone=m) for m in meter]
        slots[-1].punct = punct
        lines.append(Line(slots=slots, rhyme=label if label != "-" else None, stanza=stanza))
        left -= 1
    return Template(lines=lines, lang="en", kind=kind, name=name, rhyme_system="slant",
                    meta={"verse": True, "family": family or name})


PENTAMETER = "x/x/x/x/x/"
TETRAMETER = "x/x/x/x/"
TRIMETER = "x/x/x/"
# Hymn metres by their syllable counts. Common, long and short metre are iambic by name; a metre
# named by its counts alone says how many syllables, and the tune sets the foot: 8.7.8.7 is mostly
# trochaic (Love divine, all loves excelling) and also iambic (The King of love my shepherd is,
# There is a gate that stands ajar), 7.6.7.6 iambic or trochaic (Near the cross), 11.10.11.10
# dactylic (Brightest and best) or iambic pentameter (O perfect Love). The first foot listed names
# the metre; the others are variants of it, so a check of the metre fits either (a verse keeps one
# foot throughout).
HYMN_METRES = {
    "Common metre": {"iambic": [TETRAMETER, TRIMETER] * 2},
    "Long metre": {"iambic": [TETRAMETER] * 4},
    "Short metre": {"iambic": [TRIMETER, TRIMETER, TETRAMETER, TRIMETER]},
    "8.7.8.7": {"trochaic": ["/x/x/x/x", "/x/x/x/"] * 2, "iambic": [TETRAMETER, "x/x/x/x"] * 2},
    "7.7.7.7": {"trochaic": ["/x/x/x/"] * 4},
    "7.6.7.6": {"iambic": ["x/x/x/x", TRIMETER] * 2, "trochaic": ["/x/x/x/", "/x/x/x"] * 2},
    "6.5.6.5": {"trochaic": ["/x/x/x", "/x/x/"] * 2},
    "11.10.11.10": {"dactylic": ["/xx/xx/xx/x", "/xx/xx/xx/"] * 2,
                    "iambic": [PENTAMETER + "x", PENTAMETER] * 2},
}
HYMN_ALIASES = {"Common metre": ("CM", "8.6.8.6", "common meter (hymn)"), "Long metre": ("LM", "8.8.8.8"),
                "Short metre": ("SM", "6.6.8.6")}


@dataclass(frozen=True)
class FormInfo:
    name: str
    lang: str
    description: str
    build: Callable[[], Template]
    aliases: tuple[str, ...] = ()


def _builtin() -> list[FormInfo]:
    forms: list[FormInfo] = []
    for length, short in ((5, "五"), (7, "七")):
        for lines, kind in ((4, "绝"), (8, "律")):
            base = f"{short}{kind}"
            variants = [(s, r) for s in ("平", "仄") for r in (True, False)]
            # Default start per common practice: 五言 仄起不入韵, 七言 平起入韵.
            default = ("仄", False) if length == 5 else ("平", True)
            for start, rhymes in variants:
                name = f"{base}·{start}起·首句{'入韵' if rhymes else '不入韵'}"
                aliases = (f"{base}{start}起{'' if rhymes else '不入韵'}",)
                if (start, rhymes) == default:
                    aliases += (base, {"五绝": "五言绝句", "七绝": "七言绝句",
                                       "五律": "五言律诗", "七律": "七言律诗"}[base])
                desc = f"{'五' if length == 5 else '七'}言{'绝句' if lines == 4 else '律诗'}, {start}起, 首句{'入韵' if rhymes else '不入韵'}"
                forms.append(FormInfo(
                    name, "zh", desc,
                    (lambda L=length, n=lines, s=start, r=rhymes, nm=name: regulated_verse(L, n, s, r, nm)),
                    aliases))
    for length, short in ((5, "五"), (7, "七")):
        forms.append(FormInfo(
            f"{short}言古绝", "zh", f"古绝 (old-style quatrain): four lines of {length}, the even lines rhyme, no tone rules",
            (lambda L=length, nm=f"{short}言古绝": old_style_quatrain(L, nm)), (f"{short}古绝", f"古绝{short}言")))
    forms.append(FormInfo("对联", "zh", "couplet: two seven-character lines, 仄 then 平 ending",
                          lambda: couplet(7, "对联"), ("对联七言", "couplet-zh")))
    forms.append(FormInfo("对联五言", "zh", "couplet: two five-character lines",
                          lambda: couplet(5, "对联五言")))
    q = [",", ",", ",", "."]
    forms.append(FormInfo(
        "Shakespearean sonnet", "en", "14 lines of iambic pentameter, ABAB CDCD EFEF GG",
        lambda: english_form("Shakespearean sonnet", [PENTAMETER] * 14, "ABABCDCDEFEFGG",
                             q * 3 + [",", "."]), ("sonnet", "shakespearean")))
    forms.append(FormInfo(
        "Petrarchan sonnet", "en", "14 lines of iambic pentameter, ABBAABBA CDECDE",
        lambda: english_form("Petrarchan sonnet", [PENTAMETER] * 14, "ABBAABBACDECDE",
                             q * 2 + [",", ",", ".", ",", ",", "."], [8, 6]), ("petrarchan", "italian sonnet")))
    forms.append(FormInfo(
        "Ballad stanza", "en", "4 lines, iambic tetrameter and trimeter alternating, ABCB",
        lambda: english_form("Ballad stanza", [TETRAMETER, TRIMETER] * 2, "-A-A", q),
        ("ballad", "common meter", "hymn")))
    forms.append(FormInfo(
        "Limerick", "en", "5 lines, anapestic, AABBA",
        lambda: english_form("Limerick", ["x/xx/xx/", "x/xx/xx/", "x/xx/", "x/xx/", "x/xx/xx/"],
                             "AABBA", [",", ",", ",", ",", "."]), ("limerick",)))
    for metre, feet in HYMN_METRES.items():
        counts = ".".join(str(len(m)) for m in next(iter(feet.values())))
        for n, (foot, meters) in enumerate(feet.items()):
            for scheme, arrangement in (("-A-A", ""), ("AABB", " (couplets)")):
                name = metre + ("" if n == 0 else f" {foot}") + arrangement
                forms.append(FormInfo(
                    name, "en", f"hymn metre {counts}, {foot}, "
                                f"{'rhymed ABAB or xAxA' if not arrangement else 'AABB'}",
                    (lambda m=meters, sc=scheme, nm=name, fam=metre:
                     english_form(nm, m, sc, q, family=fam, kind="hymn")),
                    HYMN_ALIASES.get(metre, ()) if not arrangement and n == 0 else ()))
    forms.append(FormInfo(
        "Heroic couplet", "en", "2 lines of iambic pentameter, AA",
        lambda: english_form("Heroic couplet", [PENTAMETER] * 2, "AA", [",", "."]), ("couplet",)))
    return forms


BUILTIN_FORMS: list[FormInfo] = _builtin()


def _lookup_key(name: str) -> str:
    return name.strip().lower().replace(" ", "").replace("·", "").replace("・", "")


def _index() -> dict[str, FormInfo]:
    index: dict[str, FormInfo] = {}
    for f in BUILTIN_FORMS:
        for key in (f.name, *f.aliases):
            index.setdefault(_lookup_key(key), f)
    return index


def named_form(name: str) -> Template:
    """A built-in form or a 词牌 by name or alias; TemplateError with suggestions otherwise."""
    if not name or not name.strip():
        raise TemplateError("no form name given")
    info = _index().get(_lookup_key(name))
    if info is not None:
        return info.build()
    from songwriter.prosody import cipai

    try:
        form = cipai.find_form(name.strip())
    except KeyError:
        pass
    else:
        return cipai_template(form)
    known = [f.name for f in BUILTIN_FORMS] + list(cipai.load_library())
    close = difflib.get_close_matches(name.strip(), known, n=5, cutoff=0.4)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `songwriter forms` lists them"
    raise TemplateError(f"unknown form {name!r}{hint}")


def cipai_template(form, variant=None) -> Template:
    """A 词牌 entry of the library -> Template (its rhyme labels, so tunes that change rhyme such as
    菩萨蛮 keep their changes; tones as the library gives). ``variant``: one of ``form.variants``
    instead of the standard format."""
    shape = variant or form
    lines = []
    for i, cl in enumerate(shape.lines):
        tones = [P if t == "平" else Z if t == "仄" else None for t in cl.tones] if cl.tones else [None] * cl.length
        slots = [Slot(tone=tones[k] if k < len(tones) else None) for k in range(cl.length)]
        slots[-1].punct = cl.punct
        stanza = 1 if shape.stanza_break is not None and i >= shape.stanza_break else 0
        label = (cl.rhyme_label or "A") if cl.rhyme else None
        lines.append(Line(slots=slots, rhyme=label, stanza=stanza))
    name = form.name if variant is None else f"{form.name}·{''.join(str(ln.length) for ln in shape.lines)}"
    return Template(lines=lines, lang="zh", tone_system="classical", kind="ci", name=name,
                    meta={"family": form.name})


def _shape(template: Template) -> list:
    """What a form fixes, locks aside: per line its slots' tones, marks and spans, and its rhyme."""
    return [([(s.tone, s.punct, s.span) for s in line.slots], line.rhyme) for line in template.lines]


def _family_members(template: Template) -> list[Template]:
    family = template.meta.get("family") if isinstance(template.meta, dict) else None
    if not family:
        return []
    if template.kind == "shi" and family in ("五绝", "七绝", "五律", "七律"):
        return regulated_variants(family)
    if template.lang == "en":
        return [f.build() for f in BUILTIN_FORMS if f.lang == "en" and f.build().meta.get("family") == family]
    if template.kind == "ci":
        from songwriter.prosody import cipai

        try:
            form = cipai.find_form(family)
        except KeyError:
            return []
        return [cipai_template(form)] + [cipai_template(form, v) for v in form.variants]
    return []


def alternatives(template: Template) -> list[Template]:
    """The other variants of the named form a template is (the three other 平起/仄起 × 首句入韵
    variants of a 七绝, the other formats of a 词牌), each with the template's locked characters;
    [] when the template is no named form or has been edited away from it (its tones, marks or
    rhymes changed), so an edited template is checked as it stands."""
    members = _family_members(template)
    own = next((m for m in members if m.name == template.name), None)
    if own is None or _shape(own) != _shape(template):
        return []
    locks = [[s.lock for s in line.slots] for line in template.lines]
    locked = any(x is not None for row in locks for x in row)
    out = []
    for m in members:
        if m.name == template.name:
            continue
        if locked:
            if [len(line.slots) for line in m.lines] != [len(row) for row in locks]:
                continue
            for line, row in zip(m.lines, locks):
                for slot, lock in zip(line.slots, row):
                    slot.lock = lock
        out.append(m)
    return out


def list_forms(query: str = "") -> list[tuple[str, str, str]]:
    """(name, language, description) of built-in forms and cipai matching the query."""
    q = _lookup_key(query)
    out = [(f.name, f.lang, f.description) for f in BUILTIN_FORMS
           if not q or any(q in _lookup_key(k) for k in (f.name, *f.aliases, f.description))]
    from songwriter.prosody import cipai

    for form in (cipai.search(query) if query else sorted(cipai.load_library().values(),
                                                          key=lambda f: -f.examples)):
        lengths = "".join(str(ln.length) if ln.length < 10 else f"({ln.length})" for ln in form.lines)
        total = sum(ln.length for ln in form.lines)
        out.append((form.name, "zh", f"词牌, {len(form.lines)} lines, {total} characters ({lengths}); "
                                     f"{form.examples} examples"))
    return out
