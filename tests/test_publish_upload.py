"""The upload path of `fairpairs publish`, against huggingface_hub's real client with the network
replaced at the HTTP boundary (an httpx transport that plays the Hub), plus the offline, no-token,
refused and unreachable cases: one line, exit 1, the built folder kept."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import huggingface_hub
import pytest
from huggingface_hub import constants
from huggingface_hub.utils import _http
from references import PAIRS, REPO_ID, make_run

from fairpairs.io.files import MARKER

REPO = Path(__file__).resolve().parents[1]


def _httpx():
    """The httpx flavour this huggingface_hub sends requests with."""
    return type(_http.get_session()).__module__.split(".")[0]


class FakeHub:
    """Answers the Hub API calls an upload makes and records every request."""

    def __init__(self, remote_files=(), fail=None):
        self.requests = []
        self.remote_files = list(remote_files)
        self.fail = fail  # None, "refuse" (401) or "unreachable" (connection refused)

    def __call__(self, request):
        import importlib

        hx = importlib.import_module(type(request).__module__.split(".")[0])
        self.requests.append(request)
        path = request.url.path
        if path == "/api/agent-harnesses":  # huggingface_hub's own user-agent lookup, not ours
            return hx.Response(404, json={"error": "not here"})
        if self.fail == "unreachable":
            raise hx.ConnectError("[Errno 111] Connection refused", request=request)
        if self.fail == "refuse":
            return hx.Response(401, json={"error": "Invalid credentials in Authorization header"})
        if path == "/api/repos/create":
            return hx.Response(200, json={"url": f"https://huggingface.co/datasets/{REPO_ID}"})
        if path == "/api/validate-yaml":
            return hx.Response(200, json={"errors": [], "warnings": []})
        if path.startswith(f"/api/datasets/{REPO_ID}/tree/"):
            return hx.Response(200, json=[{"type": "file", "path": p, "oid": "0" * 40, "size": 1}
                                          for p in self.remote_files])
        if path.startswith(f"/api/datasets/{REPO_ID}/preupload/"):
            files = json.loads(request.content)["files"]
            return hx.Response(200, json={"files": [
                {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in files]})
        if path.startswith(f"/api/datasets/{REPO_ID}/commit/"):
            return hx.Response(200, json={"commitUrl": f"https://huggingface.co/datasets/{REPO_ID}/commit/{'a' * 40}",
                                          "commitOid": "a" * 40, "pullRequestUrl": None})
        return hx.Response(404, json={"error": f"unexpected {request.method} {path}"})

    def calls(self, suffix):
        return [r for r in self.requests if r.url.path.endswith(suffix) or f"/{suffix}/" in r.url.path]


@pytest.fixture
def hub(monkeypatch):
    """Route huggingface_hub's HTTP client into a FakeHub; online, with a token in HF_TOKEN."""
    import importlib

    hx = importlib.import_module(_httpx())
    fake = FakeHub()
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    huggingface_hub.set_client_factory(lambda: hx.Client(
        transport=hx.MockTransport(fake), event_hooks={"request": [_http.hf_request_event_hook]}))
    huggingface_hub.close_session()
    yield fake
    huggingface_hub.set_client_factory(_http.default_client_factory)
    huggingface_hub.close_session()


def local_files(folder: Path) -> dict[str, bytes]:
    """The built folder's files, less fairpairs' own ownership marker (fairpairs.io.files.MARKER), which
    stays local: it says which local folder fairpairs may replace, nothing about the dataset."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and p.name != MARKER}


def test_upload_sends_every_built_file_in_one_commit(tmp_path, hub, fairpairs_cli):
    hub.remote_files = ["data/old_paradigm/train-00000-of-00001.parquet", "README.md", "paper/figure.png",
                        "lm_eval/fair_blimp/_template_yaml"]
    run = make_run(tmp_path / "run")
    out = tmp_path / "hub"
    r = fairpairs_cli("publish", run, "--repo-id", REPO_ID, "--private", "--out", out)
    assert r.returncode == 0
    stdout = r.stdout
    assert f"uploaded: https://huggingface.co/datasets/{REPO_ID}" in stdout
    assert f"commit: https://huggingface.co/datasets/{REPO_ID}/commit/{'a' * 40}" in stdout

    (create,) = hub.calls("/api/repos/create")
    body = json.loads(create.content)
    assert (body["organization"], body["name"], body["type"]) == ("someone", "Fair-BLiMP", "dataset")
    assert body.get("visibility") == "private" or body.get("private") is True
    hub_calls = [r for r in hub.requests if r.url.path != "/api/agent-harnesses"]
    assert all(r.headers["authorization"] == "Bearer hf_test_token" for r in hub_calls)

    (commit,) = hub.calls("commit")
    ops = [json.loads(line) for line in commit.content.decode().splitlines()]
    header = [o["value"] for o in ops if o["key"] == "header"]
    assert len(header) == 1 and header[0]["summary"].startswith("fairpairs 0.1.0: publish debiased pairs (3 configs, 6 pairs)")
    sent = {o["value"]["path"]: base64.b64decode(o["value"]["content"]) for o in ops if o["key"] == "file"}
    expected = local_files(out)
    assert sent == expected
    assert sorted(expected) == sorted(
        ["README.md", "fairpairs_manifest.json", "lm_eval/fair_blimp/_template_yaml",
         "lm_eval/fair_blimp/_fair_blimp.yaml"]
        + [f"data/{u}/train-00000-of-00001.parquet" for u in PAIRS]
        + [f"lm_eval/fair_blimp/fair_blimp_{u}.yaml" for u in PAIRS])
    # a stale config of an earlier upload goes; files outside data/ and lm_eval/ stay
    deleted = sorted(o["value"]["path"] for o in ops if o["key"] in ("deletedFile", "deletedFolder"))
    assert deleted == ["data/old_paradigm/train-00000-of-00001.parquet"]
    (validate,) = hub.calls("/api/validate-yaml")
    assert json.loads(validate.content)["content"] == (out / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("fail, needle", [("refuse", "401"), ("unreachable", "Connection refused")])
def test_refused_or_unreachable_hub_is_one_line_and_keeps_the_folder(tmp_path, hub, fail, needle, fairpairs_cli):
    hub.fail = fail
    run = make_run(tmp_path / "run")
    r = fairpairs_cli("publish", run, "--repo-id", REPO_ID)
    assert r.returncode == 1
    err = r.stderr
    assert err.startswith(f"fairpairs: error: upload to {REPO_ID} failed") and err.count("\n") == 1
    assert needle in err and f"the built folder is kept at {run / 'hub'}" in err
    assert (run / "hub" / "README.md").is_file()


def _environment(**changes) -> dict[str, str]:
    """This process's environment without the Hub's variables, with `changes`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING_FACE", "TRANSFORMERS_OFFLINE"))}
    env.update(PYTHONPATH=str(REPO), **changes)
    return env


def test_offline_mode_is_a_clear_error_and_keeps_the_folder(tmp_path, fairpairs_cli):
    run = make_run(tmp_path / "run")
    proc = fairpairs_cli.process("publish", run, "--repo-id", REPO_ID, cwd=REPO, timeout=120,
                                 env=_environment(HF_HUB_OFFLINE="1", HF_TOKEN="hf_test_token",
                                                  HF_HOME=str(tmp_path / "hf")))
    assert proc.returncode == 1
    assert proc.stderr == ("fairpairs: error: cannot upload: offline mode (HF_HUB_OFFLINE) is set; "
                           f"the built folder is kept at {run / 'hub'}\n")
    assert (run / "hub" / "README.md").is_file() and (run / "hub" / "data").is_dir()


def test_missing_token_is_a_clear_error_and_keeps_the_folder(tmp_path, fairpairs_cli):
    run = make_run(tmp_path / "run")
    proc = fairpairs_cli.process("publish", run, "--repo-id", REPO_ID, cwd=REPO, timeout=120,
                                 env=_environment(HF_HUB_OFFLINE="0", HF_HOME=str(tmp_path / "hf")))
    assert proc.returncode == 1
    assert proc.stderr.startswith("fairpairs: error: cannot upload: no Hugging Face token; set HF_TOKEN")
    assert proc.stderr.count("\n") == 1 and f"kept at {run / 'hub'}" in proc.stderr
    assert (run / "hub" / "README.md").is_file()


def test_api_publish_uploads_and_returns_the_urls(tmp_path, hub):
    import fairpairs as fp

    run = make_run(tmp_path / "run")
    built = fp.publish(run, REPO_ID)
    assert built.folder == run / "hub" and (run / "hub" / "README.md").is_file()
    assert built.repo_url == f"https://huggingface.co/datasets/{REPO_ID}"
    assert built.commit_url == f"https://huggingface.co/datasets/{REPO_ID}/commit/{'a' * 40}"
    assert len(hub.calls("commit")) == 1
