"""``make pi-check``: the product as a club gets it, on a booted Pi system (tools/pi_check.py)."""
