"""The project on a USB stick, as the recipe's club gets it: a git bundle of this checkout's
working tree (committed or not: what is checked is what is here), and a second one a commit
later, for ``git pull && make install``."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAME = "board-referee.bundle"
UPDATE_FILE = "PI-CHECK-UPDATE"


def git(
    *args: str, env: dict[str, str] | None = None, cwd: Path = ROOT, stdin: str | None = None
) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
        input=stdin,
    )
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


def working_tree_commit() -> str:
    """A commit of the working tree as git sees it (tracked and new files, not ignored ones),
    on top of HEAD; no branch or index of the checkout is touched."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git("read-tree", "HEAD", env=env)
        git("add", "-A", env=env)
        tree = git("write-tree", env=env)
    return git(
        "commit-tree", tree, "-p", "HEAD", "-m", "pi-check: the working tree", env=_identity()
    )


def update_commit(base: str) -> str:
    """``base`` with one more file: what a club's next ``git pull`` brings."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git("read-tree", base, env=env)
        blob = git("hash-object", "-w", "--stdin", stdin="an update, for make pi-check\n")
        git("update-index", "--add", "--cacheinfo", f"100644,{blob},{UPDATE_FILE}", env=env)
        tree = git("write-tree", env=env)
    return git("commit-tree", tree, "-p", base, "-m", "pi-check: an update", env=_identity())


def _identity() -> dict[str, str]:
    return {
        "GIT_AUTHOR_NAME": "pi-check",
        "GIT_AUTHOR_EMAIL": "pi-check@localhost",
        "GIT_COMMITTER_NAME": "pi-check",
        "GIT_COMMITTER_EMAIL": "pi-check@localhost",
    }


def write_bundle(commit: str, stick: Path, scratch: Path) -> Path:
    """``stick/board-referee.bundle`` holding ``commit`` as branch main."""
    repo = scratch / "bundle.git"
    if not repo.exists():
        git("init", "--quiet", "--bare", str(repo))
        git("symbolic-ref", "HEAD", "refs/heads/main", cwd=repo)
    git("push", "--quiet", "--force", str(repo), f"{commit}:refs/heads/main")
    stick.mkdir(parents=True, exist_ok=True)
    stick.chmod(0o755)
    target = stick / NAME
    partial = stick / (NAME + ".partial")
    git("bundle", "create", str(partial), "--all", cwd=repo)
    partial.chmod(0o644)
    partial.replace(target)
    return target
