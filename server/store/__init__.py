"""Store backends behind one protocol made of small roles, chosen once at start-up."""

from .base import (
    AnnouncementStore,
    Event,
    Handler,
    IdentityStore,
    MatchmakingStore,
    Message,
    PresenceStore,
    RecordStore,
    RoomStore,
    SecretStore,
    StandingStore,
    Store,
)
from .memory import MemoryStore

__all__ = [
    "AnnouncementStore",
    "Event",
    "Handler",
    "IdentityStore",
    "MatchmakingStore",
    "MemoryStore",
    "Message",
    "PresenceStore",
    "RecordStore",
    "RoomStore",
    "SecretStore",
    "StandingStore",
    "Store",
]
