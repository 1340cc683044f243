"""SecretMasker: what is masked, what is not, and how the marker reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from valarmind_tui.context.breakdown import context_breakdown
from valarmind_tui.core.errors import ToolError
from valarmind_tui.safety.secrets import SecretMasker, refuse_marker_writes
from valarmind_tui.safety.secrets.known import could_be_secret, env_file_values

EXAMPLES = [
    ("GitHub token", "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    ("GitHub token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
    ("GitLab token", "glpat-" + "xY9zW8vU7tS6rQ5pO4nM"),
    ("Slack token", "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("AWS access key", "AKIA" + "IOSFODNN7EXAMPLE"),
    ("Google API key", "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    ("OpenAI-style key", "sk-proj-" + "Ab12Cd34Ef56Gh78Ij90Kl12Mn34"),
    ("Anthropic key", "sk-ant-api03-" + "Ab12Cd34Ef56Gh78Ij90Kl12Mn34"),
    ("Hugging Face token", "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz012345"),
    ("Stripe key", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    ("JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9P"),
]


@pytest.fixture
def masker(tmp_path: Path) -> SecretMasker:
    return SecretMasker(tmp_path, environ={})


@pytest.mark.parametrize(("kind", "token"), EXAMPLES)
def test_each_known_format_is_masked_by_its_kind(masker: SecretMasker, kind: str,
                                                 token: str) -> None:
    masked = masker.mask(f"value: {token} (end)")
    assert masked == f"value: [secret masked: {kind}] (end)"


@pytest.mark.parametrize("text", [
    "task-list-item-checkbox-container-element",  # no sk- key inside a word
    "see https://github.com/octo/app and postgres://app@db/app",  # a URL without a password
    "the ghp_ prefix marks a classic token",
    "AKIA is how AWS access keys begin",
    "def run(self, token: str) -> None:",
])
def test_ordinary_text_is_left_alone(masker: SecretMasker, text: str) -> None:
    assert masker.mask(text) == text
    assert masker.values_masked == 0


def test_a_url_keeps_all_but_its_password(masker: SecretMasker) -> None:
    masked = masker.mask("url = https://octo:hunter2-Secret@github.com/octo/app.git")
    assert masked == "url = https://octo:[secret masked: password in URL]@github.com/octo/app.git"


def test_a_pem_block_goes_whole_even_when_cut(masker: SecretMasker) -> None:
    pem = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc+/=\n"
           "-----END RSA PRIVATE KEY-----")
    assert masker.mask(f"a\n{pem}\nb") == "a\n[secret masked: private key]\nb"
    assert masker.mask("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n") == \
        "[secret masked: private key]"


def test_env_values_are_masked_by_name_and_short_ones_kept(tmp_path: Path) -> None:
    (tmp_path / ".env.production").write_text(
        'export API_SALT="q9Zt7WvX2mLp4Rk8"\nDEBUG=true\nPORT=8080\nNODE_ENV=production\n'
        "# COMMENTED=Zz9Yy8Xx7Ww6\nREGION=eu-west-1 # inline comment\n")
    (tmp_path / ".env.example").write_text("API_SALT=Example-Value-123\n")
    masker = SecretMasker(tmp_path, environ={})
    text = "q9Zt7WvX2mLp4Rk8 true 8080 production Zz9Yy8Xx7Ww6 eu-west-1 Example-Value-123"
    assert masker.mask(text) == ("[secret masked: .env.production API_SALT] true 8080 production "
                                 "Zz9Yy8Xx7Ww6 [secret masked: .env.production REGION] "
                                 "Example-Value-123")


def test_a_new_env_file_counts_at_once(tmp_path: Path) -> None:
    masker = SecretMasker(tmp_path, environ={})
    assert masker.mask("Kq7-Zt9-Wv2x", fresh=True) == "Kq7-Zt9-Wv2x"
    (tmp_path / "backend").mkdir()
    (tmp_path / ".env").write_text("TOKEN=Kq7-Zt9-Wv2x\n")
    assert masker.mask("Kq7-Zt9-Wv2x", fresh=True) == "[secret masked: .env TOKEN]"


def test_environment_keys_and_configured_names(tmp_path: Path) -> None:
    environ = {"MY_LLM": "Abc123Def456", "GITHUB_TOKEN": "Tok-en-4567", "HOME": "/home/someone1",
               "PWD": "/work/project-Secret1", "SHORT_KEY": "a1"}
    masker = SecretMasker(tmp_path, environ=environ)
    text = "Abc123Def456 Tok-en-4567 /home/someone1 /work/project-Secret1 a1"
    assert masker.mask(text) == ("Abc123Def456 [secret masked: value of GITHUB_TOKEN] "
                                 "/home/someone1 /work/project-Secret1 a1")
    masker.add_key_names(["MY_LLM"])
    assert masker.mask("Abc123Def456").startswith("[secret masked: value of MY_LLM]")


def test_the_longest_value_wins(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("A=Abcdef12\nB=Abcdef12345678\n")
    masker = SecretMasker(tmp_path, environ={})
    assert masker.mask("Abcdef12345678") == "[secret masked: .env B]"


def test_no_marker_holds_any_part_of_the_value(masker: SecretMasker) -> None:
    for kind, token in EXAMPLES:
        masked = masker.mask(token)
        assert token[:6] not in masked.replace(kind, ""), kind


def test_mask_data_and_the_count(masker: SecretMasker) -> None:
    token = EXAMPLES[0][1]
    data = {"role": "tool", "content": [token, (token, 3)], "n": 1}
    assert token not in json.dumps(masker.mask_data(data))
    assert masker.values_masked == 1 and masker.occurrences == 2
    assert "secrets masked this session: 1 value (2 times)" in context_breakdown(
        secrets_masked=(masker.values_masked, masker.occurrences)).render()


def test_could_be_secret() -> None:
    assert not could_be_secret("production") and not could_be_secret("12345678")
    assert not could_be_secret("Ab1!") and could_be_secret("hunter2hunter")


def test_env_file_reading_skips_a_fifo(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / ".env")
    assert env_file_values(tmp_path / ".env", ".env") == {}


# -- edits over a marker ------------------------------------------------------------------------
def test_an_edit_adding_a_marker_is_refused() -> None:
    old = 'KEY = "sk_live_real"\n'
    with pytest.raises(ToolError, match=r"\[secret masked: Stripe key\] stands for a secret"):
        refuse_marker_writes("a.py", old, 'KEY = "[secret masked: Stripe key]"\nX = 1\n')


def test_a_search_text_holding_a_marker_the_file_lacks_is_refused() -> None:
    with pytest.raises(ToolError, match="not changed"):
        refuse_marker_writes("a.py", 'KEY = "real"\n', "",
                             search='KEY = "[secret masked: .env KEY]"')


def test_a_file_that_already_holds_marker_text_stays_editable() -> None:
    doc = "The model reads [secret masked: GitHub token] in its place.\n"
    refuse_marker_writes("docs.md", doc, doc + "More.\n", search=doc.strip())


def test_key_lines_without_their_header(masker: SecretMasker) -> None:
    body = ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAABlwAAAAdz"]
    for shown in ("{}\n{}\n", "     5\t    {}\n     6\t    {}\n",
                  "cfg/tls.yaml:5:  {}\ncfg/tls.yaml:6:  {}\n"):
        masked = masker.mask(shown.format(*body))
        assert body[0] not in masked and body[1] not in masked, masked
    one = f"token = {body[0]}\n"  # one long line alone is not a key's body
    assert masker.mask(one) == one


def test_mask_data_keeps_named_tuples(masker: SecretMasker) -> None:
    from collections import namedtuple

    Hit = namedtuple("Hit", "path text")
    masked = masker.mask_data([Hit("a.py", f"key {EXAMPLES[0][1]}")])
    assert masked == [Hit("a.py", "key [secret masked: GitHub token]")]
