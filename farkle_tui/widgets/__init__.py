"""The game's widgets: pip dice, the scoreboard, the tray of set-aside dice, the log, the hints."""
