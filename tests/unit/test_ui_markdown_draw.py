"""``markdown_draw``: task boxes drawn as boxes; the code highlighter is loaded before the first note needs it."""

from __future__ import annotations

import json
import subprocess
import sys

from rich.theme import Theme

from noted.ui.widgets.markdown_draw import draw_lines

LEXER_MODULES = ["pygments.lexers.python", "pygments.lexers.javascript", "pygments.lexers.shell",
                 "pygments.lexers.sql", "pygments.lexers.go", "pygments.lexers.rust"]  # fmt: skip

PROBE = f"""
import json, sys
from noted.ui.widgets.markdown_draw import warm_up
modules = {LEXER_MODULES!r}
before = [m for m in modules if m in sys.modules]
warm_up("monokai", pause=0)
print(json.dumps({{"before": before, "after": [m for m in modules if m in sys.modules]}}))
"""


def test_warm_up_loads_the_lexers_of_common_languages() -> None:
    # In a fresh interpreter: this test process may have drawn code blocks already.
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout
    loaded = json.loads(out)
    assert loaded["before"] == []
    assert loaded["after"] == LEXER_MODULES


def test_a_task_list_item_shows_its_box_as_the_note_list_does() -> None:
    # The reader drew "• [ ] buy milk" and "• [x] call Ana": the brackets as typed.
    body = "- [ ] buy milk\n- [x] call **Ana**\n1. [X] numbered\n- [ ]glued\n\n[ ] not in a list\n\n`- [ ] code`\n"
    lines, _ = draw_lines(body, 40, Theme(), "monokai")
    text = [line.text.strip() for line in lines if line.text.strip()]
    assert text[:4] == ["• ☐ buy milk", "• ☑ call Ana", "1 ☑ numbered", "• [ ]glued"], text
    assert "[ ] not in a list" in text and "- [ ] code" in text


def test_an_image_is_drawn_where_it_stands_in_its_text_and_links_to_the_image() -> None:
    # Rich drew an image as a block of its own before its paragraph: "🌆 diagram See a and  end".
    body = "See [a](b) and ![diagram](x.png) end\n\n# Head ![](dir/pic.png) tail\n\n[![in](i.png)](http://e.x) out\n"
    lines, _ = draw_lines(body, 60, Theme(), "monokai")
    text = [line.text.rstrip() for line in lines if line.text.strip()]
    assert text == ["See a and 🌆 diagram end", "Head 🌆 pic.png tail", "🌆 in out"]
    clicks = {
        seg.text: seg.style.meta["@click"] for line in lines for seg in line if seg.style and seg.style.meta
    }
    assert clicks["diagram"] == "link('x.png')" and clicks["pic.png"] == "link('dir/pic.png')"
    assert clicks["in"] == "link('http://e.x')"  # inside a link: the link's own target
