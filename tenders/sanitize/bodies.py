"""Public bodies that no list holds, found by the shape of their names: a place's proper name
with a word saying it is a local government or a body ("Wyre Forest District Council", "City of
Wanneroo", "London Borough of Hackney", "Ville de Gatineau", "Northumbria Healthcare NHS
Foundation Trust", "Department of Veterans' Affairs", "荃灣區議會").

The directory holds the main bodies of the seven markets; there are thousands of councils,
trusts and offices besides, and a summary that names one names its buyer. A name counts only
with a distinctive word in it: one that is neither an ordinary word of bodies and procurement
("Arts Council", "Department of Health" are anyone's) nor of certification and standards
("Forest Stewardship Council", "Green Building Council").
"""

import re
from collections.abc import Iterator

from .view import View
from .words import ORDINARY_WORDS, word_set

Span = tuple[int, int, str, str]

_CAP = r"[A-Z][A-Za-z'’&-]*"
_LOCAL = (
    r"(?:District|Borough|County|City|Shire|Town|Regional|Municipal|Parish|Metropolitan"
    r"|Rural|Community|Island|Village)"
)
# "Wyre Forest District Council", "Kirklees Council", "Sembawang Town Council".
COUNCIL_RE = re.compile(rf"((?:{_CAP} ){{1,5}}?)(?:{_LOCAL} )?Council\b")
# "City of Wanneroo", "London Borough of Hackney", "Township of Langley", "Ville de Gatineau".
PLACE_OF_RE = re.compile(
    r"\b(?:City|Town|Shire|Municipality|Borough|County|Region|District|Township|Village"
    rf"|Regional Municipality) of (?:the )?((?:{_CAP}(?: |$|(?=[^A-Za-z])))+)"
    rf"|\bVille de ((?:{_CAP} ?)+)"
)
# "Department of Veterans' Affairs", "Office of the Privacy Commissioner".
OFFICE_OF_RE = re.compile(
    r"\b(?:Department|Ministry|Office|Bureau|Directorate|Secretariat|Agency) (?:of|for) "
    rf"(?:the )?((?:{_CAP}(?: and | & |, | )?)+)"
)
# "Northumbria Healthcare NHS Foundation Trust", "Leeds Teaching Hospitals NHS Trust".
NHS_TRUST_RE = re.compile(rf"((?:{_CAP} ){{1,5}})NHS (?:Foundation )?Trust\b")
# 荃灣區議會, 离岛区议会, 澳門市政局.
CN_COUNCIL_RE = re.compile(r"[\u4e00-\u9fff]{2,4}(?:區議會|区议会|市議會|市议会|區公所|区公所)")

# Words of certification, standards and ordinary organisations: with only these (and
# ordinary words), a "... Council" is no public body's own name.
_COMMON_ORG_WORDS = word_set(
    "stewardship green building standards standard certification accreditation sustainability "
    "sustainable safety security advisory steering research innovation sports arts medical "
    "nursing dental pharmacy professional trade industry industrial business chamber student "
    "students parent parents staff works workers union unions joint privy legislative "
    "executive security economic social cultural science scientific british australian "
    "canadian european international world global our your their this that each every any "
    "local parish school schools church youth women elders design review tender evaluation "
    "members member town city county district borough shire regional municipal village "
    "island community rural metropolitan director manager officer chief head secretary "
    "president chair chairman chairperson deputy assistant general forest marine fairtrade "
    "carbon timber wood textile textiles recycling packaging food"
)
_GENERIC_STARTS = word_set("The A An This That Our Your Their Each Every Any Its His Her")


def _distinctive(words: str) -> bool:
    """Whether a name holds a word of its own: a proper name, not an ordinary word."""
    for word in re.split(r"[ ,&]+|-(?=[A-Z])", words):
        word = word.strip(".'’")
        if not word or word in _GENERIC_STARTS or word in ("and", "of", "the"):
            continue
        lowered = word.lower()
        if lowered not in ORDINARY_WORDS and lowered not in _COMMON_ORG_WORDS and len(word) > 1:
            return True
    return False


def body_spans(view: View) -> Iterator[Span]:
    if "body" not in view.hints:
        return
    text = view.narrowed
    for m in COUNCIL_RE.finditer(text):
        if _distinctive(m.group(1)):
            yield m.start(), m.end(), "body_like", "a council's name"
    for m in PLACE_OF_RE.finditer(text):
        name = m.group(1) or m.group(2) or ""
        if _distinctive(name):
            yield m.start(), m.start() + len(m.group().rstrip()), "body_like", "a local government"
    for m in OFFICE_OF_RE.finditer(text):
        if _distinctive(m.group(1)):
            end = m.start() + len(m.group().rstrip(" ,&"))
            yield m.start(), end, "body_like", "a department's or office's name"
    if "NHS" in text:
        for m in NHS_TRUST_RE.finditer(text):
            if _distinctive(m.group(1)):
                yield m.start(), m.end(), "body_like", "an NHS trust's name"
    if not text.isascii():
        for m in CN_COUNCIL_RE.finditer(text):
            yield m.start(), m.end(), "body_like", "a district council's name"
