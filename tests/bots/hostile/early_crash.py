"""Crashes before saying hello: exit code 5, with a last word on stderr."""

import sys

sys.stderr.write("early_crash: giving up before hello\n")
sys.exit(5)
