"""Dies before hello the way a Node bot without its modules does: the error that matters on the
first line of stderr, then a long trace (``crashed``; its stderr must keep head and tail)."""

import sys

sys.stderr.write("Error: Cannot find module 'zeromq'\n")
for depth in range(400):
    sys.stderr.write(f"    at Module._load (node:internal/modules/cjs/loader:{depth}:12)\n")
sys.stderr.write("Node.js v20.0.0\n")
sys.exit(1)
