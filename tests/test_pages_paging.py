"""Next, previous and first page over the API's cursors (pages.paging): pure."""

from urllib.parse import parse_qs

from pages import paging
from pages.paging import Links, Position, links, split_navigation

FILTERS = {"market": ["HK", "SG"], "q": "医疗"}
FIRST = "market=HK&market=SG&q=%E5%8C%BB%E7%96%97"


def test_the_first_page_has_no_cursor_and_links_only_forward():
    listing, position = split_navigation({**FILTERS, "page": "7", "back": "abc"})
    assert listing == FILTERS
    assert position == Position(1, None, ())
    assert links(FILTERS, position, "C2") == Links(
        first=None, previous=None, next=FIRST + "&cursor=C2&page=2"
    )


def test_page_two_goes_back_to_the_first_page():
    listing, position = split_navigation({**FILTERS, "cursor": "C2", "page": "2"})
    assert listing == {**FILTERS, "cursor": "C2"}
    assert position == Position(2, "C2", ())
    assert links(FILTERS, position, "C3") == Links(
        first=FIRST, previous=FIRST, next=FIRST + "&cursor=C3&page=3&back=C2"
    )


def test_deeper_pages_carry_the_trail_and_the_last_page_has_no_next():
    _, position = split_navigation({"cursor": "C4", "page": "4", "back": "C2,C3"})
    assert position == Position(4, "C4", ("C2", "C3"))
    assert links({}, position, None) == Links(
        first="", previous="cursor=C3&page=3&back=C2", next=None
    )
    assert links({}, position, "C5").next == "cursor=C5&page=5&back=C2,C3,C4"


def test_following_next_then_previous_returns_to_the_same_query():
    page3 = "cursor=C3&page=3&back=C2"
    _, position = split_navigation({k: v[0] for k, v in parse_qs(page3).items()})
    page4 = links({}, position, "C4").next
    _, at4 = split_navigation({k: v[0] for k, v in parse_qs(page4).items()})
    assert links({}, at4, None).previous == page3


def test_a_cursor_without_page_or_trail_has_no_previous_but_a_first_page():
    # e.g. a next_cursor pasted from the API
    _, position = split_navigation({"q": "x", "cursor": "C9"})
    assert position == Position(None, "C9", ())
    assert links({"q": "x"}, position, "C10") == Links(
        first="q=x", previous=None, next="q=x&cursor=C10&back=C9"
    )


def test_navigation_values_that_cannot_be_ours_are_dropped():
    for page, back in (("0", "C2"), ("1", "C2"), ("x", "C2"), ("2.5", "C2"), ("١٢", "C2")):
        assert split_navigation({"cursor": "C", "page": page, "back": back})[1] == Position(
            None, "C", ("C2",)
        )
    for back in ("C2,,C3", "C2,<b>", "C2, C3", ["C2", "C3"]):
        assert split_navigation({"cursor": "C", "page": "3", "back": back})[1] == Position(
            3, "C", ()
        )


def test_a_long_trail_keeps_the_most_recent_cursors_that_fit(monkeypatch):
    monkeypatch.setattr(paging, "MAX_QUERY", 70)
    trail = tuple(f"C{n:02d}xxxxxxxx" for n in range(2, 10))
    position = Position(10, "C10xxxxxxxx", trail)
    following = links({"q": "x"}, position, "C11xxxxxxxx").next
    assert following == "q=x&cursor=C11xxxxxxxx&page=11&back=C09xxxxxxxx,C10xxxxxxxx"
    assert len(following) == 59  # one more cursor would make it 71
    # The page reached that way can go back once, then offers only the first page.
    _, at11 = split_navigation({k: v[0] for k, v in parse_qs(following).items()})
    at10 = links({"q": "x"}, at11, None).previous
    assert at10 == "q=x&cursor=C10xxxxxxxx&page=10&back=C09xxxxxxxx"
    _, position = split_navigation({k: v[0] for k, v in parse_qs(at10).items()})
    at9 = links({"q": "x"}, position, None).previous
    _, position = split_navigation({k: v[0] for k, v in parse_qs(at9).items()})
    assert position == Position(9, "C09xxxxxxxx", ())
    assert links({"q": "x"}, position, None) == Links(first="q=x", previous=None, next=None)
