"""Store backends behind one small protocol, chosen once at start-up."""

from .base import Event, Handler, Message, Store
from .memory import MemoryStore

__all__ = ["Event", "Handler", "MemoryStore", "Message", "Store"]
