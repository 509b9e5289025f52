"""Proximity queries on scene snapshots: the query engine.

The only package that imports ``fcl`` (in ``fcl_adapter`` alone). It reads
the scene model; the model never imports it.
"""
