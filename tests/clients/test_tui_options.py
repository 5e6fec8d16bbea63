"""Every declared option through both terminal modes: the waiting room's keys keep the
options they do not change, and the full-screen create form, the host's options form and
line mode's flags send each declared option (at a value other than its default) to the
server: an option declared later is tested here without a line changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from textual.screen import Screen
from textual.widgets import Checkbox, Input, Select

from clients.net import GameClient
from clients.terminal.app import Entry, TerminalClient, entry_from, parser
from clients.terminal.options import FORM, HOST_FORM, flag_name, room_values
from clients.terminal.tokens import TokenFile
from clients.terminal.tui.app import KingsCornerApp
from clients.terminal.tui.look import Look
from clients.terminal.tui.optionform import ConfigureScreen
from protocol.options_table import OptionSpec, Value
from tests.clients.tui_driver import server, shows, until

__all__ = ["server"]  # the fixture, imported to override the shared one


async def test_a_waiting_room_key_keeps_every_option_it_does_not_change(
    url: str, tmp_path: Path
) -> None:
    client = GameClient(url, "Ana", reconnect=True)
    app = KingsCornerApp(
        client, Look(), entry=Entry(mode="create", seats=2), tokens=TokenFile(tmp_path / "t.json")
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await shows(pilot, "Waiting room")
        variants = {"opening_refill": True, "scoring": "corners", "casual": True, "pace": "fast"}
        await client.send({"type": "configure", "options": {"seats": 2, **variants}})

        def options() -> dict[str, object]:
            assert client.doc is not None
            return dict(client.doc["room"]["options"])

        await until(pilot, lambda: options()["scoring"] == "corners", what="corners scoring")
        await pilot.press("+")
        await until(pilot, lambda: options()["target"] == 30, what="target 30")
        assert {name: options()[name] for name in variants} == variants
        await pilot.press("ctrl+q")
    await client.close()


def other_value(spec: OptionSpec) -> Value:
    """A value of ``spec`` other than its default (every kind the declaration has)."""
    if spec.kind == "flag":
        return not spec.default
    if spec.kind == "choice":
        return next(choice for choice in spec.choices if choice != spec.default)
    if spec.kind == "number":
        return next(p for p in spec.presets if p != spec.default)
    assert spec.high is not None
    return int(spec.default) + (1 if spec.default < spec.high else -1)


def set_field(screen: Screen[Any], spec: OptionSpec, value: Value) -> None:
    """Put ``value`` in the form field of ``spec`` as a person would leave it there."""
    widget = screen.query_one(f"#{spec.name}")
    if isinstance(widget, Checkbox):
        widget.value = bool(value)
    elif isinstance(widget, Input):
        widget.value = str(value)
    else:
        cast(Select[str], widget).value = str(value)


def every_option_changed(specs: tuple[OptionSpec, ...]) -> dict[str, Value]:
    changed = {spec.name: other_value(spec) for spec in specs}
    assert all(changed[spec.name] != spec.default for spec in specs)
    return changed


async def test_the_new_room_form_sends_every_declared_option(url: str, tmp_path: Path) -> None:
    wanted = every_option_changed(FORM)
    assert {"opening_refill", "scoring"} <= set(wanted)  # the newest variants among them
    client = GameClient(url, "Ana", reconnect=True)
    app = KingsCornerApp(client, Look(), tokens=TokenFile(tmp_path / "t.json"))
    async with app.run_test(size=(100, 50)) as pilot:
        await shows(pilot, "n  new room")
        await pilot.press("n")
        await shows(pilot, "New room")
        form = app.screen
        for spec in FORM:
            set_field(form, spec, wanted[spec.name])
        await pilot.pause()
        await pilot.click("#create")
        await shows(pilot, "Waiting room · room code")
        assert client.doc is not None
        got = room_values(client.doc["room"])
        assert {name: got[name] for name in wanted} == wanted
        await pilot.press("ctrl+q")
    await client.close()


async def test_the_host_options_form_changes_every_declared_option(
    url: str, tmp_path: Path
) -> None:
    wanted = every_option_changed(HOST_FORM)
    assert wanted["seats"] == 3  # the room below is made for 2
    client = GameClient(url, "Ana", reconnect=True)
    entry = Entry(mode="create", seats=2, options={"casual": True})
    app = KingsCornerApp(client, Look(), entry=entry, tokens=TokenFile(tmp_path / "t.json"))
    async with app.run_test(size=(100, 50)) as pilot:
        await shows(pilot, "Waiting room")
        await pilot.press("o")
        await shows(pilot, "Room options")
        form = app.screen
        assert isinstance(form, ConfigureScreen)
        for spec in HOST_FORM:
            set_field(form, spec, wanted[spec.name])
        await pilot.pause()
        await pilot.click("#apply")

        def got() -> dict[str, Value]:
            assert client.doc is not None
            return room_values(client.doc["room"])

        await until(pilot, lambda: got()["seats"] == 3, what="three seats")
        assert {name: got()[name] for name in wanted} == wanted
        assert got()["casual"] is True  # not in the host's form: kept
        await pilot.press("ctrl+q")
    await client.close()


async def test_line_mode_flags_create_a_room_with_every_declared_option(url: str) -> None:
    wanted = every_option_changed(FORM)
    argv = ["--seats", "3"]
    for spec in FORM:
        value = wanted[spec.name]
        if spec.kind == "flag":
            argv += [flag_name(spec)] if value else []
        else:
            argv += [flag_name(spec), str(value)]
    entry = entry_from(parser().parse_args(argv))
    assert entry.options == wanted
    client = GameClient(url, "Ana")
    await client.connect()
    app = TerminalClient(client, write=lambda _text: None)
    await app.enter(entry)
    assert client.doc is not None
    got = room_values(client.doc["room"])
    assert {name: got[name] for name in wanted} == wanted
    assert got["seats"] == 3
    await client.close()
