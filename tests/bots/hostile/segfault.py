"""Dies of SIGSEGV by reading address 0."""

import ctypes

from _common import report

report("segfault", "now")
ctypes.string_at(0)
