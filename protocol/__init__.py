"""Arena's wire protocol (v1): codec, message shapes and the Python bot SDK.

Importable by bots on their own: nothing here depends on the ``arena`` package.
"""

from .codec import PROTOCOL_VERSION, ProtocolError

__all__ = ["PROTOCOL_VERSION", "ProtocolError"]
