"""A user's own identifying terms, read from their facts, for the PII scrubber's known_terms."""

from __future__ import annotations

from panda.documents.vault import Vault

PRIVATE_FACT_KEYS = ("name", "residence", "employer", "email", "phone", "address")


def user_private_terms(vault: Vault, user_id: str) -> list[str]:
    """The user's id and the values of identifying facts (name, residence, employer, ...)."""
    terms = [user_id]
    for entry in vault.memory_file(user_id, "fact").entries:
        if entry.attribute in PRIVATE_FACT_KEYS:
            terms.append(entry.value)
    return terms
