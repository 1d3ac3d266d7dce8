"""The store: the only place with SQL. One module a group of tables; `database` opens and times.

Modules here import nothing from the rest of Parley but `server.errors` (tested).
"""
