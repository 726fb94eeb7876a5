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
    assert {k: v.temperature for k, v in p.llm.roles.items()} == {"REFLEX": 0.3, "MIND": 0.5, "VOICE": 0.7, "NERVES": 0.1}


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
