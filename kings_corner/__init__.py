"""The ``kings-corner`` command: one entry point above the server, the clients and the engine.

It sits above every other package so that none of them imports another's programs: the
server (``server``) never imports a client, and installs without the terminal client's
dependencies (the ``terminal`` extra).
"""
