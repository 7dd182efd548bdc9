"""Dice drawn as pip faces, and the row of rolled dice the player selects from.

A held (selected) die rises by one line and gets a heavy border, so selection has a shape
cue as well as a colour (NO_COLOR terminals and colour-blind players see it too).

What the row draws is a :class:`DiceView` handed down by the screen (attributes down): the
truth. A roll's animation is decoration over it: random faces until a deadline on the clock,
decided by elapsed time (Textual skips timer ticks when the event loop is busy, so counting
ticks could leave a random frame on screen), and it always ends by drawing the view. A new
view cancels an animation still running.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

PIP = "●"
#: Which of the 3x3 pip positions (row, column) each face shows.
PIPS: dict[int, frozenset[tuple[int, int]]] = {
    1: frozenset({(1, 1)}),
    2: frozenset({(0, 2), (2, 0)}),
    3: frozenset({(0, 2), (1, 1), (2, 0)}),
    4: frozenset({(0, 0), (0, 2), (2, 0), (2, 2)}),
    5: frozenset({(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)}),
    6: frozenset({(0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2)}),
}


#: The keys that select the n-th die (``select_die``), for every screen that shows a roll.
SELECT_BINDINGS = [
    Binding("1", "select_die(0)", "Select", key_display="1-6"),
    *(Binding(str(n), f"select_die({n - 1})", f"Die {n}", show=False) for n in range(2, 7)),
]


def indices_of(roll: tuple[int, ...], dice: tuple[int, ...]) -> frozenset[int]:
    """Which dice of ``roll`` make up ``dice`` (first matches first): to highlight a keep."""
    wanted = list(dice)
    chosen = set()
    for i, face in enumerate(roll):
        if face in wanted:
            wanted.remove(face)
            chosen.add(i)
    return frozenset(chosen)


@dataclass(frozen=True)
class DiceView:
    """What the dice row shows: the dice (or ``blanks`` blank faces for the dice to roll).

    ``held``: indices of raised dice; ``farkled``: the dice scored nothing; ``selectable``:
    the keys 1-6 are shown under the dice.
    """

    faces: tuple[int, ...] = ()
    held: frozenset[int] = frozenset()
    farkled: bool = False
    selectable: bool = False
    blanks: int = 6


#: Seconds between two frames of the roll animation.
FRAME = 0.06


def face_lines(face: int) -> list[str]:
    """The three 7-character lines of pips of a die face (0 draws a blank face)."""
    pips = PIPS.get(face, frozenset())
    return [
        " " + " ".join(PIP if (row, col) in pips else " " for col in range(3)) + " "
        for row in range(3)
    ]


class DieFace(Static):
    """One die's face; its border and offset show whether it is held."""

    DEFAULT_CSS = """
    DieFace {
        width: 9;
        height: 5;
        border: round $foreground 60%;
        content-align: center middle;
        margin-top: 1;
    }
    DieFace.-held {
        border: heavy $accent;
        color: $accent;
        margin-top: 0;
        margin-bottom: 1;
    }
    DieFace.-farkled {
        border: dashed $error;
        color: $error 80%;
    }
    DieFace.-blank {
        border: round $foreground 20%;
    }
    """

    face: reactive[int] = reactive(0)

    def render(self) -> str:
        return "\n".join(face_lines(self.face))


class DieSlot(Vertical):
    """A die with the key that toggles it underneath; clicking it asks the screen to toggle."""

    DEFAULT_CSS = """
    DieSlot {
        width: 10;
        height: 7;
        align-horizontal: center;
    }
    DieSlot .key {
        width: 9;
        height: 1;
        content-align: center middle;
        color: $foreground 60%;
    }
    DieSlot.-held .key {
        text-style: bold;
        color: $accent;
    }
    """

    class Clicked(Message):
        """The player clicked die ``index`` (0-based): the screen toggles it."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, index: int) -> None:
        super().__init__(id=f"die-{index + 1}")
        self.index = index
        self._look: tuple[int, bool, bool, bool] = (-1, False, False, False)  # nothing painted yet

    def compose(self) -> ComposeResult:
        yield DieFace()
        yield Static(f"{self.index + 1}", classes="key")

    def on_mount(self) -> None:
        if self.display:
            self.show(*self._look)

    def show(self, face: int, held: bool, farkled: bool, selectable: bool) -> None:
        """Draw this slot (attributes down: the row decides, the slot only paints)."""
        look = (face, held, farkled, selectable)
        if look == self._look and self.display and self.query(DieFace):
            return  # unchanged: repainting would cost a layout pass per die
        self._look = look
        if not self.display:
            self.display = True
        if not self.query(DieFace):
            return  # not composed yet: on_mount paints it
        die = self.query_one(DieFace)
        die.face = face
        die.set_class(held, "-held")
        die.set_class(farkled, "-farkled")
        die.set_class(face == 0, "-blank")
        self.set_class(held, "-held")
        self.query_one(".key", Static).update(f"[{self.index + 1}]" if face and selectable else "")

    def on_click(self) -> None:
        self.post_message(self.Clicked(self.index))


class DiceRow(Widget):
    """The dice showing: up to six faces, held ones raised; farkled dice until the next roll."""

    DEFAULT_CSS = """
    DiceRow {
        height: 7;
        width: 100%;
    }
    DiceRow > Horizontal {
        height: 7;
        width: auto;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = DiceView()
        self._rng = random.Random()
        self._until = 0.0  # the roll animation shows random faces until this time.monotonic()
        self._frames: tuple[int, ...] = ()
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Horizontal():
            for i in range(6):
                yield DieSlot(i)

    def on_mount(self) -> None:
        self._paint()

    def show(self, view: DiceView, roll_seconds: float = 0.0) -> None:
        """Draw ``view``; with ``roll_seconds`` > 0, after that long an animation of its dice.

        Any animation still running is cancelled first: the view is the state, now.
        """
        self.view = view
        self._stop()
        if roll_seconds > 0 and view.faces:
            self._until = time.monotonic() + roll_seconds
            self._frames = self._random_faces(len(view.faces))
            self._timer = self.set_interval(FRAME, self._tick)
        self._paint()

    @property
    def rolling(self) -> bool:
        """True while the roll animation is still drawing random faces."""
        return self._timer is not None

    def _tick(self) -> None:
        """One frame: new random faces, or, once the time is up, the view (elapsed time decides)."""
        if time.monotonic() >= self._until:
            self._stop()
        else:
            self._frames = self._random_faces(len(self.view.faces))
        self._paint()

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _random_faces(self, n: int) -> tuple[int, ...]:
        return tuple(self._rng.randint(1, 6) for _ in range(n))

    def _paint(self) -> None:
        if not self.is_mounted:
            return
        view = self.view
        rolling = self.rolling
        faces = self._frames if rolling else view.faces
        for slot in self.query(DieSlot):
            i = slot.index
            if i < len(faces):
                slot.show(
                    faces[i],
                    held=i in view.held and not rolling,
                    farkled=view.farkled and not rolling,
                    selectable=view.selectable and not rolling,
                )
            elif not faces and i < view.blanks:
                slot.show(0, held=False, farkled=False, selectable=False)
            elif slot.display:
                slot.display = False
