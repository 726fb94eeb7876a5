"""Panda's error hierarchy: transient errors may be retried, terminal ones may not.

The library raises these; only the CLI and flows format them for people. Messages name the ids
involved and what happens next.
"""

from __future__ import annotations


class PandaError(Exception):
    """Base of every error Panda raises on purpose."""


class TransientError(PandaError):
    """Worth retrying: a backend timeout, a busy file, a flaky server."""


class TerminalError(PandaError):
    """Retrying will not help: bad input, bad config, a path outside the home."""


class ConfigError(TerminalError):
    """The settings or memory_config.yaml are invalid."""


class MissingInputError(TerminalError):
    """An input file named on the command line or in a flow does not exist."""


class UnsafePathError(TerminalError):
    """A name that becomes a path is invalid or would escape the home."""


class InputLineError(TerminalError):
    """One line of an input JSONL file is malformed; the batch skips it and goes on."""

    def __init__(self, path: str, line_number: int, field: str | None, reason: str) -> None:
        self.path = path
        self.line_number = line_number
        self.field = field
        self.reason = reason
        where = f"{path}:{line_number}"
        what = f"field '{field}': {reason}" if field else reason
        super().__init__(f"{where}: {what}; line skipped, the rest of the batch goes on")


class VaultFileError(TerminalError):
    """A file of the vault does not parse (frontmatter, document fields); names the file and the field."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        super().__init__(f"{path}: {reason}; fix or move the file, then run the command again (panda check lists all)")


class ModelIntegrityError(TerminalError):
    """A model file fetched from a registry is not the official one (hash or size); it is not used."""


class LLMReplyError(TerminalError):
    """An LLM reply did not parse against its schema even after the allowed retries."""


class SectionRuleError(TerminalError):
    """A phase tried to break context.md's append-only or immutability rules."""


class BackendUnavailableError(TerminalError):
    """A backend's heavy dependency or model is missing; the message says how to install it."""


class ConfirmationRequired(TerminalError):
    """A destructive job (user deletion) was asked to run without explicit confirmation."""


class HomeBusyError(TransientError):
    """Another process held the home's writer lock for longer than this one would wait."""
