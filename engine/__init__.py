"""The rules of Farkle: scoring, rule sets, turns and games, records. Pure; no UI, no solver."""

from .errors import (
    FarkleError,
    GameOverError,
    IllegalActionError,
    IllegalSelectionError,
    RecordError,
    RulesError,
)
from .rules import DEFAULT_PRESET, PRESETS, STEP, Endgame, ExtraDice, Rules, load_rules, preset
from .scoring import Combination, ComboKind, ScoringOption, Scorer, counts_of, dice_of, scorer
from .tables import GroupedTables, RollTable, grouped_tables, roll_table, roll_tables

__all__ = [
    "DEFAULT_PRESET",
    "PRESETS",
    "STEP",
    "Combination",
    "ComboKind",
    "Endgame",
    "ExtraDice",
    "FarkleError",
    "GameOverError",
    "GroupedTables",
    "IllegalActionError",
    "IllegalSelectionError",
    "RecordError",
    "RollTable",
    "Rules",
    "RulesError",
    "ScoringOption",
    "Scorer",
    "counts_of",
    "dice_of",
    "grouped_tables",
    "load_rules",
    "preset",
    "roll_table",
    "roll_tables",
    "scorer",
]
