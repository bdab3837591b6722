"""URL and address values with bracket and port typos: every one refused in one line that names it and the fault;
the good ones accepted."""

import pytest

from sparring.kit.net import check_http_url, split_address

GOOD_URLS = ["http://127.0.0.1:8000/v1", "http://[::1]:8000/v1", "https://api.example.com/v1", "http://localhost"]
PORT_TYPOS = ["80a", "0", "65536", "99999", "-1", "", "\u0663", " 80", "8000:90"]


def url_typos() -> list[tuple[str, str]]:
    """(bad URL, the words its error must hold), made from the good URLs by the typos people make."""
    v6, v4 = "http://[::1]:8000/v1", "http://127.0.0.1:8000/v1"
    cases = [(v6.replace("[", "", 1), "brackets"), (v6.replace("]", "", 1), "brackets")]
    cases += [(v6.replace("]", "]]", 1), "brackets"), (v6.replace("[", "[[", 1), "brackets")]
    cases += [("http://[]:8000/v1", "IPv6 address"), ("http://[zz]:8000/v1", "IPv6 address")]
    cases += [(v4.replace("8000", port), "port") for port in PORT_TYPOS if port != "8000:90"]
    cases += [(v4.replace("8000", "8000:90"), "port is mistyped"), (v6.replace("8000", "80a"), "port")]
    cases += [("http://:8000/v1", "no host"), ("http:///v1", "no host"), ("http://127.0.0.1 :8000/v1", "no host")]
    cases += [("127.0.0.1:8000/v1", "not an http"), ("htp://127.0.0.1:8000/v1", "not an http"), ("", "not an http")]
    return cases


@pytest.mark.parametrize("url", GOOD_URLS)
def test_a_good_url_is_accepted(url):
    assert check_http_url(url, "--x") == url


@pytest.mark.parametrize("url, words", url_typos(), ids=[c[0] or "empty" for c in url_typos()])
def test_a_url_typo_is_one_line_naming_it_and_the_fault(url, words):
    with pytest.raises(ValueError) as caught:
        check_http_url(url, "--brain URL")
    line = str(caught.value)
    assert "\n" not in line and repr(url) in line and words in line and "--brain URL" in line, line


@pytest.mark.parametrize("address", ["[::1:6379", "[::1]x", "[::1]]:6379", "127.0.0.1:x", "127.0.0.1:0", ":6379"])
def test_an_address_typo_is_refused(address):
    with pytest.raises(ValueError, match="address") as caught:
        split_address(address, 6379)
    assert repr(address) in str(caught.value)


def test_an_address_gets_the_default_port_only_when_it_gives_none():
    assert split_address("[::1]:7000", 6379) == ("::1", 7000)
    assert split_address("[::1]", 6379) == ("::1", 6379)
    assert split_address("ray://head:10001", 6379) == ("head", 10001)
