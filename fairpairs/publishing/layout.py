"""What a published dataset folder is made of: the sets, config and file names, the published
columns, the repository id's rules, and the Config / Built records the builder and the uploader
pass around."""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass, field
from pathlib import Path

from fairpairs.errors import Param, UsageError
from fairpairs.records import published_fields

if typing.TYPE_CHECKING:
    from fairpairs.pairsets import PairSet
    from fairpairs.publishing.verify import RunCheck


SETS = ("debiased", "original")
DATA_FILE = "train-00000-of-00001.parquet"
MANIFEST_COPY = "fairpairs_manifest.json"
# the published columns (records.PairRecord's fields, in their published order)
COLUMNS = published_fields()
# paths a new upload replaces wholesale, so stale configs of an earlier upload disappear
REPLACED_ON_UPLOAD = ["data/**", "lm_eval/**"]
# version of the exported lm-eval tasks; 2.0: `target_delimiter: ""` (1.0 scored " " + sentence)
LM_EVAL_TASK_VERSION = 2.0


@dataclass
class Config:
    """One dataset config: the pairs of one paradigm in one set (as `fairpairs.pairsets.read_run_file`
    read them: each row a checked pair with the fields of a `PairRecord`, and its file and line)."""

    name: str
    uid: str
    set: str
    pairs: "PairSet"
    task: str = ""

    @property
    def rows(self) -> tuple[dict, ...]:
        return self.pairs.rows


@dataclass
class Built:
    """What `build_folder` wrote."""

    folder: Path
    configs: list[Config]
    skipped: list[str] = field(default_factory=list)
    checks: "RunCheck | None" = None  # what was checked against the run's files (fairpairs.publishing.verify)
    repo_url: str | None = None      # set by an upload (`fp.publish` without dry_run)
    commit_url: str | None = None

    @property
    def n_pairs(self) -> int:
        return sum(len(c.rows) for c in self.configs)


def config_name(uid: str, set_name: str) -> str:
    """Config name of paradigm `uid` in `set_name` ("debiased" -> UID, "original" -> UID-original)."""
    return uid if set_name == "debiased" else f"{uid}-original"


def task_prefix(repo_id: str) -> str:
    """lm-eval task prefix derived from the repository name: `user/Fair-BLiMP` -> `fair_blimp`."""
    prefix = re.sub(r"[^0-9a-z]+", "_", repo_id.split("/")[-1].lower()).strip("_")
    return prefix if prefix and not prefix[0].isdigit() else f"fp_{prefix}"


def check_repo_id(repo_id: str) -> None:
    """Reject anything that is not `owner/name` as the Hub spells repository ids."""
    if not re.fullmatch(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*", repo_id) or ".." in repo_id \
            or repo_id.endswith((".", "-")) or len(repo_id.split("/")[1]) > 96:
        raise UsageError(Param("repo_id"), f" {repo_id!r}", value=repo_id, reason=f"expected owner/name (letters, digits, '-', '_', '.')")
