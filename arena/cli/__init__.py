"""The ``arena`` command line, one module per command group; thin over the library."""
