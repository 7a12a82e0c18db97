"""The public call that builds and uploads a Hub dataset: `publish`."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable

from fairpairs import arguments as check
from fairpairs.errors import DatasetError
from fairpairs.io.progress import takes_progress

if TYPE_CHECKING:   # (for readers and type checkers only: nothing heavy is imported at run time)
    from fairpairs.publishing.layout import Built


@takes_progress
@check.old_names
def publish(run_dir: str | os.PathLike, repo_id: str, *, out: str | os.PathLike | None = None,
            set: str = "debiased", private: bool = False, dry_run: bool = False,
            on_built: Callable[["Built"], None] | None = None, **deprecated) -> "Built":
    """Build the Hub-ready dataset folder of a run folder (`generate_run`'s) at `out` (default
    ``run_dir/hub``) and, unless `dry_run`, upload it to the Hub dataset repository `repo_id`
    (`fairpairs publish` calls this; docs/publishing.md). `set`: "debiased" (configs UID),
    "original" (UID-original) or "both" (`which`: its old name, deprecated). `on_built(built)` is called once the folder is built,
    before the upload. Returns the `Built` folder; after an upload its `repo_url` and `commit_url`
    are set. A failed upload is a PublishError that says the built folder was kept. (`progress`:
    deprecated, see `fairpairs.disable_progress_bars`.)"""
    from fairpairs.api.common import run_manifest
    from fairpairs.publishing.hub import build_folder, upload

    which = check.renamed("publish", deprecated, set=(set, "debiased"))["set"]
    run_dir = check.path(run_dir, "run_dir", error=DatasetError, what="run folder")
    check.text(repo_id, "repo_id")
    check.text(which, "set")
    out = run_dir / "hub" if out is None else check.path(out, "out", exists=False)
    built = build_folder(run_dir, repo_id, out, which=which, read_manifest=run_manifest)
    if on_built is not None:
        on_built(built)
    if not dry_run:
        built.repo_url, built.commit_url = upload(built, repo_id, private=private)
    return built
