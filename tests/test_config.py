from pathlib import Path

import pytest

from panda.config import Policy, load_policy
from panda.errors import ConfigError


def test_policy_defaults_are_the_seed_values():
    p = Policy()
    w = p.retrieval.weights
    assert (w.semantic, w.recency, w.frequency, w.vehemence) == (0.40, 0.25, 0.20, 0.15)
    assert p.retrieval.recency_half_life_days == 30
    assert p.retrieval.fuzzy_threshold == 0.85
    assert (p.scope.new_to_user.min_trust, p.scope.new_to_user.min_usage, p.scope.new_to_user.min_age_hours) == (0.5, 3, 1)
    assert (p.scope.user_to_global.min_trust, p.scope.user_to_global.min_usage) == (0.8, 10)
    assert p.scope.new_ttl_hours == 24
    assert (p.retention.compression_threshold_days, p.retention.archive_threshold_days,
            p.retention.deletion_threshold_days, p.retention.deletion_enabled) == (90, 365, 730, False)
    assert p.retention.turn_archive_days == 30
    assert (p.expiration.research_days, p.expiration.product_days) == (180, 90)
    assert p.context.gather_token_cap == 2000
    assert {k: v.temperature for k, v in p.llm.roles.items()} == {"REFLEX": 0.3, "MIND": 0.5, "VOICE": 0.2, "NERVES": 0.1}


def test_policy_file_is_written_with_defaults_and_read_back(tmp_path: Path):
    policy = load_policy(tmp_path)
    path = tmp_path / "Meta" / "Config" / "memory_config.yaml"
    assert path.exists()
    assert load_policy(tmp_path) == policy


def test_unknown_policy_key_is_an_error_naming_the_key(tmp_path: Path):
    load_policy(tmp_path)
    path = tmp_path / "Meta" / "Config" / "memory_config.yaml"
    path.write_text(path.read_text().replace("recency_half_life_days", "recency_halflife_days"))
    with pytest.raises(ConfigError, match="recency_halflife_days"):
        load_policy(tmp_path)


def test_policy_edits_take_effect(tmp_path: Path):
    load_policy(tmp_path)
    path = tmp_path / "Meta" / "Config" / "memory_config.yaml"
    path.write_text(path.read_text().replace("recency_half_life_days: 30.0", "recency_half_life_days: 7.0"))
    assert load_policy(tmp_path).retrieval.recency_half_life_days == 7.0


SEED_003_CONFIG = """# panda_system_docs/obsidian_memory/Meta/Config/memory_config.yaml

memory:
  vault_path: panda_system_docs/obsidian_memory

search:
  default_limit: 10
  max_results: 50
  include_expired: true
  recency_weight: 0.3

write:
  auto_index: true
  log_changes: true

expiration:
  research_days: 180      # 6 months
  product_days: 90        # 3 months
  preference_decay: true

folders:
  knowledge: Knowledge
  preferences: Preferences
  context: Context
  logs: Logs
  meta: Meta
"""


def test_the_seed_s_own_memory_config_is_accepted_with_a_warning_for_what_panda_does_not_use(tmp_path: Path):
    """Seed 003's file, verbatim: its keys map onto the policy; memory.vault_path is named as unused."""
    from panda.config import SeedConfigWarning

    path = tmp_path / "Meta" / "Config" / "memory_config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(SEED_003_CONFIG)
    with pytest.warns(SeedConfigWarning) as caught:
        policy = load_policy(tmp_path)
    notes = [str(w.message).split(": ", 1)[1] for w in caught]
    assert notes[0] == "memory.vault_path: the home is --home or $PANDA_HOME; not used" and len(notes) == 2
    assert notes[1].startswith("search.recency_weight: 0.3 is used as seed 001's recency weight")
    assert policy.search.include_expired is True and (policy.search.default_limit, policy.search.max_results) == (10, 50)
    w = policy.retrieval.weights
    assert w.recency == 0.3 and (w.semantic, w.frequency, w.vehemence) == (0.3733, 0.1867, 0.14)  # ratios kept
    assert abs(w.semantic + w.recency + w.frequency + w.vehemence - 1) < 0.001  # not 1.05
    assert (policy.expiration.research_days, policy.expiration.product_days, policy.expiration.preference_decay) == (180, 90, True)
    assert policy.write.log_changes is True
    path.write_text(SEED_003_CONFIG.replace("auto_index: true", "auto_index: false").replace("logs: Logs", "logs: Journal")
                    .replace("log_changes: true", "log_changes: false"))
    with pytest.warns(SeedConfigWarning) as caught:
        policy = load_policy(tmp_path)
    unused = " | ".join(str(w.message) for w in caught)
    assert "folders.logs: 'Journal'" in unused and "write.auto_index: false" in unused
    assert policy.write.log_changes is False
    path.write_text(SEED_003_CONFIG.replace("default_limit", "default_limt"))
    with pytest.raises(ConfigError, match="default_limt"):  # a misspelt key is still an error
        load_policy(tmp_path)


def test_weights_that_do_not_sum_to_one_are_named(tmp_path: Path):
    from panda.config import SeedConfigWarning

    path = tmp_path / "Meta" / "Config" / "memory_config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("retrieval:\n  weights:\n    semantic: 0.5\n    recency: 0.3\n    frequency: 0.2\n    vehemence: 0.15\n")
    with pytest.warns(SeedConfigWarning, match="retrieval.weights sum to 1.150"):
        load_policy(tmp_path)


def test_a_policy_written_before_ids_existed_still_scrubs_identity_numbers():
    # an SSN was 'financial' before 'ids' was split out of it: an older policy file names 'financial' only
    old = Policy.from_yaml_text("privacy:\n  pii_categories: [names, financial]\n", source="memory_config.yaml")
    assert old.privacy.pii_categories == ("names", "financial", "ids")
    chosen = Policy.from_yaml_text("privacy:\n  pii_categories: [names]\n", source="memory_config.yaml")
    assert chosen.privacy.pii_categories == ("names",)
