"""The `parley` command line: members (principals, agents, tokens, mandates), rules, operations.

At the top of the import graph: it may import any other package.
"""
