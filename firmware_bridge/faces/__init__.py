"""The faces people use: the web server and its pages, the kiosk, the club view, MQTT.

Each face is a listener fed the referee's immutable snapshot after each change, and sends
commands back through the main loop's queue (``controls``); none reaches into the reconciler.
The contract and safe JSON check what comes in from the network; ``web/`` holds the pages'
shipped assets (no CDN, no build step). Imports: ``engine``, ``firmware_bridge.link``,
``firmware_bridge.referee`` and this folder; ``board_page`` also reads a simulated board's table.
"""
