"""Board Referee host side: protocol, serial link, hardware profiles, reconciler, journal,
daemon and the ``board-referee`` command."""
