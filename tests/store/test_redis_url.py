"""The store's Redis URL forms: one server, a Cluster, Sentinels (no Redis needed)."""

from __future__ import annotations

import pytest

from server.store.redis_store import RedisStore, RedisTarget, parse_redis_url


@pytest.mark.parametrize(
    "url",
    [
        "redis://127.0.0.1:6379/0",
        "rediss://user:secret@cache.example:6380/2",
        "redis://localhost",
        "unix:///run/redis.sock?db=1",
        "REDIS://127.0.0.1:6379/0",
    ],
)
def test_a_single_server_url_is_passed_on_untouched(url: str) -> None:
    assert parse_redis_url(url) == RedisTarget("single", url=url)


def test_a_cluster_url_lists_its_seed_nodes_with_the_default_port() -> None:
    target = parse_redis_url("redis+cluster://10.0.0.1:7000,10.0.0.2,cache-3:7002")
    assert target == RedisTarget(
        "cluster", nodes=(("10.0.0.1", 7000), ("10.0.0.2", 6379), ("cache-3", 7002))
    )


def test_a_cluster_url_may_end_in_a_slash_or_database_zero() -> None:
    assert parse_redis_url("redis+cluster://h:7000/").nodes == (("h", 7000),)
    assert parse_redis_url("redis+cluster://h:7000/0").nodes == (("h", 7000),)


def test_a_tls_cluster_url_with_percent_encoded_credentials() -> None:
    target = parse_redis_url("rediss+cluster://kc:p%40ss%3Aw@h1:7000,h2:7001")
    assert target.kind == "cluster"
    assert target.tls is True
    assert (target.username, target.password) == ("kc", "p@ss:w")
    assert target.nodes == (("h1", 7000), ("h2", 7001))


def test_a_password_without_a_user_name() -> None:
    target = parse_redis_url("redis+cluster://:secret@h1:7000")
    assert (target.username, target.password) == (None, "secret")


def test_ipv6_nodes_are_written_in_brackets() -> None:
    target = parse_redis_url("redis+cluster://[::1]:7000,[fe80::2]")
    assert target.nodes == (("::1", 7000), ("fe80::2", 6379))


def test_a_sentinel_url_names_sentinels_service_and_database() -> None:
    target = parse_redis_url("redis+sentinel://s1:26379,s2:26380,s3/mymaster/2")
    assert target == RedisTarget(
        "sentinel",
        nodes=(("s1", 26379), ("s2", 26380), ("s3", 26379)),
        service="mymaster",
        db=2,
    )


def test_a_sentinel_url_defaults_to_database_zero() -> None:
    assert parse_redis_url("redis+sentinel://s1/kc/").db == 0
    assert parse_redis_url("redis+sentinel://s1/kc").service == "kc"


def test_sentinel_credentials_are_apart_from_the_servers() -> None:
    target = parse_redis_url(
        "rediss+sentinel://app:data-pw@s1,s2/kc?sentinel_username=watch&sentinel_password=s%2Fpw"
    )
    assert target.tls is True
    assert (target.username, target.password) == ("app", "data-pw")
    assert (target.sentinel_username, target.sentinel_password) == ("watch", "s/pw")


@pytest.mark.parametrize(
    ("url", "complaint"),
    [
        ("127.0.0.1:6379", "no scheme"),
        ("http://h:80", "unsupported Redis URL scheme"),
        ("redis+shards://h:7000", "unsupported Redis URL scheme"),
        ("redis+cluster://h:7000/1", "only database 0"),
        ("redis+cluster://h:7000?read_from_replicas=yes", "unknown option"),
        ("redis+cluster://h:notaport", "bad port"),
        ("redis+cluster://h:70000", "out of range"),
        ("redis+cluster://h:7000,,h2:7001", "without a host"),
        ("redis+cluster://h:7000,h:7000", "listed twice"),
        ("redis+cluster://::1:7000", "in brackets"),
        ("redis+cluster://[::1", "bad IPv6"),
        ("redis+sentinel://s1:26379", "names the monitored primary"),
        ("redis+sentinel://s1:26379/", "names the monitored primary"),
        ("redis+sentinel://s1/kc/0/extra", "names the monitored primary"),
        ("redis+sentinel://s1/kc/x", "bad database"),
        ("redis+sentinel://s1/kc?password=x", "unknown option"),
        ("redis+cluster://h:7000#top", "fragment"),
    ],
)
def test_a_bad_url_is_refused_with_the_reason(url: str, complaint: str) -> None:
    with pytest.raises(ValueError, match=complaint):
        parse_redis_url(url)


@pytest.mark.parametrize(
    "url", ["user:hunter2@h:7000", "http://user:hunter2@h:80", "redis+cluster://u:hunter2@h:x"]
)
def test_an_error_message_never_shows_the_password(url: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_redis_url(url)
    assert "hunter2" not in str(refused.value)


@pytest.mark.parametrize(
    "url",
    [
        "redis://127.0.0.1:1/0",
        "redis+cluster://127.0.0.1:1,127.0.0.1:2",
        "redis+sentinel://127.0.0.1:1,127.0.0.1:2/kc/1",
    ],
)
async def test_the_store_accepts_every_form_without_connecting(url: str) -> None:
    store = RedisStore(url, "kc-test-offline", timeout=0.2)
    try:
        assert store.target == parse_redis_url(url)
    finally:
        await store.close()


def test_the_store_refuses_a_bad_url_at_construction() -> None:
    with pytest.raises(ValueError, match="names the monitored primary"):
        RedisStore("redis+sentinel://127.0.0.1:26379")
