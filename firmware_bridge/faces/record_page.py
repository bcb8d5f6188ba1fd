"""A game's record as a page of its own: the club view's record link on a phone, and the
kiosk's on its 7" screen. The record is the text ``board-referee records`` prints (what
``play --moves-file`` replays); the page shows it at the screen's width, 16 px, its lines
wrapped, with the plain text and the way back one touch (44 px) away. Never a new tab: a
kiosk's browser has no tabs to close."""

from __future__ import annotations

import html


def record_page(title: str, text: str, links: list[tuple[str, str]]) -> str:
    """The page: ``title``, then ``links`` ((address, words) pairs), then the record."""
    shown = html.escape(title)
    buttons = " ".join(f'<a href="{html.escape(href)}">{html.escape(words)}</a>'
                       for href, words in links)  # fmt: skip
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{shown}</title><link rel="stylesheet" href="/static/record.css">'
        f"</head><body><h1>{shown}</h1><p>{buttons}</p>"
        f"<pre>{html.escape(text)}</pre></body></html>\n"
    )
