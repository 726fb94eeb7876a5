"""Panda: a batch research-and-memory processor for AI assistants.

JSONL turns go through a phase pipeline whose LLM calls are batched through vLLM; every turn leaves
a context.md in a markdown vault (Obsidian-compatible) indexed by a DuckDB catalog.
"""

__version__ = "0.1.0"
