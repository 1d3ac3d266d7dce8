"""Plain text at Parley's edge: no control character but tab, line feed and carriage return. A NUL
reaches PostgreSQL as an error (text cannot hold it), and the other control characters have no business
in a handle, a form field or a tool argument; tools and forms refuse them with this one definition.
Text compared without regard to case, spacing or Unicode form (a topic, a search) is `folded` once,
at the edge, so a rule on it and the tool that uses it see the very same value."""

from __future__ import annotations

import re
import unicodedata

# Unicode category Cc (C0, DEL, C1) less tab, line feed and carriage return.
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def control_character(value: object) -> str | None:
    """The first control character in a string, or in any key or string inside a list or dict, written
    as U+XXXX; None when the value is plain."""
    if isinstance(value, str):
        found = CONTROL.search(value)
        return f"U+{ord(found.group()):04X}" if found else None
    if isinstance(value, dict):
        items: list[object] = [*value.keys(), *value.values()]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        return None
    for item in items:
        found_in = control_character(item)
        if found_in is not None:
            return found_in
    return None


def folded(text: str) -> str:
    """Text as Parley compares it: Unicode NFKC (full-width and compatibility forms become their plain
    letters), lower case, words one space apart, no space around. Folding it again changes nothing."""
    plain = unicodedata.normalize("NFKC", text)
    return " ".join(unicodedata.normalize("NFKC", plain.lower()).split())
