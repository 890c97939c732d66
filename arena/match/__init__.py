"""One match: bot specs, the referee and its channels, fault rulings, replays, the bot validator."""
