"""Tornado adapters only: the websocket and the REST handlers."""

__all__: list[str] = []
