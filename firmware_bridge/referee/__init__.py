"""The referee: the daemon's main loop, the one owner of game state.

The reconciler (sensor readings to moves and prompts), the journal and the records read from it,
the snapshot handed to the faces, the board check and the sensors' health. Imports: ``engine``,
``firmware_bridge.link`` and this folder; never a face, a board or a command.
"""
