"""Ladders: configuration, schedule, execution, storage, ratings and the statistics over them."""
