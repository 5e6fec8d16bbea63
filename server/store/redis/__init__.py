"""The shared store: rooms, announcements, presence, matchmaking and leases in Redis.

Several server processes point at one Redis and cooperate through it. Every step that must
not interleave with another process's (appending to a room, creating it, taking a batch of
quick-play tickets, taking a lease) is one Lua script, so Redis runs it atomically.

"One Redis" may be a single server, a Redis Cluster or a primary watched by Sentinels; the
URL says which (see :func:`parse_redis_url`)::

    redis://[user:password@]host:6379/0                       one server (rediss:// for TLS)
    redis+cluster://[user:password@]host1:7000,host2:7001       Cluster, by any seed nodes
    redis+sentinel://[user:password@]s1:26379,s2:26379/NAME/0   the primary Sentinels call NAME

Key layout (``kc`` is the default prefix)::

    kc:{room:CODE}:events            list of JSON events; the room's version is its length
    kc:{room:CODE}:lead              lease: the owner driving bots and timers, with a TTL
    kc:{room:CODE}:presence          hash process -> JSON list of members in the room
    kc:{room:CODE}:presence-until    hash process -> expiry (Redis clock, ms)
    kc:{lobby}:listing               hash code -> JSON summary of a public room
    kc:{queue:N}:order               sorted set ticket id -> arrival number
    kc:{queue:N}:tickets             hash ticket id -> JSON ticket
    kc:{queue:N}:seq                 arrival counter
    kc:{secrets}:NAME                shared secret (e.g. the daily deal's seed key)
    kc:{match:ID}                    JSON record of a finished match
    kc:{player:ID}:matches           list of the player's match ids, newest first
    kc:{daily:DAY}:claims            set of players who started the day's ranked daily
    kc:{daily:DAY}:board, :entries   sorted set (penalty, then hands) and JSON entries
    kc:{alltime}:won/played/penalty/hands   sorted sets of each player's sums
    kc:{alltime}:names               hash player -> display name
    kc:{ident}:names                 hash player -> the display name it goes by now
    kc:{ident}:tags                  hash player -> TAG:KEY, its tag and its name's key
    kc:{ident}:tagged                hash TAG:KEY -> player (one holder per tag and name)
    kc:{ident}:generation            hash player -> recovery generation (absent: 0)
    kc:{ident}:recovery              hash recovery code hash -> player (never the code)
    kc:{ident}:recovery-of           hash player -> its current recovery code hash
    kc:{ratings}:players             hash player -> JSON {mu, sigma, matches}
    kc:{ratings}:board               sorted set player -> rating (players with enough matches)
    kc:{reviews}:jobs                stream of review jobs, consumer group "workers"
    kc:{match:ID}:review-job         a review job of the match was added (SET NX, with a TTL)
    channel kc:{NAME}                pub/sub channel for the store channel NAME (room:CODE,
                                     proc:ID, admin); a room's is on the shard of its keys

The part in braces is a Redis Cluster hash tag. Every script, every multi-key command and
every MULTI/EXEC block touches keys of one tag only, so each runs on one shard of a
Cluster. Steps over several tags (a heartbeat over several rooms, deleting a room and
unlisting it, saving a match and listing it per player) are pipelines without MULTI, which
the Cluster client splits per shard, or separate commands: none of them needs atomicity.

Announcements use classic pub/sub on one dedicated connection (:mod:`.pubsub`), and on a
Cluster sharded pub/sub (SPUBLISH/SSUBSCRIBE) on one connection per shard (:mod:`.sharded`),
so an announcement stays on its channel's shard; messages published while a connection is
down are lost, so a subscriber that cares catches up with
:meth:`RedisStore.read`. Whenever Redis cannot be reached (including a Cluster shard that is
down and a primary under fail-over) the store raises
:class:`~protocol.errors.StoreUnavailable`, never a redis-py exception.

The parts, each a class over :class:`~.core.RedisCore` (client, error mapping, key names)
composed into :class:`RedisStore` (:mod:`.store`); each store part is one role of
:mod:`server.store.base`:

    target          the URL parsed into a RedisTarget
    scripts         the Lua scripts
    rooms           RoomStore: event logs (create, append with the version and chain-head
                    checks, read, delete) and the public listing
    pubsub          AnnouncementStore: subscriptions and the announcement listener
    sharded         the Cluster's announcements: sharded pub/sub, one connection per shard
    presence        PresenceStore: heartbeats, presence and room leases
    matchmaking     MatchmakingStore: the quick-play queues
    shared_secrets  SecretStore: secrets shared by every process
    records         RecordStore: match records, the daily and all-time boards
    identities      IdentityStore: display names, tags, recovery codes and their generations
    standing        StandingStore: ratings and the rating board
    review_jobs     ReviewJobStore: the coach's reviews as jobs on a stream, for the review
                    tier (``kings-corner worker``, :mod:`server.review_worker`)
"""

from .store import RedisStore
from .target import RedisKind, RedisTarget, parse_redis_url

__all__ = ["RedisKind", "RedisStore", "RedisTarget", "parse_redis_url"]
