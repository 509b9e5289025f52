"""Benchmarks: geometry_core side by side with Drake and raw python-fcl."""
