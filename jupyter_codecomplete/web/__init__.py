"""Tornado adapters only: the websocket and the REST handlers."""
