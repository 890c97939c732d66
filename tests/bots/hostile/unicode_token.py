"""Says hello with a token holding non-ASCII characters (either transport), then plays on if
wrongly welcomed. ``secrets.compare_digest`` raised TypeError on it and voided the match."""

from _link import Link, play

link = Link()
link.hello(token=link.token[:-2] + "é€")
play(link)
