"""Turn a generated run folder into a Hub-ready dataset repository, and upload it.

Layout of the built folder (everything in it is uploaded, nothing else):

    README.md                                  dataset card, YAML front matter lists every config
    fairpairs_manifest.json                    the run's manifest.json, byte for byte
    data/<config>/train-00000-of-00001.parquet one parquet file per config, split `train`
    lm_eval/<prefix>/_template_yaml            shared lm-evaluation-harness task template
    lm_eval/<prefix>/_<group>.yaml             one group per published set
    lm_eval/<prefix>/<task>.yaml               one task per config

Config naming (the same in every repository fairpairs publishes): the debiased pairs of paradigm
UID are config `UID`; the original (uncontrolled) pairs are config `UID-original`. Each config has
the single split `train`, as in BLiMP (`nyu-mll/blimp`).
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

from fairpairs import __version__
from fairpairs.pairsets import dataset_paths
from fairpairs.errors import Param, FairpairsWarning, NetworkError, PublishError, UsageError, one_line
from fairpairs.io.files import MARKER, OutputFolder
from fairpairs.io.network import network_deadline
from fairpairs.publishing.reading import read_checked_run
from fairpairs.publishing.card import lm_eval_files, render_card, to_table
from fairpairs.publishing.layout import Built, DATA_FILE, MANIFEST_COPY, REPLACED_ON_UPLOAD, SETS, check_repo_id, task_prefix


# ---------------------------------------------------------------- writing the folder
def _write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def build_folder(run_dir: Path, repo_id: str, out: Path, which: str = "debiased", *, read_manifest) -> Built:
    """Build the Hub-ready folder at `out` from a run folder; all or nothing (temp dir + rename).

    `which` is "debiased", "original" or "both"; `read_manifest(run_dir)`: the run's manifest with
    its language resolved (the API's reader, `fairpairs.api.common.run_manifest`). An existing `out` is replaced only if fairpairs
    wrote it (fairpairs.io.files.OutputFolder: its marker) or it is empty. A progress bar while the
    parquet files are written (fairpairs.io.progress).
    """
    import pyarrow.parquet as pq

    from fairpairs.io.progress import bar as progress_bar

    check_repo_id(repo_id)
    if which not in (*SETS, "both"):
        raise UsageError(Param("set"), f" {which!r}", value=which, reason=f"expected debiased, original or both")
    sets = SETS if which == "both" else (which,)
    run_dir, out = Path(run_dir), Path(out)
    reads = dataset_paths(run_dir)     # (run_dir/hub, the default, is beside what is read, not in it)
    folder = OutputFolder(out, "out", inputs=reads, reads=reads, kind="publish")   # refuses a folder not ours, before any work
    prefix = task_prefix(repo_id)
    manifest, configs, skipped, check = read_checked_run(run_dir, sets, prefix, read_manifest)
    for line in check.unchecked:
        warnings.warn(f"not checked: {line}", FairpairsWarning, stacklevel=2)
    with folder as tmp:
        with progress_bar(len(configs), "parquet", "config",
                          first=f"writing {len(configs):,} dataset configs to {out}") as bar:
            for c in configs:
                target = tmp / "data" / c.name / DATA_FILE
                target.parent.mkdir(parents=True)
                pq.write_table(to_table(c.rows), target)
                bar.update(1)
        for rel, text in lm_eval_files(repo_id, configs, prefix).items():
            _write_bytes(tmp / rel, text.encode("utf-8"))
        card = render_card(repo_id, manifest, configs, skipped, sets, prefix, check)
        _write_bytes(tmp / "README.md", card.encode("utf-8"))
        shutil.copyfile(run_dir / "manifest.json", tmp / MANIFEST_COPY)
    return Built(out, configs, skipped, check)


# ---------------------------------------------------------------- uploading
def _network_errors() -> tuple[type[BaseException], ...]:
    """Exception types that mean "the Hub could not be reached or refused the upload"."""
    import importlib

    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

    errors: list[type[BaseException]] = [HfHubHTTPError, OfflineModeIsEnabled, OSError, ValueError]
    for name in ("httpx2", "httpx"):  # huggingface_hub's HTTP client (requests errors are OSErrors)
        try:
            errors.append(importlib.import_module(name).HTTPError)
        except ImportError:
            continue
    return tuple(errors)


def upload(built: Built, repo_id: str, private: bool = False) -> tuple[str, str]:
    """Create the dataset repo if needed and upload the folder in one commit -> (repo URL, commit URL).

    Offline mode, a missing token or any Hub/network failure is a one-line PublishError that says
    the built folder was kept.
    """
    import huggingface_hub
    from huggingface_hub import HfApi, constants

    kept = f"the built folder is kept at {built.folder}"
    if constants.is_offline_mode():
        raise PublishError(f"cannot upload: offline mode (HF_HUB_OFFLINE) is set; {kept}")
    token = huggingface_hub.get_token()
    if not token:
        raise PublishError("cannot upload: no Hugging Face token; set HF_TOKEN or run "
                           f"`hf auth login`; {kept}")
    sets = sorted({c.set for c in built.configs}, key=SETS.index)
    message = (f"fairpairs {__version__}: publish {' + '.join(sets)} pairs "
               f"({len(built.configs)} configs, {built.n_pairs} pairs)")
    api = HfApi(token=token)
    try:
        with network_deadline(f"upload to {repo_id}"):
            repo_url = api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
            info = api.upload_folder(folder_path=built.folder, repo_id=repo_id, repo_type="dataset",
                                     commit_message=message, delete_patterns=REPLACED_ON_UPLOAD,
                                     ignore_patterns=[MARKER])
    except NetworkError as exc:
        raise PublishError(f"{exc}; {kept}") from None
    except _network_errors() as exc:
        reason = one_line(exc) or type(exc).__name__
        raise PublishError(f"upload to {repo_id} failed: {reason}; {kept}") from None
    return str(repo_url), info.commit_url
