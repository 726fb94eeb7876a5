"""Privacy: PII scrubbing of outbound research queries and of knowledge that leaves a user's scope."""
