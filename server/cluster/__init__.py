"""Running Parley as several processes on several machines: the shared keys folder and what every
process must agree on, the change feed that carries changes between processes, and the metrics.
"""
