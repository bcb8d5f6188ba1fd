"""The board's physics: the piece's magnet, the sensor under its cell and the board between
them, worked out for every cell (docs/build-a-board.md, "The magnets and sensors, worked out")."""
