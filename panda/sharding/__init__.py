"""Sharded runs: a batch split by user into shards that run as Ray tasks (or one by one), then merged.

shards.py plans, runs and merges the shards; executors.py says where they run. docs/sharding.md tells the whole story.
"""
