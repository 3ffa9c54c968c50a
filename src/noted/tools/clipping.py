"""HTML to Markdown for ``create_note(body_html=...)``, with markdownify.

Links and images are made absolute against ``base_url`` (a page clipped from the web keeps working
links); ``javascript:`` and other script links keep only their text; the page's ``<head>``
(title, styles, scripts) is left out. Headings become ``#`` lines and lists use ``-``, as noted's
own notes do.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from bs4 import BeautifulSoup
from markdownify import MarkdownConverter

SAFE_SCHEMES = frozenset({"http", "https", "mailto", "ftp", "tel", ""})
"""Link schemes kept; ``""`` is a relative link (or ``:/id``, a link to a note)."""


def _resolved(url: str, base_url: str) -> str | None:
    """``url`` made absolute against ``base_url``; None for a script or data link."""
    url = url.strip()
    if not url:
        return None
    if url.startswith(":/"):  # a link to a note or attachment in noted: leave it alone
        return url
    absolute = urljoin(base_url, url) if base_url else url
    scheme = urlsplit(absolute).scheme.lower()
    return absolute if scheme in SAFE_SCHEMES else None


def html_to_markdown(html: str, base_url: str = "") -> str:
    """The Markdown of an HTML page or fragment."""
    soup = BeautifulSoup(html, "html.parser")
    for hidden in soup(["head", "script", "style", "noscript", "template"]):
        hidden.decompose()
    for link in soup.find_all("a", href=True):
        href = _resolved(str(link["href"]), base_url)
        if href is None:
            del link["href"]
        else:
            link["href"] = href
    for image in soup.find_all("img"):
        src = _resolved(str(image.get("src") or ""), base_url)
        if src is None:
            image.replace_with(str(image.get("alt") or ""))
        else:
            image["src"] = src
    converter = MarkdownConverter(heading_style="ATX", bullets="-", escape_misc=False)
    return converter.convert_soup(soup).strip() + "\n"
