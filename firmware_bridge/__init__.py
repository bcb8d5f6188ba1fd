"""Board Referee host side: game catalogue, CLI, and (next) the serial bridge and daemon."""
