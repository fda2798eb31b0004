"""REST adapters of the model service (choose, fetch, test and switch models).

- ``GET api/codecomplete/models/choices`` (``?detect=0``: skip looking for local servers): every entry
  by source, the active choice, the serving model, the administrator's policy, downloads;
- ``POST api/codecomplete/models/use`` ``{"id", "custom"?, "role"?}``: validate, probe, switch, save;
  ``role``: ``completion`` (the default) or ``edit`` (the model of edit predictions);
- ``POST api/codecomplete/models/test`` ``{"id", "custom"?}``: the probe report only;
- ``PUT api/codecomplete/models/custom`` ``{"backend", "base_url", "model", "api_key"?}``: save the custom
  endpoint (the key is stored server-side and only ever shown masked);
- ``POST api/codecomplete/models/downloads`` ``{"id"}``: start a download (``202``);
  ``GET .../downloads`` all; ``GET .../downloads/ID`` one (``?stream=1``: server-sent progress events until
  it ends); ``DELETE .../downloads/ID``: cancel;
- ``POST api/codecomplete/models/engine``: start installing the llama.cpp engine (llama-cpp-python) in
  the background (``202``; it compiles llama.cpp); ``GET .../engine``: where it is (``?stream=1``:
  server-sent progress events until it ends).

Errors: ``{"error": {"type", "message"}}`` with the status of :class:`ModelServiceError`.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, cast

from tornado.iostream import StreamClosedError

from ..models_service import CustomEndpoint, ModelService, ModelServiceError
from .base import CodeCompleteHandler, refusal
from .replies import (
    CustomSaved,
    DownloadList,
    DownloadProgress,
    EditUseReply,
    EngineInstall,
    ModelListing,
    TestReply,
    UseReply,
    reply,
)

if TYPE_CHECKING:  # the app's configuration (the app itself imports the handlers)
    from ..config import CodeCompleteConfig

_ID = r"([A-Za-z0-9][A-Za-z0-9._-]{0,99})"  # a model or catalogue id in a path


class _ModelsBase(CodeCompleteHandler):
    """A model-service route; a :class:`ModelServiceError` it raises is answered with its status."""

    @property
    def service(self) -> ModelService:
        return cast("CodeCompleteConfig", self.extensionapp).model_service

    def named(self, data: dict[str, Any], what: str) -> str:
        """The body's ``id``: ``what`` names where it comes from in the 400 when it is missing."""
        entry_id = data.get("id")
        if not isinstance(entry_id, str) or not entry_id:
            raise refusal(400, "bad_request", f"'id' ({what}) is required.")
        return entry_id


class ChoicesHandler(_ModelsBase):
    route = "models/choices"

    async def get(self) -> None:
        detect = self.get_query_argument("detect", "1") not in ("0", "false", "no")
        self.finish(reply(ModelListing, await self.service.list_entries(detect=detect)))


class _EntryAction(_ModelsBase):
    """A POST that names a model (``id``, optional ``custom`` endpoint): parse it, act, answer."""

    async def act(self, entry_id: str, custom: CustomEndpoint | None, data: dict[str, Any]) -> dict[str, Any]:
        """The reply, checked against the route's model (:func:`.replies.reply`)."""
        raise NotImplementedError

    async def post(self) -> None:
        data = self.json_object()
        entry_id = self.named(data, "a model id from the list")
        custom = None if data.get("custom") is None else self.validate(CustomEndpoint, data["custom"])
        self.finish(await self.act(entry_id, custom, data))


class UseHandler(_EntryAction):
    route = "models/use"

    async def act(self, entry_id: str, custom: CustomEndpoint | None, data: dict[str, Any]) -> dict[str, Any]:
        role = data.get("role", "completion")
        if not isinstance(role, str):
            raise ModelServiceError("bad_request", "'role' must be 'completion' or 'edit'.")
        result = await self.service.use(entry_id, custom, role=role)
        what = "edit prediction" if role == "edit" else "completion"
        self.log.info("jupyter_codecomplete: switched the %s model to %s", what, entry_id[:200])
        return reply(EditUseReply if role == "edit" else UseReply, result)


class TestHandler(_EntryAction):
    route = "models/test"

    async def act(self, entry_id: str, custom: CustomEndpoint | None, data: dict[str, Any]) -> dict[str, Any]:
        return reply(TestReply, {"report": await self.service.test(entry_id, custom)})


class CustomHandler(_ModelsBase):
    route = "models/custom"

    async def put(self) -> None:
        self.service.save_custom(self.read(CustomEndpoint))
        entry = self.service.custom_entry()
        self.finish(reply(CustomSaved, {"entry": entry}))


class DownloadsHandler(_ModelsBase):
    route = "models/downloads"

    async def get(self) -> None:
        self.finish(
            reply(DownloadList, {"downloads": [j.snapshot() for j in self.service.downloader.jobs.values()]})
        )

    async def post(self) -> None:
        job = await self.service.pull(self.named(self.json_object(), "a catalogue id"))
        self.set_status(202)
        self.finish(reply(DownloadProgress, job.snapshot()))


async def _stream_snapshots(handler: _ModelsBase, snapshot: Any, active: Any, every: float) -> None:
    """Server-sent events: each changed snapshot, until ``active()`` is false."""
    handler.set_header("Content-Type", "text/event-stream")
    handler.set_header("Cache-Control", "no-cache")
    last: dict[str, Any] | None = None
    try:
        while True:
            snap = snapshot()
            if snap != last:
                handler.write(f"data: {json.dumps(snap)}\n\n")
                await handler.flush()
                last = snap
            if not active():
                break
            await asyncio.sleep(every)
    except StreamClosedError:
        return
    handler.finish()


class DownloadHandler(_ModelsBase):
    route = rf"models/downloads/{_ID}"

    async def get(self, entry_id: str) -> None:
        job = self.service.downloader.jobs.get(entry_id)
        if job is None:
            raise refusal(404, "not_found", f"No download of {entry_id!r} has been started.")
        if self.get_query_argument("stream", "0") in ("0", "false", "no"):
            self.finish(reply(DownloadProgress, job.snapshot()))
            return
        await _stream_snapshots(
            self, lambda: reply(DownloadProgress, job.snapshot()), lambda: job.active, 0.2
        )

    async def delete(self, entry_id: str) -> None:
        job = self.service.cancel(entry_id)
        await self.service.downloader.wait(job)
        self.finish(reply(DownloadProgress, job.snapshot()))


class EngineInstallHandler(_ModelsBase):
    route = "models/engine"

    async def get(self) -> None:
        installer = self.service.engine_installer
        if self.get_query_argument("stream", "0") in ("0", "false", "no"):
            self.finish(reply(EngineInstall, installer.snapshot()))
            return
        await _stream_snapshots(
            self, lambda: reply(EngineInstall, installer.snapshot()), lambda: installer.running, 1.0
        )

    async def post(self) -> None:
        snapshot = await self.service.install_engine()
        self.log.info("jupyter_codecomplete: installing the llama.cpp engine (%s)", snapshot["requirement"])
        self.set_status(202)
        self.finish(reply(EngineInstall, snapshot))
