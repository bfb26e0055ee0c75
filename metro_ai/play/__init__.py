"""Playing games between bots: bot specs, matches and their records, tournaments, ratings and
reports. Users import from :mod:`metro_ai`."""
