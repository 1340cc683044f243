"""providers/import_less.py: index packages deferred name by name, requests through each wire
format with it on, every name still there when asked, and doing nothing when unsure."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from tests.providers.import_less_child import NEVER_READ
from valarmind_tui.providers import import_less
from valarmind_tui.providers.import_less import IndexFinder, ModuleNames, defer_indexes

ROOT = Path(__file__).resolve().parents[2]


def _child(*args: str, switch_off: bool = False) -> dict:
    env = {k: v for k, v in os.environ.items() if k != import_less.SWITCH}
    if switch_off:
        env[import_less.SWITCH] = "1"
    done = subprocess.run([sys.executable, "-m", "tests.providers.import_less_child", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_a_request_through_each_wire_format_is_answered_with_it_on(
        fake_model: FakeModelServer) -> None:
    call = {"name": "read_file", "arguments": {"path": "a.py"}}
    fake_model.script(ScriptedTurn(text="chat", tool_calls=[call]),
                      ScriptedTurn(text="messages", tool_calls=[call]),
                      ScriptedTurn(text="gemini", tool_calls=[call]),
                      ScriptedTurn(text="responses"))
    bases = {"openai_base": fake_model.openai_base, "anthropic_base": fake_model.anthropic_base,
             "gemini_base": fake_model.gemini_base}
    answers = _child("requests", json.dumps(bases))
    assert answers.pop("loaded") == []  # deferred indeed: no request read them
    asked = [["read_file", {"path": "a.py"}]]
    assert answers == {"openai": ["chat", asked], "anthropic": ["messages", asked],
                       "gemini": ["gemini", asked], "responses": ["responses", []]}
    assert fake_model.request_paths[-1] == "/v1/responses"


def test_httpx_s_command_line_still_runs_when_called() -> None:
    """Imported for httpx.main only: Click and Pygments are not imported with LiteLLM."""
    code = ("from valarmind_tui.providers.litellm_call import load_litellm; load_litellm(); "
            "import sys, httpx; assert not {'click', 'pygments'} & set(sys.modules); "
            "httpx.main(['--help'])")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Usage: httpx <URL> [OPTIONS]" in done.stdout


OCI_SIGNING = """
import sys
from valarmind_tui.providers.litellm_call import load_litellm
load_litellm()
assert "cryptography.hazmat.bindings._rust" not in sys.modules
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from litellm.llms.oci.common_utils import sign_oci_request
key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                        serialization.NoEncryption()).decode()
params = {"oci_user": "ocid1.user.oc1..u", "oci_fingerprint": "aa:bb", "oci_key": pem,
          "oci_tenancy": "ocid1.tenancy.oc1..t", "oci_region": "us-chicago-1"}
base = "https://inference.generativeai.us-chicago-1.oci.oraclecloud.com"
headers, body = sign_oci_request({}, params, {"x": 1}, base + "/20231130/actions/chat")
print(headers["authorization"])
"""


def test_oci_signs_its_requests_with_cryptography_loaded_on_first_use() -> None:
    """OCI's signing binds four `cryptography` modules at LiteLLM's import; the Rust library
    behind them (5.8 MB) loads when a request is signed, and the signature is made."""
    done = subprocess.run([sys.executable, "-c", OCI_SIGNING], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert 'algorithm="rsa-sha256"' in done.stdout and 'signature="' in done.stdout


def test_the_switch_imports_every_package_whole(fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(text="chat"), ScriptedTurn(text="messages"),
                      ScriptedTurn(text="gemini"), ScriptedTurn(text="responses"))
    bases = {"openai_base": fake_model.openai_base, "anthropic_base": fake_model.anthropic_base,
             "gemini_base": fake_model.gemini_base}
    answers = _child("requests", json.dumps(bases), switch_off=True)
    assert answers["loaded"] == list(NEVER_READ)
    assert answers["openai"] == ["chat", []]


def test_a_deferred_package_holds_the_same_names_as_one_imported_whole() -> None:
    deferred, whole = _child("names"), _child("names", switch_off=True)
    assert deferred == whole
    assert "ChatCompletion=openai.types.chat.chat_completion" in deferred["openai.types.chat"]
    assert "AsyncChat=openai.resources.chat.chat" in deferred["openai.resources"]


# A package of our own, on a temporary path, to see what runs when.

@pytest.fixture
def shelf(tmp_path: Path) -> Iterator[Path]:
    """A folder on sys.path for packages named `shelf_*`, forgotten afterwards."""
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith("shelf_")]:
            del sys.modules[name]
        sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "test_shelf", False)]
        importlib.invalidate_caches()


def _package(shelf: Path, name: str, init: str) -> None:
    folder = shelf / name
    (folder / "inner").mkdir(parents=True)
    (folder / "__init__.py").write_text(init)
    (folder / "first.py").write_text("import shelf_log\nshelf_log.ran.append('first')\n"
                                     "FIRST = 'first'\n")
    (folder / "second.py").write_text("import shelf_log\nshelf_log.ran.append('second')\n"
                                      "SECOND = 'second'\ndef helper() -> int:\n    return 2\n")
    (folder / "inner" / "__init__.py").write_text("from .deep import DEEP as DEEP\n")
    (folder / "inner" / "deep.py").write_text("DEEP = 'deep'\n")
    (shelf / "shelf_log.py").write_text("ran: list[str] = []\n")


INDEX = ('"""An index."""\nfrom __future__ import annotations\n'
         "from .first import FIRST as FIRST\nfrom .second import SECOND, helper\n"
         "from . import inner\n__all__ = ['FIRST', 'SECOND', 'helper', 'inner']\n")


def _finder(*roots: str) -> IndexFinder:
    finder = IndexFinder(roots)
    finder.test_shelf = True  # type: ignore[attr-defined]
    sys.meta_path.insert(0, finder)
    return finder


def test_a_name_runs_only_the_statement_that_binds_it(shelf: Path) -> None:
    _package(shelf, "shelf_index", INDEX)
    _finder("shelf_index")
    log = importlib.import_module("shelf_log")
    package = importlib.import_module("shelf_index")
    assert isinstance(package.__getattr__, ModuleNames) and log.ran == []
    assert package.FIRST == "first" and log.ran == ["first"]
    from shelf_index import helper

    assert helper() == 2 and log.ran == ["first", "second"]
    assert "shelf_index.inner" not in sys.modules


def test_a_submodule_asked_by_name_is_imported_alone(shelf: Path) -> None:
    _package(shelf, "shelf_sub", INDEX)
    _finder("shelf_sub")
    log = importlib.import_module("shelf_log")
    from shelf_sub import second
    from shelf_sub.inner import deep

    assert second.SECOND == "second" and deep.DEEP == "deep"
    assert log.ran == ["second"]
    assert isinstance(sys.modules["shelf_sub.inner"].__getattr__, ModuleNames)  # a subpackage


def test_a_star_import_or_an_unknown_name_runs_the_whole_init(shelf: Path) -> None:
    _package(shelf, "shelf_star", INDEX)
    _finder("shelf_star")
    log = importlib.import_module("shelf_log")
    namespace: dict = {}
    exec("from shelf_star import *", namespace)  # noqa: S102 - the star import under test
    assert {k for k in namespace if k != "__builtins__"} == {"FIRST", "SECOND", "helper",
                                                             "inner"}
    assert sorted(log.ran) == ["first", "second"]
    _package(shelf, "shelf_unknown", INDEX)
    _finder("shelf_unknown")
    package = importlib.import_module("shelf_unknown")
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        _ = package.missing
    assert package.SECOND == "second" and package.inner.DEEP == "deep"


def test_an_init_that_does_more_than_re_export_is_run_as_usual(shelf: Path) -> None:
    _package(shelf, "shelf_busy", INDEX + "print_me = sorted(__all__)\n")
    _finder("shelf_busy")
    package = importlib.import_module("shelf_busy")
    assert "__getattr__" not in vars(package)
    assert importlib.import_module("shelf_log").ran == ["first", "second"]


def test_it_does_nothing_when_switched_off_or_the_package_is_already_imported(
        shelf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path
                                           if not isinstance(f, IndexFinder)])
    monkeypatch.setenv(import_less.SWITCH, "1")
    assert not defer_indexes(("shelf_never",))
    monkeypatch.delenv(import_less.SWITCH)
    _package(shelf, "shelf_early", INDEX)
    importlib.import_module("shelf_early")
    assert not defer_indexes(("shelf_early",))
    assert not any(isinstance(f, IndexFinder) for f in sys.meta_path)
    assert defer_indexes(("shelf_absent", "shelf_early"))
    assert importlib.util.find_spec("shelf_absent") is None  # a missing package: not found
    assert not defer_indexes(("shelf_absent",))  # once is enough
