"""Tools that read and change the project's files: read_file, read_many_files, write_file,
edit_file (with `edit_match.py`), glob, grep, tree_view, repo_map. Each beside its `.md`.
"""
