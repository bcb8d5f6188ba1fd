"""The command line's commands, one module each; ``firmware_bridge.cli`` dispatches to them.

Commands sit at the top: they may import every other folder, and nothing imports them but the
dispatcher. ``systemd/`` holds the units ``install-service`` writes.
"""
