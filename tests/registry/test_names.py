"""The one name rule (bots, authors, house bots, ladder bots) and the comparison of names."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.ladder.config import LadderConfigError, load_ladder
from arena.match.bots import BotCommandError, parse_bot
from arena.names import BadName, check_name, clash, is_ref, name_key, parse_ref
from arena.registry.manifest import ManifestError, read_manifests
from arena.web.accounts import AccountError, Accounts

SAFE = ["alice", "house-greedy", "random_bot", "bot.v2", "_x", "A1", "a" * 48, "mochi-open"]
UNSAFE = [
    ".", "..", "...", ".hidden", "-x", "--help", "", "a" * 49, "a/b", "a\\b", "a b", "a\n",
    "alice\n", "alice@3", "a+b", "a:b", "\u00e9t\u00e9", "\u0430lice", "a\0b", "ALICE\t",
]  # fmt: skip


@pytest.mark.parametrize("name", SAFE)
def test_names_that_follow_the_rule(name: str) -> None:
    assert check_name(name) == name
    assert is_ref(name) and is_ref(f"{name}@12")
    assert parse_ref(f"{name}@12") == (name, 12)


@pytest.mark.parametrize("name", UNSAFE)
def test_names_that_could_be_a_path_an_option_or_a_look_alike_are_refused(name: str) -> None:
    with pytest.raises(BadName, match="expected 1-48 ASCII letters"):
        check_name(name)


def test_a_refused_name_is_shown_short() -> None:
    with pytest.raises(BadName) as caught:
        check_name("x" * 5000 + "/")
    assert len(str(caught.value)) < 300 and "5001 chars" in str(caught.value)


@pytest.mark.parametrize("ref", ["alice@0", "alice@01", "alice@" + "9" * 5000, "alice@", "@3"])
def test_refs_with_a_bad_or_huge_version_are_refused_not_parsed(ref: str) -> None:
    assert not is_ref(ref)
    with pytest.raises(BadName):
        parse_ref(ref)


def test_names_are_compared_ignoring_case_and_separators() -> None:
    assert name_key("House-Greedy") == name_key("house_greedy") == name_key("HOUSE.GREEDY")
    assert name_key("house-greedy") != name_key("housegreedy")
    assert clash("House-Greedy", ["alice", "house-greedy"]) == "house-greedy"
    assert clash("house-greedy", ["house-greedy"]) is None  # the same name is not a clash
    assert clash("bob", ["alice", "house-greedy"]) is None


@pytest.mark.parametrize("name", ["..", ".", "-x", ".hidden", "a+b", "alice@2"])
def test_a_manifest_name_follows_the_rule(tmp_path: Path, name: str) -> None:
    (tmp_path / "arena-bot.toml").write_text(f'name = "{name}"\nlanguage = "py"\nrun = "x"\n')
    with pytest.raises(ManifestError, match=r"arena-bot.toml: name: expected 1-48 ASCII"):
        read_manifests(tmp_path)


def test_author_names_follow_the_rule_and_cannot_pass_for_another(tmp_path: Path) -> None:
    accounts = Accounts(tmp_path / "accounts.db")
    try:
        accounts.add_author("alice")
        for bad in ("..", ".hidden", "-x", "a/b"):
            with pytest.raises(AccountError, match=r"author name .*: expected 1-48"):
                accounts.add_author(bad)
        with pytest.raises(AccountError, match="already exists"):
            accounts.add_author("alice")
        for alike in ("Alice", "ALICE"):
            with pytest.raises(AccountError, match="too close to the existing 'alice'"):
                accounts.add_author(alike)
    finally:
        accounts.close()


def test_a_bot_name_claimed_cannot_be_taken_in_another_spelling(tmp_path: Path) -> None:
    accounts = Accounts(tmp_path / "accounts.db")
    try:
        accounts.add_author("alice")
        accounts.add_author("mallory")
        accounts.check_claim("greedy", "mallory")  # claims nothing
        accounts.claim("greedy", "alice")
        accounts.claim("greedy", "alice")  # again: still hers
        with pytest.raises(AccountError, match="belongs to another author"):
            accounts.claim("greedy", "mallory")
        for alike in ("Greedy", "GREEDY"):
            with pytest.raises(AccountError, match="too close to the existing 'greedy'"):
                accounts.claim(alike, "mallory")
            with pytest.raises(AccountError, match="too close to the existing 'greedy'"):
                accounts.claim(alike, "alice")  # her own name in another spelling, too
        assert accounts.bots_of("alice") == ["greedy"] and accounts.bots_of("mallory") == []
    finally:
        accounts.close()


def test_ladder_bot_names_follow_the_rule_and_differ_by_more_than_case(tmp_path: Path) -> None:
    def ladder(*names: str) -> Path:
        lines = ['game = "happy_mochi"', "seats = 2"]
        for name in names:
            lines += ["[[bots]]", f'name = "{name}"', 'command = "python random_bot.py"']
        path = tmp_path / "l.toml"
        path.write_text("\n".join(lines) + "\n")
        return path

    with pytest.raises(LadderConfigError) as caught:
        load_ladder(ladder("..", "ok"))
    assert "bots[0].name: expected 1-48 ASCII letters" in str(caught.value)
    with pytest.raises(LadderConfigError) as caught:
        load_ladder(ladder("greedy", "Greedy"))
    assert "bots[1].name: 'Greedy' is already the name of bots[0] ('greedy'" in str(caught.value)
    with pytest.raises(BotCommandError, match="expected 1-48 ASCII"):
        parse_bot("python .hidden.py")  # a name from the script's stem follows the rule too
    with pytest.raises(BotCommandError, match=r"bot name 'my\+bot': expected 1-48 ASCII"):
        parse_bot("my+bot=python x.py")  # a name that breaks the rule is said, not run
    assert parse_bot("alice@3=python x.py").name == "alice@3"
    assert parse_bot("python x.py --level=3").name == "x"
