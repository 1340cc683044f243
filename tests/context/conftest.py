"""Small but real multi-language projects for /init."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest


def _git(root: Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)


@pytest.fixture
def py_js_project(tmp_path: Path) -> Path:
    root = tmp_path / "webshop"
    (root / "backend" / "webshop").mkdir(parents=True)
    (root / "frontend" / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "webshop"\ndescription = "An online shop: API and web front end."\n'
        'requires-python = ">=3.11"\ndependencies = ["fastapi>=0.110.2", "sqlalchemy>=2.0.29",'
        ' "stripe>=8.1.0"]\n[project.optional-dependencies]\ndev = ["pytest>=8.1.1"]\n'
        "[tool.ruff]\nline-length = 100\n[tool.pytest.ini_options]\n")
    (root / "frontend" / "package.json").write_text(json.dumps(
        {"name": "webshop-ui", "scripts": {"dev": "vite", "build": "vite build"},
         "dependencies": {"react": "^18.2.0"}}))
    (root / "backend" / "webshop" / "api.py").write_text(
        "import os\nfrom fastapi import FastAPI\n\napp = FastAPI()\n"
        "STRIPE_KEY = os.environ['STRIPE_API_KEY']\n\n"
        "@app.get('/products')\ndef list_products():\n    return []\n\n"
        "@app.post('/orders')\ndef create_order(order: dict):\n    return order\n")
    (root / "backend" / "webshop" / "auth.py").write_text(
        "def check_password(user, password):\n    return False\n")
    (root / "frontend" / "src" / "App.jsx").write_text(
        "export function App() {\n  return fetch('/products');\n}\n")
    (root / "tests" / "test_api.py").write_text("def test_ok():\n    assert True\n")
    (root / ".env.example").write_text("DATABASE_URL=postgres://localhost/shop\nSTRIPE_API_KEY=\n")
    (root / "README.md").write_text("# Webshop\n\nAn online shop with a FastAPI backend.\n")
    (root / ".gitignore").write_text("node_modules/\n.env\n")
    _git(root)
    return root


@pytest.fixture
def go_project(tmp_path: Path) -> Path:
    root = tmp_path / "kvstore"
    (root / "cmd" / "kv").mkdir(parents=True)
    (root / "internal" / "store").mkdir(parents=True)
    (root / "go.mod").write_text("module example.com/kvstore\n\ngo 1.22.3\n\nrequire (\n"
                                 "\tgithub.com/spf13/cobra v1.8.0\n)\n")
    (root / "cmd" / "kv" / "main.go").write_text(
        'package main\n\nimport "net/http"\n\nfunc main() {\n'
        '\thttp.HandleFunc("/get", handleGet)\n}\n\nfunc handleGet(w http.ResponseWriter, '
        "r *http.Request) {}\n")
    (root / "internal" / "store" / "store.go").write_text(
        "package store\n\ntype Store struct{}\n\nfunc (s *Store) Get(k string) string "
        '{ return "" }\n')
    (root / "Makefile").write_text("build:\n\tgo build ./...\ntest:\n\tgo test ./...\n")
    _git(root)
    return root


@pytest.fixture
def rust_project(tmp_path: Path) -> Path:
    root = tmp_path / "shapes"
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text(
        '[package]\nname = "shapes"\nversion = "0.1.0"\nedition = "2021"\n'
        'description = "Geometry helpers."\n\n[dependencies]\nserde = { version = "1.0.197" }\n'
        'tokio = "1.37.0"\n')
    (root / "src" / "main.rs").write_text("fn main() {\n    println!(\"hi\");\n}\n")
    (root / "src" / "lib.rs").write_text("pub fn area(r: f64) -> f64 { r * r }\n")
    _git(root)
    return root
