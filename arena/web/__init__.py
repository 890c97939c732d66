"""The competition server: authors submit over HTTP, the ladder runs behind it, pages for all."""
