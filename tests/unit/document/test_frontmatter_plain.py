"""Plain ``key: word`` frontmatter is read without PyYAML, exactly as PyYAML reads it."""

from __future__ import annotations

import subprocess
import sys

import yaml
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document.frontmatter import _load
from agent_doc.document.frontmatter import _load_plain
from agent_doc.document.frontmatter import parse_frontmatter

KEYS = st.sampled_from(["agent_doc_format", "model", "on", "Yes", "k", "_x", "a1"])
VALUES = st.sampled_from(
    ["template", "crdt", "", "yes", "No", "null", "True", "off", "claude-3", "a_b",
     "1234", "1e3", "x:y", "'q'", "~", "nan", ".inf", "2024-01-01", "a b", "é",
     "11111111-2222-3333-4444-555555555555", "0e4f9c2a-1d3b-4c5e-8f90-123456789abc",
     "2024-1111-2222-3333-444444444444", "1e100000-0000-0000-0000-000000000000",
     "12345678-1234-1234-1234-12345678901"]
)  # fmt: skip
SEPARATORS = st.sampled_from([": ", ":", ":  ", ":\t", " : "])
TRAILERS = st.sampled_from(["", " ", "\t", " # c", "\r"])


@given(
    st.lists(st.tuples(KEYS, SEPARATORS, VALUES, TRAILERS), max_size=5),
    st.sampled_from(["", "\n", "\n\n"]),
)
@settings(max_examples=500, deadline=None)
def test_plain_reader_agrees_with_pyyaml(
    lines: list[tuple[str, str, str, str]], blank: str
) -> None:
    text = blank.join(f"{k}{sep}{v}{t}\n" for k, sep, v, t in lines)
    plain = _load_plain(text)
    if plain is None:
        return  # PyYAML reads it
    assert plain == yaml.safe_load(text)


def test_a_template_document_is_parsed_without_importing_yaml() -> None:
    code = (
        "import sys\n"
        "from agent_doc.document.frontmatter import parse_frontmatter\n"
        "fm = parse_frontmatter('---\\nagent_doc_format: template\\nmodel: x-1\\n"
        "agent_doc_session: 0e4f9c2a-1d3b-4c5e-8f90-123456789abc\\n---\\nbody\\n')\n"
        "assert fm.format == 'template' and fm.model == 'x-1', fm\n"
        "assert fm.session == '0e4f9c2a-1d3b-4c5e-8f90-123456789abc', fm\n"
        "print('yaml' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_anything_else_still_goes_through_pyyaml() -> None:
    assert _load("links:\n  - a.md\n") == {"links": ["a.md"]}
    fm = parse_frontmatter("---\nagent_doc_debounce_ms: 500\n---\n")
    assert fm.debounce_ms == 500
