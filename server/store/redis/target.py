"""Where Redis is: the store's URL parsed into a :class:`RedisTarget`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qsl, unquote

RedisKind = Literal["single", "cluster", "sentinel"]

_CLUSTER_PORT = 6379
_SENTINEL_PORT = 26379
_SENTINEL_OPTIONS = ("sentinel_username", "sentinel_password")


@dataclass(frozen=True, slots=True)
class RedisTarget:
    """Where the Redis store connects: the result of :func:`parse_redis_url`.

    ``kind`` is ``"single"`` (``url`` is then handed to redis-py as it is), ``"cluster"``
    (``nodes`` are seed nodes; any one that answers tells the client the whole Cluster) or
    ``"sentinel"`` (``nodes`` are Sentinels, ``service`` the name they monitor the primary
    under, ``db`` its database). ``username``/``password`` log in to the Redis servers,
    ``sentinel_username``/``sentinel_password`` to the Sentinels; ``tls`` applies to both.
    """

    kind: RedisKind
    url: str = ""
    nodes: tuple[tuple[str, int], ...] = ()
    service: str = ""
    db: int = 0
    username: str | None = None
    password: str | None = None
    tls: bool = False
    sentinel_username: str | None = None
    sentinel_password: str | None = None


def parse_redis_url(url: str) -> RedisTarget:
    """Parse the store's Redis URL; raise ``ValueError`` (naming the problem) if it is bad.

    Accepted forms (``[...]`` is optional; ``rediss`` instead of ``redis`` means TLS)::

        redis://[user:password@]host[:port][/db][?option=value...]   (also unix://path)
        redis+cluster://[user:password@]host[:port][,host[:port]...][/]
        redis+sentinel://[user:password@]host[:port][,host[:port]...]/service[/db]
            [?sentinel_username=...&sentinel_password=...]

    A single server's URL is redis-py's own and is passed on untouched. Cluster seed nodes
    default to port 6379, Sentinels to 26379; an IPv6 address is written in brackets
    (``[::1]:7000``). User name and password are percent-decoded; in the Sentinel form they
    are the Redis servers' credentials, the Sentinels' own go in the query.
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError("not a Redis URL (no scheme://); e.g. redis://127.0.0.1:6379/0")
    scheme = scheme.lower()
    if scheme in ("redis", "rediss", "unix"):
        return RedisTarget("single", url=url)
    base, _, mode = scheme.partition("+")
    if base not in ("redis", "rediss") or mode not in ("cluster", "sentinel"):
        raise ValueError(
            f"unsupported Redis URL scheme {scheme!r}: use redis://, rediss://, unix://, "
            "redis+cluster://, rediss+cluster://, redis+sentinel:// or rediss+sentinel://"
        )
    if "#" in rest:
        raise ValueError("a Redis URL has no #fragment")
    rest, _, query = rest.partition("?")
    netloc, _, path = rest.partition("/")
    userinfo, at, hosts = netloc.rpartition("@")
    username = password = None
    if at:
        user, colon, secret = userinfo.partition(":")
        username = unquote(user) or None
        password = unquote(secret) if colon else None
    options = dict(parse_qsl(query, keep_blank_values=True))
    tls = base == "rediss"
    if mode == "cluster":
        if path not in ("", "0"):
            raise ValueError("a Redis Cluster has only database 0: drop the path of the URL")
        if options:
            raise ValueError(f"unknown option(s) for redis+cluster: {', '.join(sorted(options))}")
        nodes = _nodes(hosts, _CLUSTER_PORT)
        return RedisTarget("cluster", nodes=nodes, username=username, password=password, tls=tls)
    unknown = sorted(set(options) - set(_SENTINEL_OPTIONS))
    if unknown:
        raise ValueError(f"unknown option(s) for redis+sentinel: {', '.join(unknown)}")
    parts = path.split("/") if path else []
    if parts and parts[-1] == "":
        parts.pop()
    if not parts or not parts[0] or len(parts) > 2:
        raise ValueError(
            "a redis+sentinel URL names the monitored primary: "
            "redis+sentinel://host:26379[,host:26379...]/service[/db]"
        )
    service = unquote(parts[0])
    db = _number(parts[1], "database") if len(parts) == 2 else 0
    return RedisTarget(
        "sentinel",
        nodes=_nodes(hosts, _SENTINEL_PORT),
        service=service,
        db=db,
        username=username,
        password=password,
        tls=tls,
        sentinel_username=unquote(options["sentinel_username"]) or None
        if "sentinel_username" in options
        else None,
        sentinel_password=options.get("sentinel_password"),
    )


def _nodes(hosts: str, default_port: int) -> tuple[tuple[str, int], ...]:
    nodes = tuple(_host_port(item.strip(), default_port) for item in hosts.split(","))
    if len(set(nodes)) != len(nodes):
        raise ValueError("a node is listed twice in the Redis URL")
    return nodes


def _host_port(item: str, default_port: int) -> tuple[str, int]:
    if item.startswith("["):
        host, bracket, tail = item[1:].partition("]")
        if not bracket or (tail and not tail.startswith(":")):
            raise ValueError(f"bad IPv6 node in Redis URL: {item!r}")
        port_text = tail[1:]
    elif item.count(":") > 1:
        raise ValueError(f"write an IPv6 address in brackets, e.g. [::1]:7000: {item!r}")
    else:
        host, _, port_text = item.partition(":")
    if not host:
        raise ValueError("a node without a host in the Redis URL")
    port = _number(port_text, "port") if port_text else default_port
    if not 0 < port < 65536:
        raise ValueError(f"port out of range in Redis URL: {port}")
    return host, port


def _number(text: str, what: str) -> int:
    if not text.isdigit():
        raise ValueError(f"bad {what} in Redis URL: {text!r}")
    return int(text)
