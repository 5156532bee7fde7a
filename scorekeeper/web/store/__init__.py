"""Every SQL statement of the app.

Connections and migrations, reading a match, the one write path, roles, people, statistics.
"""
